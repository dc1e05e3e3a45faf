"""`hlotool cost FILE`: flops, transcendentals and bytes accessed per instruction."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from hlotool.commands.common import EXIT_OK, add_input, load

if TYPE_CHECKING:
    from hlotool.analysis.cost import CostAnalysis, Row

HELP = "per-instruction flops, transcendentals and bytes accessed (XLA's HloCostAnalysis)"
#: --sort keys: schedule order, or largest first.
SORTS = ("order", "flops", "bytes")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--pipeline", help="optimize with this pipeline first (default, cpu, gpu, tpu)"
    )
    which.add_argument("--passes", help="run these passes first: a,b{option=value},c")
    p.add_argument(
        "--sort", choices=SORTS, default="order", help="row order (default: schedule order)"
    )
    p.add_argument("--top", type=int, default=0, help="show only the first N rows")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from hlotool.analysis.cost import analyze

    module = load(args)
    if args.pipeline or args.passes:
        from hlotool.commands.opt import apply_passes

        apply_passes(module, args.pipeline, args.passes)
    analysis = analyze(module)
    rows = sorted_rows(analysis.rows, args.sort)
    if args.top > 0:
        rows = rows[: args.top]
    if args.format == "json":
        print(analysis.to_json())
    else:
        print_table(module.name, analysis, rows)
    return EXIT_OK


def sorted_rows(rows: list[Row], key: str) -> list[Row]:
    if key == "flops":
        return sorted(rows, key=lambda r: -(r.cost.flops + r.cost.transcendentals))
    if key == "bytes":
        return sorted(rows, key=lambda r: -r.cost.bytes_accessed)
    return list(rows)


def print_table(name: str, analysis: CostAnalysis, rows: list[Row]) -> None:
    """One row per instruction, then the module's totals."""
    from rich.console import Console
    from rich.table import Table

    t = analysis.total
    table = Table(title=f"{name}: cost per instruction", title_justify="left",
                  caption="transc.: transcendental ops (exp, log, tanh, ...)",
                  caption_justify="left")
    # Names wrap (never cut); numbers keep their full width, the totals' included.
    table.add_column("computation", overflow="fold")
    table.add_column("instruction", style="bold", overflow="fold")
    table.add_column("opcode", overflow="fold")
    for header, values in (("flops", [r.cost.flops for r in rows] + [t.flops]),
                           ("transc.", [r.cost.transcendentals for r in rows]
                            + [t.transcendentals]),
                           ("bytes", [r.cost.bytes_accessed for r in rows]
                            + [t.bytes_accessed])):
        width = max(len(header), *(len(_n(v)) for v in values))
        table.add_column(header, justify="right", no_wrap=True, min_width=width)
    table.add_column("flops/byte", justify="right", no_wrap=True)
    for r in rows:
        c = r.cost
        intensity = f"{c.flops / c.bytes_accessed:.2f}" if c.bytes_accessed else "-"
        label = r.opcode + (f" x{r.trips}" if r.trips > 1 else "")
        table.add_row(
            r.computation,
            r.name,
            label,
            _n(c.flops),
            _n(c.transcendentals),
            _n(c.bytes_accessed),
            intensity,
        )
    table.add_section()
    intensity = f"{t.flops / t.bytes_accessed:.2f}" if t.bytes_accessed else "-"
    table.add_row(
        "total",
        "",
        "",
        _n(t.flops),
        _n(t.transcendentals),
        _n(t.bytes_accessed),
        intensity,
        style="bold",
    )
    Console(highlight=False).print(table)


def _n(x: float) -> str:
    return f"{x:,.0f}"
