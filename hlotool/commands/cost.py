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
        print_collectives(analysis)
    return EXIT_OK


def print_collectives(analysis: CostAnalysis) -> None:
    """The bytes each device sends per collective, when the module has any."""
    rows = [r for r in analysis.rows if r.cost.bytes_sent]
    if not rows:
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="collectives: bytes each device sends (ring algorithms)",
                  title_justify="left")
    for column in ("instruction", "opcode", "bytes sent"):
        table.add_column(column, justify="right" if column == "bytes sent" else "left")
    for r in rows:
        table.add_row(r.name, r.opcode + (f" x{r.trips}" if r.trips > 1 else ""),
                      _n(r.cost.bytes_sent))
    table.add_section()
    table.add_row("total", "", _n(analysis.total.bytes_sent), style="bold")
    Console(highlight=False).print(table)


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

    table = Table(title=f"{name}: cost per instruction", title_justify="left")
    table.add_column("computation")
    table.add_column("instruction", style="bold")
    table.add_column("opcode")
    table.add_column("flops", justify="right")
    table.add_column("transcendentals", justify="right")
    table.add_column("bytes", justify="right")
    table.add_column("flops/byte", justify="right")
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
    t = analysis.total
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
