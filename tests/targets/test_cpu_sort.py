"""Sort runs as a native kernel, bit for bit the interpreter's result: JAX's comparators
(NaN / signed-zero canonicalising, TOTALORDER), integer keys, several operands and keys,
descending, stability, any sort dimension, and comparators without a key form."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tests.targets.conftest import assert_same, run_both
from tests.unstable_sorts import CASES, GENERAL_LT, Case, quicksort_killer, xla_run

#: JAX's jnp.sort comparator after XLA's optimizations (-0 -> +0, NaN -> canonical NaN,
#: then the total order on the bits), for an f32 key operand 0 of `k` operands.
JAX_F32 = """
  cn = f32[] constant(nan)
  cz = f32[] constant(0)
  ci = s32[] constant(0)
  cm = s32[] constant(2147483647)
  ne.a = pred[] compare(p0, p0), direction=NE
  ne.b = pred[] compare(p1, p1), direction=NE
  eq.a = pred[] compare(p0, cz), direction=EQ
  eq.b = pred[] compare(p1, cz), direction=EQ
  z.a = f32[] select(eq.a, cz, p0)
  z.b = f32[] select(eq.b, cz, p1)
  n.a = f32[] select(ne.a, cn, z.a)
  n.b = f32[] select(ne.b, cn, z.b)
  i.a = s32[] bitcast(n.a)
  i.b = s32[] bitcast(n.b)
  x.a = s32[] xor(cm, i.a)
  x.b = s32[] xor(cm, i.b)
  s.a = pred[] compare(i.a, ci), direction=LT
  s.b = pred[] compare(i.b, ci), direction=LT
  k.a = s32[] select(s.a, x.a, i.a)
  k.b = s32[] select(s.b, x.b, i.b)
  ROOT lt = pred[] compare(k.a, k.b), direction=LT"""


def module(shapes: list[str], dim: int, body: str, params: list[str] | None = None) -> str:
    """A module sorting parameters of `shapes` along `dim` with comparator `body`
    (over p0, p1 for operand 0, p2, p3 for operand 1, ...)."""
    scalars = params or [s.split("[")[0] for s in shapes]
    decl = "\n".join(f"  p{2 * k + j} = {t}[] parameter({2 * k + j})"
                     for k, t in enumerate(scalars) for j in (0, 1))
    args = "\n".join(f"  a{k} = {s} parameter({k})" for k, s in enumerate(shapes))
    result = shapes[0] if len(shapes) == 1 else f"({', '.join(shapes)})"
    names = ", ".join(f"a{k}" for k in range(len(shapes)))
    return f"""HloModule m
cmp {{
{decl}
{body}
}}
ENTRY e {{
{args}
  ROOT s = {result} sort({names}), dimensions={{{dim}}}, is_stable=true, to_apply=cmp
}}"""


def check(text: str, *args: np.ndarray) -> tuple:
    got, want, ex = run_both(text, *args)
    assert ex.stats.native == 1 and ex.stats.fallback == 0, ex.skipped
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        assert_same(g, w)
    return got


def special_f32(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Normal values with NaNs of both signs, signed zeros, infinities, denormals and ties."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    specials = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1e-40, -1e-40, 1.5, 1.5],
                        np.float32)
    at = rng.choice(flat.size, size=min(flat.size, 4 * specials.size), replace=False)
    flat[at] = np.resize(specials, at.size)
    return x


@pytest.mark.parametrize(("shape", "dim"), [((5, 300), 1), ((37, 6), 0), ((2000,), 0),
                                            ((3, 50, 4), 1), ((7, 1), 1), ((1,), 0)])
def test_jax_f32_sort(shape: tuple[int, ...], dim: int) -> None:
    text = module([f"f32[{','.join(map(str, shape))}]"], dim, JAX_F32)
    got = check(text, special_f32(shape))
    assert not np.isnan(np.take(got, 0, axis=dim)).any() or shape[dim] == 1


@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize("direction", ["LT", "GT"])
def test_total_order_compare(ty: str, direction: str) -> None:
    body = f"  ROOT lt = pred[] compare(p0, p1), direction={direction}, type=TOTALORDER"
    x = special_f32((4, 100), seed=1).astype(ty.replace("f", "float"))
    check(module([f"{ty}[4,100]"], 1, body), x)


@pytest.mark.parametrize(("ty", "dtype"), [("s32", np.int32), ("u8", np.uint8),
                                           ("s64", np.int64), ("s8", np.int8)])
@pytest.mark.parametrize("direction", ["LT", "GT"])
@pytest.mark.parametrize("n", [40, 700])
def test_integer_sort(ty: str, dtype: type, direction: str, n: int) -> None:
    """Merge sort (short rows) and radix sort (long rows) of every key width."""
    info = np.iinfo(dtype)
    x = np.random.default_rng(2).integers(info.min, info.max, (3, n), dtype=dtype, endpoint=True)
    x[0, :5] = [info.min, info.max, 0, info.min, info.max]
    x[1] = x[1] % 3  # equal high bytes: radix passes are skipped
    body = f"  ROOT lt = pred[] compare(p0, p1), direction={direction}"
    check(module([f"{ty}[3,{n}]"], 1, body), x)


def test_unsigned_compare_of_signed_keys() -> None:
    body = "  ROOT lt = pred[] compare(p0, p1), direction=LT, type=UNSIGNED"
    x = np.random.default_rng(3).integers(-50, 50, (3, 40), dtype=np.int32)
    check(module(["s32[3,40]"], 1, body), x)


def test_argsort_is_stable() -> None:
    """jnp.argsort: (keys, iota) sorted by the keys only; ties keep index order."""
    x = np.random.default_rng(4).integers(0, 4, (3, 500)).astype(np.float32)
    x[0, ::7] = -0.0
    iota = np.broadcast_to(np.arange(500, dtype=np.int32), x.shape).copy()
    text = module(["f32[3,500]", "s32[3,500]"], 1, JAX_F32)
    _, idx = check(text, x, iota)
    for row, ids in zip(x, idx, strict=True):
        np.testing.assert_array_equal(ids, np.argsort(np.where(row == 0, 0, row), kind="stable"))


def test_two_keys_and_a_value() -> None:
    """lax.sort(num_keys=2): lexicographic on operands 0, 1; operand 2 moves along."""
    body = """  lt0 = pred[] compare(p0, p1), direction=LT
  eq0 = pred[] compare(p0, p1), direction=EQ
  lt1 = pred[] compare(p2, p3), direction=LT, type=TOTALORDER
  and = pred[] and(eq0, lt1)
  ROOT or = pred[] or(lt0, and)"""
    rng = np.random.default_rng(5)
    for n in (40, 400):
        a = rng.integers(0, 3, (4, n), dtype=np.int32)
        b = special_f32((4, n), seed=6)
        c = rng.standard_normal((4, n))
        check(module([f"s32[4,{n}]", f"f32[4,{n}]", f"f64[4,{n}]"], 1, body), a, b, c)


def test_pred_keys_and_computed_key() -> None:
    """Key expressions over several operands (a sum) and pred operands moved along."""
    body = """  s.a = s32[] add(p0, p2)
  s.b = s32[] add(p1, p3)
  ROOT gt = pred[] compare(s.a, s.b), direction=GT"""
    rng = np.random.default_rng(7)
    a, b = (rng.integers(-9, 9, (2, 2, 64), dtype=np.int32) for _ in range(2))
    flags = rng.random((2, 2, 64)) < 0.5
    check(module(["s32[2,2,64]"] * 2 + ["pred[2,2,64]"], 2, body), a, b, flags)


def test_general_comparator() -> None:
    """A comparator without a key form (lexicographic through a select) takes the
    interpreter's binary-search merge sort."""
    body = """  eq = pred[] compare(p2, p3), direction=EQ
  lt0 = pred[] compare(p0, p1), direction=LT
  lt1 = pred[] compare(p2, p3), direction=LT
  ROOT r = pred[] select(eq, lt0, lt1)"""
    rng = np.random.default_rng(8)
    a = rng.integers(0, 5, (3, 200), dtype=np.int32)
    b = rng.integers(0, 5, (3, 200), dtype=np.int64)
    check(module(["s32[3,200]", "s64[3,200]"], 1, body), a, b)


def test_float_compare_keys() -> None:
    """FLOAT-compare keys: no NaN takes the key path (-0 == +0, denormals kept apart)."""
    body = "  ROOT lt = pred[] compare(p0, p1), direction=LT"
    x = special_f32((4, 64), seed=9)
    x[np.isnan(x)] = 2.0
    check(module(["f32[4,64]"], 1, body), x)


@pytest.mark.parametrize("seed", [7, 9, 15])
def test_float_compare_with_nan(seed: int) -> None:
    """A NaN under a FLOAT compare sends the whole sort to the merge replay (seeds whose
    merges give every element its own place, so the interpreter's result is defined)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, 12)).astype(np.float32)
    x[rng.random(x.shape) < 0.05] = np.nan
    assert np.isnan(x).any()
    body = "  ROOT lt = pred[] compare(p0, p1), direction=LT"
    got = check(module(["f32[1,12]"], 1, body), x)
    np.testing.assert_array_equal(np.sort(got), np.sort(x))


TOPK = """HloModule m
gt {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  zero = s32[] constant(0)
  max = s32[] constant(2147483647)
  ba = s32[] bitcast(a)
  bb = s32[] bitcast(b)
  xa = s32[] xor(max, ba)
  na = pred[] compare(ba, zero), direction=LT
  xb = s32[] xor(max, bb)
  nb = pred[] compare(bb, zero), direction=LT
  ka = s32[] select(na, xa, ba)
  kb = s32[] select(nb, xb, bb)
  ROOT r = pred[] compare(ka, kb), direction=GT
}}
ENTRY e {{
  x = f32[{b},{n}] parameter(0)
  ROOT t = (f32[{b},{k}], s32[{b},{k}]) custom-call(x), custom_call_target="TopK",
    called_computations={{gt}}
}}"""


@pytest.mark.parametrize(("b", "n", "k"), [(4, 12, 3), (5, 300, 7), (2, 9, 9), (3, 100, 40),
                                           (2, 1000, 1), (2, 1000, 32)])
def test_topk_custom_call(b: int, n: int, k: int) -> None:
    """XLA:CPU's TopK custom call: values and s32 indices of the first k (ties by index)."""
    x = special_f32((b, n), seed=10)
    x[-1] = np.round(x[-1])  # many ties
    x[0] = np.sort(x[0])  # every record enters the selected prefix
    values, indices = check(TOPK.format(b=b, n=n, k=k), x)
    np.testing.assert_array_equal(np.take_along_axis(x, indices, axis=1).view(np.int32),
                                  values.view(np.int32))


@pytest.mark.parametrize("largest", ["true", "false"])
@pytest.mark.parametrize(("ty", "n", "k"), [("f32", 500, 5), ("f32", 20, 20), ("s32", 300, 100),
                                           ("f64", 9, 0), ("bf16", 300, 7), ("f16", 40, 40)])
def test_topk_op(largest: str, ty: str, n: int, k: int) -> None:
    """The `topk` op (`jax.lax.top_k`): the natural (total) order, ties by index; bf16
    and f16 values too (NaNs, infinities, signed zeros)."""
    text = f"""HloModule m
ENTRY e {{
  x = {ty}[3,{n}] parameter(0)
  ROOT t = ({ty}[3,{k}], s32[3,{k}]) topk(x), k={k}, largest={largest}
}}"""
    x = special_f32((3, n), seed=11)
    if ty == "s32":
        x = np.random.default_rng(11).integers(-20, 20, (3, n), dtype=np.int32)
    dtypes = {"bf16": ml_dtypes.bfloat16, "f16": np.float16}
    x = x.astype(dtypes.get(ty) or ty.replace("f", "float").replace("s", "int"))
    check(text, x)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_unstable_sort_orders_ties_as_xla_cpu(case: Case) -> None:
    """Without is_stable the kernel replays std::sort (introsort.py): the interpreter's
    result and XLA:CPU's, exact permutations included."""
    args = case.arguments(seed=len(case.name))
    got = check(case.text(), *args)
    for g, w in zip(got, xla_run(case.text(), args), strict=True):
        np.testing.assert_array_equal(g, w)


def test_unstable_sort_heap_sort_fallback() -> None:
    """McIlroy's adversary input (with ties) runs the kernel's heap sort too."""
    keys = (quicksort_killer(1500) // 2).astype(np.int32)
    text = Case("killer", ("s32", "s32"), (1500,), 0, GENERAL_LT).text()
    args = [keys, np.arange(1500, dtype=np.int32)]
    got = check(text, *args)
    np.testing.assert_array_equal(got[1], xla_run(text, args)[1])
    key_text = text.replace(GENERAL_LT, "  ROOT c = pred[] compare(p0, p1), direction=LT")
    np.testing.assert_array_equal(check(key_text, *args)[1], got[1])


@pytest.mark.parametrize(("ty", "dtype"), [("bf16", ml_dtypes.bfloat16), ("f16", np.float16)])
@pytest.mark.parametrize("compare", ["direction=LT", "direction=GT, type=TOTALORDER"])
@pytest.mark.parametrize("n", [40, 300])
def test_narrow_float_keys(ty: str, dtype: type, compare: str, n: int) -> None:
    """f16 / bf16 keys are ordered on their bits (signed zeros, ties; NaNs in the total
    order: a FLOAT `LT` with NaNs is no strict weak order), stably."""
    x = special_f32((3, n), seed=7).astype(dtype)
    if "TOTALORDER" not in compare:
        x = np.where(np.isnan(x), dtype(2), x)
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), x.shape).copy()
    body = f"  ROOT lt = pred[] compare(p0, p1), {compare}"
    check(module([f"{ty}[3,{n}]", f"s32[3,{n}]"], 1, body), x, iota)
