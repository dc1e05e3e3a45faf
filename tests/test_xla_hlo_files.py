"""XLA's own `.hlo` test inputs (tests/data/xla_hlo, copied from openxla/xla): every part
parses and prints back to a fixed point, and every part XLA:CPU runs gives its outputs
(stored by `bench/xla_hlo_files.py --write`) on hlotool's interpreter and CPU target."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.xla_hlo_files import matches, parts, run_target, sample
from hlotool.frontend import parse_hlo
from hlotool.ir.printer import print_module
from hlotool.values_io import load_npz, output_arrays, random_arguments
from tests.xla_parser import xla_reads

DATA = Path(__file__).resolve().parent / "data" / "xla_hlo"
PARTS = [p for f in sorted(DATA.glob("*.hlo")) for p in parts(f)]
STATUS: dict[str, dict[str, str]] = json.loads((DATA / "expected.json").read_text())
RUNNABLE = [(label, text) for label, text in PARTS if STATUS[label]["runs"] == "yes"]


@pytest.fixture(scope="module")
def expected() -> dict[str, np.ndarray]:
    return load_npz(DATA / "expected.npz")


def test_every_part_has_a_status() -> None:
    assert sorted(STATUS) == sorted(label for label, _ in PARTS)
    assert len(PARTS) >= 130 and len(RUNNABLE) >= 120


@pytest.mark.parametrize(("label", "text"), PARTS, ids=[label for label, _ in PARTS])
def test_part_parses_and_prints_back(label: str, text: str) -> None:
    printed = print_module(parse_hlo(text))
    assert print_module(parse_hlo(printed)) == printed


@pytest.mark.parametrize("target", ["interp", "cpu"])
@pytest.mark.parametrize(("label", "text"), RUNNABLE, ids=[label for label, _ in RUNNABLE])
def test_part_matches_xla_cpu(label: str, text: str, target: str,
                              expected: dict[str, np.ndarray]) -> None:
    module = parse_hlo(text)
    got = output_arrays(run_target(text, target, random_arguments(module, 0)))
    want = {k.split(":", 1)[1]: v for k, v in expected.items() if k.split(":", 1)[0] == label}
    assert matches({k: sample(v) for k, v in got.items()}, want) == []


def test_xla_reads_our_print_as_the_same_module(tmp_path: Path) -> None:
    """XLA's parser (jaxlib) reads what hlotool prints of each part as the module it reads
    from XLA's own file: the same canonical text (`HloModule::ToString`), for every part
    XLA parses."""
    theirs = xla_reads([text for _, text in PARTS], tmp_path)
    ours = xla_reads([print_module(parse_hlo(text)) for _, text in PARTS], tmp_path)
    verdicts = {label: ("xla rejects its own file" if not want[0] else
                        "same" if got == want else f"ours: {got[1][:200]}")
                for (label, _), want, got in zip(PARTS, theirs, ours)}
    assert {k: v for k, v in verdicts.items() if v != "same"} == {
        "hlo_to_mhlo.import.hlo": "xla rejects its own file"}  # collective-reduce: see README
