"""The TensorFlow 2.21 corpus (tests/data/corpus_tf, made by its make_cases.py from
`experimental_get_compiler_ir(...)(stage='hlo'|'optimized_hlo'|'stablehlo')`): every text
parses and round-trips, and runs on the interpreter and the CPU target to TensorFlow's own
XLA:CPU outputs, except texts that read elided constants (refused with the clear error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.producer_corpus import TEXTS, cases, check_round_trip, check_run, meta, runs

CASES = cases("corpus_tf")
RUNS = runs(CASES, dict.fromkeys(TEXTS, ("interp", "cpu")))


def test_corpus_was_made_by_tensorflow_2_21() -> None:
    assert len(CASES) == 26
    assert all(meta(c)["tensorflow_version"].startswith("2.21.") for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parses_and_round_trips(case: Path) -> None:
    check_round_trip(case)


@pytest.mark.parametrize(("case", "text", "target"), RUNS)
def test_runs_to_tensorflow_outputs(case: Path, text: str, target: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    check_run(case, text, target, capsys)
