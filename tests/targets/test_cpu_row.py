"""Row fusions (softmax, layernorm: reduces used again inside the fusion) run as one
native row kernel, bit for bit the interpreter's result."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hlotool.targets.cpu.kernels.reduce import ROW_BUFFER_BYTES
from tests.targets.conftest import assert_same, kernel_ir, run_both

REGIONS = """
mx {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] maximum(x, y)
}
ad {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}"""


def softmax_text(b: int, n: int, kind: str) -> str:
    s = f"{b},{n}"
    return f"""HloModule m
{REGIONS}
f {{
  p = f32[{s}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[{b}] reduce(p, ninf), dimensions={{1}}, to_apply=mx
  mb = f32[{s}] broadcast(m), dimensions={{0}}
  d = f32[{s}] subtract(p, mb)
  e = f32[{s}] exponential(d)
  z = f32[] constant(0)
  sm = f32[{b}] reduce(e, z), dimensions={{1}}, to_apply=ad
  sb = f32[{s}] broadcast(sm), dimensions={{0}}
  ROOT r = f32[{s}] divide(e, sb)
}}
ENTRY e {{
  a = f32[{s}] parameter(0)
  ROOT f = f32[{s}] fusion(a), kind={kind}, calls=f
}}"""


LAYERNORM = f"""HloModule m
{REGIONS}
f {{
  p = f32[3,5,300] parameter(0)
  g = f32[300] parameter(1)
  z = f32[] constant(0)
  s = f32[3,5] reduce(p, z), dimensions={{2}}, to_apply=ad
  k = f32[3,5] constant({{{{1,2,3,4,5}},{{6,7,8,9,10}},{{1,1,1,1,1}}}})
  n = f32[3,5] multiply(s, k)
  nb = f32[3,5,300] broadcast(n), dimensions={{0,1}}
  c = f32[3,5,300] subtract(p, nb)
  q = f32[3,5,300] multiply(c, c)
  v = f32[3,5] reduce(q, z), dimensions={{2}}, to_apply=ad
  r = f32[3,5] rsqrt(v)
  rb = f32[3,5,300] broadcast(r), dimensions={{0,1}}
  gb = f32[3,5,300] broadcast(g), dimensions={{2}}
  y = f32[3,5,300] multiply(c, rb)
  ROOT o = f32[3,5,300] add(y, gb)
}}
ENTRY e {{
  a = f32[3,5,300] parameter(0)
  g = f32[300] parameter(1)
  ROOT f = f32[3,5,300] fusion(a, g), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize("shape", [(4, 4097), (7, 1000), (3, 31), (2, 256), (1, 1)])
@pytest.mark.parametrize("kind", ["kInput", "kCustom"])
def test_softmax_row_kernel(shape: tuple[int, int], kind: str) -> None:
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32) * 10
    got, want, ex = run_both(softmax_text(*shape, kind), x)
    assert ex.stats.fallback == 0 and ex.stats.native == 1, ex.skipped
    assert_same(got, want)


@pytest.mark.parametrize("n", [300, 1024])
def test_layernorm_row_kernel_with_constants_and_params(n: int) -> None:
    """(Rows of 300: tree windows with padding; of 1024: strided windows, YNNPACK's sum,
    the centered values computed into a row buffer and folded by the strided lane fold
    of squares.)"""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 5, n)).astype(np.float32)
    g = rng.standard_normal(n).astype(np.float32)
    got, want, ex = run_both(LAYERNORM.replace("300]", f"{n}]"), x, g)
    assert ex.stats.fallback == 0 and ex.stats.native == 1, ex.skipped
    assert_same(got, want)


@pytest.mark.parametrize("n", [4096, ROW_BUFFER_BYTES // 4 + 3])
def test_softmax_exp_computed_once_per_row(n: int) -> None:
    """The exp a tree-ordered sum folds is computed for the whole row into a buffer (a
    loop the vectorizer widens), which the division reads again; rows longer than the
    buffer compute it in the fold and again in the division. Both equal the interpreter."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import compile_module

    text = softmax_text(2, n, "kInput")
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    assert ex.library is not None
    buffered = re.search(r'%"?row[.0-9]*"? = alloca', ex.library.llvm_ir) is not None
    assert buffered == (n * 4 <= ROW_BUFFER_BYTES)
    x = np.random.default_rng(2).standard_normal((2, n)).astype(np.float32) * 10
    got, want, _ = run_both(text, x)
    assert_same(got, want)


@pytest.mark.parametrize(("text", "shapes"), [
    (softmax_text(3, 4096, "kInput"), [(3, 4096)]),
    (softmax_text(2, 1536, "kCustom"), [(2, 1536)]),
    (LAYERNORM.replace("300", "1024"), [(3, 5, 1024), (1024,)]),
])
def test_row_sums_fold_their_first_level_with_vectors(text: str,
                                                      shapes: list[tuple[int, ...]]) -> None:
    """Row sums over whole groups of 16 windows (the row's computed values in their
    buffer, or a parameter read in place) fold the first tree level one window per
    vector lane into a per-row buffer: still bit for bit the interpreter's order."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import compile_module

    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    assert ex.library is not None
    assert re.search(r'%"?lanes[.0-9]*"? = alloca', ex.library.llvm_ir) is not None
    rng = np.random.default_rng(4)
    args = [rng.standard_normal(s).astype(np.float32) * 3 for s in shapes]
    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0 and ex.stats.native == 1, ex.skipped
    assert_same(got, want)


def l2_normalize_text(b: int, n: int) -> str:
    s = f"{b},{n}"
    return f"""HloModule m
{REGIONS}
f {{
  p = f32[{s}] parameter(0)
  q = f32[{s}] multiply(p, p)
  z = f32[] constant(0)
  ss = f32[{b}] reduce(q, z), dimensions={{1}}, to_apply=ad
  r = f32[{b}] rsqrt(ss)
  rb = f32[{s}] broadcast(r), dimensions={{0}}
  ROOT o = f32[{s}] multiply(p, rb)
}}
ENTRY e {{
  a = f32[{s}] parameter(0)
  ROOT f = f32[{s}] fusion(a), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize("shape", [(64, 1024), (9, 512), (3, 300)])
def test_l2_normalize_row_kernel_folds_squares(shape: tuple[int, int]) -> None:
    """x * rsqrt(sum(x * x)): the row's sum of squares reads the input row in place, by
    the strided lane fold of squares when XLA:CPU would run it on YNNPACK (rows a
    multiple of 512), else by the scalar fma chains of the tree."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.kernels.reduce import row_square

    text = l2_normalize_text(*shape)
    fused = next(c for c in parse_hlo(text).computations if c.name == "f")
    (red,) = [i for i in fused.instructions if i.opcode.value == "reduce"]
    strided = shape[1] % 512 == 0
    assert (row_square(red, 1) is not None) is strided
    assert ("hlotool_lane_fold_f32_add_squares_strided" in kernel_ir(text)) is strided
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0 and ex.stats.native == 1, ex.skipped
    assert_same(got, want)


def row_fusion_text(lines: str, rows: int = 5, n: int = 700) -> str:
    """A row fusion of two f32[rows, n] parameters p, q whose row max m (broadcast: mb)
    and `lines` (the last one the root) compute the result."""
    s = f"{rows},{n}"
    return f"""HloModule m
{REGIONS}
f {{
  p = f32[{s}] parameter(0)
  q = f32[{s}] parameter(1)
  ninf = f32[] constant(-inf)
  m = f32[{rows}] reduce(p, ninf), dimensions={{1}}, to_apply=mx
  mb = f32[{s}] broadcast(m), dimensions={{0}}
{lines.replace("S", s)}
}}
ENTRY e {{
  a = f32[{s}] parameter(0)
  b = f32[{s}] parameter(1)
  ROOT f = f32[{s}] fusion(a, b), kind=kInput, calls=f
}}"""


def fusion_unit(text: str, *pipelines: str) -> str:
    """The IR of the unit that defines the fusion's kernel (kN_f), compiled by one of
    `pipelines`."""
    units = re.split(r"^; \S+: ", kernel_ir(text), flags=re.M)
    (unit,) = [u for u in units if re.search(r"define void @k\d+_f\(", u)]
    assert unit.split(" ")[0] in pipelines, unit[:80]
    return unit


def assert_block_calls_agree(text: str, args: list[np.ndarray],
                             monkeypatch: pytest.MonkeyPatch, ulps: int = 0) -> np.ndarray:
    """The native result of `text` (one kernel) equals the interpreter's (within `ulps`)
    and, bit for bit, the fused loops' (the block calls turned off); the result."""
    from hlotool.targets.cpu.kernels import row

    def wide(a: np.ndarray) -> np.ndarray:  # bf16/f16 as the f32 values they equal
        return a.astype(np.float32) if a.dtype.itemsize == 2 else a

    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0 and ex.stats.native == 1, ex.skipped
    assert_same(wide(got), wide(want), ulps)
    monkeypatch.setattr(row, "block_kinds", lambda plan: None)
    assert "hlotool_row_f32_" not in kernel_ir(text)
    fused, _, _ = run_both(text, *args)
    assert_same(wide(got), wide(fused))
    return got


UNARY_OPS = ["exponential", "log", "tanh", "logistic", "erf", "exponential-minus-one",
             "log-plus-one", "sqrt", "rsqrt", "negate", "abs", "sign", "floor", "ceil",
             "round-nearest-even", "round-nearest-afz"]
BINARY_OPS = ["add", "subtract", "multiply", "divide", "maximum", "minimum"]
#: (root lines, the block operation they become): operands of every kind, the multiply-
#: adds the elemental emitter contracts, divisions by a constant as multiplies.
BLOCK_CASES = [
    *((f"  d = f32[S] subtract(p, mb)\n  ROOT r = f32[S] {op}(d)",
       "exponential_of_subtract_vs" if op == "exponential" else f"{op}_v") for op in UNARY_OPS),
    # the difference read again: its own block, then the exp of it
    ("  d = f32[S] subtract(p, mb)\n  e = f32[S] exponential(d)\n  ROOT r = f32[S] add(e, d)",
     "exponential_v"),
    ("  d = f32[S] subtract(mb, q)\n  ROOT r = f32[S] exponential(d)",
     "exponential_of_subtract_sv"),
    *((f"  ROOT r = f32[S] {op}(p, mb)", f"{op}_vs") for op in BINARY_OPS),
    *((f"  ROOT r = f32[S] {op}(mb, p)", f"{op}_sv") for op in BINARY_OPS),
    *((f"  d = f32[S] subtract(q, mb)\n  ROOT r = f32[S] {op}(p, d)", f"{op}_vv")
      for op in BINARY_OPS),
    ("  t = f32[S] multiply(p, q)\n  ROOT r = f32[S] add(t, mb)", "fma_vvs"),
    ("  t = f32[S] multiply(p, mb)\n  ROOT r = f32[S] subtract(q, t)", "fma_vsv"),
    ("  t = f32[S] multiply(mb, mb)\n  ROOT r = f32[S] subtract(t, q)", "fma_ssv"),
    ("  c = f32[] constant(3)\n  cb = f32[S] broadcast(c), dimensions={}\n"
     "  t = f32[S] divide(q, cb)\n  ROOT r = f32[S] add(p, t)", "fma_vsv"),
    ("  t = f32[S] divide(mb, q)\n  ROOT r = f32[S] add(p, t)", "divide_sv"),
    ("  c = f32[] constant(7)\n  cb = f32[S] broadcast(c), dimensions={}\n"
     "  ROOT r = f32[S] divide(p, cb)", "multiply_vs"),
]


#: Ulps from the interpreter (numpy's f32 routines) of the ops the native code computes
#: its own way (test_cpu_math.py's bounds); every other op gives the interpreter's bits.
NUMPY_ULPS = {"exponential-minus-one": 4, "log-plus-one": 2}


@pytest.mark.parametrize(("lines", "operation"), BLOCK_CASES,
                         ids=[f"{op}-{i}" for i, (_, op) in enumerate(BLOCK_CASES)])
def test_block_operations_give_the_fused_loops_bits(lines: str, operation: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Each op of a row fusion the block calls compute is one call into the precompiled
    block operations (row_ops): bit for bit what the fused loops give, and the
    interpreter's result, denormals and the row's end (700 = one block of 512 and a
    part) included."""
    text = row_fusion_text(lines)
    unit = fusion_unit(text, "calls")  # its one fold, the row max, is a call too
    assert f"hlotool_row_f32_{operation.replace('-', '_')}" in unit
    rng = np.random.default_rng(7)
    p = rng.standard_normal((5, 700)).astype(np.float32) * 4
    q = rng.standard_normal((5, 700)).astype(np.float32) * 4
    p[0, :8] = [0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, 2.5, -2.5]
    q[1, :4] = [1e-40, 0, np.nan, -np.inf]
    assert_block_calls_agree(text, [p, q], monkeypatch, NUMPY_ULPS.get(operation[:-2], 0))


WEIGHTED_SUM = """  t = f32[S] multiply(p, mb)
  z = f32[] constant(0)
  s = f32[5] reduce(t, z), dimensions={1}, to_apply=ad
  sb = f32[S] broadcast(s), dimensions={0}
  ROOT r = f32[S] divide(q, sb)"""

#: A sum of products x * y per row (contracted into fma) over 22 windows of 32 with
#: padding at both ends: the row tree's edge windows one by one, the others 8 side by side.
ROW_DOT = """  t = f32[S] multiply(p, q)
  z = f32[] constant(0)
  s = f32[5] reduce(t, z), dimensions={1}, to_apply=ad
  sb = f32[S] broadcast(s), dimensions={0}
  d = f32[S] subtract(q, mb)
  ROOT r = f32[S] multiply(d, sb)"""


@pytest.mark.parametrize(("text", "shapes", "pipeline"), [
    (softmax_text(6, 1000, "kInput"), [(6, 1000)], "CALLS"),
    (LAYERNORM.replace("300]", "1024]"), [(3, 5, 1024), (1024,)], "CALLS"),
    (l2_normalize_text(9, 512), [(9, 512)], "CALLS"),
    (LAYERNORM, [(3, 5, 300), (300,)], "CALLS"),
    (softmax_text(4, 200, "kInput"), [(4, 200)], "CALLS"),
    (softmax_text(4, 20, "kInput"), [(4, 20)], "CALLS"),
    (row_fusion_text(ROW_DOT), [(5, 700), (5, 700)], "CALLS"),
    (row_fusion_text(WEIGHTED_SUM), [(5, 700), (5, 700)], "LEAN"),
])
def test_softmax_and_layernorm_run_as_block_calls(text: str, shapes: list[tuple[int, ...]],
                                                  pipeline: str) -> None:
    """Softmax, layernorm (a contracted sum of squares, a scale read the same for every
    row, an array constant of one value per row) and an L2 normalisation are block
    calls: the same bits as the interpreter. Their sums fold by calls too (rows of 16
    windows of 32 or more: the lane fold and the tree fold; shorter ones: the row tree)
    and the kernel takes the quick pipeline; a sum of products with a value per row
    (not in memory) folds by the tree's scalar chains, through the lean pipeline."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import codegen
    from hlotool.targets.cpu.jit import Pipeline

    module = parse_hlo(text)
    fusion = module.entry.root
    plan, reason = codegen._plan_fusion(fusion, "k")
    assert plan is not None and plan.blocks is not None, reason
    assert codegen.pipeline_of(plan) is Pipeline[pipeline]
    rng = np.random.default_rng(5)
    args = [rng.standard_normal(s).astype(np.float32) * 3 for s in shapes]
    got, want, _ = run_both(text, *args)
    assert_same(got, want)


@pytest.mark.parametrize("lines", [
    # a compare and select (a mask): no block operation
    "  z = f32[] constant(0)\n  zb = f32[S] broadcast(z), dimensions={}\n"
    "  c = pred[S] compare(p, zb), direction=GT\n  ROOT r = f32[S] select(c, p, mb)",
    # an op the block operations lack
    "  ROOT r = f32[S] power(q, mb)",
    # a value of another type
    "  h = f64[S] convert(q)\n  c = f32[S] convert(h)\n  ROOT r = f32[S] add(c, mb)",
])
def test_rows_the_block_operations_lack_run_as_fused_loops(lines: str) -> None:
    text = row_fusion_text(lines, rows=6, n=6)
    assert "hlotool_row_f32_" not in kernel_ir(text)
    assert fusion_unit(text, "full")
    rng = np.random.default_rng(8)
    p, q = (rng.standard_normal((6, 6)).astype(np.float32) for _ in range(2))
    got, want, ex = run_both(text, p, q)
    assert ex.stats.fallback == 0 and ex.stats.native == 1, ex.skipped
    assert_same(got, want)


def softmax_2d_text(shape: tuple[int, int, int]) -> str:
    """A softmax over the last two dims of `shape`."""
    s, b = ",".join(map(str, shape)), shape[0]
    return f"""HloModule m
{REGIONS}
f {{
  p = f32[{s}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[{b}] reduce(p, ninf), dimensions={{1,2}}, to_apply=mx
  mb = f32[{s}] broadcast(m), dimensions={{0}}
  d = f32[{s}] subtract(p, mb)
  e = f32[{s}] exponential(d)
  z = f32[] constant(0)
  s = f32[{b}] reduce(e, z), dimensions={{1,2}}, to_apply=ad
  sb = f32[{s}] broadcast(s), dimensions={{0}}
  ROOT r = f32[{s}] divide(e, sb)
}}
ENTRY e {{
  a = f32[{s}] parameter(0)
  ROOT f = f32[{s}] fusion(a), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize("shape", [(2, 40, 512), (3, 5, 1000)])
def test_block_calls_reduce_over_two_dims_by_the_tree_of_both(shape: tuple[int, int, int]) -> None:
    """A softmax over the last two dims (40 x 512: two windows of the first reduced dim;
    5 x 1000: one window spanning the five rows of 1000, which the lane fold's call
    over one row of windows would cut to the first) folds its row by the emitted tree
    of both dims after the vector first level, not by the runtime's one-dim tree fold;
    the same bits as the interpreter."""
    text = softmax_2d_text(shape)
    unit = fusion_unit(text, "lean")
    assert "hlotool_row_f32_exponential_of_subtract_vs" in unit
    assert "hlotool_tree_fold" not in unit
    x = np.random.default_rng(9).standard_normal(shape).astype(np.float32) * 5
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0 and ex.stats.native == 1, ex.skipped
    assert_same(got, want)


def narrow_softmax_text(t: str, b: int, n: int) -> str:
    """A bf16/f16 model's softmax: converted to f32, computed there, rounded back."""
    s = f"{b},{n}"
    return f"""HloModule m
{REGIONS}
f {{
  p = {t}[{s}] parameter(0)
  x = f32[{s}] convert(p)
  ninf = f32[] constant(-inf)
  m = f32[{b}] reduce(x, ninf), dimensions={{1}}, to_apply=mx
  mb = f32[{s}] broadcast(m), dimensions={{0}}
  d = f32[{s}] subtract(x, mb)
  e = f32[{s}] exponential(d)
  z = f32[] constant(0)
  sm = f32[{b}] reduce(e, z), dimensions={{1}}, to_apply=ad
  sb = f32[{s}] broadcast(sm), dimensions={{0}}
  r = f32[{s}] divide(e, sb)
  ROOT o = {t}[{s}] convert(r)
}}
ENTRY e {{
  a = {t}[{s}] parameter(0)
  ROOT f = {t}[{s}] fusion(a), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize("t", ["bf16", "f16"])
@pytest.mark.parametrize("n", [1000, 200])
def test_narrow_row_fusions_convert_by_block_calls(t: str, n: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A softmax between converts from and to bf16/f16 runs as block calls (the
    conversions are block operations too): bit for bit the fused loops' and the
    interpreter's result."""
    import ml_dtypes

    text = narrow_softmax_text(t, 6, n)
    unit = fusion_unit(text, "calls")
    assert f"hlotool_row_f32_convert_{t}_f32_v" in unit
    assert f"hlotool_row_f32_convert_f32_{t}_v" in unit
    dt = ml_dtypes.bfloat16 if t == "bf16" else np.float16
    x = (np.random.default_rng(6).standard_normal((6, n)) * 6).astype(dt)
    assert assert_block_calls_agree(text, [x], monkeypatch).dtype == dt


def narrow_ops_softmax_text(t: str, b: int, n: int) -> str:
    """jax.nn.softmax of a bf16/f16 array: its max, subtraction, exp and division in the
    narrow type (each op rounded), the sum in f32."""
    s = f"{b},{n}"
    return f"""HloModule m
nmx {{
  x = {t}[] parameter(0)
  y = {t}[] parameter(1)
  ROOT z = {t}[] maximum(x, y)
}}
{REGIONS}
f {{
  p = {t}[{s}] parameter(0)
  ninf = {t}[] constant(-inf)
  m = {t}[{b}] reduce(p, ninf), dimensions={{1}}, to_apply=nmx
  mb = {t}[{s}] broadcast(m), dimensions={{0}}
  d = {t}[{s}] subtract(p, mb)
  e = {t}[{s}] exponential(d)
  w = f32[{s}] convert(e)
  z = f32[] constant(0)
  sm = f32[{b}] reduce(w, z), dimensions={{1}}, to_apply=ad
  sn = {t}[{b}] convert(sm)
  sb = {t}[{s}] broadcast(sn), dimensions={{0}}
  c = {t}[] constant(2)
  cb = {t}[{s}] broadcast(c), dimensions={{}}
  h = {t}[{s}] divide(e, cb)
  ROOT r = {t}[{s}] divide(h, sb)
}}
ENTRY e {{
  a = {t}[{s}] parameter(0)
  ROOT f = {t}[{s}] fusion(a), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize("t", ["bf16", "f16"])
@pytest.mark.parametrize("n", [1000, 200])
def test_narrow_ops_round_every_result_in_block_calls(t: str, n: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """bf16/f16 ops (jax.nn.softmax of a bf16 array) as block calls: each op computed in
    f32 and rounded to the type (its block holding the f32 the rounded value equals), a
    division by a constant by the reciprocal rounded to the type, the max folded in f32
    and rounded once (exact), the exp computed once for the sum and the division: bit
    for bit the fused loops' and the interpreter's result."""
    import ml_dtypes

    text = narrow_ops_softmax_text(t, 6, n)
    unit = fusion_unit(text, "calls")
    assert f"hlotool_row_f32_exponential_v_{t}" in unit
    assert unit.count("call void @hlotool_row_f32_exponential_v") == 1
    dt = ml_dtypes.bfloat16 if t == "bf16" else np.float16
    x = (np.random.default_rng(11).standard_normal((6, n)) * 6).astype(dt)
    x[0, :3] = [np.inf, -np.inf, 0]
    x[1, 0] = np.nan
    assert_block_calls_agree(text, [x], monkeypatch)


def rounded_sum_text(t: str, n: int, per_row: bool) -> str:
    """The sum of f32 values rounded to `t` and back (TensorFlow's casts), divided into
    the row (`per_row`: the sum alone, one value per row)."""
    s = f"4,{n}"
    tail = "  ROOT r = f32[4] add(sm, sm)" if per_row else \
        f"  sb = f32[{s}] broadcast(sm), dimensions={{0}}\n  ROOT r = f32[{s}] divide(w, sb)"
    out = "f32[4]" if per_row else f"f32[{s}]"
    return f"""HloModule m
{REGIONS}
f {{
  p = f32[{s}] parameter(0)
  h = {t}[{s}] convert(p)
  w = f32[{s}] convert(h)
  z = f32[] constant(0)
  sm = f32[4] reduce(w, z), dimensions={{1}}, to_apply=ad
{tail}
}}
ENTRY e {{
  a = f32[{s}] parameter(0)
  ROOT o = {out} fusion(a), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize("per_row", [False, True])
@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_values_rounded_through_a_narrow_type_fill_the_row_buffer_as_f32(
        t: str, per_row: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row buffer of f32 values that went through bf16/f16 holds the f32 each rounded
    value equals (a round block operation), not the 16-bit values: the interpreter's
    and the fused loops' bits."""
    text = rounded_sum_text(t, 1000, per_row)
    assert "hlotool_row_f32_round_" in kernel_ir(text)
    x = np.random.default_rng(21).standard_normal((4, 1000)).astype(np.float32) * 3
    assert_block_calls_agree(text, [x], monkeypatch)


def test_bf16_rounding_in_f32_lanes_is_ml_dtypes_rounding() -> None:
    """The block operation rounding f32 values to bf16 and back (`bf16_round_f32`, what
    every rounded bf16 block operation ends with): ml_dtypes' nearest-even rounding for
    every bf16 high half with low halves at and around the ties, denormals and
    infinities included; a NaN becomes the quiet NaN with its sign."""
    import ctypes

    import ml_dtypes

    from hlotool.ir.types import PrimitiveType
    from hlotool.targets.cpu.kernels import row_ops

    library = row_ops.row_ops_runtime()
    name = row_ops.symbol(row_ops.round_name(PrimitiveType.BF16), "v")
    rounding = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(
        library.address(name))  # type: ignore[attr-defined]
    lows = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF], np.uint32)
    bits = ((np.arange(1 << 16, dtype=np.uint32) << 16)[:, None] | lows).ravel()
    x = bits.view(np.float32)
    out = np.empty_like(x)
    rounding(out.ctypes.data, x.ctypes.data, x.size)
    nan = np.isnan(x)
    want = x[~nan].astype(ml_dtypes.bfloat16).astype(np.float32)
    np.testing.assert_array_equal(out.view(np.uint32)[~nan], want.view(np.uint32))
    np.testing.assert_array_equal(out.view(np.uint32)[nan], (bits[nan] & 0x80000000) | 0x7FC00000)
