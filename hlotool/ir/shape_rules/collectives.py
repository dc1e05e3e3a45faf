"""Host transfers, collectives and custom-call: the result is declared in the text and
checked against the operands and attributes."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hlotool.ir.shape_rules.context import ShapeContext
from hlotool.ir.shape_rules.control import _check_aliasing
from hlotool.ir.shape_rules.shape_util import (
    P,
    _arity,
    _compat,
    _dyn_flags,
    _expect_array,
    _expect_shape,
    _fail,
    _hs,
    _need_declared,
    _not_inferable,
    _one_dim,
    _prefer_declared,
    _reshape_like,
    _verify_reducer,
)
from hlotool.ir.types import UNBOUNDED, PrimitiveType, Shape


def _check_token(ctx: ShapeContext, i: int) -> None:
    if i >= len(ctx.operands) or not ctx.operands[i].is_token:
        got = _hs(ctx.operands[i]) if i < len(ctx.operands) else "nothing"
        raise _fail(f"Expected operand {i} to be token-shaped, actual shape is {got}")


def infeed(ctx: ShapeContext) -> Shape:
    """infeed(token) -> (data, token[])."""
    out = _need_declared(ctx)
    _check_token(ctx, 0)
    if not out.is_tuple or len(out.tuple_shapes) != 2 or not out.tuple_shapes[1].is_token:
        raise _fail(f"The shape of an infeed must be (data, token[]), got {_hs(out)}")
    return out


def outfeed(ctx: ShapeContext) -> Shape:
    """outfeed(value, token) -> token[]; outfeed_shape must match the value."""
    _arity(ctx, 2)
    _check_token(ctx, 1)
    outfeed_shape = ctx.attrs.get("outfeed_shape")
    if outfeed_shape is not None and not _compat(outfeed_shape, ctx.operands[0]):
        raise _fail(
            f"Expected outfeed shape to be equal to operand's shape {_hs(ctx.operands[0])}, "
            f"actual shape is {_hs(outfeed_shape)}"
        )
    return Shape.token()


def send(ctx: ShapeContext) -> Shape:
    """send(data, token) -> (data, u32[], token[])."""
    _arity(ctx, 2)
    _check_token(ctx, 1)
    return _prefer_declared(
        ctx, Shape.tuple_of([ctx.operands[0], Shape.scalar(P.U32), Shape.token()])
    )


def send_done(ctx: ShapeContext) -> Shape:
    _arity(ctx, 1)
    return Shape.token()


def recv(ctx: ShapeContext) -> Shape:
    """recv(token) -> (data, u32[], token[]); the data shape comes from the text."""
    out = _need_declared(ctx)
    _check_token(ctx, 0)
    if not out.is_tuple or len(out.tuple_shapes) != 3:
        raise _fail(f"The shape of a recv must be (data, u32[], token[]), got {_hs(out)}")
    _expect_shape(Shape.tuple_of([out.tuple_shapes[0], Shape.scalar(P.U32), Shape.token()]), out)
    return out


def recv_done(ctx: ShapeContext) -> Shape:
    """recv-done(recv) -> (data, token[])."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    if not operand.is_tuple or not operand.tuple_shapes:
        raise _fail(f"recv-done expects the tuple of a recv, got {_hs(operand)}")
    return _prefer_declared(ctx, Shape.tuple_of([operand.tuple_shapes[0], Shape.token()]))


def _group_size(ctx: ShapeContext) -> int | None:
    """The size of one replica group, when the attribute says it."""
    groups = ctx.attrs.get("replica_groups")
    if groups is None:
        return None
    if getattr(groups, "groups", None):
        return len(groups.groups[0]) or None
    text = getattr(groups, "iota_text", "") or ""
    m = re.match(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]", text)
    if m:
        sizes = [int(x) for x in m.group(1).split(",")]
        return sizes[-1] if len(sizes) >= 2 else None
    return None


def _single_or_tuple(shapes: Sequence[Shape]) -> Shape:
    return shapes[0] if len(shapes) == 1 else Shape.tuple_of(list(shapes))


def all_reduce(ctx: ShapeContext) -> Shape:
    """all-reduce / all-reduce-start: the operand (a tuple for several)."""
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    for s in ctx.operands:
        _expect_array(s, "operand of cross replica sum")
    reducer = ctx.attrs.get("to_apply")
    if reducer is not None:
        for s in ctx.operands:
            scalar = Shape.scalar(s.element_type)
            _verify_reducer(reducer.program_shape, [scalar], [s.element_type], 1)
    return _prefer_declared(ctx, _single_or_tuple(ctx.operands))


def collective_reduce(ctx: ShapeContext) -> Shape:
    """collective-reduce: its data operands (a tuple for several), reduced onto a root;
    with has_dynamic_root=true the last operand holds one s32 root rank per data operand."""
    data = list(ctx.operands)
    if ctx.attrs.get("has_dynamic_root"):
        if len(data) < 2:
            raise _fail(f"{ctx.opcode} with has_dynamic_root=true expects data operands and "
                        "a root operand")
        roots = data.pop()
        if (not roots.is_array or roots.element_type is not PrimitiveType.S32
                or roots.rank != 1 or roots.dimensions[0] != len(data)):
            raise _fail(f"{ctx.opcode}: the root operand must be s32[{len(data)}], got "
                        f"{_hs(roots)}")
    sub = ShapeContext(ctx.opcode, data, ctx.attrs, ctx.declared)
    return all_reduce(sub)


def all_reduce_done(ctx: ShapeContext) -> Shape:
    _arity(ctx, 1)
    return ctx.operands[0]


def _gathered(ctx: ShapeContext, outputs: Sequence[Shape] | None, grow: bool) -> list[Shape]:
    """Per operand: all-gather (grow) multiplies, reduce-scatter divides the dimension by
    the shard count (from the replica groups, else from the declared shape)."""
    dim = _one_dim(ctx)
    count = _group_size(ctx)
    results = []
    for i, s in enumerate(ctx.operands):
        _expect_array(s, f"operand of {ctx.opcode}")
        if not 0 <= dim < s.rank:
            raise _fail(f"{ctx.opcode} dimension {dim} is out of bounds for {_hs(s)}.")
        n = count
        if n is None:
            known = outputs is not None and i < len(outputs)
            if not known or not outputs[i].is_array or outputs[i].rank != s.rank:
                raise _not_inferable(ctx)
            a, b = (outputs[i].dimensions[dim], s.dimensions[dim]) if grow else (
                s.dimensions[dim], outputs[i].dimensions[dim])
            n = -(-a // b) if b > 0 else 1
            n = max(n, 1)
        dims = list(s.dimensions)
        if grow:
            dims[dim] = dims[dim] * n if dims[dim] != UNBOUNDED else UNBOUNDED
        else:
            if dims[dim] != UNBOUNDED and dims[dim] % n:
                raise _fail(
                    f"ReduceScatter operand scatter dimension size {dims[dim]} must be dividable "
                    f"by shard_count {n}."
                )
            dims[dim] = dims[dim] // n if dims[dim] != UNBOUNDED else UNBOUNDED
        results.append(_reshape_like(s, dims=dims, dyn=_dyn_flags(s)))
    return results


def _declared_parts(ctx: ShapeContext, n: int, index: int | None = None) -> list[Shape] | None:
    out = ctx.declared
    if out is None:
        return None
    if index is not None:
        if not out.is_tuple or len(out.tuple_shapes) <= index:
            return None
        out = out.tuple_shapes[index]
    if n == 1:
        return [out]
    return list(out.tuple_shapes) if out.is_tuple else None


def all_gather(ctx: ShapeContext) -> Shape:
    """all-gather: the gather dimension grows by the shard count."""
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    parts = _gathered(ctx, _declared_parts(ctx, len(ctx.operands)), grow=True)
    return _prefer_declared(ctx, _single_or_tuple(parts))


def all_gather_start(ctx: ShapeContext) -> Shape:
    """all-gather-start: (input, gathered)."""
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    parts = _gathered(ctx, _declared_parts(ctx, len(ctx.operands), index=1), grow=True)
    return _prefer_declared(
        ctx, Shape.tuple_of([_single_or_tuple(ctx.operands), _single_or_tuple(parts)])
    )


def tuple_element_1(ctx: ShapeContext) -> Shape:
    """all-gather-done, collective-permute-done: element 1 of the start's tuple."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    if not operand.is_tuple or len(operand.tuple_shapes) < 2:
        raise _fail(f"{ctx.opcode} expects the tuple of its start op, got {_hs(operand)}")
    return operand.tuple_shapes[1]


def reduce_scatter(ctx: ShapeContext) -> Shape:
    """reduce-scatter: the scatter dimension shrinks by the shard count."""
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    parts = _gathered(ctx, _declared_parts(ctx, len(ctx.operands)), grow=False)
    return _prefer_declared(ctx, _single_or_tuple(parts))


def all_to_all(ctx: ShapeContext) -> Shape:
    """all-to-all: with a split dimension the operand's shape (that dimension divisible by
    the group size); without, one operand per peer, all alike, and a tuple result."""
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    dims = tuple(ctx.attrs.get("dimensions") or ())
    count = _group_size(ctx)
    if dims:
        if len(ctx.operands) != 1:
            raise _fail(f"{ctx.opcode} with a split dimension takes exactly one operand")
        s = ctx.operands[0]
        d = dims[0]
        if not 0 <= d < s.rank:
            raise _fail(f"AllToAll split_dimension {d} is out-of-bounds in shape {_hs(s)}.")
        if count and s.dimensions[d] != UNBOUNDED and s.dimensions[d] % count:
            raise _fail(
                f"AllToAll split dimension size {s.dimensions[d]} must be dividable by "
                f"split_count {count}."
            )
        return _prefer_declared(ctx, s)
    first = ctx.operands[0]
    for i, s in enumerate(ctx.operands):
        if not _compat(first, s):
            raise _fail(
                "HLO all-to-all has operands with different shapes: the 0th operand shape "
                f"{_hs(first)}, but the {i}th operand has shape {_hs(s)}."
            )
    if count and len(ctx.operands) != count:
        raise _fail(
            f"{ctx.opcode} without a split dimension takes one operand per peer ({count}), got "
            f"{len(ctx.operands)}"
        )
    return _prefer_declared(ctx, Shape.tuple_of(list(ctx.operands)))


def ragged_all_to_all(ctx: ShapeContext) -> Shape:
    """ragged-all-to-all(input, output, offsets/sizes x4): the output buffer's shape."""
    _arity(ctx, 6)
    _expect_array(ctx.operands[1], "operand 1 of ragged-all-to-all")
    return _prefer_declared(ctx, ctx.operands[1])


def collective_broadcast(ctx: ShapeContext) -> Shape:
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    _expect_array(ctx.operands[0], "operand of collective-broadcast")
    if ctx.declared is not None and len(ctx.operands) > 1 and _compat(
        ctx.declared, Shape.tuple_of(list(ctx.operands))
    ):
        return ctx.declared
    return _prefer_declared(ctx, ctx.operands[0])


def _permute_inplace(ctx: ShapeContext) -> bool:
    return len(ctx.operands) == 4 and bool(ctx.attrs.get("slice_sizes"))


def collective_permute(ctx: ShapeContext) -> Shape:
    """collective-permute: the operand (a tuple for several); in-place form (4 operands
    with slice_sizes): the output buffer (operand 1)."""
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    if _permute_inplace(ctx):
        return _prefer_declared(ctx, ctx.operands[1])
    for s in ctx.operands:
        _expect_array(s, "operand of collective-permute")
    return _prefer_declared(ctx, _single_or_tuple(ctx.operands))


def collective_permute_start(ctx: ShapeContext) -> Shape:
    """(input, output, context...): context shapes come from the declared shape."""
    if not ctx.operands:
        raise _fail(f"{ctx.opcode} expects at least one operand")
    if _permute_inplace(ctx):
        parts = [ctx.operands[0], ctx.operands[1]]
    else:
        data = _single_or_tuple(ctx.operands)
        parts = [data, data]
    out = ctx.declared
    if out is not None and out.is_tuple and len(out.tuple_shapes) > 2:
        parts += list(out.tuple_shapes[2:])
    return _prefer_declared(ctx, Shape.tuple_of(parts))


def custom_call(ctx: ShapeContext) -> Shape:
    """custom-call: the declared shape; layout constraints and aliasing are checked."""
    out = _need_declared(ctx)
    constraints = ctx.attrs.get("operand_layout_constraints")
    if constraints is not None:
        if len(constraints) != len(ctx.operands):
            raise _fail(
                f"custom-call has {len(ctx.operands)} operands but "
                f"{len(constraints)} operand_layout_constraints"
            )
        for i, (c, s) in enumerate(zip(constraints, ctx.operands, strict=True)):
            if not _compat(c, s):
                raise _fail(
                    f"custom-call operand {i} has shape {_hs(s)} but its layout constraint is "
                    f"{_hs(c)}"
                )
    _check_aliasing(ctx, out)
    return out
