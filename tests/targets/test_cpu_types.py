"""CPU kernels on f16/bf16, f64 transcendentals and NaN-propagating max/min, against the
interpreter (bit for bit) and numpy in float64 (within a few ulps).

Every test also checks that the instructions really ran natively.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from tests.targets.conftest import assert_same, run_both
from tests.targets.test_cpu_kernels import binary, unary

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
NARROW = {"bf16": BF16, "f16": F16}
INT_TYPES = {"s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
             "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}  # fmt: skip
ALL_TYPES = {"pred": np.bool_, **INT_TYPES, "f32": np.float32, "f64": np.float64, **NARROW}


def all_patterns(t: str, quiet: bool = True) -> np.ndarray:
    """Every 16-bit pattern of `t`. With `quiet`, signaling NaNs are made quiet: the f16
    conversions XLA:CPU uses (F16C) quiet them, numpy keeps them signaling (bf16 NaNs
    only matter on the way to f16; bf16 rounding makes every NaN 0x7fc0 anyway)."""
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    if quiet:
        exp, quiet_bit = (0x7C00, 0x200) if t == "f16" else (0x7F80, 0x40)
        snan = ((bits & (exp | quiet_bit)) == exp) & ((bits & (quiet_bit - 1)) != 0)
        bits = np.where(snan, bits | quiet_bit, bits)
    return bits.view(NARROW[t])


def edges(t: str) -> np.ndarray:
    """Interesting values of a narrow type: zeros, denormals, extremes, NaN, inf, ties."""
    finfo = ml_dtypes.finfo(NARROW[t])
    v = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -2.5, 3.0, 7.0, 100.0, float(finfo.max), -float(finfo.max),
         float(finfo.tiny), float(finfo.smallest_subnormal), -float(finfo.smallest_subnormal),
         float(finfo.tiny) / 2, float(finfo.eps), 1 + float(finfo.eps), math.inf, -math.inf,
         math.nan, -math.nan, 0.1, -0.3]  # fmt: skip
    return np.array(v, np.float64).astype(NARROW[t])


def bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}")


def native(text: str, *args: np.ndarray) -> tuple[object, object]:
    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0 and ex.stats.native >= 1, ex.stats
    return got, want


def same_bits(got: object, want: object, any_nan: bool | np.ndarray = False) -> None:
    """Identical bit patterns (every NaN included, unless `any_nan`: then a NaN may be
    any NaN, as which of two NaN operands max/min return is unspecified; an array
    `any_nan` allows it only where it is true)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            same_bits(g, w, any_nan)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if np.any(any_nan):
        nan = np.isnan(want.astype(np.float64))
        assert np.array_equal(np.isnan(got.astype(np.float64)), nan)
        free = nan & any_nan
        got, want = got[~free], want[~free]
    bad = np.nonzero(bits(got) != bits(want))[0] if got.ndim == 1 else []
    assert np.array_equal(bits(got), bits(want)), [(i, got[i], want[i]) for i in bad[:5]]


# -- f16 / bf16: exact ops on every bit pattern ------------------------------------------------


@pytest.mark.parametrize("t", sorted(NARROW))
@pytest.mark.parametrize("op", ["negate", "abs", "sign", "floor", "ceil", "round-nearest-even",
                                "round-nearest-afz", "sqrt", "rsqrt", "exponential", "log",
                                "tanh", "logistic", "erf"])
def test_narrow_unary_every_value(t: str, op: str) -> None:
    x = all_patterns(t, quiet=t == "f16")
    same_bits(*native(unary(op, t, n=x.size), x))


@pytest.mark.parametrize("t", sorted(NARROW))
def test_narrow_is_finite(t: str) -> None:
    x = all_patterns(t)
    same_bits(*native(unary("is-finite", t, "pred", n=x.size), x))


def _pairs(t: str) -> tuple[np.ndarray, np.ndarray]:
    """The edge values crossed with themselves, then random pairs (exponents close
    enough that sums round, with ties)."""
    e = edges(t)
    rng = np.random.default_rng(1)
    r = (rng.standard_normal(4000) * 2.0 ** rng.integers(-12, 12, 4000)).astype(NARROW[t])
    s = (rng.standard_normal(4000) * 2.0 ** rng.integers(-12, 12, 4000)).astype(NARROW[t])
    return np.concatenate([np.repeat(e, e.size), r]), np.concatenate([np.tile(e, e.size), s])


@pytest.mark.parametrize("t", sorted(NARROW))
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "maximum", "minimum"])
def test_narrow_binary(t: str, op: str) -> None:
    """Bit for bit; where both operands are NaN, the result may be either one's NaN (x86
    returns its first source operand's, and LLVM may commute an add or a multiply)."""
    a, b = _pairs(t)
    both_nan = np.isnan(a.astype(np.float32)) & np.isnan(b.astype(np.float32))
    any_nan = True if op in ("maximum", "minimum") else both_nan
    same_bits(*native(binary(op, t, a.size), a, b), any_nan=any_nan)


@pytest.mark.parametrize("t", sorted(NARROW))
@pytest.mark.parametrize("ctype", ["", ", type=TOTALORDER"])
def test_narrow_compare(t: str, ctype: str) -> None:
    a, b = _pairs(t)
    for direction in ("EQ", "NE", "LT", "LE", "GT", "GE"):
        text = binary("compare", t, a.size, "pred", f", direction={direction}{ctype}")
        same_bits(*native(text, a, b))


@pytest.mark.parametrize("t", sorted(NARROW))
def test_narrow_fusion(t: str) -> None:
    """select, clamp, a multiply-add (not contracted below f32), a constant, a divide by
    a constant (by its rounded reciprocal) and iota in one loop fusion."""
    a, b = _pairs(t)
    n = a.size
    text = f"""HloModule m
f {{
  a = {t}[{n}] parameter(0)
  b = {t}[{n}] parameter(1)
  c = {t}[] constant(0.3)
  cb = {t}[{n}] broadcast(c), dimensions={{}}
  m = {t}[{n}] multiply(a, b)
  s = {t}[{n}] add(m, cb)
  lo = {t}[{n}] negate(cb)
  k = {t}[{n}] clamp(lo, s, b)
  d = {t}[{n}] divide(k, cb)
  i = {t}[{n}] iota(), iota_dimension=0
  p = pred[{n}] compare(a, b), direction=LT
  ROOT r = {t}[{n}] select(p, d, i)
}}
ENTRY e {{
  a = {t}[{n}] parameter(0)
  b = {t}[{n}] parameter(1)
  ROOT r = {t}[{n}] fusion(a, b), kind=kLoop, calls=f
}}"""
    same_bits(*native(text, a, b))


# -- f16 / bf16 converts -------------------------------------------------------------------


def _source_values(t: str) -> np.ndarray:
    """Values of type `t` to convert to f16/bf16: extremes, ties and NaN/inf."""
    if t in NARROW:
        return all_patterns(t)
    if t == "pred":
        return np.array([True, False, True])
    if t in INT_TYPES:
        v = [0, 1, -1, 2, 3, 100, 255, 256, 257, 511, 2049, 2051, 65504, 65519, 65520, 65536,
             2**24 + 1, 2**31 - 1, -(2**31), 2**53 + 1, 2**63 - 1, -(2**63), -65520, -300]
        return np.array([x % 2**64 for x in v], np.uint64).astype(INT_TYPES[t])
    one_f32 = np.float32(1.0).view(np.uint32)
    ties = np.array([one_f32 + 0x8000, one_f32 + 0x18000, one_f32 + 0x1000, one_f32 + 0x3000,
                     one_f32 + 0x7FFF, 0x7F7FFFFF, 0x00018000, 0x00008000, 0x80008000,
                     0x7FC00001, 0xFFC12345], np.uint32).view(np.float32)  # fmt: skip
    special = [0.0, -0.0, 1e-40, -1e-40, 1e-39, 2.0**-24, 2.0**-25, 2.0**-25 * 1.5, 65519.99,
               65520.0, 65504.0, 3e9, -3e9, 1e19, -1e19, 2.0**63, 1e300, -1e300, 1e-310,
               math.inf, -math.inf, math.nan, -math.nan, 0.1]  # fmt: skip
    v = np.concatenate([ties.astype(np.float64), special])
    if t == "f64":
        # f16 ties and their neighbours one f64 ulp away: a double rounding through f32
        # would miss these.
        tie = np.float64(1 + 2.0**-11)
        v = np.concatenate([v, [tie, np.nextafter(tie, 2), np.nextafter(tie, 0),
                                2.0**-25 + 2.0**-60, 3 * 2.0**-26 - 2.0**-70]])
    with np.errstate(over="ignore", invalid="ignore"):
        return v.astype(ALL_TYPES[t])


@pytest.mark.parametrize("src", sorted(ALL_TYPES))
def test_convert_to_narrow(src: str) -> None:
    x = _source_values(src)
    n = x.size
    text = f"""HloModule m
ENTRY e {{
  p = {src}[{n}] parameter(0)
  a = f16[{n}] convert(p)
  b = bf16[{n}] convert(p)
  ROOT r = (f16[{n}], bf16[{n}]) tuple(a, b)
}}"""
    same_bits(*native(text, x))


@pytest.mark.parametrize("src", sorted(NARROW))
def test_convert_from_narrow(src: str) -> None:
    x = all_patterns(src)
    n = x.size
    names = sorted(ALL_TYPES)
    lines = "\n".join(f"  c{i} = {d}[{n}] convert(p)" for i, d in enumerate(names))
    shapes = ", ".join(f"{d}[{n}]" for d in names)
    text = f"""HloModule m
ENTRY e {{
  p = {src}[{n}] parameter(0)
{lines}
  ROOT r = ({shapes}) tuple({", ".join(f"c{i}" for i in range(len(names)))})
}}"""
    same_bits(*native(text, x))


@pytest.mark.parametrize(("src", "dst"), [("f16", "s16"), ("bf16", "u16"), ("f16", "bf16"),
                                          ("s16", "f16"), ("bf16", "f16")])
def test_bitcast_convert_narrow(src: str, dst: str) -> None:
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(ALL_TYPES[src])
    same_bits(*native(unary("bitcast-convert", src, dst, n=x.size), x))


# -- f64 transcendentals -------------------------------------------------------------------

F64_SPECIAL = np.array([0.0, -0.0, 1e-310, -1e-310, 2.2250738585072014e-308, 1.0, -1.0, 0.5,
                        0.625, 0.6249999, 1e-20, -1e-20, 708.39, -708.39, 709.78, 709.79,
                        -745.2, 800.0, -800.0, 20.0, -20.0, 6.0, 5.99, 1.0000001, 0.9999999,
                        math.inf, -math.inf, math.nan, 1e300, -1e300])  # fmt: skip


def _f64_inputs() -> np.ndarray:
    rng = np.random.default_rng(2)
    wide = rng.standard_normal(20000) * 10.0 ** rng.integers(-8, 3, 20000)
    return np.concatenate([F64_SPECIAL, wide, rng.uniform(-40, 40, 20000)])


def _within_ulps(got: np.ndarray, want: np.ndarray, ulps: int) -> None:
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    g, w = got[~nan], want[~nan]
    assert np.array_equal(np.signbit(g[w == 0]), np.signbit(w[w == 0]))
    np.testing.assert_array_max_ulp(g, w, maxulp=ulps)


@pytest.mark.parametrize("op", ["exponential", "logistic"])
def test_f64_exp_matches_interpreter(op: str) -> None:
    """XLA's f64 exp, op for op as the interpreter: bit-identical."""
    x = _f64_inputs()
    got, want = native(unary(op, "f64", n=x.size), x)
    assert_same(got, want)
    with np.errstate(over="ignore"):
        ref = np.exp(x) if op == "exponential" else 1 / (1 + np.exp(-x))
    flushed = np.abs(ref) < np.finfo(np.float64).tiny
    _within_ulps(np.asarray(got)[~flushed], ref[~flushed], 4)


@pytest.mark.parametrize(("op", "ref", "ulps"), [
    ("log", np.log, 1), ("tanh", np.tanh, 2), ("erf", np.vectorize(math.erf), 2)])
def test_f64_math_within_ulps(op: str, ref: object, ulps: int) -> None:
    """Within a few ulps of numpy/libm in f64, and of the interpreter; a denormal input
    reads as zero (as the interpreter's flushed input)."""
    x = _f64_inputs()
    if op == "log":
        x = np.concatenate([np.abs(x), x[:50], [2.0**-1022, 1.0 + 2**-52, 1 - 2**-53]])
    got, want = native(unary(op, "f64", n=x.size), x)
    got = np.asarray(got)
    with np.errstate(all="ignore"):
        flushed = np.where(np.abs(x) < np.finfo(np.float64).tiny, np.copysign(0.0, x), x)
        expected = ref(flushed)  # type: ignore[operator]
    _within_ulps(got, np.asarray(expected, np.float64), ulps)
    _within_ulps(got, np.asarray(want), ulps)


# -- maximum / minimum -----------------------------------------------------------------------

MAXMIN_EDGES = np.array([0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, math.inf, -math.inf, math.nan,
                         3.5, -2.0, 1e-45], np.float32)  # fmt: skip


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_extremum_with_identity_constants(op: str) -> None:
    """max(x, -inf), min(x, +inf) and max(x, x), which LLVM folds to x: a denormal x
    still reads as zero."""
    x = np.tile(MAXMIN_EDGES, 3)
    n = x.size
    ident = "-inf" if op == "maximum" else "inf"
    text = f"""HloModule m
f {{
  p = f32[{n}] parameter(0)
  c = f32[] constant({ident})
  cb = f32[{n}] broadcast(c), dimensions={{}}
  a = f32[{n}] {op}(p, cb)
  b = f32[{n}] {op}(p, p)
  ROOT r = (f32[{n}], f32[{n}]) tuple(a, b)
}}
ENTRY e {{
  p = f32[{n}] parameter(0)
  ROOT r = (f32[{n}], f32[{n}]) fusion(p), kind=kLoop, calls=f
}}"""
    got, want = native(text, x)
    for g, w in zip(got, want, strict=True):  # type: ignore[call-overload]
        assert_same(g, w)


def _reduce_text(op: str, t: str, rows: int, n: int, init: str, fused: bool) -> str:
    region = f"""r {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] {op}(a, b)
}}"""
    if not fused:
        return f"""HloModule m
{region}
ENTRY e {{
  p = {t}[{rows},{n}] parameter(0)
  z = {t}[] constant({init})
  ROOT s = {t}[{rows}] reduce(p, z), dimensions={{1}}, to_apply=r
}}"""
    return f"""HloModule m
{region}
f {{
  p = {t}[{rows},{n}] parameter(0)
  q = {t}[{rows},{n}] negate(p)
  z = {t}[] constant({init})
  ROOT s = {t}[{rows}] reduce(q, z), dimensions={{1}}, to_apply=r
}}
ENTRY e {{
  p = {t}[{rows},{n}] parameter(0)
  ROOT s = {t}[{rows}] fusion(p), kind=kInput, calls=f
}}"""


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("n", [1, 33, 300])
@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_row_extremum_reduce(op: str, n: int, fused: bool, t: str) -> None:
    """Rows of NaNs, signed zeros, denormals only, and random values."""
    rng = np.random.default_rng(3)
    tiny = 1e-40 if t == "f32" else 1e-310
    edge = np.array([0.0, -0.0, tiny, -tiny, math.nan, math.inf, -math.inf, 2.0, -3.0])
    rows = [rng.choice(edge, n), np.full(n, -0.0), np.full(n, 0.0), np.full(n, tiny),
            np.full(n, -tiny), rng.standard_normal(n), rng.choice([0.0, -0.0], n),
            rng.choice([tiny, -tiny, 0.0, -0.0], n)]
    with_nan = rng.standard_normal(n)
    with_nan[n // 2] = math.nan
    x = np.stack([*rows, with_nan]).astype(t.replace("f", "float"))
    init = "-inf" if op == "maximum" else "inf"
    got, want = native(_reduce_text(op, t, x.shape[0], n, init, fused), x)
    assert_same(got, want)


# -- complex ---------------------------------------------------------------------------------


def _complex_values(t: str) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of complex values built from edge parts (denormals, NaN, inf, signed zeros)
    crossed with each other, then random ones."""
    part = np.float32 if t == "c64" else np.float64
    tiny = 1e-40 if t == "c64" else 1e-310
    e = np.array([0.0, -0.0, 1.0, -2.5, tiny, -tiny, math.inf, -math.inf, math.nan, 3e38])
    re, im = np.repeat(e, e.size), np.tile(e, e.size)
    rng = np.random.default_rng(4)
    parts = [np.concatenate([x, rng.standard_normal(3000) * 2.0 ** rng.integers(-30, 30, 3000)])
             for x in (re, im, im[::-1], re[::-1])]
    a = np.empty(parts[0].size, t.replace("c", "complex"))
    b = np.empty_like(a)
    a.real, a.imag, b.real, b.imag = (p.astype(part) for p in parts)
    return a, b


def _same_complex(got: object, want: object) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    part = np.float32 if got.dtype.itemsize <= 8 else np.float64
    if got.dtype.kind == "c":
        got, want = got.view(part), want.view(part)
    assert_same(got, want)


@pytest.mark.parametrize("t", ["c64", "c128"])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply"])
def test_complex_binary(t: str, op: str) -> None:
    a, b = _complex_values(t)
    _same_complex(*native(binary(op, t, a.size), a, b))


@pytest.mark.parametrize("t", ["c64", "c128"])
def test_complex_fusion(t: str) -> None:
    """negate, real, imag, complex, a complex constant and a transpose in one fusion."""
    a, _ = _complex_values(t)
    a = a[: (a.size // 8) * 8]
    rows = a.size // 8
    f = "f32" if t == "c64" else "f64"
    text = f"""HloModule m
g {{
  p = {t}[8,{rows}] parameter(0)
  re = {f}[8,{rows}] real(p)
  im = {f}[8,{rows}] imag(p)
  nim = {f}[8,{rows}] negate(im)
  conj = {t}[8,{rows}] complex(re, nim)
  c = {t}[] constant((0.5, -1.25))
  cb = {t}[8,{rows}] broadcast(c), dimensions={{}}
  m = {t}[8,{rows}] multiply(conj, cb)
  n = {t}[8,{rows}] negate(m)
  s = {t}[8,{rows}] subtract(n, p)
  ROOT r = {t}[{rows},8] transpose(s), dimensions={{1,0}}
}}
ENTRY e {{
  p = {t}[8,{rows}] parameter(0)
  ROOT r = {t}[{rows},8] fusion(p), kind=kLoop, calls=g
}}"""
    got, want = native(text, a.reshape(8, rows))
    _same_complex(np.asarray(got).reshape(-1), np.asarray(want).reshape(-1))


def test_c64_abs() -> None:
    """numpy's complex64 absolute, bit for bit, denormal parts included."""
    a, _ = _complex_values("c64")
    extra = np.array([1e-40, 3e-39 + 2e-39j, 1e-45 + 1e-45j, 1e-38 + 5e-39j, 3e38 + 3e38j,
                      complex(math.inf, math.nan), complex(math.nan, -math.inf)], np.complex64)
    a = np.concatenate([a, extra])
    got, want = native(unary("abs", "c64", "f32", n=a.size), a)
    same_bits(got, want)


def test_narrow_scan_matches_interpreter() -> None:
    """A prefix-sum reduce-window on bf16 is order-dependent: same bits as the
    interpreter (which evaluates XLA's tiled scan)."""
    t = "bf16"
    text = f"""HloModule m
r {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] add(a, b)
}}
ENTRY e {{
  p = {t}[300] parameter(0)
  z = {t}[] constant(0)
  ROOT s = {t}[300] reduce-window(p, z), window={{size=300 pad=299_0}}, to_apply=r
}}"""
    x = (np.random.default_rng(5).standard_normal(300) * 3).astype(BF16)
    got, want, _ = run_both(text, x)
    same_bits(got, want)


@pytest.mark.parametrize("t", ["f32", "bf16", "f16", "f64"])
def test_reduce_precision_on_the_bits_of_each_format(t: str) -> None:
    """reduce-precision runs natively in every float format, for widths narrower, equal
    and wider than the format's own, bit for bit the interpreter (random bit patterns:
    NaNs, infinities, denormals, ties; XLA:CPU semantics, NaNs kept)."""
    from hlotool.frontend import parse_hlo
    from hlotool.interpreter.core import Evaluator
    from hlotool.targets.cpu import compile_module

    dtype, word = {"f32": (np.float32, np.uint32), "bf16": (ml_dtypes.bfloat16, np.uint16),
                   "f16": (np.float16, np.uint16), "f64": (np.float64, np.uint64)}[t]
    rng = np.random.default_rng(9)
    x = rng.integers(0, np.iinfo(word).max, 4000, dtype=word, endpoint=True).view(dtype).copy()
    x[:6] = np.array([0, -0.0, np.inf, -np.inf, np.nan, 1.0]).astype(dtype)
    for exponent_bits, mantissa_bits in [(5, 10), (8, 7), (4, 3), (11, 52), (1, 0), (8, 0)]:
        text = (f"HloModule m\nENTRY e {{\n  a = {t}[4000] parameter(0)\n  ROOT r = {t}[4000] "
                f"reduce-precision(a), exponent_bits={exponent_bits}, "
                f"mantissa_bits={mantissa_bits}\n}}")
        ex = compile_module(parse_hlo(text), cache=False, autotune=False)
        got = np.asarray(ex.run([x]))
        assert ex.stats.fallback == 0
        want = np.asarray(Evaluator(parse_hlo(text)).run([x]))
        np.testing.assert_array_equal(got.view(word), want.view(word))


COMPLEX_CONVERTS = [(s, d) for s in ("f32", "f64", "bf16", "f16", "c64", "c128")
                    for d in ("f32", "f64", "bf16", "f16", "c64", "c128")
                    if s != d and (s[0] == "c" or d[0] == "c")]


@pytest.mark.parametrize(("src", "dst"), COMPLEX_CONVERTS, ids=lambda v: v)
def test_converts_with_a_complex_side_run_natively(src: str, dst: str) -> None:
    """Complex to complex, a float to complex (imaginary part 0) and complex to a float
    (the real part, as XLA) compile to native code, bit for bit the interpreter (NaNs,
    infinities, signed zeros and denormals in the parts)."""
    from hlotool.frontend import parse_hlo
    from hlotool.interpreter.core import Evaluator
    from hlotool.targets.cpu import compile_module

    dtypes = {"f32": np.float32, "f64": np.float64, "bf16": ml_dtypes.bfloat16,
              "f16": np.float16, "c64": np.complex64, "c128": np.complex128}
    rng = np.random.default_rng(4)
    parts = rng.standard_normal((2, 64)) * 1e3
    parts[:, :4] = [[np.nan, np.inf, -0.0, 1e-40], [1e-310, -np.inf, 0.0, 2.5]]
    x = parts[0].astype(dtypes[src])
    if src[0] == "c":
        x.imag = parts[1]
    text = (f"HloModule m\nENTRY e {{\n  a = {src}[64] parameter(0)\n"
            f"  ROOT r = {dst}[64] convert(a)\n}}")
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    got = np.asarray(ex.run([x]))
    assert ex.stats.fallback == 0
    want = np.asarray(Evaluator(parse_hlo(text)).run([x]))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
