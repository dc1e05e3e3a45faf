"""Scratch memory shared by the library thunks of one executable.

A convolution's padded input, im2col matrix and matmul result are large (the 3x3
8x56x56x64 convolution's im2col matrix is 58 MiB); allocating them per call costs a page
fault per 4 KiB page on every run. The thunks of an
executable run one at a time, so they carve their temporaries out of one buffer that
grows to the largest need and is then reused.
"""

from __future__ import annotations

import math

import numpy as np

from hlotool.passes.buffer_assignment import ALIGNMENT, align


class Workspace:
    """One growable, 64-byte aligned byte buffer handed out as typed arrays."""

    def __init__(self) -> None:
        self._raw = np.empty(0, np.uint8)

    @property
    def nbytes(self) -> int:
        return self._raw.size

    def arrays(self, *specs: tuple[tuple[int, ...], np.dtype]) -> list[np.ndarray]:
        """Disjoint arrays of the given (shape, dtype), valid until the next call."""
        sizes = [align(math.prod(shape) * np.dtype(dtype).itemsize) for shape, dtype in specs]
        need = sum(sizes) + ALIGNMENT
        if self._raw.size < need:
            self._raw = np.empty(need, np.uint8)
        offset = (-self._raw.ctypes.data) % ALIGNMENT
        out = []
        for (shape, dtype), size in zip(specs, sizes, strict=True):
            n = math.prod(shape) * np.dtype(dtype).itemsize
            out.append(self._raw[offset:offset + n].view(dtype).reshape(shape))
            offset += size
        return out


def aligned_copy(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A C-contiguous copy of `value` as `dtype` starting at a 64-byte boundary (its
    pages touched by the copy)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(value.shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(n + ALIGNMENT, np.uint8)
    offset = (-raw.ctypes.data) % ALIGNMENT
    out = raw[offset:offset + n].view(dtype).reshape(value.shape)
    np.copyto(out, value, casting="unsafe")
    return out
