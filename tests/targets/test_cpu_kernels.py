"""CPU loop kernels against the interpreter on edge values (NaN, -0, overflow, ...).

Every test also checks that the instruction really ran natively.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.targets.conftest import assert_same, run_both

nan, inf = float("nan"), float("inf")
F32_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, 1e-40, -1e-40, 1e30, -1e30, 3e9,
                      -3e9, 88.7, -88.7, 100.0, -104.0, inf, -inf, nan, 7.0, 0.0003, 2.0,
                      -0.4999],
                     np.float32)
N = F32_EDGES.size


def unary(op: str, t: str, out: str | None = None, n: int = N) -> str:
    return f"""HloModule m
ENTRY e {{
  p = {t}[{n}] parameter(0)
  ROOT r = {out or t}[{n}] {op}(p)
}}"""


def binary(op: str, t: str, n: int, out: str | None = None, extra: str = "") -> str:
    return f"""HloModule m
ENTRY e {{
  a = {t}[{n}] parameter(0)
  b = {t}[{n}] parameter(1)
  ROOT r = {out or t}[{n}] {op}(a, b){extra}
}}"""


def check_native(text: str, *args: np.ndarray, ulps: int = 0) -> None:
    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0 and ex.stats.native >= 1
    assert_same(got, want, ulps)


@pytest.mark.parametrize("op", ["negate", "abs", "sign", "floor", "ceil", "round-nearest-even",
                                "round-nearest-afz", "sqrt", "rsqrt", "exponential", "log",
                                "tanh", "logistic", "erf"])
def test_f32_unary(op: str) -> None:
    check_native(unary(op, "f32"), F32_EDGES, ulps=1)


def test_is_finite() -> None:
    check_native(unary("is-finite", "f32", "pred"), F32_EDGES)


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "maximum", "minimum"])
def test_f32_binary(op: str) -> None:
    a = np.repeat(F32_EDGES, N)
    b = np.tile(F32_EDGES, N)
    check_native(binary(op, "f32", N * N), a, b)


@pytest.mark.parametrize("direction", ["EQ", "NE", "LT", "LE", "GT", "GE"])
@pytest.mark.parametrize("ctype", ["", ", type=TOTALORDER"])
def test_f32_compare(direction: str, ctype: str) -> None:
    a, b = np.repeat(F32_EDGES, N), np.tile(F32_EDGES, N)
    check_native(binary("compare", "f32", N * N, "pred", f", direction={direction}{ctype}"), a, b)


INTS = {
    "s8": [0, 1, -1, 127, -128, 5, -7, 3, 8, 100],
    "s32": [0, 1, -1, 2**31 - 1, -(2**31), 7, -7, 31, 32, 33, -33, 1000],
    "u32": [0, 1, 2**32 - 1, 2**31, 7, 31, 32, 33, 12345],
    "s64": [0, 1, -1, 2**63 - 1, -(2**63), 63, 64, -5],
}


@pytest.mark.parametrize("t", sorted(INTS))
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "remainder", "maximum",
                                "minimum", "and", "or", "xor", "shift-left",
                                "shift-right-logical", "shift-right-arithmetic"])
def test_int_binary(t: str, op: str) -> None:
    values = INTS[t]
    dt = np.dtype({"s8": np.int8, "s32": np.int32, "u32": np.uint32, "s64": np.int64}[t])
    n = len(values)
    a = np.array(np.repeat(values, n), dtype=object).astype(dt)
    b = np.array(np.tile(values, n), dtype=object).astype(dt)
    check_native(binary(op, t, n * n), a, b)


@pytest.mark.parametrize("t", sorted(INTS))
@pytest.mark.parametrize("op", ["negate", "abs", "sign", "not", "popcnt", "count-leading-zeros"])
def test_int_unary(t: str, op: str) -> None:
    dt = {"s8": np.int8, "s32": np.int32, "u32": np.uint32, "s64": np.int64}[t]
    x = np.array(INTS[t], dtype=object).astype(dt)
    check_native(unary(op, t, n=x.size), x)


@pytest.mark.parametrize("dst", ["s8", "s32", "u8", "u32", "s64", "u64", "f64", "pred"])
def test_convert_from_f32(dst: str) -> None:
    check_native(unary("convert", "f32", dst), F32_EDGES)


@pytest.mark.parametrize("dst", ["s8", "u16", "s64", "f32", "f64", "pred"])
def test_convert_from_s32(dst: str) -> None:
    x = np.array(INTS["s32"], np.int32)
    check_native(unary("convert", "s32", dst, n=x.size), x)


def test_f32_product_contracts_into_add() -> None:
    """a*b+c becomes one fma, as in XLA:CPU (and the interpreter)."""
    text = """HloModule m
ENTRY e {
  a = f32[64] parameter(0)
  b = f32[64] parameter(1)
  c = f32[64] parameter(2)
  m = f32[64] multiply(a, b)
  ROOT r = f32[64] subtract(c, m)
}"""
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(64).astype(np.float32) for _ in range(3))
    check_native(text, a, b, c)


def test_loop_fusion_with_data_movement() -> None:
    """Broadcast, transpose, slice, reverse, pad, concatenate, iota and reshape inside one
    kLoop fusion."""
    text = """HloModule m
%f (p0: f32[4,6], p1: f32[6]) -> f32[6,4] {
  %p0 = f32[4,6]{1,0} parameter(0)
  %p1 = f32[6]{0} parameter(1)
  %t = f32[6,4]{1,0} transpose(%p0), dimensions={1,0}
  %b = f32[6,4]{1,0} broadcast(%p1), dimensions={0}
  %s = f32[6,2]{1,0} slice(%t), slice={[0:6], [0:4:2]}
  %r = f32[6,2]{1,0} reverse(%s), dimensions={0}
  %z = f32[] constant(-0)
  %pd = f32[6,3]{1,0} pad(%r, %z), padding=0_0x0_0_1
  %i = s32[6,1]{1,0} iota(), iota_dimension=0
  %ic = f32[6,1]{1,0} convert(%i)
  %c = f32[6,4]{1,0} concatenate(%pd, %ic), dimensions={1}
  %rs = f32[4,6]{1,0} reshape(%c)
  %rt = f32[6,4]{1,0} reshape(%rs)
  %m = f32[6,4]{1,0} maximum(%rt, %b)
  ROOT %o = f32[6,4]{1,0} add(%m, %t)
}

ENTRY e {
  a = f32[4,6]{1,0} parameter(0)
  b = f32[6]{0} parameter(1)
  ROOT r = f32[6,4]{1,0} fusion(a, b), kind=kLoop, calls=%f
}"""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 6)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    b[2] = nan
    check_native(text, a, b)


def test_bitcast_with_layouts() -> None:
    """A bitcast between different layouts is a transpose of the logical index."""
    text = """HloModule m
ENTRY e {
  a = f32[3,5]{1,0} parameter(0)
  ROOT r = f32[5,3]{0,1} bitcast(a)
}"""
    check_native(text, np.arange(15, dtype=np.float32).reshape(3, 5))


@pytest.mark.parametrize(("shape", "perm"), [((70, 45), (1, 0)), ((3, 40, 33), (0, 2, 1)),
                                             ((33, 5, 64), (2, 1, 0)), ((64, 64), (1, 0))])
def test_blocked_transpose(shape: tuple[int, ...], perm: tuple[int, ...]) -> None:
    """Transposes that move the minor dim run in 32x32 tiles (ragged edges included)."""
    out = [shape[p] for p in perm]
    text = f"""HloModule m
ENTRY e {{
  a = f32[{",".join(map(str, shape))}] parameter(0)
  t = f32[{",".join(map(str, out))}] transpose(a), dimensions={{{",".join(map(str, perm))}}}
  ROOT r = f32[{",".join(map(str, out))}] negate(t)
}}"""
    check_native(text, np.arange(np.prod(shape), dtype=np.float32).reshape(shape))


@pytest.mark.parametrize("src, dst, dtype", [("f32", "s32", np.float32), ("s32", "f32", np.int32),
                                             ("f64", "u64", np.float64)])
def test_bitcast_between_element_types(src: str, dst: str, dtype: type) -> None:
    text = f"""HloModule m
ENTRY e {{
  p = {src}[{N}] parameter(0)
  b = {dst}[{N}] bitcast(p)
  ROOT r = {dst}[{N}] add(b, b)
}}"""
    x = F32_EDGES.astype(np.float32).view(np.int32).astype(dtype) if src == "s32" else \
        F32_EDGES.astype(dtype)
    check_native(text, x)


@pytest.mark.parametrize("t, dtype", [("f32", np.float32), ("s32", np.int32), ("f64", np.float64)])
@pytest.mark.parametrize("dims, perm", [((64, 96), (1, 0)), ((3, 40, 72), (0, 2, 1)),
                                        ((16, 24, 40), (2, 0, 1)), ((40, 37), (1, 0))])
def test_block_transposes(t: str, dtype: type, dims: tuple[int, ...], perm: tuple[int, ...]) -> None:
    """Pure transposes move 8x8 blocks through registers (dims multiple of 8) or fall
    back to the per-element tiles; both equal numpy's transpose."""
    out = tuple(dims[p] for p in perm)
    shape = lambda d: f"{t}[{','.join(map(str, d))}]"  # noqa: E731
    text = f"""HloModule m
fused {{
  p = {shape(dims)} parameter(0)
  tr = {shape(out)} transpose(p), dimensions={{{','.join(map(str, perm))}}}
  ROOT c = {shape(out)} copy(tr)
}}
ENTRY e {{
  x = {shape(dims)} parameter(0)
  ROOT f = {shape(out)} fusion(x), kind=kLoop, calls=fused
}}"""
    x = np.arange(np.prod(dims)).reshape(dims).astype(dtype)
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0
    np.testing.assert_array_equal(got, np.transpose(x, perm))
    assert_same(got, want)


@pytest.mark.parametrize("dims, perm", [((64, 96), (1, 0)), ((3, 40, 72), (0, 2, 1)),
                                        ((16, 24, 40), (2, 0, 1)), ((40, 16, 48), (1, 2, 0))])
def test_transposes_spelled_as_bitcast_and_copy(dims: tuple[int, ...], perm: tuple[int, ...]) -> None:
    """The `cpu` pipeline's simplifier turns a transpose into a bitcast to another layout
    and a copy back (as XLA does); the kernel still moves blocks as for a transpose."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.loop import transposed_dim

    out = tuple(dims[p] for p in perm)
    order = [perm.index(k) for k in range(len(dims))]  # the bitcast's major-to-minor
    layout = ",".join(map(str, reversed(order)))
    shape = lambda d: f"f32[{','.join(map(str, d))}]"  # noqa: E731
    text = f"""HloModule m
fused {{
  p = {shape(dims)} parameter(0)
  b = {shape(out)}{{{layout}}} bitcast(p)
  c = {shape(out)} copy(b)
  ROOT r = {shape(out)} copy(c)
}}
ENTRY e {{
  x = {shape(dims)} parameter(0)
  ROOT f = {shape(out)} fusion(x), kind=kLoop, calls=fused
}}"""
    spelled = f"""HloModule m
fused {{
  p = {shape(dims)} parameter(0)
  ROOT t = {shape(out)} transpose(p), dimensions={{{','.join(map(str, perm))}}}
}}
ENTRY e {{
  x = {shape(dims)} parameter(0)
  ROOT f = {shape(out)} fusion(x), kind=kLoop, calls=fused
}}"""
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    (as_transpose,) = plan_module(parse_hlo(spelled)).plans.values()
    assert transposed_dim(plan) == transposed_dim(as_transpose)
    x = np.arange(np.prod(dims)).reshape(dims).astype(np.float32)
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0
    np.testing.assert_array_equal(got, np.transpose(x, perm))
    assert_same(got, want)


def test_weight_update_through_a_layout_bitcast_is_tiled() -> None:
    """jax's SGD step on a weight whose gradient comes out transposed: w - copy(bitcast(
    dw * lr)), the transpose spelled as a layout bitcast inside an elementwise kernel,
    is tiled as a transpose is (it read dw a column at a time: 5.6 ms for 1024x1024),
    with the interpreter's bits."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.loop import transposed_dim

    text = """HloModule m
fused {
  w = f32[96,160] parameter(0)
  dw = f32[160,96] parameter(1)
  lr = f32[] constant(0.01)
  b = f32[160,96] broadcast(lr), dimensions={}
  m = f32[160,96] multiply(dw, b)
  t = f32[96,160]{0,1} bitcast(m)
  c = f32[96,160] copy(t)
  ROOT s = f32[96,160] subtract(w, c)
}
ENTRY e {
  w = f32[96,160] parameter(0)
  dw = f32[160,96] parameter(1)
  ROOT f = f32[96,160] fusion(w, dw), kind=kLoop, calls=fused
}"""
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert transposed_dim(plan) == 0
    rng = np.random.default_rng(5)
    w = rng.standard_normal((96, 160)).astype(np.float32)
    dw = rng.standard_normal((160, 96)).astype(np.float32)
    got, want, ex = run_both(text, w, dw)
    assert ex.stats.fallback == 0
    np.testing.assert_array_equal(got, w - (dw * np.float32(0.01)).T)
    assert_same(got, want)


@pytest.mark.parametrize("b, r, n", [(4, 32, 128), (4, 30, 100)])
def test_transpose_under_a_reshape_is_tiled(b: int, r: int, n: int) -> None:
    """jax's gradient of a dense layer's input: elementwise math on [b, r, n], a layout
    bitcast to [n, b, r], a copy and a reshape to [n, b * r]; the transposing bitcast is
    not of the output's dims, yet the output's dim 0 walks its operand's minor dim, so
    the loops are tiled over it (untiled, a 2048x1024 one read its operands 8 KiB apart:
    29 ms), each tile computed in the operands' order and moved by register transposes
    (tiles at the edges element by element: 100 x 120 is not a whole number of them)."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.loop import transposed_dim

    text = f"""HloModule m
fused {{
  a = f32[{b},{r},{n}] parameter(0)
  c = f32[{b},{r},{n}] parameter(1)
  m = f32[{b},{r},{n}] multiply(a, c)
  t = f32[{n},{b},{r}]{{0,2,1}} bitcast(m)
  k = f32[{n},{b},{r}] copy(t)
  ROOT o = f32[{n},{b * r}] bitcast(k)
}}
ENTRY e {{
  a = f32[{b},{r},{n}] parameter(0)
  c = f32[{b},{r},{n}] parameter(1)
  ROOT f = f32[{n},{b * r}] fusion(a, c), kind=kLoop, calls=fused
}}"""
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert transposed_dim(plan) == 0
    rng = np.random.default_rng(6)
    x, y = (rng.standard_normal((b, r, n)).astype(np.float32) for _ in range(2))
    got, want, ex = run_both(text, x, y)
    assert ex.stats.fallback == 0
    np.testing.assert_array_equal(got, np.transpose(x * y, (2, 0, 1)).reshape(n, b * r))
    assert_same(got, want)


def test_head_split_transpose_reads_a_reshaped_view() -> None:
    """Attention's key transpose as the `cpu` pipeline spells it: a reshape bitcast, a
    layout bitcast and a copy; the kernel moves blocks as for a plain transpose of the
    reshaped input."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.loop import transposed_dim

    text = """HloModule m
fused {
  p = f32[64,128] parameter(0)
  r = f32[64,2,64] bitcast(p)
  b = f32[2,64,64]{1,0,2} bitcast(r)
  ROOT c = f32[2,64,64] copy(b)
}
ENTRY e {
  x = f32[64,128] parameter(0)
  ROOT f = f32[2,64,64] fusion(x), kind=kLoop, calls=fused
}"""
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert transposed_dim(plan) is not None
    x = np.arange(64 * 128).reshape(64, 128).astype(np.float32)
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0
    np.testing.assert_array_equal(got, np.transpose(x.reshape(64, 2, 64), (1, 2, 0)))
    assert_same(got, want)


def test_bitcast_convert_between_widths_copies_bytes() -> None:
    """u32[..., 2] <-> u64[...] (as JAX packs random keys) is one memcpy kernel."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.copy import CopyPlan

    text = """HloModule m
ENTRY e {
  a = u32[3,2] parameter(0)
  w = u64[3] bitcast-convert(a)
  x = u64[3] add(w, w)
  ROOT n = u16[3,4] bitcast-convert(x)
}"""
    plans = list(plan_module(parse_hlo(text)).plans.values())
    assert [type(p).__name__ for p in plans].count("CopyPlan") == 2
    assert any(isinstance(p, CopyPlan) for p in plans)
    x = np.array([[1, 2], [0xFFFFFFFF, 7], [123456789, 0x80000000]], np.uint32)
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0
    assert_same(got, want)


@pytest.mark.parametrize("src, dst", [((6, 3, 1), (3, 3, 1, 1, 2)), ((4, 2, 6, 1), (6, 1, 2, 4)),
                                      ((1, 4, 1), (1, 1, 2, 1, 1, 1, 2)), ((8, 12), (2, 4, 3, 4)),
                                      ((64, 2, 96), (64, 192)), ((5, 7), (35,))])
def test_reshapes_regroup_their_dims(src: tuple[int, ...], dst: tuple[int, ...]) -> None:
    """A reshape inside a kernel maps indices group by group of dims of equal size
    (`elemental.regroup`; dims of size 1 anywhere): the same values as numpy's."""
    from tests.targets.conftest import fusion_module

    shape = lambda d: f"f32[{','.join(map(str, d))}]"  # noqa: E731
    text = fusion_module(f"  p = {shape(src)} parameter(0)",
                         f"  n = {shape(src)} negate(p)\n  ROOT r = {shape(dst)} reshape(n)",
                         shape(dst), "p")
    x = np.arange(np.prod(src), dtype=np.float32).reshape(src)
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0
    np.testing.assert_array_equal(got, (-x).reshape(dst))
    assert_same(got, want)
