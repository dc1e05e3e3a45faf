"""The dot kernel: dimension numbers, mixed element types, integer wrap-around."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator

bf16 = ml_dtypes.bfloat16


def run(text: str, *args: Any) -> Any:
    return Evaluator(parse_hlo(text)).run([np.asarray(a) for a in args])


def dot_module(lhs: str, rhs: str, out: str, dims: str) -> str:
    return f"""HloModule m
ENTRY e {{
  a = {lhs} parameter(0)
  b = {rhs} parameter(1)
  ROOT d = {out} dot(a, b), {dims}
}}"""


RNG = np.random.default_rng(0)


def test_matmul() -> None:
    a = RNG.standard_normal((4, 5)).astype(np.float32)
    b = RNG.standard_normal((5, 3)).astype(np.float32)
    got = run(
        dot_module(
            "f32[4,5]", "f32[5,3]", "f32[4,3]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
        ),
        a,
        b,
    )
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a @ b, rtol=1e-6)


def test_batch_and_transposed_contracting_dims() -> None:
    # lhs [k, batch, m], rhs [n, batch, k] -> [batch, m, n]
    a = RNG.standard_normal((4, 2, 3)).astype(np.float32)
    b = RNG.standard_normal((5, 2, 4)).astype(np.float32)
    dims = (
        "lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={1}, rhs_contracting_dims={2}"
    )
    got = run(dot_module("f32[4,2,3]", "f32[5,2,4]", "f32[2,3,5]", dims), a, b)
    np.testing.assert_allclose(got, np.einsum("kbm,nbk->bmn", a, b), rtol=1e-5)


def test_vector_and_outer_products() -> None:
    v = np.float32([1, 2, 3])
    w = np.float32([4, 5, 6])
    inner = run(
        dot_module(
            "f32[3]", "f32[3]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"
        ),
        v,
        w,
    )
    assert inner.shape == ()
    assert inner == 32
    outer = run(
        dot_module(
            "f32[3]", "f32[3]", "f32[3,3]", "lhs_contracting_dims={}, rhs_contracting_dims={}"
        ),
        v,
        w,
    )
    np.testing.assert_array_equal(outer, np.outer(v, w))


def test_int8_operands_accumulate_in_s32() -> None:
    a = np.full((2, 300), -128, np.int8)
    b = np.full((300, 2), 127, np.int8)
    got = run(
        dot_module(
            "s8[2,300]",
            "s8[300,2]",
            "s32[2,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        a,
        b,
    )
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.full((2, 2), -128 * 127 * 300))


def test_integer_dot_wraps() -> None:
    a = np.array([[2**30, 2**30, 3]], np.int32)
    b = np.array([[4], [4], [5]], np.int32)
    got = run(
        dot_module(
            "s32[1,3]", "s32[3,1]", "s32[1,1]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
        ),
        a,
        b,
    )
    np.testing.assert_array_equal(got, [[15]])  # 2**33 wraps to 0
    u = np.array([[250, 250]], np.uint8)
    got = run(
        dot_module(
            "u8[1,2]", "u8[2,1]", "u8[1,1]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
        ),
        u,
        u.T,
    )
    np.testing.assert_array_equal(got, [[(2 * 250 * 250) % 256]])


def test_bf16_operands_with_f32_result() -> None:
    a = RNG.standard_normal((3, 8)).astype(bf16)
    b = RNG.standard_normal((8, 2)).astype(bf16)
    got = run(
        dot_module(
            "bf16[3,8]",
            "bf16[8,2]",
            "f32[3,2]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        a,
        b,
    )
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6)


def test_bf16_result_is_rounded_once() -> None:
    a = np.array([[1.0, 2.0**-8, 2.0**-8]], bf16)
    b = np.array([[1.0], [1.0], [1.0]], bf16)
    got = run(
        dot_module(
            "bf16[1,3]",
            "bf16[3,1]",
            "bf16[1,1]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        a,
        b,
    )
    # Accumulated in f32: 1 + 2**-7 is exact in bf16; rounding after every add would
    # have lost both small terms.
    assert got.dtype == bf16
    assert float(got[0, 0]) == 1.0078125


def test_complex_dot() -> None:
    a = np.array([[1 + 2j, 3 - 1j]], np.complex64)
    b = np.array([[2j], [1 + 1j]], np.complex64)
    got = run(
        dot_module(
            "c64[1,2]", "c64[2,1]", "c64[1,1]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
        ),
        a,
        b,
    )
    np.testing.assert_allclose(got, a @ b)


def test_denormal_products_flush_to_zero() -> None:
    a = np.float32([[1e-20, 1.0]])
    b = np.float32([[1e-20], [0.0]])
    got = run(
        dot_module(
            "f32[1,2]", "f32[2,1]", "f32[1,1]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
        ),
        a,
        b,
    )
    assert got[0, 0] == 0


@pytest.mark.parametrize(
    ("algorithm", "bits"), [("dot_bf16_bf16_f32", 7), ("dot_tf32_tf32_f32", 10)]
)
def test_dot_algorithm_rounds_operands(algorithm: str, bits: int) -> None:
    x = np.float32([[1 + 2.0**-12]])
    got = run(
        dot_module(
            "f32[1,1]",
            "f32[1,1]",
            "f32[1,1]",
            f"lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, algorithm={algorithm}",
        ),
        x,
        np.float32([[1.0]]),
    )
    assert got[0, 0] == 1.0
    precise = run(
        dot_module(
            "f32[1,1]",
            "f32[1,1]",
            "f32[1,1]",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
            "operand_precision={highest,highest}",
        ),
        x,
        np.float32([[1.0]]),
    )
    assert precise[0, 0] == x[0, 0]


def test_ragged_dot_groups_lhs_rows() -> None:
    lhs = RNG.standard_normal((7, 4)).astype(np.float32)
    rhs = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    text = """HloModule m
ENTRY e {
  a = f32[7,4] parameter(0)
  b = f32[3,4,5] parameter(1)
  g = s32[3] parameter(2)
  ROOT d = f32[7,5] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1},
      lhs_ragged_dims={0}, rhs_group_dims={0}
}"""
    got = run(text, lhs, rhs, np.int32([2, 0, 4]))
    expected = np.zeros((7, 5), np.float32)
    expected[0:2] = lhs[0:2] @ rhs[0]
    expected[2:6] = lhs[2:6] @ rhs[2]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_ragged_dot_over_the_contracting_dimension() -> None:
    lhs = RNG.standard_normal((2, 6)).astype(np.float32)
    rhs = RNG.standard_normal((6, 3)).astype(np.float32)
    text = """HloModule m
ENTRY e {
  a = f32[2,6] parameter(0)
  b = f32[6,3] parameter(1)
  g = s32[2] parameter(2)
  ROOT d = f32[2,2,3] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={0},
      lhs_ragged_dims={1}
}"""
    got = run(text, lhs, rhs, np.int32([4, 2]))
    np.testing.assert_allclose(got[0], lhs[:, :4] @ rhs[:4], rtol=1e-6)
    np.testing.assert_allclose(got[1], lhs[:, 4:] @ rhs[4:], rtol=1e-6)


def test_scaled_dot_applies_block_scales() -> None:
    lhs = np.ones((1, 4), np.float32)
    rhs = np.ones((4, 1), np.float32)
    text = """HloModule m
ENTRY e {
  a = f32[1,4] parameter(0)
  sa = f32[1,2] parameter(1)
  b = f32[4,1] parameter(2)
  sb = f32[2,1] parameter(3)
  ROOT d = f32[1,1] scaled-dot(a, sa, b, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""
    got = run(text, lhs, np.float32([[2, 3]]), rhs, np.float32([[1], [10]]))
    np.testing.assert_array_equal(got, [[2 * 2 + 3 * 10 * 2]])
