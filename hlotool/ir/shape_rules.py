"""Shape rules: one function per opcode family, named by the opcode table (`opcodes.OPS`).

A rule takes a ShapeContext and returns the result shape XLA infers, or raises ShapeError
with a message in XLA's words. For opcodes whose result cannot be inferred (convert,
reshape, custom-call, ...) the rule checks the declared shape against the operands and
returns it. The verifier compares a rule's answer with the declared shape (layouts
ignored); the parser uses it to fill in omitted result shapes.

The reference is XLA's `ShapeInference` (xla/service/shape_inference.cc) together with
the checks of its `ShapeVerifier` / `InstructionVerifier` (xla/service/hlo_verifier.cc),
as shipped in jaxlib 0.10.2. Behaviours checked against that jaxlib are recorded in
tests/ir/test_shape_rules.py. Notable points:

* Inferred shapes keep XLA's layouts: ops whose inference copies an operand shape
  (unary/binary elementwise, select, clamp, reverse, fft, ...) keep that operand's
  layout, transpose permutes it, everything built from scratch (reduce, dot, gather,
  pad, concatenate, ...) gets the default descending layout.
* Elementwise unary/binary ops (and compare) may not broadcast implicitly: XLA's
  inference accepts `add(f32[2,3], f32[])`, its verifier rejects it; so do we. Select
  (scalar pred) and clamp (scalar bounds) may.
* Mixed floating-point precisions are accepted where inference accepts them (the
  result takes the higher precision type), as XLA does with mixed precision allowed.
* Dynamic dimensions: `Shape.dynamic[i]` marks a bounded `<=N` dimension; unbounded
  `?` dimensions have size UNBOUNDED and never carry the flag in results built here.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hlotool.ir.types import UNBOUNDED, Layout, PrimitiveType, Shape


class ShapeError(Exception):
    """A shape rule was violated; the message says how, in XLA's words."""


@dataclass(frozen=True, slots=True)
class ProgramShape:
    """Parameter shapes and result shape of a computation."""

    parameters: tuple[Shape, ...]
    result: Shape


@dataclass(slots=True)
class ShapeContext:
    """What a shape rule sees of one instruction."""

    #: Opcode text spelling (e.g. "add"), to keep this module free of the table.
    opcode: str
    operands: Sequence[Shape]
    #: Typed attributes; computation-valued keys hold objects with a `.program_shape`.
    attrs: Mapping[str, Any]
    #: The shape written in the text, or None when omitted.
    declared: Shape | None

    def program(self, key: str) -> ProgramShape:
        return self.attrs[key].program_shape


P = PrimitiveType
_INT32_MAX = 2**31 - 1

# ======================================================================================
# Helpers: XLA's ShapeUtil / primitive_util vocabulary
# ======================================================================================


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


# ======================================================================================
# Leaves and "whatever the text says"
# ======================================================================================


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


# ======================================================================================
# Elementwise
# ======================================================================================

_FLOAT_ONLY_UNARY = frozenset(
    {"floor", "cbrt", "ceil", "erf", "round-nearest-afz", "round-nearest-even"}
)
_FLOAT_OR_COMPLEX_UNARY = frozenset(
    {
        "asin", "asinh", "acos", "acosh", "atan", "atanh", "cosh", "cosine", "sinh", "sine",
        "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "rsqrt",
        "sqrt", "tan", "tanh",
    }
)  # fmt: skip


def _infer_unary(opcode: str, s: Shape) -> Shape:
    """InferUnaryOpShape."""
    if opcode in ("copy", "domain"):
        return s
    _expect_array(s, "operand of unary operation")
    t = s.element_type
    if opcode in _FLOAT_ONLY_UNARY:
        if not t.is_float:
            raise _fail(
                f"Expected element type in shape to be floating for {opcode} operation; "
                f"got {_tname(t)}."
            )
        return s
    if opcode in _FLOAT_OR_COMPLEX_UNARY:
        if not (t.is_float or t.is_complex):
            raise _fail(
                f"Expected element type in shape to be floating or complex for {opcode} "
                f"operation; got {_tname(t)}."
            )
        return s
    if opcode in ("real", "imag"):
        if t.is_complex:
            return _change_et(s, t.component_type)
        if t.is_float:
            return s
        raise _fail(
            f"Expected element type in shape to be floating or complex for {opcode} "
            f"operation; got {_tname(t)}."
        )
    if opcode == "abs":
        if t.is_complex:
            return _change_et(s, t.component_type)
        if t.is_signed_int or t.is_float:
            return s
        raise _fail(
            f"Expected element type in shape to be floating or complex for {opcode} "
            f"operation; got {_tname(t)}."
        )
    if opcode == "count-leading-zeros":
        if not t.is_integral:
            raise _fail(
                "Expected an integral element type in argument to Clz operation; "
                f"got {_tname(t)}."
            )
        return s
    if opcode == "negate":
        if not (t.is_integral or t.is_float or t.is_complex):
            raise _fail(
                "Expected element type in shape to be integral, floating or complex for "
                f"{opcode} operation; got {_tname(t)}."
            )
        return s
    if opcode == "popcnt":
        if not t.is_integral:
            raise _fail(
                "Expected an integral element type in argument to PopulationCount operation; "
                f"got {_tname(t)}."
            )
        return s
    if opcode == "sign":
        if not (t.is_signed_int or t.is_float or t.is_complex):
            raise _fail(
                f"Expected element type in shape to be signed or complex for {opcode} "
                f"operation; got {_tname(t)}."
            )
        return s
    if opcode == "not":
        if not (t is P.PRED or t.is_integral):
            raise _fail(
                "Expected pred or an integral element type in argument to Not operation; "
                f"got {_tname(t)}."
            )
        return s
    if opcode == "is-finite":
        if not t.is_float:
            raise _fail(
                "Expected element type in shape to be floating point for IsFinite operation; "
                f"got {_tname(t)}."
            )
        return _change_et(s, P.PRED)
    raise _fail(f'Unknown operation for unary shape inference: "{opcode}".')


def elementwise_unary(ctx: ShapeContext) -> Shape:
    _arity(ctx, 1)
    return _keep(_infer_unary(ctx.opcode, ctx.operands[0]))


def _degenerate_broadcast(lhs: Shape, rhs: Shape) -> Shape:
    """InferDegenerateDimensionBroadcastShape."""
    dims: list[int] = []
    dyn: list[bool] = []
    for i in range(lhs.rank):
        a, b = lhs.dimensions[i], rhs.dimensions[i]
        if a == 1 or b == 1:
            dims.append(b if a == 1 else a)
            dyn.append(_is_dyn(rhs, i) if a == 1 else _is_dyn(lhs, i))
        elif a == b:
            dims.append(a)
            dyn.append(_is_dyn(lhs, i) or _is_dyn(rhs, i))
        elif a == UNBOUNDED or b == UNBOUNDED:
            dims.append(b if a == UNBOUNDED else a)
            dyn.append(_is_dyn(rhs, i) if a == UNBOUNDED else _is_dyn(lhs, i))
        else:
            raise _fail(f"Binary op with incompatible shapes: {_hs(lhs)} and {_hs(rhs)}.")
    return _mk(_higher(lhs, rhs), dims, dyn)


def _infer_elementwise_binary(opcode: str, lhs: Shape, rhs: Shape) -> Shape:
    """InferElementwiseBinaryOpShape (no broadcast_dimensions: HLO has none)."""
    _expect_array(lhs, "lhs of elementwise binary operation")
    _expect_array(rhs, "rhs of elementwise binary operation")
    if not _same_et_ignoring_fp(lhs, rhs):
        raise _fail(f"Binary op {opcode} with different element types: {_hs(lhs)} and {_hs(rhs)}.")
    if opcode == "atan2" and not (lhs.element_type.is_float or lhs.element_type.is_complex):
        raise _fail(
            f"Expected input element type to be floating or complex for {opcode} operation; "
            f"got {_tname(lhs.element_type)}."
        )
    unbounded = UNBOUNDED in lhs.dimensions or UNBOUNDED in rhs.dimensions
    if lhs.rank == rhs.rank and lhs.dimensions == rhs.dimensions and not unbounded:
        dyn = [_is_dyn(lhs, i) or _is_dyn(rhs, i) for i in range(lhs.rank)]
        return _reshape_like(lhs, et=_higher(lhs, rhs), dyn=dyn)
    if lhs.rank == rhs.rank:
        return _degenerate_broadcast(lhs, rhs)
    larger, smaller = (lhs, rhs) if lhs.rank > rhs.rank else (rhs, lhs)
    if smaller.rank != 0:
        raise _fail(f"Shapes must be equal rank, but are {_hs(smaller)} and {_hs(larger)}")
    return _degenerate_broadcast(_change_et(larger, _higher(larger, smaller)), larger)


_ARITHMETIC_BINARY = frozenset(
    {
        "subtract", "atan2", "power", "divide", "remainder", "shift-left",
        "shift-right-arithmetic", "shift-right-logical",
    }
)  # fmt: skip


def _infer_binary(opcode: str, lhs: Shape, rhs: Shape) -> Shape:
    """InferBinaryOpShape."""
    _expect_array(lhs, f"lhs of binary operation {opcode}")
    _expect_array(rhs, f"rhs of binary operation {opcode}")
    if opcode in ("add", "maximum", "minimum", "multiply", "mulhi"):
        return _infer_elementwise_binary(opcode, lhs, rhs)
    if opcode in _ARITHMETIC_BINARY:
        if lhs.element_type is P.PRED or rhs.element_type is P.PRED:
            raise _fail(
                "Expected element type in shape to be arithmetic type for operation "
                f"{opcode}; got PRED."
            )
        return _infer_elementwise_binary(opcode, lhs, rhs)
    if opcode == "complex":
        if not lhs.element_type.is_float:
            raise _fail(
                "Expected element type in shape to be floating for complex compose operation; "
                f"got {_tname(lhs.element_type)}."
            )
        shape = _infer_elementwise_binary(opcode, lhs, rhs)
        if lhs.element_type is P.F32 and rhs.element_type is P.F32:
            return _change_et(shape, P.C64)
        if lhs.element_type is P.F64 and rhs.element_type is P.F64:
            return _change_et(shape, P.C128)
        raise _fail("Complex component type is not implemented.")
    if opcode in ("and", "or", "xor"):
        t = lhs.element_type
        if not (t is P.PRED or t.is_integral):
            raise _fail(
                f"Expected pred or integral type in argument to and/or operation; got {_tname(t)}."
            )
        return _infer_elementwise_binary(opcode, lhs, rhs)
    if opcode == "compare":
        return _change_et(_infer_elementwise_binary(opcode, lhs, rhs), P.PRED)
    raise _fail(
        f"Binary op shape inference: {opcode}; lhs: {_hs(lhs)}; rhs: {_hs(rhs)} is not "
        "implemented."
    )


def _no_implicit_broadcast(opcode: str, result: Shape, operands: Sequence[Shape]) -> None:
    """The verifier's CheckElementwiseInstruction."""
    for operand in operands:
        if not _compat(operand, result, ignore_et=True):
            raise _fail(
                "Implicit broadcast is not allowed in HLO. Found different shapes for "
                f"instruction {opcode}. output: {_hs(result)}; operand: {_hs(operand)}"
            )


def elementwise_binary(ctx: ShapeContext) -> Shape:
    _arity(ctx, 2)
    result = _infer_binary(ctx.opcode, ctx.operands[0], ctx.operands[1])
    _no_implicit_broadcast(ctx.opcode, result, ctx.operands)
    return result


def _default_comparison_type(t: PrimitiveType) -> str:
    if t.is_float or t.is_complex:
        return "FLOAT"
    if t.is_signed_int:
        return "SIGNED"
    return "UNSIGNED"


def compare(ctx: ShapeContext) -> Shape:
    _arity(ctx, 2)
    _attr(ctx, "direction")
    result = _infer_binary("compare", ctx.operands[0], ctx.operands[1])
    _no_implicit_broadcast(ctx.opcode, result, ctx.operands)
    ctype = ctx.attrs.get("type")
    if ctype:
        operand = ctx.operands[1]
        t = operand.element_type
        if t.is_float:
            if ctype not in ("FLOAT", "TOTALORDER", "WEAKORDER"):
                raise _fail(
                    f"Expected comparison type FLOAT or TOTALORDER. actual: {ctype}; "
                    f"operand: {_hs(operand)}"
                )
        elif ctype != _default_comparison_type(t):
            raise _fail(
                f"Expected comparison type {_default_comparison_type(t)}. actual: {ctype}; "
                f"operand: {_hs(operand)}"
            )
    return result


def clamp(ctx: ShapeContext) -> Shape:
    """InferClampShape: min and max may be scalars."""
    _arity(ctx, 3)
    lo, x, hi = ctx.operands
    _expect_array(lo, "clamp min")
    _expect_array(x, "clamp operand")
    _expect_array(hi, "clamp max")
    if not (
        _same_et_ignoring_fp(lo, x) and _same_et_ignoring_fp(hi, x) and _same_et_ignoring_fp(lo, hi)
    ):
        raise _fail(
            f"Clamp with incompatible element types: {_hs(lo)}, {_hs(x)}, {_hs(hi)}."
        )
    if (
        (lo.rank and not _compat(lo, x, ignore_fp=True))
        or (hi.rank and not _compat(hi, x, ignore_fp=True))
        or (lo.rank and hi.rank and not _compat(lo, hi, ignore_fp=True))
    ):
        raise _fail(f"Clamp with incompatible shapes: {_hs(lo)}, {_hs(x)}, {_hs(hi)}.")
    return _keep(x)


def select(ctx: ShapeContext) -> Shape:
    """InferSelectShape: the predicate may be a scalar."""
    _arity(ctx, 3)
    pred, on_true, on_false = ctx.operands
    _expect_array(pred, "select pred")
    _expect_array(on_true, "select on-true")
    _expect_array(on_false, "select on-false")
    if not _compat(on_true, on_false, ignore_fp=True):
        raise _fail(
            f"Operands to select must be the same shape; got {_hs(on_true)} and {_hs(on_false)}."
        )
    if pred.element_type is not P.PRED:
        raise _fail(f"Select's pred operand must have PRED element type; got {_hs(pred)}.")
    if pred.rank and (
        not _compat(pred, on_true, ignore_et=True) or not _compat(pred, on_false, ignore_et=True)
    ):
        raise _fail(
            "Operands to select and predicate must be the same shape; got "
            f"{_hs(on_true)} and {_hs(on_false)} and {_hs(pred)}."
        )
    full = on_true if pred.rank == 0 else pred
    dims: list[int] = []
    dyn: list[bool] = []
    for i in range(full.rank):
        a, b = on_true.dimensions[i], on_false.dimensions[i]
        if a == UNBOUNDED or b == UNBOUNDED:
            dims.append(b if a == UNBOUNDED else a)
            dyn.append(_is_dyn(on_true, i) and _is_dyn(on_false, i))
        else:
            dims.append(full.dimensions[i])
            dyn.append(
                (pred.rank > 0 and _is_dyn(pred, i)) or _is_dyn(on_true, i) or _is_dyn(on_false, i)
            )
    return _reshape_like(full, et=_higher(on_true, on_false), dims=dims, dyn=dyn)


# ======================================================================================
# Conversions
# ======================================================================================


def convert(ctx: ShapeContext) -> Shape:
    """InferConvertShape with the declared element type (the text must declare it)."""
    _arity(ctx, 1)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    operand, out = ctx.operands[0], ctx.declared
    if not operand.is_array or not out.is_array:
        raise _fail(
            "Convert does not allow non-arrays, so cannot convert from "
            f"{_hs(operand)} to {_tname(out.element_type)}."
        )
    _expect_shape(_change_et(operand, out.element_type), out)
    return out


def _storage_bits(t: PrimitiveType) -> int:
    """Bits one element occupies: packed sub-byte types (1/2/4 bits) keep their width,
    pred and 6-bit floats take a byte."""
    bits = t.bits
    if bits in (1, 2, 4) and t is not P.PRED:
        return bits
    return max(8, -(-bits // 8) * 8)


def _infer_bitcast_convert(operand: Shape, new_type: PrimitiveType) -> Shape:
    """InferBitcastConvertShape."""
    old_type = operand.element_type
    if old_type.is_complex != new_type.is_complex:
        raise _fail(
            f"Conversion between complex and real type {_hs(operand)} => {_tname(new_type)}."
        )
    if not operand.is_array or not new_type.is_array_type:
        raise _fail(
            "Cannot convert from or to tuple type; requested conversion: "
            f"{_hs(operand)} => {_tname(new_type)}."
        )
    in_bits, out_bits = _storage_bits(old_type), _storage_bits(new_type)
    if max(in_bits, out_bits) % min(in_bits, out_bits):
        raise _fail(
            "Cannot bitcast types with undivisible bit-widths: "
            f"{_tname(old_type)} => {_tname(new_type)}."
        )
    ratio = max(in_bits, out_bits) // min(in_bits, out_bits)
    if in_bits > out_bits:
        # ShapeUtil::AppendMinorDimension: the new dimension is the most minor one.
        layout = _layout_of(operand)
        new_layout = Layout((operand.rank, *layout.minor_to_major))
        dyn = [*_dyn_flags(operand), False]
        dims = (*operand.dimensions, ratio)
        return Shape(new_type, dims, new_layout, _norm_dyn(dims, dyn))
    if in_bits < out_bits:
        last = operand.rank - 1
        if operand.rank == 0 or operand.dimensions[last] != ratio:
            got = operand.dimensions[last] if operand.rank else 0
            raise _fail(
                f"Last dimension of input shape={got} is not equal to ratio of bit-widths="
                f"{ratio} for bitcast-convert from {_hs(operand)} to {_tname(new_type)}"
            )
        layout = _layout_of(operand)
        m2m = tuple(d for d in layout.minor_to_major if d != last)
        return Shape(
            new_type,
            operand.dimensions[:last],
            Layout(m2m),
            _norm_dyn(operand.dimensions[:last], _dyn_flags(operand)[:last]),
        )
    return _change_et(operand, new_type)


def bitcast_convert(ctx: ShapeContext) -> Shape:
    """bitcast-convert across widths adds (narrowing) or removes (widening) a minor dim."""
    _arity(ctx, 1)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    _expect_shape(_infer_bitcast_convert(ctx.operands[0], ctx.declared.element_type), ctx.declared)
    return ctx.declared


def stochastic_convert(ctx: ShapeContext) -> Shape:
    """InferStochasticConvertShape with the declared element type."""
    _arity(ctx, 2)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    operand, random = ctx.operands
    _expect_array(operand, "lhs of stochastic convert operation")
    _expect_array(random, "rhs of stochastic convert operation")
    if not random.element_type.is_unsigned_int:
        raise _fail(
            "Random numbers for stochastic convert must be unsigned integers, but got: "
            f"{_hs(random)}"
        )
    if not operand.element_type.is_float:
        raise _fail(
            "Stochastic convert supports only floating point operand conversion, but got: "
            f"{_hs(operand)}"
        )
    if operand.element_type.bits != random.element_type.bits:
        raise _fail(
            "The random number is required to have same bits as the operand. But got random "
            f"bits: {random.element_type.bits}, operand bits: {operand.element_type.bits}"
        )
    if operand.dimensions != random.dimensions:
        raise _fail(
            "Stochastic convert operand shape does not match random tensor shape: "
            f"{_hs(operand)} vs {_hs(random)}."
        )
    _expect_shape(_change_et(operand, ctx.declared.element_type), ctx.declared)
    return ctx.declared


def same_as_operand(ctx: ShapeContext) -> Shape:
    """copy, domain, opt-barrier, async-update: the operand's shape; reduce-precision
    additionally checks its bit counts."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    if ctx.opcode == "async-update":
        calls = ctx.attrs.get("calls")
        _check_async_shape(ctx.opcode, operand, calls.program_shape if calls is not None else None)
    if ctx.opcode == "reduce-precision":
        if not operand.is_array or not operand.element_type.is_float:
            raise _fail(
                "Expected element type in shape to be floating point for ReducePrecision "
                f"operation; got {_tname(operand.element_type)}."
            )
        exponent_bits = _attr(ctx, "exponent_bits")
        mantissa_bits = _attr(ctx, "mantissa_bits")
        if exponent_bits < 1:
            raise _fail(f"Expected exponent_bits >= 1; got {exponent_bits}.")
        if mantissa_bits < 0:
            raise _fail(f"Expected non-negative mantissa_bits; got {mantissa_bits}.")
    return _keep(operand)


# ======================================================================================
# Data movement
# ======================================================================================


def bitcast(ctx: ShapeContext) -> Shape:
    """A bitcast reinterprets the buffer: the result must be declared and hold as many
    bytes as the operand."""
    _arity(ctx, 1)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    operand, out = ctx.operands[0], ctx.declared
    if operand.is_array and out.is_array and not operand.is_dynamic and not out.is_dynamic:
        if operand.byte_size != out.byte_size:
            raise _fail(
                f"Bitcast cannot have different shape sizes of output ({out.byte_size}) and "
                f"operand ({operand.byte_size}) ({_hs(out)}) ({_hs(operand)})"
            )
    return out


def broadcast(ctx: ShapeContext) -> Shape:
    """HLO broadcast: `dimensions[i]` is the result dimension operand dimension i maps to
    (strictly increasing, equal sizes). Without a declared shape, XLA's parser infers
    `dimensions ++ operand dims` (it treats `dimensions` as prepended sizes); we match."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    _expect_array(operand, "operand of broadcast")
    dims = tuple(ctx.attrs.get("dimensions") or ())
    out = ctx.declared
    if out is None:
        for size in dims:
            if size < 0:
                raise _fail(f"Broadcast with negative dimension size {size}.")
        dyn = [False] * len(dims) + _dyn_flags(operand)
        return _mk(operand.element_type, (*dims, *operand.dimensions), dyn)
    if not out.is_array or out.element_type is not operand.element_type:
        raise _fail(
            f"Broadcast changes the element type: {_hs(operand)} -> {_hs(out)}"
        )
    if len(dims) != operand.rank:
        raise _fail(
            f"Broadcast HLO has invalid number of dimensions: {len(dims)} != {operand.rank} "
            f"(operand {_hs(operand)})"
        )
    for i, d in enumerate(dims):
        if not 0 <= d < out.rank:
            raise _fail(
                f"Broadcast dimension {d} of operand dimension {i} is out of range for "
                f"result {_hs(out)}"
            )
        if out.dimensions[d] != operand.dimensions[i]:
            raise _fail(
                f"Broadcast operand dimension {i} (size {operand.dimensions[i]}) does not "
                f"match result dimension {d} (size {out.dimensions[d]}): "
                f"{_hs(operand)} -> {_hs(out)}"
            )
        if i and dims[i - 1] >= d:
            raise _fail(
                f"Broadcast dimensions should be ordered, got: {{{_join(dims, ',')}}}"
            )
    return out


def _merge_dim(dim: int, left: int, right: int, lb: int, rb: int) -> tuple[int, int]:
    """InferMostSpecificDimAndBound (sizes and bounds; UNBOUNDED = unknown)."""
    size = bound = UNBOUNDED
    if lb != UNBOUNDED or rb != UNBOUNDED:
        if lb != UNBOUNDED and rb != UNBOUNDED and lb != rb:
            raise _fail(f"Mismatched bound sizes {lb} and {rb} in dimension {dim}")
        bound = lb if lb != UNBOUNDED else rb
    if left != UNBOUNDED or right != UNBOUNDED:
        if left != UNBOUNDED and right != UNBOUNDED and left != right:
            raise _fail(f"Mismatched dimension sizes {left} and {right} in dimension {dim}")
        size = left if left != UNBOUNDED else right
        if bound != UNBOUNDED and size != bound:
            raise _fail(f"Mismatched dimension size {size} and bound {bound} in dimension {dim}")
    return size, bound


def concatenate(ctx: ShapeContext) -> Shape:
    """InferConcatOpShape."""
    shapes = list(ctx.operands)
    if not shapes:
        raise _fail("Concatenate expects at least one argument.")
    dimension = _one_dim(ctx)
    if not 0 <= dimension < (shapes[0].rank if shapes[0].is_array else 0):
        raise _fail(f"Concatenate dimension out of bounds: {dimension}.")
    first = shapes[0]
    et = first.element_type
    for s in shapes:
        _expect_array(s, "operand of concatenation")
        if s is first:
            continue
        if s.rank != first.rank:
            raise _fail(
                f"Cannot concatenate arrays with different ranks: {first.rank} ({_hs(first)}) "
                f"vs {s.rank} ({_hs(s)})."
            )
        if not _same_et_ignoring_fp(first, s):
            raise _fail(
                "Cannot concatenate arrays with different element types: "
                f"{_tname(first.element_type)} vs {_tname(s.element_type)}."
            )
        for d in range(first.rank):
            a, b = first.dimensions[d], s.dimensions[d]
            if d != dimension and a != b and a != UNBOUNDED and b != UNBOUNDED:
                raise _fail(
                    "Cannot concatenate arrays that differ in dimensions other than the one "
                    f"being concatenated. Dimension {d} in both shapes must be equal (or "
                    f"compatible): {_hs(first)} vs {_hs(s)}."
                )
        et = _higher_precision(s.element_type, et)
    rank = first.rank
    sizes = [UNBOUNDED] * rank
    bounds = [UNBOUNDED] * rank
    sizes[dimension] = 0
    for s in shapes:
        for d in range(rank):
            size = s.dimensions[d]
            bound = size if _is_bounded_dyn(s, d) else UNBOUNDED
            if d == dimension:
                left, lb = sizes[d], bounds[d]
                new_size = left + size if left != UNBOUNDED and size != UNBOUNDED else UNBOUNDED
                new_bound = UNBOUNDED
                if lb != UNBOUNDED or bound != UNBOUNDED:
                    lbs = lb if lb != UNBOUNDED else left
                    rbs = bound if bound != UNBOUNDED else size
                    if lbs != UNBOUNDED and rbs != UNBOUNDED:
                        new_bound = lbs + rbs
                sizes[d], bounds[d] = new_size, new_bound
            else:
                sizes[d], bounds[d] = _merge_dim(d, sizes[d], size, bounds[d], bound)
    # A bounded result dimension is written as its bound with the dynamic marker.
    dims = [bounds[d] if bounds[d] != UNBOUNDED else sizes[d] for d in range(rank)]
    dyn = [bounds[d] != UNBOUNDED for d in range(rank)]
    return _mk(et, dims, dyn)


def dynamic_reshape(ctx: ShapeContext) -> Shape:
    if ctx.declared is None:
        raise _not_inferable(ctx)
    if not ctx.operands:
        raise _fail("dynamic-reshape expects at least one operand")
    operand, out = ctx.operands[0], ctx.declared
    _expect_array(operand, "operand of dynamic reshape")
    if not out.is_array or out.element_type is not operand.element_type:
        raise _fail(
            f"DynamicReshape changes the element type: {_hs(operand)} -> {_hs(out)}"
        )
    for size in ctx.operands[1:]:
        if size.element_type is not P.S32 or size.rank != 0:
            raise _fail(f"DynamicReshape's dim size has to be scalar S32, got ({_hs(size)}): ")
    if out.rank + 1 != len(ctx.operands):
        raise _fail(
            f"DynamicReshape of {_hs(out)} needs {out.rank} dimension size operands, got "
            f"{len(ctx.operands) - 1}"
        )
    if UNBOUNDED not in operand.dimensions and UNBOUNDED not in out.dimensions:
        if operand.element_count != out.element_count:
            raise _fail(
                "Reshape operation has mismatched element counts: from="
                f"{operand.element_count} ({_hs(operand)}) to={out.element_count} ({_hs(out)})."
            )
    return out


def _check_index_operands(kind: str, operand: Shape, indices: Sequence[Shape]) -> None:
    """The index checks shared by dynamic-slice and dynamic-update-slice."""
    if indices and indices[0].is_array and indices[0].rank == 1:
        if len(indices) != 1:
            raise _fail(f"{kind} should have exactly 1 index operand, has {len(indices)}.")
        idx = indices[0]
        if not idx.element_type.is_integral:
            raise _fail(f"{kind} start indices must be of integral type.")
        if operand.rank != idx.dimensions[0]:
            raise _fail(
                f"{kind} start number of dimensions {idx.dimensions[0]} ({_hs(idx)}) must match "
                f"rank {operand.rank} of slice input ({_hs(operand)})."
            )
        return
    if operand.rank != len(indices):
        raise _fail(
            f"{kind} start number of dimensions {len(indices)} must match rank {operand.rank} "
            f"of slice input ({_hs(operand)})."
        )
    if indices:
        first = indices[0]
        if not _is_scalar(first):
            raise _fail(f"{kind} indices must be scalar, not {_hs(first)}.")
        if not first.element_type.is_integral:
            raise _fail(f"{kind} start indices must be of integral type.")
        for idx in indices:
            if not _compat(first, idx):
                raise _fail(
                    f"{kind} start indices must all have the same shape, got mismatching "
                    f"indices with shapes {_hs(first)} and {_hs(idx)}."
                )


def dynamic_slice(ctx: ShapeContext) -> Shape:
    """InferDynamicSliceShape: result dims are `dynamic_slice_sizes`."""
    if len(ctx.operands) < 2:
        raise _fail("dynamic-slice expects an operand and start indices")
    operand, indices = ctx.operands[0], list(ctx.operands[1:])
    _expect_array(operand, "operand of dynamic slice")
    _check_index_operands("Dynamic slice", operand, indices)
    sizes = tuple(_attr(ctx, "dynamic_slice_sizes"))
    if len(sizes) != operand.rank:
        raise _fail(
            "Dynamic slice index count does not match argument rank: "
            f"{len(sizes)} vs {operand.rank}."
        )
    for d, size in enumerate(sizes):
        if size < 0:
            raise _fail(f"Negative size index to dynamic slice: {size}.")
        if not _is_unbounded(operand, d) and size > operand.dimensions[d]:
            raise _fail(
                f"Slice dim size {size} greater than dynamic slice dimension: "
                f"{operand.dimensions[d]}."
            )
    dyn = [
        _is_dyn(operand, d) and sizes[d] > 1 and sizes[d] == operand.dimensions[d]
        for d in range(operand.rank)
    ]
    return _mk(operand.element_type, sizes, dyn)


def dynamic_update_slice(ctx: ShapeContext) -> Shape:
    """InferDynamicUpdateSliceShape: the operand's shape."""
    if len(ctx.operands) < 2:
        raise _fail("dynamic-update-slice expects an operand, an update and start indices")
    operand, update, indices = ctx.operands[0], ctx.operands[1], list(ctx.operands[2:])
    if not operand.is_array:
        raise _fail(
            "Expected array or buffer argument for operand of dynamic update slice, but got "
            f"{_hs(operand)}."
        )
    _expect_array(update, "update of dynamic update slice")
    _check_index_operands("Dynamic update slice", operand, indices)
    if update.rank != operand.rank:
        raise _fail(
            "Dynamic update slice update rank does not match argument rank: "
            f"{update.rank} vs {operand.rank}."
        )
    if not _same_et_ignoring_fp(operand, update):
        raise _fail(
            "Dynamic update slice update element type does not match argument. "
            f"operand.element_type: {_tname(operand.element_type)} vs update.element_type: "
            f"{_tname(update.element_type)}."
        )
    for d in range(operand.rank):
        u, o = update.dimensions[d], operand.dimensions[d]
        if u != UNBOUNDED and u < 0:
            raise _fail(f"Size index {u} to dynamic update slice must be >= 0.")
        if o != UNBOUNDED and u > o:
            raise _fail(f"Update dim size {u} greater than dynamic slice dimension: {o}.")
    dyn = [
        _is_dyn(operand, d)
        or (_is_dyn(update, d) and update.dimensions[d] == operand.dimensions[d])
        for d in range(operand.rank)
    ]
    return _reshape_like(operand, dyn=dyn)


def _validate_gather_dnums(
    operand: Shape, indices_dims: Sequence[int], attrs: dict[str, Any]
) -> None:
    """ValidateGatherDimensionNumbers."""
    offset_dims = attrs["offset_dims"]
    collapsed = attrs["collapsed_slice_dims"]
    start_index_map = attrs["start_index_map"]
    operand_batching = attrs["operand_batching_dims"]
    indices_batching = attrs["start_indices_batching_dims"]
    index_vector_dim = attrs["index_vector_dim"]
    if list(offset_dims) != sorted(offset_dims):
        raise _fail(
            f"Output window dimensions in gather op must be ascending; got: {_join(offset_dims)}."
        )
    if len(set(offset_dims)) != len(offset_dims):
        raise _fail(
            f"Output window dimensions in gather op must not repeat; got: {_join(offset_dims)}."
        )
    output_rank = len(offset_dims) + len(indices_dims) - 1
    for i, d in enumerate(offset_dims):
        if not 0 <= d < output_rank:
            raise _fail(
                f"Offset dimension {i} in gather op is out of bounds; got {d}, but should have "
                f"been in [0,{output_rank})."
            )
    bound = indices_dims[index_vector_dim]
    if bound != UNBOUNDED and len(start_index_map) != bound:
        raise _fail(
            f"Gather op has {len(start_index_map)} elements in start_index_map and the bound "
            f"of dimension index_vector_dim={index_vector_dim} of start_indices is {bound}. "
            "These two numbers must be equal."
        )
    for i, d in enumerate(start_index_map):
        if not 0 <= d < operand.rank:
            raise _fail(f"Invalid start_index_map; domain is [0, {operand.rank}), got: {i}->{d}.")
    if len(set(start_index_map)) != len(start_index_map):
        raise _fail(
            "Repeated dimensions are not allowed in start_index_map; got: "
            f"{_join(start_index_map)}."
        )
    for d in collapsed:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid collapsed_slice_dims set in gather op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    if list(collapsed) != sorted(collapsed):
        raise _fail(f"collapsed_slice_dims in gather op must be sorted; got: {_join(collapsed)}")
    if len(set(collapsed)) != len(collapsed):
        raise _fail(
            "Repeated dimensions not allowed in collapsed_slice_dims in gather op; got: "
            f"{_join(collapsed)}."
        )
    if len(operand_batching) != len(indices_batching):
        raise _fail(
            "operand_batching_dims and start_indices_batching_dims in gather op must be of the "
            f"same size; got: {len(operand_batching)} and {len(indices_batching)}."
        )
    for d in operand_batching:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid operand_batching_dims set in gather op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    if list(operand_batching) != sorted(operand_batching):
        raise _fail(
            f"operand_batching_dims in gather op must be sorted; got: {_join(operand_batching)}"
        )
    if len(set(operand_batching)) != len(operand_batching):
        raise _fail(
            "Repeated dimensions not allowed in operand_batching_dims in gather op; got: "
            f"{_join(operand_batching)}."
        )
    for i, d in enumerate(indices_batching):
        if not 0 <= d < len(indices_dims):
            raise _fail(
                f"Invalid start_indices_batching_dims; domain is [0, {len(indices_dims)}), got: "
                f"{i}->{d}."
            )
    if len(set(indices_batching)) != len(indices_batching):
        raise _fail(
            "Repeated dimensions are not allowed in start_indices_batching_dims; got: "
            f"{_join(indices_batching)}."
        )


def gather(ctx: ShapeContext) -> Shape:
    """InferGatherShape (with batching dims)."""
    _arity(ctx, 2)
    operand, indices = ctx.operands
    _expect_array(operand, "input tensor operand of gather op")
    _expect_array(indices, "gather indices operand of gather op")
    dn = {
        "offset_dims": tuple(_attr(ctx, "offset_dims")),
        "collapsed_slice_dims": tuple(_attr(ctx, "collapsed_slice_dims")),
        "start_index_map": tuple(_attr(ctx, "start_index_map")),
        "operand_batching_dims": tuple(ctx.attrs.get("operand_batching_dims") or ()),
        "start_indices_batching_dims": tuple(ctx.attrs.get("start_indices_batching_dims") or ()),
        "index_vector_dim": _attr(ctx, "index_vector_dim"),
    }
    slice_sizes = tuple(_attr(ctx, "slice_sizes"))
    if not indices.element_type.is_integral:
        raise _fail(f"Gather indices parameter must be an integral tensor; got {_hs(indices)}.")
    ivd = dn["index_vector_dim"]
    if indices.rank < ivd or ivd < 0:
        raise _fail(
            "Gather index leaf dimension must be within [0, rank(start_indices) + 1). "
            f"rank(start_indices) is {indices.rank} and gather index leaf dimension is {ivd}."
        )
    expanded = list(indices.dimensions)
    expanded_dyn = _dyn_flags(indices)
    if len(expanded) == ivd:
        expanded.append(1)
        expanded_dyn.append(False)
    _validate_gather_dnums(operand, expanded, dn)
    offset_dims = dn["offset_dims"]
    collapsed = dn["collapsed_slice_dims"]
    batching = dn["operand_batching_dims"]
    if len(slice_sizes) != operand.rank:
        raise _fail(
            "Gather op must have one slice size for every input dimension; got: "
            f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.rank}."
        )
    if len(slice_sizes) != len(offset_dims) + len(collapsed) + len(batching):
        raise _fail(
            "All components of the offset index in a gather op must either be a offset "
            "dimension or explicitly collapsed or explicitly batched; got "
            f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes={_join(offset_dims, ',')}, "
            f"collapsed_slice_dims={_join(collapsed, ',')}, "
            f"operand_batching_dims={_join(batching, ',')}."
        )
    for i, size in enumerate(slice_sizes):
        if _is_unbounded(operand, i):
            continue
        if size < 0 or size > operand.dimensions[i]:
            raise _fail(
                f"Slice size at index {i} in gather op is out of range, must be within "
                f"[0, {operand.dimensions[i] + 1}), got {size}."
            )
    for i, d in enumerate(collapsed):
        if slice_sizes[d] > 1:
            raise _fail(
                "Gather op can only collapse slice dims with bound 1 or 0, but bound is "
                f"{slice_sizes[d]} for index {d} at position {i}."
            )
    for i, d in enumerate(batching):
        if slice_sizes[d] > 1:
            raise _fail(
                "Gather op can only have operand_batching_dims with bound 1 or 0, but bound is "
                f"{slice_sizes[d]} for index {d} at position {i}."
            )
    result_rank = len(offset_dims) + len(expanded) - 1
    skipped = set(collapsed) | set(batching)
    offset_set = set(offset_dims)
    dims: list[int] = []
    dyn: list[bool] = []
    offset_seen = 0
    gather_seen = 0
    for i in range(result_rank):
        if i in offset_set:
            while offset_seen in skipped:
                offset_seen += 1
            is_dyn = False
            if slice_sizes[offset_seen] == operand.dimensions[offset_seen]:
                is_dyn = _is_dyn(operand, offset_seen)
            dims.append(slice_sizes[offset_seen])
            dyn.append(is_dyn)
            offset_seen += 1
        else:
            if gather_seen == ivd:
                gather_seen += 1
            dims.append(expanded[gather_seen])
            dyn.append(expanded_dyn[gather_seen])
            gather_seen += 1
    return _mk(operand.element_type, dims, dyn)


def _validate_scatter_dnums(
    operand: Shape, indices_dims: Sequence[int], updates: Shape, dn: dict[str, Any]
) -> None:
    """ValidateScatterDimensionNumbers."""
    uwd = dn["update_window_dims"]
    iwd = dn["inserted_window_dims"]
    s2o = dn["scatter_dims_to_operand_dims"]
    ibd = dn["input_batching_dims"]
    sibd = dn["scatter_indices_batching_dims"]
    ivd = dn["index_vector_dim"]
    if list(uwd) != sorted(uwd):
        raise _fail(f"update_window_dims in scatter op must be sorted; got: {_join(uwd)}.")
    if len(set(uwd)) != len(uwd):
        raise _fail(f"update_window_dims in scatter op must not repeat; got: {_join(uwd)}.")
    for d in uwd:
        if not 0 <= d < updates.rank:
            raise _fail(
                "Invalid update_window_dims set in scatter op; valid range is "
                f"[0, {updates.rank}). got: {d}."
            )
    if list(iwd) != sorted(iwd):
        raise _fail(f"inserted_window_dims in scatter op must be sorted; got: {_join(iwd)}.")
    if len(set(iwd)) != len(iwd):
        raise _fail(f"inserted_window_dims in scatter op must not repeat; got: {_join(iwd)}.")
    for d in iwd:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid inserted_window_dims set in scatter op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    window_size = len(uwd) + len(iwd) + len(ibd)
    if window_size != operand.rank:
        raise _fail(
            f"Scatter op has window of size {window_size}; doesn't match operand of rank "
            f"{operand.rank}."
        )
    bound = indices_dims[ivd]
    if bound != UNBOUNDED and len(s2o) != bound:
        raise _fail(
            f"Scatter op has {len(s2o)} elements in scatter_dims_to_operand_dims and the bound "
            f"of dimension index_vector_dim={ivd} of scatter_indices is {bound}. These two "
            "numbers must be equal."
        )
    for i, d in enumerate(s2o):
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid scatter_dims_to_operand_dims mapping; domain is "
                f"[0, {operand.rank}), got: {i}->{d}."
            )
    if len(set(s2o)) != len(s2o):
        raise _fail(
            f"Repeated dimensions not allowed in scatter_dims_to_operand_dims; got: {_join(s2o)}."
        )
    if len(ibd) != len(sibd):
        raise _fail(
            "input_batching_dims and scatter_indices_batching_dims in scatter op must be of the "
            f"same size; got: {len(ibd)} and {len(sibd)}."
        )
    if list(ibd) != sorted(ibd):
        raise _fail(f"input_batching_dims in scatter op must be sorted; got: {_join(ibd)}.")
    if len(set(ibd)) != len(ibd):
        raise _fail(f"input_batching_dims in scatter op must not repeat; got: {_join(ibd)}.")
    for d in ibd:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid input_batching_dims set in scatter op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    for d in sibd:
        if not 0 <= d < len(indices_dims):
            raise _fail(
                "Invalid scatter_indices_batching_dims set in scatter op; valid range is "
                f"[0, {len(indices_dims)}), got: {d}."
            )
    if len(set(sibd)) != len(sibd):
        raise _fail(
            f"scatter_indices_batching_dims in scatter op must not repeat; got: {_join(sibd)}."
        )


def scatter(ctx: ShapeContext) -> Shape:
    """InferScatterShape: N operands, indices, N updates; result = operand(s)."""
    args = list(ctx.operands)
    n = len(args) // 2
    if n * 2 + 1 != len(args):
        raise _fail(f"Invalid argument count of scatter op: Expected {n * 2 + 1}, saw {len(args)}")
    indices = args[n]
    _expect_array(indices, "scatter indices of scatter op")
    if not indices.element_type.is_integral:
        raise _fail(f"Scatter indices parameter must be an integral tensor; got {_hs(indices)}.")
    dn = {
        "update_window_dims": tuple(_attr(ctx, "update_window_dims")),
        "inserted_window_dims": tuple(_attr(ctx, "inserted_window_dims")),
        "scatter_dims_to_operand_dims": tuple(_attr(ctx, "scatter_dims_to_operand_dims")),
        "input_batching_dims": tuple(ctx.attrs.get("input_batching_dims") or ()),
        "scatter_indices_batching_dims": tuple(
            ctx.attrs.get("scatter_indices_batching_dims") or ()
        ),
        "index_vector_dim": _attr(ctx, "index_vector_dim"),
    }
    ivd = dn["index_vector_dim"]
    if indices.rank < ivd or ivd < 0:
        raise _fail(
            "Scatter index leaf dimension must be within [0, rank(scatter_indices) + 1). "
            f"rank(scatter_indices) is {indices.rank} and scatter index leaf dimension is {ivd}."
        )
    expanded = list(indices.dimensions)
    if len(expanded) == ivd:
        expanded.append(1)
    operands, updates = args[:n], args[n + 1 :]
    uwd = dn["update_window_dims"]
    for i in range(n):
        operand, update = operands[i], updates[i]
        _expect_array(operand, f"operand {i} of scatter op")
        _expect_array(update, f"updates {i} of scatter op")
        max_sizes = [
            operand.dimensions[d]
            for d in range(operand.rank)
            if d not in dn["inserted_window_dims"] and d not in dn["input_batching_dims"]
        ]
        expected_rank = len(expanded) - 1 + len(uwd)
        if update.rank != expected_rank:
            raise _fail(f"Updates tensor must be of rank {expected_rank}; got {update.rank}.")
        _validate_scatter_dnums(operand, expanded, update, dn)
        for j, d in enumerate(uwd):
            if j < len(max_sizes) and update.dimensions[d] > max_sizes[j]:
                raise _fail(
                    "Bounds of the window dimensions of updates must not exceed the bounds of "
                    f"the corresponding dimensions of operand. For dimension {d}, updates bound "
                    f"is {update.dimensions[d]}, operand bound is {max_sizes[j]}."
                )
        seen = 0
        for d in range(update.rank):
            if d in uwd:
                continue
            if seen == ivd:
                seen += 1
            u, e = update.dimensions[d], expanded[seen]
            if u != e and u != UNBOUNDED and e != UNBOUNDED:
                raise _fail(
                    "Bounds of the scatter dimensions of updates must be same as the bounds of "
                    "the corresponding dimensions of scatter indices. For scatter dimension "
                    f"{d}, updates bound is {u}, scatter_indices bound is {e}."
                )
            seen += 1
    _verify_reducer(
        _program(ctx, "to_apply"),
        [Shape.scalar(o.element_type) for o in operands],
        [u.element_type for u in updates],
        n,
    )
    return _keep(operands[0] if n == 1 else Shape.tuple_of(operands))


def _padding_text(padding: Sequence[Any]) -> str:
    return "x".join(
        f"{p.low}_{p.high}_{p.interior}" if p.interior else f"{p.low}_{p.high}" for p in padding
    )


def pad(ctx: ShapeContext) -> Shape:
    """InferPadShape: out = lo + hi + d + max(d-1, 0) * interior, never negative."""
    _arity(ctx, 2)
    operand, value = ctx.operands
    padding = tuple(_attr(ctx, "padding"))
    if not operand.is_array:
        raise _fail("Pad operation does not support tuple-shape operands.")
    if not _is_scalar(value):
        raise _fail("Pad operation does not support non-scalar padding values.")
    if operand.rank != len(padding):
        raise _fail(
            "The rank of the operand and the padding configuration do not match: "
            f"{_hs(operand)} vs {_padding_text(padding) or '{}'}."
        )
    if not _same_et_ignoring_fp(operand, value):
        raise _fail("The element types of the operands to Pad do not match.")
    if any(p.interior < 0 for p in padding):
        raise _fail(f"Interior padding cannot be negative: {_padding_text(padding)}")
    dims: list[int] = []
    for i, p in enumerate(padding):
        d = operand.dimensions[i]
        if d == UNBOUNDED:
            dims.append(UNBOUNDED)
            continue
        size = d + p.low + p.high + max(d - 1, 0) * p.interior
        if size < 0:
            raise _fail(f"Padding result in negative size for dimension {i}")
        dims.append(size)
    return _mk(_higher(operand, value), dims, _dyn_flags(operand))


def reshape(ctx: ShapeContext) -> Shape:
    """The text declares the result; element type and element count must match."""
    _arity(ctx, 1)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    operand, out = ctx.operands[0], ctx.declared
    _expect_array(operand, "reshape")
    if not out.is_array or out.element_type is not operand.element_type:
        raise _fail(
            f"Reshape: element type mismatch ({operand.element_type.value} vs "
            f"{out.element_type.value}): {_hs(operand)} -> {_hs(out)}"
        )
    if UNBOUNDED in out.dimensions and UNBOUNDED not in operand.dimensions:
        raise _fail(f"Reshaping with unbounded result shape is not supported: {_hs(out)}")
    if UNBOUNDED not in operand.dimensions and operand.element_count != out.element_count:
        raise _fail(
            f"Reshape: element count mismatch ({operand.element_count} vs {out.element_count}): "
            f"{_hs(operand)} -> {_hs(out)}"
        )
    inferred_dimension = ctx.attrs.get("inferred_dimension")
    if inferred_dimension is not None and inferred_dimension != -1:
        if not 0 <= inferred_dimension < out.rank:
            raise _fail(
                f"Reshape inferred_dimension {inferred_dimension} is out of range for {_hs(out)}"
            )
    return out


def reverse(ctx: ShapeContext) -> Shape:
    """InferReverseShape."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    dims = tuple(_attr(ctx, "dimensions"))
    _expect_array(operand, "operand of reverse")
    if len(set(dims)) != len(dims):
        raise _fail("a dimension number is duplicated in reverse")
    for d in dims:
        if not 0 <= d < operand.rank:
            raise _fail(
                f"One of the reverse dimensions ({d}) is out-of-bounds in shape {_hs(operand)}."
            )
    return _keep(operand)


def slice_(ctx: ShapeContext) -> Shape:
    """InferSliceShape: out dim = ceil((limit - start) / stride)."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    ranges = tuple(_attr(ctx, "slice"))
    starts = [r.start for r in ranges]
    limits = [r.limit for r in ranges]
    strides = [r.stride for r in ranges]

    def error(message: str) -> ShapeError:
        return _fail(
            f"{message} in slice operation; argument shape: {_hs(operand)}; starts: "
            f"{{{_join(starts, ',')}}}; limits: {{{_join(limits, ',')}}}; strides: "
            f"{{{_join(strides, ',')}}}."
        )

    _expect_array(operand, "operand of slice")
    if len(ranges) != operand.rank:
        raise _fail(
            f"Slice index count does not match argument rank: {len(ranges)} vs {operand.rank}."
        )
    sizes: list[int] = []
    for d, (start, limit, stride) in enumerate(zip(starts, limits, strides, strict=True)):
        if start < 0:
            raise _fail(f"Negative start index to slice: {start}.")
        size = operand.dimensions[d]
        if not _is_unbounded(operand, d) and limit > size:
            raise error(
                f"limit index ({limit}) must be less than or equal to dimension size ({size})"
            )
        if start > limit:
            raise error(
                f"limit index ({limit}) must be greater or equal to start index ({start}) in "
                "slice with positive stride"
            )
        if stride <= 0:
            raise _fail(f"Stride ({stride}) must be positive.")
        sizes.append((limit - start + stride - 1) // stride)
    dyn = [sizes[d] != 1 and _is_bounded_dyn(operand, d) for d in range(operand.rank)]
    return _mk(operand.element_type, sizes, dyn)


def transpose(ctx: ShapeContext) -> Shape:
    """InferTransposeShape: ShapeUtil::PermuteDimensions permutes dims and the layout."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    perm = tuple(_attr(ctx, "dimensions"))
    _expect_array(operand, "transpose")
    if len(perm) != operand.rank or sorted(perm) != list(range(operand.rank)):
        raise _fail(
            f"Transpose dimensions [{_join(perm, ',')}] are not a permutation of the operand "
            f"dimensions (operand shape is {_hs(operand)})."
        )
    dims = tuple(operand.dimensions[p] for p in perm)
    dyn = _dyn_flags(operand)
    new_dyn = _norm_dyn(dims, [dyn[p] for p in perm])
    if operand.layout is not None and len(operand.layout.minor_to_major) == operand.rank:
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        layout = dataclasses.replace(
            operand.layout,
            minor_to_major=tuple(inverse[m] for m in operand.layout.minor_to_major),
            split_configs=(),
        )
    else:
        layout = Layout.default_for_rank(len(dims))
    return Shape(operand.element_type, dims, layout, new_dyn)


def get_dimension_size(ctx: ShapeContext) -> Shape:
    """InferGetDimensionSizeShape: s32[]."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    dim = _one_dim(ctx)
    if not operand.is_array or not 0 <= dim < operand.rank:
        raise _fail(f"GetDimensionSize dimension out of bounds: {dim}.")
    if operand.dimensions[dim] > _INT32_MAX:
        raise _fail(
            f"GetDimensionSize's input shape is {_hs(operand)}, the {dim}th dimension exceeds "
            "the INT_MAX limit."
        )
    return Shape.scalar(P.S32)


def set_dimension_size(ctx: ShapeContext) -> Shape:
    """InferSetDimensionSizeShape: the operand with that dimension marked dynamic."""
    _arity(ctx, 2)
    operand, value = ctx.operands
    dim = _one_dim(ctx)
    if not operand.is_array or not 0 <= dim < operand.rank:
        raise _fail(f"SetDimensionSize dimension out of bounds: {dim}.")
    if not value.is_array or value.rank != 0 or value.element_type is not P.S32:
        raise _fail(f"SetDimensionSize's value has to be S32 scalar, got {_hs(value)}")
    if operand.dimensions[dim] > _INT32_MAX:
        raise _fail(
            f"SetDimensionSize's input shape is {_hs(operand)}, the {dim}th dimension exceeds "
            "the INT_MAX limit."
        )
    dyn = _dyn_flags(operand)
    dyn[dim] = True
    return _reshape_like(operand, dyn=dyn)


# ======================================================================================
# Reductions, windows, sort, map
# ======================================================================================


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


# ======================================================================================
# Contractions
# ======================================================================================


def _dot_dnums_text(
    lb: Sequence[int], lc: Sequence[int], rb: Sequence[int], rc: Sequence[int]
) -> str:
    parts = []
    if lb:
        parts.append(f"lhs_batch_dims={{{_join(lb, ',')}}}")
    parts.append(f"lhs_contracting_dims={{{_join(lc, ',')}}}")
    if rb:
        parts.append(f"rhs_batch_dims={{{_join(rb, ',')}}}")
    parts.append(f"rhs_contracting_dims={{{_join(rc, ',')}}}")
    return ", ".join(parts)


def _dot_dnums(ctx: ShapeContext) -> tuple[tuple[int, ...], ...]:
    return (
        tuple(ctx.attrs.get("lhs_batch_dims") or ()),
        tuple(ctx.attrs.get("lhs_contracting_dims") or ()),
        tuple(ctx.attrs.get("rhs_batch_dims") or ()),
        tuple(ctx.attrs.get("rhs_contracting_dims") or ()),
    )


def _check_dot(
    lhs: Shape, rhs: Shape, dnums: tuple[tuple[int, ...], ...], what: str = "dot"
) -> None:
    """ValidateDotDimensionNumbers + CheckDotDimensionConstraints."""
    lb, lc, rb, rc = dnums
    text = _dot_dnums_text(lb, lc, rb, rc)
    in_range = all(0 <= d < lhs.rank for d in (*lc, *lb)) and all(
        0 <= d < rhs.rank for d in (*rc, *rb)
    )
    if not in_range:
        raise _fail(f"A dimension number is out of range in Dot: {text}. {_hs(lhs)} {_hs(rhs)}")
    if len(set(lc) | set(lb)) != len(lc) + len(lb) or len(set(rc) | set(rb)) != len(rc) + len(rb):
        raise _fail(f"A dimension number is not unique in Dot: {text}.")
    sym = "<dot>" if what == "dot" else "<ragged_dot>"

    def fail(addendum: str) -> ShapeError:
        return _fail(
            f"Cannot infer shape for {what} operation: {_hs(lhs)} {sym} {_hs(rhs)}. {addendum}"
        )

    if len(lc) != len(rc):
        raise fail("Must specify the same number of contracting dimensions for lhs and rhs.")
    for a, b in zip(lc, rc, strict=True):
        x, y = lhs.dimensions[a], rhs.dimensions[b]
        if x != y and x != UNBOUNDED and y != UNBOUNDED:
            raise fail("Contracting dimension sizes are not compatible.")
    if len(lb) != len(rb):
        raise fail("Must the same number of batch dimensions for lhs and rhs.")
    for a, b in zip(lb, rb, strict=True):
        x, y = lhs.dimensions[a], rhs.dimensions[b]
        if x != y and x != UNBOUNDED and y != UNBOUNDED:
            raise fail("Batch dimension sizes are not compatible.")


def _dot_result_dims(
    lhs: Shape, rhs: Shape, dnums: tuple[tuple[int, ...], ...], rhs_group: Sequence[int] = ()
) -> tuple[list[int], list[bool]]:
    """GenerateDotResultDimensions: batch dims, lhs free dims, rhs free dims."""
    lb, lc, rb, rc = dnums
    dims: list[int] = []
    dyn: list[bool] = []
    for d in lb:
        dims.append(lhs.dimensions[d])
        dyn.append(_is_dyn(lhs, d))
    for d in range(lhs.rank):
        if d not in lc and d not in lb:
            dims.append(lhs.dimensions[d])
            dyn.append(_is_dyn(lhs, d))
    for d in range(rhs.rank):
        if d not in rc and d not in rb and d not in rhs_group:
            dims.append(rhs.dimensions[d])
            dyn.append(_is_dyn(rhs, d))
    return dims, dyn


def _check_packed_nibble(ctx: ShapeContext, kind: str, lhs: Shape, rhs: Shape) -> None:
    precision = tuple(ctx.attrs.get("operand_precision") or ())
    nibbles = sum(1 for p in precision if str(p).lower() == "packed_nibble")
    if nibbles == 1:
        raise _fail(f"{kind} cannot have a single packed nibble argument")
    if nibbles == 2:
        for side, s in (("LHS", lhs), ("RHS", rhs)):
            if not (s.element_type.is_integral and s.element_type.bits == 8):
                raise _fail(
                    f"Packed nibble precision can only apply to 8 bit integers. {side} is "
                    f"{_hs(s)}."
                )


def _preferred(ctx: ShapeContext, lhs: Shape, rhs: Shape) -> PrimitiveType:
    """The declared element type (XLA's preferred_element_type), else the higher one."""
    if ctx.declared is not None and ctx.declared.is_array:
        return ctx.declared.element_type
    return _higher(lhs, rhs)


def dot(ctx: ShapeContext) -> Shape:
    """InferDotOpShape: result = batch dims, lhs free dims, rhs free dims; element type =
    the declared one if any (preferred element type), else the operands' higher one."""
    _arity(ctx, 2)
    lhs, rhs = ctx.operands
    _expect_array(lhs, "lhs of dot")
    _expect_array(rhs, "rhs of dot")
    dnums = _dot_dnums(ctx)
    _check_dot(lhs, rhs, dnums)
    _check_packed_nibble(ctx, "Dot", lhs, rhs)
    dims, dyn = _dot_result_dims(lhs, rhs, dnums)
    return _mk(_preferred(ctx, lhs, rhs), dims, dyn)


def ragged_dot(ctx: ShapeContext) -> Shape:
    """InferRaggedDotOpShape: exactly one lhs ragged dim; three modes (non-contracting,
    contracting -> leading group dim, batch)."""
    _arity(ctx, 3)
    lhs, rhs, group_sizes = ctx.operands
    _expect_array(lhs, "lhs of ragged dot")
    _expect_array(rhs, "rhs of ragged dot")
    _expect_array(group_sizes, "group_sizes of ragged dot")

    def fail(addendum: str) -> ShapeError:
        return _fail(
            f"Cannot infer shape for ragged dot operation: {_hs(lhs)} <ragged_dot> {_hs(rhs)}. "
            f"{addendum}"
        )

    dnums = _dot_dnums(ctx)
    lb, lc, rb, rc = dnums
    _check_dot(lhs, rhs, dnums, "ragged dot")
    ragged = tuple(ctx.attrs.get("lhs_ragged_dims") or ())
    if len(ragged) != 1:
        raise fail("There must be exactly one ragged dimension in the lhs.")
    rd = ragged[0]
    if not 0 <= rd < lhs.rank:
        raise fail(f"lhs ragged dimension {rd} is out of range [0, {lhs.rank})")
    mode = "batch" if rd in lb else "contracting" if rd in lc else "non-contracting"
    non_contracting = [d for d in range(lhs.rank) if d not in lc and d not in lb]
    if mode == "batch":
        prefix = list(lb[: lb.index(rd)])
    elif mode == "contracting":
        prefix = [*lb, *lc[: lc.index(rd)]]
    else:
        prefix = [*lb, *non_contracting[: non_contracting.index(rd)]]
    expected = [lhs.dimensions[d] for d in prefix]
    if group_sizes.rank == 0:
        raise fail("expected group_sizes to have rank >= 1, got 0")
    if group_sizes.rank != 1:
        if group_sizes.rank != len(expected) + 1:
            raise fail(
                f"expected group_sizes to have rank {len(expected) + 1}, got {group_sizes.rank}"
            )
        if list(group_sizes.dimensions[:-1]) != expected:
            raise fail(
                f"group_sizes is expected to have shape [{_join(expected)}, "
                f"{group_sizes.dimensions[-1]}], got [{_join(group_sizes.dimensions)}]"
            )
    num_groups = group_sizes.dimensions[-1]
    rhs_group = tuple(ctx.attrs.get("rhs_group_dims") or ())
    for g in rhs_group:
        if not 0 <= g < rhs.rank:
            raise fail(f"rhs group dimension {g} is out of range [0, {rhs.rank})")
        if g in rb or g in rc:
            raise fail("rhs group dimension cannot be a batch or contracting dimension")
    if mode in ("batch", "contracting"):
        if rhs_group:
            raise fail(
                "There must be zero group dimensions in the rhs when the ragged dimension is "
                "batch or contracting."
            )
    else:
        if len(rhs_group) != 1:
            raise fail(
                "There must be exactly one group dimension in the rhs when the lhs ragged "
                "dimension is non-contracting."
            )
        size = rhs.dimensions[rhs_group[0]]
        if size != num_groups and UNBOUNDED not in (size, num_groups):
            raise fail(f"rhs group dimension is expected to have size={num_groups}, got {size}")
    dims: list[int] = []
    dyn: list[bool] = []
    if mode == "contracting":
        dims.append(num_groups)
        dyn.append(_is_dyn(group_sizes, group_sizes.rank - 1))
    more_dims, more_dyn = _dot_result_dims(lhs, rhs, dnums, rhs_group)
    return _mk(_preferred(ctx, lhs, rhs), dims + more_dims, dyn + more_dyn)


def scaled_dot(ctx: ShapeContext) -> Shape:
    """scaled-dot(lhs, lhs_scale, rhs, rhs_scale): the dot of lhs and rhs (XLA's inference
    does not constrain the scales beyond being arrays)."""
    _arity(ctx, 4)
    lhs, lhs_scale, rhs, rhs_scale = ctx.operands
    _expect_array(lhs, "lhs of scaled dot")
    _expect_array(lhs_scale, "lhs scale of scaled dot")
    _expect_array(rhs, "rhs of scaled dot")
    _expect_array(rhs_scale, "rhs scale of scaled dot")
    dnums = _dot_dnums(ctx)
    _check_dot(lhs, rhs, dnums)
    dims, dyn = _dot_result_dims(lhs, rhs, dnums)
    return _mk(_preferred(ctx, lhs, rhs), dims, dyn)


def _dim_labels_text(dn: Any) -> str:
    n = len(dn.input_spatial_dimensions)
    rank = n + 2

    def part(a: int, b: int, ca: str, cb: str, spatial: Sequence[int]) -> str:
        chars = ["?"] * max(rank, a + 1, b + 1, *(s + 1 for s in spatial), 0)
        chars[a], chars[b] = ca, cb
        for i, s in enumerate(spatial):
            chars[s] = str(i)
        return "".join(chars)

    try:
        lhs = part(
            dn.input_batch_dimension, dn.input_feature_dimension, "b", "f",
            dn.input_spatial_dimensions,
        )
        rhs = part(
            dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension, "i", "o",
            dn.kernel_spatial_dimensions,
        )
        out = part(
            dn.output_batch_dimension, dn.output_feature_dimension, "b", "f",
            dn.output_spatial_dimensions,
        )
        return f"{lhs}_{rhs}->{out}"
    except (IndexError, ValueError):
        return repr(dn)


def convolution(ctx: ShapeContext) -> Shape:
    """InferConvolveShape: output spatial size = floor((padded dilated input - dilated
    window) / stride) + 1, placed per the output dim labels."""
    _arity(ctx, 2)
    lhs, rhs = ctx.operands
    if rhs.is_tuple:
        if len(rhs.tuple_shapes) != 2:
            raise _fail(
                "rhs of convolution, if a tuple, must have 2 elements for sparsity; got: "
                f"{_hs(rhs)}"
            )
        rhs = rhs.tuple_shapes[0]
    _expect_array(lhs, "lhs of convolution")
    _expect_array(rhs, "rhs of convolution")
    fgc = ctx.attrs.get("feature_group_count") or 1
    bgc = ctx.attrs.get("batch_group_count") or 1
    dn = _attr(ctx, "dim_labels")
    window = ctx.attrs.get("window")
    wdims = tuple(getattr(window, "dimensions", ()))
    labels = _dim_labels_text(dn)
    if fgc <= 0:
        raise _fail(f"feature_group_count must be a positive number, got {fgc}")
    if bgc <= 0:
        raise _fail(f"batch_group_count must be a positive number, got {bgc}")
    if bgc > 1 and fgc > 1:
        raise _fail(
            f"both batch_group_count {bgc} and feature_group_count {fgc} cannot be greater "
            "than 1"
        )
    n = len(dn.input_spatial_dimensions)
    if len(dn.kernel_spatial_dimensions) != n:
        raise _fail(
            "Both arguments to convolution must have same number of dimensions.\n"
            f"Numbers: {labels}"
        )
    if len(dn.output_spatial_dimensions) != n:
        raise _fail(
            "Both input and output of convolution must have same number of dimensions.\n"
            f"Numbers: {labels}"
        )
    if len(wdims) != n:
        raise _fail(
            "Window must have same number of dimensions as dimension numbers.\n"
            f"Window: {_window_text(window)}\nDimension numbers: {labels}."
        )
    rank = n + 2
    if lhs.rank != rank:
        raise _fail(f"The LHS argument to a convolution should have rank {rank}; lhs: {_hs(lhs)}.")
    if rhs.rank != rank:
        raise _fail(f"The RHS argument to a convolution should have rank {rank}; rhs: {_hs(rhs)}.")
    in_dn = [dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions]
    k_dn = [
        dn.kernel_input_feature_dimension,
        dn.kernel_output_feature_dimension,
        *dn.kernel_spatial_dimensions,
    ]
    out_dn = [dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions]
    if not all(0 <= d < rank for d in (*in_dn, *k_dn, *out_dn)):
        raise _fail(f"A dimension number is out of range in convolution: {labels}.")
    expected = list(range(rank))
    if sorted(in_dn) != expected:
        raise _fail(
            f"Input dimensions of convolution must contain each dimension exactly once: {labels}."
        )
    if sorted(k_dn) != expected:
        raise _fail(
            f"Window dimensions of convolution must contain each dimension exactly once: {labels}."
        )
    if sorted(out_dn) != expected:
        raise _fail(
            f"Output dimensions of convolution must contain each dimension exactly once: {labels}."
        )
    input_spatial = [lhs.dimensions[d] for d in dn.input_spatial_dimensions]
    input_features = lhs.dimensions[dn.input_feature_dimension]
    input_batch = lhs.dimensions[dn.input_batch_dimension]
    kernel_spatial = [rhs.dimensions[d] for d in dn.kernel_spatial_dimensions]
    kernel_in = rhs.dimensions[dn.kernel_input_feature_dimension]
    kernel_out = rhs.dimensions[dn.kernel_output_feature_dimension]
    conv = f"<conv>({_hs(lhs)}, {_hs(rhs)})"
    if kernel_out % bgc:
        raise _fail(
            f"Expected output feature dimension size (value {kernel_out}) to be a multiple of "
            f"batch group count {bgc}; got {conv}\nDimension numbers: {{{labels}}}."
        )
    if input_features % fgc or input_features // fgc != kernel_in:
        raise _fail(
            f"Expected LHS feature dimension (value {input_features}) to be a multiple of "
            f"feature_group_count (value {fgc}), and LHS feature dimension / "
            f"feature_group_count = RHS feature dimension (value {kernel_in}); got {conv}\n"
            f"Dimension numbers: {{{labels}}}."
        )
    if kernel_out % fgc:
        raise _fail(
            f"Expected output feature dimension (value {kernel_out}) to be divisible by "
            f"feature_group_count (value {fgc}); got {conv}\nDimension numbers: {{{labels}}}."
        )
    if input_batch % bgc:
        raise _fail(
            f"Expected input batch dimension (value {input_batch}) to be divisible by "
            f"batch_group_count (value {bgc}); got {conv}\nDimension numbers: {{{labels}}}."
        )
    if kernel_spatial != [w.size for w in wdims]:
        raise _fail(
            f"Window dimensions do not match RHS shape:\n\tRHS shape: {_hs(rhs)}\n\t"
            f"Window: {_window_text(window)}\n\tDimension numbers: {{{labels}}}."
        )
    base = _mk(lhs.element_type, input_spatial, [d == UNBOUNDED for d in input_spatial])
    window_out = _window_output_shape(base, window, lhs.element_type)
    dims = [0] * rank
    dims[dn.output_batch_dimension] = input_batch // bgc if input_batch != UNBOUNDED else UNBOUNDED
    dims[dn.output_feature_dimension] = kernel_out
    for i, d in enumerate(dn.output_spatial_dimensions):
        dims[d] = window_out.dimensions[i]
    dyn = [False] * rank
    for i in range(rank):
        if _is_dyn(lhs, i):
            if i == dn.input_batch_dimension:
                dyn[dn.output_batch_dimension] = True
            elif i != dn.input_feature_dimension:
                for j, s in enumerate(dn.input_spatial_dimensions):
                    if i == s:
                        dyn[dn.output_spatial_dimensions[j]] = True
        if _is_dyn(rhs, i):
            if i == dn.kernel_output_feature_dimension:
                raise _fail(
                    "Dynamic output feature dim on convolution kernel is not supported: rhs "
                    f"shape is {_hs(rhs)} "
                )
            if i != dn.kernel_input_feature_dimension:
                for j, s in enumerate(dn.kernel_spatial_dimensions):
                    if i == s:
                        dyn[dn.output_spatial_dimensions[j]] = True
    _check_packed_nibble(ctx, "Convolution", lhs, rhs)
    return _mk(_preferred(ctx, lhs, rhs), dims, dyn)


def fft(ctx: ShapeContext) -> Shape:
    """InferFftShape: FFT/IFFT keep the complex shape; RFFT real -> complex with the last
    dim n/2+1; IRFFT complex -> real with the last dim fft_length[-1]."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    fft_type = _attr(ctx, "fft_type")
    length = tuple(_attr(ctx, "fft_length"))
    n = len(length)
    if n < 1 or n > 3:
        raise _fail(f"FFT only supports ranks 1-3; got {n}.")
    _expect_array(operand, "operand of fft")
    t = operand.element_type

    def check_rank() -> None:
        if operand.rank < n:
            raise _fail(
                f"FFT of rank {n} requires input of at least same rank; got input of rank "
                f"{operand.rank}"
            )

    rank = operand.rank
    if fft_type in ("FFT", "IFFT"):
        if not t.is_complex:
            raise _fail(f"{fft_type} requires complex input type, found {_tname(t)}.")
        check_rank()
        return _keep(operand)
    if fft_type == "RFFT":
        if t not in (P.F32, P.F64):
            raise _fail(f"RFFT requires F32 or F64 input type, found {_tname(t)}.")
        check_rank()
        for i in range(n):
            d = operand.dimensions[rank - n + i]
            if d != UNBOUNDED and d != length[i]:
                raise _fail(
                    "RFFT requires innermost dimensions match fft_length but dimension "
                    f"{rank - n + i} is {d} and should be {length[i]}."
                )
        result = _change_et(operand, P.C64 if t is P.F32 else P.C128)
        if length[-1] != 0:
            dims = list(result.dimensions)
            dims[-1] = length[-1] // 2 + 1
            dyn = _dyn_flags(result)
            dyn[-1] = _is_bounded_dyn(operand, rank - 1)
            result = _reshape_like(result, dims=dims, dyn=dyn)
        return result
    if fft_type == "IRFFT":
        if not t.is_complex:
            raise _fail(f"IRFFT requires complex input type, found {_tname(t)}.")
        check_rank()
        for i in range(n - 1):
            d = operand.dimensions[rank - n + i]
            if d != length[i]:
                raise _fail(
                    "IRFFT requires all but one innermost dimensions match fft_length, but "
                    f"dimension {rank - n + i} is {d} and should be {length[i]}."
                )
        last = operand.dimensions[rank - 1]
        if (last != 0 or length[-1] != 0) and last != UNBOUNDED and last != length[-1] // 2 + 1:
            raise _fail(
                "IRFFT requires innermost dimension matches fft_length/2+1, but dimension "
                f"{rank - 1} is {last} and should be {length[-1] // 2 + 1}."
            )
        dims = list(operand.dimensions)
        dims[-1] = length[-1]
        dyn = _dyn_flags(operand)
        dyn[-1] = _is_bounded_dyn(operand, rank - 1)
        return _reshape_like(operand, et=t.component_type, dims=dims, dyn=dyn)
    raise _fail(f"Unexpected fft_type: {fft_type}")


def cholesky(ctx: ShapeContext) -> Shape:
    """InferCholeskyShape: floating/complex, rank >= 2, square minor dims."""
    _arity(ctx, 1)
    a = ctx.operands[0]
    if not a.is_array or not (a.element_type.is_float or a.element_type.is_complex):
        raise _fail(
            "Expected element type in shape to be floating or complex for Cholesky; got "
            f"{_tname(a.element_type)}."
        )
    if a.rank < 2:
        raise _fail(f"The 'a' argument to Cholesky must have rank >= 2, got shape {_hs(a)}")
    x, y = a.dimensions[-2], a.dimensions[-1]
    if x != y and UNBOUNDED not in (x, y):
        raise _fail(f"The two minor dimensions of 'a' must have compatible size, got {_hs(a)}.")
    return _keep(a)


_TRANSPOSE_OPTIONS = {"TRANSPOSE_INVALID": 0, "NO_TRANSPOSE": 1, "TRANSPOSE": 2, "ADJOINT": 3}


def triangular_solve(ctx: ShapeContext) -> Shape:
    """InferTriangularSolveShape: result = b. A missing transpose_a is XLA's
    TRANSPOSE_INVALID (XLA prints transpose_a whenever it is valid)."""
    _arity(ctx, 2)
    a, b = ctx.operands
    if (
        not a.is_array
        or not b.is_array
        or not (a.element_type.is_float or a.element_type.is_complex)
        or a.element_type is not b.element_type
    ):
        raise _fail(
            "Expected element types in shape to be floating or complex and identical for "
            f"TriangularSolve; got {_tname(a.element_type)} and {_tname(b.element_type)}."
        )
    if a.rank < 2:
        raise _fail(
            f"The 'a' argument to TriangularSolve must have rank >= 2, got shape {_hs(a)}"
        )
    if b.rank != a.rank:
        raise _fail(
            f"Arguments to triangular solve must have equal rank; got {_hs(b)} and {_hs(a)}."
        )
    x, y = a.dimensions[-2], a.dimensions[-1]
    if x != y and UNBOUNDED not in (x, y):
        raise _fail(f"The two minor dimensions of 'a' must have equal size, got {_hs(a)}.")
    shared = b.dimensions[-2] if ctx.attrs.get("left_side") else b.dimensions[-1]
    if y != shared and UNBOUNDED not in (y, shared):
        raise _fail(
            f"The shared dimension of 'a' and 'b' does not match, got shapes {_hs(a)} and {_hs(b)}"
        )
    if a.dimensions[:-2] != b.dimensions[:-2]:
        raise _fail(
            "The leading batch dimensions of the arguments to triangular solve must be equal; "
            f"got {_hs(b)} and {_hs(a)}."
        )
    transpose_a = ctx.attrs.get("transpose_a") or "TRANSPOSE_INVALID"
    if transpose_a not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        number = _TRANSPOSE_OPTIONS.get(transpose_a, transpose_a)
        raise _fail(f"Invalid transpose option value for triangular solve ({number}).")
    return _keep(b)


def batch_norm(ctx: ShapeContext) -> Shape:
    """batch-norm-training -> (operand, mean[f], var[f]); batch-norm-inference -> operand;
    batch-norm-grad -> (grad_operand, grad_scale[f], grad_offset[f])."""
    op = ctx.opcode
    feature_index = _attr(ctx, "feature_index")
    _attr(ctx, "epsilon")
    if op == "batch-norm-training":
        _arity(ctx, 3)
        operand, scale, offset = ctx.operands
        named = [("offset factor", offset), ("scale factor", scale)]
        rank1 = [("Offset", offset), ("Scale", scale)]
        arrays = [
            (operand, "operand of batch norm training"),
            (offset, "offset input of batch norm training"),
            (scale, "scale input of batch norm training"),
        ]
    elif op == "batch-norm-inference":
        _arity(ctx, 5)
        operand, scale, offset, mean, variance = ctx.operands
        named = [
            ("offset factor", offset), ("scale factor", scale), ("mean", mean),
            ("variance", variance),
        ]
        rank1 = [("Offset", offset), ("Scale", scale)]
        arrays = [(operand, "operand of batch norm inference"),
                  (offset, "offset input of batch norm inference"),
                  (scale, "scale input of batch norm inference")]
    elif op == "batch-norm-grad":
        _arity(ctx, 5)
        operand, scale, mean, variance, grad = ctx.operands
        named = [("mean", mean), ("scale factor", scale), ("variance", variance)]
        rank1 = [("Mean", mean), ("Scale", scale), ("Var", variance)]
        arrays = [
            (operand, "operand of batch norm grad"),
            (scale, "scale input of batch norm grad"),
            (mean, "mean input of batch norm grad"),
            (variance, "var input of batch norm grad"),
            (grad, "output_grad input of batch norm grad"),
        ]
    else:
        raise _fail(f"batch_norm does not know opcode {op}")
    for s, what in arrays:
        _expect_array(s, what)
    for s in ctx.operands:
        _expect_array(s, f"operand of {op}")
    if feature_index >= operand.rank:
        raise _fail(
            f"Expected feature_index of {op} to be smaller than the rank of operand_shape; got "
            f"feature_index {feature_index}, and rank {operand.rank}."
        )
    if feature_index < 0:
        raise _fail(
            f"Expected feature_index of {op} to be a non-negative number, got {feature_index}."
        )
    if op == "batch-norm-grad":
        if operand.rank != grad.rank:
            raise _fail(
                f"Expected operand_shape of {op} to have the same rank as output_grad_shape; "
                f"got rank(oprand_shape) {operand.rank}, and rank(output_grad_shape) "
                f"{grad.rank}."
            )
    elif operand.rank == 0:
        raise _fail(f"Expected the rank of operand to {op} to be at least 1; got 0.")
    for label, s in rank1:
        if s.rank != 1:
            raise _fail(f"{label} input of {op} must have rank 1, but has rank {s.rank}.")
    if not operand.element_type.is_float:
        raise _fail(
            f"The operand to {op} must have a floating point element type, but the shape is "
            f"{_tname(operand.element_type)}."
        )
    if op == "batch-norm-grad" and not grad.element_type.is_float:
        raise _fail(
            f"The output_grad to {op} must have a floating point element type, but the shape "
            f"is {_tname(grad.element_type)}."
        )
    for label, s in ([("output_grad", grad)] if op == "batch-norm-grad" else []) + named:
        if not _same_et_ignoring_fp(s, operand):
            raise _fail(
                f"The inputs should have the same element type for {op}, but the shape of "
                f"{label} is {_tname(s.element_type)} and the shape of operand is "
                f"{_tname(operand.element_type)}."
            )
    features = operand.dimensions[feature_index]
    for label, s in named:
        if s.rank != 1:
            raise _fail(f"The {label} input of {op} must have rank 1, but has rank {s.rank}.")
        size = s.dimensions[0]
        if size != features and UNBOUNDED not in (size, features):
            raise _fail(
                f"The size of {label} should be compatible with feature count, but the size of "
                f"{label} is {size} and the feature count is {features}."
            )
    if op == "batch-norm-grad":
        for i in range(operand.rank):
            x, y = operand.dimensions[i], grad.dimensions[i]
            if x != y and UNBOUNDED not in (x, y):
                raise _fail(
                    "The bounds of operand shape should be compatible with output_grad's, but "
                    f"the bound of operand_shape at dimension {i} is {x} and the bound of "
                    f"output_grad_shape is {y}."
                )
    if op == "batch-norm-inference":
        return _keep(operand)
    feature_shape = _mk(operand.element_type, (features,), (_is_dyn(operand, feature_index),))
    return Shape.tuple_of([_keep(operand), feature_shape, feature_shape])


# ======================================================================================
# Tuples and control flow
# ======================================================================================


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


# ======================================================================================
# Host transfers, collectives, custom-call (declared shapes, checked)
# ======================================================================================


def _need_declared(ctx: ShapeContext) -> Shape:
    if ctx.declared is None:
        raise _not_inferable(ctx)
    return ctx.declared


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
    "collective-permute": collective_permute,
    "collective-permute-start": collective_permute_start,
    "collective-permute-done": tuple_element_1,
}
