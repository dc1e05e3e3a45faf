"""`hlotool cost FILE`: flops, transcendentals and bytes accessed per instruction."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hlotool.commands.common import EXIT_OK, UsageError, add_input, load

if TYPE_CHECKING:
    from hlotool.analysis.cost import Cost, CostAnalysis, Row

HELP = "per-instruction flops, transcendentals and bytes accessed (XLA's HloCostAnalysis)"
#: --sort keys: schedule order, or largest first.
SORTS = ("order", "flops", "bytes")
#: Tables longer than this are printed as plain aligned text: rich measures every cell
#: (minutes for a 16k-instruction module), and nobody reads those rows in a box.
PLAIN_ROWS = 300
COLUMNS = ("computation", "instruction", "opcode", "flops", "transcendentals", "bytes",
           "flops/byte")


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
    from hlotool.commands.tpu_options import CHIP_NAMES

    p.add_argument("--ici", metavar="CHIP", choices=[c for c in CHIP_NAMES if c != "scalesim"],
                   help="also time the collectives on this TPU chip's ICI torus "
                        f"({', '.join(c for c in CHIP_NAMES if c != 'scalesim')})")
    p.add_argument("--ici-topology", metavar="XxYxZ",
                   help="with --ici: the torus, chips per axis (default: the most balanced "
                        "one for the module's devices)")


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
    section = _ici_section(module, args)
    if args.format == "json":
        if section is None:
            print(analysis.to_json())
        else:
            data = json.loads(analysis.to_json())
            data["ici"] = section
            print(json.dumps(data))
    else:
        print_table(module.name, analysis, rows)
        print_collectives(analysis)
        if section is not None:
            from hlotool.targets.tpu.ici import print_ici

            print_ici(section)
    return EXIT_OK


def _ici_section(module: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    """Every collective's time on the --ici chip's torus (targets/tpu/ici.py)."""
    if not args.ici:
        if args.ici_topology:
            raise UsageError("--ici-topology needs --ici CHIP")
        return None
    from hlotool.targets.tpu import ici
    from hlotool.targets.tpu.chips import get_chip

    overrides = {}
    if args.ici_topology:
        try:
            overrides["ici_topology"] = ici.parse_topology(args.ici_topology)
        except ValueError as exc:
            raise UsageError(f"--ici-topology: {exc}") from None
    try:
        return ici.report(module, get_chip(args.ici, **overrides))
    except ValueError as exc:
        raise UsageError(f"--ici: {exc}") from None


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
    cells = [_cells(r.computation, r.name, r.opcode + (f" x{r.trips}" if r.trips > 1 else ""),
                    r.cost) for r in rows]
    total = _cells("total", "", "", analysis.total)
    title = f"{name}: cost per instruction"
    if len(cells) > PLAIN_ROWS:
        _print_plain(title, cells, total)
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left",
                  caption="transc.: transcendental ops (exp, log, tanh, ...)",
                  caption_justify="left")
    # Names wrap (never cut); numbers keep their full width, the totals' included.
    for i, column in enumerate(COLUMNS):
        if i < 3:
            table.add_column(column, overflow="fold", style="bold" if i == 1 else None)
        else:
            width = max(len(column), len(total[i]), *(len(r[i]) for r in cells))
            table.add_column(column, justify="right", no_wrap=True, min_width=width)
    for row in cells:
        table.add_row(*row)
    table.add_section()
    table.add_row(*total, style="bold")
    Console(highlight=False).print(table)


def _cells(computation: str, name: str, opcode: str, c: Cost) -> list[str]:
    intensity = f"{c.flops / c.bytes_accessed:.2f}" if c.bytes_accessed else "-"
    return [computation, name, opcode, _n(c.flops), _n(c.transcendentals),
            _n(c.bytes_accessed), intensity]


def _print_plain(title: str, cells: list[list[str]], total: list[str]) -> None:
    """The table as aligned columns (text columns left, numbers right)."""
    widths = [max(len(COLUMNS[i]), len(total[i]), *(len(r[i]) for r in cells))
              for i in range(len(COLUMNS))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if i >= 3 else v.ljust(w)
                         for i, (v, w) in enumerate(zip(row, widths, strict=True))).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [title, line(COLUMNS), rule, *(line(r) for r in cells), rule, line(total)]
    sys.stdout.write("\n".join(out) + "\n")


def _n(x: float) -> str:
    return f"{x:,.0f}"
