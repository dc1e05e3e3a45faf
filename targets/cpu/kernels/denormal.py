"""Denormal checks for the numpy library thunks (dot and convolution without BLAS).

XLA:CPU runs with denormals-are-zero, so a library call must see its denormal f32/f64
inputs as zeros: `flush_inputs` hands back the array itself when it holds none (the usual
case) and a flushed copy otherwise. The check is the vectorized scan the native dot
kernels call (`blas.py`'s helpers, compiled once per process) instead of numpy's
temporaries: no allocation on the hot path.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from hlotool.interpreter.kernels.elementwise import flush_denormals
from hlotool.ir.types import PrimitiveType

_SCAN = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p, ctypes.c_int64)


@functools.cache
def _scan(itemsize: int) -> ctypes._CFuncPtr:
    from hlotool.targets.cpu.kernels import blas

    dtype = PrimitiveType.F32 if itemsize == 4 else PrimitiveType.F64
    return _SCAN(blas.helper_address(dtype))


def has_denormals(x: np.ndarray) -> bool:
    """Whether a C-contiguous f32/f64 array holds a denormal value."""
    return bool(_scan(x.dtype.itemsize)(x.ctypes.data, x.size))


def flush_inputs(x: np.ndarray) -> np.ndarray:
    """`x` as XLA:CPU's library calls read it: denormals replaced by signed zeros."""
    if x.dtype in (np.float32, np.float64) and x.flags.c_contiguous and x.size:
        return flush_denormals(x) if has_denormals(x) else x
    return flush_denormals(x)
