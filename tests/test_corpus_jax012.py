"""The jax 0.12 corpus (tests/data/corpus_jax012, bench/make_jax_corpus.py): every text
parses and prints to a fixed point; every module runs to XLA:CPU's outputs, except those
that read constants the dump elided (refused with the clear error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.producer_corpus import cases, check_round_trip, check_run, meta, runs

CASES = cases("corpus_jax012")
RUNS = runs(CASES, {"module.hlo": ("interp",), "module.opt.hlo": ("interp", "cpu"),
                    "module.stablehlo.mlir": ("interp",)})


def test_corpus_was_made_by_jax_0_12() -> None:
    versions = {meta(c)["jax_version"] for c in CASES}
    assert len(CASES) == 11 and all(v.startswith("0.12.") for v in versions)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parses_and_round_trips(case: Path) -> None:
    check_round_trip(case)


@pytest.mark.parametrize(("case", "text", "target"), RUNS)
def test_runs_to_xla_outputs(case: Path, text: str, target: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    check_run(case, text, target, capsys)
