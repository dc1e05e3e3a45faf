"""Vectorizable f32 and f64 approximations of exp, log, tanh, logistic and erf.

These are the polynomials XLA:CPU emits (Cephes exp/log, Eigen's rational tanh and erf),
written with the same operation order and fused multiply-adds as the interpreter's ports
in hlotool/interpreter/kernels/elementwise.py, so native and interpreted results agree
to the last bit or within one ulp. No libm calls: every step is an LLVM instruction or
an intrinsic the loop vectorizer widens (fma, floor, maximum, minimum, fabs).
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from hlotool.interpreter.kernels import elementwise as ew
from hlotool.targets.cpu.irutils import F32, F64, I32, I64, intrinsic

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
    float-to-int conversion would be scalarized on x86 with saturation, or poison on
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
