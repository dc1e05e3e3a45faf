"""Side-by-side timings in one process: hlotool's CPU target vs XLA:CPU (jax.jit) vs numpy.

Run: `python bench/cpu.py`. Cases are generated with jax (lowered to HLO text, compiled
by hlotool); medians of interleaved runs. Ratios are XLA time / hlotool time (above 1 =
hlotool faster). Compile times: `cold` is a compile through an empty cache directory
(emit + LLVM + autotuning, whose choices print to stderr as `autotune:` lines; set
HLOTOOL_AUTOTUNE=0 to compare untuned), `cached` the second compile of the same module (disk cache hit); both
exclude parsing. `native` is the fraction of instruction executions with a kernel.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _median_ms(fn: Callable[[], Any], repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def _cases() -> list[tuple[str, Callable[..., Any], list[np.ndarray]]]:
    import jax.numpy as jnp

    rng = np.random.default_rng(0)

    def gelu(x: Any) -> Any:
        return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    def transpose(x: Any) -> Any:
        return x.T + 0

    def softmax(x: Any) -> Any:
        e = jnp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def reduce_sum(x: Any) -> Any:
        return x.sum()

    def mlp(x: Any, w1: Any, w2: Any, w3: Any) -> Any:
        h = jnp.maximum(x @ w1, 0)
        h = jnp.maximum(h @ w2, 0)
        return h @ w3

    def layernorm(x: Any) -> Any:
        m = x.mean(axis=1, keepdims=True)
        v = ((x - m) ** 2).mean(axis=1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5)

    def conv(x: Any, w: Any) -> Any:
        import jax

        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def attention(q: Any, k: Any, v: Any) -> Any:
        h, d = 8, 64
        qh, kh, vh = (t.reshape(512, h, d).transpose(1, 0, 2) for t in (q, k, v))
        s = qh @ kh.transpose(0, 2, 1) / 8.0
        p = jnp.exp(s - s.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
        return (p @ vh).transpose(1, 0, 2).reshape(512, 512)

    def matmul(a: Any, b: Any) -> Any:
        return a @ b

    def fori(x: Any) -> Any:
        import jax

        return jax.lax.fori_loop(0, 100, lambda i, y: jnp.tanh(y * 1.01 + 0.1), x)

    f32 = np.float32
    n = lambda *s: rng.standard_normal(s).astype(f32)  # noqa: E731
    return [
        ("gelu(tanh) 4M f32", gelu, [n(4 << 20)]),
        ("transpose 2048^2", transpose, [n(2048, 2048)]),
        ("softmax 1024x4096", softmax, [n(1024, 4096)]),
        ("reduce-sum 8M", reduce_sum, [n(8 << 20)]),
        ("MLP 512-1024-1024-10 b256", mlp, [n(256, 512), n(512, 1024) * f32(0.04),
                                          n(1024, 1024) * f32(0.03), n(1024, 10) * f32(0.03)]),
        ("layernorm 2048x1024", layernorm, [n(2048, 1024)]),
        ("conv3x3 8x56x56x64->64", conv, [n(8, 56, 56, 64), n(3, 3, 64, 64) * f32(0.05)]),
        ("attention s512 d512 h8", attention, [n(512, 512), n(512, 512), n(512, 512)]),
        ("matmul 1024^3", matmul, [n(1024, 1024), n(1024, 1024)]),
        ("fori_loop 100 x 64x64", fori, [n(64, 64)]),
    ]


def main() -> None:
    import os
    import tempfile

    import jax

    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import compile_module
    from hlotool.targets.cpu.cache import DiskCache

    cache = DiskCache(__import__("pathlib").Path(tempfile.mkdtemp(prefix="hlotool-bench-")))
    os.environ.setdefault("HLOTOOL_CACHE_DIR", str(cache.root))
    print(f"{'case':<27}{'hlotool ms':>11}{'XLA ms':>9}{'numpy ms':>10}{'XLA/hlo':>9}"
          f"{'cold ms':>9}{'cached ms':>10}{'native':>8}")
    for name, fn, args in _cases():
        jitted = jax.jit(fn)
        compiled = jitted.lower(*args).compile()
        text = compiled.as_text()
        t = time.perf_counter()
        ex = compile_module(parse_hlo(text), cache=cache)
        cold_ms = (time.perf_counter() - t) * 1000
        module = parse_hlo(text)
        t = time.perf_counter()
        ex = compile_module(module, cache=cache)
        cached_ms = (time.perf_counter() - t) * 1000
        ex.run(args)
        jax.block_until_ready(compiled(*args))
        ours = _median_ms(lambda: ex.run(args))
        xla = _median_ms(lambda: jax.block_until_ready(compiled(*args)))
        ref = _median_ms(lambda: _numpy(name, args))
        print(f"{name:<27}{ours:>11.2f}{xla:>9.2f}{ref:>10.2f}{xla / ours:>9.2f}"
              f"{cold_ms:>9.0f}{cached_ms:>10.1f}{ex.stats.native_fraction:>8.0%}")


def _numpy(name: str, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    if name.startswith("gelu"):
        return 0.5 * x * (1 + np.tanh(np.float32(0.7978845608) * (x + np.float32(0.044715) * x * x * x)))
    if name.startswith("transpose"):
        return np.ascontiguousarray(x.T)
    if name.startswith("softmax"):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    if name.startswith("MLP"):
        h = np.maximum(x @ args[1], 0)
        return np.maximum(h @ args[2], 0) @ args[3]
    if name.startswith("layernorm"):
        m = x.mean(axis=1, keepdims=True)
        return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    if name.startswith("conv"):
        p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        cols = np.stack([p[:, i:i + 56, j:j + 56, :] for i in range(3) for j in range(3)], 3)
        return cols.reshape(-1, 9 * 64) @ args[1].reshape(9 * 64, 64)
    if name.startswith("attention"):
        q, k, v = (t.reshape(512, 8, 64).transpose(1, 0, 2) for t in args)
        s = q @ k.transpose(0, 2, 1) / 8.0
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        return (p / p.sum(axis=-1, keepdims=True)) @ v
    if name.startswith("matmul"):
        return x @ args[1]
    if name.startswith("fori"):
        y = x
        for _ in range(100):
            y = np.tanh(y * np.float32(1.01) + np.float32(0.1))
        return y
    return np.asarray(x.sum())


if __name__ == "__main__":
    main()
