"""hlotool's CPU target against XLA:CPU as users run them, side by side in one run.

Run: `python bench/cpu.py [--set headline|reductions|more|shapes|types|models|all]
[--cases gelu,softmax] [--rounds 5] [--runs 20] [--markdown]` (`--set reductions`:
reductions of other shapes than the headline's; `--set shapes`: the headline's kinds at
other shapes; `--set types`: in bf16 and int8; `--set models`: modules of a few hundred
instructions).

Each case is a jax function. Its HLO before XLA's passes (what a JAX dump holds) and its
inputs are written to a temporary directory, then:

* XLA:CPU runs the module jax compiled for it with its arguments placed on the device
  once (`jax.device_put`), timing `execute` only, as a jitted training loop runs (`XLA`);
  `XLA+copy` calls it on the numpy arrays instead, so each call also copies its inputs
  in (labelled: not the headline).
* hlotool runs as users run it: `hlotool run MODULE --inputs IN.npz --bench N
  --format json` in a subprocess (its `run_seconds_median`), on a disk cache the first
  call filled (compiling and autotuning, as a user's first run does).

A round times N XLA calls, then one `hlotool run --bench N`, then N `XLA+copy` calls; the
rounds interleave so that all see the same machine (other jobs share it). Each figure is
the median of the rounds' medians; `hlo/XLA` is the median of the rounds' ratios and
`spread` the range of those ratios over the rounds (the noise). The geomean of `hlo/XLA`
is printed under the table (below 1 = hlotool faster).

Other columns: `%floor` (the case's bytes read and written once at this machine's DRAM
copy bandwidth, or its FLOPs at numpy's sgemm rate, both measured at the start; over 100%
when the data stays in the 32 MiB L3), and compile milliseconds, medians of rounds that
interleave XLA's and hlotool's compiles in this process: `XLA compile` is
`lower(...).compile()` on a fresh function after `jax.clear_caches()`, its HLO passes
included; hlotool's compiles of the same pre-optimization HLO include the `cpu` pass
pipeline, as `hlotool run` does: `cold` without the disk cache and without autotuning
(after one warm-up compile that pays the process's imports and LLVM initialisation,
and after loading the runtime libraries, both in the title), `tune` the autotuner's own
time, and `cached` a compile that hits the disk caches (the module after the `cpu`
pipeline, `hlotool.pipeline_cache`, keyed by the HLO text as `hlotool run` keys it, and
its object code). `cpu cold/XLA` is the same ratio
in CPU time of the process (XLA's compile threads included) and `cached cpu` the cached
compile's CPU time: on a machine other jobs share, CPU time varies far less than wall
time. `run cached` is `hlotool run`'s own `passes_seconds + compile_seconds` in the rounds
above: cache hits in a new process, which also loads LLVM's code and the runtime
libraries.

hlotool's outputs (`--output`) are checked against XLA's once per case (rtol 2e-4, atol
1e-5 of the largest output magnitude: dots sum in another order; rtol 2e-2 for bf16/f16
results, two bf16 ulps: XLA:CPU's float normalization computes some bf16 intermediates in
f32, such as the reciprocal its simplifier makes of a division by a broadcast, where
hlotool rounds every bf16 op as the HLO says); a mismatch is printed
under the table and marks the case `FAIL`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

f32 = np.float32
Fn = Callable[..., Any]


@dataclass(slots=True)
class Case:
    """One benchmark: a jax function, its inputs and its FLOPs."""

    name: str
    fn: Fn
    args: list[np.ndarray]
    #: Floating-point operations of the dense math (dots, convolutions); 0 elsewhere.
    flops: float = 0.0
    #: Whether a DRAM floor means anything (False: the data stays in cache, e.g. a loop).
    floor: bool = True


@dataclass(slots=True)
class Row:
    """Measurements of one case (milliseconds; one entry per round for run times)."""

    name: str
    ours_rounds: list[float] = field(default_factory=list)
    xla_rounds: list[float] = field(default_factory=list)
    copy_rounds: list[float] = field(default_factory=list)
    floor: float | None = None
    xla_compile: float = 0.0
    cold: float = 0.0
    tune: float = 0.0
    cached: float = 0.0
    #: The same compiles in CPU milliseconds of this process (all its threads).
    xla_compile_cpu: float = 0.0
    cold_cpu: float = 0.0
    cached_cpu: float = 0.0
    #: `hlotool run`'s own `compile_seconds` (ms) per round: a cache hit in a new process.
    run_compile_rounds: list[float] = field(default_factory=list)
    error: str = ""

    @property
    def ours(self) -> float:
        return statistics.median(self.ours_rounds)

    @property
    def xla(self) -> float:
        return statistics.median(self.xla_rounds)

    @property
    def xla_copy(self) -> float:
        return statistics.median(self.copy_rounds)

    @property
    def ratios(self) -> list[float]:
        """hlotool/XLA (resident) per round."""
        return [o / x for o, x in zip(self.ours_rounds, self.xla_rounds, strict=True)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def run_compile(self) -> float:
        return statistics.median(self.run_compile_rounds) if self.run_compile_rounds else 0.0


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


# --- machine limits -------------------------------------------------------------------


def copy_bandwidth(nbytes: int = 256 << 20, repeat: int = 5) -> float:
    """DRAM copy bandwidth in bytes/s (read + written), one numpy copy thread per core."""
    import os

    threads = max(1, len(os.sched_getaffinity(0)))
    src = np.ones(nbytes // 4, f32)
    dst = np.empty_like(src)
    parts = np.array_split(np.arange(src.size), threads)
    bounds = [(int(p[0]), int(p[-1]) + 1) for p in parts]

    def copy(b: tuple[int, int]) -> None:
        np.copyto(dst[b[0]:b[1]], src[b[0]:b[1]])

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(copy, bounds))  # first touch
        ms = min(median_ms(lambda: list(pool.map(copy, bounds)), 3) for _ in range(repeat))
    return 2 * nbytes / (ms / 1000)


def sgemm_flops(n: int = 2048, repeat: int = 5) -> float:
    """numpy (BLAS) sgemm rate in FLOP/s on an n^3 product."""
    a = np.random.default_rng(0).standard_normal((n, n), dtype=f32)
    b = a.T.copy()
    a @ b
    ms = min(median_ms(lambda: a @ b, 1) for _ in range(repeat))
    return 2 * n**3 / (ms / 1000)


# --- cases ----------------------------------------------------------------------------


def cases() -> list[Case]:
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    n = lambda *s: rng.standard_normal(s).astype(f32)  # noqa: E731

    def gelu(x: Any) -> Any:
        return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    def softmax(x: Any) -> Any:
        e = jnp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def mlp(x: Any, w1: Any, w2: Any, w3: Any) -> Any:
        h = jnp.maximum(x @ w1, 0)
        return jnp.maximum(h @ w2, 0) @ w3

    def layernorm(x: Any) -> Any:
        m = x.mean(axis=1, keepdims=True)
        v = ((x - m) ** 2).mean(axis=1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5)

    def conv(x: Any, w: Any) -> Any:
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def attention(q: Any, k: Any, v: Any) -> Any:
        qh, kh, vh = (t.reshape(512, 8, 64).transpose(1, 0, 2) for t in (q, k, v))
        s = qh @ kh.transpose(0, 2, 1) / 8.0
        p = jnp.exp(s - s.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
        return (p @ vh).transpose(1, 0, 2).reshape(512, 512)

    def fori(x: Any) -> Any:
        return jax.lax.fori_loop(0, 100, lambda i, y: jnp.tanh(y * 1.01 + 0.1), x)

    return [
        Case("reduce-sum 2048x4096 f32", lambda x: x.sum(), [n(2048, 4096)]),
        Case("MLP 512-1024-1024-10 b256", mlp,
             [n(256, 512), n(512, 1024) * f32(0.04), n(1024, 1024) * f32(0.03),
              n(1024, 10) * f32(0.03)],
             flops=2.0 * 256 * (512 * 1024 + 1024 * 1024 + 1024 * 10)),
        Case("matmul 1024^3 f32", lambda a, b: a @ b, [n(1024, 1024), n(1024, 1024)],
             flops=2.0 * 1024**3),
        Case("attention s512 d512 h8", attention, [n(512, 512), n(512, 512), n(512, 512)],
             flops=2 * 2.0 * 8 * 512 * 512 * 64),
        Case("layernorm 2048x1024", layernorm, [n(2048, 1024)]),
        Case("transpose 2048^2", lambda x: x.T + 0, [n(2048, 2048)]),
        Case("fori_loop 100 x 64x64", fori, [n(64, 64)], floor=False),
        Case("softmax 1024x4096", softmax, [n(1024, 4096)]),
        Case("conv3x3 8x56x56x64->64", conv, [n(8, 56, 56, 64), n(3, 3, 64, 64) * f32(0.05)],
             flops=2.0 * 8 * 56 * 56 * 64 * 9 * 64),
        Case("gelu(tanh) 4M f32", gelu, [n(4 << 20)]),
    ]


def reduction_cases() -> list[Case]:
    """Reductions of other shapes and kinds than the headline's reduce-sum (`--set
    reductions`): row and column sums, a mean, padded windows, an order-free max, a sum
    of products, and an input twice the L3."""
    rng = np.random.default_rng(1)
    n = lambda *s: rng.standard_normal(s).astype(f32)  # noqa: E731
    return [
        Case("row sum 2048x4096", lambda x: x.sum(axis=1), [n(2048, 4096)]),
        Case("column sum 2048x4096", lambda x: x.sum(axis=0), [n(2048, 4096)]),
        Case("mean 64x128x1024 over the last", lambda x: x.mean(axis=-1), [n(64, 128, 1024)]),
        Case("sum of squares 2048x4096 rows", lambda x: (x * x).sum(axis=1), [n(2048, 4096)]),
        Case("sum 3000x3000", lambda x: x.sum(), [n(3000, 3000)]),
        Case("sum 1000x1000", lambda x: x.sum(), [n(1000, 1000)]),
        Case("max 4096x4096", lambda x: x.max(), [n(4096, 4096)]),
        Case("sum 4096x4096", lambda x: x.sum(), [n(4096, 4096)]),
    ]


def shapes_cases() -> list[Case]:
    """The headline's kinds at other shapes (`--set shapes`), as modules it was not
    tuned on: matmuls of 512, 1000 (not a multiple of the tile) and 2048, a batch-64
    MLP, `x @ w.T` (PyTorch's Linear) and a narrow classifier dot, 1x1 and strided
    convolutions, attention over 1024 tokens, softmax over 1000 classes, layernorm
    512x768, a bf16 model's softmax and layernorm (f32 between converts), a 3-D
    transpose, gelu of 1M and a middle-dim sum."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(3)
    n = lambda *s: rng.standard_normal(s).astype(f32)  # noqa: E731

    def conv(x: Any, w: Any, stride: int = 1) -> Any:
        return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def attention(q: Any, k: Any, v: Any) -> Any:
        qh, kh, vh = (t.reshape(1024, 16, 64).transpose(1, 0, 2) for t in (q, k, v))
        p = jax.nn.softmax(qh @ kh.transpose(0, 2, 1) / 8.0, axis=-1)
        return (p @ vh).transpose(1, 0, 2).reshape(1024, 1024)

    def layernorm(x: Any) -> Any:
        return (x - x.mean(1, keepdims=True)) / jnp.sqrt(x.var(1, keepdims=True) + 1e-5)

    def bf16_layernorm(x: Any) -> Any:  # a bf16 model's: computed in f32 between converts
        return layernorm(x.astype(jnp.float32)).astype(jnp.bfloat16)

    return [
        Case("matmul 512^3", lambda a, b: a @ b, [n(512, 512), n(512, 512)], flops=2.0 * 512**3),
        Case("matmul 1000^3", lambda a, b: a @ b, [n(1000, 1000), n(1000, 1000)],
             flops=2.0 * 1000**3),
        Case("matmul 2048^3", lambda a, b: a @ b, [n(2048, 2048), n(2048, 2048)],
             flops=2.0 * 2048**3),
        Case("MLP 784-512-10 b64", lambda x, w1, w2: jnp.maximum(x @ w1, 0) @ w2,
             [n(64, 784), n(784, 512) * f32(0.03), n(512, 10) * f32(0.03)],
             flops=2.0 * 64 * (784 * 512 + 512 * 10)),
        Case("linear x @ w.T 256x1024x1024", lambda x, w, b: x @ w.T + b,
             [n(256, 1024), n(1024, 1024) * f32(0.03), n(1024)], flops=2.0 * 256 * 1024**2),
        Case("classifier 32x16384 @ 16384x10", lambda a, b: a @ b, [n(32, 16384), n(16384, 10)],
             flops=2.0 * 32 * 16384 * 10),
        Case("conv1x1 8x28x28x256->128", conv, [n(8, 28, 28, 256), n(1, 1, 256, 128) * f32(0.05)],
             flops=2.0 * 8 * 28 * 28 * 256 * 128),
        Case("conv3x3 s2 8x56x56x64->128", lambda x, w: conv(x, w, 2),
             [n(8, 56, 56, 64), n(3, 3, 64, 128) * f32(0.05)],
             flops=2.0 * 8 * 28 * 28 * 9 * 64 * 128),
        Case("attention s1024 d1024 h16", attention, [n(1024, 1024), n(1024, 1024), n(1024, 1024)],
             flops=2 * 2.0 * 16 * 1024 * 1024 * 64),
        Case("softmax 4096x1000", lambda x: jax.nn.softmax(x, axis=-1), [n(4096, 1000)]),
        Case("softmax bf16 4096x1000", lambda x: jax.nn.softmax(x, axis=-1),
             [n(4096, 1000).astype(jnp.bfloat16)]),
        Case("layernorm 512x768", layernorm, [n(512, 768)]),
        Case("layernorm bf16 4096x1024", bf16_layernorm, [n(4096, 1024).astype(jnp.bfloat16)]),
        Case("transpose 64x512x512 (0,2,1)", lambda x: jnp.transpose(x, (0, 2, 1)) + 0,
             [n(64, 512, 512)]),
        Case("gelu 1000x1000", jax.nn.gelu, [n(1000, 1000)]),
        Case("sum middle 64x1000x64", lambda x: x.sum(axis=1), [n(64, 1000, 64)]),
    ]


def more_cases() -> list[Case]:
    """Reductions as models hold them (`--set more`): argmax, a sum over a middle dim, a
    mean over the first, a variance, logsumexp, an integer sum, a bf16 sum, a cumulative
    sum, an L2 normalisation and a bias gradient."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(2)
    n = lambda *s: rng.standard_normal(s).astype(f32)  # noqa: E731
    ints = rng.integers(-100, 100, (4096, 4096)).astype(np.int32)
    return [
        Case("argmax rows 1024x4096", lambda x: jnp.argmax(x, axis=1), [n(1024, 4096)]),
        Case("sum middle 64x512x256", lambda x: x.sum(axis=1), [n(64, 512, 256)]),
        Case("mean axis0 512x64x128", lambda x: x.mean(axis=0), [n(512, 64, 128)]),
        Case("var last 2048x1024", lambda x: jnp.var(x, axis=-1), [n(2048, 1024)]),
        Case("logsumexp rows 1024x4096", lambda x: jax.nn.logsumexp(x, axis=1),
             [n(1024, 4096)]),
        Case("int32 sum 4096x4096", lambda x: x.sum(), [ints]),
        Case("bf16 row sum 2048x4096", lambda x: x.sum(axis=1),
             [n(2048, 4096).astype(jnp.bfloat16)]),
        Case("cumsum rows 1024x1024", lambda x: jnp.cumsum(x, axis=1), [n(1024, 1024)]),
        Case("reverse cumsum rows 1024x1024",
             lambda x: jax.lax.cumsum(x, axis=1, reverse=True), [n(1024, 1024)]),
        Case("l2 normalize 2048x1024",
             lambda x: x / jnp.linalg.norm(x, axis=-1, keepdims=True), [n(2048, 1024)]),
        Case("bias grad sum0 8192x1024", lambda x: x.sum(axis=0), [n(8192, 1024)]),
    ]


def types_cases() -> list[Case]:
    """The headline's kinds in other element types (`--set types`), as bf16 and quantized
    models hold them: a bf16 matmul, convolution and gelu, int8 matmul and convolution
    with s32 results."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(4)
    bf = lambda *s, scale=1.0: (rng.standard_normal(s) * scale).astype(jnp.bfloat16)  # noqa: E731
    i8 = lambda *s: rng.integers(-128, 128, s).astype(np.int8)  # noqa: E731
    nhwc = ("NHWC", "HWIO", "NHWC")

    def conv(x: Any, w: Any, **kw: Any) -> Any:
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=nhwc, **kw)

    s32 = {"preferred_element_type": jnp.int32}
    return [
        Case("bf16 matmul 1024^3", lambda a, b: a @ b, [bf(1024, 1024), bf(1024, 1024)],
             flops=2.0 * 1024**3),
        Case("bf16 conv3x3 8x56x56x64->64", conv,
             [bf(8, 56, 56, 64), bf(3, 3, 64, 64, scale=0.05)],
             flops=2.0 * 8 * 56 * 56 * 9 * 64 * 64),
        Case("bf16 gelu 4M", jax.nn.gelu, [bf(4 * 1024 * 1024)]),
        Case("int8 matmul 512^3 -> s32", lambda a, b: jax.lax.dot(a, b, **s32),
             [i8(512, 512), i8(512, 512)], flops=2.0 * 512**3),
        Case("int8 conv3x3 8x28x28x64 -> s32", lambda x, w: conv(x, w, **s32),
             [i8(8, 28, 28, 64), i8(3, 3, 64, 64)], flops=2.0 * 8 * 28 * 28 * 9 * 64 * 64),
    ]


def models_cases() -> list[Case]:
    """Modules of a few hundred instructions (`--set models`): a small CNN, a causal
    transformer block (RMS norm, masked softmax attention, gelu MLP) and an MLP's
    training step (loss, gradients, update)."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    n = lambda *s, scale=1.0: (rng.standard_normal(s) * scale).astype(f32)  # noqa: E731
    nhwc = ("NHWC", "HWIO", "NHWC")

    def cnn(x: Any, w1: Any, w2: Any, wd: Any) -> Any:
        y = jax.nn.relu(jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME",
                                                     dimension_numbers=nhwc))
        y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        y = jax.nn.relu(jax.lax.conv_general_dilated(y, w2, (1, 1), "SAME",
                                                     dimension_numbers=nhwc))
        return jax.nn.log_softmax(y.mean(axis=(1, 2)) @ wd)

    def block(x: Any, wq: Any, wk: Any, wv: Any, wo: Any, w1: Any, w2: Any, g: Any) -> Any:
        h = x * jax.lax.rsqrt((x**2).mean(-1, keepdims=True) + 1e-6) * g
        s = (h @ wq) @ (h @ wk).T / 8.0
        mask = jnp.tril(jnp.ones(s.shape, bool))
        x = x + (jax.nn.softmax(jnp.where(mask, s, -jnp.inf), axis=-1) @ (h @ wv)) @ wo
        return x + jax.nn.gelu(x @ w1) @ w2

    def train(x: Any, y: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
        def loss(p: Any) -> Any:
            h = jax.nn.relu(x @ p[0] + p[1])
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ p[2] + p[3]) * y, -1))

        value, grads = jax.value_and_grad(loss)((w1, b1, w2, b2))
        return (value, *[p - 0.01 * g for p, g in zip((w1, b1, w2, b2), grads, strict=True)])

    labels = np.eye(10, dtype=f32)[rng.integers(0, 10, 128)]
    return [
        Case("cnn 4x32x32x3", cnn, [n(4, 32, 32, 3), n(3, 3, 3, 16, scale=0.2),
                                    n(3, 3, 16, 32, scale=0.1), n(32, 10, scale=0.1)]),
        Case("transformer block 128x256", block,
             [n(128, 256), *[n(256, 256, scale=0.05) for _ in range(4)],
              n(256, 1024, scale=0.05), n(1024, 256, scale=0.03), n(256)]),
        Case("mlp train step 128x784", train,
             [n(128, 784), labels, n(784, 256, scale=0.05), n(256), n(256, 10, scale=0.05),
              n(10)]),
    ]


def floor_ms(case: Case, outputs: list[np.ndarray], bandwidth: float, flops: float) -> float | None:
    """The case's lower bound in milliseconds: data moved once at DRAM speed, or its FLOPs
    at the sgemm rate, whichever is larger."""
    if not case.floor:
        return None
    nbytes = sum(a.nbytes for a in case.args) + sum(a.nbytes for a in outputs)
    return max(nbytes / bandwidth, case.flops / flops) * 1000


# --- measuring one case ---------------------------------------------------------------


def _values(x: Any) -> list[np.ndarray]:
    return [np.asarray(v) for v in (x if isinstance(x, tuple | list) else (x,))]


def xla_compile_ms(case: Case) -> tuple[float, float]:
    """XLA's compile time (`lower(...).compile()`), on a fresh function and empty caches:
    wall and CPU milliseconds (of the whole process, so XLA's compile threads count)."""
    import jax

    jax.clear_caches()
    fresh = lambda *a, _fn=case.fn: _fn(*a)  # noqa: E731 - a new function: no trace cache hit
    lowered = jax.jit(fresh).lower(*case.args)
    t, c = time.perf_counter(), time.process_time()
    lowered.compile()
    return (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000


def compiles(case: Case, text: str, repeat: int, cache_root: Path) -> dict[str, float]:
    """Medians in milliseconds of `repeat` rounds, each one XLA compile then hlotool's
    cold (untuned, no cache), tuned (timing the tuner) and cached compiles of `text`,
    each after the `cpu` pass pipeline as `hlotool run` does; wall time, and CPU time
    (`*_cpu`: less sensitive to other jobs on the machine)."""
    from hlotool.frontend import parse_hlo
    from hlotool.pipeline_cache import optimize
    from hlotool.targets.cpu import CpuTarget
    from hlotool.targets.cpu.cache import DiskCache

    times: dict[str, list[float]] = {}

    def add(key: str, ms: float) -> None:
        times.setdefault(key, []).append(ms)

    def compile_ms(target: CpuTarget, key: str = "", pipelines: Path | None = None
                   ) -> tuple[Any, float]:
        module = parse_hlo(text)
        t, c = time.perf_counter(), time.process_time()
        # Keyed by the text parsed, as `hlotool run` keys a module nothing changed.
        module = optimize(module, "cpu", cache_dir=pipelines, source="hlo\n" + text).module
        executable = target.compile(module)
        wall, cpu = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
        if key:
            add(key, wall)
            add(f"{key}_cpu", cpu)
        return executable, wall

    for r in range(repeat):
        wall, cpu = xla_compile_ms(case)
        add("xla", wall)
        add("xla_cpu", cpu)
        compile_ms(CpuTarget(cache=False, autotune=False), "cold")
        cache, pipelines = DiskCache(cache_root / f"r{r}"), cache_root / f"r{r}" / "pipelines"
        tuned, wall = compile_ms(CpuTarget(cache=cache, autotune=True, log=None), "", pipelines)
        lib = tuned.library
        add("tune", lib.timings.stages.get("autotune", 0.0) * 1000 if lib is not None else wall)
        compile_ms(CpuTarget(cache=cache, autotune=True, log=None), "cached", pipelines)
    return {k: statistics.median(v) for k, v in times.items()}


def warm_up() -> tuple[float, float]:
    """Milliseconds of the first hlotool compile in this process (lazy imports of the
    passes and the code generators, LLVM initialisation) and of loading the runtime
    libraries kernels call, so that neither is charged to a case (XLA's are part of its
    process start too)."""
    from hlotool.commands.opt import apply_passes
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import CpuTarget, load_runtime

    text = "HloModule w\nENTRY e {\n  a = f32[8] parameter(0)\n  ROOT r = f32[8] add(a, a)\n}"
    t = time.perf_counter()
    module = parse_hlo(text)
    apply_passes(module, "cpu", None, verify_each=False)
    CpuTarget(cache=False, autotune=False).compile(module)
    return (time.perf_counter() - t) * 1000, load_runtime() * 1000


def hlotool_command() -> list[str]:
    """The `hlotool` next to this Python (the venv's), else the one on PATH."""
    here = Path(sys.executable).with_name("hlotool")
    found = str(here) if here.exists() else shutil.which("hlotool")
    if found is None:
        raise SystemExit("bench/cpu.py: no hlotool executable next to python or on PATH")
    return [found]


def hlotool_bench(module: Path, inputs: Path, runs: int, cache: Path,
                  output: Path | None = None) -> dict[str, Any]:
    """`hlotool run MODULE --inputs IN --bench RUNS --format json` (the JSON report)."""
    cmd = [*hlotool_command(), "run", str(module), "--inputs", str(inputs),
           "--bench", str(runs), "--format", "json"]
    if output is not None:
        cmd += ["--output", str(output)]
    env = {**os.environ, "HLOTOOL_CACHE_DIR": str(cache)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def xla_run_ms(fn: Callable[[], Any], runs: int) -> float:
    """Median milliseconds of `runs` calls after two warm-up calls."""
    import jax

    for _ in range(2):
        jax.block_until_ready(fn())
    return median_ms(lambda: jax.block_until_ready(fn()), runs)


def write_case(case: Case, root: Path) -> tuple[Path, Path, Any]:
    """The case's pre-optimization HLO and inputs as files, and XLA's executable."""
    import jax

    jitted = jax.jit(case.fn)
    lowered = jitted.lower(*case.args)
    slug = "".join(ch if ch.isalnum() else "_" for ch in case.name)
    module, inputs = root / f"{slug}.hlo", root / f"{slug}.npz"
    module.write_text(lowered.as_text(dialect="hlo"))
    np.savez(inputs, **{f"arg{k}": a for k, a in enumerate(case.args)})
    return module, inputs, lowered.compile()


def check(ours: dict[str, np.ndarray], theirs: list[np.ndarray]) -> str:
    """'' when hlotool's outputs match XLA's, else the assertion's message."""
    try:
        for k, b in enumerate(theirs):
            a = ours[f"out{k}"]
            narrow = b.dtype.itemsize == 2 and b.dtype.name in ("float16", "bfloat16")
            if narrow:  # see the module docstring
                a, b = a.astype(np.float32), b.astype(np.float32)
            scale = float(np.max(np.abs(b))) if b.size and b.dtype.kind == "f" else 1.0
            np.testing.assert_allclose(a, b, rtol=2e-2 if narrow else 2e-4,
                                       atol=1e-5 * max(scale, 1.0))
    except (AssertionError, KeyError) as e:
        return str(e).strip()
    return ""


def measure(case: Case, *, rounds: int, runs: int, compile_repeat: int, bandwidth: float,
            flops: float, root: Path) -> Row:
    import jax

    row = Row(case.name)
    module, inputs, compiled = write_case(case, root)
    cache = root / "cache"
    out = root / "out.npz"
    hlotool_bench(module, inputs, 1, cache, output=out)  # fills the cache (tuned), checks
    from hlotool import values_io

    xla_out = _values(jax.block_until_ready(compiled(*case.args)))
    row.error = check(values_io.load_npz(out), xla_out)
    resident = [jax.device_put(a) for a in case.args]
    jax.block_until_ready(resident)
    for _ in range(rounds):
        row.xla_rounds.append(xla_run_ms(lambda: compiled(*resident), runs))
        report = hlotool_bench(module, inputs, runs, cache)
        row.ours_rounds.append(report["run_seconds_median"] * 1000)
        row.run_compile_rounds.append((report["passes_seconds"] + report["compile_seconds"]) * 1000)
        row.copy_rounds.append(xla_run_ms(lambda: compiled(*case.args), runs))
    row.floor = floor_ms(case, xla_out, bandwidth, flops)
    times = compiles(case, module.read_text(), compile_repeat, root / "compile")
    row.xla_compile, row.cold = times["xla"], times["cold"]
    row.tune, row.cached = times["tune"], times["cached"]
    row.xla_compile_cpu, row.cold_cpu = times["xla_cpu"], times["cold_cpu"]
    row.cached_cpu = times["cached_cpu"]
    return row


# --- output ---------------------------------------------------------------------------

HEADERS = ["case", "XLA ms", "hlotool ms", "hlo/XLA", "spread", "XLA+copy ms", "hlo %floor",
           "XLA %floor", "XLA compile", "cold", "cold/XLA", "cpu cold/XLA", "tune", "cached",
           "cached cpu", "run cached"]


def cells(row: Row) -> list[str]:
    def pct(ms: float) -> str:
        return "–" if row.floor is None else f"{row.floor / ms:.0%}"

    name = f"{row.name} FAIL" if row.error else row.name
    return [name, f"{row.xla:.3f}", f"{row.ours:.3f}", f"{row.ratio:.2f}",
            f"{min(row.ratios):.2f}-{max(row.ratios):.2f}", f"{row.xla_copy:.2f}",
            pct(row.ours), pct(row.xla), f"{row.xla_compile:.0f}", f"{row.cold:.0f}",
            f"{row.cold / row.xla_compile:.1f}",
            f"{row.cold_cpu / row.xla_compile_cpu:.1f}" if row.xla_compile_cpu else "–",
            f"{row.tune:.0f}", f"{row.cached:.1f}", f"{row.cached_cpu:.1f}",
            f"{row.run_compile:.1f}"]


def summary(rows: list[Row]) -> str:
    """The geomean of hlotool/XLA and the cases above 1."""
    slower = [f"{r.name} ({r.ratio:.2f})" for r in rows if r.ratio > 1.0]
    return (f"geomean hlotool/XLA {geomean([r.ratio for r in rows]):.2f} over {len(rows)} "
            f"cases; above 1.0: {', '.join(slower) if slower else 'none'}")


def markdown(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|---|" + "---:|" * (len(HEADERS) - 1)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    return "\n".join(lines)


def rich_table(rows: list[Row], title: str) -> Any:
    from rich.table import Table

    table = Table(title=title, caption="ms; hlo/XLA < 1: hlotool faster; spread: over rounds")
    for h in HEADERS:
        table.add_column(h, justify="left" if h == "case" else "right", no_wrap=True)
    for r in rows:
        table.add_row(*cells(r), style="red" if r.error else None)
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["headline", "reductions", "more", "shapes", "types",
                                          "models", "all"],
                        default="headline",
                        help="the 10 headline cases (default), reductions of other shapes, "
                             "reductions as models hold them, the headline's kinds at "
                             "other shapes or in bf16 and int8, modules of a few hundred "
                             "instructions, or all")
    parser.add_argument("--cases", default="", help="comma-separated substrings of case names")
    parser.add_argument("--rounds", type=int, default=5,
                        help="interleaved rounds of XLA and hlotool timings per case")
    parser.add_argument("--runs", type=int, default=20, help="runs per timing (median)")
    parser.add_argument("--compile-repeat", type=int, default=3,
                        help="rounds of compiles per case (median)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    opts = parser.parse_args(argv)

    wanted = [w.strip().lower() for w in opts.cases.split(",") if w.strip()]
    pool = {"headline": cases, "reductions": reduction_cases, "more": more_cases,
            "shapes": shapes_cases, "types": types_cases, "models": models_cases,
            "all": lambda: cases() + reduction_cases() + more_cases() + shapes_cases()
            + types_cases() + models_cases()}[opts.set]()
    selected = [c for c in pool if not wanted or any(w in c.name.lower() for w in wanted)]
    # Before hlotool's CPU target is imported: it runs OpenBLAS on one thread per call.
    bandwidth, flops = copy_bandwidth(), sgemm_flops()
    first, runtime = warm_up()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    title = (f"hlotool CPU (`hlotool run --bench {opts.runs}`) vs XLA:CPU (resident "
             f"arguments) — {when}; {opts.rounds} rounds; copy {bandwidth / 1e9:.1f} GB/s, "
             f"sgemm {flops / 1e9:.0f} GFLOP/s; not in `cold`: first hlotool compile in "
             f"the process {first:.0f} ms, runtime libraries {runtime:.0f} ms")
    rows = []
    with tempfile.TemporaryDirectory(prefix="hlotool-bench-") as root:
        for case in selected:
            rows.append(measure(case, rounds=opts.rounds, runs=opts.runs,
                                compile_repeat=opts.compile_repeat, bandwidth=bandwidth,
                                flops=flops, root=Path(root)))
    if opts.markdown:
        print(title + "\n\n" + markdown(rows))
    else:
        from rich.console import Console

        console = Console()
        if not console.is_terminal:
            console = Console(width=220)
        console.print(rich_table(rows, title))
    print(summary(rows))
    for r in rows:
        if r.error:
            print(f"FAIL {r.name}: hlotool differs from XLA:\n{r.error}")


if __name__ == "__main__":
    main()
