"""numpy's bundled OpenBLAS (numpy.libs/libscipy_openblas64_*.so): the library handle, and
how many threads its calls use.

OpenBLAS wakes its threads for every call and spins after it; on a busy machine (the
shared 2-core one, load 15) a 256x1024x1024 f32 matmul split into eight 128-deep calls
took a median 0.51 s on two threads and 0.06 s on one. Callers that make many BLAS calls
of their own (the CPU target's kernels, the TPU simulator's MXU chunks) run it on one.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Iterator
from pathlib import Path


@functools.cache
def numpy_openblas() -> ctypes.CDLL | None:
    """numpy's bundled OpenBLAS (loaded already by numpy: the same handle and threads),
    or None when numpy uses another BLAS."""
    import numpy as np

    site = Path(np.__file__).resolve().parent.parent
    for path in sorted((site / "numpy.libs").glob("libscipy_openblas64_*.so*")):
        try:
            return ctypes.CDLL(str(path))
        except OSError:
            continue
    return None


def set_threads(count: int) -> None:
    """Run OpenBLAS calls on `count` threads from now on (in the whole process)."""
    lib = numpy_openblas()
    setter = getattr(lib, "scipy_openblas_set_num_threads64_", None) if lib else None
    if setter is not None:
        setter(count)


def threads() -> int | None:
    """How many threads OpenBLAS calls use now (None when unknown)."""
    lib = numpy_openblas()
    getter = getattr(lib, "scipy_openblas_get_num_threads64_", None) if lib else None
    return int(getter()) if getter is not None else None


@contextlib.contextmanager
def blas_threads(count: int) -> Iterator[None]:
    """OpenBLAS on `count` threads inside the block, as before after it."""
    before = threads()
    set_threads(count)
    try:
        yield
    finally:
        if before is not None:
            set_threads(before)
