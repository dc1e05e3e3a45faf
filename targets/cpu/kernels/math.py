"""Vectorizable f32 approximations of exp, log, tanh, logistic and erf.

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
from hlotool.targets.cpu.irutils import F32, I32, intrinsic

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
    """2**n for integral f32 n in [-126, 127] built from exponent bits (NaN-safe)."""
    ni = intrinsic(b, "llvm.fptosi.sat", I32, [n], [I32, F32])
    bits = b.shl(b.add(ni, _F(I32, 127)), _F(I32, 23))
    return b.bitcast(bits, F32)


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
