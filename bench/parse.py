"""Parse throughput: hlotool's HLO front end vs XLA's own parser (jaxlib), side by side
on the same large modules in one process.

    python bench/parse.py [--layers 240] [--repeat 5]

The module is a deep MLP (dense + gelu + layernorm per layer) lowered by jax; both its
pre-optimization text and XLA:CPU's compiled text are measured. hlotool's time is the
full front end (lex, parse, build the IR); XLA's is `hlo_module_from_text`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from models import deep_mlp  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from hlotool.frontend import parse_hlo  # noqa: E402


def best_of(fn: Callable[[str], object], text: str, repeat: int) -> float:
    """Minimum wall time over `repeat` runs (interleaving is done by the caller)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=240)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import jaxlib._hlo as xla_hlo  # type: ignore[import-not-found]

    pre, compiled = deep_mlp(args.layers)
    parse_hlo("HloModule warm\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
    table = Table(title=f"HLO parse, {args.layers}-layer MLP (best of {args.repeat})")
    for col in ("text", "instructions", "hlotool s", "XLA s", "hlotool instr/s", "ratio"):
        table.add_column(col, justify="right")
    for label, text in (("pre-optimization", pre), ("XLA:CPU compiled", compiled)):
        n = parse_hlo(text).instruction_count
        ours = min(best_of(parse_hlo, text, args.repeat) for _ in range(2))
        theirs = min(best_of(xla_hlo.hlo_module_from_text, text, args.repeat) for _ in range(2))
        table.add_row(label, f"{n:,}", f"{ours:.3f}", f"{theirs:.4f}", f"{n / ours:,.0f}",
                      f"{ours / theirs:.1f}x")
    Console().print(table)


if __name__ == "__main__":
    main()
