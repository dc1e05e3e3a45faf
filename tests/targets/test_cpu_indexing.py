"""CPU indexing kernels (gather, dynamic-slice, dynamic-update-slice, scatter,
reduce-window) against the interpreter, bit for bit, on the forms JAX produces and on
hand-written edge cases (out-of-range and negative indices, duplicate scatter targets,
out-of-bounds windows, padded and dilated windows).

Every test also checks that the indexing ops ran natively (no interpreter fallback).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.kernels.indexing import UpdateThunk
from hlotool.targets.cpu.runtime import CpuExecutable
from tests.targets.conftest import ARGMAX_REGION, assert_same

INDEXING = {"gather", "scatter", "dynamic-slice", "dynamic-update-slice", "reduce-window",
            "select-and-scatter"}
RNG = np.random.default_rng(7)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def run_native(text: str, *args: Any) -> CpuExecutable:
    """Compile, run and compare with the interpreter; the indexing ops must run natively."""
    values = [np.asarray(a) for a in args]
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    got = ex.run(values)
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run(values)
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    assert len(got_t) == len(want_t)
    for g, w in zip(got_t, want_t, strict=True):
        assert_same(g, w)
    assert ex.stats.native >= 1
    assert not INDEXING & set(ex.stats.fallback_by_opcode), ex.stats.fallback_by_opcode
    return ex


# -- the forms JAX produces (unoptimized HLO and XLA's optimized HLO) --------------------------

X = f32(6, 5)
IDX = np.array([0, 5, -1, 3, 7, -9, 2], np.int32)
DUP = np.array([1, 3, 1, 1, 0, 3, 1], np.int32)
#: Values whose f32 sum depends on the order they are added in.
ORDERED = np.array([1e8, 1.0, -1e8, 3.0, 0.25, 7.0, 1e-3], np.float32)


def _jax_cases() -> dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]]:
    def ds(x: Any, i: Any, j: Any) -> Any:
        return lax.dynamic_slice(x, (i, j), (2, 3))

    def dus(x: Any, u: Any, i: Any, j: Any) -> Any:
        return lax.dynamic_update_slice(x, u, (i, j))

    def batched(x: Any, i: Any) -> Any:
        return jax.vmap(lambda r, j: lax.dynamic_slice(r, (j,), (2,)))(x, i)

    def pool(op: Any, init: float, padding: str, stride: int = 2) -> Callable[[Any], Any]:
        strides = (1, stride, stride, 1)
        return lambda x: lax.reduce_window(x, init, op, (1, 2, 2, 1), strides, padding)

    ints = np.arange(30, dtype=np.int32).reshape(6, 5)
    image = f32(2, 7, 6, 3)
    rows = ORDERED[:, None] * np.ones((1, 5), np.float32)
    return {
        "take": (lambda x, i: x[i], (X, IDX)),
        "take_clip": (lambda x, i: jnp.take(x, i, axis=1, mode="clip"), (X, IDX)),
        "take_along_axis": (lambda x, i: jnp.take_along_axis(x, i, axis=1),
                            (X, RNG.integers(-6, 6, (6, 4)).astype(np.int32))),
        "embedding": (lambda t, ids: t[ids], (X, RNG.integers(0, 6, (3, 4)).astype(np.int32))),
        "batched_gather": (batched, (X, np.array([0, 4, -2, 3, 9, 1], np.int32))),
        "dynamic_slice": (ds, (X, np.int32(5), np.int32(-2))),
        "dynamic_slice_in": (ds, (X, np.int32(1), np.int32(2))),
        "dus_in": (dus, (X, f32(2, 3), np.int32(2), np.int32(1))),
        "dus_out": (dus, (X, f32(2, 3), np.int32(-4), np.int32(9))),
        "dus_s32": (dus, (ints, -ints[:2, :3], np.int32(5), np.int32(3))),
        "scatter_add_dup": (lambda x, i, u: x.at[i].add(u), (X, DUP, rows)),
        "scatter_add_s32": (lambda x, i, u: x.at[i].add(u),
                            (ints, DUP, np.arange(35, dtype=np.int32).reshape(7, 5) - 17)),
        "scatter_set_dup": (lambda x, i, u: x.at[i].set(u), (X, DUP, f32(7, 5))),
        "scatter_point": (lambda x, i, j, v: x.at[i, j].add(v),
                          (X, DUP, np.array([0, 4, 0, 0, 9, 4, -1], np.int32), ORDERED)),
        "scatter_max": (lambda x, i, u: x.at[i].max(u), (X, IDX, f32(7, 5))),
        "segment_sum": (lambda u, s: jax.ops.segment_sum(u, s, num_segments=4),
                        (rows, np.array([0, 3, 0, 0, 2, 3, 5], np.int32))),
        "max_pool_same": (pool(lax.max, -np.inf, "SAME"), (image,)),
        "avg_pool_valid": (pool(lax.add, 0.0, "VALID", 1), (image * 1e4,)),
        "sum_pool_same": (pool(lax.add, 0.0, "SAME", 1), (image,)),
        "max_pool_s32": (pool(lax.max, -2**31, "SAME"), ((image * 1e6).astype(np.int32),)),
        "cumsum_s32": (lambda x: jnp.cumsum(x, axis=1),
                       (RNG.integers(-9, 9, (4, 40)).astype(np.int32),)),
        "cummax_f32": (lambda x: lax.cummax(x, axis=0), (f32(40, 3),)),
        "max_pool_grad": (jax.grad(lambda x: (pool(lax.max, -np.inf, "SAME", 1)(x) * x).sum()),
                          (np.round(image * 2) / 2,)),
    }


JAX_CASES = _jax_cases()


@functools.cache
def jax_text(name: str, dialect: str) -> str:
    fn, args = JAX_CASES[name]
    lowered = jax.jit(fn).lower(*args)
    return lowered.compile().as_text() if dialect == "opt" else lowered.as_text(dialect="hlo")


@pytest.mark.parametrize("dialect", ["hlo", "opt"])
@pytest.mark.parametrize("name", sorted(JAX_CASES))
def test_jax_forms(name: str, dialect: str) -> None:
    """(XLA's optimized max_pool_grad has a variadic reduce-window, argmax-like, and a
    scatter instead of the select-and-scatter.)"""
    run_native(jax_text(name, dialect), *JAX_CASES[name][1])


def test_scatter_add_order_matters() -> None:
    """The duplicate-index case really depends on the order of the adds."""
    _, (x, i, u) = JAX_CASES["scatter_add_dup"]
    forward = Evaluator(parse_hlo(jax_text("scatter_add_dup", "hlo"))).run([x, i, u])
    backward = Evaluator(parse_hlo(jax_text("scatter_add_dup", "hlo"))).run([x, i[::-1], u[::-1]])
    assert not np.array_equal(forward, backward)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, np.float16], ids=["bf16", "f16"])
def test_narrow_float_updates(dtype: Any) -> None:
    """bf16/f16 scatters (a scatter-add into duplicate targets rounds after every add,
    so its order shows), dynamic-update-slices and max-pool gradients
    (select-and-scatter) run natively, bit for bit the interpreter."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((40, 8)).astype(dtype)
    targets = rng.integers(0, 40, 200).astype(np.int32)
    updates = rng.standard_normal((200, 8)).astype(dtype)
    for fn in (lambda x, i, u: x.at[i].add(u), lambda x, i, u: x.at[i].max(u),
               lambda x, i, u: x.at[i[:20]].set(u[:20])):
        run_native(jax.jit(fn).lower(x, targets, updates).as_text(dialect="hlo"),
                   x, targets, updates)
    dus = jax.jit(lambda x, u, i: lax.dynamic_update_slice(x, u, (i, 1)))
    run_native(dus.lower(x, x[:5, :4], np.int32(38)).as_text(dialect="hlo"), x, x[:5, :4],
               np.int32(38))
    images = rng.standard_normal((2, 8, 8, 4)).astype(dtype)

    def pooled(v: Any) -> Any:
        window = lax.reduce_window(v, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        return window.astype(jnp.float32).sum()

    run_native(jax.jit(jax.grad(pooled)).lower(images).as_text(dialect="hlo"), images)


# -- hand-written edge cases ---------------------------------------------------------------------


def ds_text(t: str) -> str:
    return f"""HloModule m
ENTRY e {{
  x = f32[5,6] parameter(0)
  i = {t}[] parameter(1)
  j = {t}[] parameter(2)
  ROOT r = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={{2,3}}
}}"""


@pytest.mark.parametrize(("t", "i", "j"), [
    ("s32", 0, 0), ("s32", 4, 5), ("s32", -3, 2), ("s8", 100, -100), ("u32", 2**32 - 1, 1),
    ("s64", -(2**62), 2**62), ("u64", 2**64 - 1, 3), ("u8", 3, 200),
])  # fmt: skip
def test_dynamic_slice_clamps(t: str, i: int, j: int) -> None:
    dtype = np.dtype({"s": "int", "u": "uint"}[t[0]] + t[1:])
    run_native(ds_text(t), f32(5, 6), np.array(i).astype(dtype), np.array(j).astype(dtype))


GATHER_TRAILING = """HloModule m
ENTRY e {
  x = s32[7,3] parameter(0)
  i = s64[2,3] parameter(1)
  ROOT r = s32[2,3,3] gather(x, i), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,3}
}"""

GATHER_BATCHING = """HloModule m
ENTRY e {
  x = f32[3,7,4] parameter(0)
  i = u32[4,3,1] parameter(1)
  ROOT r = f32[4,3,2,4] gather(x, i), offset_dims={2,3}, collapsed_slice_dims={}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={1}, index_vector_dim=2, slice_sizes={1,2,4}
}"""


GATHER_LEADING = """HloModule m
ENTRY e {
  x = f32[5,4,3] parameter(0)
  i = s16[2,3] parameter(1)
  ROOT r = f32[2,3,2] gather(x, i), offset_dims={0,2}, collapsed_slice_dims={0}, start_index_map={2,0}, index_vector_dim=0, slice_sizes={1,2,2}
}"""


def test_gather_leading_index_vector() -> None:
    """Index vectors along dim 0, offset dims around the batch dim, a collapsed dim."""
    run_native(GATHER_LEADING, f32(5, 4, 3), np.array([[0, 2, -5], [4, 9, 1]], np.int16))


def test_gather_implicit_index_vector() -> None:
    x = np.arange(21, dtype=np.int32).reshape(7, 3)
    run_native(GATHER_TRAILING, x, np.array([[0, -1, 6], [7, 3, 2**40]], np.int64))


def test_gather_batching_dims() -> None:
    idx = np.array([[[0], [6]], [[2], [3]], [[5], [2**31]], [[1], [4]]], np.uint32)
    idx = np.concatenate([idx, idx[:, :1]], axis=1)
    run_native(GATHER_BATCHING, f32(3, 7, 4), idx)


SCATTER_WINDOWS = """HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
ENTRY e {
  x = s32[5,3] parameter(0)
  i = s32[4] parameter(1)
  u = s32[4,2,3] parameter(2)
  ROOT r = s32[5,3] scatter(x, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}"""


def test_scatter_skips_out_of_bounds_windows() -> None:
    """Windows of 2 rows at 4 (sticks out), -1 and 9 are skipped whole; 0 and 3 land."""
    x = np.arange(15, dtype=np.int32).reshape(5, 3)
    u = np.arange(24, dtype=np.int32).reshape(4, 2, 3) * 100
    run_native(SCATTER_WINDOWS, x, np.array([4, 0, -1, 3], np.int32), u)
    run_native(SCATTER_WINDOWS, x, np.array([9, 4, 2**31 - 1, -2**31], np.int32), u)


SCATTER_VARIADIC = """HloModule m
argmin {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  lt = pred[] compare(v1, v0), direction=LT
  v = f32[] select(lt, v1, v0)
  i = s32[] select(lt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[6] parameter(0)
  xi = s32[6] parameter(1)
  idx = s32[8,1] parameter(2)
  u = f32[8] parameter(3)
  ui = s32[8] parameter(4)
  ROOT r = (f32[6], s32[6]) scatter(x, xi, idx, u, ui), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=argmin
}"""


def test_scatter_variadic() -> None:
    idx = np.array([[0], [2], [2], [5], [6], [2], [0], [-1]], np.int32)
    u = np.array([0.5, -1.0, 3.0, -2.0, -9.0, -1.0, np.nan, -7.0], np.float32)
    run_native(SCATTER_VARIADIC, f32(6), np.arange(6, dtype=np.int32), idx, u,
               np.arange(10, 18, dtype=np.int32))


SCATTER_PRED = """HloModule m
or {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT c = pred[] or(a, b)
}
ENTRY e {
  x = pred[4,3] parameter(0)
  i = u8[5,2] parameter(1)
  u = pred[5] parameter(2)
  ROOT r = pred[4,3] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=1, to_apply=or
}"""


def test_scatter_pred_or() -> None:
    i = np.array([[0, 0], [2, 3], [1, 1], [3, 0], [2, 9]], np.uint8)
    run_native(SCATTER_PRED, np.zeros((4, 3), bool), i, np.array([1, 1, 0, 1, 1], bool))


FUSED = """HloModule m
fdus {
  p0 = f32[6,5] parameter(0)
  p1 = f32[2,5] parameter(1)
  p2 = s32[] parameter(2)
  c = f32[] constant(2)
  b = f32[2,5] broadcast(c), dimensions={}
  m = f32[2,5] multiply(p1, b)
  z = s32[] constant(0)
  ROOT d = f32[6,5] dynamic-update-slice(p0, m, p2, z)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
fscatter {
  q0 = f32[6,5] parameter(0)
  q1 = s32[7] parameter(1)
  q2 = f32[7,5] parameter(2)
  r = s32[7,1] reshape(q1)
  n = f32[7,5] negate(q2)
  ROOT s = f32[6,5] scatter(q0, r, n), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
fcomputed {
  k0 = f32[] parameter(0)
  k1 = f32[2,5] parameter(1)
  k2 = s32[] parameter(2)
  kb = f32[6,5] broadcast(k0), dimensions={}
  ROOT kd = f32[6,5] dynamic-update-slice(kb, k1, k2, k2)
}
ENTRY e {
  x = f32[6,5] parameter(0)
  u = f32[2,5] parameter(1)
  i = s32[] parameter(2)
  idx = s32[7] parameter(3)
  v = f32[7,5] parameter(4)
  d = f32[6,5] fusion(x, u, i), kind=kLoop, calls=fdus
  s = f32[6,5] fusion(d, idx, v), kind=kLoop, calls=fscatter
  h = f32[] constant(0.5)
  c = f32[6,5] fusion(h, u, i), kind=kLoop, calls=fcomputed
  ROOT t = (f32[6,5], f32[6,5], f32[6,5]) tuple(d, s, c)
}"""


@pytest.mark.parametrize("start", [3, 5, -1])
def test_fused_update_roots(start: int) -> None:
    rows = ORDERED[:, None] * np.ones((1, 5), np.float32)
    ex = run_native(FUSED, X, f32(2, 5), np.int32(start), DUP, rows)
    assert ex.stats.fallback == 0


SCATTER_ADD = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[6,5] parameter(0)
  i = s32[7,1] parameter(1)
  u = f32[7,5] parameter(2)
  ROOT r = f32[6,5] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}"""


REDUCE_WINDOW = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[9,8] parameter(0)
  z = f32[] parameter(1)
  ROOT r = f32[WINDOW_OUT] reduce-window(x, z), window={WINDOW}, to_apply=add
}"""


@pytest.mark.parametrize(("window", "out"), [
    ("size=3x2 stride=2x1 pad=1_1x0_1", "5,8"),
    ("size=2x3 stride=1x2 pad=-1_0x2_2 rhs_dilate=2x1", "6,5"),
    ("size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=2x2", "9,8"),
    ("size=9x1", "1,8"),
])  # fmt: skip
def test_reduce_window_f32_order(window: str, out: str) -> None:
    """Float sums fold each window in row-major order from the init value."""
    text = REDUCE_WINDOW.replace("WINDOW_OUT", out).replace("WINDOW", window)
    x = (f32(9, 8) * np.float32(1e7)).astype(np.float32) + f32(9, 8)
    run_native(text, x, np.float32(0.375))


ARGMAX_WINDOW = "HloModule m\n" + ARGMAX_REGION + """
ENTRY e {
  x = f32[7,6] parameter(0)
  n = s32[7,6] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  m = s32[] constant(-1)
  ROOT r = (f32[4,3], s32[4,3]) reduce-window(x, n, lo, m), window={size=3x3 stride=2x2 pad=1_1x1_1}, to_apply=argmax
}"""


def test_variadic_reduce_window() -> None:
    """Argmax pooling with ties (the first maximum stays), NaN and padding."""
    x = np.round(f32(7, 6)).astype(np.float32)
    x[3, 2] = np.nan
    run_native(ARGMAX_WINDOW, x)


SELECT_AND_SCATTER = """HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[7,6] parameter(0)
  s = f32[4,3] parameter(1)
  z = f32[] parameter(2)
  ROOT r = f32[7,6] select-and-scatter(x, s, z), window={size=3x3 stride=2x2 pad=1_1x1_1}, select=ge, scatter=add
}"""


def test_select_and_scatter_ties_and_overlaps() -> None:
    """Ties keep the first maximum; overlapping windows add into one position in order."""
    x = np.round(f32(7, 6)).astype(np.float32)
    x[0, :] = np.nan
    source = ORDERED[:4, None] * np.array([1.0, -3.0, 0.5], np.float32)
    run_native(SELECT_AND_SCATTER, x, source, np.float32(0.125))


def test_in_place_matches_out_of_place() -> None:
    """Output buffer == operand buffer: the kernel skips its copy and updates in place."""
    rows = ORDERED[:, None] * np.ones((1, 5), np.float32)
    values = [X.copy(), DUP.reshape(7, 1), rows]
    ex = run_native(SCATTER_ADD, *values)
    root = ex.module.entry.root
    fresh = ex.thunks[id(root)]
    assert isinstance(fresh, UpdateThunk) and fresh.plan.aliasable == [0]
    in_place = UpdateThunk(root, fresh.plan, ex.library, ex.symbols[fresh.plan.name], in_place=True)
    got = in_place(values)
    assert_same(got, fresh(values))
    assert_same(got, Evaluator(parse_hlo(SCATTER_ADD)).run(values))
    np.testing.assert_array_equal(values[0], X)
