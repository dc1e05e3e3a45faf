"""Elementwise kernels against XLA:CPU.

The XLA_CASES expectations were recorded from XLA:CPU (jaxlib 0.10.2) by compiling the same
single-op modules as StableHLO; they are compared bit for bit (NaNs by NaN-ness, zeros
with their sign). The remaining tests are hand-derived.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.types import PrimitiveType

nan, inf = math.nan, math.inf


def run(text: str, *args: Any) -> Any:
    return Evaluator(parse_hlo(text)).run([np.asarray(a) for a in args])


def dtype(t: str) -> np.dtype:
    return PrimitiveType(t).numpy_dtype


def array(values: list[Any], t: str) -> np.ndarray:
    """Values in the storage dtype of an HLO element type (ints wrap like C casts)."""
    dt = dtype(t)
    if dt.kind in "iu" and dt.itemsize < 8:
        return np.array(values, np.int64).astype(dt)
    if dt.kind in "iu":
        return np.array(values, dtype=object).astype(dt)
    if dt.kind in "bc":
        return np.array(values, dt)
    with np.errstate(all="ignore"):
        return (
            np.array(values, np.float64).astype(np.float32 if dt.itemsize <= 4 else dt).astype(dt)
        )


def op_module(op: str, types: list[str], out: str, n: int, attrs: str = "") -> str:
    """A module applying `op` to its parameters (all of length n)."""
    params = "\n".join(f"  p{i} = {t}[{n}] parameter({i})" for i, t in enumerate(types))
    names = ", ".join(f"p{i}" for i in range(len(types)))
    return f"HloModule m\nENTRY e {{\n{params}\n  ROOT r = {out}[{n}] {op}({names}){attrs}\n}}\n"


def assert_same(got: Any, expected: np.ndarray) -> None:
    """Equal dtype and values, NaN matching NaN and zeros matching in sign."""
    got = np.asarray(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    if expected.dtype.kind in "biu" or expected.dtype in (dtype("s4"), dtype("u4")):
        np.testing.assert_array_equal(got, expected)
        return
    wide = np.complex128 if expected.dtype.kind == "c" else np.float64
    g, e = got.astype(wide), expected.astype(wide)
    same = (g == e) | (np.isnan(g) & np.isnan(e))
    if expected.dtype.kind != "c":
        same &= (np.signbit(g) == np.signbit(e)) | np.isnan(e)
    assert same.all(), f"got {got.tolist()}, expected {expected.tolist()}"


# (name, opcode, operand types, result type[, attributes], operands..., XLA:CPU result)
# fmt: off
XLA_CASES: list[tuple[Any, ...]] = [
    ('int_divide', 'divide', ['s32', 's32'], 's32',
     [7, -7, 7, -7, 5, -2147483648, -2147483648, 0],
     [2, 2, -2, -2, 0, -1, 1, 0],
     [3, -3, -3, 3, -1, -2147483648, -2147483648, -1]),
    ('int_remainder', 'remainder', ['s32', 's32'], 's32',
     [7, -7, 7, -7, 5, -2147483648, -2147483648, 0],
     [2, 2, -2, -2, 0, -1, 1, 0],
     [1, -1, 1, -1, 5, 0, 0, 0]),
    ('uint_divide', 'divide', ['u32', 'u32'], 'u32',
     [7, 4000000000, 5, 0],
     [2, 3, 0, 0],
     [3, 1333333333, 4294967295, 4294967295]),
    ('uint_remainder', 'remainder', ['u8', 'u8'], 'u8',
     [7, 250, 5, 0],
     [2, 3, 0, 0],
     [1, 1, 5, 0]),
    ('s8_divide_overflow', 'divide', ['s8', 's8'], 's8',
     [-128, -128, 100],
     [-1, 0, -3],
     [-128, -1, -33]),
    ('shift_left', 'shift-left', ['s32', 's32'], 's32',
     [1, 1, 1, 1, -8, 3],
     [0, 31, 32, -1, 1, 40],
     [1, -2147483648, 0, 0, -16, 0]),
    ('shift_right_arithmetic', 'shift-right-arithmetic', ['s32', 's32'], 's32',
     [-8, 8, -8, -8, 8, -2147483648],
     [1, 40, 32, -1, 3, 31],
     [-4, 0, -1, -1, 1, -1]),
    ('shift_right_logical', 'shift-right-logical', ['s32', 's32'], 's32',
     [-8, 8, -8, -1, -2147483648],
     [1, 3, 32, 28, 31],
     [2147483644, 1, 0, 15, 1]),
    ('shift_right_arithmetic_u8', 'shift-right-arithmetic', ['u8', 'u8'], 'u8',
     [128, 200, 255, 64],
     [1, 9, 3, 2],
     [192, 255, 255, 16]),
    ('int_power', 'power', ['s32', 's32'], 's32',
     [2, 3, 2, 1, -1, -1, 2, 0, 5],
     [10, 3, 64, -5, -3, -4, -1, 0, 13],
     [1024, 27, 1, 1, -1, 1, 0, 1, 1220703125]),
    ('uint_power_high_bit', 'power', ['u8', 'u8'], 'u8',
     [3, 1, 2, 3],
     [255, 200, 7, 5],
     [0, 1, 128, 243]),
    ('f32_to_s32', 'convert', ['f32'], 's32',
     [3e+09, -3e+09, inf, -inf, nan, 2.7, -2.7, -0.5, 2.1474835e+09],
     [2147483647, -2147483648, 2147483647, -2147483648, 0, 2, -2, 0, 2147483520]),
    ('f32_to_u8', 'convert', ['f32'], 'u8',
     [3e+09, -5.0, 255.9, 256.0, nan, 1.5],
     [255, 0, 255, 255, 0, 1]),
    ('f32_to_u32', 'convert', ['f32'], 'u32',
     [3e+09, -3e+09, 5e+09, nan, 4.294967e+09],
     [3000000000, 0, 4294967295, 0, 4294967040]),
    ('f64_to_s64', 'convert', ['f64'], 's64',
     [1e+19, -1e+19, 9.2e+18, nan, -inf, 12.9],
     [9223372036854775807, -9223372036854775808, 9200000000000000000, 0, -9223372036854775808, 12]),
    ('s32_to_s8', 'convert', ['s32'], 's8',
     [300, 255, -129, 128, -1],
     [44, -1, 127, -128, -1]),
    ('u32_to_s16', 'convert', ['u32'], 's16',
     [65535, 40000, 4294967295, 70000],
     [-1, -25536, -1, 4464]),
    ('f32_to_bf16', 'convert', ['f32'], 'bf16',
     [1.0039062, 1.0117188, 3.4e+38, -3.4e+38, 1e-39, nan, 65504.0],
     [1.0, 1.01562, inf, -inf, 1.01019e-39, nan, 65536.0]),
    ('f32_to_f16', 'convert', ['f32'], 'f16',
     [65520.0, 65519.0, 1e-07, 3e-08, -100000.0, 0.1],
     [inf, 6.55e+04, 1e-07, 6e-08, -inf, 0.1]),
    ('f32_to_f8e4m3fn', 'convert', ['f32'], 'f8e4m3fn',
     [448.0, 464.0, 500.0, -1000.0, 0.3, inf, nan, 0.001],
     [448.0, 448.0, nan, -nan, 0.3125, nan, nan, 0.00195312]),
    ('f32_to_f8e5m2', 'convert', ['f32'], 'f8e5m2',
     [57344.0, 61440.0, 1e+06, 0.1, -inf, 1e-06],
     [57344.0, inf, inf, 0.09375, -inf, 0.0]),
    ('s32_to_bf16', 'convert', ['s32'], 'bf16',
     [16777217, 257, 259, -33554435, 0],
     [1.67772e+07, 256.0, 260.0, -3.35544e+07, 0.0]),
    ('f32_to_pred', 'convert', ['f32'], 'pred',
     [0.0, -0.0, 1e-39, nan, -2.0],
     [False, False, False, True, True]),
    ('c64_to_f32', 'convert', ['c64'], 'f32',
     [complex(1.5, 2.0), complex(-3.0, -1.0)],
     [1.5, -3.0]),
    ('f32_to_f64_denormal', 'convert', ['f32'], 'f64',
     [1e-39, -1e-39, 1.5],
     [0.0, -0.0, 1.5]),
    ('f64_to_f32_denormal', 'convert', ['f64'], 'f32',
     [1e-39, -1e-40, 1e-310, 1e+39],
     [0.0, -0.0, 0.0, inf]),
    ('maximum', 'maximum', ['f32', 'f32'], 'f32',
     [nan, 1.0, 0.0, -0.0, -0.0, 1e-39, -1.0, 2.0],
     [1.0, nan, -0.0, 0.0, -0.0, 0.0, -inf, 1.0],
     [nan, nan, 0.0, 0.0, -0.0, 0.0, -1.0, 2.0]),
    ('minimum', 'minimum', ['f32', 'f32'], 'f32',
     [nan, 1.0, 0.0, -0.0, 0.0, -1e-39, -1.0, 2.0],
     [1.0, nan, -0.0, 0.0, 0.0, 0.0, -inf, 1.0],
     [nan, nan, -0.0, -0.0, 0.0, -0.0, -inf, 1.0]),
    ('maximum_bf16', 'maximum', ['bf16', 'bf16'], 'bf16',
     [nan, 0.0, -0.0, 3.0],
     [1.0, -0.0, 0.0, -3.0],
     [nan, 0.0, 0.0, 3.0]),
    ('clamp', 'clamp', ['f32', 'f32', 'f32'], 'f32',
     [0.0, 0.0, 0.0, nan, 0.0],
     [-1.0, 2.0, nan, 0.5, -0.0],
     [1.0, 1.0, 1.0, 1.0, 1.0],
     [0.0, 1.0, nan, nan, 0.0]),
    ('clamp_int', 'clamp', ['s32', 's32', 's32'], 's32',
     [0, 0, 5],
     [-3, 9, 3],
     [7, 7, 1],
     [0, 7, 1]),
    ('round_afz', 'round-nearest-afz', ['f32'], 'f32',
     [-2.5, 2.5, 0.5, -0.5, 0.49999997, 1.5, -0.2, 8.388609e+06, inf, nan],
     [-3.0, 3.0, 1.0, -1.0, 0.0, 2.0, -0.0, 8.388609e+06, inf, nan]),
    ('round_even', 'round-nearest-even', ['f32'], 'f32',
     [-2.5, 2.5, 0.5, -0.5, 0.49999997, 1.5, 3.5, -0.2],
     [-2.0, 2.0, 0.0, -0.0, 0.0, 2.0, 4.0, -0.0]),
    ('sign', 'sign', ['f32'], 'f32',
     [-0.0, 0.0, nan, -3.0, 5.0, 1e-39, -inf],
     [-0.0, 0.0, nan, -1.0, 1.0, 0.0, -1.0]),
    ('sign_int', 'sign', ['s32'], 's32',
     [-5, 0, 7, -2147483648],
     [-1, 0, 1, -1]),
    ('abs_negate_int_min', 'abs', ['s32'], 's32',
     [-2147483648, -3, 3],
     [-2147483648, 3, 3]),
    ('negate_int_min', 'negate', ['s8'], 's8',
     [-128, 5, 0],
     [-128, -5, 0]),
    ('negate_unsigned', 'negate', ['u8'], 'u8',
     [1, 0, 200],
     [255, 0, 56]),
    ('remainder_float', 'remainder', ['f32', 'f32'], 'f32',
     [5.5, -5.5, 5.5, 1.0, inf, 3.0],
     [2.0, 2.0, -2.0, 0.0, 2.0, inf],
     [1.5, -1.5, 1.5, -nan, -nan, 3.0]),
    ('popcnt', 'popcnt', ['s32'], 's32',
     [0, -1, 7, -2147483648, 255],
     [0, 32, 3, 1, 8]),
    ('popcnt_s4', 'popcnt', ['s4'], 's4',
     [-8, -1, 7, 3],
     [5, -8, 3, 2]),
    ('clz', 'count-leading-zeros', ['s32'], 's32',
     [0, 1, -1, 255, 2147483647],
     [32, 31, 0, 24, 1]),
    ('clz_u8', 'count-leading-zeros', ['u8'], 'u8',
     [0, 1, 128, 15],
     [8, 7, 0, 4]),
    ('not_int', 'not', ['s32'], 's32',
     [0, -1, 5],
     [-1, 0, -6]),
    ('not_pred', 'not', ['pred'], 'pred',
     [True, False],
     [False, True]),
    ('xor_pred', 'xor', ['pred', 'pred'], 'pred',
     [True, True, False, False],
     [True, False, True, False],
     [False, True, True, False]),
    ('is_finite', 'is-finite', ['f32'], 'pred',
     [1.0, inf, -inf, nan, 1e-39, 3.4e+38],
     [True, False, False, False, True, True]),
    ('bf16_add', 'add', ['bf16', 'bf16'], 'bf16',
     [1.0, 1.0, 256.0, 3.0, 1.00101e-38],
     [0.00390625, 0.0117188, 1.0, 1.01019e-39, -8.99988e-39],
     [1.0, 1.01562, 256.0, 3.0, 0.0]),
    ('bf16_multiply', 'multiply', ['bf16', 'bf16'], 'bf16',
     [1.00781, 3.0, 1.00056e-20, 1.00026e+30],
     [1.00781, 0.333984, 9.99499e-20, 9.99922e+09],
     [1.01562, 1.0, 0.0, inf]),
    ('f16_divide', 'divide', ['f16', 'f16'], 'f16',
     [1.0, 2.0, 0.001, 6e+04],
     [3.0, 7.0, 1e+03, 0.5],
     [0.3333, 0.2856, 1e-06, inf]),
    ('f32_multiply_flushes', 'multiply', ['f32', 'f32'], 'f32',
     [1e-39, 1e-20, -1e-20, 1e-39, 3.0],
     [2.0, 1e-19, 1e-19, 1e+30, 1e-39],
     [0.0, 0.0, -0.0, 0.0, 0.0]),
    ('f32_subtract_flushes', 'subtract', ['f32', 'f32'], 'f32',
     [2e-38, 1.5, 1e-39],
     [1.5e-38, 1.5, -1e-39],
     [0.0, 0.0, 0.0]),
    ('f32_negate_keeps_denormal', 'negate', ['f32'], 'f32',
     [1e-39, -1e-40],
     [-1e-39, 1e-40]),
    ('f32_compare_denormal', 'compare', ['f32', 'f32'], 'pred', ', direction=GT',
     [1e-39, 1e-39, -1e-39],
     [0.0, -0.0, 0.0],
     [False, False, False]),
    ('compare_totalorder_lt', 'compare', ['f32', 'f32'], 'pred', ', direction=LT, type=TOTALORDER',
     [-0.0, -nan, 0.0, 1.0, nan, -inf],
     [0.0, -inf, -0.0, nan, -nan, -nan],
     [True, True, False, True, False, False]),
    ('compare_totalorder_eq', 'compare', ['f32', 'f32'], 'pred', ', direction=EQ, type=TOTALORDER',
     [-0.0, nan, nan],
     [0.0, nan, -nan],
     [False, True, False]),
    ('compare_float_nan', 'compare', ['f32', 'f32'], 'pred', ', direction=NE',
     [nan, nan, 1.0],
     [nan, 1.0, 1.0],
     [True, True, False]),
    ('compare_unsigned', 'compare', ['u32', 'u32'], 'pred', ', direction=GT',
     [4294967295, 1],
     [1, 2],
     [True, False]),
    ('exp_f32', 'exponential', ['f32'], 'f32',
     [1.0, -1.0, 10.0, 88.7, -87.0, -104.0, 0.3, inf, -inf, nan],
     [2.7182817, 0.36787945, 22026.465, 3.325976e+38, 1.6458115e-38, 0.0, 1.3498588, inf, 0.0,
      nan]),
    ('log_f32', 'log', ['f32'], 'f32',
     [2.0, 0.5, 10.0, 0.0, -1.0, 1e-39, inf, 3.3e+38],
     [0.6931472, -0.6931472, 2.3025851, -inf, -nan, -inf, inf, 88.692154]),
    ('tanh_f32', 'tanh', ['f32'], 'f32',
     [0.5, -4.04, 8.5, 1e-05, 1e-39, 0.0003, nan],
     [0.46211717, -0.9993808, 1.0, 1e-05, 1e-39, 0.0003, nan]),
    ('logistic_f32', 'logistic', ['f32'], 'f32',
     [0.0, 2.0, -20.0, 30.0, -90.0],
     [0.5, 0.880797, 2.0611537e-09, 1.0, 0.0]),
    ('exp_f64', 'exponential', ['f64'], 'f64',
     [1.0, -1.0, -7.25, 700.0],
     [2.7182818284590455, 0.3678794411714423, 0.0007101743888425491, 1.0142320547350045e+304]),
    ('power_f32', 'power', ['f32', 'f32'], 'f32',
     [2.0, 0.0, 0.0, -8.0, -8.0, 1e-39, 1.0],
     [0.5, -1.0, 0.0, 0.33333334, 3.0, 0.5, nan],
     [1.4142135, inf, 1.0, -nan, -512.0, 2.646978e-23, 1.0]),
]
# fmt: on


@pytest.mark.parametrize("case", XLA_CASES, ids=[c[0] for c in XLA_CASES])
def test_matches_xla(case: tuple[Any, ...]) -> None:
    _, op, types, out, *rest = case
    attrs = rest.pop(0) if isinstance(rest[0], str) else ""
    *operands, expected = rest
    n = len(expected)
    got = run(
        op_module(op, types, out, n, attrs),
        *(array(v, t) for v, t in zip(operands, types, strict=True)),
    )
    assert_same(got, array(expected, out))


# reduce-precision of f32 (and f16 in its own format), recorded from XLA:CPU.
RP_INPUT = [1.0, 1.00390625, 1.0117188, 65504.0, 70000.0, 1e-5, 1e-40, 3.4e38, nan, -2.5, 0.1]
RP_CASES = [
    (5, 10, [1.0, 1.00390625, 1.01171875, 65504.0, inf, 0.0, 0.0, inf, nan, -2.5, 0.0999755859375]),
    (
        8,
        7,
        [
            1.0,
            1.0,
            1.015625,
            65536.0,
            70144.0,
            1.0013580322265625e-05,
            9.183549615799121e-41,
            inf,
            nan,
            -2.5,
            0.10009765625,
        ],
    ),
    (4, 3, [1.0, 1.0, 1.0, inf, inf, 0.0, 0.0, inf, nan, -2.5, 0.1015625]),
    (8, 0, [1.0, 1.0, 1.0, 65536.0, 65536.0, 7.62939453125e-06, 0.0, inf, nan, -2.0, 0.125]),
]


@pytest.mark.parametrize(("exponent", "mantissa", "expected"), RP_CASES)
def test_reduce_precision(exponent: int, mantissa: int, expected: list[float]) -> None:
    attrs = f", exponent_bits={exponent}, mantissa_bits={mantissa}"
    got = run(op_module("reduce-precision", ["f32"], "f32", 11, attrs), array(RP_INPUT, "f32"))
    assert_same(got, array(expected, "f32"))


def test_reduce_precision_of_f16_uses_its_own_format() -> None:
    attrs = ", exponent_bits=5, mantissa_bits=2"
    got = run(
        op_module("reduce-precision", ["f16"], "f16", 4, attrs),
        array([1e-7, 1e-5, 65504.0, 0.1], "f16"),
    )
    assert_same(got, array([0.0, 1.52587890625e-05, inf, 0.09375], "f16"))


@pytest.mark.parametrize("t", ["s32", "u32", "s64", "u64", "s8"])
def test_mulhi(t: str) -> None:
    bits = dtype(t).itemsize * 8
    signed = t.startswith("s")
    lo = -(1 << (bits - 1)) if signed else 0
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    a = [lo, hi, hi, 3, lo, 12345, -1 if signed else hi]
    b = [lo, hi, 2, 5, -1 if signed else 7, 67890, 1]

    def high_half(x: int, y: int) -> int:
        h = (x * y) >> bits
        return (h & ((1 << bits) - 1)) - ((1 << bits) if signed and h >> (bits - 1) & 1 else 0)

    xs, ys = array(a, t), array(b, t)
    got = run(op_module("mulhi", [t, t], t, 7), xs, ys)
    expected = [high_half(x, y) for x, y in zip(xs.tolist(), ys.tolist(), strict=True)]
    np.testing.assert_array_equal(got, array(expected, t))


def test_subbyte_integers_wrap() -> None:
    got = run(
        op_module("add", ["s4", "s4"], "s4", 3), array([7, -8, 3], "s4"), array([1, -1, 2], "s4")
    )
    np.testing.assert_array_equal(got.astype(np.int8), [-8, 7, 5])
    got = run(
        op_module("multiply", ["u4", "u4"], "u4", 2), array([15, 4], "u4"), array([2, 4], "u4")
    )
    np.testing.assert_array_equal(got.astype(np.int8), [14, 0])


def test_bitcast_convert_changes_width_little_endian() -> None:
    text = """HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT r = u8[2,4] bitcast-convert(p)
}"""
    got = run(text, np.array([1.0, -2.0], np.float32))
    np.testing.assert_array_equal(got, [[0, 0, 128, 63], [0, 0, 0, 192]])
    back = """HloModule m
ENTRY e {
  p = u8[2,4] parameter(0)
  ROOT r = f32[2] bitcast-convert(p)
}"""
    np.testing.assert_array_equal(run(back, got), [1.0, -2.0])


def test_bitcast_convert_to_subbyte_splits_low_bits_first() -> None:
    text = """HloModule m
ENTRY e {
  p = s8[2] parameter(0)
  ROOT r = s4[2,2] bitcast-convert(p)
}"""
    got = run(text, np.array([0x5A, -1], np.int8))
    np.testing.assert_array_equal(got.astype(np.int8), [[-6, 5], [-1, -1]])


def test_bitcast_convert_same_width_keeps_bits() -> None:
    got = run(
        op_module("bitcast-convert", ["f32"], "s32", 3), np.array([1.0, -0.0, 1e-40], np.float32)
    )
    np.testing.assert_array_equal(got, [0x3F800000, -(2**31), 71362])


def test_select_and_complex_parts() -> None:
    text = """HloModule m
ENTRY e {
  c = pred[3] parameter(0)
  a = f32[3] parameter(1)
  b = f32[3] parameter(2)
  s = f32[3] select(c, a, b)
  z = c64[3] complex(s, b)
  re = f32[3] real(z)
  im = f32[3] imag(z)
  ROOT t = (f32[3], f32[3], c64[3]) tuple(re, im, z)
}"""
    re, im, z = run(
        text, np.array([True, False, True]), np.float32([1, 2, 3]), np.float32([4, 5, 6])
    )
    np.testing.assert_array_equal(re, [1, 5, 3])
    np.testing.assert_array_equal(im, [4, 5, 6])
    assert z.dtype == np.complex64


def test_complex_division_corner_cases() -> None:
    # XLA's Smith division: a finite numerator over zero gives signed infinities; a finite
    # numerator over an infinite denominator gives zeros.
    a = np.array([1 + 1j, 1 + 2j, 6 + 8j], np.complex64)
    b = np.array([0j, complex(inf, 0), 3 + 4j], np.complex64)
    got = run(op_module("divide", ["c64", "c64"], "c64", 3), a, b)
    assert np.isinf(got[0].real)
    assert np.isinf(got[0].imag)
    assert got[1] == 0
    assert got[2] == 2 + 0j


def test_erf_f32_matches_xla_rational_approximation() -> None:
    x = np.array([0.0, 0.5, -1.0, 3.9, -5.0], np.float32)
    got = run(op_module("erf", ["f32"], "f32", 5), x)
    np.testing.assert_allclose(got, [math.erf(float(v)) for v in x], rtol=2e-7, atol=1e-7)
    assert got[3] == 1.0
    assert got[4] == -1.0


def test_convert_between_subbyte_pred_and_float() -> None:
    got = run(op_module("convert", ["s4"], "f32", 3), array([-8, 7, -1], "s4"))
    np.testing.assert_array_equal(got, [-8, 7, -1])
    got = run(op_module("convert", ["pred"], "bf16", 2), np.array([True, False]))
    assert got.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(got.astype(np.float32), [1, 0])


def test_stochastic_convert_rounds_up_below_the_fraction() -> None:
    # 2.25 has fraction 0.25 = 64/256: random values below 64 round away from zero.
    text = """HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  r = u8[4] parameter(1)
  ROOT c = s32[4] stochastic-convert(x, r)
}"""
    got = run(text, np.float32([2.25, 2.25, -2.25, 1e10]), np.uint8([63, 64, 0, 0]))
    np.testing.assert_array_equal(got, [3, 2, -3, 2**31 - 1])


MAP_ELEMENTWISE = """HloModule m
body {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  two = f32[] constant(2)
  ROOT m = f32[] multiply(s, two)
}
ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT r = f32[2,3] map(x, y), dimensions={0,1}, to_apply=body
}"""


def test_map_applies_the_region_elementwise() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run(MAP_ELEMENTWISE, x, x + 1), (2 * x + 1) * 2)


def test_map_falls_back_to_per_element_calls() -> None:
    text = """HloModule m
body {
  a = s32[] parameter(0)
  v = s32[1] broadcast(a), dimensions={}
  ROOT r = s32[] reshape(v)
}
ENTRY e {
  x = s32[3] parameter(0)
  ROOT r = s32[3] map(x), dimensions={0}, to_apply=body
}"""
    np.testing.assert_array_equal(run(text, np.int32([4, 5, 6])), [4, 5, 6])


def test_scalar_operands_stay_rank_zero() -> None:
    text = """HloModule m
ENTRY e {
  a = u32[] parameter(0)
  b = u32[] parameter(1)
  ROOT r = u32[] shift-right-logical(a, b)
}"""
    got = run(text, np.uint32(8), np.uint32(2))
    assert got.shape == ()
    assert got == 2


# XLA:CPU contracts an f32 multiply feeding an add/subtract/sum into one fused
# multiply-add and turns a divide by a constant into a multiply by its reciprocal; the
# expected values below were recorded from jax.jit on CPU.
FMA_A = [1.224721074104309, -1.8473248481750488, 1.5665488243103027, -0.13656634092330933]
FMA_B = [-1.3225916624069214, -0.39810124039649963, -1.5354465246200562, 1.2867186069488525]
FMA_C = [0.10981037467718124, 1.0133622884750366, -0.479574054479599, 0.7753884196281433]


def multiply_then(op: str, product_first: bool) -> str:
    operands = "m, c" if product_first else "c, m"
    return f"""HloModule m
ENTRY e {{
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] parameter(2)
  m = f32[4] multiply(a, b)
  ROOT r = f32[4] {op}({operands})
}}"""


def test_multiply_add_is_fused() -> None:
    got = run(multiply_then("add", True), *(array(v, "f32") for v in (FMA_A, FMA_B, FMA_C)))
    assert_same(
        got,
        array(
            [-1.509995460510254, 1.7487846612930298, -2.8849260807037354, 0.5996659398078918], "f32"
        ),
    )


def test_subtract_of_a_product_is_fused() -> None:
    got = run(multiply_then("subtract", False), *(array(v, "f32") for v in (FMA_A, FMA_B, FMA_C)))
    assert_same(
        got,
        array(
            [1.7296162843704224, 0.27793997526168823, 1.9257779121398926, 0.9511108994483948], "f32"
        ),
    )


def test_product_with_two_users_is_rounded() -> None:
    text = multiply_then("add", True).replace(
        "ROOT r = f32[4] add(m, c)", "s = f32[4] add(m, c)\n  ROOT t = (f32[4], f32[4]) tuple(s, m)"
    )
    a, b, c = (array(v, "f32") for v in (FMA_A, FMA_B, FMA_C))
    got, _ = run(text, a, b, c)
    assert_same(got, a * b + c)


def test_divide_by_constant_multiplies_by_the_reciprocal() -> None:
    text = """HloModule m
ENTRY e {
  x = f32[5] parameter(0)
  three = f32[] constant(3)
  d = f32[5] broadcast(three), dimensions={}
  ROOT r = f32[5] divide(x, d)
}"""
    got = run(text, np.float32([1, 2, 5, 7, 10]))
    assert_same(
        got,
        array(
            [
                0.3333333432674408,
                0.6666666865348816,
                1.6666667461395264,
                2.3333334922790527,
                3.3333334922790527,
            ],
            "f32",
        ),
    )


def test_sum_of_squares_accumulates_with_fma() -> None:
    text = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  y = f32[2,12] parameter(0)
  sq = f32[2,12] multiply(y, y)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(sq, z), dimensions={1}, to_apply=add
}"""
    y = (np.sin(np.arange(24) * 0.9) * 3).astype(np.float32).reshape(2, 12)
    assert_same(run(text, y), array([48.98922348022461, 59.61530303955078], "f32"))


@pytest.mark.parametrize(("src", "dst"), [("f64", "c128"), ("c128", "f64"), ("f32", "c64"),
                                          ("c64", "f32")])
def test_converts_between_a_complex_type_and_its_part_type_are_exact(src: str, dst: str) -> None:
    """A float to the complex type of its width, and back (the real part), loses nothing:
    an f64 is not rounded through f32 (XLA's result, bit for bit), denormals kept."""
    text = (f"HloModule m\nENTRY e {{\n  a = {src}[4] parameter(0)\n"
            f"  ROOT r = {dst}[4] convert(a)\n}}")
    parts = np.array([-2516.258814117551, 1e-310, 3.0, np.nan])
    wide = src in ("f64", "c128")
    x = parts if wide else parts.astype(np.float32)
    if src.startswith("c"):
        x = (x + 1j * x[::-1]).astype(np.complex128 if wide else np.complex64)
    got = np.ascontiguousarray(Evaluator(parse_hlo(text)).run([x]))
    want = np.ascontiguousarray(x.real if src.startswith("c") else
                                x.astype(np.complex128 if wide else np.complex64))
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize(("src", "dst"), [("c128", "c64"), ("c64", "c128"), ("f64", "c64"),
                                          ("c128", "f32")])
def test_complex_converts_flush_denormal_parts_as_xla(src: str, dst: str) -> None:
    """Each part of a complex convert converts as its float type does on XLA:CPU: a part
    that is an f32 denormal (read or written) becomes zero (XLA's result, bit for bit)."""
    from hlotool.reference import run_xla
    from hlotool.values_io import output_arrays

    dtypes = {"c64": np.complex64, "c128": np.complex128, "f64": np.float64, "f32": np.float32}
    x = np.array([1e-40, 3.0, -1e-39, 2.5e-38], np.float64).astype(dtypes[src])
    if src[0] == "c":
        x.imag = [2.0, 1e-40, 0.0, -1e-41]
    text = (f"HloModule m\nENTRY e {{\n  a = {src}[4] parameter(0)\n"
            f"  ROOT r = {dst}[4] convert(a)\n}}")
    got = np.ascontiguousarray(Evaluator(parse_hlo(text)).run([x]))
    want = np.ascontiguousarray(output_arrays(run_xla(text, [x], "m"))["out0"])
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
