"""Elementwise kernels: arithmetic, comparisons, conversions, bit ops and `map`.

Numerics follow XLA:CPU (docs/executor-semantics.md), checked op by op against it:

* floats narrower than f32 (f16, bf16, f8/f6/f4) are computed in f32 and rounded back to
  their type after every op;
* f32/f64 (and complex) arithmetic reads denormal inputs as zero and flushes denormal
  results (XLA:CPU runs with DAZ/FTZ); data movement (negate, abs, select) and the
  functions XLA evaluates as f(x) = x for tiny x keep them;
* exp, log, logistic, tanh and erf on f32 (and exp on f64) use XLA's own approximations,
  so they match bit for bit; the other transcendental functions are within 1-2 ulp;
* as XLA:CPU's compiler does, an f32 multiply whose only user is an add, subtract or sum
  is fused with it into one multiply-add, and a divide by a constant becomes a multiply by
  its reciprocal;
* integer ops wrap, and the cases C leaves undefined (division by zero, INT_MIN / -1,
  out-of-range shifts, float-to-int overflow, integer power) give XLA's values.

Kernels never look at the dimensions of their instruction's shape, only at element types,
so reducer and comparator regions can be evaluated on whole arrays.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import ArrayLike

from hlotool import semantics
from hlotool.interpreter.kernels.data_movement import is_scalar_in_region
from hlotool.interpreter.core import Evaluator, Unsupported, Value, impl
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.types import PrimitiveType

P = PrimitiveType
O = Opcode

_F = np.float32
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_UNSIGNED_OF_WIDTH: dict[int, np.dtype[Any]] = {n: np.dtype(f"uint{n}") for n in (8, 16, 32, 64)}
_SIGNED_OF_WIDTH: dict[int, np.dtype[Any]] = {n: np.dtype(f"int{n}") for n in (8, 16, 32, 64)}


# -- element type facts ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Kind:
    """How values of one element type are stored and computed on."""

    type: PrimitiveType
    #: numpy dtype of stored values.
    storage: np.dtype
    #: numpy dtype the arithmetic runs in (f32 for narrow floats, int8/uint8 for sub-byte
    #: integers, the storage dtype otherwise).
    compute: np.dtype
    #: 'b' pred, 'i' signed, 'u' unsigned, 'f' float, 'c' complex.
    cls: str
    bits: int

    @property
    def flushes(self) -> bool:
        """Arithmetic on this type runs with denormals flushed (DAZ/FTZ)."""
        return self.cls in "fc"

    @property
    def is_subbyte(self) -> bool:
        return self.cls in "iu" and self.bits < 8


@functools.cache
def kind(t: PrimitiveType) -> Kind:
    """The Kind of an element type."""
    storage = t.numpy_dtype
    if t is P.PRED:
        return Kind(t, storage, storage, "b", 8)
    if t.is_complex:
        return Kind(t, storage, storage, "c", t.bits)
    if t.is_float:
        compute = storage if t.bits >= 32 else _F32
        return Kind(t, storage, compute, "f", t.bits)
    if t.is_signed_int:
        compute = storage if t.bits >= 8 else np.dtype(np.int8)
        return Kind(t, storage, compute, "i", t.bits)
    if t.is_unsigned_int:
        compute = storage if t.bits >= 8 else np.dtype(np.uint8)
        return Kind(t, storage, compute, "u", t.bits)
    raise Unsupported(f"no arithmetic on {t.value} values")


def int_range(k: Kind) -> tuple[int, int]:
    """Smallest and largest value of an integer kind."""
    if k.cls == "i":
        return -(1 << (k.bits - 1)), (1 << (k.bits - 1)) - 1
    return 0, (1 << k.bits) - 1


# -- storage <-> compute -------------------------------------------------------------------


def to_compute(x: np.ndarray, k: Kind) -> np.ndarray:
    """A value in the dtype its arithmetic runs in."""
    x = np.asarray(x)
    return x if x.dtype == k.compute else x.astype(k.compute)


def from_compute(r: np.ndarray, k: Kind) -> np.ndarray:
    """A computed value back in the storage dtype (rounding narrow floats, wrapping ints)."""
    r = np.asarray(r)
    if k.is_subbyte:
        r = wrap_bits(r, k)
    return r if r.dtype == k.storage else r.astype(k.storage)


def wrap_bits(r: np.ndarray, k: Kind) -> np.ndarray:
    """Two's-complement wrap of integer values to the kind's width (held in compute dtype)."""
    mask = (1 << k.bits) - 1
    u = r.astype(np.int64) & mask
    if k.cls == "i":
        u = u - ((u >> (k.bits - 1)) & 1) * (1 << k.bits)
    return u.astype(k.compute)


def view_as(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Reinterpret the bits of each element as `dtype` (same item size)."""
    return np.asarray(x, order="C").view(dtype)


def bit_pattern(x: np.ndarray, k: Kind) -> np.ndarray:
    """Unsigned integers holding each element's k.bits-wide bit pattern."""
    if k.is_subbyte:
        return x.astype(np.int16).astype(np.uint8) & np.uint8((1 << k.bits) - 1)
    return view_as(x, _UNSIGNED_OF_WIDTH[k.compute.itemsize * 8])


def from_bit_pattern(u: np.ndarray, k: Kind) -> np.ndarray:
    """Inverse of bit_pattern, in the compute dtype."""
    if k.is_subbyte:
        return wrap_bits(u, k)
    return view_as(u.astype(_UNSIGNED_OF_WIDTH[k.compute.itemsize * 8], copy=False), k.compute)


# -- denormals -----------------------------------------------------------------------------

_TINY = {_F32: np.float32(np.finfo(np.float32).tiny), _F64: np.float64(np.finfo(np.float64).tiny)}

#: Arrays this module created and already flushed (id -> weak reference), so arithmetic on
#: them can skip the denormal scan. They are made read-only when registered.
_CLEAN: dict[int, weakref.ref[np.ndarray]] = {}
#: Smaller arrays are cheaper to scan than to track.
_MIN_TRACKED = 4096


def _is_clean(x: np.ndarray) -> bool:
    ref = _CLEAN.get(id(x))
    return ref is not None and ref() is x


def mark_clean(x: np.ndarray) -> np.ndarray:
    """Record that a freshly computed f32/f64 array (not a view of a caller's array)
    holds no denormals."""
    if x.size >= _MIN_TRACKED and x.dtype in _TINY:
        key = id(x)

        def forget(_: weakref.ref[np.ndarray]) -> None:
            _CLEAN.pop(key, None)

        x.setflags(write=False)
        _CLEAN[key] = weakref.ref(x, forget)
    return x


def _compact(x: np.ndarray) -> np.ndarray:
    """x without its broadcast (stride 0) dimensions: the distinct elements only."""
    if 0 not in x.strides:
        return x
    return x[tuple(slice(0, 1) if st == 0 else slice(None) for st in x.strides)]


def flush_denormals(x: np.ndarray) -> np.ndarray:
    """Denormal f32/f64 (or complex part) values replaced by zero of the same sign."""
    dt = x.dtype
    if dt.kind == "c":
        re, im = flush_denormals(x.real), flush_denormals(x.imag)
        if re is x.real and im is x.imag:
            return x
        out = np.empty(x.shape, dt)
        out.real, out.imag = re, im
        return out
    tiny = _TINY.get(dt)
    if tiny is None or x.size == 0 or _is_clean(x) or not semantics.flushes_denormals():
        return x
    a = np.abs(_compact(x))
    small = a < tiny
    if not small.any():
        return x
    small &= a != 0
    if not small.any():
        return x
    return np.where(np.abs(x) < tiny, np.copysign(dt.type(0), x), x)


def flush_result(r: np.ndarray) -> np.ndarray:
    """flush_denormals for a freshly computed array, which is then known to be clean."""
    return mark_clean(flush_denormals(r))


def daz(x: np.ndarray, k: Kind) -> np.ndarray:
    """An arithmetic input as XLA:CPU sees it (denormals read as zero)."""
    return flush_denormals(x) if k.flushes else x


# -- float helpers ---------------------------------------------------------------------------


def _signed_zero_bits(dtype: np.dtype, negative: bool) -> tuple[np.dtype, int]:
    s = _SIGNED_OF_WIDTH[dtype.itemsize * 8]
    return s, (np.iinfo(s).min if negative else 0)


def _extremum(a: np.ndarray, b: np.ndarray, is_max: bool) -> np.ndarray:
    """IEEE-754 maximum/minimum: NaN propagates and -0 < +0.

    numpy agrees except for a tie of zeros, where it may return either sign: a max of
    -0 (min of +0) is checked against the operands and corrected.
    """
    r = np.asarray(np.maximum(a, b) if is_max else np.minimum(a, b))
    if r.dtype not in _TINY:
        return r
    s, bits = _signed_zero_bits(r.dtype, negative=is_max)
    suspect = view_as(r, s) == bits
    if not suspect.any():
        return r
    where = np.nonzero(suspect)
    av, bv = np.broadcast_to(a, r.shape)[where], np.broadcast_to(b, r.shape)[where]
    # max: +0 when an operand is +0; min: -0 when an operand is -0.
    hit = ((av == 0) & (np.signbit(av) != is_max)) | ((bv == 0) & (np.signbit(bv) != is_max))
    r = np.array(r)
    r[where] = np.where(hit, r.dtype.type(0.0 if is_max else -0.0), r[where])
    return r


def fmax(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE-754 maximum: NaN propagates and -0 < +0."""
    return _extremum(a, b, True)


def fmin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE-754 minimum: NaN propagates and -0 < +0."""
    return _extremum(a, b, False)


def _lex_greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Complex ordering: lexicographic on (real, imag)."""
    return (a.real > b.real) | ((a.real == b.real) & (a.imag > b.imag))


def _lex_less(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.real < b.real) | ((a.real == b.real) & (a.imag < b.imag))


def _round_afz(x: np.ndarray) -> np.ndarray:
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def _sign(k: Kind, x: np.ndarray) -> np.ndarray:
    if k.cls == "c":
        mag = flush_denormals(np.abs(flush_denormals(x)))
        return np.where(mag == 0, x, x / np.where(mag == 0, 1, mag))
    if k.cls == "f":
        x = flush_denormals(x)
        return np.where(x == 0, x, np.sign(x))
    return np.sign(x)


def _fma32(a: ArrayLike, b: ArrayLike, c: ArrayLike) -> np.ndarray:
    """f32 fused multiply-add, emulated in f64 (where the product of two f32 is exact)."""
    wide = np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
    return wide.astype(np.float32)


# Eigen's rational erf approximation, as XLA:CPU emits it for f32.
_ERF_ALPHA = (0.00022905065861350646, 0.0034082910107109506, 0.050955695062380861,
              0.18520832239976145, 1.128379143519084)  # fmt: skip
_ERF_BETA = (-1.1791602954361697e-7, 0.000023547966471313185, 0.0010179625278914885,
             0.014070470171167667, 0.11098505178285362, 0.49746925110067538, 1.0)  # fmt: skip


def _erf(x: np.ndarray) -> np.ndarray:
    if x.dtype == _F32:
        x2 = x * x
        ratio = (_horner_fma(x2, _ERF_ALPHA) * x) / _horner_fma(x2, _ERF_BETA)
        return np.where(np.abs(x) >= np.float32(3.832506856900711), np.copysign(1, x), ratio)
    if x.dtype.kind == "c":
        raise Unsupported("erf of complex values")
    return np.frompyfunc(math.erf, 1, 1)(x).astype(x.dtype)


# Eigen's rational tanh approximation, as XLA:CPU emits it for f32 (with FMA): inputs
# are clamped where the approximation reaches exactly +-1.
_TANH_CLAMP = np.float32(7.99881172180175781)
_TANH_ALPHA = (-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11,
               5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04,
               4.89352455891786e-03)  # fmt: skip
_TANH_BETA = (1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03,
              4.89352518554385e-03)  # fmt: skip


def _horner_fma(x: np.ndarray, coefficients: Sequence[float]) -> np.ndarray:
    """f32 Horner evaluation in x with fused multiply-adds."""
    acc = np.full(x.shape, _F(coefficients[0]))
    for c in coefficients[1:]:
        acc = _fma32(acc, x, _F(c))
    return acc


def _tanh(x: np.ndarray) -> np.ndarray:
    if x.dtype != _F32:
        return np.tanh(flush_denormals(x))
    xc = np.clip(x, -_TANH_CLAMP, _TANH_CLAMP)
    x2 = xc * xc
    ratio = (_horner_fma(x2, _TANH_ALPHA) * xc) / _horner_fma(x2, _TANH_BETA)
    return np.where(np.abs(x) < np.float32(0.0004), x, ratio)


# Cephes exp/log polynomials, evaluated as XLA:CPU does for f32 (with FMA).
_EXP_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
             1.6666665459e-1, 5.0000001201e-1)  # fmt: skip
_LOG_POLY = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
             1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
             3.3333331174e-1)  # fmt: skip


# XLA's f64 exp: a Cephes-style rational approximation after reduction by ln(2).
_EXP64_P = (1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1)
_EXP64_Q = (3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1,
            2.00000000000000000009e0)  # fmt: skip


def _exp64(x: np.ndarray) -> np.ndarray:
    lo, hi = -708.3964185322641, 709.782712893384
    xc = np.clip(x, lo, hi)
    n = np.floor(xc * 1.4426950408889634073599 + 0.5)
    g = (xc - n * 0.693145751953125) - n * 1.42860682030941723212e-6
    g2 = g * g
    p = ((_EXP64_P[0] * g2 + _EXP64_P[1]) * g2 + _EXP64_P[2]) * g
    q = ((_EXP64_Q[0] * g2 + _EXP64_Q[1]) * g2 + _EXP64_Q[2]) * g2 + _EXP64_Q[3]
    r = np.ldexp(1.0 + 2.0 * (p / (q - p)), np.nan_to_num(n).astype(np.int64))
    return np.where(x < lo, 0.0, np.where(x > hi, np.inf, r))


def _exp(x: np.ndarray) -> np.ndarray:
    if x.dtype == _F64:
        return _exp64(x)
    if x.dtype != _F32:
        return np.exp(x)
    xc = np.clip(x, _F(-87.8), _F(88.8))
    n = np.minimum(np.floor(_fma32(xc, _F(1.44269504088896341), _F(0.5))), _F(127))
    r = _fma32(n, _F(-0.693359375), xc)
    r = _fma32(n, _F(2.12194440e-4), r)
    y = _horner_fma(r, _EXP_POLY)
    y = _fma32(y, r * r, r) + _F(1)
    return np.ldexp(y, n.astype(np.int32)).astype(np.float32)


def _log(x: np.ndarray) -> np.ndarray:
    if x.dtype != _F32:
        return np.log(x)
    m, e = np.frexp(x)
    e = e.astype(np.float32)
    small = m < _F(0.707106781186547524)
    e = np.where(small, e - _F(1), e)
    m = (m - _F(1)) + np.where(small, m, _F(0))
    m2 = m * m
    m3 = m2 * m
    y = _fma32(_fma32(_F(_LOG_POLY[0]), m, _F(_LOG_POLY[1])), m, _F(_LOG_POLY[2]))
    y1 = _fma32(_fma32(_F(_LOG_POLY[3]), m, _F(_LOG_POLY[4])), m, _F(_LOG_POLY[5]))
    y2 = _fma32(_fma32(_F(_LOG_POLY[6]), m, _F(_LOG_POLY[7])), m, _F(_LOG_POLY[8]))
    y = _fma32(_fma32(y, m3, y1), m3, y2)
    y = _fma32(y, m3, _F(-2.12194440e-4) * e)
    r = _fma32(_F(0.693359375), e, (m - _F(0.5) * m2) + y)
    r = np.where(x == 0, _F(-np.inf), r)
    r = np.where(x == np.inf, x, r)
    return np.where((x < 0) | np.isnan(x), _F(np.nan), r)


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Float power; XLA:CPU computes f32 pow in f64 and reads a denormal base as +-2**-150."""
    if a.dtype != _F32:
        return np.power(a, b)
    base = a.astype(np.float64)
    base = np.where((base != 0) & (np.abs(a) < _TINY[_F32]), np.copysign(2.0**-150, base), base)
    return flush_denormals(np.power(base, b.astype(np.float64)).astype(np.float32))


def _fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C fmod as XLA:CPU computes it: a denormal divisor reads as zero, the dividend not."""
    return np.fmod(a, flush_denormals(b))


def _complex_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """XLA's complex division: Smith's algorithm plus its NaN corner cases."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    ratio_ri, ratio_ir = br / bi, bi / br
    denom_ri, denom_ir = bi + ratio_ri * br, br + ratio_ir * bi
    r_lt_i = np.abs(br) < np.abs(bi)
    cr = np.where(r_lt_i, (ratio_ri * ar + ai) / denom_ri, (ratio_ir * ai + ar) / denom_ir)
    ci = np.where(r_lt_i, (ratio_ri * ai - ar) / denom_ri, (ai - ratio_ir * ar) / denom_ir)
    one, zero, inf = (ar.dtype.type(v) for v in (1, 0, np.inf))
    zero_denominator = (br == 0) & (bi == 0) & ~(np.isnan(ar) & np.isnan(ai))
    signed_inf = np.copysign(inf, br)
    inf_num = (np.isinf(ar) | np.isinf(ai)) & np.isfinite(br) & np.isfinite(bi)
    ar_inf = np.copysign(np.where(np.isinf(ar), one, zero), ar)
    ai_inf = np.copysign(np.where(np.isinf(ai), one, zero), ai)
    inf_den = (np.isinf(br) | np.isinf(bi)) & np.isfinite(ar) & np.isfinite(ai)
    br_inf = np.copysign(np.where(np.isinf(br), one, zero), br)
    bi_inf = np.copysign(np.where(np.isinf(bi), one, zero), bi)
    corners = [
        (zero_denominator, signed_inf * ar, signed_inf * ai),
        (inf_num, inf * (ar_inf * br + ai_inf * bi), inf * (ai_inf * br - ar_inf * bi)),
        (inf_den, zero * (ar * br_inf + ai * bi_inf), zero * (ai * br_inf - ar * bi_inf)),
    ]
    nan = np.isnan(cr) & np.isnan(ci)
    for case, re, im in corners:
        hit = nan & case
        cr, ci = np.where(hit, re, cr), np.where(hit, im, ci)
        nan &= ~case
    out = np.empty(cr.shape, a.dtype)
    out.real, out.imag = cr, ci
    return out


def _complex_atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    return -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))


# -- integer helpers ----------------------------------------------------------------------------


def _int_divide(k: Kind, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Truncating division; x/0 = -1 (all ones), INT_MIN/-1 = INT_MIN."""
    zero = b == 0
    one = np.ones((), b.dtype)
    if k.cls == "i":
        lo, _ = int_range(k)
        unsafe = zero | ((a == lo) & (b == -1))
        bs = np.where(unsafe, one, b)
        r = np.fmod(a, bs)
        q = (a - r) // bs
        return np.where(zero, np.array(-1, k.compute), q)
    bs = np.where(zero, one, b)
    return np.where(zero, np.array((1 << k.bits) - 1, k.compute), a // bs)


def _int_remainder(k: Kind, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C remainder (sign of the dividend); x%0 = x, INT_MIN%-1 = 0."""
    zero = b == 0
    one = np.ones((), b.dtype)
    if k.cls == "i":
        lo, _ = int_range(k)
        bs = np.where(zero | ((a == lo) & (b == -1)), one, b)
    else:
        bs = np.where(zero, one, b)
    return np.where(zero, a, np.fmod(a, bs))


def _int_power(k: Kind, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """XLA's integer power: square-and-multiply over the exponent's low 6 bits only, with
    wrap. A negative exponent (tested as signed, even for unsigned types) gives 1 for base
    1, +-1 for base -1 (all bits set) and 0 otherwise."""
    a, b = np.broadcast_arrays(a, b)
    pattern = bit_pattern(b, k)
    one = pattern.dtype.type(1)
    acc = np.ones(a.shape, a.dtype)
    base, e = a, pattern
    for _ in range(6):
        acc = np.where((e & one).astype(bool), acc * base, acc)
        base = base * base
        e = e >> one
    negative = from_bit_pattern(pattern, _as_signed(k)) < 0
    minus_one = bit_pattern(a, k) == pattern.dtype.type((1 << k.bits) - 1)
    odd = (pattern & one).astype(bool)
    ones, zeros = np.ones((), a.dtype), np.zeros((), a.dtype)
    inverse = np.where(a == 1, ones, np.where(minus_one, np.where(odd, a, ones), zeros))
    return np.where(negative, inverse, acc)


def _as_signed(k: Kind) -> Kind:
    """The signed kind of the same width (for reading unsigned bit patterns as signed)."""
    return Kind(k.type, k.storage, _signed_compute(k), "i", k.bits)


def _shift_amount(k: Kind, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(in-range shift counts, mask of counts outside [0, bits))."""
    out = (n >= k.bits) | (n < 0) if k.cls == "i" else n >= k.bits
    return np.where(out, np.zeros((), n.dtype), n), out


def _shift_left(k: Kind, a: np.ndarray, n: np.ndarray) -> np.ndarray:
    ns, out = _shift_amount(k, n)
    return np.where(out, np.zeros((), a.dtype), np.left_shift(a, ns))


def _shift_right_logical(k: Kind, a: np.ndarray, n: np.ndarray) -> np.ndarray:
    ns, out = _shift_amount(k, n)
    u = bit_pattern(a, k)
    r = np.right_shift(u, ns.astype(u.dtype))
    return np.where(out, np.zeros((), a.dtype), from_bit_pattern(r, k))


def _shift_right_arithmetic(k: Kind, a: np.ndarray, n: np.ndarray) -> np.ndarray:
    ns, out = _shift_amount(k, n)
    if k.cls == "u":
        signed = _as_signed(k)
        s = from_bit_pattern(bit_pattern(a, k), signed)
        r = np.where(out, np.where(s < 0, -1, 0).astype(s.dtype), s >> ns.astype(s.dtype))
        return from_bit_pattern(bit_pattern(r, signed), k)
    fill = np.where(a < 0, np.array(-1, a.dtype), np.zeros((), a.dtype))
    return np.where(out, fill, a >> ns)


def _signed_compute(k: Kind) -> np.dtype:
    return np.dtype(np.int8) if k.bits < 8 else _SIGNED_OF_WIDTH[k.bits]


def _mulhi(k: Kind, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High half of the double-width product."""
    if k.bits <= 32:
        wide = np.int64 if k.cls == "i" else np.uint64
        p = a.astype(wide) * b.astype(wide)
        return wrap_bits(p >> k.bits, k) if k.is_subbyte else (p >> k.bits).astype(k.compute)
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    hi = _umulhi64(ua, ub)
    if k.cls == "i":
        hi = hi - np.where(a < 0, ub, np.uint64(0)) - np.where(b < 0, ua, np.uint64(0))
    return hi.view(k.compute)


def _umulhi64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a_lo, a_hi, b_lo, b_hi = a & m32, a >> s32, b & m32, b >> s32
    lo_lo, hi_lo, lo_hi = a_lo * b_lo, a_hi * b_lo, a_lo * b_hi
    cross = (lo_lo >> s32) + (hi_lo & m32) + lo_hi
    return a_hi * b_hi + (hi_lo >> s32) + (cross >> s32)


def _popcnt(k: Kind, x: np.ndarray) -> np.ndarray:
    # XLA counts the bits of sub-byte signed values sign-extended to 8 bits.
    pattern = view_as(x, np.dtype(np.uint8)) if k.is_subbyte and k.cls == "i" else bit_pattern(x, k)
    return np.bitwise_count(pattern).astype(k.compute)


def _clz(k: Kind, x: np.ndarray) -> np.ndarray:
    u = bit_pattern(x, k).copy()
    shift = 1
    while shift < k.bits:
        u |= u >> u.dtype.type(shift)
        shift *= 2
    return (k.bits - np.bitwise_count(u).astype(np.int64)).astype(k.compute)


# -- the op tables ---------------------------------------------------------------------------

Fn = Callable[..., np.ndarray]


@dataclass(frozen=True, slots=True)
class _Op:
    """One elementwise op: per-class implementations and whether it flushes denormals."""

    #: Implementation per value class ('b', 'i', 'u', 'f', 'c') of the operands.
    fns: dict[str, Fn]
    #: Reads its float inputs with denormals as zero (XLA:CPU arithmetic).
    arith: bool = True
    #: Its result may be denormal even for flushed inputs, so it is flushed too.
    ftz: bool = True

    def fn(self, k: Kind, opcode: Opcode) -> Fn:
        f = self.fns.get(k.cls)
        if f is None:
            raise Unsupported(f"{opcode.value} is not defined on {k.type.value} values")
        return f


def _plain(f: Fn) -> Fn:
    """Adapt a numpy function to the (kind, *args) calling convention."""
    return lambda _k, *args: f(*args)


def _ints(f: Fn) -> dict[str, Fn]:
    return {"i": f, "u": f}


def _floats(f: Fn) -> dict[str, Fn]:
    return {"f": f, "c": f}


def _unary_math(f: Fn) -> _Op:
    return _Op(_floats(_plain(f)))


def _passthrough_math(f: Fn) -> _Op:
    """Functions that XLA:CPU evaluates as f(x) = x for tiny x, keeping denormals."""
    return _Op(_floats(_plain(f)), arith=False)


def _logistic(k: Kind, x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)); XLA:CPU expands it into f16 ops for f16, rounding each one."""
    if k.type is not P.F16:
        return 1 / (1 + _exp(-x))
    e = _exp(-x).astype(np.float16).astype(_F32)
    return 1 / (1 + e).astype(np.float16).astype(_F32)


_rsqrt = _plain(lambda x: 1 / np.sqrt(x))

UNARY_OPS: dict[Opcode, _Op] = {
    O.ABS: _Op({"i": _plain(np.abs), "u": lambda _k, x: x, "f": _plain(np.abs),
                "c": _plain(np.abs)}, arith=False),
    O.NEGATE: _Op({"i": _plain(np.negative), "u": _plain(np.negative),
                   "f": _plain(np.negative), "c": _plain(np.negative)}, arith=False),
    O.SIGN: _Op({"i": _sign, "u": _sign, "f": _sign, "c": _sign}, arith=False),
    O.NOT: _Op({"b": _plain(np.logical_not), **_ints(_plain(np.invert))}),
    O.POPCNT: _Op(_ints(_popcnt)),
    O.CLZ: _Op(_ints(_clz)),
    O.IS_FINITE: _Op({"f": _plain(np.isfinite)}, arith=False),
    O.REAL: _Op({"f": _plain(np.real), "c": _plain(np.real)}, arith=False),
    O.IMAG: _Op({"f": _plain(np.zeros_like), "c": _plain(np.imag)}, arith=False),
    O.EXP: _unary_math(_exp),
    O.EXPM1: _passthrough_math(np.expm1),
    O.LOG: _unary_math(_log),
    O.LOG1P: _unary_math(np.log1p),
    O.LOGISTIC: _Op(_floats(_logistic)),
    O.SQRT: _unary_math(np.sqrt),
    O.RSQRT: _Op(_floats(_rsqrt)),
    O.CBRT: _Op({"f": _plain(np.cbrt), "c": _plain(lambda x: x ** (1 / 3))}),
    O.SIN: _passthrough_math(np.sin),
    O.COS: _unary_math(np.cos),
    O.TAN: _passthrough_math(np.tan),
    O.TANH: _passthrough_math(_tanh),
    O.SINH: _unary_math(np.sinh),
    O.COSH: _unary_math(np.cosh),
    O.ASIN: _unary_math(np.arcsin),
    O.ACOS: _unary_math(np.arccos),
    O.ATAN: _unary_math(np.arctan),
    O.ASINH: _unary_math(np.arcsinh),
    O.ACOSH: _unary_math(np.arccosh),
    O.ATANH: _unary_math(np.arctanh),
    O.ERF: _Op({"f": _plain(_erf)}),
    O.FLOOR: _Op({"f": _plain(np.floor)}, ftz=False),
    O.CEIL: _Op({"f": _plain(np.ceil)}, ftz=False),
    O.ROUND_EVEN: _Op({"f": _plain(np.rint)}, ftz=False),
    O.ROUND_AFZ: _Op({"f": _plain(_round_afz)}, ftz=False),
}  # fmt: skip


def _complex_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(_lex_less(a, b), b, a)


def _complex_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(_lex_greater(a, b), b, a)


def _all_numeric(f: Fn) -> dict[str, Fn]:
    return {c: f for c in "iufc"}


BINARY_OPS: dict[Opcode, _Op] = {
    O.ADD: _Op({"b": _plain(np.logical_or), **_all_numeric(_plain(np.add))}),
    O.SUBTRACT: _Op(_all_numeric(_plain(np.subtract))),
    O.MULTIPLY: _Op({"b": _plain(np.logical_and), **_all_numeric(_plain(np.multiply))}),
    O.DIVIDE: _Op({**_ints(_int_divide), "f": _plain(np.true_divide),
                   "c": _plain(_complex_divide)}),
    O.REMAINDER: _Op({**_ints(_int_remainder), "f": _plain(_fmod)}, arith=False),
    O.MAXIMUM: _Op({"b": _plain(np.logical_or), **_ints(_plain(np.maximum)), "f": _plain(fmax),
                    "c": _plain(_complex_max)}, ftz=False),
    O.MINIMUM: _Op({"b": _plain(np.logical_and), **_ints(_plain(np.minimum)), "f": _plain(fmin),
                    "c": _plain(_complex_min)}, ftz=False),
    O.POWER: _Op({**_ints(_int_power), "f": _plain(_power), "c": _plain(np.power)}, arith=False),
    O.ATAN2: _Op({"f": _plain(np.arctan2), "c": _plain(_complex_atan2)}),
    O.AND: _Op({"b": _plain(np.logical_and), **_ints(_plain(np.bitwise_and))}, arith=False),
    O.OR: _Op({"b": _plain(np.logical_or), **_ints(_plain(np.bitwise_or))}, arith=False),
    O.XOR: _Op({"b": _plain(np.logical_xor), **_ints(_plain(np.bitwise_xor))}, arith=False),
    O.SHIFT_LEFT: _Op(_ints(_shift_left)),
    O.SHIFT_RIGHT_LOGICAL: _Op(_ints(_shift_right_logical)),
    O.SHIFT_RIGHT_ARITHMETIC: _Op(_ints(_shift_right_arithmetic)),
    O.MULHI: _Op(_ints(_mulhi)),
}  # fmt: skip


def apply_op(opcode: Opcode, k_in: Kind, k_out: Kind, args: Sequence[np.ndarray]) -> np.ndarray:
    """Run one unary/binary op on stored values of kind k_in; the result is stored as k_out."""
    op = UNARY_OPS.get(opcode) or BINARY_OPS[opcode]
    fn = op.fn(k_in, opcode)
    xs = [to_compute(a, k_in) for a in args]
    if op.arith and k_in.flushes:
        xs = [flush_denormals(x) for x in xs]
    with np.errstate(all="ignore"):
        r = np.asarray(fn(k_in, *xs))
        if op.arith and k_out.flushes:
            r = flush_result(r) if op.ftz else mark_clean(r)
        return from_compute(r, k_out)


@impl(*UNARY_OPS, *BINARY_OPS)
def _elementwise(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    k_in = kind(ins.operand(0).shape.element_type)
    k_out = kind(ins.shape.element_type)
    opcode = ins.opcode
    if opcode is O.DIVIDE and k_in.cls in "fc" and _divides_by_constant(ins):
        # XLA's algebraic simplifier: A / Const => A * (1 / Const).
        opcode, operands = O.MULTIPLY, [operands[0], _reciprocal(k_in, operands[1])]
    if k_in.type is P.F32:
        if opcode is O.MULTIPLY and _feeds_fma(ins):
            _pending_products(ev)[ins] = (operands[0], operands[1])
        elif opcode in (O.ADD, O.SUBTRACT):
            fused = _fused_multiply_add(ev, ins, operands)
            if fused is not None:
                return fused
    return apply_op(opcode, k_in, k_out, operands)


def _reciprocal(k: Kind, divisor: Value) -> np.ndarray:
    """1 / divisor in its own type, computed once per distinct (not broadcast) element."""
    divisor = np.asarray(divisor)
    one = np.ones((), k.storage)
    return np.broadcast_to(apply_op(O.DIVIDE, k, k, [one, _compact(divisor)]), divisor.shape)


def _divides_by_constant(ins: Instruction) -> bool:
    """divide(non-constant, constant or broadcast of a constant)."""
    dividend, divisor = ins.operand(0), ins.operand(1)
    if divisor.opcode is O.BROADCAST:
        divisor = divisor.operand(0)
    return divisor.opcode is O.CONSTANT and dividend.opcode is not O.CONSTANT


# -- multiply-add contraction ------------------------------------------------------------------

#: Per evaluator, the operands of f32 products (multiplies, and divides by constants which
#: XLA turns into multiplies) whose only user is an add, a subtract or a sum, keyed by the
#: product's instruction. XLA:CPU's LLVM backend contracts such pairs into one fused
#: multiply-add (a single rounding), so the user computes from these instead of the
#: rounded product.
_PRODUCTS: weakref.WeakKeyDictionary[Evaluator, dict[Instruction, tuple[Value, Value]]] = (
    weakref.WeakKeyDictionary()
)


def _pending_products(ev: Evaluator) -> dict[Instruction, tuple[Value, Value]]:
    store = _PRODUCTS.get(ev)
    if store is None:
        store = _PRODUCTS[ev] = {}
    return store


def _feeds_fma(mul: Instruction) -> bool:
    """Whether XLA:CPU would contract this f32 product into its only user."""
    users = mul.users
    if len(users) != 1 or users[0].parent is not mul.parent:
        return False
    user = users[0]
    if user.opcode is O.REDUCE:
        return is_sum(user) and user.operand(0) is mul
    return user.opcode in (O.ADD, O.SUBTRACT)


def is_sum(reduce: Instruction) -> bool:
    """A single-input reduce whose region is `add` of its two parameters."""
    comp = reduce.attrs.get("to_apply")
    root = comp.root if comp is not None else None
    return (
        reduce.operand_count == 2
        and root is not None
        and root.opcode is O.ADD
        and all(o.opcode is O.PARAMETER for o in root.operands)
        and root.operand(0) is not root.operand(1)
    )


def pop_fused_product(ev: Evaluator, mul: Instruction) -> tuple[Value, Value] | None:
    """The operands of an f32 product that feeds an FMA (once; None if there is none)."""
    store = _PRODUCTS.get(ev)
    return None if store is None else store.pop(mul, None)


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """XLA:CPU's contracted a*b+c on f32 values: denormals flushed around one rounding."""
    a, b, c = (flush_denormals(np.asarray(v)) for v in (a, b, c))
    with np.errstate(all="ignore"):
        return flush_result(np.asarray(_fma32(a, b, c)))


def _fused_multiply_add(
    ev: Evaluator, ins: Instruction, operands: list[Value]
) -> np.ndarray | None:
    """add/subtract(multiply(a, b), c) or (c, multiply(a, b)) as one f32 FMA."""
    for i in (0, 1):
        product = pop_fused_product(ev, ins.operand(i))
        if product is None:
            continue
        a, b = product
        c = np.asarray(operands[1 - i])
        if ins.opcode is O.SUBTRACT:
            c, a = (-c, a) if i == 0 else (c, -np.asarray(a))
        return fma32(a, b, c)
    return None


# -- compare, select, clamp, complex -------------------------------------------------------------

_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal, "GT": np.greater,
            "LE": np.less_equal, "LT": np.less}  # fmt: skip


def total_order_key(x: np.ndarray) -> np.ndarray:
    """Signed integers ordered like IEEE totalOrder on the float values x."""
    s = _SIGNED_OF_WIDTH[x.dtype.itemsize * 8]
    k = view_as(x, s)
    return np.where(k < 0, k ^ np.array(np.iinfo(s).max, s), k)


def weak_canonical(x: np.ndarray) -> np.ndarray:
    """XLA's weak order as a total order: denormals flushed, -0 as +0, every NaN as +NaN
    (all NaNs equal, above +inf)."""
    x = flush_denormals(x)
    x = np.where(x == 0, np.zeros((), x.dtype), x)
    return np.where(np.isnan(x), np.array(np.nan, x.dtype), x)


def compare_values(
    k: Kind, direction: str, ctype: str | None, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """compare(a, b) for stored values of kind k; ctype None means the type's default."""
    a, b = to_compute(a, k), to_compute(b, k)
    if k.cls == "c":
        return _compare_complex(direction, flush_denormals(a), flush_denormals(b))
    if ctype == "TOTALORDER" and k.cls == "f":
        a, b = total_order_key(a), total_order_key(b)
    elif ctype == "WEAKORDER" and k.cls == "f":
        a, b = total_order_key(weak_canonical(a)), total_order_key(weak_canonical(b))
    elif k.cls == "f":
        a, b = flush_denormals(a), flush_denormals(b)
    elif (ctype, k.cls) in (("SIGNED", "u"), ("UNSIGNED", "i")):
        other = Kind(k.type, k.storage, _other_sign(k), "u" if k.cls == "i" else "i", k.bits)
        a = from_bit_pattern(bit_pattern(a, k), other)
        b = from_bit_pattern(bit_pattern(b, k), other)
    return np.asarray(_COMPARE[direction](a, b))


def _other_sign(k: Kind) -> np.dtype:
    if k.cls == "i":
        return np.dtype(np.uint8) if k.bits < 8 else _UNSIGNED_OF_WIDTH[k.bits]
    return _signed_compute(k)


def _compare_complex(direction: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if direction in ("EQ", "NE"):
        return np.asarray(_COMPARE[direction](a, b))
    lt, gt = _lex_less(a, b), _lex_greater(a, b)
    return np.asarray({"LT": lt, "GT": gt, "LE": ~gt, "GE": ~lt}[direction])


@impl(O.COMPARE)
def _compare(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    k = kind(ins.operand(0).shape.element_type)
    with np.errstate(all="ignore"):
        return compare_values(k, ins.attrs["direction"], ins.attrs.get("type"), *operands)


@impl(O.SELECT)
def _select(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    pred, on_true, on_false = operands
    return np.asarray(np.where(pred, on_true, on_false))


@impl(O.CLAMP)
def _clamp(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    k = kind(ins.shape.element_type)
    lo, x, hi = (daz(to_compute(v, k), k) for v in operands)
    with np.errstate(all="ignore"):
        if k.cls == "f":
            r = fmin(hi, fmax(lo, x))
        else:
            r = np.minimum(hi, np.maximum(lo, x))
        return from_compute(np.asarray(r), k)


@impl(O.COMPLEX)
def _complex(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    re, im = np.broadcast_arrays(*operands)
    out = np.empty(re.shape, ins.shape.element_type.numpy_dtype)
    out.real, out.imag = re, im
    return out


# -- convert -------------------------------------------------------------------------------


def convert(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    """XLA's convert between any two array element types."""
    if src is dst:
        return x
    ks, kd = kind(src), kind(dst)
    with np.errstate(all="ignore"):
        if ks.cls == "c" and kd.cls != "c":
            x, ks = np.real(x), kind(src.component_type)
        if kd.cls == "b":
            # Only f32/f64 compare against zero on the FPU (with denormals as zero).
            xc = to_compute(x, ks)
            return np.asarray((flush_denormals(xc) if ks.storage in _TINY else xc) != 0)
        if ks.cls == "b":
            return np.asarray(x).astype(kd.storage)
        if ks.cls == "f" and kd.cls in "iu":
            return _float_to_int(daz(to_compute(x, ks), ks), kd)
        if ks.cls in "iu" and kd.cls in "iu":
            return _int_to_int(x, ks, kd)
        if ks.cls in "iu":
            return _int_to_float(x, ks, kd)
        return _float_to_float(x, ks, kd)


def _float_to_int(x: np.ndarray, kd: Kind) -> np.ndarray:
    """Truncate toward zero, saturate out-of-range values, NaN to 0."""
    lo, hi = int_range(kd)
    x = np.where(np.isnan(x), 0, np.trunc(x)).astype(np.float64)
    if kd.bits < 64:
        return np.clip(x, lo, hi).astype(kd.compute).astype(kd.storage)
    over, under = x >= float(hi + 1), x <= float(lo)
    r = np.where(over | under, 0, x).astype(kd.storage)
    r = np.where(over, np.array(hi, kd.storage), r)
    return np.where(under, np.array(lo, kd.storage), r)


def _int_to_int(x: np.ndarray, ks: Kind, kd: Kind) -> np.ndarray:
    x = to_compute(x, ks)
    if kd.is_subbyte:
        return from_compute(wrap_bits(x, kd), kd)
    return x.astype(kd.storage)


def _int_to_float(x: np.ndarray, ks: Kind, kd: Kind) -> np.ndarray:
    x = to_compute(x, ks)
    if kd.cls == "c":
        return x.astype(kd.storage)
    if kd.storage.itemsize >= 4 or kd.type is P.F16:
        return x.astype(kd.storage)
    # XLA converts integers to the narrow float types through f32.
    return x.astype(_F32).astype(kd.storage)


def _float_to_float(x: np.ndarray, ks: Kind, kd: Kind) -> np.ndarray:
    """Float (or complex) to float or complex; XLA goes through f32 except f64 -> f16."""
    x = np.asarray(x)
    if kd.cls == "c":
        part = kind(kd.type.component_type)
        if ks.cls == "c":  # each part as its float type converts (denormals flushed, as XLA)
            source = kind(ks.type.component_type)
            out = np.empty(x.shape, kd.storage)
            out.real = _float_to_float(x.real, source, part)
            out.imag = _float_to_float(x.imag, source, part)
            return out
        return _float_to_float(x, ks, part).astype(kd.storage)
    if ks.type is kd.type:  # a complex value's part to its own type (f64 <-> c128)
        return x.astype(kd.storage)
    if ks.storage == _F64:
        if kd.type is P.F16:
            return x.astype(kd.storage)
        # f64 -> f32 runs on the FPU: denormal inputs read as zero, results flush.
        y = flush_denormals(flush_denormals(x).astype(_F32))
        return y.astype(kd.storage)
    y = x.astype(_F32)
    if kd.storage == _F64:
        return flush_denormals(y).astype(_F64)
    return y.astype(kd.storage)


@impl(O.CONVERT)
def _convert(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return convert(operands[0], ins.operand(0).shape.element_type, ins.shape.element_type)


# -- bitcast-convert and reduce-precision ----------------------------------------------------


@impl(O.BITCAST_CONVERT)
def _bitcast_convert(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    x = np.asarray(operands[0], order="C")
    src, dst = ins.operand(0).shape.element_type, ins.shape.element_type
    # A scalar bitcast inside a comparator or reducer runs on whole arrays.
    out_shape = x.shape if is_scalar_in_region(ins, x) else ins.shape.dimensions
    if src.bits % 8 == 0 and dst.bits % 8 == 0 and src is not P.PRED and dst is not P.PRED:
        return x.reshape(-1).view(dst.numpy_dtype).reshape(out_shape)
    sbits, dbits = _bit_widths(ins)
    return _bitcast_bits(x, kind(src), kind(dst), out_shape, sbits, dbits)


def _bit_widths(ins: Instruction) -> tuple[int, int]:
    """Element bit widths of a bitcast-convert's operand and result. A pred is as wide as
    the shapes say: 8 bits in XLA (f64 <-> pred[8]), 1 bit in StableHLO (f64 <-> i1[64])."""
    a, r = ins.operand(0).shape, ins.shape
    sbits, dbits = a.element_type.bits, r.element_type.bits
    if a.element_type is P.PRED and r.element_type is not P.PRED:
        n = a.dimensions[-1] if a.rank > r.rank else 1
        sbits = dbits // n if a.rank > r.rank else dbits
    elif r.element_type is P.PRED and a.element_type is not P.PRED:
        n = r.dimensions[-1] if r.rank > a.rank else 1
        dbits = sbits // n if r.rank > a.rank else sbits
    return sbits, dbits


def _bitcast_bits(x: np.ndarray, ks: Kind, kd: Kind, out_shape: tuple[int, ...],
                  sbits: int, dbits: int) -> np.ndarray:
    """Bitcast through per-element bit patterns (sub-byte and pred types) of the given
    element widths."""
    pattern = (x != 0).astype(np.uint64) if ks.cls == "b" else _pattern_u64(x, ks)
    if sbits > dbits:
        n = sbits // dbits
        shifts = np.arange(n, dtype=np.uint64) * np.uint64(dbits)
        parts = (pattern[..., None] >> shifts) & np.uint64((1 << dbits) - 1)
    elif sbits < dbits:
        n = dbits // sbits
        shifts = np.arange(n, dtype=np.uint64) * np.uint64(sbits)
        parts = np.bitwise_or.reduce(pattern << shifts, axis=-1)
    else:
        parts = pattern
    parts = parts.reshape(out_shape)
    if kd.cls == "b":
        return parts != 0
    if kd.is_subbyte:
        return from_compute(wrap_bits(parts, kd), kd)
    return parts.astype(_UNSIGNED_OF_WIDTH[kd.storage.itemsize * 8]).view(kd.storage)


def _pattern_u64(x: np.ndarray, k: Kind) -> np.ndarray:
    if k.is_subbyte:
        return bit_pattern(x, k).astype(np.uint64)
    return x.view(_UNSIGNED_OF_WIDTH[x.dtype.itemsize * 8]).astype(np.uint64)


def reduce_precision(x: np.ndarray, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """XLA's reduce-precision on the bit pattern of a float array (of its own type)."""
    finfo = ml_dtypes.finfo(x.dtype)
    nbits = x.dtype.itemsize * 8
    src_mant = int(finfo.nmant)
    src_exp = nbits - 1 - src_mant
    u_t = _UNSIGNED_OF_WIDTH[nbits]
    one = u_t.type(1)
    bits = view_as(x, u_t)
    sign_mask = one << u_t.type(nbits - 1)
    exp_mask = ((one << u_t.type(src_exp)) - one) << u_t.type(src_mant)
    is_nan = (bits & ~sign_mask) > exp_mask
    if mantissa_bits < src_mant:
        drop = u_t.type(src_mant - mantissa_bits)
        last = one << drop
        bias = ((bits & last) >> drop) + ((last >> one) - one)
        bits = (bits + bias) & ~(last - one)
    if exponent_bits < src_exp:
        ebias = (1 << (src_exp - 1)) - 1
        rbias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        overflow = exponent > u_t.type((ebias + rbias) << src_mant)
        underflow = exponent <= u_t.type((ebias - rbias) << src_mant)
        signed_zero = bits & sign_mask
        bits = np.where(overflow, signed_zero | exp_mask, bits)
        bits = np.where(underflow, signed_zero, bits)
    if mantissa_bits == 0 and semantics.current() is semantics.Semantics.STABLEHLO:
        # The spec: a format without mantissa bits has no NaN; NaN becomes infinity.
        inf = (view_as(x, u_t) & sign_mask) | exp_mask
        return view_as(np.asarray(np.where(is_nan, inf, bits), u_t), x.dtype)
    return np.where(is_nan, x, view_as(np.asarray(bits, u_t), x.dtype))


@impl(O.REDUCE_PRECISION)
def _reduce_precision(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """Done in the operand's own format (IEEE-like layouts of 16 bits and more)."""
    k = kind(ins.shape.element_type)
    if k.cls != "f":
        raise Unsupported(f"reduce-precision of {k.type.value} values")
    x = np.asarray(operands[0])
    native = k.bits >= 16
    with np.errstate(all="ignore"):
        r = reduce_precision(
            x if native else to_compute(x, k),
            ins.attrs["exponent_bits"],
            ins.attrs["mantissa_bits"],
        )
    return r if native else from_compute(r, k)


@impl(O.STOCHASTIC_CONVERT)
def _stochastic_convert(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """Float to integer, rounding up with probability equal to the fraction (XLA's scheme)."""
    x, random = operands
    ks, kd = kind(ins.operand(0).shape.element_type), kind(ins.shape.element_type)
    if kd.cls not in "iu":
        raise Unsupported(f"stochastic-convert to {kd.type.value}")
    rbits = ins.operand(1).shape.element_type.bits
    with np.errstate(all="ignore"):
        v = to_compute(x, ks).astype(np.float64)
        floor = np.floor(np.abs(v))
        frac = np.abs(v) - floor
        threshold = np.floor(frac * float(1 << rbits))
        up = random.astype(np.float64) < threshold
        mag = floor + up
        return _float_to_int(np.where(np.isnan(v), np.nan, np.copysign(mag, v)), kd)


# -- map -------------------------------------------------------------------------------------


def _is_elementwise_body(comp: Computation) -> bool:
    """Whether every instruction of comp can run on whole arrays at once."""
    allowed = ELEMENTWISE | {O.PARAMETER, O.CONSTANT, O.CONVERT, O.TUPLE, O.GET_TUPLE_ELEMENT}
    return all(i.opcode in allowed for i in comp.instructions)


def call_elementwise(
    ev: Evaluator, comp: Computation, args: Sequence[np.ndarray], shape: tuple[int, ...]
) -> Value:
    """Apply a scalar computation to arrays of equal shape, element by element."""
    if _is_elementwise_body(comp):
        out = ev.call(comp, list(args))
        return _broadcast_result(out, shape)
    return _call_per_element(ev, comp, args, shape)


def _broadcast_result(out: Value, shape: tuple[int, ...]) -> Value:
    if isinstance(out, tuple):
        return tuple(_broadcast_result(o, shape) for o in out)
    out = np.asarray(out)
    return out if out.shape == shape else np.broadcast_to(out, shape)


def _call_per_element(
    ev: Evaluator, comp: Computation, args: Sequence[np.ndarray], shape: tuple[int, ...]
) -> Value:
    results: list[Value] = []
    for index in np.ndindex(*shape):
        results.append(ev.call(comp, [np.asarray(a[index]) for a in args]))
    if results and isinstance(results[0], tuple):
        return tuple(_stack([r[i] for r in results], shape) for i in range(len(results[0])))
    return _stack(results, shape)


def _stack(values: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    if not values:
        raise Unsupported("cannot infer the result of a region over an empty array")
    return np.stack([np.asarray(v) for v in values]).reshape(shape)


@impl(O.MAP)
def _map(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    shape = ins.shape.dimensions
    if 0 in shape:
        return np.zeros(shape, ins.shape.element_type.numpy_dtype)
    args = [np.broadcast_to(a, shape) for a in operands]
    return call_elementwise(ev, ins.attrs["to_apply"], args, shape)
