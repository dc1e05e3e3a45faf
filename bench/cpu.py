"""Side-by-side timings in one process: hlotool's CPU target vs XLA:CPU (jax.jit) vs numpy.

Run: `python bench/cpu.py`. Cases are generated with jax (lowered to HLO text, compiled
by hlotool); medians of interleaved runs. Ratios are XLA time / hlotool time (above 1 =
hlotool faster). Stage 1 covers the elementwise and transpose cases natively; the
reduction cases still use the interpreter for the reduce itself.
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

    f32 = np.float32
    return [
        ("gelu(tanh) 4M f32", gelu, [rng.standard_normal(4 << 20).astype(f32)]),
        ("transpose 2048^2", transpose, [rng.standard_normal((2048, 2048)).astype(f32)]),
        ("softmax 1024x4096", softmax, [rng.standard_normal((1024, 4096)).astype(f32)]),
        ("reduce-sum 8M", reduce_sum, [rng.standard_normal(8 << 20).astype(f32)]),
    ]


def main() -> None:
    import jax

    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import compile_module

    print(f"{'case':<22}{'hlotool ms':>10}{'XLA ms':>10}{'numpy ms':>10}{'XLA/hlo':>9}{'compile ms':>10}")
    for name, fn, args in _cases():
        jitted = jax.jit(fn)
        compiled = jitted.lower(*args).compile()
        text = compiled.as_text()
        t = time.perf_counter()
        ex = compile_module(parse_hlo(text))
        compile_ms = (time.perf_counter() - t) * 1000
        ex.run(args)
        jax.block_until_ready(compiled(*args))
        ours = _median_ms(lambda: ex.run(args))
        xla = _median_ms(lambda: jax.block_until_ready(compiled(*args)))
        ref = _median_ms(lambda: _numpy(name, args))
        print(f"{name:<22}{ours:>10.2f}{xla:>10.2f}{ref:>10.2f}{xla / ours:>9.2f}{compile_ms:>10.0f}")


def _numpy(name: str, args: list[np.ndarray]) -> np.ndarray:
    x = args[0]
    if name.startswith("gelu"):
        return 0.5 * x * (1 + np.tanh(np.float32(0.7978845608) * (x + np.float32(0.044715) * x * x * x)))
    if name.startswith("transpose"):
        return np.ascontiguousarray(x.T)
    if name.startswith("softmax"):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return np.asarray(x.sum())


if __name__ == "__main__":
    main()
