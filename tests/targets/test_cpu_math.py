"""Native sin, cos, tan, atan2, log1p, expm1, cbrt, pow and fmod against the interpreter
(numpy) on edge values, ordinary ranges and huge arguments, in f32, f64, f16 and bf16.

Every test also checks that the module ran without interpreter fallback.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.targets.conftest import assert_same, run_both

nan, inf = float("nan"), float("inf")
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, 1e-40, -1e-40, 1e-8, -1e-8, 3e-4, 2.0, -0.4999,
         7.0, 88.7, -88.7, 100.0, -104.0, 710.0, -750.0, 3e9, -3e9, 1e30, -1e30, 1e300, inf,
         -inf, nan, 1.5707963267948966, 3.141592653589793, 823549.6588, 1e22]
#: Edge values within f16 range.
NARROW_EDGES = [*EDGES[:21], inf, -inf, nan]
#: f64 denormals (pow reads them as zero, where the interpreter keeps them).
F64_DENORMALS = [1e-310, -1e-310]
RNG = np.random.default_rng(7)


def edges(dt: type, denormals: bool = True) -> np.ndarray:
    with np.errstate(over="ignore"):
        values = EDGES + (F64_DENORMALS if dt is np.float64 and denormals else [])
        return np.array(values, dt)


def ordinary(dt: type, n: int = 4000) -> np.ndarray:
    """Uniform on [-10, 10], plus log-uniform magnitudes from 1e-20 to 1e30, both signs."""
    wide = np.exp(RNG.uniform(-46, 69, n)) * RNG.choice([-1.0, 1.0], n)
    return np.concatenate([RNG.uniform(-10, 10, n), wide]).astype(dt)


def unary(op: str, t: str, n: int) -> str:
    return f"HloModule m\nENTRY e {{\n  p = {t}[{n}] parameter(0)\n  ROOT r = {t}[{n}] {op}(p)\n}}"


def binary(op: str, t: str, n: int) -> str:
    return (f"HloModule m\nENTRY e {{\n  a = {t}[{n}] parameter(0)\n  b = {t}[{n}] parameter(1)\n"
            f"  ROOT r = {t}[{n}] {op}(a, b)\n}}")


def check(text: str, *args: np.ndarray, ulps: int) -> None:
    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0 and ex.stats.native >= 1
    if got.dtype.kind != "f":  # bf16: compare its (exact) f32 values, ulps in bf16 units
        got, want, ulps = got.astype(np.float32), want.astype(np.float32), ulps << 16
    assert_same(got, want, ulps)


def pairs(dt: type, denormals: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of edge values, then random pairs from the ordinary ranges."""
    e = edges(dt, denormals)
    x, y = ordinary(dt, 2000), ordinary(dt, 2000)
    return np.concatenate([np.repeat(e, e.size), x]), np.concatenate([np.tile(e, e.size), y])


#: Max ulps from numpy per op and type (numpy's f32 routines are themselves ~1 ulp off).
UNARY_ULPS = {"sine": (1, 1), "cosine": (1, 1), "tan": (4, 2), "exponential-minus-one": (4, 2),
              "log-plus-one": (2, 1), "cbrt": (2, 1)}


#: numpy's function of each unary op, evaluated in long double as the reference.
LONG_DOUBLE = {"sine": np.sin, "cosine": np.cos, "tan": np.tan, "exponential-minus-one": np.expm1,
               "log-plus-one": np.log1p, "cbrt": np.cbrt}


@pytest.mark.parametrize("op", list(UNARY_ULPS))
@pytest.mark.parametrize(("t", "dt"), [("f32", np.float32), ("f64", np.float64)])
def test_unary(op: str, t: str, dt: type) -> None:
    """Against the function in long double, rounded once (numpy's own float32/float64
    routines depend on the host's SIMD level: its f64 cbrt is 3 ulps off on AVX2 hosts);
    zeros, denormals, infinities and NaNs against the interpreter (XLA's flushing)."""
    x = np.concatenate([edges(dt), ordinary(dt)])
    got, want, ex = run_both(unary(op, t, x.size), x)
    assert ex.stats.fallback == 0 and ex.stats.native >= 1
    with np.errstate(all="ignore"):
        exact = LONG_DOUBLE[op](x.astype(np.longdouble)).astype(dt)
    tiny = np.finfo(dt).tiny
    ordinary_value = (np.abs(x) >= tiny) & np.isfinite(want) & (np.abs(want) >= tiny)
    assert_same(got, np.where(ordinary_value, exact, want), UNARY_ULPS[op][t == "f64"])


@pytest.mark.parametrize("op", ["sine", "cosine", "tan"])
@pytest.mark.parametrize(("t", "dt", "top"), [("f32", np.float32, 127), ("f64", np.float64, 1023)])
def test_trig_huge_arguments(op: str, t: str, dt: type, top: int) -> None:
    """Payne-Hanek range: magnitudes 2**-20 .. 2**top (the worst-case near-multiples of
    pi/2 for f64 are not among them; see targets/llvm/math.py for the accuracy there)."""
    n = 6000
    x = RNG.uniform(1, 2, n) * 2.0 ** RNG.integers(-20, top, n) * RNG.choice([-1, 1], n)
    check(unary(op, t, n), x.astype(dt), ulps=4 if op == "tan" else 1)


@pytest.mark.parametrize(("t", "dt", "ulps"), [("f32", np.float32, 2), ("f64", np.float64, 1)])
def test_atan2(t: str, dt: type, ulps: int) -> None:
    a, b = pairs(dt)
    check(binary("atan2", t, a.size), a, b, ulps=ulps)


def test_power_f32_bit_exact() -> None:
    """f32 pow is computed in f64 (as XLA:CPU), so the f32 results agree bit for bit;
    a denormal base reads as +-2**-150."""
    a, b = pairs(np.float32)
    small = RNG.uniform(-6, 6, 2000).astype(np.float32)
    base = np.abs(ordinary(np.float32, 1000))
    a, b = np.concatenate([a, base]), np.concatenate([b, small])
    check(binary("power", "f32", a.size), a, b, ulps=0)


def test_power_f64() -> None:
    a, b = pairs(np.float64, denormals=False)
    base = np.abs(ordinary(np.float64, 1000))
    exponent = RNG.uniform(-6, 6, base.size)
    a, b = np.concatenate([a, base]), np.concatenate([b, exponent])
    with np.errstate(all="ignore"):
        r = np.abs(np.power(a, b))
    keep = ~((r > 0) & (r < np.finfo(np.float64).tiny))  # FTZ flushes these, numpy not
    check(binary("power", "f64", int(keep.sum())), a[keep], b[keep], ulps=2)


@pytest.mark.parametrize(("t", "dt"), [("f32", np.float32), ("f64", np.float64)])
def test_remainder_exact(t: str, dt: type) -> None:
    """fmod is exact, also for quotients up to the whole exponent range."""
    a, b = pairs(dt)
    tiny = np.finfo(dt).tiny
    top = np.finfo(dt).max
    big = np.array([top, -top, 3e38, 1e300 if dt is np.float64 else 1e38], dt)
    small = np.array([tiny, 3 * tiny, -7.3 * tiny, 0.1], dt)
    a, b = np.concatenate([a, np.repeat(big, 4)]), np.concatenate([b, np.tile(small, 4)])
    check(binary("remainder", t, a.size), a, b, ulps=0)


def narrow_dtype(t: str) -> type:
    import ml_dtypes

    return np.float16 if t == "f16" else ml_dtypes.bfloat16  # type: ignore[no-any-return]


@pytest.mark.parametrize(("t", "dt", "ity"), [("f32", np.float32, np.uint32),
                                              ("f64", np.float64, np.uint64)])
def test_remainder_random_bits(t: str, dt: type, ity: type) -> None:
    """fmod on random bit patterns (every exponent gap, NaNs, infinities), exact; pairs
    with a denormal f64 result are left out (FTZ flushes them, numpy keeps them)."""
    n = 20000
    a, b = (RNG.integers(0, np.iinfo(ity).max, n, dtype=ity, endpoint=True).view(dt)
            for _ in range(2))
    with np.errstate(all="ignore"):
        r = np.abs(np.fmod(a, b))
    keep = ~((r > 0) & (r < np.finfo(dt).tiny)) if dt is np.float64 else np.ones(n, bool)
    check(binary("remainder", t, int(keep.sum())), a[keep], b[keep], ulps=0)


@pytest.mark.parametrize(("op", "ulps"), [("power", 0), ("atan2", 2)])
def test_f32_random_bits(op: str, ulps: int) -> None:
    """f32 pow (bit-identical) and atan2 on random bit patterns."""
    a, b = (RNG.integers(0, 2**32 - 1, 20000, dtype=np.uint32, endpoint=True).view(np.float32)
            for _ in range(2))
    check(binary(op, "f32", a.size), a, b, ulps=ulps)


@pytest.mark.parametrize("t", ["f16", "bf16"])
@pytest.mark.parametrize("op", ["sine", "cosine", "tan", "exponential-minus-one",
                                "log-plus-one", "cbrt"])
def test_unary_narrow(op: str, t: str) -> None:
    dt = narrow_dtype(t)
    e = np.array(NARROW_EDGES, np.float32)
    x = np.concatenate([e, RNG.uniform(-10, 10, 500)]).astype(dt)
    check(unary(op, t, x.size), x, ulps=1)


@pytest.mark.parametrize("t", ["f16", "bf16"])
@pytest.mark.parametrize("op", ["atan2", "power", "remainder"])
def test_binary_narrow(op: str, t: str) -> None:
    dt = narrow_dtype(t)
    e = np.array(NARROW_EDGES, np.float32)
    a = np.concatenate([np.repeat(e, e.size), RNG.uniform(0.1, 10, 500)]).astype(dt)
    b = np.concatenate([np.tile(e, e.size), RNG.uniform(-4, 4, 500)]).astype(dt)
    check(binary(op, t, a.size), a, b, ulps=1)
