"""The op table, part 1: StableHLO op name -> converter building HLO instructions, for the
data ops (elementwise, leaves, data movement, reductions, contractions, quantization).

Elementwise ops map one-to-one through `_DIRECT`; the others have a converter each,
registered with `@op(...)`. Converters read attributes in any spelling through the
`attrs` readers and type them exactly as the opcode table (`hlotool.ir.opcodes`)
says. Multi-result ops produce a tuple-shaped instruction plus one get-tuple-element per
result, as XLA's MLIR-to-HLO translation does. Control flow, calls and collectives are in
`control`, dynamic shapes in `dynamic`, CHLO in `chlo`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hlotool.diagnostics import error_at
from hlotool.stablehlo.ast import Brackets, DenseAttr, DictAttr
from hlotool.stablehlo.attrs import (
    dense_literal,
    field_int,
    field_ints,
    get_bool,
    get_bools,
    get_conv_dims,
    get_enum,
    get_fields,
    get_float,
    get_int,
    get_ints,
    get_padding,
    get_precision,
    quant_info,
    to_shape,
)
from hlotool.stablehlo.lowering import CONVERTERS, OpCtx, constant
from hlotool.ir.attributes import (
    PadDimension,
    ResultAccuracy,
    SliceRange,
    Window,
    WindowDimension,
)
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import OPS, Category, Opcode
from hlotool.ir.types import PrimitiveType, Shape

O = Opcode
P = PrimitiveType
Results = list[Instruction]


def op(*names: str) -> Callable[[Callable[[OpCtx], Results]], Callable[[OpCtx], Results]]:
    """Register a converter for one or more op names."""

    def register(fn: Callable[[OpCtx], Results]) -> Callable[[OpCtx], Results]:
        for name in names:
            CONVERTERS[name] = fn
        return fn

    return register


def results_of(ctx: OpCtx, ins: Instruction) -> Results:
    """The op's results: the instruction itself, or the elements of its tuple."""
    return ctx.gtes(ins) if ins.shape.is_tuple else [ins]


def single_or_tuple(shapes: Sequence[Shape]) -> Shape:
    return shapes[0] if len(shapes) == 1 else Shape.tuple_of(list(shapes))


# -- elementwise ----------------------------------------------------------------------------

_DIRECT: dict[str, Opcode] = {
    "stablehlo.abs": O.ABS, "stablehlo.cbrt": O.CBRT, "stablehlo.ceil": O.CEIL,
    "stablehlo.cosine": O.COS, "stablehlo.count_leading_zeros": O.CLZ,
    "stablehlo.exponential": O.EXP, "stablehlo.exponential_minus_one": O.EXPM1,
    "stablehlo.floor": O.FLOOR, "stablehlo.imag": O.IMAG, "stablehlo.is_finite": O.IS_FINITE,
    "stablehlo.log": O.LOG, "stablehlo.log_plus_one": O.LOG1P, "stablehlo.logistic": O.LOGISTIC,
    "stablehlo.negate": O.NEGATE, "stablehlo.not": O.NOT, "stablehlo.popcnt": O.POPCNT,
    "stablehlo.real": O.REAL, "stablehlo.round_nearest_afz": O.ROUND_AFZ,
    "stablehlo.round_nearest_even": O.ROUND_EVEN, "stablehlo.rsqrt": O.RSQRT,
    "stablehlo.sign": O.SIGN, "stablehlo.sine": O.SIN, "stablehlo.sqrt": O.SQRT,
    "stablehlo.tan": O.TAN, "stablehlo.tanh": O.TANH,
    "stablehlo.add": O.ADD, "stablehlo.and": O.AND, "stablehlo.atan2": O.ATAN2,
    "stablehlo.complex": O.COMPLEX, "stablehlo.divide": O.DIVIDE, "stablehlo.maximum": O.MAXIMUM,
    "stablehlo.minimum": O.MINIMUM, "stablehlo.multiply": O.MULTIPLY, "stablehlo.or": O.OR,
    "stablehlo.power": O.POWER, "stablehlo.remainder": O.REMAINDER,
    "stablehlo.shift_left": O.SHIFT_LEFT,
    "stablehlo.shift_right_arithmetic": O.SHIFT_RIGHT_ARITHMETIC,
    "stablehlo.shift_right_logical": O.SHIFT_RIGHT_LOGICAL, "stablehlo.subtract": O.SUBTRACT,
    "stablehlo.xor": O.XOR, "stablehlo.clamp": O.CLAMP,
    "stablehlo.convert": O.CONVERT, "stablehlo.bitcast_convert": O.BITCAST_CONVERT,
    "stablehlo.reshape": O.RESHAPE, "stablehlo.replica_id": O.REPLICA_ID,
    "stablehlo.partition_id": O.PARTITION_ID,
    "stablehlo.dynamic_update_slice": O.DYNAMIC_UPDATE_SLICE,
    "stablehlo.tuple": O.TUPLE,
}  # fmt: skip


def _direct(opcode: Opcode) -> Callable[[OpCtx], Results]:
    arity = OPS[opcode].arity

    def convert(ctx: OpCtx) -> Results:
        if arity is not None:
            ctx.arity(arity)
        if OPS[opcode].category is Category.ELEMENTWISE and _quantized_types(ctx):
            return [_dequantize_op_quantize(ctx, opcode)]
        ins = ctx.emit(opcode, ctx.result_shape(), ctx.operands)
        accuracy = _result_accuracy(ctx)
        if accuracy is not None and OPS[opcode].accepts_result_accuracy:
            ins.result_accuracy = accuracy
        return [ins]

    return convert


for _name, _opcode in _DIRECT.items():
    CONVERTERS[_name] = _direct(_opcode)


def _result_accuracy(ctx: OpCtx) -> ResultAccuracy | None:
    if not ctx.has("result_accuracy"):
        return None
    f = ctx.need("result_accuracy", get_fields)
    mode = f.get("mode")
    name = next(iter(mode[1]), "DEFAULT") if isinstance(mode, tuple) else "DEFAULT"
    if name == "TOLERANCE":
        return ResultAccuracy(
            atol=float(f.get("atol", 0.0)),
            rtol=float(f.get("rtol", 0.0)),
            ulps=int(f.get("ulps", 0)),
            is_tolerance=True,
        )
    return None if name == "DEFAULT" else ResultAccuracy(mode=name.lower())


@op("stablehlo.select")
def _select(ctx: OpCtx) -> Results:
    ctx.arity(3)
    pred, a, b = ctx.operands
    shape = ctx.result_shape()
    if pred.shape.rank == 0 and shape.rank > 0:
        pred = ctx.emit(
            O.BROADCAST, Shape.array(P.PRED, shape.dimensions), [pred], {"dimensions": ()}
        )
    return [ctx.emit(O.SELECT, shape, [pred, a, b])]


_DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
_COMPARE_TYPES = ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")


def default_compare_type(t: PrimitiveType) -> str:
    """The comparison type XLA uses when none is written."""
    if t.is_float or t.is_complex:
        return "FLOAT"
    return "SIGNED" if t.is_signed_int else "UNSIGNED"


@op("stablehlo.compare")
def _compare(ctx: OpCtx) -> Results:
    ctx.arity(2)
    direction = ctx.need("comparison_direction", lambda v, k, t: get_enum(v, k, t, _DIRECTIONS))
    ctype = ctx.get("compare_type", lambda v, k, t: get_enum(v, k, t, _COMPARE_TYPES))
    attrs: dict[str, Any] = {"direction": direction}
    et = ctx.operands[0].shape.element_type
    if ctype not in (None, "NOTYPE", default_compare_type(et)):
        attrs["type"] = ctype
    return [ctx.emit(O.COMPARE, ctx.result_shape(), ctx.operands, attrs)]


@op("stablehlo.reduce_precision")
def _reduce_precision(ctx: OpCtx) -> Results:
    ctx.arity(1)
    if ctx.has("format"):
        fmt = str(getattr(ctx.attr("format"), "word", ""))
        parts = fmt[1:].split("m") if fmt.startswith("e") else []
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ctx.error(f"format '{fmt}' should look like e5m10")
        exponent, mantissa = int(parts[0]), int(parts[1])
    else:
        exponent = ctx.need("exponent_bits", get_int)
        mantissa = ctx.need("mantissa_bits", get_int)
    return [
        ctx.emit(
            O.REDUCE_PRECISION,
            ctx.result_shape(),
            ctx.operands,
            {"exponent_bits": exponent, "mantissa_bits": mantissa},
        )
    ]


# -- constants and leaves -------------------------------------------------------------------


@op("stablehlo.constant")
def _constant(ctx: OpCtx) -> Results:
    value = ctx.attr("value")
    if not isinstance(value, DenseAttr):
        raise error_at(ctx.op.attr_tok("value"), "stablehlo.constant expects a dense<...> value")
    lit = dense_literal(value, ctx.lw.file.resources)
    shape = ctx.result_shape() if ctx.op.result_types else lit.shape
    if shape.element_type is not lit.shape.element_type or shape.dimensions != lit.shape.dimensions:
        raise ctx.error("quantized or retyped constants are not supported")
    return [ctx.emit(O.CONSTANT, lit.shape, [], literal=lit)]


@op("stablehlo.iota")
def _iota(ctx: OpCtx) -> Results:
    dim = ctx.need("iota_dimension", get_int)
    return [ctx.emit(O.IOTA, ctx.result_shape(), [], {"iota_dimension": dim})]


@op("stablehlo.after_all", "stablehlo.create_token")
def _after_all(ctx: OpCtx) -> Results:
    return [ctx.emit(O.AFTER_ALL, Shape.token(), ctx.operands)]


@op("stablehlo.get_tuple_element")
def _get_tuple_element(ctx: OpCtx) -> Results:
    ctx.arity(1)
    return [
        ctx.emit(
            O.GET_TUPLE_ELEMENT,
            ctx.result_shape(),
            ctx.operands,
            {"index": ctx.need("index", get_int)},
        )
    ]


@op("stablehlo.optimization_barrier")
def _optimization_barrier(ctx: OpCtx) -> Results:
    shapes = [o.shape for o in ctx.operands]
    tup = ctx.emit(O.TUPLE, Shape.tuple_of(shapes), ctx.operands)
    barrier = ctx.emit(O.OPT_BARRIER, tup.shape, [tup])
    return ctx.gtes(barrier)


@op("stablehlo.rng")
def _rng(ctx: OpCtx) -> Results:
    ctx.arity(3)
    dist = ctx.need("rng_distribution", lambda v, k, t: get_enum(v, k, t, ("UNIFORM", "NORMAL")))
    return [
        ctx.emit(
            O.RNG, ctx.result_shape(), ctx.operands[:2], {"distribution": "rng_" + dist.lower()}
        )
    ]


RNG_ALGORITHMS = {"DEFAULT": "rng_default", "THREE_FRY": "rng_three_fry", "PHILOX": "rng_philox"}


@op("stablehlo.rng_bit_generator")
def _rng_bit_generator(ctx: OpCtx) -> Results:
    ctx.arity(1)
    algo = ctx.get(
        "rng_algorithm", lambda v, k, t: get_enum(v, k, t, tuple(RNG_ALGORITHMS)), "DEFAULT"
    )
    shape = Shape.tuple_of(ctx.result_shapes())
    return ctx.gtes(
        ctx.emit(O.RNG_BIT_GENERATOR, shape, ctx.operands, {"algorithm": RNG_ALGORITHMS[algo]})
    )


# -- data movement --------------------------------------------------------------------------


def broadcast_in_dim(ctx: OpCtx, x: Instruction, shape: Shape, dims: Sequence[int]) -> Instruction:
    """XLA's broadcast of `x` into `shape`, reshaping away expanding size-1 dimensions first."""
    if len(dims) != x.shape.rank:
        raise ctx.error(
            f"broadcast_dimensions has {len(dims)} entries for a rank-{x.shape.rank} operand"
        )
    keep = [
        i
        for i, d in enumerate(dims)
        if not (x.shape.dimensions[i] == 1 and 0 <= d < shape.rank and shape.dimensions[d] != 1)
    ]
    if len(keep) != len(dims):
        squeezed = Shape.array(x.shape.element_type, [x.shape.dimensions[i] for i in keep])
        x = ctx.emit(O.RESHAPE, squeezed, [x])
        dims = [dims[i] for i in keep]
    return ctx.emit(O.BROADCAST, shape, [x], {"dimensions": tuple(dims)})


@op("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(ctx: OpCtx) -> Results:
    ctx.arity(1)
    dims = ctx.need("broadcast_dimensions", get_ints)
    return [broadcast_in_dim(ctx, ctx.operands[0], ctx.result_shape(), dims)]


@op("stablehlo.broadcast")
def _broadcast(ctx: OpCtx) -> Results:
    ctx.arity(1)
    sizes = ctx.need("broadcast_sizes", get_ints)
    rank = ctx.operands[0].shape.rank
    dims = tuple(range(len(sizes), len(sizes) + rank))
    return [ctx.emit(O.BROADCAST, ctx.result_shape(), ctx.operands, {"dimensions": dims})]


@op("stablehlo.transpose")
def _transpose(ctx: OpCtx) -> Results:
    ctx.arity(1)
    return [
        ctx.emit(
            O.TRANSPOSE,
            ctx.result_shape(),
            ctx.operands,
            {"dimensions": ctx.need("permutation", get_ints)},
        )
    ]


@op("stablehlo.reverse")
def _reverse(ctx: OpCtx) -> Results:
    ctx.arity(1)
    return [
        ctx.emit(
            O.REVERSE,
            ctx.result_shape(),
            ctx.operands,
            {"dimensions": ctx.need("dimensions", get_ints)},
        )
    ]


@op("stablehlo.concatenate")
def _concatenate(ctx: OpCtx) -> Results:
    return [
        ctx.emit(
            O.CONCATENATE,
            ctx.result_shape(),
            ctx.operands,
            {"dimensions": (ctx.need("dimension", get_int),)},
        )
    ]


@op("stablehlo.slice")
def _slice(ctx: OpCtx) -> Results:
    ctx.arity(1)
    starts = ctx.need("start_indices", get_ints)
    limits = ctx.need("limit_indices", get_ints)
    strides = ctx.get("strides", get_ints) or (1,) * len(starts)
    if not len(starts) == len(limits) == len(strides):
        raise ctx.error("start_indices, limit_indices and strides must have the same length")
    ranges = tuple(
        SliceRange(start, limit, step)
        for start, limit, step in zip(starts, limits, strides, strict=True)
    )
    return [ctx.emit(O.SLICE, ctx.result_shape(), ctx.operands, {"slice": ranges})]


@op("stablehlo.dynamic_slice")
def _dynamic_slice(ctx: OpCtx) -> Results:
    sizes = ctx.need("slice_sizes", get_ints)
    return [
        ctx.emit(O.DYNAMIC_SLICE, ctx.result_shape(), ctx.operands, {"dynamic_slice_sizes": sizes})
    ]


def pad_dims(
    low: Sequence[int], high: Sequence[int], interior: Sequence[int]
) -> tuple[PadDimension, ...]:
    return tuple(PadDimension(lo, hi, it) for lo, hi, it in zip(low, high, interior, strict=True))


@op("stablehlo.pad")
def _pad(ctx: OpCtx) -> Results:
    ctx.arity(2)
    low = ctx.need("edge_padding_low", get_ints)
    high = ctx.need("edge_padding_high", get_ints)
    interior = ctx.get("interior_padding", get_ints) or (0,) * len(low)
    if not len(low) == len(high) == len(interior) == ctx.operands[0].shape.rank:
        raise ctx.error("padding lists must have one entry per operand dimension")
    return [
        ctx.emit(
            O.PAD, ctx.result_shape(), ctx.operands, {"padding": pad_dims(low, high, interior)}
        )
    ]


def gather_attrs(ctx: OpCtx, key: str) -> dict[str, Any]:
    f = ctx.need(key, get_fields)
    tok = ctx.op.attr_tok(key)
    return {
        "offset_dims": field_ints(f, "offset_dims", tok),
        "collapsed_slice_dims": field_ints(f, "collapsed_slice_dims", tok),
        "start_index_map": field_ints(f, "start_index_map", tok),
        "operand_batching_dims": field_ints(f, "operand_batching_dims", tok),
        "start_indices_batching_dims": field_ints(f, "start_indices_batching_dims", tok),
        "index_vector_dim": field_int(f, "index_vector_dim", 0, tok),
    }


@op("stablehlo.gather")
def _gather(ctx: OpCtx) -> Results:
    ctx.arity(2)
    attrs = gather_attrs(ctx, "dimension_numbers")
    attrs["slice_sizes"] = ctx.need("slice_sizes", get_ints)
    attrs["indices_are_sorted"] = ctx.get("indices_are_sorted", get_bool, False)
    return [ctx.emit(O.GATHER, ctx.result_shape(), ctx.operands, attrs)]


@op("stablehlo.scatter")
def _scatter(ctx: OpCtx) -> Results:
    n = (len(ctx.operands) - 1) // 2
    if len(ctx.operands) != 2 * n + 1 or n < 1:
        raise ctx.error("expects N inputs, the indices and N updates")
    f = ctx.need("scatter_dimension_numbers", get_fields)
    tok = ctx.op.attr_tok("scatter_dimension_numbers")
    attrs: dict[str, Any] = {
        "update_window_dims": field_ints(f, "update_window_dims", tok),
        "inserted_window_dims": field_ints(f, "inserted_window_dims", tok),
        "scatter_dims_to_operand_dims": field_ints(f, "scatter_dims_to_operand_dims", tok),
        "input_batching_dims": field_ints(f, "input_batching_dims", tok),
        "scatter_indices_batching_dims": field_ints(f, "scatter_indices_batching_dims", tok),
        "index_vector_dim": field_int(f, "index_vector_dim", 0, tok),
        "indices_are_sorted": ctx.get("indices_are_sorted", get_bool, False),
        "unique_indices": ctx.get("unique_indices", get_bool, False),
    }
    attrs["to_apply"] = reducer(ctx, 0, "scatter_update", n)
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.SCATTER, shape, ctx.operands, attrs))


# -- regions helpers ------------------------------------------------------------------------


def region_arg_shapes(ctx: OpCtx, index: int) -> list[Shape]:
    region = region_ast(ctx, index)
    return [to_shape(a.type, a.tok) for a in region.args]


def region_ast(ctx: OpCtx, index: int) -> Any:
    if index >= len(ctx.op.regions):
        raise ctx.error(f"expects {index + 1} region{'s' if index else ''}")
    return ctx.op.regions[index]


def reducer(ctx: OpCtx, index: int, base: str, n_results: int) -> Any:
    """A region whose block arguments are scalars (reducers, comparators, map bodies)."""
    return ctx.lw.region(
        region_ast(ctx, index),
        ctx.scope,
        base,
        region_arg_shapes(ctx, index),
        as_tuple=n_results != 1,
    )


# -- reductions and windows -----------------------------------------------------------------


@op("stablehlo.reduce")
def _reduce(ctx: OpCtx) -> Results:
    n = len(ctx.operands) // 2
    if len(ctx.operands) != 2 * n or n < 1:
        raise ctx.error("expects N inputs followed by N init values")
    attrs = {
        "dimensions": ctx.need("dimensions", get_ints),
        "to_apply": reducer(ctx, 0, "reduce_body", n),
    }
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.REDUCE, shape, ctx.operands, attrs))


def window(
    sizes: Sequence[int],
    strides: Sequence[int] | None,
    padding: Sequence[tuple[int, int]] | None,
    base_dilations: Sequence[int] | None,
    window_dilations: Sequence[int] | None,
    reversal: Sequence[bool] | None = None,
) -> Window:
    """A Window from StableHLO's per-attribute lists (absent lists take their defaults)."""
    n = len(sizes)
    strides = strides or (1,) * n
    padding = padding or ((0, 0),) * n
    base_dilations = base_dilations or (1,) * n
    window_dilations = window_dilations or (1,) * n
    reversal = reversal or (False,) * n
    return Window(
        tuple(
            WindowDimension(
                sizes[i],
                strides[i],
                padding[i][0],
                padding[i][1],
                window_dilations[i],
                base_dilations[i],
                reversal[i],
            )
            for i in range(n)
        )
    )


def check_window(ctx: OpCtx, rank: int, *lists: Sequence[Any] | None) -> None:
    for values in lists:
        if values is not None and len(values) != rank:
            raise ctx.error(f"window attributes need {rank} entries, one per dimension")


@op("stablehlo.reduce_window")
def _reduce_window(ctx: OpCtx) -> Results:
    n = len(ctx.operands) // 2
    if len(ctx.operands) != 2 * n or n < 1:
        raise ctx.error("expects N inputs followed by N init values")
    rank = ctx.operands[0].shape.rank
    sizes = ctx.need("window_dimensions", get_ints)
    strides = ctx.get("window_strides", get_ints)
    base = ctx.get("base_dilations", get_ints)
    dil = ctx.get("window_dilations", get_ints)
    padding = ctx.get("padding", get_padding)
    check_window(ctx, rank, sizes, strides, base, dil, padding)
    attrs = {
        "window": window(sizes, strides, padding, base, dil),
        "to_apply": reducer(ctx, 0, "reduce_window_body", n),
    }
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.REDUCE_WINDOW, shape, ctx.operands, attrs))


@op("stablehlo.select_and_scatter")
def _select_and_scatter(ctx: OpCtx) -> Results:
    ctx.arity(3)
    rank = ctx.operands[0].shape.rank
    sizes = ctx.get("window_dimensions", get_ints) or (1,) * rank
    strides = ctx.get("window_strides", get_ints)
    padding = ctx.get("padding", get_padding)
    check_window(ctx, rank, sizes, strides, padding)
    attrs = {
        "window": window(sizes, strides, padding, None, None),
        "select": reducer(ctx, 0, "select", 1),
        "scatter": reducer(ctx, 1, "scatter", 1),
    }
    return [ctx.emit(O.SELECT_AND_SCATTER, ctx.result_shape(), ctx.operands, attrs)]


@op("stablehlo.sort")
def _sort(ctx: OpCtx) -> Results:
    if not ctx.operands:
        raise ctx.error("expects at least one operand")
    rank = ctx.operands[0].shape.rank
    dim = ctx.get("dimension", get_int, -1)
    if not -rank <= dim < max(rank, 1):
        raise ctx.error(f"dimension {dim} is out of range for rank {rank}")
    attrs = {
        "dimensions": (dim % max(rank, 1),),
        "is_stable": ctx.get("is_stable", get_bool, False),
        "to_apply": reducer(ctx, 0, "sort_comparator", 1),
    }
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.SORT, shape, ctx.operands, attrs))


@op("stablehlo.map")
def _map(ctx: OpCtx) -> Results:
    attrs = {
        "dimensions": ctx.get("dimensions", get_ints, ()),
        "to_apply": reducer(ctx, 0, "map_body", 1),
    }
    return [ctx.emit(O.MAP, ctx.result_shape(), ctx.operands, attrs)]


# -- contractions ---------------------------------------------------------------------------


def precision_attrs(ctx: OpCtx) -> dict[str, Any]:
    precision = ctx.get("precision_config", get_precision)
    if precision and any(p != "default" for p in precision):
        return {"operand_precision": precision}
    return {}


_ALGORITHMS = {
    ("f32", "f32", "f32", 1): "dot_f32_f32_f32",
    ("f64", "f64", "f64", 1): "dot_f64_f64_f64",
    ("tf32", "tf32", "f32", 1): "dot_tf32_tf32_f32",
    ("tf32", "tf32", "f32", 3): "dot_tf32_tf32_f32_x3",
    ("bf16", "bf16", "f32", 1): "dot_bf16_bf16_f32",
    ("bf16", "bf16", "f32", 3): "dot_bf16_bf16_f32_x3",
    ("bf16", "bf16", "f32", 6): "dot_bf16_bf16_f32_x6",
    ("bf16", "bf16", "f32", 9): "dot_bf16_bf16_f32_x9",
    ("bf16", "bf16", "bf16", 1): "dot_bf16_bf16_bf16",
    ("f16", "f16", "f16", 1): "dot_f16_f16_f16",
    ("f16", "f16", "f32", 1): "dot_f16_f16_f32",
}  # fmt: skip


def _algorithm(ctx: OpCtx) -> dict[str, Any]:
    if not ctx.has("algorithm"):
        return {}
    f = ctx.need("algorithm", get_fields)
    lhs, rhs, acc = (
        str(f.get(k, "")) for k in ("lhs_precision_type", "rhs_precision_type", "accumulation_type")
    )
    if lhs.startswith("f8") and rhs.startswith("f8") and acc == "f32":
        fast = f.get("allow_imprecise_accumulation") == "true"
        return {"algorithm": "dot_any_f8_any_f8_f32" + ("_fast_accum" if fast else "")}
    name = _ALGORITHMS.get((lhs, rhs, acc, int(f.get("num_primitive_operations", 1))))
    if name is None:
        raise error_at(
            ctx.op.attr_tok("algorithm"), f"unsupported dot algorithm {lhs} x {rhs} -> {acc}"
        )
    return {"algorithm": name}


def _dot_fields(ctx: OpCtx) -> dict[str, tuple[int, ...]]:
    if ctx.has("dot_dimension_numbers"):
        f = ctx.need("dot_dimension_numbers", get_fields)
        tok = ctx.op.attr_tok("dot_dimension_numbers")
        return {
            k: field_ints(f, k, tok)
            for k in (
                "lhs_batching_dimensions",
                "rhs_batching_dimensions",
                "lhs_contracting_dimensions",
                "rhs_contracting_dimensions",
            )
        }
    out: dict[str, tuple[int, ...]] = {}
    for kind in ("batching", "contracting"):
        value = ctx.op.attrs.get(f"{kind}_dims")
        lists = getattr(value, "lists", ((), ()))
        if len(lists) != 2:
            raise error_at(ctx.op.attr_tok(f"{kind}_dims"), f"{kind}_dims should be [..] x [..]")
        tok = ctx.op.attr_tok(f"{kind}_dims")
        for side, items in zip(("lhs", "rhs"), lists, strict=True):
            out[f"{side}_{kind}_dimensions"] = get_ints(Brackets((items,)), f"{kind}_dims", tok)
    return out


@op("stablehlo.dot_general")
def _dot_general(ctx: OpCtx) -> Results:
    ctx.arity(2)
    f = _dot_fields(ctx)
    attrs: dict[str, Any] = {
        "lhs_batch_dims": f["lhs_batching_dimensions"],
        "lhs_contracting_dims": f["lhs_contracting_dimensions"],
        "rhs_batch_dims": f["rhs_batching_dimensions"],
        "rhs_contracting_dims": f["rhs_contracting_dimensions"],
        **precision_attrs(ctx),
        **_algorithm(ctx),
    }
    return [ctx.emit(O.DOT, ctx.result_shape(), ctx.operands, attrs)]


@op("stablehlo.dot")
def _dot(ctx: OpCtx) -> Results:
    ctx.arity(2)
    lhs = ctx.operands[0]
    attrs: dict[str, Any] = {
        "lhs_contracting_dims": (lhs.shape.rank - 1,),
        "rhs_contracting_dims": (0,),
        **precision_attrs(ctx),
    }
    return [ctx.emit(O.DOT, ctx.result_shape(), ctx.operands, attrs)]


def _conv_window(
    ctx: OpCtx, kernel: Shape, spatial: Sequence[int], padding: Sequence[tuple[int, int]] | None
) -> Window:
    pretty = ctx.op.attrs.get("window")
    if isinstance(pretty, DictAttr):
        w = pretty.as_dict()
        tok = ctx.op.attr_tok("window")
        strides = get_ints(w["stride"], "stride", tok) if "stride" in w else None
        padding = get_padding(w["pad"], "pad", tok) if "pad" in w else padding
        lhs_dil = get_ints(w["lhs_dilate"], "lhs_dilate", tok) if "lhs_dilate" in w else None
        rhs_dil = get_ints(w["rhs_dilate"], "rhs_dilate", tok) if "rhs_dilate" in w else None
        reverse = get_bools(w["reverse"], "reverse", tok) if "reverse" in w else None
    else:
        strides = ctx.get("window_strides", get_ints)
        padding = ctx.get("padding", get_padding) if padding is None else padding
        lhs_dil = ctx.get("lhs_dilation", get_ints)
        rhs_dil = ctx.get("rhs_dilation", get_ints)
        reverse = ctx.get("window_reversal", get_bools)
    sizes = [kernel.dimensions[d] for d in spatial]
    check_window(ctx, len(sizes), strides, padding, lhs_dil, rhs_dil, reverse)
    return window(sizes, strides, padding, lhs_dil, rhs_dil, reverse)


def convolution(
    ctx: OpCtx, operands: Sequence[Instruction], padding: Sequence[tuple[int, int]] | None = None
) -> Instruction:
    dn = ctx.need("dimension_numbers", get_conv_dims)
    kernel = operands[1].shape
    attrs: dict[str, Any] = {
        "window": _conv_window(ctx, kernel, dn.kernel_spatial_dimensions, padding),
        "dim_labels": dn,
        "feature_group_count": ctx.get("feature_group_count", get_int, 1),
        "batch_group_count": ctx.get("batch_group_count", get_int, 1),
        **precision_attrs(ctx),
    }
    return ctx.emit(O.CONVOLUTION, ctx.result_shape(), operands[:2], attrs)


@op("stablehlo.convolution")
def _convolution(ctx: OpCtx) -> Results:
    ctx.arity(2)
    return [convolution(ctx, ctx.operands)]


@op("stablehlo.fft")
def _fft(ctx: OpCtx) -> Results:
    ctx.arity(1)
    kind = ctx.need("fft_type", lambda v, k, t: get_enum(v, k, t, ("FFT", "IFFT", "RFFT", "IRFFT")))
    return [
        ctx.emit(
            O.FFT,
            ctx.result_shape(),
            ctx.operands,
            {"fft_type": kind, "fft_length": ctx.need("fft_length", get_ints)},
        )
    ]


@op("stablehlo.cholesky")
def _cholesky(ctx: OpCtx) -> Results:
    ctx.arity(1)
    return [
        ctx.emit(
            O.CHOLESKY,
            ctx.result_shape(),
            ctx.operands,
            {"lower": ctx.get("lower", get_bool, False)},
        )
    ]


@op("stablehlo.triangular_solve")
def _triangular_solve(ctx: OpCtx) -> Results:
    ctx.arity(2)
    transpose = ctx.get(
        "transpose_a",
        lambda v, k, t: get_enum(
            v, k, t, ("TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")
        ),
        "NO_TRANSPOSE",
    )
    attrs = {
        "left_side": ctx.get("left_side", get_bool, False),
        "lower": ctx.get("lower", get_bool, False),
        "unit_diagonal": ctx.get("unit_diagonal", get_bool, False),
        "transpose_a": transpose,
    }
    return [ctx.emit(O.TRIANGULAR_SOLVE, ctx.result_shape(), ctx.operands, attrs)]


def _batch_norm(opcode: Opcode) -> Callable[[OpCtx], Results]:
    def convert(ctx: OpCtx) -> Results:
        attrs = {
            "epsilon": ctx.need("epsilon", get_float),
            "feature_index": ctx.need("feature_index", get_int),
        }
        shape = single_or_tuple(ctx.result_shapes())
        return results_of(ctx, ctx.emit(opcode, shape, ctx.operands, attrs))

    return convert


CONVERTERS["stablehlo.batch_norm_training"] = _batch_norm(O.BATCH_NORM_TRAINING)
CONVERTERS["stablehlo.batch_norm_inference"] = _batch_norm(O.BATCH_NORM_INFERENCE)
CONVERTERS["stablehlo.batch_norm_grad"] = _batch_norm(O.BATCH_NORM_GRAD)


# -- quantization (per-tensor and per-axis uniform) -----------------------------------------


def _scale_zp(
    ctx: OpCtx, info: dict[str, Any], shape: Shape, et: PrimitiveType
) -> tuple[Instruction, Instruction]:
    """Scale and zero point as tensors broadcast to `shape` (per-axis along info["axis"])."""

    def const(values: list[float]) -> Instruction:
        if info["axis"] is None:
            scalar = constant(ctx.lw, ctx.scope.comp, values[0], Shape.scalar(et), ctx.tok)
            return ctx.emit(
                O.BROADCAST, Shape.array(et, shape.dimensions), [scalar], {"dimensions": ()}
            )
        vec = constant(
            ctx.lw, ctx.scope.comp, np.array(values), Shape.array(et, [len(values)]), ctx.tok
        )
        return ctx.emit(
            O.BROADCAST, Shape.array(et, shape.dimensions), [vec], {"dimensions": (info["axis"],)}
        )

    return const(info["scales"]), const([float(z) for z in info["zero_points"]])


def _quant_element(t: Any) -> Any:
    """The `!quant.uniform` element type of a tensor type, else None."""
    element = getattr(t, "element", None)
    return element if getattr(element, "name", None) == "!quant.uniform" else None


def _quantized_types(ctx: OpCtx) -> bool:
    types = [*(ctx.op.operand_types or ()), *ctx.op.result_types]
    return any(_quant_element(t) is not None for t in types)


def _dequantize(ctx: OpCtx, x: Instruction, info: dict[str, Any]) -> Instruction:
    """(x - zero_point) * scale in the expressed type."""
    out = Shape.array(info["expressed"], x.shape.dimensions)
    scale, zp = _scale_zp(ctx, info, out, out.element_type)
    xf = ctx.emit(O.CONVERT, out, [x])
    return ctx.emit(O.MULTIPLY, out, [ctx.emit(O.SUBTRACT, out, [xf, zp]), scale])


def _quantize(ctx: OpCtx, x: Instruction, info: dict[str, Any], result: Shape) -> Instruction:
    """clamp(round_even(x / scale) + zero_point) converted to the storage type."""
    fshape = x.shape
    scale, zp = _scale_zp(ctx, info, fshape, fshape.element_type)
    y = ctx.emit(O.ROUND_EVEN, fshape, [ctx.emit(O.DIVIDE, fshape, [x, scale])])
    y = ctx.emit(O.ADD, fshape, [y, zp])
    lo = constant(ctx.lw, ctx.scope.comp, info["min"], Shape.scalar(fshape.element_type), ctx.tok)
    hi = constant(ctx.lw, ctx.scope.comp, info["max"], Shape.scalar(fshape.element_type), ctx.tok)
    y = ctx.emit(O.CLAMP, fshape, [lo, y, hi])
    return ctx.emit(O.CONVERT, result, [y])


def _dequantize_op_quantize(ctx: OpCtx, opcode: Opcode) -> Instruction:
    """An elementwise op on quantized tensors, as the spec defines it: dequantize the
    quantized operands, compute in the expressed type, quantize to the result type."""
    types = list(ctx.op.operand_types or ())
    if len(types) != len(ctx.operands):
        raise ctx.error("needs its operand types written after ':' (quantized operands)")
    values = []
    for x, t in zip(ctx.operands, types, strict=True):
        q = _quant_element(t)
        values.append(_dequantize(ctx, x, quant_info(q)) if q is not None else x)
    result = ctx.result_shape()
    rq = _quant_element(ctx.op.result_types[0])
    expressed = quant_info(rq)["expressed"] if rq is not None else result.element_type
    y = ctx.emit(opcode, Shape.array(expressed, result.dimensions), values)
    return _quantize(ctx, y, quant_info(rq), result) if rq is not None else y


@op("stablehlo.uniform_dequantize")
def _uniform_dequantize(ctx: OpCtx) -> Results:
    ctx.arity(1)
    if not ctx.op.operand_types:
        raise ctx.error("needs its operand type written after ':'")
    info = quant_info(ctx.op.operand_types[0].element)  # type: ignore[attr-defined]
    out = ctx.result_shape()
    y = _dequantize(ctx, ctx.operands[0], info)
    return [y if y.shape == out else ctx.emit(O.CONVERT, out, [y])]


@op("stablehlo.uniform_quantize")
def _uniform_quantize(ctx: OpCtx) -> Results:
    """Quantize a float tensor; a quantized one is requantized (dequantized first)."""
    ctx.arity(1)
    info = quant_info(ctx.op.result_types[0].element)  # type: ignore[union-attr]
    x = ctx.operands[0]
    source = _quant_element(ctx.op.operand_types[0]) if ctx.op.operand_types else None
    if source is not None:
        x = _dequantize(ctx, x, quant_info(source))
    return [_quantize(ctx, x, info, ctx.result_shape())]
