"""convolution kernel: expected values recorded from jax 0.10.2 on CPU (lax.conv_general_dilated)
for integer-valued inputs, or hand-derived."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator


def run(text: str, *args: np.ndarray) -> np.ndarray:
    return np.asarray(Evaluator(parse_hlo(text)).run(list(args)))


def conv(lhs: str, rhs: str, out: str, attrs: str) -> str:
    return f"""HloModule m
ENTRY e {{
  x = {lhs} parameter(0)
  w = {rhs} parameter(1)
  ROOT c = {out} convolution(x, w), {attrs}
}}"""


def ramp(shape: tuple[int, ...], modulus: int, offset: int, dtype: type = np.float32) -> np.ndarray:
    """arange(n) % modulus - offset, the inputs the goldens were recorded with."""
    return (np.arange(np.prod(shape)).reshape(shape) % modulus - offset).astype(dtype)


CASES = {
    "conv1d_stride_pad": (
        "f32[2,2,7]", "f32[3,2,3]", "f32[2,3,4]",
        "window={size=3 stride=2 pad=1_2}, dim_labels=bf0_oi0->bf0",
        ramp((2, 2, 7), 5, 2), ramp((3, 2, 3), 3, 1),
        [[[0, -1, -1, 2]] * 3, [[-2, 4, -1, -1]] * 3],
    ),
    "dilations_negative_padding": (
        "f32[1,4,3,2]", "f32[2,2,2,2]", "f32[1,7,1,2]",
        "window={size=2x2 pad=-1_2x1_-1 lhs_dilate=2x1 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f",
        ramp((1, 4, 3, 2), 7, 3), ramp((2, 2, 2, 2), 5, 2),
        [[[[-2, 0]], [[-3, 4]], [[-4, 1]], [[-4, 6]], [[-6, 9]], [[9, -6]], [[0, 0]]]],
    ),
    "feature_groups": (
        "f32[1,4,5]", "f32[4,2,2]", "f32[1,4,4]",
        "window={size=2}, dim_labels=bf0_oi0->bf0, feature_group_count=2",
        ramp((1, 4, 5), 7, 3), ramp((4, 2, 2), 5, 2),
        [[[11, 2, 0, -2], [-4, -5, 1, 0], [7, 7, 7, -7], [-1, 0, 1, -5]]],
    ),
    "batch_groups": (
        "f32[4,2,4]", "f32[4,2,2]", "f32[2,4,3]",
        "window={size=2}, dim_labels=bf0_oi0->bf0, batch_group_count=2",
        ramp((4, 2, 4), 7, 3), ramp((4, 2, 2), 5, 2),
        [[[10, 8, -1], [-3, -4, -5], [-4, 10, 10], [12, -1, 0]],
         [[8, -1, -3], [-4, -5, 1], [10, 10, 10], [-1, 0, 1]]],
    ),
    "output_labels": (
        "f32[2,3,3,1]", "f32[2,2,1,2]", "f32[2,2,2,2]",
        "window={size=2x2}, dim_labels=b01f_01io->f10b",
        ramp((2, 3, 3, 1), 7, 3), ramp((2, 2, 1, 2), 5, 2),
        [[[[5, 3], [9, -7]], [[4, 9], [-6, -8]]], [[[1, -3], [-5, 5]], [[-1, -5], [7, -4]]]],
    ),
    "int8_wraps": (
        "s8[1,2,5]", "s8[2,2,3]", "s8[1,2,3]", "window={size=3}, dim_labels=bf0_oi0->bf0",
        ramp((1, 2, 5), 11, 5, np.int8) * 20, ramp((2, 2, 3), 5, 2, np.int8) * 30,
        [[[32, 112, -64], [80, -8, -96]]],
    ),
    "int8_to_int32": (
        "s8[1,2,5]", "s8[2,2,3]", "s32[1,2,3]", "window={size=3}, dim_labels=bf0_oi0->bf0",
        ramp((1, 2, 5), 11, 5, np.int8) * 20, ramp((2, 2, 3), 5, 2, np.int8) * 30,
        [[[7200, 6000, 4800], [-1200, -1800, -2400]]],
    ),
    "window_reversal": (
        "f32[1,1,5]", "f32[1,1,3]", "f32[1,1,3]",
        "window={size=3 rhs_reversal=1}, dim_labels=bf0_oi0->bf0",
        ramp((1, 1, 5), 7, 3), np.array([[[1, 2, 3]]], np.float32),
        [[[-14, -8, -2]]],
    ),
    "no_spatial_dims": (
        "f32[2,3]", "f32[3,2]", "f32[2,2]", "dim_labels=bf_io->bf",
        ramp((2, 3), 5, 2), ramp((3, 2), 4, 1),
        ramp((2, 3), 5, 2) @ ramp((3, 2), 4, 1),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_convolution_golden(name: str) -> None:
    lhs, rhs, out, attrs, x, w, expected = CASES[name]
    got = run(conv(lhs, rhs, out, attrs), x, w)
    expected = np.asarray(expected)
    assert got.dtype == np.dtype(x.dtype if "s32" not in out else np.int32)
    np.testing.assert_array_equal(got, expected)


def test_bf16_computes_in_f32_and_rounds_once() -> None:
    bf16 = ml_dtypes.bfloat16
    x = (ramp((1, 1, 6), 7, 3) * 1.01).astype(bf16)
    w = (ramp((1, 1, 3), 5, 2) * 0.37).astype(bf16)
    got = run(conv("bf16[1,1,6]", "bf16[1,1,3]", "bf16[1,1,4]",
                   "window={size=3}, dim_labels=bf0_oi0->bf0"), x, w)  # fmt: skip
    assert got.dtype == bf16
    np.testing.assert_array_equal(got.astype(np.float64),
                                  [[[2.984375, 1.859375, 0.7421875, -0.37109375]]])


def test_empty_output_when_window_exceeds_input() -> None:
    got = run(conv("f32[1,1,2]", "f32[1,1,3]", "f32[1,1,0]",
                   "window={size=3}, dim_labels=bf0_oi0->bf0"),
              np.ones((1, 1, 2), np.float32), np.ones((1, 1, 3), np.float32))  # fmt: skip
    assert got.shape == (1, 1, 0)


def test_same_padding_3x3_matches_shifted_sums() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 6, 5, 4)).astype(np.float32)
    w = rng.standard_normal((3, 3, 4, 3)).astype(np.float32)
    got = run(conv("f32[2,6,5,4]", "f32[3,3,4,3]", "f32[2,6,5,3]",
                   "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"), x, w)  # fmt: skip
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    expected = sum(padded[:, dy : dy + 6, dx : dx + 5, :] @ w[dy, dx]
                   for dy in range(3) for dx in range(3))  # fmt: skip
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
