"""Side-by-side timings in one process: hlotool's CPU target vs XLA:CPU (jax.jit) vs numpy.

Run: `python bench/cpu.py [--cases gelu,softmax] [--repeat 7] [--markdown] [--hlo pre]`.
Cases are generated with jax and compiled by XLA; hlotool compiles XLA's optimised HLO
text (`--hlo opt`, the default: the same fusion decisions, so the kernels' code is what
differs) or the HLO before XLA's passes (`--hlo pre`: hlotool's own pass pipeline and
fusion, what `hlotool run` does with a JAX dump); run times
are medians of interleaved runs (hlotool, XLA, numpy in turn; other jobs share the machine).

Columns:

* `hlotool`, `XLA`, `numpy`: milliseconds per call; `XLA/hlo` is XLA time / hlotool time
  (above 1 = hlotool faster).
* `hlo %floor`, `XLA %floor`: the floor's share of the time. The floor is the larger of the
  bytes read and written (inputs + outputs, once) at this machine's DRAM copy bandwidth and
  the FLOPs at its sgemm rate, both measured with numpy at the start of the run
  (docs/targets.md Part 0): copy on one thread per core, sgemm 2048^3 through numpy's BLAS.
* Compile milliseconds, all after parsing, medians of rounds that interleave XLA's and
  hlotool's compiles: `XLA` is `jitted.lower(*args).compile()` on a
  fresh function after `jax.clear_caches()` (so no in-memory cache hits; the persistent
  cache is off unless configured), its HLO passes included; hlotool's compiles of XLA's
  optimised HLO include the `cpu` pass pipeline, as `hlotool run` does; `cold` is
  hlotool without the disk cache and without autotuning (`cold/XLA`: the issue's goal is at most 2), after one warm-up compile that
  pays the process's lazy imports and LLVM initialisation and after loading the runtime
  libraries (both printed in the title; the convolution microkernels are compiled once
  per host and then come from the disk cache); `tune`
  the autotuner's own time in a compile with it on (the whole compile when there is no
  LLVM module, e.g. a lone dot); `cached` a compile whose disk cache entry exists (a
  tuned entry). `--stages` adds hlotool's cold compile stages per case.
* `native`: the fraction of instruction executions with a kernel (the rest run on the
  reference interpreter).

hlotool's output is checked against XLA's once per case (`np.testing.assert_allclose`);
a mismatch (beyond rtol 2e-4 and atol 1e-5 of the largest output magnitude: dots sum in
another order) is printed under the table and marks the case `FAIL`. A floor share above
100% means the data was partly in cache (the 32 MiB L3 holds e.g. gelu's 4M-element input
and output).
"""

from __future__ import annotations

import argparse
import statistics
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
    """One benchmark: a jax function, its inputs, its numpy equivalent and its FLOPs."""

    name: str
    fn: Fn
    args: list[np.ndarray]
    numpy: Fn
    #: Floating-point operations of the dense math (dots, convolutions); 0 elsewhere.
    flops: float = 0.0
    #: Whether a DRAM floor means anything (False: the data stays in cache, e.g. a loop).
    floor: bool = True


@dataclass(slots=True)
class Row:
    """Measurements of one case (milliseconds)."""

    name: str
    ours: float = 0.0
    xla: float = 0.0
    ref: float = 0.0
    floor: float | None = None
    xla_compile: float = 0.0
    cold: float = 0.0
    tune: float = 0.0
    cached: float = 0.0
    native: float = 0.0
    error: str = ""
    stages: dict[str, float] = field(default_factory=dict)


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def interleaved_ms(fns: list[Callable[[], Any]], repeat: int) -> list[float]:
    """Median milliseconds of each function, timed in turn `repeat` times."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times, strict=True):
            t = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t) * 1000)
    return [statistics.median(t) for t in times]


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

    def gelu_np(x: np.ndarray) -> np.ndarray:
        return 0.5 * x * (1 + np.tanh(f32(0.7978845608) * (x + f32(0.044715) * x * x * x)))

    def softmax(x: Any) -> Any:
        e = jnp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def softmax_np(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def mlp(x: Any, w1: Any, w2: Any, w3: Any) -> Any:
        h = jnp.maximum(x @ w1, 0)
        return jnp.maximum(h @ w2, 0) @ w3

    def mlp_np(x: np.ndarray, w1: np.ndarray, w2: np.ndarray, w3: np.ndarray) -> np.ndarray:
        return np.maximum(np.maximum(x @ w1, 0) @ w2, 0) @ w3

    def layernorm(x: Any) -> Any:
        m = x.mean(axis=1, keepdims=True)
        v = ((x - m) ** 2).mean(axis=1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5)

    def layernorm_np(x: np.ndarray) -> np.ndarray:
        m = x.mean(axis=1, keepdims=True)
        return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=1, keepdims=True) + f32(1e-5))

    def conv(x: Any, w: Any) -> Any:
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def conv_np(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        cols = np.stack([p[:, i:i + 56, j:j + 56, :] for i in range(3) for j in range(3)], 3)
        return (cols.reshape(-1, 9 * 64) @ w.reshape(9 * 64, 64)).reshape(8, 56, 56, 64)

    def attention(q: Any, k: Any, v: Any) -> Any:
        qh, kh, vh = (t.reshape(512, 8, 64).transpose(1, 0, 2) for t in (q, k, v))
        s = qh @ kh.transpose(0, 2, 1) / 8.0
        p = jnp.exp(s - s.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
        return (p @ vh).transpose(1, 0, 2).reshape(512, 512)

    def attention_np(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        qh, kh, vh = (t.reshape(512, 8, 64).transpose(1, 0, 2) for t in (q, k, v))
        s = qh @ kh.transpose(0, 2, 1) / f32(8.0)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
        return (p @ vh).transpose(1, 0, 2).reshape(512, 512)

    def fori(x: Any) -> Any:
        return jax.lax.fori_loop(0, 100, lambda i, y: jnp.tanh(y * 1.01 + 0.1), x)

    def fori_np(x: np.ndarray) -> np.ndarray:
        for _ in range(100):
            x = np.tanh(x * f32(1.01) + f32(0.1))
        return x

    return [
        Case("gelu(tanh) 4M f32", gelu, [n(4 << 20)], gelu_np),
        Case("transpose 2048^2", lambda x: x.T + 0, [n(2048, 2048)],
             lambda x: np.ascontiguousarray(x.T)),
        Case("softmax 1024x4096", softmax, [n(1024, 4096)], softmax_np),
        Case("reduce-sum 8M", lambda x: x.sum(), [n(8 << 20)], lambda x: np.asarray(x.sum())),
        Case("MLP 512-1024-1024-10 b256", mlp,
             [n(256, 512), n(512, 1024) * f32(0.04), n(1024, 1024) * f32(0.03),
              n(1024, 10) * f32(0.03)], mlp_np,
             flops=2.0 * 256 * (512 * 1024 + 1024 * 1024 + 1024 * 10)),
        Case("layernorm 2048x1024", layernorm, [n(2048, 1024)], layernorm_np),
        Case("conv3x3 8x56x56x64->64", conv, [n(8, 56, 56, 64), n(3, 3, 64, 64) * f32(0.05)],
             conv_np, flops=2.0 * 8 * 56 * 56 * 64 * 9 * 64),
        Case("attention s512 d512 h8", attention, [n(512, 512), n(512, 512), n(512, 512)],
             attention_np, flops=2 * 2.0 * 8 * 512 * 512 * 64),
        Case("matmul 1024^3", lambda a, b: a @ b, [n(1024, 1024), n(1024, 1024)],
             lambda a, b: a @ b, flops=2.0 * 1024**3),
        Case("fori_loop 100 x 64x64", fori, [n(64, 64)], fori_np, floor=False),
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


def xla_compile_ms(case: Case) -> float:
    """XLA's compile time (`lower(...).compile()`), on a fresh function and empty caches."""
    import jax

    jax.clear_caches()
    fresh = lambda *a, _fn=case.fn: _fn(*a)  # noqa: E731 - a new function: no trace cache hit
    lowered = jax.jit(fresh).lower(*case.args)
    t = time.perf_counter()
    lowered.compile()
    return (time.perf_counter() - t) * 1000


def compiles(case: Case, text: str, repeat: int, cache_root: Path) -> tuple[Any, dict[str, float]]:
    """Medians in milliseconds of `repeat` rounds, each one XLA compile then hlotool's
    cold (untuned, no cache), tuned (timing the tuner) and cached compiles of `text`,
    each after the `cpu` pass pipeline as `hlotool run` does (interleaved, as the run
    times are, so that both see the same machine); and the executable of the last
    cached compile."""
    from hlotool.commands.opt import apply_passes
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import CpuTarget
    from hlotool.targets.cpu.cache import DiskCache

    times: dict[str, list[float]] = {}
    ex = None

    def add(key: str, ms: float) -> None:
        times.setdefault(key, []).append(ms)

    def compile_ms(target: CpuTarget) -> tuple[Any, float]:
        """What `hlotool run` does after parsing: the `cpu` pass pipeline, then the code."""
        module = parse_hlo(text)
        t = time.perf_counter()
        apply_passes(module, "cpu", None, verify_each=False)
        add("stage passes", (time.perf_counter() - t) * 1000)
        executable = target.compile(module)
        return executable, (time.perf_counter() - t) * 1000

    for r in range(repeat):
        add("xla", xla_compile_ms(case))
        ex, ms = compile_ms(CpuTarget(cache=False, autotune=False))
        add("cold", ms)
        if ex.library is not None:
            for k, v in ex.library.timings.stages.items():
                add(f"stage {k}", v * 1000)
        cache = DiskCache(cache_root / f"r{r}")
        tuned, wall = compile_ms(CpuTarget(cache=cache, autotune=True, log=None))
        lib = tuned.library
        add("tune", lib.timings.stages.get("autotune", 0.0) * 1000 if lib is not None else wall)
        ex, ms = compile_ms(CpuTarget(cache=cache, autotune=True, log=None))
        add("cached", ms)
    return ex, {k: statistics.median(v) for k, v in times.items()}


def warm_up() -> tuple[float, float]:
    """Milliseconds of the first hlotool compile in this process (lazy imports, LLVM
    initialisation) and of loading the runtime libraries kernels call (the convolution
    microkernels: compiled once per host, then loaded from the disk cache), so that
    neither is charged to a case (XLA's are part of its process start too)."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import CpuTarget, load_runtime

    text = "HloModule w\nENTRY e {\n  a = f32[8] parameter(0)\n  ROOT r = f32[8] add(a, a)\n}"
    t = time.perf_counter()
    CpuTarget(cache=False, autotune=False).compile(parse_hlo(text))
    return (time.perf_counter() - t) * 1000, load_runtime() * 1000


def measure(case: Case, *, repeat: int, compile_repeat: int, bandwidth: float, flops: float,
            cache_root: Path, hlo: str = "opt") -> Row:
    import jax

    row = Row(case.name)
    compiled = jax.jit(case.fn).lower(*case.args).compile()
    text = compiled.as_text() if hlo == "opt" else \
        jax.jit(case.fn).lower(*case.args).as_text(dialect="hlo")
    ex, times = compiles(case, text, compile_repeat, cache_root)
    row.xla_compile = times["xla"]
    row.cold, row.tune, row.cached = times["cold"], times["tune"], times["cached"]
    row.stages = {k[6:]: v for k, v in times.items() if k.startswith("stage ")}
    ours_out = _values(ex.run(case.args))
    xla_out = _values(jax.block_until_ready(compiled(*case.args)))
    try:
        for a, b in zip(ours_out, xla_out, strict=True):
            scale = float(np.max(np.abs(b))) if b.size and b.dtype.kind == "f" else 1.0
            np.testing.assert_allclose(a, b, rtol=2e-4, atol=1e-5 * max(scale, 1.0))
    except AssertionError as e:
        row.error = str(e).strip()
    row.native = ex.stats.native_fraction
    row.ours, row.xla, row.ref = interleaved_ms(
        [lambda: ex.run(case.args), lambda: jax.block_until_ready(compiled(*case.args)),
         lambda: case.numpy(*case.args)], repeat)
    row.floor = floor_ms(case, xla_out, bandwidth, flops)
    return row


# --- output ---------------------------------------------------------------------------

HEADERS = ["case", "hlotool ms", "XLA ms", "numpy ms", "XLA/hlo", "hlo %floor", "XLA %floor",
           "XLA compile", "cold", "cold/XLA", "tune", "cached", "native"]


def cells(row: Row) -> list[str]:
    def pct(ms: float) -> str:
        return "–" if row.floor is None else f"{row.floor / ms:.0%}"

    name = f"{row.name} FAIL" if row.error else row.name
    return [name, f"{row.ours:.2f}", f"{row.xla:.2f}", f"{row.ref:.2f}",
            f"{row.xla / row.ours:.2f}", pct(row.ours), pct(row.xla), f"{row.xla_compile:.0f}",
            f"{row.cold:.0f}", f"{row.cold / row.xla_compile:.1f}", f"{row.tune:.0f}",
            f"{row.cached:.1f}", f"{row.native:.0%}"]


def markdown(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|---|" + "---:|" * (len(HEADERS) - 1)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    return "\n".join(lines)


def rich_table(rows: list[Row], title: str) -> Any:
    from rich.table import Table

    table = Table(title=title, caption="compile columns in ms; XLA/hlo > 1: hlotool faster")
    for h in HEADERS:
        table.add_column(h, justify="left" if h == "case" else "right", no_wrap=True)
    for r in rows:
        table.add_row(*cells(r), style="red" if r.error else None)
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="", help="comma-separated substrings of case names")
    parser.add_argument("--repeat", type=int, default=7, help="runs per kernel timing (median)")
    parser.add_argument("--compile-repeat", type=int, default=5,
                        help="rounds of compiles per case (median)")
    parser.add_argument("--hlo", choices=("opt", "pre"), default="opt",
                        help="what hlotool compiles: XLA's optimized HLO (opt, default: the "
                             "same kernels' code) or the HLO before XLA's passes (pre: "
                             "hlotool's own fusion, as `hlotool run` on a JAX dump)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--stages", action="store_true",
                        help="also print hlotool's cold compile stages (ms) per case")
    opts = parser.parse_args(argv)

    wanted = [w.strip().lower() for w in opts.cases.split(",") if w.strip()]
    selected = [c for c in cases() if not wanted or any(w in c.name.lower() for w in wanted)]
    first, runtime = warm_up()
    bandwidth, flops = copy_bandwidth(), sgemm_flops()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    title = (f"hlotool CPU vs XLA:CPU vs numpy — {when}; "
             f"copy {bandwidth / 1e9:.1f} GB/s, sgemm {flops / 1e9:.0f} GFLOP/s; "
             f"hlotool compiles {'XLA-optimized' if opts.hlo == 'opt' else 'pre-optimization'} "
             f"HLO; not in `cold`: first hlotool compile in the process {first:.0f} ms, "
             f"runtime libraries {runtime:.0f} ms")
    rows = []
    with tempfile.TemporaryDirectory(prefix="hlotool-bench-") as root:
        for case in selected:
            rows.append(measure(case, repeat=opts.repeat, compile_repeat=opts.compile_repeat,
                                hlo=opts.hlo,
                                bandwidth=bandwidth, flops=flops, cache_root=Path(root)))
    if opts.markdown:
        print(title + "\n\n" + markdown(rows))
    else:
        from rich.console import Console

        console = Console()
        if not console.is_terminal:
            console = Console(width=200)
        console.print(rich_table(rows, title))
    if opts.stages:
        for r in rows:
            print(f"{r.name}: " + ", ".join(f"{k} {v:.1f}" for k, v in r.stages.items()))
    for r in rows:
        if r.error:
            print(f"FAIL {r.name}: hlotool differs from XLA:\n{r.error}")


if __name__ == "__main__":
    main()
