"""Helpers in the vocabulary of XLA's ShapeUtil and primitive_util, shared by the rules:
shape text, compatibility, precision, attribute access, windows and reducers."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from hlotool.ir.shape_rules.context import ProgramShape, ShapeContext, ShapeError
from hlotool.ir.types import UNBOUNDED, Layout, PrimitiveType, Shape

P = PrimitiveType
_INT32_MAX = 2**31 - 1


def _fail(message: str) -> ShapeError:
    return ShapeError(message)


def _tname(t: PrimitiveType) -> str:
    """PrimitiveType_Name: `F32`, `PRED`, `F8E4M3FN`, ..."""
    return t.value.upper()


def _hs(s: Shape) -> str:
    """ShapeUtil::HumanString (no layouts)."""
    if s.is_tuple:
        return "(" + ", ".join(_hs(x) for x in s.tuple_shapes) + ")"
    if s.element_type is P.BUFFER:
        return f"b({_hs(s.tuple_shapes[0])})"
    if not s.is_array:
        return f"{s.element_type.value}[]"
    dims = []
    for i, d in enumerate(s.dimensions):
        if d == UNBOUNDED:
            dims.append("?")
        elif s.dynamic and s.dynamic[i]:
            dims.append(f"<={d}")
        else:
            dims.append(str(d))
    return f"{s.element_type.value}[{','.join(dims)}]"


def _hps(p: ProgramShape) -> str:
    """ShapeUtil::HumanString(ProgramShape), without parameter names."""
    return "(" + ", ".join(_hs(s) for s in p.parameters) + ") -> " + _hs(p.result)


def _join(xs: Sequence[int], sep: str = ", ") -> str:
    return sep.join(str(x) for x in xs)


def _is_unbounded(s: Shape, i: int) -> bool:
    return s.dimensions[i] == UNBOUNDED


def _is_dyn(s: Shape, i: int) -> bool:
    return s.dimensions[i] == UNBOUNDED or bool(s.dynamic and s.dynamic[i])


def _is_bounded_dyn(s: Shape, i: int) -> bool:
    return s.dimensions[i] != UNBOUNDED and bool(s.dynamic and s.dynamic[i])


def _dyn_flags(s: Shape) -> list[bool]:
    return [_is_dyn(s, i) for i in range(s.rank)]


def _norm_dyn(dims: Sequence[int], dyn: Sequence[bool] | None) -> tuple[bool, ...]:
    if not dyn:
        return ()
    flags = tuple(bool(f) and d != UNBOUNDED for d, f in zip(dims, dyn, strict=True))
    return flags if any(flags) else ()


def _mk(et: PrimitiveType, dims: Sequence[int], dyn: Sequence[bool] | None = None) -> Shape:
    """ShapeUtil::MakeShape: default layout."""
    dims = tuple(dims)
    return Shape.array(et, dims, True, _norm_dyn(dims, dyn))


def _layout_of(s: Shape) -> Layout:
    if s.layout is not None and len(s.layout.minor_to_major) == s.rank:
        return s.layout
    return Layout.default_for_rank(s.rank)


def _reshape_like(
    s: Shape,
    et: PrimitiveType | None = None,
    dims: Sequence[int] | None = None,
    dyn: Sequence[bool] | None = None,
) -> Shape:
    """A copy of array shape `s` (keeping its layout) with some fields replaced."""
    new_dims = s.dimensions if dims is None else tuple(dims)
    if dyn is None:
        flags = _norm_dyn(new_dims, _dyn_flags(s)) if dims is None else ()
    else:
        flags = _norm_dyn(new_dims, dyn)
    layout = _layout_of(s) if len(new_dims) == s.rank else Layout.default_for_rank(len(new_dims))
    return Shape(et or s.element_type, new_dims, layout, flags)


def _keep(s: Shape) -> Shape:
    """An operand shape returned as the result: arrays without a layout get the default
    one (XLA shapes always carry one)."""
    if s.is_tuple:
        parts = [_keep(x) for x in s.tuple_shapes]
        if all(a is b for a, b in zip(parts, s.tuple_shapes, strict=True)):
            return s
        return Shape.tuple_of(parts)
    if s.is_array and s.layout is None:
        return s.with_layout(Layout.default_for_rank(s.rank))
    return s


def _change_et(s: Shape, et: PrimitiveType) -> Shape:
    """ShapeUtil::ChangeElementType (keeps dims, dynamism and layout)."""
    return _reshape_like(s, et=et)


def _fp(t: PrimitiveType) -> bool:
    return t.is_float


def _same_et_ignoring_fp(a: Shape, b: Shape) -> bool:
    """ShapeUtil::SameElementTypeIgnoringFpPrecision."""
    if _fp(a.element_type) and _fp(b.element_type):
        return True
    return a.element_type is b.element_type


def _dims_compatible(a: Shape, b: Shape) -> bool:
    if a.rank != b.rank:
        return False
    return all(
        x == y or x == UNBOUNDED or y == UNBOUNDED
        for x, y in zip(a.dimensions, b.dimensions, strict=True)
    )


def _compat(a: Shape, b: Shape, *, ignore_et: bool = False, ignore_fp: bool = False) -> bool:
    """ShapeUtil::Compatible and friends: layouts and dynamic markers are ignored, an
    unbounded dimension matches any size."""
    if a.is_tuple or b.is_tuple:
        return (
            a.is_tuple
            and b.is_tuple
            and len(a.tuple_shapes) == len(b.tuple_shapes)
            and all(
                _compat(x, y, ignore_et=ignore_et, ignore_fp=ignore_fp)
                for x, y in zip(a.tuple_shapes, b.tuple_shapes, strict=True)
            )
        )
    if a.element_type is P.BUFFER or b.element_type is P.BUFFER:
        return (
            a.element_type is b.element_type
            and _compat(
                a.tuple_shapes[0], b.tuple_shapes[0], ignore_et=ignore_et, ignore_fp=ignore_fp
            )
        )
    if not a.is_array or not b.is_array:
        return a.element_type is b.element_type
    if not ignore_et:
        if ignore_fp:
            if not _same_et_ignoring_fp(a, b):
                return False
        elif a.element_type is not b.element_type:
            return False
    return _dims_compatible(a, b)


@functools.cache
def _fp_props(t: PrimitiveType) -> tuple[int, int]:
    import ml_dtypes

    fi = ml_dtypes.finfo(t.numpy_dtype)
    return int(fi.maxexp), int(fi.nmant) + 1


def _bit_width(t: PrimitiveType) -> int:
    return 1 if t is P.PRED else t.bits


def _higher_precision(a: PrimitiveType, b: PrimitiveType) -> PrimitiveType:
    """primitive_util::HigherPrecisionType."""
    if a is b:
        return a

    def props(t: PrimitiveType) -> tuple[bool, int, int, int, bool]:
        c = t.component_type if t.is_complex else t
        exp, digits = _fp_props(c) if c.is_float else (-1, -1)
        return (t.is_complex, exp, digits, _bit_width(c), c.is_signed_int)

    return b if props(b) > props(a) else a


def _higher(a: Shape, b: Shape) -> PrimitiveType:
    return _higher_precision(a.element_type, b.element_type)


def _expect_array(s: Shape, what: str) -> None:
    """ExpectArray."""
    if not s.is_array:
        raise _fail(f"Expected array argument for {what}, but got {_hs(s)}.")


def _attr(ctx: ShapeContext, key: str, default: Any = ...) -> Any:
    value = ctx.attrs.get(key, None)
    if value is None:
        if default is ...:
            raise _fail(f"{ctx.opcode} is missing the required attribute {key}")
        return default
    return value


def _program(ctx: ShapeContext, key: str) -> ProgramShape:
    comp = ctx.attrs.get(key)
    if comp is None:
        raise _fail(f"{ctx.opcode} is missing the required attribute {key}")
    return comp.program_shape


def _one_dim(ctx: ShapeContext, key: str = "dimensions") -> int:
    dims = tuple(_attr(ctx, key))
    if len(dims) != 1:
        raise _fail(
            f"{ctx.opcode} expects exactly one dimension in {key}, got {{{_join(dims, ',')}}}"
        )
    return dims[0]


def _arity(ctx: ShapeContext, n: int) -> None:
    if len(ctx.operands) != n:
        raise _fail(f"Expected {n} operands for {ctx.opcode} instruction, got {len(ctx.operands)}")


def _not_inferable(ctx: ShapeContext) -> ShapeError:
    return _fail(f"cannot infer shape for opcode: {ctx.opcode}")


def _expect_shape(inferred: Shape, declared_shape: Shape, *, ignore_fp: bool = False) -> None:
    """The verifier's CheckShape, for rules that return the declared shape."""
    if not _compat(inferred, declared_shape, ignore_fp=ignore_fp):
        raise _fail(
            f"Expected instruction to have shape equal to {_hs(inferred)}, "
            f"actual shape is {_hs(declared_shape)}"
        )


def _prefer_declared(ctx: ShapeContext, inferred: Shape) -> Shape:
    """The declared shape when it agrees with `inferred` (keeps its layouts), else
    `inferred` (so the verifier reports the mismatch)."""
    if ctx.declared is not None and _compat(ctx.declared, inferred):
        return ctx.declared
    return inferred


def _is_scalar(s: Shape) -> bool:
    return s.is_array and s.rank == 0


def _window_text(window: Any) -> str:
    dims = tuple(getattr(window, "dimensions", ()))
    if not dims:
        return "{}"

    def join(values: list[str]) -> str:
        return "x".join(values)

    parts = [f"size={join([str(d.size) for d in dims])}"]
    if any(d.stride != 1 for d in dims):
        parts.append(f"stride={join([str(d.stride) for d in dims])}")
    if any(d.padding_low or d.padding_high for d in dims):
        parts.append(f"pad={join([f'{d.padding_low}_{d.padding_high}' for d in dims])}")
    if any(d.base_dilation != 1 for d in dims):
        parts.append(f"lhs_dilate={join([str(d.base_dilation) for d in dims])}")
    if any(d.window_dilation != 1 for d in dims):
        parts.append(f"rhs_dilate={join([str(d.window_dilation) for d in dims])}")
    if any(d.window_reversal for d in dims):
        parts.append(f"rhs_reversal={join([str(int(d.window_reversal)) for d in dims])}")
    return "{" + " ".join(parts) + "}"


def _dilated_bound(bound: int, dilation: int) -> int:
    """window_util::DilatedBound."""
    if bound == 0:
        return 0
    return (bound - 1) * dilation + 1


def _strided_bound(bound: int, window_size: int, stride: int) -> int:
    """window_util::StridedBound."""
    if bound == 0 or window_size > bound:
        return 0
    return (bound - window_size) // stride + 1


def _window_output_shape(base: Shape, window: Any, et: PrimitiveType) -> Shape:
    """InferWindowOutputShape."""
    wdims = tuple(getattr(window, "dimensions", ()))
    if len(wdims) != base.rank:
        raise _fail(f"Window has dimension {len(wdims)} but base shape has dimension {base.rank}.")
    out: list[int] = []
    dyn: list[bool] = []
    for i, d in enumerate(wdims):
        text = _window_text(window)
        if d.size <= 0:
            raise _fail(f"Window {text} has a non-positive dimension.")
        if d.stride <= 0:
            raise _fail(f"Window {text} has a non-positive stride.")
        if d.base_dilation < 1:
            raise _fail(f"Window {text} has a non-positive base area dilation factor.")
        if d.window_dilation < 1:
            raise _fail(f"Window {text} has a non-positive window dilation factor.")
        if _is_unbounded(base, i):
            out.append(UNBOUNDED)
        else:
            dilated = _dilated_bound(base.dimensions[i], d.base_dilation)
            padded = d.padding_low + dilated + d.padding_high
            if padded < 0:
                raise _fail(
                    f"Window {text} pads dimension {i} of {_hs(base)} to a negative size "
                    f"({padded})."
                )
            out.append(_strided_bound(padded, _dilated_bound(d.size, d.window_dilation), d.stride))
        dyn.append(_is_bounded_dyn(base, i))
    return _mk(et, out, dyn)


def _verify_reducer(
    reducer: ProgramShape,
    init_shapes: Sequence[Shape],
    input_types: Sequence[PrimitiveType],
    inputs: int,
) -> None:
    """VerifyReducerShape."""
    if len(reducer.parameters) != inputs * 2:
        raise _fail(
            f"Reduction function must take {inputs * 2} parameters, but takes "
            f"{len(reducer.parameters)} parameter(s)."
        )
    acc = reducer.result
    if acc.is_array:
        if inputs != 1:
            raise _fail(
                f"Reduction function must produce a tuple with {inputs} elements, but "
                "produces a scalar"
            )
        acc_parts: tuple[Shape, ...] = (acc,)
    elif acc.is_tuple:
        if len(acc.tuple_shapes) != inputs:
            raise _fail(
                f"Reduction function must produce a tuple with {inputs} elements, but has "
                f"{len(acc.tuple_shapes)} elements"
            )
        acc_parts = acc.tuple_shapes
    else:
        raise _fail(
            "Reduction function must produce a scalar or tuple of scalars, but has shape: "
            f"{_hs(acc)}"
        )
    for part in acc_parts:
        if not part.is_array or part.rank != 0:
            raise _fail(
                "Reduction function must return a scalar or tuple of scalars but returns "
                f"shape: {_hs(acc)}"
            )
    for i in range(inputs):
        if not _compat(acc_parts[i], reducer.parameters[i]):
            raise _fail(
                f"Reduction function's {i}-th parameter shape differs from the result shape: "
                f"{_hs(reducer.parameters[i])} vs {_hs(acc_parts[i])}"
            )
        if not _compat(acc_parts[i], init_shapes[i], ignore_fp=True):
            raise _fail(
                f"Reduction function's accumulator shape at index {i} differs from the "
                f"init_value shape: {_hs(acc_parts[i])} vs {_hs(init_shapes[i])}"
            )
        element = Shape.scalar(input_types[i])
        param = reducer.parameters[inputs + i]
        if not _compat(element, param, ignore_fp=True):
            raise _fail(
                f"Reduction function's {inputs + i}-th parameter shape differs from the input "
                f"type element type: {_hs(param)} vs {_hs(element)}"
            )
        if not _compat(acc_parts[i], param, ignore_fp=True):
            raise _fail(
                f"Reduction function's {inputs + i}-th parameter shape must match the result "
                f"shape, but got {_hs(param)} vs {_hs(acc_parts[i])}."
            )


def _need_declared(ctx: ShapeContext) -> Shape:
    if ctx.declared is None:
        raise _not_inferable(ctx)
    return ctx.declared
