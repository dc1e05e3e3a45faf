"""The in-register transpose of a square block of vectors, as shuffles that x86 runs in
one cycle each.

A block of n vectors of n lanes is transposed in log2(n) rounds; round k pairs vector r
with vector r + 2^k and makes two vectors of each pair. Inside each 128-bit block the
rounds interleave the low (high) halves of the pair in units of 1, 2, 4 ... elements
(`unpcklps`, `unpcklpd`, `punpckl*`); once the 128-bit blocks are transposed, the
remaining rounds take the even (odd) 128-bit blocks of the first vector, then those of
the second (`vshuff32x4 0x88 / 0xdd`, `vperm2f128`). Each of those is a single-cycle
shuffle on Zen 4 and on Intel cores; the butterfly masks of a textbook transpose (swap
one bit of the row number with the same bit of the lane number) select
`vpermt2ps`/`vpermt2pd`, two cycles each on Zen 4 (16x16 f32: 1.5x the time). The
rounds leave the columns in another order, which `transpose` undoes by following the
lanes' labels through the same network.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from llvmlite import ir

#: Bits of one x86 in-lane shuffle block.
_BLOCK_BITS = 128

Labels = list[tuple[int, int]]


def _element_bits(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return t.width
    return {ir.HalfType: 16, ir.FloatType: 32, ir.DoubleType: 64}[type(t)]


def _unpack(n: int, per_block: int, unit: int, high: bool) -> list[int]:
    """Shuffle mask (lanes of a, then n + lanes of b): per block of `per_block` lanes, the
    low (high) halves of a and b interleaved in units of `unit` lanes."""
    mask: list[int] = []
    for start in range(0, n, per_block):
        half = start + (per_block // 2 if high else 0)
        for k in range(half, half + per_block // 2, unit):
            mask += list(range(k, k + unit)) + list(range(n + k, n + k + unit))
    return mask


def _blocks(n: int, per_block: int, high: bool) -> list[int]:
    """Shuffle mask: the even (odd) blocks of `per_block` lanes of a, then those of b."""
    starts = range(per_block if high else 0, n, 2 * per_block)
    return [side + s + k for side in (0, n) for s in starts for k in range(per_block)]


def masks(n: int, bits: int) -> list[tuple[list[int], list[int]]]:
    """The (low, high) masks of each round for n lanes of `bits`."""
    per_block = max(1, min(n, _BLOCK_BITS // bits))
    rounds = []
    unit = 1
    while unit < per_block:
        rounds.append((_unpack(n, per_block, unit, False), _unpack(n, per_block, unit, True)))
        unit *= 2
    width = per_block
    while width < n:
        rounds.append((_blocks(n, per_block, False), _blocks(n, per_block, True)))
        width *= 2
    return rounds


T = TypeVar("T")


def _rounds(rows: list[T], bits: int, shuffle: Callable[[T, T, list[int]], T]) -> list[T]:
    """Run the rounds on `rows`: in round k, vectors r and r + 2^k (r without bit k) become
    shuffle(a, b, low) and shuffle(a, b, high)."""
    n = len(rows)
    rows = list(rows)
    stride = 1
    for low, high in masks(n, bits):
        new = list(rows)
        for r in range(n):
            if not r & stride:
                a, c = rows[r], rows[r | stride]
                new[r], new[r | stride] = shuffle(a, c, low), shuffle(a, c, high)
        rows = new
        stride *= 2
    return rows


def network(n: int, bits: int) -> list[Labels]:
    """Where the rounds put the elements: the (row, column) of each lane of each result."""
    start: list[Labels] = [[(r, c) for c in range(n)] for r in range(n)]
    return _rounds(start, bits, lambda a, c, mask: [(a + c)[i] for i in mask])


def transpose(b: ir.IRBuilder, rows: list[ir.Value]) -> list[ir.Value]:
    """The columns of a square block of vectors (lane r of result c = lane c of row r);
    n a power of two."""
    n = len(rows)
    if n & (n - 1):
        raise ValueError(f"transpose of {n} vectors: n must be a power of two")
    bits = _element_bits(rows[0].type.element)
    out = _rounds(rows, bits, lambda a, c, mask: b.shuffle_vector(a, c, _mask(mask)))
    column = [labels[0][1] for labels in network(n, bits)]
    return [out[column.index(c)] for c in range(n)]


def _mask(lanes: list[int]) -> ir.Constant:
    return ir.Constant(ir.VectorType(ir.IntType(32), len(lanes)), lanes)
