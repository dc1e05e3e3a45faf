"""XLA's own `.hlo` test inputs (tests/data/xla_hlo): every part parses, prints back to a
fixed point and runs on the interpreter (bench/xla_hlo_files.py compares with XLA:CPU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.xla_hlo_files import parts
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.printer import print_module
from hlotool.values_io import random_arguments

DATA = Path(__file__).resolve().parent / "data" / "xla_hlo"
PARTS = [p for f in sorted(DATA.glob("*.hlo")) for p in parts(f)]


@pytest.mark.parametrize(("label", "text"), PARTS, ids=[label for label, _ in PARTS])
def test_part_parses_prints_and_runs(label: str, text: str) -> None:
    module = parse_hlo(text)
    printed = print_module(module)
    assert print_module(parse_hlo(printed)) == printed
    with np.errstate(all="ignore"):
        Evaluator(module).run(random_arguments(module, 0))
