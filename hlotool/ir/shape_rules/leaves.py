"""Leaves and "whatever the text says": parameter, constant, iota, rng, partition-id, ..."""

from __future__ import annotations

from collections.abc import Callable

from hlotool.ir.shape_rules.collectives import (
    all_gather,
    all_gather_start,
    all_reduce,
    all_reduce_done,
    all_to_all,
    collective_broadcast,
    collective_reduce,
    collective_permute,
    collective_permute_start,
    custom_call,
    infeed,
    outfeed,
    ragged_all_to_all,
    recv,
    recv_done,
    reduce_scatter,
    send,
    send_done,
    tuple_element_1,
)
from hlotool.ir.shape_rules.context import ShapeContext
from hlotool.ir.shape_rules.shape_util import (
    P,
    _arity,
    _attr,
    _compat,
    _fail,
    _hs,
    _is_scalar,
    _mk,
    _not_inferable,
    _tname,
)
from hlotool.ir.types import Shape


def declared(ctx: ShapeContext) -> Shape:
    """Opcodes whose result is whatever the text declares (parameter, constant, ...).

    Opcodes that have a dedicated check below (collectives, host transfers, custom-call,
    rng-get-and-update-state) are checked here too, so the table may keep naming this
    rule for them.
    """
    check = _DECLARED_CHECKS.get(ctx.opcode)
    if check is not None:
        return check(ctx)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    return ctx.declared


def u32_scalar(ctx: ShapeContext) -> Shape:
    """partition-id, replica-id."""
    return Shape.scalar(P.U32)


def iota(ctx: ShapeContext) -> Shape:
    if ctx.declared is None:
        raise _not_inferable(ctx)
    s = ctx.declared
    if not s.is_array:
        raise _fail("Iota does not support non-array result.")
    if s.rank == 0:
        raise _fail("Iota does not support scalars.")
    dim = _attr(ctx, "iota_dimension")
    if not 0 <= dim < s.rank:
        raise _fail("The iota dimension cannot go beyond the operation rank or be negative.")
    t = s.element_type
    if not (t.is_integral or t.is_float or t.is_complex):
        raise _fail(
            "Only support iota of integral, floating point or complex primitive types, "
            f"got {_tname(t)}"
        )
    return s


def rng(ctx: ShapeContext) -> Shape:
    if ctx.declared is None:
        raise _not_inferable(ctx)
    _arity(ctx, 2)
    a, b = ctx.operands
    if not _is_scalar(a) or not _is_scalar(b):
        raise _fail(
            "Expected scalar types for the two operands of Rng instruction: "
            f"{_hs(a)}, {_hs(b)}"
        )
    out = ctx.declared
    same = a.element_type is b.element_type and out.element_type is a.element_type
    if not same or not out.is_array:
        raise _fail(
            "Expected compatible element types for the result and the two operands of Rng "
            f"instruction: {_hs(out)} rng({_hs(a)}, {_hs(b)})"
        )
    t = a.element_type
    distribution = _attr(ctx, "distribution", "")
    if distribution == "rng_normal":
        if not t.is_float:
            raise _fail(
                "Element type not supported. Expected element to be FloatingPointType for "
                f"RngNormal: {_tname(t)}"
            )
    elif not (t.is_float or t.is_integral or t is P.PRED):
        raise _fail(
            "Element type not supported. Expected element to be of floating point type, "
            f"integral type or predicate type for RngUniform: {_tname(t)}"
        )
    return out


def rng_bit_generator(ctx: ShapeContext) -> Shape:
    if ctx.declared is None:
        raise _not_inferable(ctx)
    _arity(ctx, 1)
    out = ctx.declared
    state = ctx.operands[0]
    if out.is_tuple:
        if len(out.tuple_shapes) != 2:
            raise _fail(
                f"Expected tuple shape with 2 elements for RngBitGenerator. Got: {_hs(out)}"
            )
        if not _compat(state, out.tuple_shapes[0]):
            raise _fail(
                "Expected state shape to match between input and output for RngBitGenerator. "
                f"Got {_hs(state)} vs. {_hs(out.tuple_shapes[0])}"
            )
    return out


def rng_get_and_update_state(ctx: ShapeContext) -> Shape:
    expected = _mk(P.U64, (2,))
    if ctx.declared is not None and not _compat(ctx.declared, expected):
        raise _fail(
            f"Invalid RngGetAndUpdateState, expect result to have shape {_hs(expected)}, "
            f"got {_hs(ctx.declared)}"
        )
    return ctx.declared if ctx.declared is not None else expected


_DECLARED_CHECKS: dict[str, Callable[[ShapeContext], Shape]] = {
    "rng-get-and-update-state": rng_get_and_update_state,
    "infeed": infeed,
    "outfeed": outfeed,
    "send": send,
    "send-done": send_done,
    "recv": recv,
    "recv-done": recv_done,
    "custom-call": custom_call,
    "all-reduce": all_reduce,
    "all-reduce-start": all_reduce,
    "all-reduce-done": all_reduce_done,
    "all-gather": all_gather,
    "all-gather-start": all_gather_start,
    "all-gather-done": tuple_element_1,
    "reduce-scatter": reduce_scatter,
    "all-to-all": all_to_all,
    "ragged-all-to-all": ragged_all_to_all,
    "collective-broadcast": collective_broadcast,
    "collective-reduce": collective_reduce,
    "collective-permute": collective_permute,
    "collective-permute-start": collective_permute_start,
    "collective-permute-done": tuple_element_1,
}
