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
    assert gemm.tile("+avx2,+fma,+avx512f") == (6, 64, 16)
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


# -- dots split across the threads as this gemm (blas.own_gemm) --------------------------

DOT = """HloModule dot
ENTRY e {{
  a = f32[{a}] parameter(0)
  b = f32[{b}] parameter(1)
  ROOT d = f32[{out}] dot(a, b), {dims}
}}"""

#: (lhs, rhs, result, dimension numbers, K): plain, both operands transposed, batched
#: with a transposed rhs (attention's q k^T).
OWN = [("300,512", "512,520", "300,520", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", 512),
       ("512,300", "520,512", "300,520", "lhs_contracting_dims={0}, rhs_contracting_dims={1}", 512),
       ("4,200,64", "4,400,64", "4,200,400",
        "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
        "rhs_contracting_dims={2}", 64)]


def _dims(s: str) -> tuple[int, ...]:
    return tuple(int(d) for d in s.split(","))


@pytest.mark.parametrize(("a", "b", "out", "dims", "k"), OWN)
def test_split_dots_take_this_gemm_within_the_bound(a: str, b: str, out: str, dims: str,
                                                    k: int) -> None:
    """On an AVX-512 host these dots are this gemm on the threads (OpenBLAS split
    elsewhere); either way within the contraction bound, and the same bits on one thread
    as on three (a column's sums do not depend on the split)."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import compile_module
    from hlotool.targets.cpu.kernels import blas, parallel
    from tests.targets.conftest import assert_contraction_close, assert_same

    text = DOT.format(a=a, b=b, out=out, dims=dims)
    ins = parse_hlo(text).entry.root
    form = blas.plan_blas_dot(ins)
    assert form is not None
    assert form.own == ("+avx512f" in host().features.split(",") and host().is_x86)
    rng = np.random.default_rng(len(text))
    x = rng.standard_normal(_dims(a)).astype(np.float32)
    y = rng.standard_normal(_dims(b)).astype(np.float32)
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    old = parallel.set_threads(3)
    try:
        got = ex.run([x, y])
        parallel.set_threads(1)
        assert_same(ex.run([x, y]), got)
    finally:
        parallel.set_threads(old)
    assert_contraction_close(got, text, [x, y], k)


def test_split_dot_flushes_denormals() -> None:
    """This gemm's parts run with FTZ/DAZ, as XLA:CPU's threads: denormal inputs add
    nothing and results below the normal range are signed zeros."""
    from hlotool.frontend import parse_hlo
    from hlotool.interpreter.core import Evaluator
    from hlotool.targets.cpu import compile_module

    a, b, out, dims, _ = OWN[0]
    text = DOT.format(a=a, b=b, out=out, dims=dims)
    tiny = float(np.finfo(np.float32).tiny)
    x = np.ones(_dims(a), np.float32)
    x[:, ::2] = tiny / 4
    y = np.ones(_dims(b), np.float32)
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    want = Evaluator(parse_hlo(text)).run([x, y])
    np.testing.assert_array_equal(ex.run([x, y]), want)
    assert np.all(want == 256)
    small = np.full(_dims(a), -np.sqrt(tiny) / 64, np.float32)
    got = ex.run([small, np.full(_dims(b), np.sqrt(tiny) / 64, np.float32)])
    assert np.all(got == 0) and np.all(np.signbit(got))


_EPILOGUE_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_int32, ctypes.c_int32, *[ctypes.c_int64] * 3,
                                   ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p,
                                   ctypes.c_int64, ctypes.c_void_p, *[ctypes.c_int64] * 5,
                                   ctypes.c_void_p, ctypes.c_void_p)
_EPILOGUE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, *[ctypes.c_int64] * 5)


@pytest.mark.parametrize("batches,m,n,k", [(1, 300, 520, 2 * gemm.KC + 7), (3, 2 * MR + 1, 70, 9)])
def test_epilogue_sees_every_finished_block_once(batches: int, m: int, n: int, k: int) -> None:
    """The epilogue entry calls back once for every block of C, the blocks tile each
    matrix exactly, and each block already holds its final product when called (the
    last contraction block added), on the threads of the parallel entry."""
    from hlotool.targets.cpu.kernels import parallel

    rng = np.random.default_rng(m + n + k)
    a = rng.standard_normal((batches, m, k)).astype(np.float32)
    b = rng.standard_normal((batches, k, n)).astype(np.float32)
    c = np.full((batches, m, n), np.nan, np.float32)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    bound = 2 * k * EPS * np.matmul(np.abs(a), np.abs(b)).astype(np.float64)
    seen = np.zeros((batches, m, n), np.int64)
    blocks: list[tuple[int, int, int, int, int, bool]] = []

    def epilogue(_: int, batch: int, r0: int, r1: int, c0: int, c1: int) -> None:
        block = (batch, slice(r0, r1), slice(c0, c1))
        final = bool(np.all(np.abs(c[block] - want[block]) <= bound[block]))
        blocks.append((batch, r0, r1, c0, c1, final))
        seen[block] += 1

    callback = _EPILOGUE(epilogue)
    fn = _EPILOGUE_ENTRY(gemm.load().address(gemm.EPILOGUE_SYMBOL))
    old = parallel.set_threads(2)
    try:
        fn(111, 111, m, n, k, a.ctypes.data, k, b.ctypes.data, n, c.ctypes.data, n, batches,
           m * k, k * n, m * n, ctypes.cast(callback, ctypes.c_void_p).value, 0)
    finally:
        parallel.set_threads(old)
    assert np.all(seen == 1)
    assert all(final for *_, final in blocks) and len(blocks) > batches
    assert np.all(np.abs(c - want) <= bound)


@pytest.mark.parametrize(("m", "n", "k", "own"), [(256, 10, 1024, False), (64, 16, 8192, False),
                                                  (2048, 10, 1024, True), (300, 520, 512, True)])
def test_narrow_dots_keep_openblas_unless_tall(m: int, n: int, k: int, own: bool) -> None:
    """A dot narrower than the gemm's strip takes OpenBLAS unless it has NARROW_OWN_ROWS
    rows (each tile would pack a zero-padded strip for few rows); results within the
    contraction bound either way."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import compile_module
    from hlotool.targets.cpu.kernels import blas
    from tests.targets.conftest import assert_contraction_close

    text = DOT.format(a=f"{m},{k}", b=f"{k},{n}", out=f"{m},{n}",
                      dims="lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    form = blas.plan_blas_dot(parse_hlo(text).entry.root)
    assert form is not None
    assert form.own == (own and "+avx512f" in host().features.split(",") and host().is_x86)
    rng = np.random.default_rng(m + n)
    x = rng.standard_normal((m, k)).astype(np.float32)
    y = rng.standard_normal((k, n)).astype(np.float32)
    got = compile_module(parse_hlo(text), cache=False, autotune=False).run([x, y])
    assert_contraction_close(got, text, [x, y], k)
