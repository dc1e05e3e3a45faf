"""bench/cpu.py's bookkeeping: per-round ratios, their median and spread, the geomean."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_cpu", ROOT / "bench" / "cpu.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_cpu"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_ratio_is_the_median_of_round_ratios_and_geomean_summarizes() -> None:
    b = _bench()
    fast = b.Row("fast", ours_rounds=[1.0, 2.0, 1.5], xla_rounds=[2.0, 2.0, 2.0],
                 copy_rounds=[3.0, 3.0, 3.0], xla_compile=10.0)
    slow = b.Row("slow", ours_rounds=[4.0, 4.0, 4.0], xla_rounds=[2.0, 2.0, 2.0],
                 copy_rounds=[3.0, 3.0, 3.0], xla_compile=10.0)
    assert fast.ratios == [0.5, 1.0, 0.75]
    assert fast.ratio == 0.75 and fast.ours == 1.5 and fast.xla == 2.0
    assert math.isclose(b.geomean([fast.ratio, slow.ratio]), math.sqrt(0.75 * 2.0))
    text = b.summary([fast, slow])
    assert "geomean hlotool/XLA 1.22 over 2 cases" in text and "slow (2.00)" in text
    assert "fast" not in text.split("above 1.0:")[1]
    assert b.cells(fast)[3:5] == ["0.75", "0.50-1.00"]


def test_check_compares_outputs_with_a_tolerance() -> None:
    b = _bench()
    want = [np.array([1.0, 2.0], np.float32)]
    assert b.check({"out0": np.array([1.0, 2.0001], np.float32)}, want) == ""
    assert "Mismatch" in b.check({"out0": np.array([1.0, 3.0], np.float32)}, want)
    assert "out0" in b.check({}, want)
