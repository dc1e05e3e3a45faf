"""Tests of hlotool.ir.literal: reading literal syntax trees and printing XLA's text.

Expected strings were recorded from XLA's own parser and printer (jaxlib 0.10.2,
`hlo_module_from_text` then `to_string`), constant by constant.
"""

from __future__ import annotations

import hashlib
import re

import lark
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlotool.ir.literal import (
    Literal,
    LiteralError,
    NumericBlock,
    format_float,
    literal_from_ast,
    parse_float_token,
)
from hlotool.ir.types import Layout, PrimitiveType, Shape

P = PrimitiveType


# -- helpers: a tiny reader for literal text and shape text ---------------------------------


class Tok(str):
    """A token as the parser hands it over: a str with a position."""

    line: int
    column: int


_TOKEN = re.compile(r"\s*(-?nan\(0x[0-9a-fA-F]+\)|\.\.\.|[{}(),]|[^\s{}(),]+)")


def ast(text: str) -> object:
    """The parser's literal tree for a literal's text (commas and comments dropped)."""
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group()), text)
    tokens: list[Tok] = []
    pos = 0
    while (m := _TOKEN.match(text, pos)) is not None:
        tok = Tok(m.group(1))
        tok.line, tok.column = 1, m.start(1) + 1
        tokens.append(tok)
        pos = m.end()
    stream = iter(tokens)

    def node(tok: Tok) -> object:
        if tok not in ("{", "("):
            return tok
        close = "}" if tok == "{" else ")"
        items: list[object] = []
        for nxt in stream:
            if nxt == close:
                return (str(tok), items)
            if nxt != ",":
                items.append(node(nxt))
        raise AssertionError("unbalanced literal text")

    return node(next(stream))


def shape(text: str) -> Shape:
    """A shape from text like `f32[2,3]` or `(f32[], (s32[2], pred[]))`."""
    text = text.strip()
    if text.startswith("("):
        parts, depth, cur = [], 0, ""
        for ch in text[1:-1]:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += (ch in "([") - (ch in ")]")
            cur += ch
        if cur.strip():
            parts.append(cur)
        return Shape.tuple_of([shape(p) for p in parts])
    m = re.fullmatch(r"(\w+)\[([\d,]*)\]", text)
    assert m is not None, text
    dims = tuple(int(d) for d in m.group(2).split(",") if d)
    return Shape.array(PrimitiveType(m.group(1)), dims)


def lit(shape_text: str, literal_text: str) -> Literal:
    return literal_from_ast(shape(shape_text), ast(literal_text))


def bits_of(arr: np.ndarray) -> np.ndarray:
    return arr.reshape(-1).view(f"u{arr.dtype.itemsize}")


def round_trip(literal: Literal) -> Literal:
    """Print, then read the printed text back against the same shape."""
    return literal_from_ast(literal.shape, ast(literal.to_text()))


def split_ast(text: str) -> object:
    """A quick tree for printed rank-1/rank-2 number arrays (no tokenizer, no positions)."""
    if text.startswith("{ {"):
        return ("{", [("{", row.split(", ")) for row in text[4:-4].split(" }, { ")])
    return ("{", text[1:-1].split(", "))


def pseudo_bits(n: int, width: int) -> np.ndarray:
    """Deterministic, well-mixed bit patterns (splitmix64), truncated to width bits."""
    x = (np.arange(n, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(29)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(32)
    return (x & np.uint64(0xFFFFFFFF)).astype(np.uint32) if width == 32 else x


# -- golden output recorded from XLA ---------------------------------------------------------

#: (shape, literal written, what XLA printed for it).
GOLDEN = [
    ("f32[]", "1.5e10", "1.5e+10"),
    ("f32[]", "1e-5", "1e-05"),
    ("f32[]", "100", "100"),
    ("f32[]", "0.001", "0.001"),
    ("f32[]", "1e6", "1e+06"),
    ("f32[]", "123456789", "123456792"),
    ("f32[]", "3.4028234663852886e38", "3.40282347e+38"),
    ("f64[]", "1.2345678901234568e+17", "1.2345678901234568e+17"),
    ("f64[]", "0.1", "0.1"),
    ("f64[]", "1e308", "1e+308"),
    ("f64[]", "5e-324", "4.94065645841247e-324"),
    ("f32[]", "1e-45", "1.4013e-45"),
    ("f32[]", "0.1", "0.1"),
    ("f32[]", "16777217", "16777216"),
    ("f32[]", "-0.0", "-0"),
    ("f32[]", "1.17549435e-38", "1.17549435e-38"),
    ("bf16[3]", "{0.1, -0.0, nan}", "{0.1001, -0, nan}"),
    ("f16[]", "0.1", "0.099976"),
    ("f8e5m2[]", "0.1", "0.094"),
    ("f8e4m3fn[]", "0.3", "0.312"),
    ("f16[4]", "{65504, -65504, 6e-8, 1e-3}", "{65504, -65504, 5.9605e-08, 0.0010004}"),
    ("bf16[2]", "{3.38e38, 1e-40}", "{3.376e+38, 9.184e-41}"),
    ("f8e4m3fn[3]", "{448, -448, 449}", "{448, -448, 448}"),
    ("f8e4m3fn[2]", "{inf, -inf}", "{nan, -nan}"),
    ("f8e4m3fnuz[2]", "{nan, 1e-10}", "{-nan, 0}"),
    ("f8e4m3b11fnuz[2]", "{30, -nan}", "{30, -nan}"),
    ("f8e5m2fnuz[2]", "{57344, -inf}", "{5.7e+04, -nan}"),
    ("f8e3m4[3]", "{15.5, 0.1, nan(0x1)}", "{15.5, 0.0938, nan(0x1)}"),
    ("f8e4m3[3]", "{240, 0.1, -nan(0x3)}", "{240, 0.102, -nan(0x3)}"),
    ("f8e8m0fnu[4]", "{1, 3, 0.7, -nan}", "{1, 4, 0.5, nan}"),
    ("f8e8m0fnu[2]", "{1e-50, 2e38}", "{5.9e-39, 1.7e+38}"),
    ("f6e2m3fn[3]", "{7.5, 0.3, nan}", "{7.5, 0.25, -0}"),
    ("f6e3m2fn[2]", "{28, 1e10}", "{28, 28}"),
    ("f4e2m1fn[4]", "{6, 7, 0.7, -inf}", "{6, 6, 0.5, -6}"),
    (
        "f32[6]",
        "{nan, -nan, nan(0x1), -nan(0x7fffff), inf, -inf}",
        "{nan, -nan, nan(0x1), -nan(0x7fffff), inf, -inf}",
    ),
    ("f64[3]", "{nan(0x8000000000000), -nan(0x1), -nan}", "{nan, -nan(0x1), -nan}"),
    ("f16[2]", "{nan(0x200), nan(0x1ff)}", "{nan, nan(0x1ff)}"),
    ("bf16[2]", "{nan(0x40), -nan(0x7f)}", "{nan, -nan(0x7f)}"),
    ("f8e5m2[2]", "{nan(0x2), nan(0x1)}", "{nan, nan(0x1)}"),
    ("f32[2,2]", "{{1,2},{3,4}}", "{ { 1, 2 }, { 3, 4 } }"),
    (
        "f32[2,2,2]",
        "{{{1,2},{3,4}},{{5,6},{7,8}}}",
        "{ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }",
    ),
    ("f32[2,1]", "{{1},{2}}", "{ {1}, {2} }"),
    ("f32[1,2]", "{{1,2}}", "{ { 1, 2 } }"),
    ("f32[2,2,1]", "{{{1},{2}},{{3},{4}}}", "{ { {1}, {2} }, { {3}, {4} } }"),
    ("f32[1,1,1,1]", "{{{{1}}}}", "{ { /*i0=0*/ { /*i1=0*/ {1} } } }"),
    (
        "s32[2,2,2,2]",
        "{{{{1,2},{3,4}},{{5,6},{7,8}}},{{{9,10},{11,12}},{{13,14},{15,16}}}}",
        "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 }, { 3, 4 } }, { /*i1=1*/ { 5, 6 }, { 7, 8 } } }, "
        "{ /*i0=1*/ { /*i1=0*/ { 9, 10 }, { 11, 12 } }, { /*i1=1*/ { 13, 14 }, { 15, 16 } } } }",
    ),
    ("s32[1,1,1,1,2]", "{{{{{1,2}}}}}", "{ { /*i0=0*/ { /*i1=0*/ { /*i2=0*/ { 1, 2 } } } } }"),
    ("s8[2,0]", "{ {}, {} }", "{ {}, {} }"),
    ("s8[0]", "{}", "{}"),
    ("s8[0,2]", "{}", "{  }"),
    ("f32[2,0,2]", "{ {}, {} }", "{ {  }, {  } }"),
    ("f32[2,0,1,1]", "{{},{}}", "{ { /*i0=0*/ }, { /*i0=1*/ } }"),
    ("f32[1,1,0,1,1]", "{{{}}}", "{ { /*i0=0*/ { /*i1=0*/ } } }"),
    ("f32[1,1,1,0]", "{{{{}}}}", "{ { /*i0=0*/ { /*i1=0*/ {} } } }"),
    ("c64[]", "(1, -2.5)", "(1, -2.5)"),
    ("c64[2]", "{(1,2),(inf,-nan)}", "{(1, 2), (inf, -nan)}"),
    ("c128[]", "(0.1, 1e308)", "(0.1, 1e+308)"),
    ("c64[]", "(-0.0, 1e-45)", "(-0, 1.4013e-45)"),
    ("c64[2,1]", "{{(1,2)},{(3,4)}}", "{ {(1, 2)}, {(3, 4)} }"),
    ("c64[0]", "{}", "{}"),
    ("(f32[], (s32[2], pred[]))", "(1.5, ({1, 2}, true))", "( 1.5, ( {1, 2}, true ) )"),
    ("()", "()", "(  )"),
    ("(f32[], ())", "(1, ())", "( 1, (  ) )"),
    ("(f32[2,2], c64[])", "({{1,2},{3,4}}, (1,2))", "( { { 1, 2 }, { 3, 4 } }, (1, 2) )"),
    ("pred[]", "true", "true"),
    ("pred[]", "false", "false"),
    ("pred[3]", "{1,0,1}", "{1, 0, 1}"),
    ("pred[2]", "{true, false}", "{1, 0}"),
    ("pred[2]", "{2, -5}", "{1, 1}"),
    ("pred[2,2]", "{{1,0},{0,1}}", "{ { 1, 0 }, { 0, 1 } }"),
    ("pred[]", "-1", "true"),
    ("u64[]", "18446744073709551615", "18446744073709551615"),
    ("u64[]", "-1", "18446744073709551615"),
    ("s64[]", "-9223372036854775808", "-9223372036854775808"),
    ("s64[]", "18446744073709551615", "-1"),
    ("s64[]", "9223372036854775808", "-9223372036854775808"),
    ("s32[]", "18446744073709551615", "-1"),
    ("u32[]", "4294967295", "4294967295"),
    ("s4[3]", "{-8, 7, 0}", "{-8, 7, 0}"),
    ("u4[2]", "{15, 0}", "{15, 0}"),
    ("s2[2]", "{-2, 1}", "{-2, 1}"),
    ("u2[2]", "{3, 0}", "{3, 0}"),
    ("s1[2]", "{-1, 0}", "{-1, 0}"),
    ("u1[2]", "{1, 0}", "{1, 0}"),
    ("s8[2]", "{-128, 127}", "{-128, 127}"),
    ("u8[]", "255", "255"),
    ("s16[]", "-32768", "-32768"),
    ("u16[]", "65535", "65535"),
    ("f32[3]", "7", "{7, 0, 0}"),
    ("f32[2,2]", "7", "{ { 7, 0 }, { 0, 0 } }"),
    ("s32[2]", "{1 2}", "{1, 2}"),
    ("s32[2]", "{1, 2,}", "{1, 2}"),
    ("f32[]", "1.", "1"),
    ("f32[]", "1E5", "100000"),
    ("f32[]", "-.5", "-0.5"),
    ("f32[]", "18446744073709551615", "-1"),
    ("f64[]", "9007199254740993", "9007199254740992"),
    ("f32[]", "1152921573326323713", "1.1529215e+18"),
    ("bf16[]", "1.003906250931322574615478515625", "1"),
    ("f8e4m3fn[]", "1.0625000000001", "1.12"),
    ("f16[]", "65519", "65504"),
    ("f32[]", "1e-50", "0"),
    ("f32[]", "-1e-50", "-0"),
    ("f32[11]", "{1,2,3,4,5,6,7,8,9,10,11}", "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}"),
]

#: sha256 of XLA's text for an array of every bit pattern of the type, in bit order.
ALL_PATTERNS_SHA256 = {
    P.F16: "1e90f130efc0f87b9c115b594acb95c41baddf6e548984a5caee3f35075aa01f",
    P.BF16: "2a116c2e4c8eab5cb1dea3b7223eb80b5808a487fc8546ddc63c569284414e7a",
    P.F8E5M2: "b8b82f5babbf74c09d098f74650252402ca37c8c735fe5acaab5eba97b2489b8",
    P.F8E4M3: "40d7f0daa820f7b746083e164031d2aa5dad59ccbd5eef0f812c3f07b28785f4",
    P.F8E4M3FN: "d42a7943981a511005a5a3e756979dda4daa7c1b01d5929af3e11ce2387c6bc0",
    P.F8E4M3B11FNUZ: "59013e3201407a0e1b093d260fc1bff986a42db041ebaaae16993815fb9be255",
    P.F8E3M4: "c9bf26ea662030936f13e49b13357be5be37b1c839b4b6e3dfc1121a09df2318",
    P.F8E5M2FNUZ: "d26744b9ac6f02bbc500c5ce77d632c09e5c4d37eed1ca28d1753596fd57824a",
    P.F8E4M3FNUZ: "c4d35cac4ddd3c01f1b987ad98e0db547d68ab90c8fa8120f16c9e6ae115264e",
    P.F8E8M0FNU: "ebffa1a037bbb0826557e9205e4ce8f46469bee5dc76f8e47126bb3872f40d40",
    P.F6E2M3FN: "ecf9a0b3ae4d96db82744ce446589dcec944d33016d3fd3a90fe104a5403393f",
    P.F6E3M2FN: "24b6cba7a0c0be360305e4442985ba86f04c00654e2730a74bb0c4e1dd2301b7",
    P.F4E2M1FN: "cbdbd02e320ce42d47c4e16f5700a446b8faacf23e08d5f1ba2bf4d6b0370e1c",
}

#: sha256 of XLA's text for pseudo_bits(20000, width) viewed as the type.
PSEUDO_SHA256 = {
    P.F32: "4a3e01c156bb7e015650eb56aecde8ba5011896e063e13a218f0d56b28aa2c52",
    P.F64: "084afc6b064cc792d6b5ff4469783d8ba0c01a77220260c918e1145f3c23dcd2",
}


@pytest.mark.parametrize(("shape_text", "written", "printed"), GOLDEN)
def test_prints_like_xla(shape_text: str, written: str, printed: str) -> None:
    assert lit(shape_text, written).to_text() == printed


@pytest.mark.parametrize(("shape_text", "written", "printed"), GOLDEN)
def test_printed_text_reads_back_to_itself(shape_text: str, written: str, printed: str) -> None:
    once = lit(shape_text, written)
    again = lit(shape_text, printed)
    assert again.to_text() == printed
    assert again.bit_equal(once)


def _all_patterns(t: PrimitiveType) -> np.ndarray:
    dtype = t.numpy_dtype
    count = 1 << (8 * dtype.itemsize if t.bits >= 8 else t.bits)
    return np.arange(count).astype(f"u{dtype.itemsize}").view(dtype)


@pytest.mark.parametrize("t", list(ALL_PATTERNS_SHA256))
def test_every_bit_pattern_prints_like_xla_and_round_trips(t: PrimitiveType) -> None:
    literal = Literal.from_array(_all_patterns(t), t)
    text = literal.to_text()
    assert hashlib.sha256(text.encode()).hexdigest() == ALL_PATTERNS_SHA256[t]
    back = literal_from_ast(literal.shape, split_ast(text))
    np.testing.assert_array_equal(bits_of(back.array), bits_of(literal.array))


@pytest.mark.parametrize(("t", "width"), [(P.F32, 32), (P.F64, 64)])
def test_wide_float_patterns_print_like_xla_and_round_trip(t: PrimitiveType, width: int) -> None:
    literal = Literal.from_array(pseudo_bits(20000, width).view(t.numpy_dtype), t)
    text = literal.to_text()
    assert hashlib.sha256(text.encode()).hexdigest() == PSEUDO_SHA256[t]
    back = literal_from_ast(literal.shape, split_ast(text))
    np.testing.assert_array_equal(bits_of(back.array), bits_of(literal.array))


# -- float formatting and reading ------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "t", "text"),
    [
        (1.5e10, P.F32, "1.5e+10"),
        (1e-5, P.F32, "1e-05"),
        (123456789, P.F32, "123456792"),
        (np.finfo(np.float32).max, P.F32, "3.40282347e+38"),
        (1.2345678901234568e17, P.F64, "1.2345678901234568e+17"),
        (0.1, P.BF16, "0.1001"),
        (0.1, P.F16, "0.099976"),
        (0.1, P.F8E5M2, "0.094"),
        (0.3, P.F8E4M3FN, "0.312"),
        (-0.0, P.F32, "-0"),
        (float("-inf"), P.BF16, "-inf"),
        (1 - 2j, P.C64, "(1, -2)"),
    ],
)
def test_format_float(value: object, t: PrimitiveType, text: str) -> None:
    assert format_float(value, t) == text


@pytest.mark.parametrize(
    ("text", "t", "bits"),
    [
        ("nan", P.F32, 0x7FC00000),
        ("-nan", P.F32, 0xFFC00000),
        ("nan(0x1)", P.F32, 0x7F800001),
        ("-nan(0x7fffff)", P.F32, 0xFFFFFFFF),
        ("nan(0x1F)", P.F32, 0x7F80001F),
        ("nan(0x8000000000000)", P.F64, 0x7FF8000000000000),
        ("-nan(0x1)", P.F64, 0xFFF0000000000001),
        ("nan(0x1)", P.BF16, 0x7F81),
        ("-nan", P.F16, 0xFE00),
        ("nan", P.F8E4M3FN, 0x7F),
        ("-nan", P.F8E4M3FN, 0xFF),
        ("nan", P.F8E4M3FNUZ, 0x80),
        ("-nan", P.F8E8M0FNU, 0xFF),
        ("nan", P.F4E2M1FN, 0x8),  # no NaN: XLA's conversion gives -0
        ("-nan", P.F4E2M1FN, 0x0),
        ("-0", P.F32, 0x80000000),  # XLA reads +0 here; we keep the sign to round-trip
        ("-0.0", P.BF16, 0x8000),
        ("inf", P.F8E4M3FN, 0x7F),
        ("-inf", P.F6E2M3FN, 0x3F),  # no infinity: saturates
        ("3", P.F8E8M0FNU, 0x81),
        ("1e-50", P.F8E8M0FNU, 0x00),
        ("5.9e-39", P.F8E8M0FNU, 0x00),  # XLA reads 2^-126 here; we round by value
        ("1152921573326323713", P.F32, 0x5D800000),  # int64 -> double -> float
        ("18446744073709551615", P.F32, 0xBF800000),  # 64-bit token wraps to -1
        ("1.003906250931322574615478515625", P.BF16, 0x3F80),  # double -> float -> bf16
        ("1.0625000000001", P.F8E4M3FN, 0x39),  # double -> f8 directly (no double rounding)
    ],
)
def test_parse_float_token_bits(text: str, t: PrimitiveType, bits: int) -> None:
    value = np.asarray(parse_float_token(Tok(text), t))
    assert value.dtype == t.numpy_dtype
    assert int(value.view(f"u{value.dtype.itemsize}")) == bits


def test_float_tokens_fold_into_the_complex_component_type() -> None:
    assert np.asarray(parse_float_token("0.1", P.C64)).dtype == np.float32


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_f32_bits_round_trip(bits: int) -> None:
    literal = Literal.from_array(np.array([bits], np.uint32).view(np.float32))
    assert round_trip(literal).bit_equal(literal)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_c128_bits_round_trip(re_bits: int, im_bits: int) -> None:
    pair = np.array([re_bits, im_bits], np.uint64).view(np.complex128)
    literal = Literal.from_array(pair)
    assert round_trip(literal).bit_equal(literal)


def test_double_rounding_tie_is_resolved_by_the_exact_decimal() -> None:
    from hlotool.ir.literal import _fix_double_rounding

    # 1 + 2^-24 + 1e-32 reads as the double 1 + 2^-24, exactly between two floats.
    out = ["1.00000005960464477539062500000001", "1.0000000596046447753906250"]
    back = np.array(out).astype(np.float64)
    back32 = back.astype(np.float32)
    _fix_double_rounding(out, back, back32)
    assert back32.tolist() == [float(np.nextafter(np.float32(1), np.float32(2))), 1.0]


# -- structure -------------------------------------------------------------------------------


def test_lark_tokens_are_accepted() -> None:
    one = lark.Token("INT", "1", line=3, column=7)
    node = ("{", [one, lark.Token("DECIMAL", "2.5")])
    assert literal_from_ast(shape("f32[2]"), node).to_text() == "{1, 2.5}"


def test_array_is_read_only_c_order_and_typed() -> None:
    literal = lit("bf16[2,3]", "{{1,2,3},{4,5,6}}")
    assert literal.array is not None
    assert literal.array.dtype == P.BF16.numpy_dtype
    assert literal.array.shape == (2, 3)
    assert literal.array.flags.c_contiguous
    assert not literal.array.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        literal.array[0, 0] = 1


def test_one_bit_types_hold_their_values_in_two_bit_arrays() -> None:
    literal = lit("s1[2]", "{-1, 0}")
    assert literal.array is not None
    assert literal.array.dtype == P.S2.numpy_dtype
    assert literal.array.astype(int).tolist() == [-1, 0]


def test_elided_literal_reads_as_zeros_and_prints_elided() -> None:
    literal = lit("f32[2,3]", "{...}")
    assert literal.elided
    assert literal.array is not None
    assert not literal.array.any()
    assert literal.to_text() == "{...}"
    inside = lit("(f32[], s8[4])", "(1, {...})")
    assert inside.to_text() == "( 1, {...} )"


def test_print_large_false_elides_big_arrays_and_all_tuples() -> None:
    ten = lit("s32[10]", "{1,2,3,4,5,6,7,8,9,10}")
    assert ten.to_text(print_large=False) == "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}"
    eleven = lit("s32[11]", "{1,2,3,4,5,6,7,8,9,10,11}")
    assert eleven.to_text(print_large=False) == "{...}"
    assert eleven.to_text() == "{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}"
    assert lit("(f32[], f32[])", "(1, 2)").to_text(print_large=False) == "{...}"
    assert lit("()", "()").to_text(print_large=False) == "{...}"


def test_lenient_bare_scalar_fills_the_first_element() -> None:
    literal = lit("s32[2,2]", "5")
    assert literal.array is not None
    assert literal.array.tolist() == [[5, 0], [0, 0]]


def test_from_array_tuple_of_zeros_and_leaves() -> None:
    a = Literal.from_array(np.arange(6, dtype=np.int32).reshape(2, 3))
    b = Literal.from_array([True, False], P.PRED)
    c = Literal.from_array(np.float32(1.5))
    t = Literal.tuple_of([a, Literal.tuple_of([b, c])])
    assert t.shape == shape("(s32[2,3], (pred[2], f32[]))")
    assert t.to_text() == "( { { 0, 1, 2 }, { 3, 4, 5 } }, ( {1, 0}, 1.5 ) )"
    assert [x.tolist() for x in t.leaves()] == [[[0, 1, 2], [3, 4, 5]], [True, False], 1.5]
    zeros = Literal.zeros(t.shape)
    assert zeros.to_text() == "( { { 0, 0, 0 }, { 0, 0, 0 } }, ( {0, 0}, 0 ) )"
    assert Literal.from_array([1, 2], P.BF16).to_text() == "{1, 2}"
    assert Literal.zeros(Shape.token()).leaves() == []


def test_from_array_copies_and_checks() -> None:
    data = np.array([1.0, 2.0], np.float32)
    literal = Literal.from_array(data)
    data[0] = 7
    assert literal.to_text() == "{1, 2}"
    with pytest.raises(LiteralError, match="u1"):
        Literal.from_array([0, 5], P.U1)
    with pytest.raises(ValueError, match="does not match"):
        Literal(shape("f32[3]"), np.zeros(2, np.float32))


def test_bit_equal_and_fingerprint() -> None:
    a = lit("f32[3]", "{nan(0x1), -0.0, 1}")
    assert a.bit_equal(lit("f32[3]", "{nan(0x1), -0.0, 1}"))
    assert not a.bit_equal(lit("f32[3]", "{nan(0x2), -0.0, 1}"))
    assert not a.bit_equal(lit("f32[3]", "{nan(0x1), 0, 1}"))
    assert not a.bit_equal(lit("s32[3]", "{0, 0, 1}"))
    assert a.fingerprint() == lit("f32[3]", "{nan(0x1), -0.0, 1}").fingerprint()
    assert a.fingerprint() != lit("f32[3]", "{nan(0x1), 0, 1}").fingerprint()
    other_layout = Literal(shape("f32[3]").with_layout(Layout((0,), memory_space=1)), a.array)
    assert a.bit_equal(other_layout)
    assert a.fingerprint() == other_layout.fingerprint()
    zeros, elided = lit("s8[2]", "{0, 0}"), lit("s8[2]", "{...}")
    assert not zeros.bit_equal(elided)
    assert zeros.fingerprint() != elided.fingerprint()
    ints, floats = lit("s32[]", "0"), lit("f32[]", "0")
    assert ints.fingerprint() != floats.fingerprint()
    t1, t2 = lit("(s8[], (s8[]))", "(1, (2))"), lit("(s8[], (s8[]))", "(1, (3))")
    assert t1.bit_equal(lit("(s8[], (s8[]))", "(1, (2))"))
    assert not t1.bit_equal(t2)
    assert t1.fingerprint() != t2.fingerprint()


def test_a_splat_stays_lazy_until_its_array_is_needed() -> None:
    huge = Literal.splat(shape("f32[100000,100000]"), -0.0)
    assert huge.is_lazy_splat and huge.data is not None and not any(huge.data.strides)
    assert huge.data.base is not None and huge.data.base.nbytes == 4
    one = huge.splat_element()
    assert one is not None and one.tobytes() == np.float32(-0.0).tobytes()
    assert huge.to_text(print_large=False) == "{...}"
    assert huge.bit_equal(Literal.splat(shape("f32[100000,100000]"), -0.0))
    assert not huge.bit_equal(Literal.splat(shape("f32[100000,100000]"), 0.0))
    with pytest.raises(LiteralError, match="splat of 10000000000 elements"):
        huge.to_text()
    assert len(huge.fingerprint()) < 100


@pytest.mark.parametrize("dims", [(2,), (1, 3), (2, 3), (2, 1, 3), (2, 3, 1, 2), (2, 2, 2, 2, 2)])
def test_a_lazy_splat_prints_and_compares_like_its_dense_array(dims: tuple[int, ...]) -> None:
    t = "f32[" + ",".join(map(str, dims)) + "]"
    lazy = Literal.splat(shape(t), 1.5)
    dense = Literal.from_array(np.full(dims, 1.5, np.float32))
    assert lazy.is_lazy_splat and not dense.is_lazy_splat
    assert lazy.to_text() == dense.to_text()
    assert lazy.bit_equal(dense) and dense.bit_equal(lazy)
    assert lazy.fingerprint() == dense.fingerprint()
    assert not lazy.bit_equal(Literal.from_array(np.arange(np.prod(dims), dtype=np.float32)
                                                 .reshape(dims)))
    array = lazy.array
    assert array is not None and array.flags.c_contiguous and not array.flags.writeable
    np.testing.assert_array_equal(array, dense.array)
    assert lazy.array is array  # expanded once
    assert lit(t, lazy.to_text()).bit_equal(lazy)


def test_elided_constants_are_lazy_zeros() -> None:
    elided = lit("f32[30000,30000]", "{...}")
    assert elided.elided and elided.is_lazy_splat and elided.to_text() == "{...}"
    assert elided.data is not None and elided.data.base is not None
    assert elided.data.base.nbytes == 4


def test_splat_element_of_dense_arrays() -> None:
    assert lit("s32[3]", "{7, 7, 7}").splat_element() == 7
    assert lit("f32[2]", "{0, -0.0}").splat_element() is None  # bits differ
    assert lit("f32[0]", "{}").splat_element() is None
    assert Literal.zeros(Shape.token()).splat_element() is None


_BLOCK_CASES = [
    ("f32[2,3]", "{{1, -0, 2.5e-3}, {1e38, 3.4028235e38, .5}}"),
    ("f32[4]", "{16777217, 0.1, 1E+5, -7.}"),
    ("bf16[3]", "{1.00390625, 3.0e38, -1e-40}"),
    ("f8e4m3fn[3]", "{0.3, 448, -0.0}"),
    ("f16[2]", "{65519, 6e-8}"),
    ("f64[2]", "{0.1, 123456789012345678}"),
    ("s8[2,2]", "{{-128, 127}, {0, -0}}"),
    ("u64[2]", "{0, 922337203685477580}"),
    ("s4[3]", "{-8, 7, 007}"),
]


@pytest.mark.parametrize(("shape_text", "text"), _BLOCK_CASES)
def test_a_numeric_block_reads_like_its_tree(shape_text: str, text: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy's reading of a whole block gives the bits of the element-by-element path."""
    slow = literal_from_ast(shape(shape_text), NumericBlock(text).tree())

    def no_tree(self: NumericBlock) -> object:
        raise AssertionError("fell back to the element-by-element reader")

    monkeypatch.setattr(NumericBlock, "tree", no_tree)
    fast = literal_from_ast(shape(shape_text), NumericBlock(text))
    assert fast.bit_equal(slow)


@pytest.mark.parametrize(("shape_text", "text", "message"), [
    ("f32[2]", "{1, 2, 3}", "expects 2 elements in dimension 0, but sees 3"),
    ("f32[2,1]", "{1, 2}", "expects a braced list at nesting level 2"),
    ("s8[2]", "{1, 300}", "value 300 is out of range for s8"),
    ("s32[2]", "{1, 2.5}", "expects an integer for s32"),
    ("f32[2]", "{1, 1e39}", "value 1e39 is out of range for f32"),
    ("f32[2]", "{1, +2}", "expects a floating-point value for f32, but sees '+2'"),
    ("u32[2]", "{1, 99999999999999999999}", "does not fit in 64 bits"),
    ("f32[2,2]", "{{1 2, 3}, {, 4}}", "expects 2 elements in dimension 1, but sees 3"),
    ("f32[2]", "{1-2, 3}", "expects a floating-point value for f32, but sees '1-2'"),
    ("f32[2]", "{1-2,}", "expects 2 elements in dimension 0, but sees 1"),
    ("f32[2,1]", "{{1-2},{}}", "expects 1 elements in dimension 1, but sees 0"),
])
def test_a_numeric_block_with_errors_reports_them_like_its_tree(
        shape_text: str, text: str, message: str) -> None:
    with pytest.raises(LiteralError, match=re.escape(message)):
        literal_from_ast(shape(shape_text), NumericBlock(text))


def test_large_constants_round_trip_in_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large literals print and read back through the vectorized paths (never token by
    token; bench/reliability_probes.py times 10^6 and 10^7 elements)."""
    from hlotool.ir import literal as literal_module

    def per_token(*args: object) -> object:
        raise AssertionError("element-by-element path taken")

    monkeypatch.setattr(literal_module, "_token_to_double", per_token)
    monkeypatch.setattr(literal_module, "_int_token", per_token)
    rng = np.random.default_rng(0)
    floats = Literal.from_array(rng.standard_normal((250, 400)).astype(np.float32))
    ints = Literal.from_array(rng.integers(-(2**31), 2**31, 100000).astype(np.int32))
    for literal in (floats, ints):
        back = literal_from_ast(literal.shape, split_ast(literal.to_text()))
        assert back.bit_equal(literal)


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape_text", "written", "message", "token"),
    [
        ("s8[]", "300", "value 300 is out of range for s8", "300"),
        ("u4[]", "-1", "out of range for u4", "-1"),
        ("s1[]", "1", "out of range for s1 [-1, 0]", "1"),
        ("u32[]", "-1", "out of range for u32", "-1"),
        ("s32[]", "4294967295", "out of range for s32", "4294967295"),
        ("u64[]", "18446744073709551616", "does not fit in 64 bits", "18446744073709551616"),
        ("s32[3]", "{1, 2.5, 3}", "expects an integer for s32", "2.5"),
        ("pred[]", "1.0", "expects an integer for pred", "1.0"),
        ("pred[]", "TRUE", "expects an integer for pred", "TRUE"),
        ("s32[]", "inf", "expects an integer", "inf"),
        ("f32[]", "true", "expects a floating-point value for f32", "true"),
        ("f32[]", "1e39", "value 1e39 is out of range for f32", "1e39"),
        ("f32[]", "3.4028235677973366e38", "out of range for f32", "3.4028235677973366e38"),
        ("f32[]", "1e400", "out of range for a double", "1e400"),
        ("f16[]", "65520", "out of range for f16", "65520"),
        ("bf16[]", "3.4e38", "out of range for bf16", "3.4e38"),
        ("f8e4m3fn[2]", "{1, 470}", "value 470 is out of range for f8e4m3fn", "470"),
        ("f8e5m2[]", "61440", "out of range for f8e5m2", "61440"),
        ("f8e4m3b11fnuz[]", "31", "out of range for f8e4m3b11fnuz", "31"),
        ("f8e8m0fnu[]", "0", "out of range for f8e8m0fnu", "0"),
        ("f8e8m0fnu[]", "-1", "out of range for f8e8m0fnu", "-1"),
        ("bf16[]", "nan(0x80)", "NaN payload 0x80 is out of range for bf16", "nan(0x80)"),
        ("f32[]", "nan(0x800000)", "out of range for f32", "nan(0x800000)"),
        ("f32[]", "nan(0x0)", "NaN payload 0x0", "nan(0x0)"),
        ("f8e4m3fn[]", "nan(0x7)", "f8e4m3fn does not support NaN payloads", "nan(0x7)"),
        ("f8e5m2fnuz[]", "nan(0x1)", "does not support NaN payloads", "nan(0x1)"),
        ("f4e2m1fn[]", "-nan(0x1)", "does not support NaN payloads", "-nan(0x1)"),
        ("f32[]", "{1}", "rank-0 f32 literal is written without braces", "1"),
        ("f32[]", "{...}", "without braces", "..."),
        ("f32[]", "(1, 2)", "parentheses are only valid for complex or tuple", "1"),
        ("f32[2]", "{(1,2),(3,4)}", "parentheses are only valid", "1"),
        ("f32[2]", "{1,2,3}", "expects 2 elements in dimension 0", "1"),
        ("f32[2]", "{}", "expects 2 elements in dimension 0, but sees 0", None),
        ("f32[2,0]", "{}", "expects 2 elements in dimension 0", None),
        ("f32[0,2]", "{ {} }", "expects 0 elements in dimension 0, but sees 1", None),
        ("f32[2,2]", "{{1,2},{3}}", "expects 2 elements in dimension 1, but sees 1", "3"),
        ("f32[3,2]", "{{1,2},{3,4}}", "expects 3 elements in dimension 0", "1"),
        ("f32[2,1]", "{1,2}", "braced list at nesting level 2", "1"),
        ("f32[2]", "{{1},{2}}", "too many levels of braces", "1"),
        ("f32[2,2]", "{{...},{...}}", "'...' is only allowed alone", "..."),
        ("f32[2]", "{..., 1}", "'...' is only allowed alone", "..."),
        ("f32[0]", "7", "expects a braced literal of rank 1", "7"),
        ("c64[2]", "(1, 2)", "expects a braced literal", "1"),
        ("c64[]", "1", "a c64 element is written (re, im)", "1"),
        ("c64[2]", "{1, 2}", "written (re, im)", "1"),
        ("c64[]", "(1, 2, 3)", "pair (re, im)", "1"),
        ("c64[]", "(true, 1)", "floating-point value for f32", "true"),
        ("c64[]", "(1e39, 0)", "out of range for f32", "1e39"),
        ("(f32[], f32[])", "(1)", "expects 2 tuple elements", "1"),
        ("(f32[], f32[])", "(1, 2, 3)", "but sees 3", "1"),
        ("(f32[], f32[])", "{...}", "expects a tuple literal", "..."),
        ("(f32[], (s32[], s32[]))", "(1, (2, 3.5))", "expects an integer for s32", "3.5"),
    ],
)
def test_errors(shape_text: str, written: str, message: str, token: str | None) -> None:
    node = ast(written)
    with pytest.raises(LiteralError) as info:
        literal_from_ast(shape(shape_text), node)
    assert message in info.value.message
    if token is None:
        assert info.value.token is None
    else:
        assert info.value.token == token
        assert info.value.line == 1
        assert info.value.column == written.index(token) + 1


def test_errors_for_shapes_without_literals() -> None:
    with pytest.raises(LiteralError, match="token"):
        literal_from_ast(Shape.token(), ast("()"))
    dynamic = Shape.array(P.F32, (-1,))
    with pytest.raises(LiteralError, match="static dimensions"):
        literal_from_ast(dynamic, ast("{1}"))
    with pytest.raises(LiteralError, match="expects a tuple literal"):
        literal_from_ast(shape("(f32[])"), "1")
