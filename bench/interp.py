"""Reference interpreter speed: the MLP (batch 256, 512-1024-1024-10, f32) run by
hlotool's interpreter, by plain numpy op by op, and by XLA:CPU (jax), side by side in
one process. Goal: the interpreter within 2x of numpy.

    python bench/interp.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from models import mlp  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from hlotool.frontend import parse_hlo  # noqa: E402
from hlotool.interpreter.core import Evaluator  # noqa: E402


def numpy_mlp(params: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The same network written directly in numpy."""
    for i, (w, b) in enumerate(params):
        x = x @ w + b
        if i < len(params) - 1:
            x = np.maximum(x, 0)
    return x


def median_time(fn: Callable[[], object], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    import jax

    text, jitted = mlp()
    rng = np.random.default_rng(0)
    sizes = (512, 1024, 1024, 10)
    params = [(rng.standard_normal((a, b), np.float32) / np.sqrt(a),
               rng.standard_normal(b, np.float32)) for a, b in zip(sizes, sizes[1:], strict=False)]
    x = rng.standard_normal((256, 512), np.float32)
    flat = [a for wb in params for a in wb] + [x]
    evaluator = Evaluator(parse_hlo(text))
    dev = [(jax.device_put(w), jax.device_put(b)) for w, b in params]
    dx = jax.device_put(x)
    ours = np.asarray(evaluator.run(flat))
    np.testing.assert_allclose(ours, numpy_mlp(params, x), rtol=1e-4, atol=1e-4)
    rows = {
        "hlotool interp": median_time(lambda: evaluator.run(flat), args.repeat),
        "numpy op by op": median_time(lambda: numpy_mlp(params, x), args.repeat),
        "XLA:CPU (jax.jit)": median_time(lambda: jitted(dev, dx).block_until_ready(), args.repeat),
    }
    table = Table(title="MLP 512-1024-1024-10, batch 256, f32 (median)")
    for col in ("runner", "ms", "vs numpy"):
        table.add_column(col, justify="right")
    for name, t in rows.items():
        table.add_row(name, f"{t * 1e3:.2f}", f"{t / rows['numpy op by op']:.2f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
