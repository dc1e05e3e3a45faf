"""numpy's OpenBLAS: found, and its thread count set inside a block and restored after."""

from __future__ import annotations

import numpy as np

from hlotool.targets.openblas import blas_threads, numpy_openblas, set_threads, threads


def test_blas_threads_sets_and_restores_the_count() -> None:
    assert numpy_openblas() is not None
    before = threads()
    assert before is not None and before >= 1
    try:
        set_threads(2)
        with blas_threads(1):
            assert threads() == 1
            a = np.arange(12.0).reshape(3, 4)
            assert np.array_equal(a @ a.T, np.einsum("ik,jk->ij", a, a))
        assert threads() == 2
    finally:
        set_threads(before)
