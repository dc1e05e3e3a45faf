"""hlotool's f32 dots on the CPU: its own gemm, OpenBLAS split the same way, and XLA:CPU.

Run: `python bench/gemm.py [--rounds 25] [--shapes 1024x1024x1024,256x1024x1024]`.

For each dot shape (m x n x k; `t` after k: the lhs is read transposed, as in a weight
gradient x^T dy; `r`: the rhs is, as in x @ w.T, PyTorch's Linear and jax's input
gradient dy @ w^T), in interleaved rounds on the same arrays (other jobs share the
machine):

* `own`: the dot kernel hlotool compiles for it, hlotool's own gemm split across its
  threads where `blas.own_gemm` picks it (f32 on x86 with AVX-512; `own?` says);
* `OpenBLAS`: the same dot as single-threaded OpenBLAS calls split across the same
  threads (what dots ran before, and still run elsewhere);
* `XLA`: jax's jitted dot on arrays placed on the device once (its YNNPACK fusion).

Printed: median milliseconds and GFLOP/s, and the median of the per-round time ratios
(below 1: hlotool's dot is faster). Outputs are checked against float64 products.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

import numpy as np

#: The bench cases' dots (1024^3, the MLP's layers, attention's two batched dots) and
#: shapes around them: tall, narrow, transposed.
SHAPES = ("1024x1024x1024,256x1024x512,256x1024x1024,256x10x1024,8x512x512x64,8x512x64x512,"
          "4096x320x512,2048x100x1024,1024x520x1024,1024x1024x256t,256x1024x1024r,8192x16x1024")


def _dot_text(shape: str) -> tuple[str, tuple[int, ...], tuple[int, ...], int]:
    """HLO of one dot (b x m x n x k batched, m x n x k plain), its operand dims and K."""
    trans, trans_rhs = shape.endswith("t"), shape.endswith("r")
    dims = [int(d) for d in shape.rstrip("tr").split("x")]
    batch, (m, n, k) = (dims[0], dims[1:]) if len(dims) == 4 else (0, dims)
    if batch:
        a, b = (batch, m, k), (batch, k, n)
        numbers = ("lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                   "rhs_contracting_dims={1}")
    elif trans:
        a, b, numbers = (k, m), (k, n), "lhs_contracting_dims={0}, rhs_contracting_dims={0}"
    elif trans_rhs:
        a, b, numbers = (m, k), (n, k), "lhs_contracting_dims={1}, rhs_contracting_dims={1}"
    else:
        a, b, numbers = (m, k), (k, n), "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
    out = (batch, m, n) if batch else (m, n)
    f = lambda d: ",".join(map(str, d))  # noqa: E731
    text = (f"HloModule dot\nENTRY e {{\n  a = f32[{f(a)}] parameter(0)\n"
            f"  b = f32[{f(b)}] parameter(1)\n  ROOT d = f32[{f(out)}] dot(a, b), {numbers}\n}}")
    return text, a, b, k


def _timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--shapes", default=SHAPES, help="comma-separated m x n x k[t] shapes")
    opts = parser.parse_args()
    import jax

    from hlotool.frontend import parse_hlo
    from hlotool.interpreter.core import Evaluator
    from hlotool.targets.cpu.kernels import blas
    from hlotool.targets.cpu.kernels.dot import DotThunk

    if not blas.available():
        raise SystemExit("bench/gemm.py: needs numpy's OpenBLAS")
    rng = np.random.default_rng(0)
    print("| dot | own? | own ms | OpenBLAS ms | XLA ms | own GFLOP/s | own/OpenBLAS | own/XLA |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for shape in opts.shapes.split(","):
        text, a_dims, b_dims, k = _dot_text(shape)
        module = parse_hlo(text)
        x = rng.standard_normal(a_dims).astype(np.float32)
        y = rng.standard_normal(b_dims).astype(np.float32)
        own = DotThunk(module.entry.root)
        split = DotThunk(module.entry.root)
        split.form = dataclasses.replace(own.form, own=False)
        for thunk in (own, split):  # x86's split path, as compiled modules run it
            thunk._fn = blas.compile_once("dot", lambda m, name, f=thunk.form: blas.emit_blas_dot(
                m, name, f, x86=True))
        out = np.empty(module.entry.root.shape.dimensions, np.float32)
        wide = Evaluator(parse_hlo(text.replace("f32[", "f64["))).run(
            [x.astype(np.float64), y.astype(np.float64)])
        scale = Evaluator(parse_hlo(text.replace("f32[", "f64["))).run(
            [np.abs(x).astype(np.float64), np.abs(y).astype(np.float64)])
        for thunk in (own, split):
            err = np.abs(thunk([x, y], out) - wide)
            if not np.all(err <= 2 * k * np.finfo(np.float32).eps * scale + 1e-30):
                raise SystemExit(f"bench/gemm.py: {shape}: outside the K-term bound")
        jx, jy = jax.device_put(x), jax.device_put(y)
        xla = jax.jit(lambda p, q, t=text: jax.lax.dot_general(
            p, q, _numbers(t))).lower(jx, jy).compile()
        xla(jx, jy).block_until_ready()
        times: dict[str, list[float]] = {"own": [], "split": [], "xla": []}
        for _ in range(opts.rounds):
            times["own"].append(_timed(lambda: own([x, y], out)))
            times["split"].append(_timed(lambda: split([x, y], out)))
            times["xla"].append(_timed(lambda: xla(jx, jy).block_until_ready()))
        med = {name: statistics.median(ts) for name, ts in times.items()}
        ratio = lambda other: statistics.median(  # noqa: E731
            o / t for o, t in zip(times["own"], times[other], strict=True))
        flops = 2 * np.prod(out.shape) * k
        print(f"| {shape} | {'yes' if own.form.own else 'no'} | {med['own'] * 1e3:.3f} | "
              f"{med['split'] * 1e3:.3f} | {med['xla'] * 1e3:.3f} | "
              f"{flops / med['own'] / 1e9:.0f} | {ratio('split'):.2f} | {ratio('xla'):.2f} |",
              flush=True)


def _numbers(text: str) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]:
    """jax.lax.dot_general's dimension numbers of the dot in `text`."""
    import re

    def dims(name: str) -> tuple[int, ...]:
        found = re.search(name + r"=\{([\d,]*)\}", text)
        return tuple(int(d) for d in found.group(1).split(",")) if found else ()

    return ((dims("lhs_contracting_dims"), dims("rhs_contracting_dims")),
            (dims("lhs_batch_dims"), dims("rhs_batch_dims")))


if __name__ == "__main__":
    main()
