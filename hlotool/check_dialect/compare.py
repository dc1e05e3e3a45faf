"""The comparisons behind the check ops, with StableHLO's semantics
(stablehlo/tests/CheckOps.cpp and stablehlo/reference/Element.cpp).

* expect_eq: every element equal; integers and booleans exactly, floating-point values
  by value (so -0.0 == 0.0) with NaN equal to NaN, complex values part by part.
* expect_almost_eq: floating-point (or complex, part by part) elements are equal, both
  NaN, or finite with the same sign and |got - want| <= tolerance (absolute; default
  1e-4). As in the reference, a value and a nonzero value of the other sign never match.
* expect_close: min_ulp <= ULP distance <= max_ulp per element, the distance counting
  subnormals as one step between zero and the smallest normal; non-finite values match
  only when bitwise equal or both NaN. Complex: the larger distance of the two parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hlotool.check_dialect.ops import CheckSpec

_MAX_U64 = np.iinfo(np.uint64).max


@dataclass(frozen=True)
class Outcome:
    """A comparison's verdict and, on failure, where and by how much it failed."""

    ok: bool
    message: str = ""
    index: tuple[int, ...] = ()
    got: Any = None
    want: Any = None
    max_abs: float | None = None
    mismatched: int = 0


def compare(spec: CheckSpec, got: np.ndarray, want: np.ndarray) -> Outcome:
    """Compare one observation of a check (`want` is the expected value)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return Outcome(False, f"type {got.dtype}{list(got.shape)} vs expected "
                              f"{want.dtype}{list(want.shape)}")
    if got.size == 0:
        return Outcome(True)
    if spec.kind == "expect_close":
        ulps = ulp_distance(got, want)
        bad = (ulps < spec.min_ulp) | (ulps > spec.max_ulp)
        what = f"ULP distance outside [{spec.min_ulp}, {spec.max_ulp}]"
        return _outcome(bad, got, want, what, extra=ulps)
    if spec.kind.startswith("expect_almost_eq"):
        bad = ~_parts(got, want, lambda g, w: _almost_equal(g, w, spec.tolerance))
        return _outcome(bad, got, want, f"differ by more than {spec.tolerance:g}")
    return _outcome(~equal(got, want), got, want, "differ")


def equal(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise equality with NaN == NaN for floating-point values."""
    if not _is_inexact(want.dtype):
        return np.asarray(got == want)
    return _parts(got, want, lambda g, w: (g == w) | (np.isnan(g) & np.isnan(w)))


def _almost_equal(g: np.ndarray, w: np.ndarray, tol: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        finite = np.isfinite(g) & np.isfinite(w)
        signs = np.signbit(g) == np.signbit(w)
        close = np.abs(g - w) <= tol
    return same | (finite & signs & close)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element ULP distance (uint64; the maximum for non-matching non-finite)."""
    if np.dtype(want.dtype).kind == "c":
        return np.maximum(ulp_distance(got.real, want.real), ulp_distance(got.imag, want.imag))
    z = _bits(np.asarray(_finfo(want.dtype).smallest_normal, dtype=want.dtype)) - np.uint64(1)
    a, b = _steps(_bits(np.abs(got)), z), _steps(_bits(np.abs(want)), z)
    gf, wf = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(over="ignore"):
        opposite = np.where(a > _MAX_U64 - b, _MAX_U64, a + b)
    dist = np.where(np.signbit(gf) != np.signbit(wf), opposite, np.where(a > b, a - b, b - a))
    same = (_bits(got) == _bits(want)) | (np.isnan(gf) & np.isnan(wf))
    special = np.where(same, np.uint64(0), _MAX_U64)
    return np.where(np.isfinite(gf) & np.isfinite(wf), dist, special).astype(np.uint64)


def _steps(magnitude: np.ndarray, z: np.uint64) -> np.ndarray:
    """ULP steps from zero to a magnitude, subnormals rounded to zero or the first normal."""
    sub = np.where(2 * magnitude < z, np.uint64(0), np.uint64(1))
    return np.where(z < magnitude, magnitude - z, sub).astype(np.uint64)


def _bits(a: np.ndarray) -> np.ndarray:
    """The raw bits of a float array, widened to uint64."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.uint64)


def _finfo(dtype: np.dtype) -> Any:
    import ml_dtypes

    return ml_dtypes.finfo(dtype)


def _is_inexact(dtype: np.dtype) -> bool:
    """Floating-point or complex, including the ml_dtypes types (bf16, f8...)."""
    return np.dtype(dtype).kind not in "biu"


def _parts(got: np.ndarray, want: np.ndarray, fn: Any) -> np.ndarray:
    """Apply a float predicate to real arrays, or to both parts of complex ones."""
    if np.dtype(want.dtype).kind == "c":
        return fn(got.real, want.real) & fn(got.imag, want.imag)
    return fn(got.astype(np.float64), want.astype(np.float64))


def _outcome(bad: np.ndarray, got: np.ndarray, want: np.ndarray, what: str,
             extra: np.ndarray | None = None) -> Outcome:
    """The verdict: on failure the first differing index and the largest error."""
    bad = np.asarray(bad)
    n = int(bad.sum())
    if n == 0:
        return Outcome(True)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    message = f"{n} of {got.size} elements {what}"
    if extra is not None:
        message += f" (ULP distance {int(extra[index])} at the first)"
    return Outcome(False, message, index, got[index], want[index], _max_abs(got, want, bad), n)


def _max_abs(got: np.ndarray, want: np.ndarray, bad: np.ndarray) -> float | None:
    """The largest |got - want| over the failing elements (None for booleans)."""
    if want.dtype == np.bool_:
        return None
    kind = np.complex128 if np.dtype(want.dtype).kind == "c" else np.float64
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(kind) - want.astype(kind))[bad]
    return float(np.nan_to_num(err, nan=np.inf).max())
