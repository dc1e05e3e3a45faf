"""TPU matmul numerics: bf16 rounding, DEFAULT/HIGH/HIGHEST passes, dot and convolution
against a bf16-input, f32-accumulate numpy oracle (computed in float64)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import ml_dtypes
import numpy as np
import pytest
from jax import lax

from hlotool.targets.tpu.numerics import round_bf16, split_bf16
from tests.targets.tpu_support import dot_module, simulate_text

BF16 = ml_dtypes.bfloat16


def bf16_values(x: np.ndarray) -> np.ndarray:
    """The oracle's operand rounding: ml_dtypes' cast to bfloat16, back in float64."""
    return x.astype(np.float32).astype(BF16).astype(np.float64)


def test_round_bf16_matches_ml_dtypes_bit_for_bit() -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(10000).astype(np.float32) * 10.0 ** rng.integers(
        -30, 30, 10000), np.array([0.0, -0.0, np.inf, -np.inf, 3.4028235e38, 1e-40, 1.0 + 2**-8,
                                   1.0 + 3 * 2**-8], np.float32)]).astype(np.float32)
    want = x.astype(BF16).astype(np.float32)
    assert np.array_equal(round_bf16(x).view(np.uint32), want.view(np.uint32))
    assert np.isnan(round_bf16(np.array([np.nan], np.float32)))[0]


def test_split_bf16_parts_sum_back() -> None:
    x = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    hi, mid, lo = split_bf16(x, 3)
    for part in (hi, mid, lo):
        assert np.array_equal(part, part.astype(BF16).astype(np.float32))
    assert np.allclose(hi.astype(np.float64) + mid + lo, x, rtol=2**-22, atol=0)


def normwise(got: np.ndarray, want: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """max |got - want| / (|A| @ |B|), elementwise."""
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    return float(np.max(np.abs(got.astype(np.float64) - want) / scale))


@pytest.mark.parametrize("shape", [(64, 300, 96), (8, 129, 10), (130, 1000, 7)])
def test_default_dot_is_bf16_inputs_f32_accumulation(shape: tuple[int, int, int]) -> None:
    m, k, n = shape
    rng = np.random.default_rng(2)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    got, _ = simulate_text(dot_module(m, k, n), [a, b])
    oracle = bf16_values(a) @ bf16_values(b)
    # Products of bf16 values are exact; f32 sums over 128-deep chunks then across chunks.
    assert normwise(got, oracle, a, b) < 1e-5
    # ... and the rounding really happened: far from the f32/f64 product.
    assert normwise(got, a.astype(np.float64) @ b, a, b) > 1e-4


def test_high_and_highest_passes_approach_f32() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((32, 512)).astype(np.float32)
    b = rng.standard_normal((512, 48)).astype(np.float32)
    exact = a.astype(np.float64) @ b
    default, _ = simulate_text(dot_module(32, 512, 48), [a, b])
    high, rh = simulate_text(dot_module(32, 512, 48, precision="high"), [a, b])
    highest, rx = simulate_text(dot_module(32, 512, 48, precision="highest"), [a, b])
    e_default, e_high, e_highest = (normwise(x, exact, a, b) for x in (default, high, highest))
    assert e_default > 1e-4
    assert e_high < 2e-5 and e_high < e_default / 20
    assert e_highest < 2e-6
    # HIGH streams 3 bf16 passes, HIGHEST 6: the MXU busy time scales with them.
    _, rd = simulate_text(dot_module(32, 512, 48), [a, b])
    assert rh["busy_cycles"]["mxu"] == pytest.approx(3 * rd["busy_cycles"]["mxu"])
    assert rx["busy_cycles"]["mxu"] == pytest.approx(6 * rd["busy_cycles"]["mxu"])


def test_bf16_dot_rounds_the_result_back() -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 200)).astype(BF16)
    b = rng.standard_normal((200, 24)).astype(BF16)
    got, _ = simulate_text(dot_module(16, 200, 24, dtype="bf16", out="bf16"), [a, b])
    assert got.dtype == BF16
    oracle = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    # One bf16 rounding of the f32 sum (2^-8 relative) plus the f32 accumulation.
    assert np.all(np.abs(got.astype(np.float64) - oracle) <= 2**-8 * np.abs(oracle) + 1e-5 * scale)


def test_batched_dot_matches_the_oracle() -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 20, 140)).astype(np.float32)
    b = rng.standard_normal((3, 140, 30)).astype(np.float32)
    got, report = simulate_text(dot_module(20, 140, 30, batch=3), [a, b])
    oracle = np.matmul(bf16_values(a), bf16_values(b))
    scale = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    assert np.max(np.abs(got - oracle) / scale) < 1e-5
    assert report["numerics"]["mxu_instructions"] == ["%d"]


CONV = """HloModule conv

ENTRY e {
  x = f32[2,9,9,5]{3,2,1,0} parameter(0)
  w = f32[3,3,5,7]{3,2,1,0} parameter(1)
  ROOT c = f32[2,9,9,7]{3,2,1,0} convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
"""


def conv_oracle(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """SAME 3x3 NHWC convolution in float64 by summing the nine shifted taps."""
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((x.shape[0], x.shape[1], x.shape[2], w.shape[3]))
    for dh in range(3):
        for dw in range(3):
            patch = xp[:, dh:dh + x.shape[1], dw:dw + x.shape[2], :]
            out += np.einsum("nhwc,co->nhwo", patch, w[dh, dw])
    return out


def test_default_convolution_rounds_inputs_to_bf16() -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 9, 9, 5)).astype(np.float32)
    w = rng.standard_normal((3, 3, 5, 7)).astype(np.float32)
    got, report = simulate_text(CONV, [x, w])
    scale = conv_oracle(np.abs(x.astype(np.float64)), np.abs(w.astype(np.float64)))
    oracle = conv_oracle(bf16_values(x), bf16_values(w))
    assert np.max(np.abs(got - oracle) / scale) < 1e-5
    exact = conv_oracle(x.astype(np.float64), w.astype(np.float64))
    assert np.max(np.abs(got - exact) / scale) > 1e-4
    assert report["numerics"]["mxu_instructions"] == ["%c"]


def test_integer_dot_stays_exact() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(-100, 100, (8, 300)).astype(np.int32)
    b = rng.integers(-100, 100, (300, 8)).astype(np.int32)
    got, report = simulate_text(dot_module(8, 300, 8, dtype="s32", out="s32"), [a, b])
    assert np.array_equal(got, a.astype(np.int64) @ b)
    assert report["numerics"]["mxu_instructions"] == []


def _jax_conv(spec: dict[str, Any], precision: Any = None) -> Callable[..., Any]:
    """A jax convolution (XLA:CPU computes it in f32 whatever the precision)."""
    def conv(x: Any, w: Any) -> Any:
        return lax.conv_general_dilated(x, w, precision=precision, **spec)
    return conv


#: Strides, both dilations, asymmetric padding, feature and batch groups, K above the
#: MXU depth (so that the contraction is chunked) and a 1-D convolution.
CONVS = {
    "strided_dilated_nchw": ((2, 6, 11, 9), (4, 6, 3, 2), dict(
        window_strides=(2, 1), padding=((1, 2), (0, 1)), lhs_dilation=(1, 2),
        rhs_dilation=(2, 1), dimension_numbers=("NCHW", "OIHW", "NCHW"))),
    "feature_groups": ((2, 7, 7, 8), (3, 3, 4, 6), dict(
        window_strides=(1, 1), padding="SAME", feature_group_count=2,
        dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "batch_groups": ((4, 6, 6, 3), (2, 2, 3, 6), dict(
        window_strides=(1, 1), padding="VALID", batch_group_count=2,
        dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "deep_k_chunked": ((1, 6, 6, 40), (3, 3, 40, 5), dict(
        window_strides=(1, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "conv1d": ((3, 17, 4), (5, 4, 2), dict(
        window_strides=(2,), padding=((2, 1),), dimension_numbers=("NWC", "WIO", "NWC"))),
}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_convolution_matches_xla_on_bf16_rounded_inputs(name: str) -> None:
    """Against XLA:CPU's f32 convolution of the bf16-rounded operands (products exact,
    f32 sums): only the summation order differs."""
    xs, ws, spec = CONVS[name]
    rng = np.random.default_rng(8)
    x, w = (rng.standard_normal(s).astype(np.float32) for s in (xs, ws))
    fn = _jax_conv(spec)
    text = jax.jit(fn).lower(x, w).as_text(dialect="hlo")
    got, report = simulate_text(text, [x, w])
    rounded = [a.astype(BF16).astype(np.float32) for a in (x, w)]
    oracle = np.asarray(jax.jit(fn)(*rounded), np.float64)
    scale = np.asarray(jax.jit(fn)(np.abs(x), np.abs(w)), np.float64)
    assert got.shape == oracle.shape
    assert np.max(np.abs(got - oracle) / scale) < 1e-5
    exact = np.asarray(jax.jit(fn)(x, w), np.float64)
    assert np.max(np.abs(got - exact) / scale) > 1e-4
    assert report["numerics"]["mxu_instructions"]


def test_highest_convolution_is_f32_accurate() -> None:
    xs, ws, spec = CONVS["deep_k_chunked"]
    rng = np.random.default_rng(9)
    x, w = (rng.standard_normal(s).astype(np.float32) for s in (xs, ws))
    fn = _jax_conv(spec, lax.Precision.HIGHEST)
    text = jax.jit(fn).lower(x, w).as_text(dialect="hlo")
    assert "operand_precision={highest,highest}" in text
    got, _ = simulate_text(text, [x, w])
    exact = np.asarray(jax.jit(fn)(x.astype(np.float64), w.astype(np.float64)), np.float64)
    scale = np.asarray(jax.jit(fn)(np.abs(x), np.abs(w)), np.float64)
    assert np.max(np.abs(got - exact) / scale) < 2e-6


def test_x9_algorithm_sums_nine_passes() -> None:
    rng = np.random.default_rng(10)
    a = rng.standard_normal((16, 256)).astype(np.float32)
    b = rng.standard_normal((256, 16)).astype(np.float32)
    text = dot_module(16, 256, 16).replace("rhs_contracting_dims={0}",
                                           "rhs_contracting_dims={0}, algorithm=dot_bf16_bf16_f32_x9")
    got, r9 = simulate_text(text, [a, b])
    _, r1 = simulate_text(dot_module(16, 256, 16), [a, b])
    assert normwise(got, a.astype(np.float64) @ b, a, b) < 2e-6
    assert r9["busy_cycles"]["mxu"] == pytest.approx(9 * r1["busy_cycles"]["mxu"])
