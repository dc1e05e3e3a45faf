"""The op table, part 3: dynamic-shape ops and JAX's `@stablehlo.dynamic_*` custom calls.

With their shape operands known (constants, or folded while refining shapes for
`specialize`), they become the static HLO ops. Otherwise a `?`-shaped result stays a
custom-call named after the op (it prints and parses, but only runs once specialized).
"""

from __future__ import annotations

import numpy as np

from hlotool.stablehlo.ast import DictAttr, ListAttr
from hlotool.stablehlo.attrs import (
    attr_text,
    get_bool,
    get_enum,
    get_int,
    get_ints,
    get_symbol,
)
from hlotool.stablehlo.control import SPECIAL_TARGETS
from hlotool.stablehlo.lowering import OpCtx, constant
from hlotool.stablehlo.ops import (
    RNG_ALGORITHMS,
    O,
    P,
    Results,
    broadcast_in_dim,
    convolution,
    gather_attrs,
    op,
    pad_dims,
    results_of,
    single_or_tuple,
    window,
)
from hlotool.ir.attributes import SliceRange
from hlotool.ir.instruction import Instruction
from hlotool.ir.types import UNBOUNDED, Shape

# -- dynamic shapes -------------------------------------------------------------------------


def _static_or_known(ctx: OpCtx, shape_operand: Instruction) -> Shape | None:
    """The result shape: the written type when static, else the known shape operand's value."""
    declared = ctx.result_shape()
    if not declared.is_dynamic:
        return declared
    known = ctx.known(shape_operand)
    if known is None:
        return None
    dims = [int(x) for x in np.asarray(known).reshape(-1)]
    if len(dims) != declared.rank:
        raise ctx.error(
            f"the shape operand has {len(dims)} entries for a rank-{declared.rank} result"
        )
    return Shape.array(declared.element_type, dims)


def _dynamic_fallback(ctx: OpCtx) -> Results:
    """A `?`-shaped result that cannot be made static: a custom-call naming the op."""
    if ctx.lw.refine:
        raise ctx.error("the result shape depends on values that are not known before running")
    attrs = {k: v for k, v in ctx.op.attrs.items() if not k.startswith(("mhlo.", "sdy."))}
    config = attr_text(DictAttr(tuple(attrs.items()))) if attrs else ""
    ins = ctx.emit(
        O.CUSTOM_CALL,
        ctx.result_shape(),
        ctx.operands,
        {"custom_call_target": ctx.name},
        backend_config=config,
    )
    return [ins]


@op("stablehlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(ctx: OpCtx) -> Results:
    ctx.arity(2)
    shape = _static_or_known(ctx, ctx.operands[1])
    if shape is None:
        return _dynamic_fallback(ctx)
    dims = ctx.need("broadcast_dimensions", get_ints)
    return [broadcast_in_dim(ctx, ctx.operands[0], shape, dims)]


@op("stablehlo.dynamic_iota")
def _dynamic_iota(ctx: OpCtx) -> Results:
    ctx.arity(1)
    shape = _static_or_known(ctx, ctx.operands[0])
    if shape is None:
        return _dynamic_fallback(ctx)
    return [ctx.emit(O.IOTA, shape, [], {"iota_dimension": ctx.need("iota_dimension", get_int)})]


@op("stablehlo.dynamic_reshape")
def _dynamic_reshape(ctx: OpCtx) -> Results:
    ctx.arity(2)
    shape = _static_or_known(ctx, ctx.operands[1])
    if shape is None:
        return _dynamic_fallback(ctx)
    return [ctx.emit(O.RESHAPE, shape, ctx.operands[:1])]


def known_ints(ctx: OpCtx, ins: Instruction) -> tuple[int, ...] | None:
    value = ctx.known(ins)
    return None if value is None else tuple(int(x) for x in np.asarray(value).reshape(-1))


@op("stablehlo.dynamic_pad")
def _dynamic_pad(ctx: OpCtx) -> Results:
    ctx.arity(5)
    lists = [known_ints(ctx, o) for o in ctx.operands[2:]]
    if any(x is None for x in lists):
        return _dynamic_fallback(ctx)
    low, high, interior = lists
    shape = ctx.result_shape()
    return [ctx.emit(O.PAD, shape, ctx.operands[:2], {"padding": pad_dims(low, high, interior)})]  # type: ignore[arg-type]


@op("stablehlo.real_dynamic_slice")
def _real_dynamic_slice(ctx: OpCtx) -> Results:
    ctx.arity(4)
    lists = [known_ints(ctx, o) for o in ctx.operands[1:]]
    if any(x is None for x in lists):
        return _dynamic_fallback(ctx)
    ranges = tuple(
        SliceRange(start, limit, step) for start, limit, step in zip(*lists, strict=True)
    )  # type: ignore[misc]
    return [ctx.emit(O.SLICE, ctx.result_shape(), ctx.operands[:1], {"slice": ranges})]


@op("stablehlo.dynamic_gather")
def _dynamic_gather(ctx: OpCtx) -> Results:
    ctx.arity(3)
    sizes = known_ints(ctx, ctx.operands[2])
    if sizes is None:
        return _dynamic_fallback(ctx)
    attrs = gather_attrs(ctx, "dimension_numbers")
    attrs["slice_sizes"] = sizes
    attrs["indices_are_sorted"] = ctx.get("indices_are_sorted", get_bool, False)
    return [ctx.emit(O.GATHER, ctx.result_shape(), ctx.operands[:2], attrs)]


@op("stablehlo.dynamic_conv")
def _dynamic_conv(ctx: OpCtx) -> Results:
    ctx.arity(3)
    pads = ctx.known(ctx.operands[2])
    if pads is None:
        return _dynamic_fallback(ctx)
    pairs = tuple((int(a), int(b)) for a, b in np.asarray(pads).reshape(-1, 2))
    return [convolution(ctx, ctx.operands, pairs)]


@op("stablehlo.get_dimension_size")
def _get_dimension_size(ctx: OpCtx) -> Results:
    ctx.arity(1)
    dim = ctx.need("dimension", get_int)
    operand = ctx.operands[0]
    if not 0 <= dim < operand.shape.rank:
        raise ctx.error(f"dimension {dim} is out of range for rank {operand.shape.rank}")
    size = operand.shape.dimensions[dim]
    if ctx.lw.refine and size != UNBOUNDED:
        return [constant(ctx.lw, ctx.scope.comp, np.int32(size), Shape.scalar(P.S32), ctx.tok)]
    return [
        ctx.emit(O.GET_DIMENSION_SIZE, Shape.scalar(P.S32), ctx.operands, {"dimensions": (dim,)})
    ]


@op("stablehlo.set_dimension_size")
def _set_dimension_size(ctx: OpCtx) -> Results:
    ctx.arity(2)
    return [
        ctx.emit(
            O.SET_DIMENSION_SIZE,
            ctx.result_shape(),
            ctx.operands,
            {"dimensions": (ctx.need("dimension", get_int),)},
        )
    ]


def _dynamic_reduce_window(ctx: OpCtx) -> Results | None:
    """JAX's `@stablehlo.dynamic_reduce_window(inputs..., inits..., window_dimensions,
    window_strides, base_dilations, window_dilations, padding)` with known window operands."""
    n = (len(ctx.operands) - 5) // 2
    lists = [known_ints(ctx, o) for o in ctx.operands[2 * n : 2 * n + 4]]
    pads = ctx.known(ctx.operands[-1])
    called = ctx.op.attrs.get("called_computations")
    if n < 1 or any(x is None for x in lists) or pads is None or not isinstance(called, ListAttr):
        return None
    body = ctx.lw.function(
        ctx.lw.callee(get_symbol(called.items[0], "called_computations", ctx.tok), ctx.tok),
        None,
        None,
    )
    pairs = tuple((int(a), int(b)) for a, b in np.asarray(pads).reshape(-1, 2))
    sizes, strides, base, dil = lists
    attrs = {"window": window(sizes, strides, pairs, base, dil), "to_apply": body}  # type: ignore[arg-type]
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.REDUCE_WINDOW, shape, ctx.operands[: 2 * n], attrs))


def _dynamic_rng_bit_generator(ctx: OpCtx) -> Results | None:
    """`@stablehlo.dynamic_rng_bit_generator(state, output_shape)` with a known shape."""
    dims = known_ints(ctx, ctx.operands[1]) if len(ctx.operands) == 2 else None
    if dims is None:
        return None
    state, out = ctx.result_shapes()
    algo = ctx.get(
        "rng_algorithm", lambda v, k, t: get_enum(v, k, t, tuple(RNG_ALGORITHMS)), "DEFAULT"
    )
    shape = Shape.tuple_of([state, Shape.array(out.element_type, dims)])
    return ctx.gtes(
        ctx.emit(O.RNG_BIT_GENERATOR, shape, ctx.operands[:1], {"algorithm": RNG_ALGORITHMS[algo]})
    )


def _dynamic_top_k(ctx: OpCtx) -> Results | None:
    """`@stablehlo.dynamic_top_k(operand, k)` with a known k."""
    k = known_ints(ctx, ctx.operands[1]) if len(ctx.operands) == 2 else None
    if k is None:
        return None
    x = ctx.operands[0]
    dims = (*x.shape.dimensions[:-1], k[0])
    values, indices = ctx.result_shapes()
    shape = Shape.tuple_of(
        [Shape.array(values.element_type, dims), Shape.array(indices.element_type, dims)]
    )
    return ctx.gtes(ctx.emit(O.TOPK, shape, [x], {"k": k[0], "largest": True}))


SPECIAL_TARGETS["stablehlo.dynamic_reduce_window"] = _dynamic_reduce_window
SPECIAL_TARGETS["stablehlo.dynamic_rng_bit_generator"] = _dynamic_rng_bit_generator
SPECIAL_TARGETS["stablehlo.dynamic_top_k"] = _dynamic_top_k
