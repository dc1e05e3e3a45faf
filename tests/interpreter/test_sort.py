"""sort and topk kernels. NaN/-0 orders and top_k results were recorded from jax 0.10.2
on CPU; the rest is hand-derived or checked against numpy's stable sorts."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.interpreter.kernels.sort import _merge_sort, order_key

# The comparator jnp.sort emits: NaN -> NaN, -0 -> +0, then TOTALORDER LT.
JAX_LT = """
  p0 = f32[] parameter(0)
  ne0 = pred[] compare(p0, p0), direction=NE
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq0 = pred[] compare(p0, zero), direction=EQ
  z0 = f32[] select(eq0, zero, p0)
  k0 = f32[] select(ne0, nan, z0)
  p1 = f32[] parameter(1)
  ne1 = pred[] compare(p1, p1), direction=NE
  eq1 = pred[] compare(p1, zero), direction=EQ
  z1 = f32[] select(eq1, zero, p1)
  k1 = f32[] select(ne1, nan, z1)
  ROOT lt = pred[] compare(k0, k1), direction=LT, type=TOTALORDER"""

SPECIALS = np.array([3, np.nan, -0.0, 0.0, -np.inf, -np.nan, 1, -0.0, np.inf], np.float32)


def run(text: str, *args: np.ndarray) -> object:
    return Evaluator(parse_hlo(text)).run(list(args))


def sort_module(comparator: str, params: str, shape: str, extra: list[str], dim: int = 0,
                operands: int = 1) -> str:
    """A sort of `operands` parameters of `shape` (types in `extra`) by `comparator`."""
    names = ", ".join(f"a{i}" for i in range(operands))
    decls = "\n".join(f"  a{i} = {t}{shape} parameter({i})" for i, t in enumerate(extra))
    result = f"({', '.join(t + shape for t in extra)})" if operands > 1 else extra[0] + shape
    return f"""HloModule m
cmp {{{params}{comparator}
}}
ENTRY e {{
{decls}
  ROOT s = {result} sort({names}), dimensions={{{dim}}}, is_stable=true, to_apply=cmp
}}"""


def test_jax_comparator_orders_nans_last_and_keeps_signed_zero_ties_stable() -> None:
    out = run(sort_module(JAX_LT, "", "[9]", ["f32"]), SPECIALS)
    np.testing.assert_array_equal(out, [-np.inf, -0.0, 0.0, -0.0, 1, 3, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(np.signbit(out), [1, 1, 0, 1, 0, 0, 0, 0, 1])


def test_argsort_with_jax_comparator() -> None:
    params = "\n  i0 = s32[] parameter(2)\n  i1 = s32[] parameter(3)"
    out = run(sort_module(JAX_LT, params, "[9]", ["f32", "s32"], operands=2), SPECIALS,
              np.arange(9, dtype=np.int32))
    np.testing.assert_array_equal(out[1], [4, 2, 3, 7, 6, 0, 8, 1, 5])


def int_comparator(direction: str, ty: str = "s32", swapped: bool = False) -> str:
    lhs, rhs = ("b", "a") if swapped else ("a", "b")
    return f"""
  a = {ty}[] parameter(0)
  b = {ty}[] parameter(1)
  ROOT c = pred[] compare({lhs}, {rhs}), direction={direction}"""


@pytest.mark.parametrize("swapped", [False, True], ids=["key-path", "merge-path"])
def test_stable_multi_operand_sort_rows(swapped: bool) -> None:
    """`b GT a` is `a LT b` but not in key form, so it takes the general merge sort."""
    cmp = int_comparator("GT" if swapped else "LT", swapped=swapped)
    params = "\n  i0 = s32[] parameter(2)\n  i1 = s32[] parameter(3)"
    keys = np.array([[3, 1, 2, 1, 3, 0, 1], [5, 5, 5, 5, 5, 5, 5]], np.int32)
    iota = np.tile(np.arange(7, dtype=np.int32), (2, 1))
    out = run(sort_module(cmp, params, "[2,7]", ["s32", "s32"], dim=1, operands=2), keys, iota)
    np.testing.assert_array_equal(out[0], np.sort(keys, axis=1))
    np.testing.assert_array_equal(out[1], [[5, 1, 3, 6, 2, 0, 4], list(range(7))])


def test_descending_along_dimension_zero() -> None:
    x = np.array([[1, 9], [4, 2], [3, 5]], np.int32)
    out = run(sort_module(int_comparator("GT"), "", "[3,2]", ["s32"], dim=0), x)
    np.testing.assert_array_equal(out, [[4, 9], [3, 5], [1, 2]])


def test_two_keys_lexicographic() -> None:
    cmp = """
  a0 = s32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  lt0 = pred[] compare(a0, a1), direction=LT
  eq0 = pred[] compare(a0, a1), direction=EQ
  lt1 = pred[] compare(b0, b1), direction=GT
  and = pred[] and(eq0, lt1)
  ROOT or = pred[] or(lt0, and)"""
    first = np.array([2, 1, 2, 1, 0, 2], np.int32)
    second = np.array([1, 5, 3, 5, 0, 2], np.float32)
    out = run(sort_module(cmp, "", "[6]", ["s32", "f32"], operands=2), first, second)
    np.testing.assert_array_equal(out[0], [0, 1, 1, 2, 2, 2])
    np.testing.assert_array_equal(out[1], [0, 5, 5, 3, 2, 1])


@pytest.mark.parametrize(("ty", "values"), [
    ("pred", np.array([1, 0, 1, 1, 0], bool)),
    ("u8", np.array([200, 3, 255, 0, 3], np.uint8)),
    ("s8", np.array([-128, 127, -1, 0, 5], np.int8)),
    ("bf16", np.array([1.5, -2, 0.25, -0.0, 3], ml_dtypes.bfloat16)),
])
def test_key_path_element_types(ty: str, values: np.ndarray) -> None:
    cmp = int_comparator("LT", ty)
    out = run(sort_module(cmp, "", f"[{len(values)}]", [ty]), values)
    np.testing.assert_array_equal(out, np.sort(values, kind="stable"))


def test_float_compare_with_nan_falls_back_to_merge_sort() -> None:
    cmp = int_comparator("LT", "f32")
    out = run(sort_module(cmp, "", "[4]", ["f32"]), np.array([2, 1, 3, 0], np.float32))
    np.testing.assert_array_equal(out, [0, 1, 2, 3])
    out = run(sort_module(cmp, "", "[3]", ["f32"]), np.array([2, np.nan, 1], np.float32))
    assert out.shape == (3,)


def test_merge_sort_matches_numpy_stable_sort() -> None:
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 6, (3, 37)).astype(np.int32)
    module = parse_hlo(sort_module(int_comparator("LT"), "", "[3,37]", ["s32"], dim=1))
    comparator = module.entry.root.attrs["to_apply"]
    perm = _merge_sort(Evaluator(module), comparator, [keys])
    np.testing.assert_array_equal(perm, np.argsort(keys, axis=1, kind="stable"))


def test_order_key_total_order_and_float_equality() -> None:
    x = np.array([-np.nan, -np.inf, -1, -0.0, 0.0, 1, np.inf, np.nan], np.float32)
    keys = order_key(x, "TOTALORDER")
    assert (keys[1:] > keys[:-1]).all()
    zeros = order_key(np.array([-0.0, 0.0], np.float32), "FLOAT")
    assert zeros[0] == zeros[1]
    assert order_key(np.array([np.nan], np.float32), "FLOAT") is None


def topk(largest: str, k: int, shape: str = "[9]", ty: str = "f32") -> str:
    n = shape.strip("[]").split(",")
    out = "[" + ",".join([*n[:-1], str(k)]) + "]"
    return f"""HloModule m
ENTRY e {{
  x = {ty}{shape} parameter(0)
  ROOT t = ({ty}{out}, s32{out}) topk(x), k={k}, largest={largest}
}}"""


def test_topk_total_order_like_xla() -> None:
    values, indices = run(topk("true", 5), SPECIALS)
    np.testing.assert_array_equal(values, [np.nan, np.inf, 3, 1, 0])
    np.testing.assert_array_equal(indices, [1, 8, 0, 6, 3])
    assert indices.dtype == np.int32


def test_topk_smallest_and_ties_by_lower_index() -> None:
    x = np.array([[2, 1, 2, 1, 3], [0, 0, 0, 0, 0]], np.int32)
    values, indices = run(topk("false", 3, "[2,5]", "s32"), x)
    np.testing.assert_array_equal(values, [[1, 1, 2], [0, 0, 0]])
    np.testing.assert_array_equal(indices, [[1, 3, 0], [0, 1, 2]])
    values, indices = run(topk("true", 2, "[2,5]", "s32"), x)
    np.testing.assert_array_equal(indices, [[4, 0], [0, 1]])


def test_a_comparator_that_is_no_strict_weak_order_still_permutes() -> None:
    """Plain `LT` on floats with NaNs (NaN is incomparable to everything, so
    incomparability is not transitive): the result is some permutation, as XLA's."""
    text = """HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[3,40] parameter(0)
  ROOT s = f32[3,40] sort(x), dimensions={1}, is_stable=true, to_apply=less
}"""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 40)).astype(np.float32)
    x[rng.random((3, 40)) < 0.2] = np.nan
    got = np.asarray(run(text, x))
    for g, row in zip(got, x, strict=True):
        assert np.array_equal(np.sort(g), np.sort(row), equal_nan=True)
        finite = g[~np.isnan(g)]
        assert finite.size == np.count_nonzero(~np.isnan(row))
