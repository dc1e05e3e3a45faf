"""CHLO ops, decomposed into HLO the way XLA legalizes them (so results match XLA's).

The decompositions follow StableHLO's `chlo-legalize-to-stablehlo` pass
(ChloLegalizeToStablehlo.cpp and the ChloDecompositionPatterns*.td rules) as used by
jaxlib 0.10.2, except where XLA keeps an op of its own: `chlo.erf` becomes HLO `erf` and
`chlo.top_k` becomes HLO `topk`. Constants are scalar constants broadcast to the operand's
shape, as XLA prints them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from hlotool.stablehlo.attrs import (
    field_ints,
    get_fields,
    get_int,
    get_ints,
    get_precision,
)
from hlotool.stablehlo.lowering import CONVERTERS, OpCtx, constant
from hlotool.stablehlo.ops import broadcast_in_dim
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape

O = Opcode
P = PrimitiveType
Results = list[Instruction]


class Builder:
    """Emits elementwise HLO for one decomposition (all values share the op's dims)."""

    def __init__(self, ctx: OpCtx) -> None:
        self.ctx = ctx

    def _emit(
        self, opcode: Opcode, shape: Shape, *operands: Instruction, **attrs: Any
    ) -> Instruction:
        return self.ctx.emit(opcode, shape, list(operands), attrs)

    def const(self, value: float | int, like: Instruction | Shape) -> Instruction:
        """A scalar constant of `like`'s element type, broadcast to its shape."""
        shape = like if isinstance(like, Shape) else like.shape
        scalar = constant(
            self.ctx.lw,
            self.ctx.scope.comp,
            _scalar(value, shape.element_type),
            Shape.scalar(shape.element_type),
            self.ctx.tok,
        )
        if not shape.dimensions:
            return scalar
        return self._emit(
            O.BROADCAST, Shape.array(shape.element_type, shape.dimensions), scalar, dimensions=()
        )

    def unary(self, opcode: Opcode, x: Instruction) -> Instruction:
        return self._emit(opcode, x.shape, x)

    def binary(self, opcode: Opcode, a: Instruction, b: Instruction) -> Instruction:
        return self._emit(opcode, a.shape, a, b)

    def add(self, a: Instruction, b: Instruction) -> Instruction:
        return self.binary(O.ADD, a, b)

    def sub(self, a: Instruction, b: Instruction) -> Instruction:
        return self.binary(O.SUBTRACT, a, b)

    def mul(self, a: Instruction, b: Instruction) -> Instruction:
        return self.binary(O.MULTIPLY, a, b)

    def div(self, a: Instruction, b: Instruction) -> Instruction:
        return self.binary(O.DIVIDE, a, b)

    def neg(self, x: Instruction) -> Instruction:
        return self.unary(O.NEGATE, x)

    def abs(self, x: Instruction) -> Instruction:
        return self.unary(O.ABS, x)

    def cmp(self, a: Instruction, b: Instruction, direction: str) -> Instruction:
        return self._emit(
            O.COMPARE, Shape.array(P.PRED, a.shape.dimensions), a, b, direction=direction
        )

    def select(self, p: Instruction, a: Instruction, b: Instruction) -> Instruction:
        return self._emit(O.SELECT, a.shape, p, a, b)

    def convert(self, x: Instruction, et: PrimitiveType) -> Instruction:
        return self._emit(O.CONVERT, Shape.array(et, x.shape.dimensions), x)

    def bitcast(self, x: Instruction, et: PrimitiveType) -> Instruction:
        return self._emit(O.BITCAST_CONVERT, Shape.array(et, x.shape.dimensions), x)

    def poly(self, x: Instruction, coefficients: Sequence[float]) -> Instruction:
        """Horner evaluation, highest coefficient first (materializePolynomialApproximation)."""
        if not coefficients:
            return self.const(0.0, x)
        p = self.const(coefficients[0], x)
        for c in coefficients[1:]:
            p = self.add(self.mul(p, x), self.const(c, x))
        return p


def _scalar(value: float | int, t: PrimitiveType) -> Any:
    if t.is_float or t.is_complex:
        return np.array(value, np.float64).astype(t.numpy_dtype)
    return np.array(value).astype(t.numpy_dtype)


def chlo(*names: str) -> Callable[[Callable[[OpCtx], Results]], Callable[[OpCtx], Results]]:
    def register(fn: Callable[[OpCtx], Results]) -> Callable[[OpCtx], Results]:
        for name in names:
            CONVERTERS[name] = fn
        return fn

    return register


Unary = Callable[[Builder, Instruction], Instruction]


def _with_upcast(fn: Unary, f64: Unary | None = None) -> Callable[[OpCtx], Results]:
    """A float unary op computed in f32 for narrower types (materializeWithUpcast)."""

    def convert(ctx: OpCtx) -> Results:
        ctx.arity(1)
        b = Builder(ctx)
        x = ctx.operands[0]
        et = x.shape.element_type
        if not et.is_float:
            raise ctx.error(f"expects a floating-point operand, not {et.value}")
        if et is P.F64:
            return [(f64 or fn)(b, x)]
        if et.bits < 32:
            return [b.convert(fn(b, b.convert(x, P.F32)), et)]
        return [fn(b, x)]

    return convert


# -- simple ops -----------------------------------------------------------------------------


@chlo("chlo.erf")
def _erf(ctx: OpCtx) -> Results:
    ctx.arity(1)
    return [ctx.emit(O.ERF, ctx.operands[0].shape, ctx.operands)]


@chlo("chlo.square")
def _square(ctx: OpCtx) -> Results:
    ctx.arity(1)
    x = ctx.operands[0]
    return [ctx.emit(O.MULTIPLY, x.shape, [x, x])]


@chlo("chlo.tan")
def _tan(ctx: OpCtx) -> Results:
    ctx.arity(1)
    return [ctx.emit(O.TAN, ctx.operands[0].shape, ctx.operands)]


@chlo("chlo.top_k")
def _top_k(ctx: OpCtx) -> Results:
    ctx.arity(1)
    k = ctx.need("k", get_int)
    shape = Shape.tuple_of(ctx.result_shapes())
    ins = ctx.emit(O.TOPK, shape, ctx.operands, {"k": k, "largest": True})
    return ctx.gtes(ins)


@chlo("chlo.next_after")
def _next_after(ctx: OpCtx) -> Results:
    ctx.arity(2)
    b = Builder(ctx)
    x, y = ctx.operands
    bits = x.shape.element_type.bits
    it = {16: P.S16, 32: P.S32, 64: P.S64, 8: P.S8}[bits]
    xi, yi = b.bitcast(x, it), b.bitcast(y, it)
    nan_input = b.binary(O.OR, b.cmp(x, x, "NE"), b.cmp(y, y, "NE"))
    nan_int = b.bitcast(b.const(math.nan, x), it)
    sign_bit = -(1 << (bits - 1))
    sign_mask, not_sign = b.const(sign_bit, xi), b.const(~sign_bit, xi)
    x_abs, y_abs = b.binary(O.AND, xi, not_sign), b.binary(O.AND, yi, not_sign)
    equal = b.cmp(x, y, "EQ")
    zero = b.const(0, xi)
    x_zero, y_zero = b.cmp(x_abs, zero, "EQ"), b.cmp(y_abs, zero, "EQ")
    x_sign, y_sign = b.binary(O.AND, xi, sign_mask), b.binary(O.AND, yi, sign_mask)
    one = b.const(1, xi)
    from_zero = b.binary(O.OR, y_sign, one)
    smaller = b.binary(O.OR, b.cmp(x_abs, y_abs, "GT"), b.cmp(x_sign, y_sign, "NE"))
    step = b.select(smaller, b.const(-1, xi), one)
    result = b.add(xi, step)
    result = b.select(x_zero, b.select(y_zero, yi, from_zero), result)
    result = b.select(equal, yi, result)
    result = b.select(nan_input, nan_int, result)
    return [b.bitcast(result, x.shape.element_type)]


# -- erf family (Cephes / Eigen polynomial approximations) ----------------------------------

_ERFC_P32 = (
    2.326819970068386e-2,
    -1.387039388740657e-1,
    3.687424674597105e-1,
    -5.824733027278666e-1,
    6.210004621745983e-1,
    -4.944515323274145e-1,
    3.404879937665872e-1,
    -2.741127028184656e-1,
    5.638259427386472e-1,
)
_ERFC_R32 = (
    -1.047766399936249e1,
    1.297719955372516e1,
    -7.495518717768503,
    2.921019019210786,
    -1.015265279202700,
    4.218463358204948e-1,
    -2.820767439740514e-1,
    5.641895067754075e-1,
)
_ERF_T32 = (
    7.853861353153693e-5,
    -8.010193625184903e-4,
    5.188327685732524e-3,
    -2.685381193529856e-2,
    1.128358514861418e-1,
    -3.761262582423300e-1,
    1.128379165726710,
)
_ERFC_P64 = (
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
)
_ERFC_Q64 = (
    1.0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
)
_ERFC_R64 = (
    5.64189583547755073984e-1,
    1.27536670759978104416,
    5.01905042251180477414,
    6.16021097993053585195,
    7.40974269950448939160,
    2.97886665372100240670,
)
_ERFC_S64 = (
    1.0,
    2.26052863220117276590,
    9.39603524938001434673,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198,
    3.36907645100081516050,
)
_ERF_T64 = (
    9.60497373987051638749,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
)
_ERF_U64 = (
    1.0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
)


def _erfc_ge_one_f32(b: Builder, x: Instruction) -> Instruction:
    """erfc for |x| >= 1 (materializeErfcApproximationF32ForMagnitudeGeOne)."""
    x2 = b.mul(x, x)
    z = b.neg(x2)
    ax = b.abs(x)
    one = b.const(1.0, x)
    exp_z_over_ax = b.mul(b.unary(O.EXP, z), b.div(one, ax))
    two = b.const(2.0, x)
    rx2 = b.div(one, x2)
    poly = b.select(b.cmp(ax, two, "LT"), b.poly(rx2, _ERFC_P32), b.poly(rx2, _ERFC_R32))
    approx = b.mul(exp_z_over_ax, poly)
    zero = b.const(0.0, x)
    clamped = b.select(b.cmp(z, b.const(-88.72283905206835, x), "LT"), zero, approx)
    return b.select(b.cmp(x, zero, "LT"), b.sub(two, clamped), clamped)


def _erf_le_one_f32(b: Builder, x: Instruction) -> Instruction:
    return b.mul(x, b.poly(b.mul(x, x), _ERF_T32))


def _erfc_f32(b: Builder, x: Instruction) -> Instruction:
    ge_one = _erfc_ge_one_f32(b, x)
    one = b.const(1.0, x)
    from_erf = b.sub(one, _erf_le_one_f32(b, x))
    return b.select(b.cmp(b.abs(x), one, "LT"), from_erf, ge_one)


def _erfc_ge_one_f64(b: Builder, x: Instruction) -> Instruction:
    z = b.neg(b.mul(x, x))
    exp_z = b.unary(O.EXP, z)
    ax = b.abs(x)
    approx_1_8 = b.div(b.mul(exp_z, b.poly(ax, _ERFC_P64)), b.poly(ax, _ERFC_Q64))
    approx_8_inf = b.div(b.mul(exp_z, b.poly(ax, _ERFC_R64)), b.poly(ax, _ERFC_S64))
    approx = b.select(b.cmp(ax, b.const(8.0, x), "LT"), approx_1_8, approx_8_inf)
    zero = b.const(0.0, x)
    clamped = b.select(b.cmp(z, b.const(-7.09782712893383996843e2, x), "LT"), zero, approx)
    two = b.const(2.0, x)
    return b.select(b.cmp(x, zero, "LT"), b.sub(two, clamped), clamped)


def _erf_le_one_f64(b: Builder, x: Instruction) -> Instruction:
    x2 = b.mul(x, x)
    return b.div(b.mul(x, b.poly(x2, _ERF_T64)), b.poly(x2, _ERF_U64))


def _erfc_f64(b: Builder, x: Instruction) -> Instruction:
    ge_one = _erfc_ge_one_f64(b, x)
    one = b.const(1.0, x)
    from_erf = b.sub(one, _erf_le_one_f64(b, x))
    return b.select(b.cmp(b.abs(x), one, "LT"), from_erf, ge_one)


CONVERTERS["chlo.erfc"] = _with_upcast(_erfc_f32, _erfc_f64)

_ERFINV_LT5 = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_ERFINV_GE5 = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)
_ERFINV64_LT625 = (
    -3.6444120640178196996e-21,
    -1.685059138182016589e-19,
    1.2858480715256400167e-18,
    1.115787767802518096e-17,
    -1.333171662854620906e-16,
    2.0972767875968561637e-17,
    6.6376381343583238325e-15,
    -4.0545662729752068639e-14,
    -8.1519341976054721522e-14,
    2.6335093153082322977e-12,
    -1.2975133253453532498e-11,
    -5.4154120542946279317e-11,
    1.051212273321532285e-09,
    -4.1126339803469836976e-09,
    -2.9070369957882005086e-08,
    4.2347877827932403518e-07,
    -1.3654692000834678645e-06,
    -1.3882523362786468719e-05,
    0.0001867342080340571352,
    -0.00074070253416626697512,
    -0.0060336708714301490533,
    0.24015818242558961693,
    1.6536545626831027356,
)
_ERFINV64_LT16 = (
    2.2137376921775787049e-09,
    9.0756561938885390979e-08,
    -2.7517406297064545428e-07,
    1.8239629214389227755e-08,
    1.5027403968909827627e-06,
    -4.013867526981545969e-06,
    2.9234449089955446044e-06,
    1.2475304481671778723e-05,
    -4.7318229009055733981e-05,
    6.8284851459573175448e-05,
    2.4031110387097893999e-05,
    -0.0003550375203628474796,
    0.00095328937973738049703,
    -0.0016882755560235047313,
    0.0024914420961078508066,
    -0.0037512085075692412107,
    0.005370914553590063617,
    1.0052589676941592334,
    3.0838856104922207635,
)
_ERFINV64_GE16 = (
    -2.7109920616438573243e-11,
    -2.5556418169965252055e-10,
    1.5076572693500548083e-09,
    -3.7894654401267369937e-09,
    7.6157012080783393804e-09,
    -1.4960026627149240478e-08,
    2.9147953450901080826e-08,
    -6.7711997758452339498e-08,
    2.2900482228026654717e-07,
    -9.9298272942317002539e-07,
    4.5260625972231537039e-06,
    -1.9681778105531670567e-05,
    7.5995277030017761139e-05,
    -0.00021503011930044477347,
    -0.00013871931833623122026,
    1.0103004648645343977,
    4.8499064014085844221,
)


def _erfinv_edges(b: Builder, x: Instruction, p: Instruction) -> Instruction:
    result = b.mul(p, x)
    is_one = b.cmp(b.abs(x), b.const(1, x), "EQ")
    return b.select(is_one, b.mul(x, b.const(math.inf, x)), result)


def _erf_inv_f32(b: Builder, x: Instruction) -> Instruction:
    w = b.neg(b.unary(O.LOG1P, b.mul(x, b.neg(x))))
    lt = b.cmp(w, b.const(5.0, x), "LT")

    def coefficient(i: int) -> Instruction:
        return b.select(lt, b.const(_ERFINV_LT5[i], x), b.const(_ERFINV_GE5[i], x))

    w = b.select(lt, b.sub(w, b.const(2.5, x)), b.sub(b.unary(O.SQRT, w), b.const(3.0, x)))
    p = coefficient(0)
    for i in range(1, 9):
        p = b.add(coefficient(i), b.mul(p, w))
    return _erfinv_edges(b, x, p)


def _erf_inv_f64(b: Builder, x: Instruction) -> Instruction:
    w = b.neg(b.unary(O.LOG1P, b.mul(x, b.neg(x))))
    lt625 = b.cmp(w, b.const(6.25, x), "LT")
    lt16 = b.cmp(w, b.const(16, x), "LT")

    def coefficient(i: int) -> Instruction:
        c = b.const(_ERFINV64_LT625[i], x)
        if i < 19:
            c = b.select(lt625, c, b.const(_ERFINV64_LT16[i], x))
        if i < 17:
            c = b.select(lt16, c, b.const(_ERFINV64_GE16[i], x))
        return c

    sqrt_w = b.unary(O.SQRT, w)
    w_minus = b.sub(w, b.const(3.125, x))
    shift = b.select(lt16, b.const(3.25, w), b.const(5.0, w))
    w = b.select(lt625, w_minus, b.sub(sqrt_w, shift))
    p = coefficient(0)
    for i in range(1, 17):
        p = b.add(coefficient(i), b.mul(p, w))
    for i in range(17, 19):
        p = b.select(lt16, b.add(coefficient(i), b.mul(p, w)), p)
    for i in range(19, 23):
        p = b.select(lt625, b.add(coefficient(i), b.mul(p, w)), p)
    return _erfinv_edges(b, x, p)


CONVERTERS["chlo.erf_inv"] = _with_upcast(_erf_inv_f32, _erf_inv_f64)


# -- gamma family (Lanczos approximation, g = 7, n = 9) -------------------------------------

_LANCZOS_GAMMA = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
)


def _reflect(
    b: Builder, x: Instruction
) -> tuple[Instruction, Instruction, Instruction, Instruction]:
    """(need_to_reflect, z, half, one) with z = -x when x < 1/2, else x - 1."""
    half = b.const(0.5, x)
    reflect = b.cmp(x, half, "LT")
    one = b.const(1, x)
    z = b.select(reflect, b.neg(x), b.sub(x, one))
    return reflect, z, half, one


def _log_t(b: Builder, x: Instruction, z: Instruction) -> tuple[Instruction, Instruction]:
    lanczos_half = b.const(_LANCZOS_GAMMA + 0.5, x)
    t = b.add(lanczos_half, z)
    log_t = b.add(
        b.const(math.log(_LANCZOS_GAMMA + 0.5), x), b.unary(O.LOG1P, b.div(z, lanczos_half))
    )
    return t, log_t


def _lgamma(b: Builder, x: Instruction) -> Instruction:
    reflect, z, half, one = _reflect(b, x)
    a = b.const(_LANCZOS_BASE, x)
    for i, c in enumerate(_LANCZOS):
        a = b.add(a, b.div(b.const(c, x), b.add(z, b.const(i + 1, x))))
    t, log_t = _log_t(b, x, z)
    r = b.mul(b.sub(b.add(z, half), b.div(t, log_t)), log_t)
    lgamma = b.add(b.add(b.const((math.log(2) + math.log(math.pi)) / 2, x), r), b.unary(O.LOG, a))
    ax = b.abs(x)
    frac = b.sub(ax, b.unary(O.FLOOR, ax))
    frac = b.select(b.cmp(half, frac, "LT"), b.sub(one, frac), frac)
    denom = b.unary(O.LOG, b.unary(O.SIN, b.mul(b.const(math.pi, x), frac)))
    reflected = b.sub(b.sub(b.const(math.log(math.pi), x), denom), lgamma)
    finite = b._emit(O.IS_FINITE, Shape.array(P.PRED, denom.shape.dimensions), denom)
    reflected = b.select(finite, reflected, b.neg(denom))
    lgamma = b.select(reflect, reflected, lgamma)
    is_inf = b.cmp(b.abs(x), b.const(math.inf, x), "EQ")
    return b.select(is_inf, b.const(math.inf, x), lgamma)


def _digamma(b: Builder, x: Instruction) -> Instruction:
    reflect, z, _, _ = _reflect(b, x)
    zero = b.const(0.0, x)
    a = b.const(_LANCZOS_BASE, x)
    a_prime = zero
    for i, c in enumerate(_LANCZOS):
        coeff = b.const(c, x)
        term = b.add(z, b.const(i + 1, x))
        a_prime = b.sub(a_prime, b.div(coeff, b.mul(term, term)))
        a = b.add(a, b.div(coeff, term))
    t, log_t = _log_t(b, x, z)
    digamma = b.sub(b.add(log_t, b.div(a_prime, a)), b.div(b.const(_LANCZOS_GAMMA, x), t))
    reduced = b.add(x, b.abs(b.unary(O.FLOOR, b.add(x, b.const(0.5, x)))))
    pi = b.const(math.pi, x)
    pi_x = b.mul(pi, reduced)
    reflection = b.sub(digamma, b.div(b.mul(pi, b.unary(O.COS, pi_x)), b.unary(O.SIN, pi_x)))
    digamma = b.select(reflect, reflection, digamma)
    is_neg_int = b.binary(O.AND, b.cmp(x, zero, "LT"), b.cmp(x, b.unary(O.FLOOR, x), "EQ"))
    with_nan = b.select(is_neg_int, b.const(math.nan, x), digamma)
    return b.select(b.cmp(x, zero, "EQ"), b.const(-math.inf, x), with_nan)


CONVERTERS["chlo.lgamma"] = _with_upcast(_lgamma)
CONVERTERS["chlo.digamma"] = _with_upcast(_digamma)

_ZETA = (
    -7.1661652561756670113e18,
    1.8152105401943546773e17,
    -4.5979787224074726105e15,
    1.1646782814350067249e14,
    -2.950130727918164224e12,
    7.47242496e10,
    -1.8924375803183791606e9,
    47900160.0,
    -1209600.0,
    30240.0,
    -720.0,
    12.0,
)


def _zeta(b: Builder, x: Instruction, q: Instruction) -> Instruction:
    """Hurwitz zeta (Johansson's Euler-Maclaurin form, 9 iterations, 12 terms)."""
    zero, one = b.const(0.0, q), b.const(1.0, q)
    neg_x = b.neg(x)
    acc = q
    power_sum = b.binary(O.POWER, q, neg_x)
    for _ in range(9):
        acc = b.add(acc, one)
        power_sum = b.add(power_sum, b.binary(O.POWER, acc, neg_x))
    acc = b.add(acc, one)
    q_neg_power = b.binary(O.POWER, acc, neg_x)
    one_x = b.const(1.0, x)
    correction = b.div(b.mul(q_neg_power, acc), b.sub(x, one_x))
    rsqrt_acc = b.div(one, b.mul(acc, acc))
    horner = zero
    for i in range(11):
        lhs = b.add(x, b.const(23 - 1 - 2 * i, x))
        rhs = b.add(x, b.const(23 - 2 - 2 * i, x))
        product = b.mul(lhs, rhs)
        horner = b.mul(product, b.mul(rsqrt_acc, b.add(horner, b.const(1.0 / _ZETA[i], acc))))
    tail = b.mul(
        q_neg_power,
        b.add(
            b.const(0.5, q_neg_power),
            b.mul(b.div(x, acc), b.add(b.const(1.0 / _ZETA[11], acc), horner)),
        ),
    )
    accurate = b.add(b.add(power_sum, correction), tail)
    smallest = float(ml_dtypes.finfo(x.shape.element_type.numpy_dtype).smallest_subnormal)
    output = b.select(
        b.cmp(b.abs(q_neg_power), b.mul(b.abs(power_sum), b.const(smallest, acc)), "LT"),
        power_sum,
        accurate,
    )
    nan, inf = b.const(math.nan, x), b.const(math.inf, x)
    output = b.select(b.cmp(x, one_x, "LT"), nan, output)
    q_le_zero = b.cmp(q, zero, "LE")
    x_not_int = b.cmp(x, b.unary(O.FLOOR, x), "NE")
    output = b.select(b.binary(O.AND, q_le_zero, x_not_int), nan, output)
    at_pole = b.binary(O.AND, q_le_zero, b.cmp(q, b.unary(O.FLOOR, q), "EQ"))
    x_int = b.cmp(x, b.unary(O.FLOOR, x), "EQ")
    x_even = b.cmp(b.binary(O.REMAINDER, x, b.const(2.0, x)), zero, "EQ")
    output = b.select(at_pole, b.select(b.binary(O.AND, x_int, x_even), inf, nan), output)
    return b.select(b.cmp(x, one, "EQ"), inf, output)


def _polygamma(b: Builder, n: Instruction, x: Instruction) -> Instruction:
    one, two = b.const(1.0, x), b.const(2.0, x)
    sign = b.sub(b.mul(two, b.binary(O.REMAINDER, n, two)), one)
    n1 = b.add(n, one)
    result = b.mul(b.mul(sign, b.unary(O.EXP, _lgamma(b, n1))), _zeta(b, n1, x))
    zero = b.const(0.0, x)
    result = b.select(b.cmp(n, zero, "EQ"), _digamma(b, x), result)
    non_natural = b.binary(O.OR, b.cmp(n, b.unary(O.FLOOR, n), "NE"), b.cmp(n, zero, "LT"))
    return b.select(non_natural, b.const(math.nan, x), result)


Binary = Callable[[Builder, Instruction, Instruction], Instruction]


def _binary_with_upcast(fn: Binary) -> Callable[[OpCtx], Results]:
    def convert(ctx: OpCtx) -> Results:
        ctx.arity(2)
        b = Builder(ctx)
        a, c = ctx.operands
        et = a.shape.element_type
        if et.is_float and et.bits < 32:
            return [b.convert(fn(b, b.convert(a, P.F32), b.convert(c, P.F32)), et)]
        return [fn(b, a, c)]

    return convert


CONVERTERS["chlo.zeta"] = _binary_with_upcast(_zeta)
CONVERTERS["chlo.polygamma"] = _binary_with_upcast(_polygamma)


# -- Bessel I1e (Chebyshev series) ----------------------------------------------------------

_I1E_A32 = (
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
)
_I1E_B32 = (
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)
_I1E_A64 = (
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    *_I1E_A32,
)
_I1E_B64 = (
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    *_I1E_B32,
)


def _chebyshev(b: Builder, x: Instruction, coefficients: Sequence[float]) -> Instruction:
    b0 = b.const(0.0, x)
    b1 = b.const(0.0, x)
    b2 = b.const(0.0, x)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = b.add(b.sub(b.mul(x, b1), b2), b.const(c, x))
    return b.mul(b.sub(b0, b2), b.const(0.5, x))


def _i1e(a: Sequence[float], bb: Sequence[float]) -> Unary:
    def fn(b: Builder, x: Instruction) -> Instruction:
        z = b.abs(x)
        half, two = b.const(0.5, x), b.const(2.0, x)
        le8 = b.mul(z, _chebyshev(b, b.sub(b.mul(half, z), two), a))
        gt8 = b.div(_chebyshev(b, b.sub(b.div(b.const(32.0, x), z), two), bb), b.unary(O.SQRT, z))
        chosen = b.select(b.cmp(z, b.const(8.0, x), "LE"), le8, gt8)
        return b.mul(b.unary(O.SIGN, x), chosen)

    return fn


CONVERTERS["chlo.bessel_i1e"] = _with_upcast(_i1e(_I1E_A32, _I1E_B32), _i1e(_I1E_A64, _I1E_B64))


# -- hyperbolic and inverse trigonometric functions -----------------------------------------


def _exp_halves(b: Builder, x: Instruction) -> tuple[Instruction, Instruction]:
    """e^(x + log(1/2)) and e^(-x + log(1/2))."""
    log_half = b.unary(O.LOG, b.const(0.5, x))
    return (b.unary(O.EXP, b.add(x, log_half)), b.unary(O.EXP, b.sub(log_half, x)))


def _sinh_large(b: Builder, x: Instruction) -> Instruction:
    plus, minus = _exp_halves(b, x)
    return b.sub(plus, minus)


def _sinh(b: Builder, x: Instruction) -> Instruction:
    large = _sinh_large(b, x)
    expm1 = b.unary(O.EXPM1, x)
    one, half = b.const(1.0, x), b.const(0.5, x)
    small = b.mul(half, b.add(expm1, b.div(expm1, b.add(expm1, one))))
    return b.select(b.cmp(b.abs(x), one, "LT"), small, large)


def _cosh(b: Builder, x: Instruction) -> Instruction:
    plus, minus = _exp_halves(b, x)
    return b.add(plus, minus)


def _real_or_complex(real: Unary, complex_: Unary | None) -> Callable[[OpCtx], Results]:
    """Float ops upcast to f32; complex ones use `complex_` (unsupported when None)."""
    upcast = _with_upcast(real)

    def convert(ctx: OpCtx) -> Results:
        ctx.arity(1)
        if ctx.operands[0].shape.element_type.is_complex:
            if complex_ is None:
                raise ctx.error("complex operands are not supported")
            return [complex_(Builder(ctx), ctx.operands[0])]
        return upcast(ctx)

    return convert


def _max_finite(b: Builder, x: Instruction) -> Instruction:
    return b.const(float(ml_dtypes.finfo(x.shape.element_type.numpy_dtype).max), x)


def _asin(b: Builder, x: Instruction) -> Instruction:
    one = b.const(1.0, x)
    root = b.unary(O.SQRT, b.mul(b.sub(one, x), b.add(one, x)))
    half_angle = b.binary(O.ATAN2, x, b.add(one, root))
    return b.add(half_angle, half_angle)


def _acos(b: Builder, x: Instruction) -> Instruction:
    one = b.const(1.0, x)
    root = b.unary(O.SQRT, b.mul(b.sub(one, x), b.add(one, x)))
    return b.binary(O.ATAN2, root, x)


def _atan(b: Builder, x: Instruction) -> Instruction:
    return b.binary(O.ATAN2, x, b.const(1.0, x))


def _acosh(b: Builder, x: Instruction) -> Instruction:
    two, one = b.const(2.0, x), b.const(1.0, x)
    big = b.cmp(x, b.div(_max_finite(b, x), two), "GE")
    sqrt_xm1 = b.unary(O.SQRT, b.sub(x, one))
    small = b.unary(O.LOG1P, b.mul(sqrt_xm1, b.add(b.unary(O.SQRT, b.add(x, one)), sqrt_xm1)))
    return b.select(big, b.add(b.unary(O.LOG, two), b.unary(O.LOG, x)), small)


def _asinh(b: Builder, x: Instruction) -> Instruction:
    ax = b.abs(x)
    big = b.cmp(ax, b.unary(O.SQRT, _max_finite(b, x)), "GE")
    one = b.const(1.0, x)
    ax2 = b.mul(ax, ax)
    small = b.unary(O.LOG1P, b.add(ax, b.div(ax2, b.add(one, b.unary(O.SQRT, b.add(one, ax2))))))
    large = b.add(b.unary(O.LOG, b.const(2.0, x)), b.unary(O.LOG, ax))
    return b.mul(b.unary(O.SIGN, x), b.select(big, large, small))


def _atanh(b: Builder, x: Instruction) -> Instruction:
    out = b.mul(b.sub(b.unary(O.LOG1P, x), b.unary(O.LOG1P, b.neg(x))), b.const(0.5, x))
    return b.select(b.cmp(b.abs(x), b.const(1.0, x), "GT"), b.const(math.nan, x), out)


# -- complex inverse trig (ChloDecompositionPatternsMath.td, modified Hull et al) ----------


def _parts(b: Builder, z: Instruction) -> tuple[Instruction, Instruction]:
    part = Shape.array(z.shape.element_type.component_type, z.shape.dimensions)
    return b._emit(O.REAL, part, z), b._emit(O.IMAG, part, z)


def _complex(b: Builder, re: Instruction, im: Instruction, like: Instruction) -> Instruction:
    return b._emit(O.COMPLEX, like.shape, re, im)


def _hypot_like(b: Builder, mx: Instruction, mn: Instruction) -> Instruction:
    """The generated hypot(mx, mn) of the asin/acos patterns (mx = max, mn = min)."""
    one, zero, two = b.const(1.0, mx), b.const(0.0, mx), b.const(2.0, mx)
    sqrt_two = b.unary(O.SQRT, two)
    r = b.mul(b.div(mn, mx), b.div(mn, mx))
    sqa = b.unary(O.SQRT, b.add(one, r))
    inner = b.select(
        b.binary(O.AND, b.cmp(sqa, one, "EQ"), b.cmp(r, zero, "GT")),
        b.add(mx, b.div(b.mul(mx, r), two)),
        b.mul(mx, sqa),
    )
    return b.select(b.cmp(mx, mn, "EQ"), b.mul(sqrt_two, mx), inner)


def _asin_acos_parts(
    b: Builder, z: Instruction
) -> tuple[Instruction, Instruction, Instruction, Instruction, Instruction]:
    """(signed_x, signed_y, p, q, imag) with real(asin z) = atan2(signed_x, q) ... where
    `q` is the shared second atan2 argument and `imag` the unsigned imaginary part."""
    signed_x, signed_y = _parts(b, z)
    x, y = b.abs(signed_x), b.abs(signed_y)
    one, zero, half, two = (b.const(v, x) for v in (1.0, 0.0, 0.5, 2.0))
    et = x.shape.element_type.numpy_dtype
    safe_max = b.div(b.unary(O.SQRT, _max_finite(b, x)), b.const(8.0, x))
    xp1, xm1 = b.add(x, one), b.sub(x, one)
    abs_xp1, abs_xm1 = b.abs(xp1), b.abs(xm1)
    r = _hypot_like(b, b.binary(O.MAXIMUM, abs_xp1, y), b.binary(O.MINIMUM, abs_xp1, y))
    s = _hypot_like(b, b.binary(O.MAXIMUM, abs_xm1, y), b.binary(O.MINIMUM, abs_xm1, y))
    a = b.mul(half, b.add(r, s))
    half_apx = b.mul(half, b.add(a, x))
    yy = b.mul(y, y)
    rpxp1 = b.add(r, xp1)
    smxm1 = b.sub(s, xm1)
    spxm1 = b.add(s, xm1)
    q = b.select(
        b.cmp(b.binary(O.MAXIMUM, x, y), safe_max, "GE"),
        y,
        b.select(
            b.cmp(x, one, "LE"),
            b.unary(O.SQRT, b.mul(half_apx, b.add(b.div(yy, rpxp1), smxm1))),
            b.mul(y, b.unary(O.SQRT, b.add(b.div(half_apx, rpxp1), b.div(half_apx, spxm1)))),
        ),
    )
    safe_max_opt = b.select(
        b.cmp(x, b.mul(safe_max, b.const(1e12, x)), "LT"),
        b.mul(safe_max, b.const(1e-06, x)),
        b.mul(safe_max, b.const(100.0, x)),
    )
    y_gt = b.cmp(y, safe_max_opt, "GE")
    mx = b.select(y_gt, y, x)
    xoy = b.select(
        b.binary(O.AND, y_gt, b.unary(O.NOT, b.cmp(y, b.const(math.inf, x), "EQ"))),
        b.div(x, y),
        zero,
    )
    large = b.add(
        b.add(b.unary(O.LOG, two), b.unary(O.LOG, mx)),
        b.mul(half, b.unary(O.LOG1P, b.mul(xoy, xoy))),
    )
    safe_min = float(np.sqrt(ml_dtypes.finfo(et).smallest_normal)) * 4
    small_y = b.binary(O.AND, b.cmp(y, b.const(safe_min, x), "LT"), b.cmp(x, one, "LT"))
    ap1 = b.add(a, one)
    half_yy = b.mul(half, yy)
    divide_half_yy_rpxp1 = b.div(half_yy, rpxp1)
    am1 = b.select(
        small_y,
        b.neg(b.div(b.mul(xp1, xm1), ap1)),
        b.select(
            b.cmp(x, one, "GE"),
            b.add(divide_half_yy_rpxp1, b.mul(half, spxm1)),
            b.select(
                b.cmp(a, b.const(1.5, x), "LE"),
                b.add(divide_half_yy_rpxp1, b.div(half_yy, smxm1)),
                b.sub(a, one),
            ),
        ),
    )
    sq = b.unary(O.SQRT, b.mul(am1, ap1))
    imag = b.select(
        b.cmp(mx, b.select(y_gt, safe_max_opt, safe_max), "GE"),
        large,
        b.select(small_y, b.div(y, sq), b.unary(O.LOG1P, b.add(am1, sq))),
    )
    return signed_x, signed_y, q, zero, imag


def _asin_complex(b: Builder, z: Instruction) -> Instruction:
    signed_x, signed_y, q, zero, imag = _asin_acos_parts(b, z)
    real = b.binary(O.ATAN2, signed_x, q)
    return _complex(b, real, b.select(b.cmp(signed_y, zero, "LT"), b.neg(imag), imag), z)


def _acos_complex(b: Builder, z: Instruction) -> Instruction:
    signed_x, signed_y, q, zero, imag = _asin_acos_parts(b, z)
    real = b.binary(O.ATAN2, q, signed_x)
    return _complex(b, real, b.select(b.cmp(signed_y, zero, "LT"), imag, b.neg(imag)), z)


def _acosh_complex(b: Builder, z: Instruction) -> Instruction:
    """acosh(z) = I * acos(z) when imag(z) >= 0, else -I * acos(z)."""
    signed_x, signed_y, q, zero, imag = _asin_acos_parts(b, z)
    acos_real = b.binary(O.ATAN2, q, signed_x)
    acos_imag = b.select(b.cmp(signed_y, zero, "LT"), imag, b.neg(imag))
    w = _complex(b, b.neg(acos_imag), acos_real, z)
    return b.select(b.cmp(signed_y, zero, "LT"), b.neg(w), w)


def _times_i(b: Builder, z: Instruction) -> Instruction:
    re, im = _parts(b, z)
    return _complex(b, b.neg(im), re, z)


def _times_minus_i(b: Builder, z: Instruction) -> Instruction:
    re, im = _parts(b, z)
    return _complex(b, im, b.neg(re), z)


def _asinh_complex(b: Builder, z: Instruction) -> Instruction:
    """asinh(z) = -I * asin(I * z)."""
    return _times_minus_i(b, _asin_complex(b, _times_i(b, z)))


def _atanh_complex(b: Builder, z: Instruction) -> Instruction:
    """functional_algorithms' complex atanh (real part log1p(4 * arg) / 4 over three
    regions, imaginary part atan2(2y, (1 - |x|)(1 + |x|) - y^2) / 2 or sign(y) * pi / 2)."""
    x, y = _parts(b, z)
    zero, one, four, half, quarter = (b.const(v, x) for v in (0.0, 1.0, 4.0, 0.5, 0.25))
    et = x.shape.element_type.numpy_dtype
    inv_negeps_value = float(1 / ml_dtypes.finfo(et).epsneg)
    inv_negeps = b.const(inv_negeps_value, x)
    safe_max = b.const(inv_negeps_value * inv_negeps_value, x)
    ax, ay = b.abs(x), b.abs(y)
    naxm1 = b.sub(one, ax)
    y2 = b.mul(y, y)
    sx = b.select(b.cmp(x, zero, "GE"), one, b.neg(one))
    sy = b.select(b.cmp(y, zero, "GE"), one, b.neg(one))
    in_safe = b.binary(O.AND, b.cmp(ax, safe_max, "LT"), b.cmp(ay, safe_max, "LT"))
    arg23 = b.div(ax, b.add(b.mul(naxm1, naxm1), y2))
    arg4 = b.div(one, ax)
    arg5 = b.div(b.div(one, b.add(b.div(ax, y), b.div(y, ax))), y)
    inf = b.const(math.inf, x)
    any_inf = b.binary(O.OR, b.cmp(ax, inf, "EQ"), b.cmp(ay, inf, "EQ"))
    arg5 = b.select(any_inf, zero, arg5)
    arg = b.select(in_safe, arg23, b.select(b.cmp(b.mul(ay, inv_negeps), ax, "LT"), arg4, arg5))
    real = b.mul(b.mul(sx, b.unary(O.LOG1P, b.mul(four, arg))), quarter)
    imag_safe = b.binary(O.ATAN2, b.add(y, y), b.sub(b.mul(naxm1, b.add(one, ax)), y2))
    imag = b.mul(b.select(in_safe, imag_safe, b.mul(sy, b.const(math.pi, x))), half)
    return _complex(b, real, imag, z)


def _atan_complex(b: Builder, z: Instruction) -> Instruction:
    """atan(z) = -I * atanh(I * z)."""
    return _times_minus_i(b, _atanh_complex(b, _times_i(b, z)))


def _real_or_complex_plain(real: Unary, complex_: Unary) -> Callable[[OpCtx], Results]:
    """A decomposition at the operand's own precision, real or complex."""

    def convert(ctx: OpCtx) -> Results:
        ctx.arity(1)
        x = ctx.operands[0]
        fn = complex_ if x.shape.element_type.is_complex else real
        return [fn(Builder(ctx), x)]

    return convert


CONVERTERS["chlo.sinh"] = _real_or_complex(_sinh, _sinh_large)
CONVERTERS["chlo.cosh"] = _real_or_complex(_cosh, _cosh)
CONVERTERS["chlo.asin"] = _real_or_complex_plain(_asin, _asin_complex)
CONVERTERS["chlo.acos"] = _real_or_complex_plain(_acos, _acos_complex)
CONVERTERS["chlo.atan"] = _real_or_complex_plain(_atan, _atan_complex)
CONVERTERS["chlo.acosh"] = _real_or_complex_plain(_acosh, _acosh_complex)
CONVERTERS["chlo.asinh"] = _real_or_complex_plain(_asinh, _asinh_complex)
CONVERTERS["chlo.atanh"] = _real_or_complex_plain(_atanh, _atanh_complex)


# -- predicates, conj, constants ------------------------------------------------------------


def _is_inf_like(negative: bool | None) -> Callable[[OpCtx], Results]:
    def convert(ctx: OpCtx) -> Results:
        ctx.arity(1)
        b = Builder(ctx)
        x = ctx.operands[0]
        if not x.shape.element_type.is_float:
            raise ctx.error("expects a floating-point operand")
        if negative is None:
            return [b.cmp(b.abs(x), b.const(math.inf, x), "EQ")]
        return [b.cmp(x, b.const(-math.inf if negative else math.inf, x), "EQ")]

    return convert


CONVERTERS["chlo.is_inf"] = _is_inf_like(None)
CONVERTERS["chlo.is_pos_inf"] = _is_inf_like(False)
CONVERTERS["chlo.is_neg_inf"] = _is_inf_like(True)


@chlo("chlo.conj")
def _conj(ctx: OpCtx) -> Results:
    ctx.arity(1)
    x = ctx.operands[0]
    if not x.shape.element_type.is_complex:
        return [x]
    part = Shape.array(x.shape.element_type.component_type, x.shape.dimensions)
    real = ctx.emit(O.REAL, part, [x])
    imag = ctx.emit(O.NEGATE, part, [ctx.emit(O.IMAG, part, [x])])
    return [ctx.emit(O.COMPLEX, x.shape, [real, imag])]


@chlo("chlo.constant_like")
def _constant_like(ctx: OpCtx) -> Results:
    ctx.arity(1)
    number = getattr(ctx.attr("value"), "value", None)
    if not isinstance(number, (int, float)):
        raise ctx.error("value should be a number")
    shape = ctx.result_shape() if ctx.op.result_types else ctx.operands[0].shape
    return [Builder(ctx).const(number, shape)]


@chlo("chlo.mulhi")
def _mulhi(ctx: OpCtx) -> Results:
    ctx.arity(2)
    return [ctx.emit(O.MULHI, ctx.result_shape(), ctx.operands)]


@chlo("chlo.constant")
def _chlo_constant(ctx: OpCtx) -> Results:
    return CONVERTERS["stablehlo.constant"](ctx)


# -- implicitly broadcasting binary ops -----------------------------------------------------

_BROADCAST_BINARY = {
    "add": O.ADD, "and": O.AND, "atan2": O.ATAN2, "complex": O.COMPLEX, "divide": O.DIVIDE,
    "maximum": O.MAXIMUM, "minimum": O.MINIMUM, "multiply": O.MULTIPLY, "or": O.OR,
    "power": O.POWER, "remainder": O.REMAINDER, "shift_left": O.SHIFT_LEFT,
    "shift_right_arithmetic": O.SHIFT_RIGHT_ARITHMETIC,
    "shift_right_logical": O.SHIFT_RIGHT_LOGICAL, "subtract": O.SUBTRACT, "xor": O.XOR,
}  # fmt: skip


def _mapping(x: Instruction, rank: int, explicit: Sequence[int] | None) -> list[int]:
    """Result dimension of each operand dimension: the explicit `broadcast_dimensions` for
    the lower-rank operand, numpy's trailing alignment otherwise."""
    if explicit is not None and x.shape.rank < rank:
        return list(explicit)
    return list(range(rank - x.shape.rank, rank))


def _broadcast_operand(
    ctx: OpCtx, x: Instruction, dims: Sequence[int], explicit: Sequence[int] | None
) -> Instruction:
    """`x` broadcast to `dims`."""
    if x.shape.dimensions == tuple(dims):
        return x
    mapping = _mapping(x, len(dims), explicit)
    return broadcast_in_dim(ctx, x, Shape.array(x.shape.element_type, dims), mapping)


def _broadcast_dims(
    ctx: OpCtx, operands: Sequence[Instruction], explicit: Sequence[int] | None = None
) -> tuple[int, ...]:
    """The broadcast of the operands' dimensions (the result type's, when it is static)."""
    rank = max(o.shape.rank for o in operands)
    aligned = []
    for o in operands:
        mapping = _mapping(o, rank, explicit)
        if len(mapping) != o.shape.rank or any(not 0 <= d < rank for d in mapping):
            raise ctx.error("broadcast_dimensions do not fit the operand ranks")
        shape = [1] * rank
        for i, d in enumerate(mapping):
            shape[d] = o.shape.dimensions[i]
        aligned.append(tuple(shape))
    try:
        dims = tuple(np.broadcast_shapes(*aligned))
    except ValueError:
        raise ctx.error("operand shapes are not broadcast-compatible") from None
    if ctx.op.result_types:
        declared = ctx.result_shape()
        if declared.rank == len(dims) and not declared.is_dynamic:
            return declared.dimensions
    return dims


def _broadcasting(opcode: Opcode) -> Callable[[OpCtx], Results]:
    def convert(ctx: OpCtx) -> Results:
        ctx.arity(2)
        explicit = ctx.get("broadcast_dimensions", get_ints)
        dims = _broadcast_dims(ctx, ctx.operands, explicit)
        lhs, rhs = (_broadcast_operand(ctx, o, dims, explicit) for o in ctx.operands)
        shape = ctx.result_shape() if ctx.op.result_types else lhs.shape
        return [ctx.emit(opcode, Shape.array(shape.element_type, dims), [lhs, rhs])]

    return convert


for _name, _opcode in _BROADCAST_BINARY.items():
    CONVERTERS[f"chlo.broadcast_{_name}"] = _broadcasting(_opcode)


@chlo("chlo.broadcast_compare")
def _broadcast_compare(ctx: OpCtx) -> Results:
    ctx.arity(2)
    explicit = ctx.get("broadcast_dimensions", get_ints)
    dims = _broadcast_dims(ctx, ctx.operands, explicit)
    ctx.operands = [_broadcast_operand(ctx, o, dims, explicit) for o in ctx.operands]
    return CONVERTERS["stablehlo.compare"](ctx)


@chlo("chlo.broadcast_select")
def _broadcast_select(ctx: OpCtx) -> Results:
    ctx.arity(3)
    dims = _broadcast_dims(ctx, ctx.operands)
    pred, a, b = (_broadcast_operand(ctx, o, dims, None) for o in ctx.operands)
    return [ctx.emit(O.SELECT, Shape.array(a.shape.element_type, dims), [pred, a, b])]


CONVERTERS["chlo.broadcast_next_after"] = lambda ctx: _pre_broadcast(ctx, _next_after)
CONVERTERS["chlo.broadcast_polygamma"] = lambda ctx: _pre_broadcast(
    ctx, CONVERTERS["chlo.polygamma"]
)
CONVERTERS["chlo.broadcast_zeta"] = lambda ctx: _pre_broadcast(ctx, CONVERTERS["chlo.zeta"])


def _pre_broadcast(ctx: OpCtx, fn: Callable[[OpCtx], Results]) -> Results:
    dims = _broadcast_dims(ctx, ctx.operands)
    ctx.operands = [_broadcast_operand(ctx, o, dims, None) for o in ctx.operands]
    return fn(ctx)


# -- ragged dot -----------------------------------------------------------------------------


@chlo("chlo.ragged_dot")
def _ragged_dot(ctx: OpCtx) -> Results:
    ctx.arity(3)
    f = ctx.need("ragged_dot_dimension_numbers", get_fields)
    tok = ctx.op.attr_tok("ragged_dot_dimension_numbers")
    attrs: dict[str, Any] = {
        "lhs_batch_dims": field_ints(f, "lhs_batching_dimensions", tok),
        "lhs_contracting_dims": field_ints(f, "lhs_contracting_dimensions", tok),
        "rhs_batch_dims": field_ints(f, "rhs_batching_dimensions", tok),
        "rhs_contracting_dims": field_ints(f, "rhs_contracting_dimensions", tok),
        "lhs_ragged_dims": field_ints(f, "lhs_ragged_dimensions", tok),
        "rhs_group_dims": field_ints(f, "rhs_group_dimensions", tok),
    }
    precision = ctx.get("precision_config", get_precision)
    if precision and any(p != "default" for p in precision):
        attrs["operand_precision"] = precision
    return [ctx.emit(O.RAGGED_DOT, ctx.result_shape(), ctx.operands, attrs)]
