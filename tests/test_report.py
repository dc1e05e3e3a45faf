"""Output statistics of hlotool.report: values as numpy computes them, memory bounded."""

from __future__ import annotations

import math
import tracemalloc

import ml_dtypes
import numpy as np
import pytest

from hlotool.report import array_summary


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_, ml_dtypes.bfloat16])
def test_summary_matches_numpy(dtype: type) -> None:
    a = (np.random.default_rng(0).standard_normal(3_000_001) * 4).astype(dtype)
    wide = a.astype(np.float64)
    got = array_summary(a)
    assert got["min"] == wide.min() and got["max"] == wide.max()
    assert got["mean"] == pytest.approx(wide.mean(), rel=1e-9, abs=1e-12)


def test_summary_ignores_nans() -> None:
    got = array_summary(np.array([np.nan, 2.0, -1.0], np.float32))
    assert (got["min"], got["max"], got["mean"]) == (-1.0, 2.0, 0.5)
    assert all(math.isnan(array_summary(np.full(2, np.nan))[k]) for k in ("min", "max", "mean"))


def test_summary_never_copies_the_output_to_float64() -> None:
    a = np.ones(8_000_000, np.float32)  # a float64 copy would be 64 MB
    tracemalloc.start()
    array_summary(a)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 24 << 20
