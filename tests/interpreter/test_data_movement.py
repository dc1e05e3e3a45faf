"""Data movement kernels. Expectations are hand-derived from the HLO semantics (the pad
case was also checked against XLA:CPU through jax.lax.pad)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import TOKEN, Evaluator


def run(text: str, *args: Any) -> Any:
    return Evaluator(parse_hlo(text)).run([np.asarray(a) for a in args])


def module(body: str) -> str:
    return f"HloModule m\nENTRY e {{\n{body}\n}}\n"


def test_constants_scalar_array_and_tuple() -> None:
    out = run(
        module("""  a = f32[] constant(1.5)
  b = s32[2,2] constant({{1,2},{3,4}})
  c = (bf16[], (pred[2], u8[])) constant((2, ({1, 0}, 7)))
  ROOT t = (f32[], s32[2,2], (bf16[], (pred[2], u8[]))) tuple(a, b, c)""")
    )
    a, b, (c0, (c1, c2)) = out
    assert a == np.float32(1.5)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(b, [[1, 2], [3, 4]])
    assert c0.dtype == ml_dtypes.bfloat16
    assert float(c0) == 2.0
    np.testing.assert_array_equal(c1, [True, False])
    assert c2 == 7
    assert c2.dtype == np.uint8


@pytest.mark.parametrize(
    ("t", "expected"),
    [
        ("s32", [[0, 1, 2], [0, 1, 2]]),
        ("bf16", [[0, 1, 2], [0, 1, 2]]),
        ("u8", [[0, 1, 2], [0, 1, 2]]),
    ],
)
def test_iota(t: str, expected: list[list[int]]) -> None:
    out = run(module(f"  ROOT i = {t}[2,3] iota(), iota_dimension=1"))
    np.testing.assert_array_equal(np.asarray(out).astype(np.int64), expected)


def test_iota_of_bf16_rounds_like_a_convert() -> None:
    out = run(module("  ROOT i = bf16[300] iota(), iota_dimension=0"))
    assert float(out[257]) == 256.0
    assert float(out[259]) == 260.0


def test_broadcast_maps_operand_dims_to_result_dims() -> None:
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = run(
        module("""  p = s32[2,3] parameter(0)
  ROOT b = s32[3,4,2] broadcast(p), dimensions={2,0}"""),
        x,
    )
    assert out.shape == (3, 4, 2)
    np.testing.assert_array_equal(out[:, 1, :], x.T)
    scalar = run(
        module("""  p = f32[] parameter(0)
  ROOT b = f32[2,2] broadcast(p), dimensions={}"""),
        np.float32(7),
    )
    np.testing.assert_array_equal(scalar, np.full((2, 2), 7))


def test_reshape_transpose_reverse_slice() -> None:
    x = np.arange(24, dtype=np.float32)
    out = run(
        module("""  p = f32[24] parameter(0)
  r = f32[2,3,4] reshape(p)
  t = f32[4,2,3] transpose(r), dimensions={2,0,1}
  v = f32[4,2,3] reverse(t), dimensions={0,2}
  ROOT s = f32[2,1,2] slice(v), slice={[0:4:2], [1:2], [0:3:2]}"""),
        x,
    )
    expected = np.flip(x.reshape(2, 3, 4).transpose(2, 0, 1), (0, 2))[0:4:2, 1:2, 0:3:2]
    np.testing.assert_array_equal(out, expected)


def test_concatenate() -> None:
    out = run(
        module("""  a = s32[2,1] parameter(0)
  b = s32[2,2] parameter(1)
  ROOT c = s32[2,3] concatenate(a, b), dimensions={1}"""),
        np.int32([[1], [2]]),
        np.int32([[3, 4], [5, 6]]),
    )
    np.testing.assert_array_equal(out, [[1, 3, 4], [2, 5, 6]])


def test_pad_with_negative_and_interior_padding() -> None:
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    out = run(
        module("""  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,4] pad(p, z), padding=1_-1_1x-1_2"""),
        x,
    )
    np.testing.assert_array_equal(out, [[0, 0, 0, 0], [2, 3, 0, 0], [0, 0, 0, 0]])


def test_pad_interior_and_high() -> None:
    out = run(
        module("""  p = s32[3] parameter(0)
  v = s32[] constant(-1)
  ROOT r = s32[8] pad(p, v), padding=0_1_2"""),
        np.int32([1, 2, 3]),
    )
    np.testing.assert_array_equal(out, [1, -1, -1, 2, -1, -1, 3, -1])


def test_pad_cropping_everything() -> None:
    out = run(
        module("""  p = s32[3] parameter(0)
  v = s32[] constant(9)
  ROOT r = s32[1] pad(p, v), padding=-3_1"""),
        np.int32([1, 2, 3]),
    )
    np.testing.assert_array_equal(out, [9])


DYNAMIC_SLICE = module("""  p = s32[10] parameter(0)
  i = s32[] parameter(1)
  ROOT r = s32[4] dynamic-slice(p, i), dynamic_slice_sizes={4}""")


@pytest.mark.parametrize(
    ("start", "expected"),
    [(-3, [0, 1, 2, 3]), (2, [2, 3, 4, 5]), (8, [6, 7, 8, 9]), (2**31 - 1, [6, 7, 8, 9])],
)
def test_dynamic_slice_clamps_start(start: int, expected: list[int]) -> None:
    out = run(DYNAMIC_SLICE, np.arange(10, dtype=np.int32), np.int32(start))
    np.testing.assert_array_equal(out, expected)


def test_dynamic_slice_with_unsigned_and_mixed_indices() -> None:
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    out = run(
        module("""  p = s32[2,3,4] parameter(0)
  i = u32[] parameter(1)
  j = s64[] parameter(2)
  k = s8[] parameter(3)
  ROOT r = s32[1,2,2] dynamic-slice(p, i, j, k), dynamic_slice_sizes={1,2,2}"""),
        x,
        np.uint32(4000000000),
        np.int64(1),
        np.int8(-7),
    )
    np.testing.assert_array_equal(out, x[1:2, 1:3, 0:2])


def test_dynamic_update_slice_clamps_and_copies() -> None:
    x = np.arange(10, dtype=np.int32)
    x.setflags(write=False)
    out = run(
        module("""  p = s32[10] parameter(0)
  u = s32[3] parameter(1)
  i = s32[] parameter(2)
  ROOT r = s32[10] dynamic-update-slice(p, u, i)"""),
        x,
        np.int32([-1, -2, -3]),
        np.int32(9),
    )
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 4, 5, 6, -1, -2, -3])
    np.testing.assert_array_equal(x, np.arange(10))


def test_bitcast_follows_physical_layouts() -> None:
    # A column-major f32[2,3]{0,1} holds 1 4 2 5 3 6 in memory; the bitcast to f32[6]
    # reads the buffer in that order.
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    out = run(
        module("""  p = f32[2,3]{0,1} parameter(0)
  ROOT b = f32[6]{0} bitcast(p)"""),
        x,
    )
    np.testing.assert_array_equal(out, [1, 4, 2, 5, 3, 6])
    out = run(
        module("""  p = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[3,2]{0,1} bitcast(p)"""),
        x,
    )
    np.testing.assert_array_equal(out, [[1, 4], [2, 5], [3, 6]])


def test_tuples_tokens_ids_and_identities() -> None:
    out = run(
        module("""  p = f32[2] parameter(0)
  c = f32[2] copy(p)
  o = f32[2] opt-barrier(c)
  tok = token[] after-all()
  d = f32[2] add-dependency(o, tok)
  t = (f32[2], token[]) tuple(d, tok)
  g = f32[2] get-tuple-element(t), index=0
  r = u32[] replica-id()
  q = u32[] partition-id()
  n = s32[] get-dimension-size(g), dimensions={0}
  ROOT all = (f32[2], token[], u32[], u32[], s32[]) tuple(g, tok, r, q, n)"""),
        np.float32([1, 2]),
    )
    g, tok, r, q, n = out
    np.testing.assert_array_equal(g, [1, 2])
    assert tok is TOKEN
    assert r.dtype == np.uint32
    assert r == 0
    assert q == 0
    assert n.dtype == np.int32
    assert n == 2


def test_copy_start_and_done() -> None:
    out = run(
        module("""  p = f32[2] parameter(0)
  s = (f32[2], f32[2], u32[]) copy-start(p)
  ROOT d = f32[2] copy-done(s)"""),
        np.float32([3, 4]),
    )
    np.testing.assert_array_equal(out, [3, 4])


def test_set_dimension_size_keeps_the_leading_elements() -> None:
    out = run(
        module("""  p = s32[5] parameter(0)
  n = s32[] constant(3)
  ROOT r = s32[<=5] set-dimension-size(p, n), dimensions={0}"""),
        np.arange(5, dtype=np.int32),
    )
    np.testing.assert_array_equal(out, [0, 1, 2])
