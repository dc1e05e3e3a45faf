"""hlotool's own f32 gemm (targets/cpu/kernels/gemm.py) against numpy in float64: within
the forward error bound of a K-term sum, |err| <= 2 K eps (|op(A)| |op(B)|) (+ the beta
term), for tile edges, blocks of the contraction, both transposes, alpha and beta."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from hlotool.targets.cpu.jit import host
from hlotool.targets.cpu.kernels import gemm

EPS = float(np.finfo(np.float32).eps)
_SIG = ctypes.CFUNCTYPE(None, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int64,
                        ctypes.c_int64, ctypes.c_int64, ctypes.c_float, ctypes.c_void_p,
                        ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_float,
                        ctypes.c_void_p, ctypes.c_int64)
MR, NR, _ = gemm.tile(host().features)


def sgemm(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool, alpha: float = 1.0,
          beta: float = 0.0, c: np.ndarray | None = None) -> np.ndarray:
    fn = _SIG(gemm.load().address(gemm.SYMBOL))
    m, k = (a.shape[1], a.shape[0]) if ta else a.shape
    n = b.shape[0] if tb else b.shape[1]
    out = np.full((m, n), np.nan, np.float32) if c is None else c.copy()
    fn(101, 112 if ta else 111, 112 if tb else 111, m, n, k, alpha, a.ctypes.data,
       a.shape[1], b.ctypes.data, b.shape[1], beta, out.ctypes.data, n)
    return out


SHAPES = [(1, 1, 1), (5, 7, 3), (MR, NR, gemm.KC), (MR + 1, NR + 1, gemm.KC + 1),
          (100, 70, 600), (256, 10, 1024), (3 * MR - 1, gemm.NC + NR + 3, 40)]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_within_the_contraction_bound(m: int, n: int, k: int, ta: bool, tb: bool) -> None:
    rng = np.random.default_rng(m * 7 + n * 3 + k)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    got = sgemm(a, b, ta, tb)
    a64, b64 = (a.T if ta else a).astype(np.float64), (b.T if tb else b).astype(np.float64)
    bound = 2 * k * EPS * (np.abs(a64) @ np.abs(b64))
    assert np.all(np.abs(got - a64 @ b64) <= bound)


def test_alpha_and_beta() -> None:
    """C = alpha A B + beta C over several contraction blocks; beta 0 ignores C's NaNs."""
    rng = np.random.default_rng(1)
    m, n, k = 2 * MR + 3, 2 * NR + 5, 2 * gemm.KC + 7
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    a64, b64, c64 = (x.astype(np.float64) for x in (a, b, c))
    got = sgemm(a, b, False, False, 0.5, -2.0, c)
    bound = 2 * (k + 2) * EPS * (0.5 * (np.abs(a64) @ np.abs(b64)) + 2 * np.abs(c64))
    assert np.all(np.abs(got - (0.5 * a64 @ b64 - 2 * c64)) <= bound)
    nan = np.full((m, n), np.nan, np.float32)
    assert np.all(np.isfinite(sgemm(a, b, False, False, 1.0, 0.0, nan)))


def test_tile_follows_the_host() -> None:
    assert gemm.tile("+avx2,+fma,+avx512f") == (12, 32, 16)
    assert gemm.tile("+avx2,+fma,-avx512f") == (6, 16, 8)


def test_avx2_tile_is_correct_too() -> None:
    """The 6 x 16 tile (hosts without AVX-512), compiled here from its IR."""
    from hlotool.targets.cpu.jit import CodeLibrary, Pipeline

    gemm.load()  # registers malloc and free
    library = CodeLibrary("gemm_avx2")
    library.add_ir_module(gemm.runtime_ir("+avx2,+fma"), Pipeline.FULL)
    library.finalize()
    fn = _SIG(library.address(gemm.SYMBOL))
    rng = np.random.default_rng(2)
    m, n, k = 23, 37, gemm.KC + 9
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    out = np.empty((m, n), np.float32)
    fn(101, 111, 112, m, n, k, 1.0, a.ctypes.data, k, b.ctypes.data, k, 0.0, out.ctypes.data, n)
    a64, b64 = a.astype(np.float64), b.T.astype(np.float64)
    assert np.all(np.abs(out - a64 @ b64) <= 2 * k * EPS * (np.abs(a64) @ np.abs(b64)))
