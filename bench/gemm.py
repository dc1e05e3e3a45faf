"""hlotool's own f32 gemm (targets/cpu/kernels/gemm.py) against OpenBLAS, one thread each.

Run: `python bench/gemm.py [--rounds 9]`. On the bench cases' gemm shapes (1024^3, the
MLP's layers) both run on the same arrays in interleaved rounds (other jobs share the
machine); printed: GFLOP/s at the best and at the median round, and the median of the
per-round ratios (OpenBLAS time / ours: above 1, ours is faster).
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time

import numpy as np

SHAPES = [(1024, 1024, 1024), (256, 1024, 512), (256, 1024, 1024), (256, 10, 1024)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    opts = parser.parse_args()
    from hlotool.targets.cpu.kernels import blas, gemm

    if not blas.available():
        raise SystemExit("bench/gemm.py: needs numpy's OpenBLAS")
    fn = ctypes.CFUNCTYPE(None, *[ctypes.c_int32] * 3, *[ctypes.c_int64] * 3, ctypes.c_float,
                          ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                          ctypes.c_float, ctypes.c_void_p, ctypes.c_int64)(
        gemm.load().address(gemm.SYMBOL))
    rng = np.random.default_rng(0)
    print("m n k: ours GFLOP/s best/median, OpenBLAS best/median, OpenBLAS/ours (median of rounds)")
    for m, n, k in SHAPES:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        c = np.empty((m, n), np.float32)
        ours, theirs = [], []
        for _ in range(opts.rounds):
            t = time.perf_counter()
            fn(101, 111, 111, m, n, k, 1.0, a.ctypes.data, k, b.ctypes.data, n, 0.0,
               c.ctypes.data, n)
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            np.matmul(a, b, out=c)
            theirs.append(time.perf_counter() - t)
        flops = 2.0 * m * n * k
        rate = lambda ts: f"{flops / min(ts) / 1e9:.0f}/{flops / statistics.median(ts) / 1e9:.0f}"  # noqa: E731
        ratio = statistics.median(t / o for o, t in zip(ours, theirs, strict=True))
        print(f"{m} {n} {k}: {rate(ours)}, {rate(theirs)}, {ratio:.2f}")


if __name__ == "__main__":
    main()
