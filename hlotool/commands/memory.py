"""`hlotool memory FILE [-o chart.svg]`: buffer lifetimes and peak memory after buffer
assignment, over the module's schedule (its instruction order)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from hlotool.commands.common import EXIT_OK, add_input, load
from hlotool.safe_io import atomic_write, check_output

if TYPE_CHECKING:
    from hlotool.passes.buffer_assignment import BufferAssignment

HELP = "buffer lifetimes and peak memory after buffer assignment (-o chart.svg draws them)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--pipeline", help="optimize with this pipeline first (cpu schedules and assigns)"
    )
    which.add_argument("--passes", help="run these passes first: a,b{option=value},c")
    p.add_argument("-o", "--output", help="write the lifetime chart as SVG here")
    p.add_argument("--top", type=int, default=20, help="buffers to list, largest first (0: all)")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from hlotool.analysis.memory import summary, svg_chart
    from hlotool.passes.buffer_assignment import assign_buffers

    check_output(args.output, stdout_ok=False)
    module = load(args)
    if args.pipeline or args.passes:
        from hlotool.commands.opt import apply_passes

        apply_passes(module, args.pipeline, args.passes)
    assignment = assign_buffers(module)
    assignment.check()
    if args.output:
        atomic_write(args.output, svg_chart(assignment))
    if args.format == "json":
        print(json.dumps(summary(assignment), indent=1))
    else:
        print_report(assignment, args.top)
    return EXIT_OK


def print_report(a: BufferAssignment, top: int) -> None:
    """Totals, what is live at the peak, and the largest buffers."""
    from rich.console import Console
    from rich.table import Table

    from hlotool.analysis.memory import human_bytes, live_at
    from hlotool.passes.buffer_assignment import KINDS

    console = Console(highlight=False)
    totals = Table(title=f"{a.module.name}: memory", title_justify="left", show_header=False)
    totals.add_column("what", style="bold")
    totals.add_column("bytes", justify="right")
    totals.add_column("")
    totals.add_row("temp arena (peak)", f"{a.peak_bytes:,}", human_bytes(a.peak_bytes))
    peak_name = a.timeline.order[a.peak_time].name if a.timeline.order else "-"
    totals.add_row(
        "most live at once", f"{a.lower_bound_bytes:,}", f"at step {a.peak_time} ({peak_name})"
    )
    borrowed = [b for b in a.of_kind("temp") if b.home >= 0]
    if borrowed:
        totals.add_row(
            "temps in output buffers",
            f"{sum(b.size for b in borrowed):,}",
            f"{len(borrowed)} buffers, before the outputs are written",
        )
    for kind in KINDS[1:]:
        totals.add_row(f"{kind}s", f"{a.bytes_of(kind):,}", f"{len(a.of_kind(kind))} buffers")
    totals.add_row(
        "schedule",
        f"{len(a.timeline.order):,} steps",
        "scheduled" if a.module.config.is_scheduled else "instruction order (not scheduled)",
    )
    console.print(totals)
    live = Table(title=f"live at step {a.peak_time}", title_justify="left")
    for col in ("buffer", "size", "offset", "live"):
        live.add_column(col, justify="left" if col == "buffer" else "right")
    for b in live_at(a, a.peak_time)[: top or None]:
        live.add_row(b.name, human_bytes(b.size), f"{b.offset:,}", f"{b.start}-{b.end}")
    console.print(live)
    biggest = Table(title="buffers, largest first", title_justify="left")
    for col in ("buffer", "kind", "size", "offset", "live", "shared with"):
        biggest.add_column(col, justify="right" if col in ("size", "offset", "live") else "left")
    for b in sorted(a.buffers, key=lambda b: -b.size)[: top or None]:
        others = ", ".join(i.name for i, _ in b.values[1:4]) + (" ..." if len(b.values) > 4 else "")
        kind = b.kind if b.home < 0 else f"temp in {a.buffers[b.home].name}"
        biggest.add_row(
            b.name,
            kind,
            human_bytes(b.size),
            f"{b.offset:,}" if b.kind == "temp" else "-",
            f"{b.start}-{b.end}",
            others,
        )
    console.print(biggest)
