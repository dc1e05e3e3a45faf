"""Tuples, control flow (call, conditional, while, fusion), aliasing and async ops."""

from __future__ import annotations

from collections.abc import Sequence

from hlotool.ir.shape_rules.context import ProgramShape, ShapeContext
from hlotool.ir.shape_rules.shape_util import (
    P,
    _arity,
    _attr,
    _compat,
    _dyn_flags,
    _fail,
    _hps,
    _hs,
    _is_dyn,
    _is_scalar,
    _join,
    _keep,
    _need_declared,
    _prefer_declared,
    _program,
    _reshape_like,
    _tname,
)
from hlotool.ir.types import Shape


def tuple_(ctx: ShapeContext) -> Shape:
    return _keep(Shape.tuple_of(list(ctx.operands)))


def get_tuple_element(ctx: ShapeContext) -> Shape:
    """InferGetTupleElementShape."""
    _arity(ctx, 1)
    arg = ctx.operands[0]
    index = _attr(ctx, "index")
    if not arg.is_tuple:
        raise _fail(f"Cannot infer shape: attempting to index into non-tuple: {_hs(arg)}.")
    if not 0 <= index < len(arg.tuple_shapes):
        raise _fail(
            f"Cannot infer shape: attempt to index out of tuple bounds: {index} >= "
            f"{len(arg.tuple_shapes)} in shape {_hs(arg)}."
        )
    return arg.tuple_shapes[index]


def call(ctx: ShapeContext) -> Shape:
    """InferCallShape: operands compatible with to_apply's parameters; result = root."""
    to_apply = _program(ctx, "to_apply")
    args = list(ctx.operands)
    if len(args) != len(to_apply.parameters):
        raise _fail(
            "Call applied function arity must match number of arguments; got: arity: "
            f"{len(to_apply.parameters)}, arguments: {len(args)}; computation signature: "
            f"{_hps(to_apply)}; argument shapes: [{', '.join(_hs(a) for a in args)}]."
        )
    for i, (arg, param) in enumerate(zip(args, to_apply.parameters, strict=True)):
        if not _compat(arg, param):
            raise _fail(
                f"Call parameter must match argument; got parameter {i} shape: {_hs(param)}, "
                f"argument shape: {_hs(arg)}."
            )
    return to_apply.result


def _branches(ctx: ShapeContext) -> list[ProgramShape]:
    comps = ctx.attrs.get("branch_computations")
    if comps:
        return [c.program_shape for c in comps]
    true_c, false_c = ctx.attrs.get("true_computation"), ctx.attrs.get("false_computation")
    if true_c is None or false_c is None:
        raise _fail(
            "conditional needs true_computation and false_computation, or branch_computations"
        )
    return [true_c.program_shape, false_c.program_shape]


def conditional(ctx: ShapeContext) -> Shape:
    """InferConditionalShape: pred index -> true/false computations, s32 index ->
    branch_computations; each branch takes its operand; all results compatible."""
    if not ctx.operands:
        raise _fail("conditional expects a branch index operand")
    index = ctx.operands[0]
    if not _is_scalar(index):
        raise _fail(f"The first operand of conditional must be a scalar. Got {_hs(index)}")
    if index.element_type not in (P.PRED, P.S32):
        raise _fail(
            "The first operand of indexed conditional must be a scalar of S32. Got type "
            f"{_tname(index.element_type)}."
        )
    branches = _branches(ctx)
    if index.element_type is P.PRED and len(branches) != 2:
        raise _fail(
            f"A conditional with a PRED branch index needs exactly 2 branches, got {len(branches)}"
        )
    if not branches:
        raise _fail("A conditional needs at least one branch computation")
    operands = list(ctx.operands[1:])
    if len(operands) != len(branches):
        raise _fail(
            f"Expected {len(branches) + 1} operands for conditional instruction (the branch "
            f"index and one per branch), got {len(ctx.operands)}"
        )
    for j, (branch, operand) in enumerate(zip(branches, operands, strict=True)):
        if len(branch.parameters) != 1:
            raise _fail(
                f"branch computation {j} must take 1 argument; got {len(branch.parameters)}."
            )
        if not _compat(branch.parameters[0], operand):
            raise _fail(
                f"branch operand {j} must match the shape of the only parameter of branch "
                f"computation {j}: got operand: {_hs(operand)}; computation: {_hps(branch)}."
            )
        if not _compat(branches[0].result, branch.result):
            raise _fail(
                f"the result of branch 0 computation and branch {j} computation must have the "
                f"same shape: got branch 0 computation result: {_hs(branches[0].result)}; "
                f"branch {j} computation result: {_hs(branch.result)}."
            )

    def merge(shape: Shape, others: list[Shape]) -> Shape:
        if shape.is_tuple:
            return Shape.tuple_of(
                [
                    merge(s, [o.tuple_shapes[i] for o in others])
                    for i, s in enumerate(shape.tuple_shapes)
                ]
            )
        if not shape.is_array:
            return shape
        dyn = _dyn_flags(shape)
        for o in others:
            for i in range(o.rank):
                dyn[i] = dyn[i] or _is_dyn(o, i)
        if dyn == _dyn_flags(shape):
            return shape
        return _reshape_like(shape, dyn=dyn)

    return merge(branches[0].result, [b.result for b in branches])


def while_(ctx: ShapeContext) -> Shape:
    """InferWhileShape: condition returns pred[]; body param == body root == condition
    param == operand shape."""
    _arity(ctx, 1)
    init = ctx.operands[0]
    condition = _program(ctx, "condition")
    body = _program(ctx, "body")
    if len(condition.parameters) != 1:
        raise _fail(f"Condition must take 1 arguments; got {len(condition.parameters)}.")
    if len(body.parameters) != 1:
        raise _fail(f"Body must take 1 arguments; got {len(body.parameters)}.")
    shapes = f"Condition: {_hps(condition)}; body: {_hps(body)}; init: {_hs(init)}."
    if not _compat(condition.result, Shape.scalar(P.PRED)):
        raise _fail(f"Condition must return a boolean; got {shapes}")
    if not (
        _compat(body.result, condition.parameters[0])
        and _compat(body.result, body.parameters[0])
        and _compat(body.result, init)
    ):
        raise _fail(
            "The parameter of condition and body, the result of the body, and init must all "
            f"have the same shape; got {shapes}."
        )
    return _keep(init)


def fusion(ctx: ShapeContext) -> Shape:
    """The fused computation's parameters match the operands; the result is the declared
    shape, compatible with the fused root (the root's shape when none is declared)."""
    calls = _program(ctx, "calls")
    if len(calls.parameters) != len(ctx.operands):
        raise _fail(
            f"Fused parameter count ({len(calls.parameters)}) does not match the number of "
            f"operands ({len(ctx.operands)}) passed to the fusion instruction."
        )
    for i, (param, operand) in enumerate(zip(calls.parameters, ctx.operands, strict=True)):
        if not _compat(param, operand):
            raise _fail(
                f"Shape mismatch between parameter number {i} and its operand in fusion: "
                f"{_hs(param)} vs {_hs(operand)}."
            )
    out = ctx.declared if ctx.declared is not None else calls.result
    if not _compat(out, calls.result):
        raise _fail(
            f"Fused computation shape ({_hs(calls.result)}) is not equal to the fusion shape "
            f"({_hs(out)})"
        )
    _check_aliasing(ctx, out)
    return out


def _index_valid(shape: Shape, index: Sequence[int]) -> bool:
    try:
        shape.subshape(tuple(index))
    except IndexError:
        return False
    return True


def _check_aliasing(ctx: ShapeContext, out: Shape) -> None:
    """output_to_operand_aliasing: valid indices and compatible aliased shapes."""
    for alias in ctx.attrs.get("output_to_operand_aliasing") or ():
        if not 0 <= alias.operand_number < len(ctx.operands):
            raise _fail(f"Invalid aliasing operand index {alias.operand_number}.")
        operand = ctx.operands[alias.operand_number]
        if not _index_valid(operand, alias.operand_index):
            index = _join(alias.operand_index, ",")
            raise _fail(f"Invalid aliasing operand shape index {{{index}}}.")
        if not _index_valid(out, alias.output_index):
            index = _join(alias.output_index, ",")
            raise _fail(f"Invalid aliasing output shape index {{{index}}}.")
        a = out.subshape(tuple(alias.output_index))
        b = operand.subshape(tuple(alias.operand_index))
        if not _compat(a, b):
            raise _fail(f"Different aliasing shapes: {_hs(b)} vs {_hs(a)}")


def add_dependency(ctx: ShapeContext) -> Shape:
    """add-dependency(value, token): the value's shape."""
    _arity(ctx, 2)
    if not ctx.operands[1].is_token:
        raise _fail(
            f"Expected operand 1 to be token-shaped, actual shape is {_hs(ctx.operands[1])}"
        )
    return _keep(ctx.operands[0])


def token(ctx: ShapeContext) -> Shape:
    """after-all: token[] from any number of tokens."""
    for i, s in enumerate(ctx.operands):
        if not s.is_token:
            raise _fail(
                f"All operands to {ctx.opcode} must be tokens; operand {i} is {_hs(s)}"
            )
    return Shape.token()


# ======================================================================================
# Async
# ======================================================================================


def async_start(ctx: ShapeContext) -> Shape:
    """((operand shapes...), wrapped result, context...): element 0 matches the wrapped
    computation's parameters and the operands, element 1 its result."""
    comp = ctx.attrs.get("calls")
    if comp is None:
        # Sugar form (`negate-start`) without a resolved wrapped computation: only the
        # tuple structure and the operands can be checked.
        out = _need_declared(ctx)
        _check_async_shape(ctx.opcode, out, None)
        params0 = out.tuple_shapes[0]
        calls = ProgramShape(
            params0.tuple_shapes if params0.is_tuple else (params0,), out.tuple_shapes[1]
        )
    else:
        calls = comp.program_shape
    params = Shape.tuple_of(list(calls.parameters))
    if ctx.declared is None:
        return Shape.tuple_of([Shape.tuple_of(list(ctx.operands)), calls.result])
    out = ctx.declared
    _check_async_shape(ctx.opcode, out, calls)
    if len(ctx.operands) != len(params.tuple_shapes):
        raise _fail(
            f"The {ctx.opcode} has {len(ctx.operands)} operands but its wrapped computation takes "
            f"{len(params.tuple_shapes)} parameters."
        )
    for i, operand in enumerate(ctx.operands):
        if not _compat(out.tuple_shapes[0].tuple_shapes[i], operand):
            raise _fail(
                f"The {ctx.opcode} expects the shape of operand {i} to match the async shape at "
                f"index {{0}} ({_hs(operand)} vs {_hs(out.tuple_shapes[0].tuple_shapes[i])})."
            )
    return out


def _check_async_shape(opcode: str, shape: Shape, calls: ProgramShape | None) -> None:
    if not shape.is_tuple or len(shape.tuple_shapes) < 2:
        raise _fail(
            f"The {opcode} expects the async shape to be a tuple of at least two elements, "
            f"found {_hs(shape)}."
        )
    if calls is None:
        return
    params = Shape.tuple_of(list(calls.parameters))
    if not _compat(shape.tuple_shapes[0], params):
        raise _fail(
            f"The {opcode} expects the async shape at index {{0}} to match async computation "
            f"parameter shape ({_hs(shape.tuple_shapes[0])} vs {_hs(params)})."
        )
    if not _compat(shape.tuple_shapes[1], calls.result):
        raise _fail(
            f"The {opcode} expects the async shape at index {{1}} to match the async "
            f"computation root shape ({_hs(shape.tuple_shapes[1])} vs {_hs(calls.result)})."
        )


def async_done(ctx: ShapeContext) -> Shape:
    """async-done: element 1 of the async-start/-update tuple."""
    _arity(ctx, 1)
    calls = ctx.attrs.get("calls")
    program = calls.program_shape if calls is not None else None
    _check_async_shape(ctx.opcode, ctx.operands[0], program)
    return ctx.operands[0].tuple_shapes[1]


def copy_start(ctx: ShapeContext) -> Shape:
    """copy-start: (dest, src, u32[]) with dest and src shaped like the operand."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    return _prefer_declared(ctx, Shape.tuple_of([operand, operand, Shape.scalar(P.U32)]))


def copy_done(ctx: ShapeContext) -> Shape:
    """copy-done: the dest of a copy-start's (dest, src, context) tuple."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    if not operand.is_tuple or len(operand.tuple_shapes) < 2:
        raise _fail(f"copy-done expects a copy-start tuple operand, got {_hs(operand)}")
    dest, src = operand.tuple_shapes[0], operand.tuple_shapes[1]
    if not _compat(dest, src):
        raise _fail(
            "Source and destination buffers in CopyDone arguments need to be the same shape "
            f"found {_hs(dest)} and {_hs(src)}"
        )
    return dest
