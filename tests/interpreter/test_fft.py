"""fft kernel: hand-derived transforms of impulses and ramps, types, axes and lengths."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator


def run_fft(fft_type: str, lengths: str, in_type: str, out_type: str, x: np.ndarray) -> np.ndarray:
    text = f"""HloModule m
ENTRY e {{
  x = {in_type} parameter(0)
  ROOT f = {out_type} fft(x), fft_type={fft_type}, fft_length={{{lengths}}}
}}"""
    return np.asarray(Evaluator(parse_hlo(text)).run([x]))


def test_fft_of_impulses() -> None:
    x = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], np.complex64)
    out = run_fft("FFT", "4", "c64[2,4]", "c64[2,4]", x)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, [[1, 1, 1, 1], [1, -1j, -1, 1j]], atol=1e-7)


def test_ifft_is_normalised_inverse() -> None:
    x = np.array([1, -1j, -1, 1j], np.complex128)
    out = run_fft("IFFT", "4", "c128[4]", "c128[4]", x)
    assert out.dtype == np.complex128
    np.testing.assert_allclose(out, [0, 1, 0, 0], atol=1e-15)


def test_rfft_keeps_half_spectrum() -> None:
    out = run_fft("RFFT", "4", "f32[4]", "c64[3]", np.array([1, 2, 3, 4], np.float32))
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out, [10, -2 + 2j, -2], atol=1e-6)


def test_irfft_odd_length() -> None:
    spectrum = np.array([15, -2.5 + 3.440954801177933j, -2.5 + 0.8122992405822659j], np.complex64)
    out = run_fft("IRFFT", "5", "c64[3]", "f32[5]", spectrum)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [1, 2, 3, 4, 5], atol=1e-5)


@pytest.mark.parametrize(("fft_type", "in_type", "out_type"), [
    ("FFT", "c64[2,3,4]", "c64[2,3,4]"),
    ("IFFT", "c64[2,3,4]", "c64[2,3,4]"),
    ("RFFT", "f32[2,3,4]", "c64[2,3,3]"),
])
def test_transforms_the_trailing_fft_length_dims(fft_type: str, in_type: str,
                                                 out_type: str) -> None:
    """A 2-D transform over the last two dims of a batch equals per-axis 1-D transforms."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4))
    if fft_type != "RFFT":
        x = x + 1j * rng.standard_normal((2, 3, 4))
    x = x.astype(np.complex64 if fft_type != "RFFT" else np.float32)
    out = run_fft(fft_type, "3,4", in_type, out_type, x)
    one_d = {"FFT": np.fft.fft, "IFFT": np.fft.ifft, "RFFT": np.fft.rfft}[fft_type]
    inner = {"FFT": np.fft.fft, "IFFT": np.fft.ifft, "RFFT": np.fft.fft}[fft_type]
    expected = inner(one_d(x.astype(np.complex128 if fft_type != "RFFT" else np.float64), axis=2),
                     axis=1)  # fmt: skip
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
