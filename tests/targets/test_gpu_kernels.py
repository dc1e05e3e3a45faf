"""The GPU target's kernels on small modules, emulated under every thread order, against
the reference interpreter."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.commands.opt import apply_passes
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.gpu import compile_module
from hlotool.targets.gpu.emulator import ORDERS

rng = np.random.default_rng(0)


def _check(text: str, args: list[np.ndarray], kinds: set[str], *, rtol: float = 0.0,
           atol: float = 0.0, pipeline: bool = False) -> None:
    """Every thread order gives the same result, equal (or close) to the interpreter's,
    and the instructions ran in kernels whose shared arrays / phases are `kinds`."""
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run(args)
    results = []
    for order in ORDERS:
        module = parse_hlo(text)
        if pipeline:
            apply_passes(module, "gpu", None, verify_each=False)
        ex = compile_module(module, emulate=True, order=order)
        results.append(np.asarray(ex.run(args)))
        assert ex.stats.fallback == 0, ex.stats.fallback_by_opcode
        names = {s.name for k in ex.plan.kernels for s in k.shared} | \
            {"phases" if k.barriers else "flat" for k in ex.plan.kernels}
        assert kinds <= names, names
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    if rtol or atol:
        np.testing.assert_allclose(results[0], want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(results[0], want)


@pytest.mark.parametrize("dtype", ["f32", "pred", "s8"])
def test_tiled_transpose(dtype: str) -> None:
    text = f"""HloModule t
ENTRY e {{
  x = {dtype}[3,70,45] parameter(0)
  ROOT t = {dtype}[3,45,70] transpose(x), dimensions={{0,2,1}}
}}"""
    x = rng.standard_normal((3, 70, 45))
    arg = {"f32": x.astype(np.float32), "pred": x > 0, "s8": (x * 50).astype(np.int8)}[dtype]
    _check(text, [arg], {"tile", "phases"})


def test_row_reduction_block_tree() -> None:
    text = """HloModule r
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[5,1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5] reduce(x, z), dimensions={1}, to_apply=add
}"""
    _check(text, [rng.standard_normal((5, 1000)).astype(np.float32)], {"part0", "phases"},
           rtol=1e-5, atol=1e-5)


def test_column_reduction_per_thread_and_argmax() -> None:
    text = """HloModule r
argmax {
  a = f32[] parameter(0)  ai = s32[] parameter(1)  b = f32[] parameter(2)  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  keep = pred[] or(gt, pred[] and(eq, lt))
  v = f32[] select(keep, a, b)
  i = s32[] select(keep, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[40,2000] parameter(0)
  ix = s32[40,2000] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[2000], s32[2000]) reduce(x, ix, ninf, zero), dimensions={0}, to_apply=argmax
}"""
    x = rng.standard_normal((40, 2000)).astype(np.float32)
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run([x])
    for order in ORDERS:
        ex = compile_module(parse_hlo(text), emulate=True, order=order)
        got = ex.run([x])
        assert ex.stats.fallback == 0
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[1], np.argmax(x, axis=0))


def test_batched_dot_tiled_gemm() -> None:
    text = """HloModule d
ENTRY e {
  a = f32[3,37,50] parameter(0)
  b = f32[3,50,29] parameter(1)
  ROOT d = f32[3,37,29] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}"""
    a = rng.standard_normal((3, 37, 50)).astype(np.float32)
    b = rng.standard_normal((3, 50, 29)).astype(np.float32)
    _check(text, [a, b], {"a", "b", "phases"}, rtol=1e-5, atol=1e-5)


def test_convolution_and_dynamic_update_slice() -> None:
    conv = """HloModule c
ENTRY e {
  x = f32[2,9,9,6] parameter(0)
  w = f32[3,3,3,8] parameter(1)
  ROOT c = f32[2,5,5,8] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
}"""
    x = rng.standard_normal((2, 9, 9, 6)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 8)).astype(np.float32)
    _check(conv, [x, w], {"flat"}, rtol=1e-5, atol=1e-5)
    dus = """HloModule u
ENTRY e {
  x = s32[6,7] parameter(0)
  y = s32[2,3] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT u = s32[6,7] dynamic-update-slice(x, y, i, j)
}"""
    args = [np.arange(42, dtype=np.int32).reshape(6, 7), -np.ones((2, 3), np.int32),
            np.asarray(5, np.int32), np.asarray(-2, np.int32)]
    _check(dus, args, {"flat"})


def test_scatter_in_the_interpreters_order() -> None:
    """Duplicate indices combine in update order (bit-identical float sums); an index whose
    window does not fit is skipped whole."""
    text = """HloModule s
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[10,4] parameter(0)
  i = s32[6,1] parameter(1)
  u = f32[6,4] parameter(2)
  ROOT s = f32[10,4] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}"""
    x = rng.standard_normal((10, 4)).astype(np.float32)
    idx = np.asarray([[3], [3], [9], [12], [-1], [3]], np.int32)
    upd = (rng.standard_normal((6, 4)) * 1e4).astype(np.float32)
    _check(text, [x, idx, upd], {"phases"})


def test_stable_sort_with_values() -> None:
    """Keys with many ties sorted with a payload: the order of equal keys is kept."""
    text = """HloModule s
less { a = s32[] parameter(0)  b = s32[] parameter(1)  c = f32[] parameter(2)  d = f32[] parameter(3)
       ROOT lt = pred[] compare(a, b), direction=LT }
ENTRY e {
  k = s32[3,300] parameter(0)
  v = f32[3,300] parameter(1)
  ROOT s = (s32[3,300], f32[3,300]) sort(k, v), dimensions={1}, to_apply=less
}"""
    keys = rng.integers(0, 7, (3, 300)).astype(np.int32)
    vals = rng.standard_normal((3, 300)).astype(np.float32)
    order = np.argsort(keys, axis=1, kind="stable")
    for o in ORDERS:
        ex = compile_module(parse_hlo(text), emulate=True, order=o)
        got_k, got_v = ex.run([keys, vals])
        assert ex.stats.fallback == 0
        np.testing.assert_array_equal(got_k, np.take_along_axis(keys, order, axis=1))
        np.testing.assert_array_equal(got_v, np.take_along_axis(vals, order, axis=1))
