"""The native denormal check the numpy library thunks use (targets/cpu/kernels/denormal.py)."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.targets.cpu.kernels.denormal import flush_inputs, has_denormals
from tests.targets.conftest import assert_same, run_both


@pytest.mark.parametrize("dtype, tiny", [(np.float32, 1e-40), (np.float64, 1e-310)])
def test_scan_and_flush(dtype: type, tiny: float) -> None:
    x = np.random.default_rng(0).standard_normal(1001).astype(dtype)
    x[[0, 17]] = 0.0
    assert not has_denormals(x) and flush_inputs(x) is x
    x[[3, 1000]] = [tiny, -tiny]
    x[5] = np.finfo(dtype).tiny
    assert has_denormals(x)
    assert not has_denormals(x[6:1000])
    y = flush_inputs(x)
    assert y is not x and y[3] == 0 and y[1000] == 0 and np.signbit(y[1000])
    assert y[5] == np.finfo(dtype).tiny and x[3] == dtype(tiny)


@pytest.mark.parametrize("native", [True, False])
def test_dot_reads_denormals_as_zero(native: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotool.targets.cpu.kernels import blas

    if not native:
        monkeypatch.setattr(blas, "_REGISTERED", frozenset())  # the numpy DotThunk
    text = """HloModule m
ENTRY e {
  a = f32[4,3] parameter(0)
  b = f32[3,5] parameter(1)
  ROOT d = f32[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""
    a = np.full((4, 3), 1e-39, np.float32)
    a[0] = 1.0
    b = np.full((3, 5), 1e20, np.float32)
    got, want, ex = run_both(text, a, b)
    assert ex.stats.fallback == 0
    (thunk,) = ex.thunks.values()
    assert hasattr(thunk, "native_args") is native
    assert_same(got, want)
    assert np.all(got[1:] == 0)
