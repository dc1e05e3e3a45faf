"""Native reductions against the interpreter, bit for bit (the kernel reproduces
XLA:CPU's windows-of-32 fold order, so no float tolerance is needed)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.targets.conftest import assert_same, kernel_ir, run_both

nan, inf = float("nan"), float("inf")


def reduce_text(shape: tuple[int, ...], dims: list[int], op: str, t: str = "f32",
                init: str = "0") -> str:
    out = [n for d, n in enumerate(shape) if d not in dims]
    s, o = ",".join(map(str, shape)), ",".join(map(str, out))
    return f"""HloModule m
r {{
  x = {t}[] parameter(0)
  y = {t}[] parameter(1)
  ROOT z = {t}[] {op}(x, y)
}}
ENTRY e {{
  a = {t}[{s}] parameter(0)
  c = {t}[] constant({init})
  ROOT r = {t}[{o}] reduce(a, c), dimensions={{{",".join(map(str, dims))}}}, to_apply=r
}}"""


def check(text: str, *args: np.ndarray) -> None:
    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0 and ex.stats.native >= 1
    assert_same(got, want)


SHAPES = [((100,), [0]), ((4097,), [0]), ((7, 1000), [1]), ((1000, 7), [0]),
          ((5, 40, 70), [0, 2]), ((3, 33, 2), [1]), ((70, 70), [0, 1]), ((2, 3), [0, 1]),
          ((8, 300), [1]), ((4, 0), [1]),
          # whole windows: no leading partial window; groups of JAM with and without a rest
          ((640,), [0]), ((32768,), [0]), ((2, 33024), [1])]  # fmt: skip


@pytest.mark.parametrize(("shape", "dims"), SHAPES)
@pytest.mark.parametrize("op", ["add", "multiply", "maximum", "minimum"])
def test_f32_reduce_order(shape: tuple[int, ...], dims: list[int], op: str) -> None:
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    if op == "multiply":
        x = (1 + x * np.float32(0.01)).astype(np.float32)
    check(reduce_text(shape, dims, op, init="1" if op == "multiply" else "0"), x)


@pytest.mark.parametrize("op", ["add", "maximum", "minimum"])
def test_f32_reduce_edge_values(op: str) -> None:
    x = np.array([[0.0, -0.0, 1e-40, -1e-40] * 10, [-0.0] * 40, [1.0, nan] + [2.0] * 38,
                  [inf, -inf] + [1.0] * 38, [3e38] * 40, [-1e-40] * 40], np.float32)
    # init -0 (jax sums start from +0) is left out: a fold of -0s from -0 gives -0 here and
    # in XLA's loop, but +0 in the interpreter's numpy path (reported).
    check(reduce_text(x.shape, [1], op, init="0"), x)


@pytest.mark.parametrize("t", ["s32", "u8", "s64"])
@pytest.mark.parametrize("op", ["add", "multiply", "maximum", "minimum", "and", "or", "xor"])
def test_int_reduce(t: str, op: str) -> None:
    dt = {"s32": np.int32, "u8": np.uint8, "s64": np.int64}[t]
    x = np.random.default_rng(1).integers(-(2**31), 2**31, (6, 77)).astype(dt)
    check(reduce_text((6, 77), [1], op, t), x)
    check(reduce_text((6, 77), [0], op, t), x)


@pytest.mark.parametrize("op", ["and", "or", "xor", "add", "maximum", "minimum"])
def test_pred_reduce(op: str) -> None:
    x = np.random.default_rng(2).integers(0, 2, (5, 50)).astype(bool)
    x[0] = True
    check(reduce_text((5, 50), [1], op, "pred", "true" if op in ("and", "minimum") else "false"), x)


def test_f64_and_nonzero_init() -> None:
    x = np.random.default_rng(3).standard_normal((3, 500))
    check(reduce_text((3, 500), [1], "add", "f64", init="1.5"), x)


def test_input_fusion_with_prologue_and_product() -> None:
    """A reduce fusion whose operand is computed inside the loops, and an f32 sum of
    products contracted into fma like XLA:CPU."""
    text = """HloModule m
r {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}
f {
  p0 = f32[16,300] parameter(0)
  p1 = f32[300] parameter(1)
  b = f32[16,300] broadcast(p1), dimensions={1}
  e = f32[16,300] exponential(p0)
  m = f32[16,300] multiply(e, b)
  c = f32[] constant(0)
  ROOT s = f32[16] reduce(m, c), dimensions={1}, to_apply=r
}
ENTRY e {
  a = f32[16,300] parameter(0)
  v = f32[300] parameter(1)
  ROOT r = f32[16] fusion(a, v), kind=kInput, calls=f
}"""
    rng = np.random.default_rng(4)
    check(text, rng.standard_normal((16, 300)).astype(np.float32),
          rng.standard_normal(300).astype(np.float32))


def test_standalone_sum_of_products() -> None:
    text = """HloModule m
r {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}
ENTRY e {
  a = f32[9,100] parameter(0)
  b = f32[9,100] parameter(1)
  m = f32[9,100] multiply(a, b)
  c = f32[] constant(0)
  ROOT s = f32[9] reduce(m, c), dimensions={1}, to_apply=r
}"""
    rng = np.random.default_rng(5)
    check(text, *(rng.standard_normal((9, 100)).astype(np.float32) for _ in range(2)))


@pytest.mark.parametrize(("lhs", "rhs", "dims", "out"), [
    ("f32[33,70]", "f32[70,9]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f32[33,9]"),
    ("f32[4,70,33]", "f32[4,9,70]", "lhs_batch_dims={0}, lhs_contracting_dims={1}, "
     "rhs_batch_dims={0}, rhs_contracting_dims={2}", "f32[4,33,9]"),
    ("f64[5,6]", "f64[6]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}", "f64[5]"),
])
def test_dot_runs_natively(lhs: str, rhs: str, dims: str, out: str) -> None:
    text = f"""HloModule m
ENTRY e {{
  a = {lhs} parameter(0)
  b = {rhs} parameter(1)
  ROOT d = {out} dot(a, b), {dims}
}}"""
    rng = np.random.default_rng(6)
    dt = np.float64 if lhs.startswith("f64") else np.float32
    shape = lambda s: tuple(int(x) for x in s[4:-1].split(","))  # noqa: E731
    a = rng.standard_normal(shape(lhs)).astype(dt)
    a.flat[0] = 1e-40
    check(text, a, rng.standard_normal(shape(rhs)).astype(dt))


@pytest.mark.parametrize("t, dtype", [("bf16", "bfloat16"), ("f16", "float16")])
@pytest.mark.parametrize("op", ["add", "maximum", "multiply"])
@pytest.mark.parametrize("dims", [(7, 300), (3, 40, 5)])
def test_narrow_float_reductions_round_every_step(t: str, dtype: str, op: str,
                                                   dims: tuple[int, ...]) -> None:
    import ml_dtypes  # noqa: F401

    shape = ",".join(map(str, dims))
    out = ",".join(map(str, dims[:-1]))
    text = f"""HloModule m
r {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] {op}(a, b)
}}
ENTRY e {{
  x = {t}[{shape}] parameter(0)
  z = {t}[] constant(1)
  ROOT s = {t}[{out}] reduce(x, z), dimensions={{{len(dims) - 1}}}, to_apply=r
}}"""
    rng = np.random.default_rng(3)
    scale = 1.01 if op == "multiply" else 3.0
    x = (rng.standard_normal(dims) * (0.01 if op == "multiply" else scale) +
         (1.0 if op == "multiply" else 0.0)).astype(np.dtype(dtype))
    got, want, ex = run_both(text, x)
    assert ex.stats.fallback == 0
    np.testing.assert_array_equal(np.asarray(got).view(np.uint16), np.asarray(want).view(np.uint16))


COLUMNS = [((3000, 40), [0]), ((1000, 300), [0]), ((7, 90, 33), [0, 1]), ((40, 16), [0]),
           ((2100, 5, 7), [0]), ((65, 1025), [0])]  # fmt: skip


@pytest.mark.parametrize(("shape", "dims"), COLUMNS)
@pytest.mark.parametrize("op", ["add", "maximum"])
def test_column_reductions_fold_side_by_side_in_the_same_order(
        shape: tuple[int, ...], dims: list[int], op: str) -> None:
    """Reduces over leading dims fold a chunk of columns at once (`_ColumnEmitter`),
    each column in the interpreter's order, bit for bit."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.reduce import is_column_reduction

    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[::97] = np.nan if op == "maximum" else 1e-40
    text = reduce_text(shape, dims, op)
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert is_column_reduction(plan)
    check(text, x)


def test_column_reduction_of_a_fused_prologue_and_product() -> None:
    text = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[600,70] parameter(0)
  y = f32[600,70] parameter(1)
  e = f32[600,70] exponential(x)
  m = f32[600,70] multiply(e, y)
  z = f32[] constant(0)
  ROOT r = f32[70] reduce(m, z), dimensions={0}, to_apply=add
}
ENTRY main {
  x = f32[600,70] parameter(0)
  y = f32[600,70] parameter(1)
  ROOT f = f32[70] fusion(x, y), kind=kInput, calls=fused
}"""
    rng = np.random.default_rng(2)
    x, y = (rng.standard_normal((600, 70)).astype(np.float32) for _ in range(2))
    check(text, x, y)


@pytest.mark.parametrize("shape", [(16, 4096), (3, 5, 1000), (4, 100)])
@pytest.mark.parametrize("op", ["exponential", "power"])
def test_sum_of_computed_values_buffers_each_row(shape: tuple[int, ...], op: str) -> None:
    """A float sum over the trailing dims of values computed in the kernel computes each
    output's values into a row buffer, then folds the buffer in the tree order:
    bit-identical to the interpreter. With block operations for every value (exp) that
    is a row kernel of block calls for the quick pipeline (`codegen._plan_row_reduction`);
    otherwise (power; a row over two dims whose first-level windows span both) the reduce
    kernel's vectorized loop, for the full one."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.jit import Pipeline
    from hlotool.targets.cpu.kernels.reduce import ReducePlan, buffered
    from hlotool.targets.cpu.kernels.row import RowPlan

    s = ",".join(map(str, shape))
    operands = "p" if op == "exponential" else "p, p"
    text = f"""HloModule m
add {{
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}}
f {{
  p = f32[{s}] parameter(0)
  e = f32[{s}] {op}({operands})
  z = f32[] constant(0)
  ROOT r = f32[{shape[0]}] reduce(e, z), dimensions={{{",".join(str(d) for d in range(1, len(shape)))}}}, to_apply=add
}}
ENTRY e {{
  a = f32[{s}] parameter(0)
  ROOT f = f32[{shape[0]}] fusion(a), kind=kInput, calls=f
}}"""
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    if op == "exponential" and len(shape) == 2:
        assert isinstance(plan, RowPlan) and plan.per_row and plan.pipeline is Pipeline.CALLS
    else:
        assert isinstance(plan, ReducePlan) and buffered(plan) and plan.pipeline is Pipeline.FULL
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    check(text, np.abs(x) + 0.5 if op == "power" else x)


def test_sum_of_a_parameter_takes_the_lean_pipeline() -> None:
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.jit import Pipeline

    (plan,) = plan_module(parse_hlo(reduce_text((7, 200), [1], "add"))).plans.values()
    assert plan.pipeline is Pipeline.LEAN


#: Reduces whose first tree level folds LANES windows per vector (`lane_folded`): trailing
#: reduced dims, the last one cut into windows of 32, at least LANES of them; the other
#: reduced dims' windows may be partial (100 -> padded windows of 32), and so may the
#: last one's (1000 -> 32 windows, 12 padding elements in front; 520 -> 17 windows, one
#: past the first vector on AVX-512; 3000 -> 94). 8 and 40 windows are one vector a call
#: on AVX2 hosts (16 and 48: two; 32 and more: four), and not lane folded on AVX-512
#: hosts (16 windows a vector). 64x1024 has too few window rows to read them whole
#: (`WHOLE_ROW_UNITS`): its units are column blocks.
LANE_SHAPES = [((1 << 15,), [0]), ((2048, 512), [0, 1]), ((4, 1024), [1]),
               ((3, 100, 512), [1, 2]), ((7, 33, 1024), [1, 2]), ((2, 3, 40, 512), [2, 3]),
               ((3, 256), [1]), ((5, 1280), [1]), ((2, 9, 1536), [1, 2]), ((64, 1024), [0, 1]),
               ((7, 1000), [1]), ((4, 520), [1]), ((33, 520), [0, 1]), ((300, 3000), [0, 1]),
               ((2, 70, 1000), [1, 2]), ((9, 3000), [1]), ((1000, 1000), [0, 1]),
               # rows of outputs, 16 a call (`row_group`): 37 = 16 + 16 + 5 rows
               ((37, 1024), [1]), ((37, 1000), [1]), ((3, 37, 512), [2])]


@pytest.mark.parametrize(("shape", "dims"), LANE_SHAPES)
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_vector_first_level_folds_each_window_in_order(shape: tuple[int, ...], dims: list[int],
                                                       op: str) -> None:
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.ir.types import PrimitiveType
    from hlotool.targets.cpu.kernels.reduce import LANES, lane_folded

    text = reduce_text(shape, dims, op, init="1" if op == "multiply" else "0.5")
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert lane_folded(plan) is (-(-shape[-1] // 32) >= LANES[PrimitiveType.F32])
    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    if op == "multiply":
        x = (1 + x * np.float32(0.001)).astype(np.float32)
    check(text, x)


@pytest.mark.parametrize(("shape", "dims", "op", "init"), [
    ((1024, 2048), [0, 1], "maximum", "-inf"), ((1 << 21,), [0], "minimum", "inf"),
    ((2, 2000, 1100), [1, 2], "maximum", "0"), ((1100, 3, 700), [0, 1, 2], "minimum", "5"),
    ((2000, 2, 1100), [0, 2], "maximum", "-inf")])
def test_order_free_reduce_with_few_outputs_is_split_across_threads(
        shape: tuple[int, ...], dims: list[int], op: str, init: str) -> None:
    """A full max (or one with fewer outputs than threads) folds ranges of its first
    reduced dim on the threads, then the ranges: the same bits as one pass, NaN and
    signed zeros included."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.jit import Pipeline
    from hlotool.targets.cpu.kernels.reduce import range_runtime, split_chunks

    text = reduce_text(shape, dims, op, init=init)
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert split_chunks(plan) > 1
    # Over trailing dims each range is contiguous: the runtime's range fold, and the
    # kernel is calls (the quick pipeline).
    assert range_runtime(plan) == (dims == list(range(len(shape) - len(dims), len(shape))))
    assert (plan.pipeline is Pipeline.CALLS) == range_runtime(plan)
    x = np.random.default_rng(8).standard_normal(shape).astype(np.float32)
    check(text, x)
    x.flat[x.size // 3] = np.nan
    check(text, x)
    check(text, np.where(x > 0, np.float32(0.0), np.float32(-0.0)))


@pytest.mark.parametrize(("shape", "op", "init", "t"), [
    ((2048, 512), "add", "0", "f32"), ((100, 70), "add", "0.5", "f32"),
    ((1000, 3, 7), "add", "0", "f32"), ((3000, 20), "multiply", "1", "f32"),
    ((40, 5000), "add", "2", "f32"), ((33, 16), "add", "0", "f32"),
    ((70000, 20), "add", "0", "f32"), ((1500, 300), "add", "0.25", "f32"),
    ((2048, 64), "add", "0", "f64"), ((3000, 20), "multiply", "1", "f64")])
def test_column_reduction_folds_windows_of_whole_rows(shape: tuple[int, ...], op: str,
                                                     init: str, t: str) -> None:
    """A column reduction over its first dim takes units of 32 whole rows (a padded
    window at each end where the rows are not a multiple of 32; column parts when the
    windows are few) and the tree above them by column chunks, every window a call of
    the runtime's column fold (70000 rows: three levels): bit for bit the tree."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.jit import Pipeline
    from hlotool.targets.cpu.kernels.reduce import column_runtime, column_windows

    text = reduce_text(shape, [0], op, t, init=init)
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert column_windows(plan) and column_runtime(plan)
    assert plan.pipeline is Pipeline.CALLS
    dtype = np.float32 if t == "f32" else np.float64
    x = np.random.default_rng(9).standard_normal(shape).astype(dtype)
    if op == "multiply":
        x = (1 + x * 0.001).astype(dtype)
    check(text, x)


def _reference_lane_fold(x: np.ndarray, acc: np.ndarray, lo: int, hi: int, op: str) -> None:
    """What the runtime lane fold computes: per row of x, window q's elements lo <= e < hi
    folded into acc[q] in order (float32 at every step)."""
    for row in x:
        for q in range(acc.size):
            for e in range(max(lo, 32 * q), min(hi, 32 * q + 32)):
                acc[q] = acc[q] + row[e] if op == "add" else acc[q] * row[e]


#: (lanes, group, lo, hi, op) of the lane folds tested: every width and group with edges;
#: the strided sum (lanes 0) takes whole blocks of an add.
FOLDS = [(lanes, group, lo, hi, op)
         for lanes, group in [(16, 1), (8, 1), (8, 2), (8, 4), (4, 4)]
         for lo, hi in [(0, 1024), (12, 1024), (0, 1000), (5, 532), (20, 30)]
         for op in ["add", "multiply"]] + [(0, 0, 0, 1024, "add")]


@pytest.mark.parametrize(("lanes", "group", "lo", "hi", "op"), FOLDS)
@pytest.mark.parametrize("fresh", [False, True])
def test_runtime_lane_fold_masks_the_padding_of_edge_blocks(
        monkeypatch: pytest.MonkeyPatch, lanes: int, group: int, lo: int, hi: int,
        op: str, fresh: bool) -> None:
    """The lane fold for each vector width and group of vectors the hosts use (16 f32
    lanes on AVX-512, 8 in groups of 1, 2 or 4 on AVX2; 4 as f64 does on AVX2; 0: the
    strided sum, whole blocks only), run on this host: blocks that reach past [lo, hi)
    read only the elements inside it and store only the windows below hi, bit for bit
    as the windows fold in order; `fresh` rows (consecutive outputs) each fold into
    their own accumulators from the init value."""
    import ctypes

    from llvmlite import ir

    from hlotool.ir.opcodes import Opcode
    from hlotool.ir.types import PrimitiveType
    from hlotool.targets.cpu.jit import CodeLibrary, Pipeline
    from hlotool.targets.cpu.kernels import reduce as R

    strided = lanes == 0
    module = ir.Module(name="fold")
    if strided:
        R._emit_strided_fold(module, "fold", PrimitiveType.F32)
        lanes, group = R.STRIDED_LANES, 1
    else:
        monkeypatch.setitem(R.LANES, PrimitiveType.F32, lanes)
        R._emit_lane_fold(module, "fold", PrimitiveType.F32,
                          Opcode.ADD if op == "add" else Opcode.MULTIPLY, group)
    library = CodeLibrary("fold")
    library.add_ir_module(str(module), Pipeline.LEAN)
    library.finalize()
    i64 = ctypes.c_int64
    fold = ctypes.CFUNCTYPE(None, ctypes.c_void_p, i64, i64, ctypes.c_void_p, i64, i64, i64,
                            i64, ctypes.c_bool, ctypes.c_float)(library.address("fold"))
    span = lanes * group * 32
    blocks = -(-1024 // span)
    rng = np.random.default_rng(lo * 7 + hi)
    x = rng.standard_normal((3, blocks * span)).astype(np.float32)
    if op == "multiply":
        x = (1 + x * np.float32(0.01)).astype(np.float32)
    if strided:  # window l of a block: elements l, l + 16, ...: the reference's adjacent ones
        view = x.reshape(3, blocks, 32, 16).swapaxes(-1, -2).reshape(x.shape).copy()
    else:
        view = x
    windows = blocks * span // 32
    valid = -(-hi // 32)
    got = np.full((3 if fresh else 1, windows), 7.0, np.float32)
    got[:, :valid] = 0.5
    want = got.copy()
    if fresh:
        want[:, :valid] = 0.25
    fold(x.ctypes.data, x.shape[1], x.shape[0], got.ctypes.data, blocks, lo, hi,
         windows if fresh else 0, fresh, 0.25)
    for r in range(3):
        _reference_lane_fold(view[r:r + 1], want[r if fresh else 0, :valid], lo, hi, op)
    assert_same(got, want)


def test_vector_first_level_f64_and_edge_values() -> None:
    x = np.random.default_rng(6).standard_normal((3, 1024))
    check(reduce_text(x.shape, [1], "add", "f64", init="0.25"), x)
    check(reduce_text((3, 1000), [1], "add", "f64", init="0.25"), x[:, :1000].copy())
    # 8192 elements: YNNPACK's sum, so strided first-level windows (`strided_windows`)
    y = np.random.default_rng(10).standard_normal((8, 1024))
    check(reduce_text(y.shape, [1], "add", "f64", init="0.25"), y)
    check(reduce_text(y.shape, [0, 1], "add", "f64"), y)
    check(reduce_text((2, 3000), [0, 1], "multiply", "f64", init="1"),
          1 + 0.001 * np.random.default_rng(7).standard_normal((2, 3000)))
    y = np.tile(np.array([0.0, -0.0, 1e-40, -1e-40, 3e38, 3e38, 1.0, -1.0], np.float32), 64)
    edges = np.stack([y, y[::-1], np.where(np.arange(512) == 77, np.nan, y),
                      np.where(np.arange(512) == 300, np.inf, y)]).astype(np.float32)
    check(reduce_text(edges.shape, [1], "add"), edges)
    check(reduce_text(edges.shape, [0, 1], "add"), edges)


@pytest.mark.parametrize(("shape", "dims", "quick"), [((2048, 4096), [0, 1], True),
                                                     ((128, 4096), [1], True),
                                                     ((2048, 4096), [1], True),
                                                     ((2000, 3000), [1], True),
                                                     ((3, 40000), [1], True),
                                                     ((600, 33, 512), [1, 2], False),
                                                     ((40, 33, 512), [1, 2], True)])
def test_lane_folded_sums_with_few_values_left_take_the_quick_pipeline(
        shape: tuple[int, ...], dims: list[int], quick: bool) -> None:
    """A lane-folded sum is compiled at codegen level 0 when the tree above its first
    level is the runtime's tree fold (one row of first-level values per output: 2048
    rows of 4096, padded rows of 3000, rows of 40000 with two levels above the first,
    the whole 2048x4096) or
    folds at most QUICK_REST_VALUES values (40 x 33 x 512: two windows of the middle
    dim), else by the lean pipeline (600 x 33 x 512: 19200 values); bit for bit either
    way."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import compile_module

    text = reduce_text(shape, dims, "add")
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    assert ex.library is not None
    assert ("calls pipeline" in ex.library.llvm_ir) == quick
    check(text, np.random.default_rng(3).standard_normal(shape).astype(np.float32))


def test_column_reduction_beyond_the_runtime_rest_stack_keeps_its_own_loops() -> None:
    """Tree levels above the first too tall for the rest's stack rows
    (COLUMN_STACK_BYTES: 2.2M rows of f64) keep the kernel's own loops."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.reduce import column_runtime, column_windows

    (plan,) = plan_module(parse_hlo(reduce_text((2_200_000, 16), [0], "add", "f64"))).plans.values()
    assert column_windows(plan) and not column_runtime(plan)


#: The head of the fused modules below: a module and its add region `r`.
ADD_REGION = """HloModule m
r {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}
"""

#: kInput fusions of a reduce and an epilogue of its shape: a mean (a division by a
#: broadcast constant), a root-mean-square (a prologue and an epilogue reading a
#: parameter), and one whose epilogue reads the prologue's value (not split).
MEAN = ADD_REGION + """f {
  p = f32[64,1000] parameter(0)
  c = f32[] constant(0)
  s = f32[64] reduce(p, c), dimensions={1}, to_apply=r
  n = f32[] constant(1000)
  nb = f32[64] broadcast(n), dimensions={}
  ROOT m = f32[64] divide(s, nb)
}
ENTRY e {
  a = f32[64,1000] parameter(0)
  ROOT o = f32[64] fusion(a), kind=kInput, calls=f
}"""

RMS = ADD_REGION + """f {
  p = f32[300,48] parameter(0)
  q = f32[48] parameter(1)
  sq = f32[300,48] multiply(p, p)
  ex = f32[300,48] exponential(sq)
  c = f32[] constant(0)
  s = f32[48] reduce(ex, c), dimensions={0}, to_apply=r
  t = f32[48] sqrt(s)
  ROOT m = f32[48] multiply(t, q)
}
ENTRY e {
  a = f32[300,48] parameter(0)
  b = f32[48] parameter(1)
  ROOT o = f32[48] fusion(a, b), kind=kInput, calls=f
}"""

#: jax.nn.logsumexp's second fusion: the epilogue reads the prologue's finite max (of
#: the output's shape) again; the exponentials are a computed row, lane folded.
LOGSUMEXP = ADD_REGION + """f {
  p = f32[64,1000] parameter(0)
  m = f32[64] parameter(1)
  fin = pred[64] is-finite(m)
  zero = f32[] constant(0)
  zb = f32[64] broadcast(zero), dimensions={}
  sel = f32[64] select(fin, m, zb)
  sb = f32[64,1000] broadcast(sel), dimensions={0}
  d = f32[64,1000] subtract(p, sb)
  e = f32[64,1000] exponential(d)
  s = f32[64] reduce(e, zero), dimensions={1}, to_apply=r
  a = f32[64] abs(s)
  l = f32[64] log(a)
  ROOT o = f32[64] add(l, sel)
}
ENTRY e {
  a = f32[64,1000] parameter(0)
  b = f32[64] parameter(1)
  ROOT o = f32[64] fusion(a, b), kind=kInput, calls=f
}"""

READS_PROLOGUE = ADD_REGION + """f {
  p = f32[16,16] parameter(0)
  e = f32[16,16] exponential(p)
  c = f32[] constant(0)
  s = f32[16] reduce(e, c), dimensions={1}, to_apply=r
  sb = f32[16,16] broadcast(s), dimensions={0}
  ROOT m = f32[16,16] divide(e, sb)
}
ENTRY e {
  a = f32[16,16] parameter(0)
  ROOT o = f32[16,16] fusion(a), kind=kInput, calls=f
}"""


@pytest.fixture
def reduce_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Row reductions by the reduce kernel, whose folds and epilogues these tests read
    (`codegen._plan_row_reduction` off): it computes those block calls cannot (other ops
    or types, reduces over several dims, column reductions)."""
    from hlotool.targets.cpu import codegen

    monkeypatch.setattr(codegen, "_plan_row_reduction", lambda comp, name: None)


@pytest.mark.parametrize(("text", "shapes", "epilogue_inputs"), [
    (MEAN, [(64, 1000)], ["s"]), (RMS, [(300, 48), (48,)], ["s", "q"]),
    (LOGSUMEXP, [(64, 1000), (64,)], ["s", "m"])])
@pytest.mark.usefixtures("reduce_kernels")
def test_input_fusion_is_a_reduce_and_one_epilogue_kernel(
        text: str, shapes: list[tuple[int, ...]], epilogue_inputs: list[str]) -> None:
    """A kInput fusion of a reduce (its prologue computed in the reduce kernel) and an
    elementwise epilogue of the reduce's shape runs as the reduce's kernel and one loop
    kernel for the whole epilogue (a mean: no kernel for the broadcast divisor; a
    logsumexp: the finite max computed again there, the exponentials' rows lane folded),
    bit for bit the interpreter."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.jit import Pipeline
    from hlotool.targets.cpu.kernels.loop import LoopPlan
    from hlotool.targets.cpu.kernels.reduce import ReducePlan

    plans = list(plan_module(parse_hlo(text)).plans.values())
    assert [type(p) for p in plans] == [ReducePlan, LoopPlan]
    assert [i.name for i in plans[1].inputs] == epilogue_inputs
    # The mean's and logsumexp's 64 elements after 64000 compile unvectorized, in the
    # reduce kernel's unit when that is lean or quick; the rms's 48 after 14400 with the
    # full pipeline (LEAN_EPILOGUE_RATIO).
    hero = plans[0].pipeline
    small = Pipeline.LEAN if hero is Pipeline.FULL else hero
    assert plans[1].pipeline is (Pipeline.FULL if text is RMS else small)
    rng = np.random.default_rng(5)
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    if text is LOGSUMEXP:
        args[1][::7] = np.inf  # a row whose max is not finite
    check(text, *args)


@pytest.mark.parametrize(("text", "shapes"), [(MEAN, [(64, 1000)]),
                                              (LOGSUMEXP, [(64, 1000), (64,)])])
def test_row_reduction_and_its_epilogue_are_one_block_call_kernel(
        text: str, shapes: list[tuple[int, ...]]) -> None:
    """A mean or logsumexp over rows is one row kernel of block calls whose result is
    one value per row (`codegen._plan_row_reduction`), for the quick pipeline: the
    reduce kernel's and the epilogue's bits (the interpreter's)."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.jit import Pipeline
    from hlotool.targets.cpu.kernels.row import RowPlan

    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert isinstance(plan, RowPlan) and plan.per_row and plan.pipeline is Pipeline.CALLS
    rng = np.random.default_rng(5)
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    if text is LOGSUMEXP:
        args[1][::7] = np.inf
    check(text, *args)


def test_input_fusion_whose_epilogue_reads_the_prologue_is_not_split() -> None:
    """An epilogue that reads a value of the reduce's prologue (softmax-like) is not an
    epilogue of the reduce's result: the fusion is not planned as reduce + epilogue."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.loop import LoopPlan

    plans = list(plan_module(parse_hlo(READS_PROLOGUE)).plans.values())
    assert not any(isinstance(p, LoopPlan) and p.name.endswith("epilogue") for p in plans)
    x = np.random.default_rng(6).standard_normal((16, 16)).astype(np.float32)
    got, want, _ = run_both(READS_PROLOGUE, x)
    assert_same(got, want)


@pytest.mark.parametrize(("shape", "dim", "op", "t"), [
    ((64, 512, 256), 1, "add", "f32"), ((3, 100, 40), 1, "add", "f32"),
    ((2, 3, 70, 20), 2, "add", "f32"), ((5, 1000, 16), 1, "multiply", "f32"),
    ((4, 2000, 33), 1, "add", "f64"), ((2, 40000, 17), 1, "add", "f32")])
def test_reduce_over_a_middle_dim_is_a_batch_of_column_reductions(
        shape: tuple[int, ...], dim: int, op: str, t: str) -> None:
    """A sum over one middle dim (a mean over the sequence of [batch, sequence,
    features]) folds as one column reduction per leading index, every window through
    the runtime's column fold: bit for bit the tree (40000 rows: two levels above the
    first)."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.jit import Pipeline
    from hlotool.targets.cpu.kernels.reduce import column_batch, column_runtime

    text = reduce_text(shape, [dim], op, t, init="1" if op == "multiply" else "0")
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert column_runtime(plan) and column_batch(plan) == int(np.prod(shape[:dim]))
    assert plan.pipeline is Pipeline.CALLS
    dtype = np.float32 if t == "f32" else np.float64
    x = np.random.default_rng(10).standard_normal(shape).astype(dtype)
    if op == "multiply":
        x = (1 + x * 0.001).astype(dtype)
    check(text, x)


def _widened_sum_text(shape: tuple[int, ...], dims: list[int], src: str, op: str) -> str:
    """A kInput fusion of an f32 reduce of a bf16/f16 parameter converted to f32 (what
    jnp.sum of a bf16 array lowers to)."""
    s = ",".join(map(str, shape))
    k = ",".join(str(n) for d, n in enumerate(shape) if d not in dims)
    return f"""HloModule m
r {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] {op}(a, b)
}}
f {{
  p = {src}[{s}] parameter(0)
  x = f32[{s}] convert(p)
  z = f32[] constant({"1" if op == "multiply" else "0"})
  ROOT y = f32[{k}] reduce(x, z), dimensions={{{",".join(map(str, dims))}}}, to_apply=r
}}
ENTRY e {{
  a = {src}[{s}] parameter(0)
  ROOT o = f32[{k}] fusion(a), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize(("shape", "dims", "src", "op"), [
    ((2048, 4096), [1], "bf16", "add"), ((300, 1000), [1], "bf16", "add"),
    ((1000, 1000), [0, 1], "f16", "add"), ((64, 2048), [1], "f16", "multiply"),
    ((1024, 2048), [0, 1], "bf16", "add"), ((5, 40, 700), [1, 2], "bf16", "add")])
@pytest.mark.usefixtures("reduce_kernels")
def test_lane_fold_reads_bf16_and_f16_widened(shape: tuple[int, ...], dims: list[int], src: str,
                                              op: str) -> None:
    """An f32 sum of a bf16/f16 input converted to f32 is lane folded reading the narrow
    elements and widening them as it loads (exact), denormals of the source included:
    bit for bit the interpreter."""
    import ml_dtypes

    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.reduce import lane_folded, lane_source

    text = _widened_sum_text(shape, dims, src, op)
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert lane_folded(plan) and lane_source(plan) is not None
    x = np.random.default_rng(11).standard_normal(shape).astype(np.float32)
    if op == "multiply":
        x = 1 + x * np.float32(0.001)
    x = x.astype(ml_dtypes.bfloat16 if src == "bf16" else np.float16)
    x.flat[::997] = 1e-39 if src == "bf16" else 3e-6  # denormals of the narrow type
    check(text, x)


def _sum_of_products_text(shape: tuple[int, ...], dims: list[int], form: str) -> str:
    """A kInput fusion summing x * x ("squares"), (x - m) * (x - m) with m one value per
    output ("centered", a variance) or x * y ("products") over `dims`."""
    s = ",".join(map(str, shape))
    kept = [n for d, n in enumerate(shape) if d not in dims]
    o = ",".join(map(str, kept))
    kept_dims = ",".join(str(d) for d in range(len(shape)) if d not in dims)
    params = {"squares": [f"f32[{s}]"], "centered": [f"f32[{s}]", f"f32[{o}]"],
              "products": [f"f32[{s}]", f"f32[{s}]"]}[form]
    body = {"squares": "  m = f32[S] multiply(p0, p0)",
            "centered": "  b = f32[S] broadcast(p1), dimensions={K}\n"
                        "  d = f32[S] subtract(p0, b)\n  m = f32[S] multiply(d, d)",
            "products": "  m = f32[S] multiply(p0, p1)"}[form]
    body = body.replace("S", s).replace("K", kept_dims)
    decls = "\n".join(f"  p{k} = {t} parameter({k})" for k, t in enumerate(params))
    args = "\n".join(f"  a{k} = {t} parameter({k})" for k, t in enumerate(params))
    names = ", ".join(f"a{k}" for k in range(len(params)))
    return f"""HloModule m
r {{
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}}
f {{
{decls}
{body}
  c = f32[] constant(0)
  ROOT s = f32[{o}] reduce(m, c), dimensions={{{",".join(map(str, dims))}}}, to_apply=r
}}
ENTRY e {{
{args}
  ROOT r = f32[{o}] fusion({names}), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize(("shape", "dims"), [
    ((2048, 1024), [1]), ((37, 512), [1]), ((3, 5, 1024), [2]), ((4, 8, 512), [1, 2]),
    ((8192,), [0]), ((6, 2, 1536), [1, 2])])
@pytest.mark.usefixtures("reduce_kernels")
def test_sum_of_squares_folds_strided_windows_with_fma(shape: tuple[int, ...],
                                                       dims: list[int]) -> None:
    """A sum of x * x that XLA:CPU runs on YNNPACK (last dim a multiple of 512) takes the
    strided first-level windows of plain sums, each a chain of fma(x, x, acc), folded by
    the strided lane fold of squares: bit for bit the interpreter's order."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.reduce import ReducePlan, lane_folded, square_input

    text = _sum_of_products_text(shape, dims, "squares")
    (plan,) = [p for p in plan_module(parse_hlo(text)).plans.values()
               if isinstance(p, ReducePlan)]
    assert lane_folded(plan) and square_input(plan) is not None
    assert "hlotool_lane_fold_f32_add_squares_strided" in kernel_ir(text)
    x = np.random.default_rng(12).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:700] = 0.0
    x.reshape(-1)[700:900] = -0.0
    check(text, x)


@pytest.mark.parametrize(("shape", "dims"), [
    ((64, 1024), [1]), ((9, 512), [1]), ((5, 3072), [1]), ((2, 3, 1024), [2])])
@pytest.mark.usefixtures("reduce_kernels")
def test_variance_squares_fold_a_buffered_row(shape: tuple[int, ...], dims: list[int]) -> None:
    """A sum of (x - m)^2 (jnp.var's second reduce): each row of x - m is computed into a
    buffer, then folded by the strided lane fold of squares and the tree fold."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.reduce import ReducePlan, buffered_square

    text = _sum_of_products_text(shape, dims, "centered")
    (plan,) = [p for p in plan_module(parse_hlo(text)).plans.values()
               if isinstance(p, ReducePlan)]
    assert buffered_square(plan) is not None
    assert "hlotool_lane_fold_f32_add_squares_strided" in kernel_ir(text)
    rng = np.random.default_rng(13)
    x = (3 + rng.standard_normal(shape)).astype(np.float32)
    check(text, x, x.mean(axis=-1).astype(np.float32))


@pytest.mark.parametrize(("form", "shape", "dims"), [
    ("squares", (2048, 1024), [1]), ("squares", (37, 512), [1]), ("squares", (3, 5, 1024), [2]),
    ("centered", (64, 1024), [1]), ("centered", (5, 3072), [1]), ("widened", (300, 1000), [1]),
    ("widened", (64, 2048), [1])])
def test_row_sums_of_computed_values_as_block_calls(form: str, shape: tuple[int, ...],
                                                    dims: list[int]) -> None:
    """The row sums above (squares, a variance's centered squares, widened bf16/f16) as
    block-call row kernels of one value per row: the interpreter's bits."""
    import ml_dtypes

    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu.codegen import plan_module
    from hlotool.targets.cpu.kernels.row import RowPlan

    rng = np.random.default_rng(15)
    x = (3 + rng.standard_normal(shape)).astype(np.float32)
    if form == "widened":
        src, op = ("bf16", "add") if shape[0] == 300 else ("f16", "multiply")
        text = _widened_sum_text(shape, dims, src, op)
        x = (1 + x * np.float32(0.001)) if op == "multiply" else x
        args = [x.astype(ml_dtypes.bfloat16 if src == "bf16" else np.float16)]
    else:
        text = _sum_of_products_text(shape, dims, form)
        args = [x] if form == "squares" else [x, x.mean(axis=-1).astype(np.float32)]
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert isinstance(plan, RowPlan) and plan.per_row and plan.blocks is not None
    check(text, *args)


def test_sum_of_two_products_takes_strided_windows() -> None:
    """A sum of x * y over a last dim that is a multiple of 512: the scalar kernel's fma
    chains take the strided windows too (the interpreter's order)."""
    text = _sum_of_products_text((16, 1024), [1], "products")
    rng = np.random.default_rng(14)
    check(text, *(rng.standard_normal((16, 1024)).astype(np.float32) for _ in range(2)))
