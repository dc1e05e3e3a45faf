"""Reductions, windows, scan, sort, top-k and map."""

from __future__ import annotations

from hlotool.ir.shape_rules.context import ShapeContext
from hlotool.ir.shape_rules.shape_util import (
    P,
    _arity,
    _attr,
    _compat,
    _dyn_flags,
    _expect_array,
    _fail,
    _hs,
    _is_dyn,
    _is_scalar,
    _join,
    _keep,
    _mk,
    _one_dim,
    _program,
    _same_et_ignoring_fp,
    _verify_reducer,
    _window_output_shape,
)
from hlotool.ir.types import UNBOUNDED, Shape


def reduce(ctx: ShapeContext) -> Shape:
    """InferReduceShape: N inputs, N inits; to_apply takes 2N scalars."""
    args = list(ctx.operands)
    if not args:
        raise _fail("Reduce must have at least 2 arguments, has 0")
    if len(args) % 2:
        raise _fail(f"Reduce must have an even number of arguments, has {len(args)}")
    n = len(args) // 2
    inputs, inits = args[:n], args[n:]
    for s in inputs:
        _expect_array(s, "operand of reduce")
    for i in range(1, n):
        if inputs[0].dimensions != inputs[i].dimensions:
            raise _fail(
                "All reduced tensors must have compatible dimension. Tensor at index 0 has "
                f"shape {_hs(inputs[0])}, and tensor at index {i} has shape {_hs(inputs[i])}."
            )
    arg = inputs[0]
    dims = tuple(_attr(ctx, "dimensions"))
    for d in dims:
        if d >= arg.rank or d < 0:
            raise _fail(f"Reducing out-of-bounds dimension {d} in shape {_hs(arg)}.")
    to_apply = _program(ctx, "to_apply")
    _verify_reducer(to_apply, inits, [s.element_type for s in inputs], n)
    seen: set[int] = set()
    for d in dims:
        if d in seen:
            raise _fail(f"Duplicate reduction dimension: {d}")
        seen.add(d)
    kept = [i for i in range(arg.rank) if i not in seen]
    new_dims = [arg.dimensions[i] for i in kept]
    new_dyn = [_is_dyn(arg, i) for i in kept]
    result = to_apply.result
    if result.is_array:
        return _mk(result.element_type, new_dims, new_dyn)
    return Shape.tuple_of([_mk(s.element_type, new_dims, new_dyn) for s in result.tuple_shapes])


def reduce_window(ctx: ShapeContext) -> Shape:
    """InferReduceWindowShape (variadic): each output is the window output shape of its
    input, with the init value's element type."""
    args = list(ctx.operands)
    if not args or len(args) % 2:
        raise _fail(f"Reduce window must have an even number of arguments, has {len(args)}")
    n = len(args) // 2
    inputs, inits = args[:n], args[n:]
    for i in range(1, n):
        if inputs[0].dimensions != inputs[i].dimensions:
            raise _fail(
                "All reduced tensors must have the same dimension. Tensor 0 has shape "
                f"{_hs(inputs[0])}, Tensor {i} has shape {_hs(inputs[i])}"
            )
    to_apply = _program(ctx, "to_apply")
    _verify_reducer(to_apply, inits, [s.element_type for s in inputs], n)
    window = ctx.attrs.get("window")
    outputs = []
    for operand, init in zip(inputs, inits, strict=True):
        _expect_array(operand, "operand of reduce-window")
        outputs.append(_window_output_shape(operand, window, init.element_type))
    if to_apply.result.is_array:
        return outputs[0]
    return Shape.tuple_of(outputs)


def select_and_scatter(ctx: ShapeContext) -> Shape:
    """InferSelectAndScatterShape: source must equal the window output; result = operand."""
    _arity(ctx, 3)
    operand, source, init = ctx.operands
    _expect_array(operand, "operand of select-and-scatter")
    select_shape = _program(ctx, "select")
    if len(select_shape.parameters) != 2:
        raise _fail(
            "Select function must take 2 parameters, but takes "
            f"{len(select_shape.parameters)} parameter(s)."
        )
    if not _compat(select_shape.result, Shape.scalar(P.PRED)):
        raise _fail("Select function must have rank-0 PRED result.")
    element = Shape.scalar(operand.element_type)
    for which, param in zip(("first", "second"), select_shape.parameters, strict=True):
        if not _compat(element, param, ignore_fp=True):
            raise _fail(
                f"Select function's {which} parameter shape currently must match the operand "
                f"element shape, but got {_hs(param)} vs {_hs(element)}."
            )
    _verify_reducer(_program(ctx, "scatter"), [init], [source.element_type], 1)
    window_result = _window_output_shape(operand, ctx.attrs.get("window"), operand.element_type)
    if not _compat(source, window_result, ignore_fp=True):
        raise _fail(
            "Source shape does not match the shape of window-reduced operand: "
            f"source({_hs(source)}), window-reduced operand({_hs(window_result)})."
        )
    return _keep(operand)


def scan(ctx: ShapeContext) -> Shape:
    """scan: operands are the inputs then `num_carries` inits; to_apply takes one slice of
    each input (the scan dimension removed) then the carries, and returns
    (outputs..., carries...) (a bare array when it has one element). The result stacks
    each output along the scan dimension, then the final carries (same tuple/bare form)."""
    args = list(ctx.operands)
    num_carries = _attr(ctx, "num_carries")
    if not 0 <= num_carries <= len(args):
        raise _fail(
            f"Scan num_carries={num_carries} is out of range for {len(args)} operand(s)."
        )
    inputs, inits = args[: len(args) - num_carries], args[len(args) - num_carries :]
    if not inputs:
        raise _fail("Scan needs at least one input to scan over.")
    dim = _one_dim(ctx)
    for s in inputs:
        _expect_array(s, "input of scan")
        if not 0 <= dim < s.rank:
            raise _fail(f"Scan dimension {dim} is out of bounds for input {_hs(s)}.")
    length = inputs[0].dimensions[dim]
    for s in inputs[1:]:
        if s.dimensions[dim] != length:
            raise _fail(
                f"All scan inputs must have the same size in the scan dimension {dim}; got "
                f"{_hs(inputs[0])} and {_hs(s)}."
            )
    body = _program(ctx, "to_apply")
    if len(body.parameters) != len(args):
        raise _fail(
            f"Scan function must take {len(args)} parameters, but takes "
            f"{len(body.parameters)} parameter(s)."
        )
    for i, s in enumerate(inputs):
        sliced = _mk(
            s.element_type,
            s.dimensions[:dim] + s.dimensions[dim + 1 :],
            _dyn_flags(s)[:dim] + _dyn_flags(s)[dim + 1 :],
        )
        if not _compat(sliced, body.parameters[i], ignore_fp=True):
            raise _fail(
                f"Scan function's {i}-th parameter shape must match a slice of input {i}: "
                f"{_hs(body.parameters[i])} vs {_hs(sliced)}"
            )
    for j, init in enumerate(inits):
        param = body.parameters[len(inputs) + j]
        if not _compat(init, param, ignore_fp=True):
            raise _fail(
                f"Scan function's {len(inputs) + j}-th parameter shape must match the init "
                f"value {j}: {_hs(param)} vs {_hs(init)}"
            )
    result = body.result
    parts = result.tuple_shapes if result.is_tuple else (result,)
    num_outputs = len(parts) - num_carries
    if num_outputs < 0:
        raise _fail(
            f"Scan function must return at least {num_carries} element(s) for the carries, "
            f"but returns {_hs(result)}"
        )
    for j in range(num_carries):
        part, init = parts[num_outputs + j], inits[j]
        if not _compat(part, init, ignore_fp=True):
            raise _fail(
                f"Scan function's carry result {j} must match the init value: "
                f"{_hs(part)} vs {_hs(init)}"
            )
    stacked = []
    for part in parts[:num_outputs]:
        _expect_array(part, "output of scan function")
        if dim > part.rank:
            raise _fail(f"Scan dimension {dim} is out of bounds for output {_hs(part)}.")
        flags = _dyn_flags(part)
        stacked.append(
            _mk(
                part.element_type,
                (*part.dimensions[:dim], length, *part.dimensions[dim:]),
                [*flags[:dim], _is_dyn(inputs[0], dim), *flags[dim:]],
            )
        )
    carries = [_mk(p.element_type, p.dimensions, _dyn_flags(p)) if p.is_array else p
               for p in parts[num_outputs:]]
    if result.is_tuple:
        return Shape.tuple_of([*stacked, *carries])
    return (stacked + carries)[0]


def sort(ctx: ShapeContext) -> Shape:
    """Sort: same dims for every operand; comparator takes 2N scalars, returns pred[]."""
    args = list(ctx.operands)
    if not args:
        raise _fail("Expected at least 1 operand for sort instruction")
    comparator = _program(ctx, "to_apply")
    if not _compat(comparator.result, Shape.scalar(P.PRED)):
        raise _fail(
            "The Sort compare computation shape does not lead to a scalar predicate shape: "
            f"{_hs(comparator.result)}"
        )
    if len(comparator.parameters) != 2 * len(args):
        raise _fail(
            f"Expected the compare computation of sort to have {2 * len(args)} parameters, "
            f"has {len(comparator.parameters)}"
        )
    for i, param in enumerate(comparator.parameters):
        expected = Shape.scalar(args[i // 2].element_type)
        if not _compat(expected, param, ignore_fp=True):
            raise _fail(
                f"Expected the {i}-th parameter of the compare computation of sort to have "
                f"shape {_hs(expected)}, but got {_hs(param)}"
            )
    for i in range(1, len(args)):
        if args[0].dimensions != args[i].dimensions:
            raise _fail(
                "Sort keys and values dimensions must match. Keys shape is: "
                f"{_hs(args[0])}\n, Values shape (operand index {i}) is: {_hs(args[i])}"
            )
    dim = _one_dim(ctx)
    if not 0 <= dim < args[0].rank:
        raise _fail(
            f"Expected the sort_dimension {dim} of sort to be smaller than the rank "
            f"{args[0].rank} of the operand(s)."
        )
    return _keep(args[0] if len(args) == 1 else Shape.tuple_of(args))


def topk(ctx: ShapeContext) -> Shape:
    """InferTopKShape: the last dimension becomes k; (values, s32 indices)."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    k = _attr(ctx, "k")
    _expect_array(operand, "operand of top-k operation")
    if operand.rank == 0:
        raise _fail(f"The operand of top-k must have rank >= 1, got {_hs(operand)}.")
    last = operand.rank - 1
    if operand.dimensions[last] != UNBOUNDED and operand.dimensions[last] < k:
        raise _fail(
            f"k={k} is larger than the last dimension of size={operand.dimensions[last]}"
        )
    if k < 0:
        raise _fail(f"k must be non-negative, got {k}")
    dims = (*operand.dimensions[:last], k)
    dyn = [*_dyn_flags(operand)[:last], False]
    values = _mk(operand.element_type, dims, dyn)
    return Shape.tuple_of([values, _mk(P.S32, dims, dyn)])


def map_(ctx: ShapeContext) -> Shape:
    """InferMapShape: all operands the same dims; scalar computation of matching arity."""
    args = list(ctx.operands)
    if not args:
        raise _fail("Map expects at least one argument.")
    arg = args[0]
    _expect_array(arg, "operand of map")
    for s in args[1:]:
        _expect_array(s, "operand of map")
        if _compat(s, arg, ignore_et=True):
            continue
        if _same_et_ignoring_fp(s, arg):
            if s.rank == 0:
                continue
            if arg.rank == 0:
                arg = s
                continue
        raise _fail(
            "Map operation requires all operands to have the same shape; got: "
            + ", ".join(_hs(a) for a in args)
            + "."
        )
    dims = ctx.attrs.get("dimensions")
    dims = tuple(range(max(a.rank for a in args))) if dims is None else tuple(dims)
    if len(dims) != arg.rank:
        raise _fail(
            "Map applied to a subset of dimensions currently not supported: "
            f"arg_dimension_size: {arg.rank}, requested_map_dimensions_size: {len(dims)}."
        )
    for i, d in enumerate(dims):
        if d != i:
            raise _fail(
                f"Map requires monotonically increasing dimension numbers; got: {_join(dims)}."
            )
    to_apply = _program(ctx, "to_apply")
    if len(args) != len(to_apply.parameters):
        raise _fail(
            "Map applied function arity must match number of arguments; got: arity: "
            f"{len(to_apply.parameters)}, arguments: {len(args)}."
        )
    if not _is_scalar(to_apply.result):
        raise _fail(f"Mapped computation's result has to be a scalar; got: {_hs(to_apply.result)}.")
    for i, param in enumerate(to_apply.parameters):
        if not _is_scalar(param):
            raise _fail(
                "Mapped computation's parameter has to be a scalar; got parameter "
                f"{i} shape: {_hs(param)}."
            )
        if not _same_et_ignoring_fp(param, args[i]):
            raise _fail(
                "Mapped computation's parameter type has to match argument element type; got "
                f"parameter {i} shape: {_hs(param)}, argument shape: {_hs(arg)}."
            )
    return _mk(to_apply.result.element_type, arg.dimensions, _dyn_flags(arg))
