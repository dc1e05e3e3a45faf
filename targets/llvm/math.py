"""Vectorizable f32 and f64 elementary functions (no libm calls).

exp, log, tanh, logistic and erf are the polynomials XLA:CPU emits (Cephes exp/log,
Eigen's rational tanh and erf), written with the same operation order and fused
multiply-adds as the interpreter's ports in hlotool/interpreter/kernels/elementwise.py,
so native and interpreted results agree to the last bit or within one ulp.

sin, cos, tan, atan2, log1p, expm1, cbrt, pow and fmod, which the interpreter takes from
numpy, are branch-free ports of fdlibm / FreeBSD msun in f64 (XLA:CPU's vectorized f64
routines derive from the same sources). Measured against a float64 reference, in ulps:
- f64: sin/cos < 1 on |x| < 2**19 pi/2 (Cody-Waite, 152 bits of pi/2) and beyond
  (Payne-Hanek, 159 bits of 2/pi around the exponent of x, absolute error ~2**-100 in the
  reduced argument, so only the few doubles closest to a multiple of pi/2 lose bits);
  tan < 2; atan2 <= 3 (1 on ordinary ranges); log1p, expm1, cbrt ~1; pow ~2 for
  |y| up to ~1000 (log and y log x in double-double); fmod exact.
- f32: atan2, log1p, cbrt, pow and fmod run the f64 code on the exactly widened value
  and round once (correctly rounded but for rare double roundings; pow bit-identical to
  the interpreter, which also computes it in f64). expm1 runs in f32 lanes (<= 1.25,
  numpy's f32 expm1 is 2). sin/cos/tan run in f32 lanes:
  Cody-Waite with three fmas below 71476, else an exact integer Payne-Hanek (Eigen's
  trig_reduce_huge), then Eigen's psincos_float polynomials (sin/cos <= 1.5, as numpy's
  own f32 routines) or fdlibm's f64 kernels for tan (<= 1.5, where numpy's is 3).
Denormals: inputs read as zero and results flush (the entry's DAZ/FTZ) as the
interpreter's arithmetic does; sin, tan and expm1 return a denormal x as is (XLA's
f(x) = x for tiny x), f32 fmod keeps a denormal dividend and result, f32 pow reads a
denormal base as +-2**-150. Known differences: f64 pow reads denormal operands as zero
and f64 pow/fmod flush denormal results, where numpy keeps them.

Every step is an LLVM instruction or an intrinsic the loop vectorizer widens (fma, floor,
roundeven, maximum, minimum, fabs, copysign); the reduction tables are read by gathers.
Bit tests on denormals are written as range tests LLVM cannot turn into float compares
(which DAZ would answer for a denormal as for zero).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from llvmlite import ir

from hlotool.interpreter.kernels import elementwise as ew
from hlotool.targets.llvm.irutils import F32, F64, I32, I64, intrinsic

_F = ir.Constant


def _c(v: float) -> ir.Constant:
    return _F(F32, float(ew._F(v)))


def fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    return intrinsic(b, "llvm.fma", F32, [x, y, z])


def horner(b: ir.IRBuilder, x: ir.Value, coefficients: Sequence[float]) -> ir.Value:
    """Horner evaluation with fused multiply-adds, as `_horner_fma`."""
    acc: ir.Value = _c(coefficients[0])
    for c in coefficients[1:]:
        acc = fma(b, acc, x, _c(c))
    return acc


def clamp(b: ir.IRBuilder, x: ir.Value, lo: float, hi: float) -> ir.Value:
    """np.clip(x, lo, hi) with NaN propagating."""
    x = intrinsic(b, "llvm.maximum", F32, [x, _c(lo)])
    return intrinsic(b, "llvm.minimum", F32, [x, _c(hi)])


def exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """XLA's f32 exp: range reduction by ln 2, degree-6 polynomial, scale by 2**n."""
    xc = clamp(b, x, -87.8, 88.8)
    n = intrinsic(b, "llvm.floor", F32, [fma(b, xc, _c(1.44269504088896341), _c(0.5))])
    n = intrinsic(b, "llvm.minimum", F32, [n, _c(127.0)])
    r = fma(b, n, _c(-0.693359375), xc)
    r = fma(b, n, _c(2.12194440e-4), r)
    y = horner(b, r, ew._EXP_POLY)
    y = b.fadd(fma(b, y, b.fmul(r, r), r), _c(1.0))
    return b.fmul(y, pow2(b, n))


def pow2(b: ir.IRBuilder, n: ir.Value) -> ir.Value:
    """2**n for integral f32 n in [-127, 127] built from exponent bits.

    Adding 1.5 * 2**23 + 127 puts n + 127 in the low mantissa bits, and shifting them
    into the exponent field drops the rest: plain vector float and integer ops (a
    float-to-int conversion would be scalarized with saturation on some targets, or poison on
    NaN without). A NaN n gives some finite scale, and the caller's NaN stays NaN."""
    biased = b.bitcast(b.fadd(n, _c(12582912.0 + 127.0)), I32)
    return b.bitcast(b.shl(biased, _F(I32, 23)), F32)


def log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """XLA's f32 log (Cephes): frexp, polynomial in the mantissa, special cases last."""
    bits = b.bitcast(x, I32)
    e = b.sub(b.and_(b.lshr(bits, _F(I32, 23)), _F(I32, 0xFF)), _F(I32, 126))
    m = b.bitcast(b.or_(b.and_(bits, _F(I32, 0x807FFFFF)), _F(I32, 0x3F000000)), F32)
    ef = b.sitofp(e, F32)
    small = b.fcmp_ordered("<", m, _c(0.707106781186547524))
    ef = b.select(small, b.fsub(ef, _c(1.0)), ef)
    m = b.fadd(b.fsub(m, _c(1.0)), b.select(small, m, _c(0.0)))
    m2 = b.fmul(m, m)
    m3 = b.fmul(m2, m)
    p = ew._LOG_POLY
    y = fma(b, fma(b, _c(p[0]), m, _c(p[1])), m, _c(p[2]))
    y1 = fma(b, fma(b, _c(p[3]), m, _c(p[4])), m, _c(p[5]))
    y2 = fma(b, fma(b, _c(p[6]), m, _c(p[7])), m, _c(p[8]))
    y = fma(b, fma(b, y, m3, y1), m3, y2)
    y = fma(b, y, m3, b.fmul(_c(-2.12194440e-4), ef))
    r = fma(b, _c(0.693359375), ef, b.fadd(b.fsub(m, b.fmul(_c(0.5), m2)), y))
    r = b.select(b.fcmp_ordered("==", x, _c(0.0)), _c(float("-inf")), r)
    r = b.select(b.fcmp_ordered("==", x, _c(float("inf"))), x, r)
    bad = b.fcmp_unordered("<", x, _c(0.0))
    return b.select(bad, _c(float("nan")), r)


def tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Eigen's rational tanh on the clamped input; |x| < 0.0004 returns x."""
    xc = clamp(b, x, -float(ew._TANH_CLAMP), float(ew._TANH_CLAMP))
    x2 = b.fmul(xc, xc)
    ratio = b.fdiv(b.fmul(horner(b, x2, ew._TANH_ALPHA), xc), horner(b, x2, ew._TANH_BETA))
    tiny = b.fcmp_ordered("<", intrinsic(b, "llvm.fabs", F32, [x]), _c(0.0004))
    return b.select(tiny, x, ratio)


def logistic(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """1 / (1 + exp(-x))."""
    return b.fdiv(_c(1.0), b.fadd(_c(1.0), exp(b, b.fneg(x))))


def erf(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Eigen's rational erf; saturates to +-1 beyond |x| >= 3.8325."""
    x2 = b.fmul(x, x)
    ratio = b.fdiv(b.fmul(horner(b, x2, ew._ERF_ALPHA), x), horner(b, x2, ew._ERF_BETA))
    big = b.fcmp_ordered(">=", intrinsic(b, "llvm.fabs", F32, [x]), _c(3.832506856900711))
    one = intrinsic(b, "llvm.copysign", F32, [_c(1.0), x])
    return b.select(big, one, ratio)


# -- f64 -------------------------------------------------------------------------------------
# XLA:CPU calls vectorized f64 routines; here every f64 function is branch-free IR on
# doubles (selects, no libm calls), so the loop vectorizer widens it like the f32 ones.


def _d(v: float) -> ir.Constant:
    return _F(F64, float(v))


def _polevl(b: ir.IRBuilder, x: ir.Value, coefficients: Sequence[float],
            monic: bool = False) -> ir.Value:
    """Cephes polevl (p1evl when `monic`: an implicit leading 1): Horner without fma."""
    acc: ir.Value = b.fadd(x, _d(coefficients[0])) if monic else _d(coefficients[0])
    for c in coefficients[1:]:
        acc = b.fadd(b.fmul(acc, x), _d(c))
    return acc


def _clamp64(b: ir.IRBuilder, x: ir.Value, lo: float, hi: float) -> ir.Value:
    x = intrinsic(b, "llvm.maximum", F64, [x, _d(lo)])
    return intrinsic(b, "llvm.minimum", F64, [x, _d(hi)])


def _pow2_64(b: ir.IRBuilder, k: ir.Value) -> ir.Value:
    """2**k for an i64 k in [-1022, 1023], built from exponent bits."""
    return b.bitcast(b.shl(b.add(k, _F(I64, 1023)), _F(I64, 52)), F64)


_EXP64_LO, _EXP64_HI = -708.3964185322641, 709.782712893384


def exp64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """XLA's f64 exp, op for op as the interpreter's `_exp64` (Cephes rational after a
    reduction by ln 2; no fma), so the results are bit-identical."""
    xc = _clamp64(b, x, _EXP64_LO, _EXP64_HI)
    n = intrinsic(b, "llvm.floor", F64, [b.fadd(b.fmul(xc, _d(1.4426950408889634073599)), _d(0.5))])
    g = b.fsub(xc, b.fmul(n, _d(0.693145751953125)))
    g = b.fsub(g, b.fmul(n, _d(1.42860682030941723212e-6)))
    g2 = b.fmul(g, g)
    p = b.fmul(_polevl(b, g2, ew._EXP64_P), g)
    q = _polevl(b, g2, ew._EXP64_Q)
    r = b.fadd(_d(1.0), b.fmul(_d(2.0), b.fdiv(p, b.fsub(q, p))))
    # ldexp(r, n) for n in [-1022, 1024]: two exact scalings by normal powers of two.
    k = intrinsic(b, "llvm.fptosi.sat", I64, [n], [I64, F64])
    half = b.ashr(k, _F(I64, 1))
    r = b.fmul(b.fmul(r, _pow2_64(b, half)), _pow2_64(b, b.sub(k, half)))
    r = b.select(b.fcmp_ordered(">", x, _d(_EXP64_HI)), _d(float("inf")), r)
    return b.select(b.fcmp_ordered("<", x, _d(_EXP64_LO)), _d(0.0), r)


def logistic64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """1 / (1 + exp(-x)) with XLA's f64 exp (bit-identical to the interpreter)."""
    return b.fdiv(_d(1.0), b.fadd(_d(1.0), exp64(b, b.fneg(x))))


# fdlibm's e_log.c: log(1 + f) = f - f*f/2 + s*(f*f/2 + R(s*s)), s = f / (2 + f).
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
       2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
       1.479819860511658591e-01)  # fmt: skip
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10


def log64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """fdlibm's f64 log (< 1 ulp): x = 2**k * m with m in [sqrt(1/2), sqrt(2)); a
    denormal reads as zero (DAZ), giving -inf as the interpreter's flushed input does."""
    bits = b.bitcast(x, I64)
    k = b.sub(b.and_(b.lshr(bits, _F(I64, 52)), _F(I64, 0x7FF)), _F(I64, 1023))
    m = b.bitcast(b.or_(b.and_(bits, _F(I64, (1 << 52) - 1)), _F(I64, 0x3FF << 52)), F64)
    big = b.fcmp_ordered(">", m, _d(1.41421356237309504880))
    m = b.select(big, b.fmul(m, _d(0.5)), m)
    k = b.select(big, b.add(k, _F(I64, 1)), k)
    f = b.fsub(m, _d(1.0))
    dk = b.sitofp(k, F64)
    s = b.fdiv(f, b.fadd(_d(2.0), f))
    z = b.fmul(s, s)
    w = b.fmul(z, z)
    t1 = b.fmul(w, _polevl(b, w, (_LG[5], _LG[3], _LG[1])))
    t2 = b.fmul(z, _polevl(b, w, (_LG[6], _LG[4], _LG[2], _LG[0])))
    r_ = b.fadd(t2, t1)
    hfsq = b.fmul(b.fmul(_d(0.5), f), f)
    inner = b.fsub(b.fsub(hfsq, b.fadd(b.fmul(s, b.fadd(hfsq, r_)), b.fmul(dk, _d(_LN2_LO)))), f)
    r = b.fsub(b.fmul(dk, _d(_LN2_HI)), inner)
    r = b.select(b.fcmp_ordered("==", x, _d(0.0)), _d(float("-inf")), r)
    r = b.select(b.fcmp_ordered("==", x, _d(float("inf"))), x, r)
    return b.select(b.fcmp_unordered("<", x, _d(0.0)), _d(float("nan")), r)


# Cephes tanh.c: x + x*z*P(z)/Q(z) below 0.625, 1 - 2/(exp(2|x|) + 1) above.
_TANH64_P = (-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3)
_TANH64_Q = (1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3)


def tanh64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Cephes tanh on |x| (~1 ulp), the sign copied from x (a denormal reads as zero)."""
    ax = intrinsic(b, "llvm.fabs", F64, [x])
    z = b.fmul(ax, ax)
    ratio = b.fdiv(b.fmul(z, _polevl(b, z, _TANH64_P)), _polevl(b, z, _TANH64_Q, monic=True))
    small = b.fadd(ax, b.fmul(ax, ratio))
    e = exp64(b, b.fadd(ax, ax))
    large = b.fsub(_d(1.0), b.fdiv(_d(2.0), b.fadd(e, _d(1.0))))
    r = b.select(b.fcmp_ordered("<", ax, _d(0.625)), small, large)
    return intrinsic(b, "llvm.copysign", F64, [r, x])


# Cephes ndtr.c: erf = x*T(x^2)/U(x^2) for |x| < 1, else 1 - erfc with
# erfc = exp(-x^2) * P(|x|)/Q(|x|) (|x| < 8; erf is +-1 to f64 precision beyond 6).
_ERF64_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
            7.00332514112805075473e3, 5.55923013010394962768e4)  # fmt: skip
_ERF64_U = (3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
            2.26290000613890934246e4, 4.92673942608635921086e4)  # fmt: skip
_ERFC64_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
             4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
             9.34528527171957607540e2, 1.02755188689515710272e3,
             5.57535335369399327526e2)  # fmt: skip
_ERFC64_Q = (1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
             9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
             1.65666309194161350182e3, 5.57535340817727675546e2)  # fmt: skip


def erf64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Cephes erf (~1 ulp); saturates to +-1 for |x| >= 6."""
    ax = intrinsic(b, "llvm.fabs", F64, [x])
    z = b.fmul(x, x)
    small = b.fdiv(b.fmul(x, _polevl(b, z, _ERF64_T)), _polevl(b, z, _ERF64_U, monic=True))
    ez = exp64(b, b.fneg(z))
    erfc = b.fdiv(b.fmul(ez, _polevl(b, ax, _ERFC64_P)), _polevl(b, ax, _ERFC64_Q, monic=True))
    large = b.fsub(_d(1.0), b.select(b.fcmp_ordered(">=", ax, _d(6.0)), _d(0.0), erfc))
    large = intrinsic(b, "llvm.copysign", F64, [large, x])
    return b.select(b.fcmp_ordered("<", ax, _d(1.0)), small, large)


# -- f64 sin, cos, tan, atan2, log1p, expm1, cbrt, pow, fmod ---------------------------------
# Branch-free ports of fdlibm (as XLA:CPU's vectorized f64 routines are ports of the same
# algorithms). f32 calls these on the exactly widened value and rounds once at the end.


def _fma64(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    return intrinsic(b, "llvm.fma", F64, [x, y, z])


def _fabs64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return intrinsic(b, "llvm.fabs", F64, [x])


def _copysign64(b: ir.IRBuilder, x: ir.Value, sign: ir.Value) -> ir.Value:
    return intrinsic(b, "llvm.copysign", F64, [x, sign])


def _horner64(b: ir.IRBuilder, x: ir.Value, coefficients: Sequence[float]) -> ir.Value:
    """c0 + x*(c1 + x*(c2 + ...)) (fdlibm's nesting, lowest degree first, no fma)."""
    acc: ir.Value = _d(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        acc = b.fadd(_d(c), b.fmul(x, acc))
    return acc


def _tiny64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """|x| is zero or denormal (an exponent-field test: exact under DAZ)."""
    bits = b.bitcast(x, I64)
    return b.icmp_unsigned("==", b.and_(bits, _F(I64, 0x7FF << 52)), _F(I64, 0))


def _signbit64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.icmp_signed("<", b.bitcast(x, I64), _F(I64, 0))


def _zero_of_sign(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _copysign64(b, _d(0.0), x)


# fdlibm's pi/2 in 33-bit pieces (n * piece is exact for |n| < 2**20) and the tail.
_PIO2_1, _PIO2_2 = 1.57079632673412561417e+00, 6.07710050630396597660e-11
_PIO2_3, _PIO2_3T = 2.02226624871116645580e-21, 8.47842766036889956997e-32
_TWO_OVER_PI = 6.36619772367581382433e-01
#: Largest |x| reduced by Cody-Waite (n < 2**20); beyond it the Payne-Hanek path.
_CODY_WAITE_MAX = 2.0**19 * 1.5707963267948966


def _two_sum(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(s, e) with s = fl(x + y) and s + e = x + y exactly (Knuth)."""
    s = b.fadd(x, y)
    bb = b.fsub(s, x)
    e = b.fadd(b.fsub(x, b.fsub(s, bb)), b.fsub(y, bb))
    return s, e


def _reduce_cody_waite(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(n, hi, lo): x = n * pi/2 + hi + lo, |hi + lo| <= ~pi/4, for |x| < 2**20 * pi/2
    (152 bits of pi/2; the first two products are exact)."""
    n = intrinsic(b, "llvm.roundeven", F64, [b.fmul(x, _d(_TWO_OVER_PI))])
    r = b.fsub(x, b.fmul(n, _d(_PIO2_1)))
    hi, lo = _two_sum(b, r, b.fneg(b.fmul(n, _d(_PIO2_2))))
    lo = b.fsub(b.fsub(lo, b.fmul(n, _d(_PIO2_3))), b.fmul(n, _d(_PIO2_3T)))
    y = b.fadd(hi, lo)
    return n, y, b.fsub(lo, b.fsub(y, hi))


_SIN_S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
          2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
_COS_C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
          -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)


def _kernel_sin(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """fdlibm __kernel_sin(x, y, 1) on |x + y| <= pi/4."""
    z = b.fmul(x, x)
    v = b.fmul(z, x)
    r = _horner64(b, z, _SIN_S[1:])
    inner = b.fsub(b.fmul(z, b.fsub(b.fmul(_d(0.5), y), b.fmul(v, r))), y)
    return b.fsub(x, b.fsub(inner, b.fmul(v, _d(_SIN_S[0]))))


def _kernel_cos(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """fdlibm (FreeBSD) __kernel_cos(x, y) on |x + y| <= pi/4."""
    z = b.fmul(x, x)
    w = b.fmul(z, z)
    r = b.fadd(b.fmul(z, _horner64(b, z, _COS_C[:3])),
               b.fmul(b.fmul(w, w), _horner64(b, z, _COS_C[3:])))
    hz = b.fmul(_d(0.5), z)
    w = b.fsub(_d(1.0), hz)
    tail = b.fadd(b.fsub(b.fsub(_d(1.0), w), hz), b.fsub(b.fmul(z, r), b.fmul(x, y)))
    return b.fadd(w, tail)


def _reduce(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(quadrant n mod 4 as i64, hi, lo) for any finite x: Cody-Waite below
    `_CODY_WAITE_MAX`, Payne-Hanek above (both computed, one selected)."""
    n, hi, lo = _reduce_cody_waite(b, x)
    q = b.and_(intrinsic(b, "llvm.fptosi.sat", I64, [n], [I64, F64]), _F(I64, 3))
    q2, hi2, lo2 = _reduce_payne_hanek(b, x)
    big = b.fcmp_ordered(">", _fabs64(b, x), _d(_CODY_WAITE_MAX))
    return b.select(big, q2, q), b.select(big, hi2, hi), b.select(big, lo2, lo)


def _sin_cos(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(quadrant, sin kernel, cos kernel) of the reduced x."""
    q, hi, lo = _reduce(b, x)
    return q, _kernel_sin(b, hi, lo), _kernel_cos(b, hi, lo)


def sin64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """fdlibm sin (< 1 ulp); a zero or denormal x is returned as is (XLA keeps it)."""
    q, s, c = _sin_cos(b, x)
    odd = b.trunc(q, ir.IntType(1))
    r = b.select(odd, c, s)
    r = b.select(b.icmp_unsigned(">=", q, _F(I64, 2)), b.fneg(r), r)
    return b.select(_tiny64(b, x), x, _inf_to_nan(b, x, r))


def cos64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """fdlibm cos (< 1 ulp)."""
    q, s, c = _sin_cos(b, x)
    odd = b.trunc(q, ir.IntType(1))
    r = b.select(odd, s, c)
    neg = b.icmp_unsigned("==", b.and_(b.add(q, _F(I64, 1)), _F(I64, 2)), _F(I64, 2))
    r = b.select(neg, b.fneg(r), r)
    return _inf_to_nan(b, x, r)


def tan64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """sin / cos of the reduced argument (< 2 ulp); zero or denormal x returned as is."""
    q, s, c = _sin_cos(b, x)
    odd = b.trunc(q, ir.IntType(1))
    r = b.select(odd, b.fdiv(b.fneg(c), s), b.fdiv(s, c))
    return b.select(_tiny64(b, x), x, _inf_to_nan(b, x, r))


def _inf_to_nan(b: ir.IRBuilder, x: ir.Value, r: ir.Value) -> ir.Value:
    inf = b.fcmp_ordered("==", _fabs64(b, x), _d(float("inf")))
    return b.select(inf, _d(float("nan")), r)


def _two_over_pi_bits(precision: int) -> int:
    """floor(2/pi * 2**precision), from Machin's formula in integer arithmetic."""
    guard = precision + 64
    one = 1 << guard

    def arctan_inverse(k: int) -> int:
        total, term, n, sign = 0, one // k, 1, 1
        while term:
            total += sign * (term // n)
            term //= k * k
            n, sign = n + 2, -sign
        return total

    pi = 16 * arctan_inverse(5) - 4 * arctan_inverse(239)
    return (2 << (guard + precision)) // pi


def _payne_hanek_table() -> list[float]:
    """Per exponent E in [0, 1023], three doubles G1, G2, G3: the bits of 2/pi with
    weights 2**(53-E) .. 2**(-105-E) (the higher ones only add multiples of 4 to
    x * 2/pi for x in [2**E, 2**(E+1))), in 53-bit pieces scaled by 2**E."""
    precision = 1300
    bits = _two_over_pi_bits(precision)
    table = []
    for e in range(1024):
        for hi_w, scale in ((53 - e, 1), (-e, -52), (-53 - e, -105)):
            chunk = (bits >> (precision + hi_w - 52)) & ((1 << 53) - 1)
            table.append(float(chunk) * 2.0**scale)
    return table


def _table_global(b: ir.IRBuilder) -> ir.GlobalVariable:
    return _constant_table(b, "two_over_pi", F64,
                           lambda: [_d(v) for v in _payne_hanek_table()])


def _constant_table(b: ir.IRBuilder, suffix: str, ty: ir.Type,
                    values: Callable[[], list[ir.Constant]]) -> ir.GlobalVariable:
    """A private constant array in the kernel's module. Named after the kernel's
    function: kernels are emitted one per module and their IR texts joined
    (codegen.build_llvm_module), so each one carries its own copy."""
    module = b.module
    name = f"{b.function.name}.{suffix}"
    g = module.globals.get(name)
    if g is None:
        items = values()
        array = ir.ArrayType(ty, len(items))
        g = ir.GlobalVariable(module, array, name)
        g.initializer = ir.Constant(array, items)
        g.global_constant = True
        g.linkage = "private"
    return g


_PIO2_HI, _PIO2_LO = 1.5707963267948966, 6.123233995736766e-17


def _reduce_payne_hanek(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(n mod 4, hi, lo) for |x| >= 1: x * 2/pi mod 4 from 159 bits of 2/pi around the
    exponent of x (a table gather), summed in double-double (absolute error ~2**-100)."""
    bits = b.bitcast(x, I64)
    e = b.sub(b.and_(b.lshr(bits, _F(I64, 52)), _F(I64, 0x7FF)), _F(I64, 1023))
    e = b.select(b.icmp_signed("<", e, _F(I64, 0)), _F(I64, 0), e)
    e = b.select(b.icmp_signed(">", e, _F(I64, 1023)), _F(I64, 1023), e)
    xs = b.bitcast(b.or_(b.and_(bits, _F(I64, (1 << 52) - 1)), _F(I64, 1023 << 52)), F64)
    table = _table_global(b)
    base = b.mul(e, _F(I64, 3))
    g = [b.load(b.gep(table, [_F(I64, 0), b.add(base, _F(I64, i))], inbounds=True))
         for i in range(3)]
    p1 = b.fmul(xs, g[0])
    e1 = _fma64(b, xs, g[0], b.fneg(p1))
    four = intrinsic(b, "llvm.roundeven", F64, [b.fmul(p1, _d(0.25))])
    p1 = b.fsub(p1, b.fmul(four, _d(4.0)))
    p2 = b.fmul(xs, g[1])
    e2 = _fma64(b, xs, g[1], b.fneg(p2))
    h, t1 = _two_sum(b, p1, p2)
    h, t2 = _two_sum(b, h, e1)
    n = intrinsic(b, "llvm.roundeven", F64, [h])
    f_hi = b.fsub(h, n)
    f_lo = b.fadd(b.fadd(b.fadd(t1, t2), e2), b.fmul(xs, g[2]))
    f, fl = _two_sum(b, f_hi, f_lo)
    r = b.fmul(f, _d(_PIO2_HI))
    r_lo = b.fadd(_fma64(b, f, _d(_PIO2_HI), b.fneg(r)),
                  b.fadd(b.fmul(f, _d(_PIO2_LO)), b.fmul(fl, _d(_PIO2_HI))))
    q = b.and_(intrinsic(b, "llvm.fptosi.sat", I64, [n], [I64, F64]), _F(I64, 3))
    neg = _signbit64(b, x)
    q = b.select(neg, b.and_(b.sub(_F(I64, 4), q), _F(I64, 3)), q)
    return q, b.select(neg, b.fneg(r), r), b.select(neg, b.fneg(r_lo), r_lo)


# fdlibm s_atan.c: atan(t) = t - t*(s1 + s2) on |t| < 7/16, after t -> (t - c)/(1 + c t).
_AT = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
       -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
       6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
       -3.65315727442169155270e-02, 1.62858201153657823623e-02)  # fmt: skip
_ATAN_HI = (4.63647609000806093515e-01, 7.85398163397448278999e-01,
            9.82793723247329054082e-01, 1.57079632679489655800e+00)
_ATAN_LO = (2.26987774529616870924e-17, 3.06161699786838301793e-17,
            1.39033110312309984516e-17, 6.12323399573676603587e-17)
_PI_HI, _PI_LO = 3.1415926535897931160e+00, 1.2246467991473531772e-16


def _atan_positive(b: ir.IRBuilder, a: ir.Value) -> ir.Value:
    """fdlibm atan for a >= 0 (inf included), its five ranges chosen by selects."""
    sel = b.select
    lt = lambda c: b.fcmp_ordered("<", a, _d(c))  # noqa: E731
    one = _d(1.0)
    num = sel(lt(11 / 16), b.fsub(b.fmul(_d(2.0), a), one),
              sel(lt(19 / 16), b.fsub(a, one),
                  sel(lt(39 / 16), b.fsub(a, _d(1.5)), _d(-1.0))))
    den = sel(lt(11 / 16), b.fadd(_d(2.0), a),
              sel(lt(19 / 16), b.fadd(a, one),
                  sel(lt(39 / 16), b.fadd(one, b.fmul(_d(1.5), a)), a)))
    small = lt(7 / 16)
    t = sel(small, a, b.fdiv(num, den))
    z = b.fmul(t, t)
    w = b.fmul(z, z)
    s1 = b.fmul(z, _horner64(b, w, _AT[0::2]))
    s2 = b.fmul(w, _horner64(b, w, _AT[1::2]))
    ts = b.fmul(t, b.fadd(s1, s2))

    def pick(values: Sequence[float]) -> ir.Value:
        return sel(lt(11 / 16), _d(values[0]), sel(lt(19 / 16), _d(values[1]),
                                                   sel(lt(39 / 16), _d(values[2]), _d(values[3]))))

    reduced = b.fsub(pick(_ATAN_HI), b.fsub(b.fsub(ts, pick(_ATAN_LO)), t))
    r = sel(small, b.fsub(t, ts), reduced)
    return sel(b.fcmp_unordered("uno", a, a), a, r)


def atan2_64(b: ir.IRBuilder, y: ir.Value, x: ir.Value) -> ir.Value:
    """fdlibm atan2 (~1 ulp): atan(|y/x|) moved to the quadrant of (x, y), with C's
    special values (signed zeros, infinities, NaN)."""
    ay, ax = _fabs64(b, y), _fabs64(b, x)
    a = b.fdiv(ay, ax)
    zero = b.and_(b.fcmp_ordered("==", ay, _d(0.0)), b.fcmp_ordered("==", ax, _d(0.0)))
    inf = _d(float("inf"))
    infs = b.and_(b.fcmp_ordered("==", ay, inf), b.fcmp_ordered("==", ax, inf))
    a = b.select(zero, _d(0.0), b.select(infs, _d(1.0), a))
    z = _atan_positive(b, a)
    r = b.select(_signbit64(b, x), b.fsub(_d(_PI_HI), b.fsub(z, _d(_PI_LO))), z)
    r = _copysign64(b, r, y)
    nan = b.fcmp_unordered("uno", x, y)
    return b.select(nan, _d(float("nan")), r)


def log1p64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """log(u) + (x - (u - 1)) / u with u = 1 + x (the rounding of 1 + x corrected to
    first order; ~1 ulp), f64 log as `log64`; a zero or denormal x gives a zero of its
    sign (DAZ), -1 gives -inf."""
    u = b.fadd(_d(1.0), x)
    c = b.fdiv(b.fsub(x, b.fsub(u, _d(1.0))), u)
    r = b.fadd(log64(b, u), c)
    r = b.select(b.fcmp_ordered("==", x, _d(float("inf"))), x, r)
    r = b.select(b.fcmp_ordered("==", x, _d(-1.0)), _d(float("-inf")), r)
    r = b.select(b.fcmp_unordered("<", x, _d(-1.0)), _d(float("nan")), r)
    return b.select(_tiny64(b, x), _zero_of_sign(b, x), r)


_LN2_INV = 1.44269504088896338700e+00
_EXPM1_Q = (-3.33333333333331316428e-02, 1.58730158725481460165e-03, -7.93650757867487942473e-05,
            4.00821782732936239552e-06, -2.01099218183624371326e-07)  # fmt: skip


def expm1_64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """fdlibm's expm1 polynomial on r = x - k ln2 (|r| <= ln2/2), rebuilt as
    2**k * expm1(r) + (2**k - 1) (~1 ulp); a zero or denormal x is returned as is."""
    xc = _clamp64(b, x, -40.0, 710.0)
    k = intrinsic(b, "llvm.roundeven", F64, [b.fmul(xc, _d(_LN2_INV))])
    hi = b.fsub(xc, b.fmul(k, _d(_LN2_HI)))
    lo = b.fmul(k, _d(_LN2_LO))
    r = b.fsub(hi, lo)
    c = b.fsub(b.fsub(hi, r), lo)
    hfx = b.fmul(_d(0.5), r)
    hxs = b.fmul(r, hfx)
    r1 = b.fadd(_d(1.0), b.fmul(hxs, _horner64(b, hxs, _EXPM1_Q)))
    t = b.fsub(_d(3.0), b.fmul(r1, hfx))
    e = b.fmul(hxs, b.fdiv(b.fsub(r1, t), b.fsub(_d(6.0), b.fmul(r, t))))
    em1 = b.fsub(r, b.fsub(b.fmul(r, e), hxs))
    em1 = b.fadd(em1, _fma64(b, c, em1, c))
    ki = intrinsic(b, "llvm.fptosi.sat", I64, [k], [I64, F64])
    scale = _pow2_64(b, b.select(b.icmp_signed(">", ki, _F(I64, 1000)), _F(I64, 0), ki))
    near = b.fadd(b.fmul(scale, em1), b.fsub(scale, _d(1.0)))
    half = b.ashr(ki, _F(I64, 1))
    far = b.fmul(b.fmul(b.fadd(em1, _d(1.0)), _pow2_64(b, half)), _pow2_64(b, b.sub(ki, half)))
    res = b.select(b.icmp_signed(">", ki, _F(I64, 53)), far, near)
    res = b.select(b.fcmp_ordered(">", x, _d(_EXP64_HI)), _d(float("inf")), res)
    return b.select(_tiny64(b, x), x, res)


_CBRT_B1 = 715094163
_CBRT_P = (1.87595182427177009643, -1.88497979543377169875, 1.621429720105354466140,
           -0.758397934778766047437, 0.145996192886612446982)


def cbrt64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """FreeBSD's cbrt (< 0.667 ulp): an exponent-bits estimate, a polynomial refinement
    to 23 bits, one Newton step; a zero or denormal x gives a zero of its sign (DAZ)."""
    ax = _fabs64(b, x)
    hx = b.trunc(b.lshr(b.bitcast(ax, I64), _F(I64, 32)), I32)
    high = b.zext(b.add(b.udiv(hx, _F(I32, 3)), _F(I32, _CBRT_B1)), I64)
    t = b.bitcast(b.shl(high, _F(I64, 32)), F64)
    r = b.fmul(b.fmul(t, t), b.fdiv(t, ax))
    p = _CBRT_P
    poly = b.fadd(b.fadd(_d(p[0]), b.fmul(r, b.fadd(_d(p[1]), b.fmul(r, _d(p[2]))))),
                  b.fmul(b.fmul(b.fmul(r, r), r), b.fadd(_d(p[3]), b.fmul(r, _d(p[4])))))
    t = b.fmul(t, poly)
    rounded = b.and_(b.add(b.bitcast(t, I64), _F(I64, 0x80000000)), _F(I64, -(1 << 30)))
    t = b.bitcast(rounded, F64)
    s = b.fmul(t, t)
    r = b.fdiv(ax, s)
    w = b.fadd(t, t)
    r = b.fdiv(b.fsub(r, t), b.fadd(w, r))
    t = b.fadd(t, b.fmul(t, r))
    special = b.fcmp_unordered(">=", ax, _d(float("inf")))
    t = b.select(special, b.fadd(ax, ax), t)
    t = _copysign64(b, t, x)
    return b.select(_tiny64(b, x), _zero_of_sign(b, x), t)


def _is_integer(b: ir.IRBuilder, y: ir.Value) -> ir.Value:
    return b.fcmp_ordered("==", intrinsic(b, "llvm.floor", F64, [y]), y)


_LOG_SERIES = tuple(2.0 / (2 * i + 3) for i in range(13))


def _log_dd(b: ir.IRBuilder, ax: ir.Value) -> tuple[ir.Value, ir.Value]:
    """log(ax) as hi + lo (absolute error ~2**-61) for a positive normal ax: k ln2 +
    2 atanh(s), s = f / (2 + f), with k ln2 and 2s carried in double-double and the
    rest of the series (13 exact Taylor terms in s**2) in one double."""
    bits = b.bitcast(ax, I64)
    k = b.sub(b.and_(b.lshr(bits, _F(I64, 52)), _F(I64, 0x7FF)), _F(I64, 1023))
    m = b.bitcast(b.or_(b.and_(bits, _F(I64, (1 << 52) - 1)), _F(I64, 0x3FF << 52)), F64)
    big = b.fcmp_ordered(">", m, _d(1.41421356237309504880))
    m = b.select(big, b.fmul(m, _d(0.5)), m)
    k = b.select(big, b.add(k, _F(I64, 1)), k)
    f = b.fsub(m, _d(1.0))
    dh = b.fadd(_d(2.0), f)
    dl = b.fsub(f, b.fsub(dh, _d(2.0)))
    s = b.fdiv(f, dh)
    sl = b.fdiv(b.fsub(_fma64(b, b.fneg(s), dh, f), b.fmul(s, dl)), dh)
    z = b.fmul(s, s)
    tail = b.fmul(b.fmul(s, z), _horner64(b, z, _LOG_SERIES))
    dk = b.sitofp(k, F64)
    hi, e = _two_sum(b, b.fmul(dk, _d(_LN2_HI)), b.fmul(_d(2.0), s))
    lo = b.fadd(e, b.fadd(b.fadd(b.fmul(_d(2.0), sl), tail), b.fmul(dk, _d(_LN2_LO))))
    h = b.fadd(hi, lo)
    return h, b.fsub(lo, b.fsub(h, hi))


def pow64(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """C pow: exp(y * log|x|) with log|x| and the product in double-double, exp64 of
    the high part times 1 + the low part (~2 ulp up to |y| ~ 1000), and C99's special
    values (pow(x, 0) = pow(1, y) = 1, odd integer powers of negatives and signed zeros,
    NaN for a negative base and non-integer power). Denormal operands read as zero and
    denormal results flush (DAZ/FTZ), where numpy keeps them."""
    ax = _fabs64(b, x)
    ay = _fabs64(b, y)
    inf = _d(float("inf"))
    lh, ll = _log_dd(b, ax)
    zh = b.fmul(y, lh)
    zl = b.fadd(_fma64(b, y, lh, b.fneg(zh)), b.fmul(y, ll))
    r = exp64(b, zh)
    usable = b.and_(b.fcmp_ordered("<", _fabs64(b, zh), _d(1000.0)),
                    b.fcmp_ordered("<", _fabs64(b, r), _d(float("inf"))))
    r = b.select(usable, _fma64(b, r, zl, r), r)
    # Zero tested on the bits: LLVM, assuming IEEE denormals, would otherwise move the
    # compare through the f32 caller's widening, where DAZ reads a denormal as zero.
    zero = _tiny64(b, ax)
    r = b.select(zero, b.select(b.fcmp_ordered("<", y, _d(0.0)), inf, _d(0.0)), r)
    r = b.select(b.fcmp_ordered("==", ax, inf),
                 b.select(b.fcmp_ordered("<", y, _d(0.0)), _d(0.0), inf), r)
    odd = b.and_(_is_integer(b, y), b.not_(_is_integer(b, b.fmul(y, _d(0.5)))))
    r = b.select(b.and_(odd, _signbit64(b, x)), b.fneg(r), r)
    finite = lambda v: b.fcmp_ordered("<", _fabs64(b, v), inf)  # noqa: E731
    bad = b.and_(b.and_(b.fcmp_ordered("<", x, _d(0.0)), finite(x)),
                 b.and_(finite(y), b.not_(_is_integer(b, y))))
    r = b.select(bad, _d(float("nan")), r)
    r = b.select(b.and_(b.fcmp_ordered("==", ax, _d(1.0)), b.fcmp_ordered("==", ay, inf)),
                 _d(1.0), r)
    r = b.select(b.fcmp_unordered("uno", x, y), _d(float("nan")), r)
    one = b.or_(b.fcmp_ordered("==", x, _d(1.0)), b.fcmp_ordered("==", y, _d(0.0)))
    return b.select(one, _d(1.0), r)


def _exponent(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    return b.and_(b.lshr(b.bitcast(v, I64), _F(I64, 52)), _F(I64, 0x7FF))


#: Quotient bits one fmod level removes (the biased reciprocal keeps q - Q in {0, 1}).
_FMOD_STEP = 45


def fmod64(b: ir.IRBuilder, x: ir.Value, y: ir.Value, levels: int = 46) -> ir.Value:
    """C fmod, exact: |x| reduced modulo |y| * 2**k for k falling by _FMOD_STEP per level
    (capped so that |y| 2**k and its reciprocal stay normal); `levels` covers exponent gaps
    up to ~_FMOD_STEP * levels (46: all of f64). Each level takes q = trunc(r * inv)
    with inv = (1 + 2**-46) / (|y| 2**k) rounded, so q is the true quotient Q or Q + 1
    while Q < 2**45, and r - q |y| 2**k (one fma, magnitude below |y| 2**k) is exact; when
    it is negative, r - (q - 1) |y| 2**k is taken instead. The scales and reciprocals do
    not depend on r, so the dependent chain per level is a multiply, trunc, fma and a
    select (no division). A last level divides, for |y| whose reciprocal is denormal. A zero or
    denormal x is returned as is; NaN for y = 0 (a denormal y reads as zero) or x = inf."""
    d = _fabs64(b, y)
    dbits = b.bitcast(d, I64)
    top = b.sub(_F(I64, 2040), _exponent(b, d))
    inv = b.bitcast(b.fmul(b.fdiv(_d(1.0), d), _d(1.0 + 2.0**-46)), I64)
    r = _fabs64(b, x)
    for level in reversed(range(levels)):
        k = b.select(b.icmp_signed("<", top, _F(I64, _FMOD_STEP * level)), top,
                     _F(I64, _FMOD_STEP * level))
        k = b.shl(b.select(b.icmp_signed("<", k, _F(I64, 0)), _F(I64, 0), k), _F(I64, 52))
        big = b.bitcast(b.add(dbits, k), F64)
        q = intrinsic(b, "llvm.trunc", F64, [b.fmul(r, b.bitcast(b.sub(inv, k), F64))])
        r = _fmod_step(b, r, q, big)
    r = _fmod_step(b, r, intrinsic(b, "llvm.trunc", F64, [b.fdiv(r, d)]), d)
    r = _copysign64(b, r, x)
    nan = b.or_(b.fcmp_ordered("==", d, _d(0.0)),
                b.fcmp_unordered(">=", _fabs64(b, x), _d(float("inf"))))
    r = b.select(b.or_(_tiny64(b, x), b.fcmp_ordered("==", d, _d(float("inf")))), x, r)
    return b.select(b.or_(nan, b.fcmp_unordered("uno", y, y)), _d(float("nan")), r)


def _fmod_step(b: ir.IRBuilder, r: ir.Value, q: ir.Value, big: ir.Value) -> ir.Value:
    """r - q * big, or r - (q - 1) * big when that is negative (both exact fmas; the
    sign bit also catches a negative difference FTZ flushed to -0)."""
    first = _fma64(b, b.fneg(q), big, r)
    again = _fma64(b, b.fsub(_d(1.0), q), big, r)
    return b.select(_signbit64(b, first), again, first)


# -- f32 through f64 ---------------------------------------------------------------------------


def _tiny32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """|x| is zero or denormal (an exponent-field test: exact under DAZ)."""
    bits = b.bitcast(x, I32)
    return b.icmp_unsigned("==", b.and_(bits, _F(I32, 0x7F800000)), _F(I32, 0))


def exact_f64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """An f32 as the f64 it equals, denormals included (fpext reads them as zero)."""
    bits = b.bitcast(x, I32)
    magnitude = b.and_(bits, _F(I32, 0x7FFFFFFF))
    tiny = b.fmul(b.sitofp(magnitude, F64), _d(2.0**-149))
    wide = b.select(_tiny32(b, x), tiny, b.fpext(b.bitcast(magnitude, F32), F64))
    return b.select(b.icmp_signed("<", bits, _F(I32, 0)), b.fneg(wide), wide)


def exact_f32(b: ir.IRBuilder, r: ir.Value) -> ir.Value:
    """An f64 known to be an f32 value, narrowed exactly, denormals included (fptrunc
    would flush them)."""
    ar = _fabs64(b, r)
    scaled = b.fptosi(b.fmul(ar, _d(2.0**149)), I32)
    sign = b.and_(b.trunc(b.lshr(b.bitcast(r, I64), _F(I64, 32)), I32), _F(I32, -(1 << 31)))
    denormal = b.bitcast(b.or_(scaled, sign), F32)
    small = b.fcmp_ordered("<", ar, _d(2.0**-126))
    return b.select(small, denormal, b.fptrunc(r, F32))


def _via_f64(fn64: Callable[[ir.IRBuilder, ir.Value], ir.Value],
             keep_tiny: bool) -> Callable[[ir.IRBuilder, ir.Value], ir.Value]:
    """The f32 function: fn64 on the widened value (denormals read as zero), rounded
    once; `keep_tiny` returns a zero or denormal x as is (sin, tan, expm1 in XLA)."""

    def f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
        r = b.fptrunc(fn64(b, b.fpext(x, F64)), F32)
        return b.select(_tiny32(b, x), x, r) if keep_tiny else r

    f32.__name__ = fn64.__name__.removesuffix("64").rstrip("_")
    return f32


# f32 sin, cos, tan in f32 lanes: Cody-Waite with three fmas (Eigen's and numpy's
# constants) for |x| < _CW32_MAX, else an exact Payne-Hanek in 64-bit integers (Eigen's
# trig_reduce_huge scheme); Eigen's psincos_float polynomials on [-pi/4, pi/4].
_CW32 = (1.57079601287841796875, 3.1391647326017846353352069854736328125e-07,
         5.390302529957764765544681040410068817436695098876953125e-15)
_CW32_MAX = 71476.0625
_SIN32 = (-1.959234114083702898469196984621021329076029360294342041015625e-4,
          8.3326873655616851693794799871284340042620897293090820312500e-3,
          -0.1666666203982298255503735617821803316473960876464843750)
_COS32 = (2.4372266125283204019069671630859375e-05, -0.00138865201734006404876708984375,
          0.041666619479656219482421875, -0.5, 1.0)
#: Zero bytes before the bits of 1/(2 pi) in `_inv_two_pi_words`, so that every normal
#: f32 exponent finds its window (byte offset (biased exponent + 2) / 8).
_PAD_BYTES = 19


def _inv_two_pi_words() -> list[int]:
    """word[k] = bytes k .. k+3 (big-endian) of 1/(2 pi) in binary, after _PAD_BYTES
    zero bytes: the sliding 32-bit windows Eigen's two_over_pi table holds."""
    nbytes = 30
    t = _two_over_pi_bits(8 * nbytes - 2)  # 1/(2 pi) = (2/pi) / 4
    data = bytes(_PAD_BYTES) + t.to_bytes(nbytes, "big")
    return [int.from_bytes(data[k:k + 4], "big") for k in range(len(data) - 3)]


def _words_global(b: ir.IRBuilder) -> ir.GlobalVariable:
    return _constant_table(b, "inv_two_pi", I32,
                           lambda: [_F(I32, w - (1 << 32) if w >= 1 << 31 else w)
                                    for w in _inv_two_pi_words()])


def _reduce_huge32(b: ir.IRBuilder, ax: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(n mod 4 as i32, r) with ax * 2/pi = n + r * 2/pi for a positive normal f32: the
    24-bit mantissa times 96 bits of 1/(2 pi) from its exponent's window, in 2.62 fixed
    point mod 4 (error < 2**-60), the fraction converted through f64."""
    bits = b.bitcast(ax, I32)
    shift = b.add(b.lshr(bits, _F(I32, 23)), _F(I32, 8 * _PAD_BYTES - 150))
    i = b.zext(b.lshr(shift, _F(I32, 3)), I64)
    mant = b.or_(b.and_(bits, _F(I32, 0x7FFFFF)), _F(I32, 0x800000))
    m32 = b.shl(mant, b.and_(shift, _F(I32, 7)))
    table = _words_global(b)
    w = [b.load(b.gep(table, [_F(I64, 0), b.add(i, _F(I64, 4 * k))], inbounds=True))
         for k in range(3)]
    m = b.zext(m32, I64)
    top = b.shl(b.zext(b.mul(m32, w[0]), I64), _F(I64, 32))
    p = b.add(b.add(top, b.mul(m, b.zext(w[1], I64))),
              b.lshr(b.mul(m, b.zext(w[2], I64)), _F(I64, 32)))
    q = b.lshr(b.add(p, _F(I64, 1 << 61)), _F(I64, 62))
    frac = b.sub(p, b.shl(q, _F(I64, 62)))
    r = b.fmul(b.sitofp(frac, F64), _d(1.5707963267948966 * 2.0**-62))
    return b.trunc(q, I32), b.fptrunc(r, F32)


def _sincos32(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(quadrant as i32, sin poly, cos poly) of the reduced f32 x."""
    q, r = _reduce32(b, x)
    r2 = b.fmul(r, r)
    s = fma(b, b.fmul(horner(b, r2, _SIN32), r2), r, r)
    return q, s, horner(b, r2, _COS32)


def _reduce32(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(n mod 4 as i32, r) with x = n pi/2 + r, |r| <= ~pi/4, for a finite f32 x."""
    ax = intrinsic(b, "llvm.fabs", F32, [x])
    small = b.fcmp_ordered("<", ax, _c(_CW32_MAX))
    n = intrinsic(b, "llvm.roundeven", F32, [b.fmul(x, _c(0.636619772367581343))])
    n = b.select(small, n, _c(0.0))
    r = x
    for c in _CW32:
        r = fma(b, n, _c(-c), r)
    q = b.fptosi(n, I32)
    q_big, r_big = _reduce_huge32(b, ax)
    neg = b.icmp_signed("<", b.bitcast(x, I32), _F(I32, 0))
    q_big = b.select(neg, b.sub(_F(I32, 0), q_big), q_big)
    r_big = b.select(neg, b.fneg(r_big), r_big)
    return b.and_(b.select(small, q, q_big), _F(I32, 3)), b.select(small, r, r_big)


def _finish32(b: ir.IRBuilder, x: ir.Value, r: ir.Value, keep_tiny: bool) -> ir.Value:
    """NaN for an infinite or NaN x; a zero or denormal x itself when `keep_tiny`."""
    finite = b.fcmp_ordered("<", intrinsic(b, "llvm.fabs", F32, [x]), _c(float("inf")))
    r = b.select(finite, r, b.fsub(x, x))
    return b.select(_tiny32(b, x), x, r) if keep_tiny else r


def sin(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f32 sin (~1 ulp); a zero or denormal x is returned as is (XLA keeps it)."""
    q, s, c = _sincos32(b, x)
    r = b.select(b.trunc(q, ir.IntType(1)), c, s)
    r = b.select(b.icmp_unsigned(">=", q, _F(I32, 2)), b.fneg(r), r)
    return _finish32(b, x, r, keep_tiny=True)


def cos(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f32 cos (~1 ulp)."""
    q, s, c = _sincos32(b, x)
    r = b.select(b.trunc(q, ir.IntType(1)), s, c)
    neg = b.icmp_unsigned("==", b.and_(b.add(q, _F(I32, 1)), _F(I32, 2)), _F(I32, 2))
    return _finish32(b, x, b.select(neg, b.fneg(r), r), keep_tiny=False)


def tan(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f32 tan: sin / cos of the f32-reduced argument with fdlibm's f64 kernels, rounded
    once (~1 ulp)."""
    q, r = _reduce32(b, x)
    r64 = b.fpext(r, F64)
    s, c = _kernel_sin(b, r64, _d(0.0)), _kernel_cos(b, r64, _d(0.0))
    t = b.select(b.trunc(q, ir.IntType(1)), b.fdiv(b.fneg(c), s), b.fdiv(s, c))
    return _finish32(b, x, b.fptrunc(t, F32), keep_tiny=True)


#: Taylor coefficients 1/2!, ..., 1/8! of (expm1(r) - r) / r**2 (error < 2**-30 on
#: |r| <= ln2 / 2).
_EXPM1_32 = tuple(1.0 / math.factorial(n) for n in range(8, 1, -1))


def expm1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f32 expm1 in f32 lanes (~1.5 ulp): k = round(x / ln 2), r = x - k ln 2 (Cephes'
    two-part ln 2, fmas), expm1(r) by Taylor to degree 8, then 2**k expm1(r) + (2**k - 1)
    as one fma; -1 below -18, inf above 88.72; a zero or denormal x is returned as is."""
    xc = clamp(b, x, -18.0, 88.8)
    k = intrinsic(b, "llvm.roundeven", F32, [b.fmul(xc, _c(1.44269504088896341))])
    r = fma(b, k, _c(-0.693359375), xc)
    r = fma(b, k, _c(2.12194440e-4), r)
    p = fma(b, b.fmul(r, r), horner(b, r, _EXPM1_32), r)
    s = pow2(b, intrinsic(b, "llvm.minimum", F32, [k, _c(127.0)]))
    res = fma(b, s, p, b.fsub(s, _c(1.0)))
    res = b.fmul(res, b.select(b.fcmp_ordered(">", k, _c(127.0)), _c(2.0), _c(1.0)))
    res = b.select(b.fcmp_ordered(">", x, _c(88.8)), _c(float("inf")), res)
    return b.select(_tiny32(b, x), x, res)


log1p = _via_f64(log1p64, keep_tiny=False)
cbrt = _via_f64(cbrt64, keep_tiny=False)


def atan2(b: ir.IRBuilder, y: ir.Value, x: ir.Value) -> ir.Value:
    """f32 atan2 through f64 (denormals read as zero, the result rounded once)."""
    return b.fptrunc(atan2_64(b, b.fpext(y, F64), b.fpext(x, F64)), F32)


def pow(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:  # noqa: A001
    """f32 pow as XLA:CPU computes it: in f64, a denormal base read as +-2**-150, the
    exponent exact, the result rounded (and flushed) to f32."""
    # One unsigned range test on the bits: LLVM would turn a "nonzero" bit test into a
    # float compare, which DAZ answers as zero for a denormal.
    magnitude = b.and_(b.bitcast(x, I32), _F(I32, 0x7FFFFFFF))
    denormal = b.icmp_unsigned("<", b.sub(magnitude, _F(I32, 1)), _F(I32, 0x7FFFFF))
    sign = b.select(b.icmp_signed("<", b.bitcast(x, I32), _F(I32, 0)), _d(-1.0), _d(1.0))
    x64 = b.select(denormal, b.fmul(sign, _d(2.0**-150)), b.fpext(x, F64))
    return b.fptrunc(pow64(b, x64, exact_f64(b, y)), F32)


def fmod(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """f32 fmod, exact: the dividend as is, a denormal divisor read as zero (XLA:CPU)."""
    return exact_f32(b, fmod64(b, exact_f64(b, x), b.fpext(y, F64), levels=6))
