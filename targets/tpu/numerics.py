"""TPU matmul numerics: bf16 MXU passes with f32 accumulation.

DEFAULT precision rounds f32 operands to bf16 (round to nearest even) and multiplies on
the MXU, whose products of bf16 values are exact in f32; sums accumulate in f32 over
chunks of the MXU depth (128, 256 on v6e), then across chunks. HIGH splits each operand
into hi + lo bf16 parts and sums 3 passes (hi*hi + hi*lo + lo*hi); HIGHEST splits into
three parts and sums the 6 passes whose part orders add up to at most 2 (the bf16x6
scheme of `jax.lax.Precision`). The result is f32, then cast to the HLO result type.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: Bf16 passes per precision (the MXU cost multiplier).
PASSES = {"default": 1, "high": 3, "highest": 6}
#: Single-pass dot algorithms that pin the pass count regardless of precision.
_ALGORITHM_PASSES = {
    "dot_bf16_bf16_f32": 1,
    "dot_bf16_bf16_bf16": 1,
    "dot_bf16_bf16_f32_x3": 3,
    "dot_bf16_bf16_f32_x6": 6,
    "dot_f32_f32_f32": 6,
}


def round_bf16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to the nearest bf16 (ties to even), still as f32; NaN stays NaN."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1)))) & np.uint32(0xFFFF0000)
    out = rounded.view(np.float32)
    return np.where(np.isnan(x), x, out)


def split_bf16(x: np.ndarray, parts: int) -> list[np.ndarray]:
    """x as a sum of `parts` bf16 values (hi first), each held in f32."""
    out = []
    rest = np.asarray(x, dtype=np.float32)
    for _ in range(parts):
        hi = round_bf16(rest)
        out.append(hi)
        with np.errstate(invalid="ignore"):
            rest = np.where(np.isfinite(hi), rest - hi, np.float32(0))
    return out


def pass_pairs(passes: int) -> list[tuple[int, int]]:
    """(lhs part, rhs part) products summed for a pass count, smallest terms first."""
    if passes == 1:
        return [(0, 0)]
    if passes == 3:
        return [(1, 0), (0, 1), (0, 0)]
    if passes == 6:
        return [(2, 0), (1, 1), (0, 2), (1, 0), (0, 1), (0, 0)]
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
    parts = {1: 1, 3: 2, 6: 3}[passes]
    la, lb = split_bf16(a, parts), split_bf16(b, parts)
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
