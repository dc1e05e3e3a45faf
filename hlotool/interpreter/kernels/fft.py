"""fft: FFT / IFFT / RFFT / IRFFT over the last len(fft_length) dims (numpy.fft).

Computed in complex128 / float64 and cast to the result type (c64 / f32 for 32-bit
inputs), so results match XLA:CPU (DUCC) within rounding.
"""

from __future__ import annotations

import numpy as np

from hlotool.interpreter.core import Evaluator, Value, impl
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode


def fft(x: np.ndarray, fft_type: str, lengths: tuple[int, ...]) -> np.ndarray:
    """XLA's fft in double precision (the caller casts to the result type)."""
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    if fft_type == "FFT":
        return np.fft.fftn(x.astype(np.complex128), s=lengths, axes=axes)
    if fft_type == "IFFT":
        return np.fft.ifftn(x.astype(np.complex128), s=lengths, axes=axes)
    if fft_type == "RFFT":
        return np.fft.rfftn(x.astype(np.float64), s=lengths, axes=axes)
    return np.fft.irfftn(x.astype(np.complex128), s=lengths, axes=axes)


@impl(Opcode.FFT)
def _fft(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    lengths = tuple(ins.attrs["fft_length"])
    out = fft(np.asarray(ops[0]), ins.attrs["fft_type"], lengths)
    return out.astype(ins.shape.element_type.numpy_dtype)
