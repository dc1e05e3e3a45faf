"""The simulated TPU on the CPU bench cases and the corpus: simulation wall time per case.

Run: `python bench/tpu.py [--chip v5e] [--cases gelu,matmul] [--repeat 3] [--corpus DIR]
[--no-bench]`. Each case of bench/cpu.py is lowered with jax (HLO before XLA's passes, as
a JAX dump), put through the `tpu` pipeline and compiled to a TPU program once; `sim s` is
the best of `--repeat` simulations (values with TPU numerics plus the cycle count; the
pipeline and compile, `prep s`, are not included), `max err` the largest difference from
XLA:CPU's f32 result relative to the largest output magnitude (bf16 matmul inputs make
dots differ by ~1e-3). `--corpus DIR` (default tests/data/corpus) times every runnable
`module.hlo` of the corpus the same way on its own inputs; a summary line says how many
cases took a second or more.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

#: Corpus texts with elided constants cannot reproduce their case (tests/conftest.py).
ELIDED_CONSTANT = "constant({...})"


def best_time(ex: Any, args: list[Any], repeat: int) -> tuple[float, Any]:
    """(fastest of `repeat` simulations in seconds, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        out = ex.run(args)
        times.append(time.perf_counter() - started)
    return min(times), out


def prepared(text: str, chip: str) -> tuple[Any, Any, float]:
    """(module after the tpu pipeline, its executable, seconds the two took)."""
    from hlotool.frontend import parse_hlo
    from hlotool.targets.tpu import TpuTarget, prepare

    started = time.perf_counter()
    module = prepare(parse_hlo(text))
    ex = TpuTarget(chip).compile(module)
    return module, ex, time.perf_counter() - started


def bench_rows(chip: str, wanted: list[str], repeat: int) -> list[list[str]]:
    import jax
    from cpu import cases

    rows = []
    for case in cases():
        if wanted and not any(w in case.name for w in wanted):
            continue
        fn = jax.jit(case.fn)
        _, ex, prep = prepared(fn.lower(*case.args).as_text(dialect="hlo"), chip)
        secs, out = best_time(ex, case.args, repeat)
        got = np.asarray(out[0] if isinstance(out, tuple) else out, np.float64)
        want = np.asarray(fn(*case.args), np.float64)
        err = float(np.max(np.abs(got - want)) / max(1e-30, float(np.max(np.abs(want)))))
        r = ex.report()
        rows.append([case.name, f"{secs:.3f}", f"{prep:.2f}", f"{r['cycles']:,.0f}",
                     f"{r['seconds'] * 1e6:,.1f}", f"{r['mxu_utilization'] * 100:.1f}%",
                     r["roofline"]["bound"],
                     f"{r['roofline']['fraction_of_roofline'] * 100:.1f}%", f"{err:.1e}"])
    return rows


def corpus_rows(corpus: Path, chip: str, wanted: list[str], repeat: int) -> list[list[str]]:
    from hlotool import values_io

    rows = []
    for case in sorted(p for p in corpus.iterdir() if (p / "case.json").exists()):
        path = case / "module.hlo"
        if not path.exists() or (wanted and not any(w in case.name for w in wanted)):
            continue
        text = path.read_text()
        if ELIDED_CONSTANT in text:
            continue
        module, ex, prep = prepared(text, chip)
        args = values_io.entry_arguments(module, values_io.load_npz(case / "inputs.npz"))
        secs, _ = best_time(ex, args, repeat)
        rows.append([case.name, f"{secs:.4f}", f"{prep:.2f}", f"{ex.report()['cycles']:,.0f}"])
    return rows


def table(title: str, columns: list[str], rows: list[list[str]]) -> Any:
    from rich.table import Table

    out = Table(title=title)
    for col in columns:
        out.add_column(col, justify="left" if col == "case" else "right")
    for row in rows:
        out.add_row(*row)
    return out


def summary(label: str, rows: list[list[str]]) -> str:
    secs = [float(r[1]) for r in rows]
    slow = [r[0] for r in rows if float(r[1]) >= 1.0]
    slowest = max(rows, key=lambda r: float(r[1]))
    return (f"{label}: {len(rows)} cases, simulation median {statistics.median(secs):.4f} s, "
            f"slowest {slowest[0]} {float(slowest[1]):.3f} s; {len(slow)} at 1 s or more"
            + (f" ({', '.join(slow)})" if slow else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chip", default="v5e")
    ap.add_argument("--cases", default="", help="comma-separated substrings of case names")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--corpus", type=Path, nargs="?",
                    const=Path(__file__).parent.parent / "tests" / "data" / "corpus",
                    help="also time every corpus case (default folder tests/data/corpus)")
    ap.add_argument("--no-bench", action="store_true", help="skip the bench/cpu.py cases")
    args = ap.parse_args()
    from rich.console import Console

    console = Console(width=max(Console().width, 140))
    wanted = [w for w in args.cases.split(",") if w]
    lines = []
    if not args.no_bench:
        rows = bench_rows(args.chip, wanted, args.repeat)
        console.print(table(f"simulated TPU {args.chip}: bench cases (best of {args.repeat})",
                            ["case", "sim s", "prep s", "cycles", "simulated us", "MXU util",
                             "bound", "% roofline", "max err"], rows))
        lines.append(summary("bench", rows))
    if args.corpus:
        rows = corpus_rows(args.corpus, args.chip, wanted, args.repeat)
        console.print(table(f"simulated TPU {args.chip}: corpus module.hlo (best of "
                            f"{args.repeat})", ["case", "sim s", "prep s", "cycles"], rows))
        lines.append(summary("corpus", rows))
    for line in lines:
        console.print(line)


if __name__ == "__main__":
    main()
