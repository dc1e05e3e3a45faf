"""`hlotool ls DIR`: the modules of an --xla_dump_to folder (JAX, TensorFlow, PyTorch/XLA)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from hlotool.commands.common import EXIT_OK, UsageError

if TYPE_CHECKING:
    from hlotool.dumps import DumpFile

HELP = "list the modules of an XLA dump folder (--xla_dump_to)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", metavar="DIR", help="a folder written by XLA_FLAGS=--xla_dump_to=DIR")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from hlotool.dumps import scan

    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"{args.folder} is not a folder (hlotool ls lists an --xla_dump_to DIR)")
    from rich.progress import track

    files = scan(folder)
    rows = [_row(f) for f in track(files, description="reading modules", transient=True,
                                     disable=args.format == "json" or len(files) < 8)]
    if args.format == "json":
        print(json.dumps(rows))
        return EXIT_OK
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{folder}: {len({(r['id'], r['name']) for r in rows})} modules")
    for col in ("id", "module", "stage", "instructions", "file"):
        table.add_column(col, justify="right" if col == "instructions" else "left")
    for r in rows:
        count = "" if r["instructions"] is None else str(r["instructions"])
        table.add_row(r["id"], r["name"], r["stage"], count, r["file"])
    Console().print(table)
    return EXIT_OK


def _row(f: DumpFile) -> dict[str, object]:
    """One file's line: its instruction count when it parses (None otherwise)."""
    from hlotool.diagnostics import HloError
    from hlotool.frontend import parse_text

    count = None
    try:
        if f.is_proto:
            from hlotool.hloproto.reader import read

            text = read(f.path.read_bytes(), str(f.path)).text
        else:
            text = f.path.read_text(errors="replace")
        count = parse_text(text).instruction_count
    except HloError:
        count = None
    return {"id": f.id, "name": f.name, "stage": f.stage, "instructions": count,
            "file": f.path.name}
