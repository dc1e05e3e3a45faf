"""The PyTorch/XLA 2.9 corpus (tests/data/corpus_torch_xla, made by its make_cases.py from
`_get_xla_tensors_hlo`, `xm.get_stablehlo` and `exported_program_to_stablehlo`, with the
optimized text from `--xla_dump_to`): every text parses and round-trips, and runs on the
interpreter and the CPU target to PyTorch/XLA's own XLA:CPU outputs, except texts that read
elided constants (refused with the clear error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.producer_corpus import TEXTS, cases, check_round_trip, check_run, meta, runs

CASES = cases("corpus_torch_xla")
RUNS = runs(CASES, dict.fromkeys(TEXTS, ("interp", "cpu")))


def test_corpus_was_made_by_torch_xla_2_9() -> None:
    assert len(CASES) == 30
    assert all(meta(c)["torch_xla_version"].startswith("2.9.") for c in CASES)
    assert {meta(c)["how"] for c in CASES} == {"lazy", "export"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parses_and_round_trips(case: Path) -> None:
    check_round_trip(case)


@pytest.mark.parametrize(("case", "text", "target"), RUNS)
def test_runs_to_torch_xla_outputs(case: Path, text: str, target: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    check_run(case, text, target, capsys)
