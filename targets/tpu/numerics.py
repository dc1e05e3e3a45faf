"""TPU matmul numerics: bf16 MXU passes with f32 accumulation.

DEFAULT precision rounds f32 operands to bf16 (round to nearest even) and multiplies on
the MXU, whose products of bf16 values are exact in f32; sums accumulate in f32 over
chunks of the MXU depth (128, 256 on v6e), then across chunks. HIGH splits each operand
into hi + lo bf16 parts and sums 3 passes (hi*hi + hi*lo + lo*hi); HIGHEST splits into
three parts and sums the 6 passes whose part orders add up to at most 2 (the bf16x6
scheme of `jax.lax.Precision`); `algorithm=dot_bf16_bf16_f32_x9` sums all 9. The result
is f32, then cast to the HLO result type. Convolutions are implicit GEMMs whose
contraction runs over (window tap, input feature), chunked the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ml_dtypes
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from hlotool.interpreter.kernels.convolution import grouped_operands, to_output_labels
from hlotool.ir.attributes import ConvDimensionNumbers, Window, WindowDimension

#: Bf16 passes per precision (the MXU cost multiplier).
PASSES = {"default": 1, "high": 3, "highest": 6}
#: Bf16 parts each operand is split into, per pass count.
PARTS = {1: 1, 3: 2, 6: 3, 9: 3}
#: Dot algorithms that pin the pass count whatever the precision (the TPU ones; TF32, F16
#: and F8 algorithms are not TPU algorithms and fall back to the precision).
_ALGORITHM_PASSES = {
    "dot_bf16_bf16_f32": 1,
    "dot_bf16_bf16_bf16": 1,
    "dot_bf16_bf16_f32_x3": 3,
    "dot_bf16_bf16_f32_x6": 6,
    "dot_bf16_bf16_f32_x9": 9,
    "dot_f32_f32_f32": 6,
}


def round_bf16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to the nearest bf16 (ties to even), still as f32; NaN stays NaN
    (ml_dtypes' cast, one C loop each way)."""
    return np.asarray(x, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def split_bf16(x: np.ndarray, parts: int) -> list[np.ndarray]:
    """x as a sum of `parts` bf16 values (hi first), each held in f32."""
    out = [round_bf16(x)]
    rest = np.asarray(x, dtype=np.float32)
    for _ in range(parts - 1):
        with np.errstate(invalid="ignore"):
            rest = np.where(np.isfinite(out[-1]), rest - out[-1], np.float32(0))
        out.append(round_bf16(rest))
    return out


def pass_pairs(passes: int) -> list[tuple[int, int]]:
    """(lhs part, rhs part) products summed for a pass count, smallest terms first."""
    if passes == 1:
        return [(0, 0)]
    if passes == 3:
        return [(1, 0), (0, 1), (0, 0)]
    if passes == 6:
        return [(2, 0), (1, 1), (0, 2), (1, 0), (0, 1), (0, 0)]
    if passes == 9:
        return [(2, 2), (2, 1), (1, 2), (2, 0), (1, 1), (0, 2), (1, 0), (0, 1), (0, 0)]
    raise ValueError(f"unsupported MXU pass count {passes}")


def passes_for(precision: Sequence[str] | None, algorithm: str | None) -> int:
    """Bf16 passes a dot or convolution takes on the MXU."""
    if algorithm and algorithm in _ALGORITHM_PASSES:
        return _ALGORITHM_PASSES[algorithm]
    levels = [PASSES.get(str(p).lower(), 1) for p in (precision or ())]
    return max(levels, default=1)


def chunked_matmul(a: np.ndarray, b: np.ndarray, depth: int) -> np.ndarray:
    """[B,M,K] @ [B,K,N] in f32, accumulated over K in chunks of `depth` (the MXU)."""
    k = a.shape[-1]
    if k <= depth:
        return np.matmul(a, b)
    acc = np.matmul(a[:, :, :depth], b[:, :depth, :])
    for k0 in range(depth, k, depth):
        acc += np.matmul(a[:, :, k0:k0 + depth], b[:, k0:k0 + depth, :])
    return acc


def mxu_matmul(a: np.ndarray, b: np.ndarray, passes: int, depth: int) -> np.ndarray:
    """[B,M,K] @ [B,K,N] of f32 values as the MXU computes it with `passes` bf16 passes."""
    return sum_passes(split_bf16(a, PARTS[passes]), split_bf16(b, PARTS[passes]), passes,
                      depth)


def sum_passes(la: list[np.ndarray], lb: list[np.ndarray], passes: int,
               depth: int) -> np.ndarray:
    """The chunked products of the bf16 parts' pass pairs, summed smallest first."""
    out: np.ndarray | None = None
    for i, j in pass_pairs(passes):
        term = chunked_matmul(la[i], lb[j], depth)
        out = term if out is None else out + term
    assert out is not None
    return out


def dot_general_mxu(a: np.ndarray, b: np.ndarray, dims: tuple[Sequence[int], ...],
                    passes: int, depth: int) -> np.ndarray:
    """XLA dot_general (result dims batch, lhs free, rhs free) with MXU numerics, in f32."""
    lhs_batch, lhs_contract, rhs_batch, rhs_contract = dims
    lhs_free = [d for d in range(a.ndim) if d not in lhs_batch and d not in lhs_contract]
    rhs_free = [d for d in range(b.ndim) if d not in rhs_batch and d not in rhs_contract]
    batch = [a.shape[d] for d in lhs_batch]
    m = [a.shape[d] for d in lhs_free]
    n = [b.shape[d] for d in rhs_free]
    k = math.prod(a.shape[d] for d in lhs_contract)
    nb, nm, nn = math.prod(batch), math.prod(m), math.prod(n)
    lhs = np.transpose(a.astype(np.float32), [*lhs_batch, *lhs_free, *lhs_contract])
    rhs = np.transpose(b.astype(np.float32), [*rhs_batch, *rhs_contract, *rhs_free])
    out = mxu_matmul(lhs.reshape(nb, nm, k), rhs.reshape(nb, k, nn), passes, depth)
    return out.reshape((*batch, *m, *n))


def convolution_mxu(lhs: np.ndarray, rhs: np.ndarray, dn: ConvDimensionNumbers,
                    window: Window | None, feature_groups: int, batch_groups: int,
                    passes: int, depth: int) -> np.ndarray:
    """XLA convolution as the MXU runs it, in f32: an implicit GEMM per group with
    M = batch x output pixels, N = output features and K = (window tap, input feature),
    tap-major, accumulated in MXU-depth chunks like a dot; result in `dn`'s output order."""
    dims, out_sizes, xg, wg = grouped_operands(lhs, rhs, dn, window, feature_groups,
                                               batch_groups, np.float32)
    groups, nb = xg.shape[:2]
    og = wg.shape[1]
    pixels = nb * math.prod(out_sizes)
    if pixels == 0:
        result = np.zeros((groups, pixels, og), np.float32)
    else:
        parts = PARTS[passes]
        cols = [_tap_major_patches(p, dims, out_sizes).reshape(groups, pixels, -1)
                for p in split_bf16(xg, parts)]
        kernel = np.moveaxis(wg, 2, -1).reshape(groups, og, -1).transpose(0, 2, 1)
        result = sum_passes(cols, split_bf16(kernel, parts), passes, depth)
    return to_output_labels(result.reshape(groups, nb, *out_sizes, og), dn)


def _tap_major_patches(xg: np.ndarray, dims: Sequence[WindowDimension],
                       out_sizes: Sequence[int]) -> np.ndarray:
    """[g, n, c, spatial...] padded input -> a view [g, n, out..., taps..., c]."""
    k = len(dims)
    channels_last = np.moveaxis(xg, 2, -1)
    if k == 0:
        return channels_last
    effective = [(wd.size - 1) * wd.window_dilation + 1 for wd in dims]
    view = sliding_window_view(channels_last, effective, axis=tuple(range(2, 2 + k)))
    picks: list[slice] = [slice(None)] * 2
    picks += [slice(0, (o - 1) * wd.stride + 1, wd.stride) for o, wd in zip(out_sizes, dims)]
    picks += [slice(None)] + [slice(None, None, wd.window_dilation) for wd in dims]
    # [g, n, out..., c, taps...] -> [g, n, out..., taps..., c]
    return np.moveaxis(view[tuple(picks)], 2 + k, -1)
