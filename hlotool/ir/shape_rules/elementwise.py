"""Elementwise ops (unary, binary, compare, clamp, select) and conversions (convert,
bitcast-convert, stochastic-convert, reduce-precision, copy-like ops)."""

from __future__ import annotations

from collections.abc import Sequence

from hlotool.ir.shape_rules.context import ShapeContext
from hlotool.ir.shape_rules.control import _check_async_shape
from hlotool.ir.shape_rules.shape_util import (
    P,
    _arity,
    _attr,
    _change_et,
    _compat,
    _dyn_flags,
    _expect_array,
    _expect_shape,
    _fail,
    _higher,
    _hs,
    _is_dyn,
    _keep,
    _layout_of,
    _mk,
    _norm_dyn,
    _not_inferable,
    _reshape_like,
    _same_et_ignoring_fp,
    _tname,
)
from hlotool.ir.types import UNBOUNDED, Layout, PrimitiveType, Shape

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
