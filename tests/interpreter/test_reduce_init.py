"""Reduces whose init value is not the reducer's identity match XLA:CPU's outputs
(tests/data/reduce_init/make.py ran them on XLA:CPU), on the interpreter and the CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "reduce_init"
CASES = sorted(p.stem for p in DATA.glob("*.hlo"))


@pytest.mark.parametrize("target", ["interp", "cpu"])
@pytest.mark.parametrize("case", CASES)
def test_matches_xla_cpu(case: str, target: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Float sums: XLA's order differs (YNNPACK) or not (its tree), so a relative
    # tolerance of a few ulps of the row's magnitude; integers are exact.
    tol = ["--rtol", "2e-3", "--atol", "2e-3"] if case.startswith("f") else ["--rtol", "0", "--atol", "0"]
    code = main(["run", str(DATA / f"{case}.hlo"), "--target", target,
                 "--inputs", str(DATA / f"{case}.inputs.npz"),
                 "--expect", str(DATA / f"{case}.expected.npz"), "--format", "json", *tol])
    assert code == 0, capsys.readouterr().out


def test_cases_cover_both_rules() -> None:
    assert len(CASES) == 16
