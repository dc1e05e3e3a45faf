"""The simulated TPU on the CPU bench cases: simulation wall time, cycles, utilization.

Run: `python bench/tpu.py [--chip v5e] [--cases gelu,matmul] [--repeat 3]`.
Each case of bench/cpu.py is lowered with jax (HLO before XLA's passes, as a JAX dump),
put through the `tpu` pipeline and compiled to a TPU program once; `sim s` is the median
wall time of simulating it (values with TPU numerics plus the cycle count; the pipeline
and compile are not included), `max err` the largest difference from numpy relative to
the largest output magnitude (bf16 matmul inputs make dots differ by ~1e-3).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chip", default="v5e")
    ap.add_argument("--cases", default="")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import jax
    from cpu import cases
    from rich.console import Console
    from rich.table import Table

    from hlotool.frontend import parse_hlo
    from hlotool.targets.tpu import TpuTarget, prepare

    table = Table(title=f"simulated TPU {args.chip}: bench cases (median of {args.repeat})")
    for col in ("case", "sim s", "cycles", "simulated us", "MXU util", "bound", "% roofline",
                "max err"):
        table.add_column(col, justify="left" if col == "case" else "right")
    wanted = [w for w in args.cases.split(",") if w]
    for case in cases():
        if wanted and not any(w in case.name for w in wanted):
            continue
        text = jax.jit(case.fn).lower(*case.args).as_text(dialect="hlo")
        module = prepare(parse_hlo(text))
        ex = TpuTarget(args.chip).compile(module)
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            out = ex.run(case.args)
            times.append(time.perf_counter() - t)
        got = np.asarray(out[0] if isinstance(out, tuple) else out, np.float64)
        want = np.asarray(case.numpy(*case.args), np.float64)
        err = float(np.max(np.abs(got - want)) / max(1e-30, float(np.max(np.abs(want)))))
        r = ex.report()
        table.add_row(case.name, f"{statistics.median(times):.3f}", f"{r['cycles']:,.0f}",
                      f"{r['seconds'] * 1e6:,.1f}", f"{r['mxu_utilization'] * 100:.1f}%",
                      r["roofline"]["bound"],
                      f"{r['roofline']['fraction_of_roofline'] * 100:.1f}%", f"{err:.1e}")
    Console().print(table)


if __name__ == "__main__":
    main()
