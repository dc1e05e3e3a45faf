"""`hlotool parse FILE`: parse and verify; print a one-line summary (or JSON)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from hlotool.commands.common import EXIT_OK, add_input, load

if TYPE_CHECKING:
    from hlotool.ir.module import Module

HELP = "parse and verify a module; print a one-line summary"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    module = load(args)
    summary = summarize(module)
    if args.format == "json":
        print(json.dumps(summary, indent=1))
    else:
        entry = summary["entry"]
        print(f"{summary['name']}: {summary['computations']} computations, "
              f"{summary['instructions']} instructions; entry {entry['name']} "
              f"({', '.join(entry['parameters'])}) -> {entry['result']}")
    return EXIT_OK


def summarize(module: Module) -> dict[str, Any]:
    """Name, sizes, entry signature and opcode histogram of a module."""
    from collections import Counter

    from hlotool.ir.types import shape_to_text

    entry = module.entry
    ops = Counter(i.opcode.value for c in module.computations for i in c.instructions)
    return {
        "name": module.name,
        "computations": len(module.computations),
        "instructions": module.instruction_count,
        "entry": {
            "name": entry.name,
            "parameters": [shape_to_text(p.shape) for p in entry.parameters],
            "result": shape_to_text(entry.root_shape),
        },
        "opcodes": dict(sorted(ops.items())),
    }
