"""Kernels per corpus case: our `cpu` pipeline against XLA:CPU's own optimized module.

A kernel is a top-level fusion or an unfused compute instruction of the entry or of a
loop or branch it runs (`hlotool.analysis.cost.count_kernels`). Goals: no case with
more kernels than XLA, and the total fusion count within 25% of XLA's.

    python bench/fusion_table.py [--pipeline cpu] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from hlotool.analysis.cost import KernelCount, count_kernels
from hlotool.frontend import parse_hlo
from hlotool.passes.pipelines import get_pipeline

CORPUS = Path(__file__).parents[1] / "tests" / "data" / "corpus"


@dataclass(frozen=True)
class Result:
    """One corpus case: XLA's counts, ours, and how long our pipeline took."""

    case: str
    xla: KernelCount
    ours: KernelCount
    seconds: float


def measure(case: Path, pipeline: str) -> Result:
    xla = count_kernels(parse_hlo((case / "module.opt.hlo").read_text()))
    module = parse_hlo((case / "module.hlo").read_text())
    start = time.perf_counter()
    get_pipeline(pipeline).run(module)
    return Result(case.name, xla, count_kernels(module), time.perf_counter() - start)


def table(results: list[Result], pipeline: str) -> Table:
    t = Table(
        title=f"kernels per case: hlotool {pipeline} pipeline vs XLA:CPU", title_justify="left"
    )
    for col in (
        "case",
        "XLA kernels",
        "our kernels",
        "XLA fusions",
        "our fusions",
        "pipeline ms",
        "",
    ):
        t.add_column(col, justify="left" if col == "case" else "right")
    for r in results:
        flag = (
            "[red]more kernels[/red]"
            if r.ours.kernels > r.xla.kernels
            else ("[green]fewer[/green]" if r.ours.kernels < r.xla.kernels else "")
        )
        t.add_row(
            r.case,
            str(r.xla.kernels),
            str(r.ours.kernels),
            str(r.xla.fusions),
            str(r.ours.fusions),
            f"{r.seconds * 1e3:.0f}",
            flag,
        )
    totals = [
        sum(getattr(getattr(r, side), field) for r in results)
        for side, field in (
            ("xla", "kernels"),
            ("ours", "kernels"),
            ("xla", "fusions"),
            ("ours", "fusions"),
        )
    ]
    t.add_section()
    t.add_row(
        "total", *map(str, totals), f"{sum(r.seconds for r in results) * 1e3:.0f}", "", style="bold"
    )
    return t


def verdict(results: list[Result]) -> list[str]:
    """The goals, each as one line saying whether it holds."""
    more = [r.case for r in results if r.ours.kernels > r.xla.kernels]
    xla_f = sum(r.xla.fusions for r in results)
    our_f = sum(r.ours.fusions for r in results)
    off = abs(our_f - xla_f) / max(1, xla_f)
    return [
        f"cases with more kernels than XLA: {len(more)} {more if more else ''}".rstrip(),
        f"total fusions {our_f} vs XLA {xla_f}: {off:.1%} apart "
        f"({'within' if off <= 0.25 else 'outside'} 25%)",
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pipeline", default="cpu")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    cases = sorted(c for c in CORPUS.iterdir() if (c / "case.json").exists())
    results = [measure(c, args.pipeline) for c in cases]
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=1))
        return 0
    console = Console(highlight=False)
    console.print(table(results, args.pipeline))
    for line in verdict(results):
        console.print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
