"""`hlotool info FILE`: what a StableHLO portable artifact or jax.export blob holds."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hlotool.commands.common import EXIT_OK, UsageError

HELP = "producer, versions, platforms and signature of a portable artifact or jax.export blob"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE",
                   help="a StableHLO portable artifact (.mlirbc) or a jax.export blob")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from hlotool.bytecode import BytecodeError, read_artifact

    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    try:
        art = read_artifact(data)
    except BytecodeError as exc:
        raise UsageError(f"{args.file}: {exc.message}") from None
    facts = describe(art, len(data))
    if args.format == "json":
        json.dump(facts, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _table(facts, args.file)
    return EXIT_OK


def describe(art: Any, size: int) -> dict[str, Any]:
    """The facts `info` shows, as plain data."""
    from hlotool.bytecode import version_text
    from hlotool.bytecode.to_stablehlo import type_text

    m = art.module
    facts: dict[str, Any] = {
        "kind": "jax.export" if art.exported else "portable artifact",
        "bytes": size,
        "producer": m.producer,
        "stablehlo_version": version_text(art.version) if art.version else None,
        "bytecode_version": m.version,
    }
    funcs = [op for b in (m.ops[0].regions[0].blocks if m.ops and m.ops[0].regions else [])
             for op in b.ops if op.name == "vhlo.func_v1"]
    sig = []
    for f in funcs:
        ftype = f.attrs["function_type"].args[0]
        sig.append({"function": f.attrs["sym_name"].args[0],
                    "visibility": f.attrs["sym_visibility"].args[0] or "public",
                    "inputs": [type_text(t) for t in ftype.args[0]],
                    "results": [type_text(t) for t in ftype.args[1]]})
    facts["functions"] = sig
    facts["ops"] = dict(sorted(art.ops.items()))
    e = art.exported
    if e is not None:
        facts.update({
            "function_name": e.function_name,
            "serialization_version": e.serialization_version,
            "calling_convention_version": e.calling_convention_version,
            "platforms": list(e.platforms),
            "in_avals": [str(a) for a in e.in_avals],
            "out_avals": [str(a) for a in e.out_avals],
            "shape_symbols": sorted({d for a in (*e.in_avals, *e.out_avals) for d in a.shape
                                     if not d.lstrip("-").isdigit()}),
            "ordered_effects": list(e.ordered_effects),
            "unordered_effects": list(e.unordered_effects),
            "nr_devices": e.nr_devices,
            "in_shardings": ["replicated" if i == 0 else f"named #{i}" for i in e.in_shardings],
            "out_shardings": ["replicated" if i == 0 else f"named #{i}" for i in e.out_shardings],
            "module_kept_var_idx": list(e.module_kept_var_idx),
            "disabled_checks": list(e.disabled_checks),
        })
    return facts


def _table(facts: dict[str, Any], name: str) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    t = Table(title=name, show_header=False)
    t.add_column("field", style="bold")
    t.add_column("value")
    for key, value in facts.items():
        if key in ("functions", "ops"):
            continue
        if isinstance(value, list):
            value = ", ".join(map(str, value)) or "(none)"
        t.add_row(key.replace("_", " "), escape(str(value)))
    console.print(t)
    s = Table(title="signature")
    for col in ("function", "visibility", "inputs", "results"):
        s.add_column(col)
    for f in facts["functions"]:
        s.add_row(escape(f["function"]), f["visibility"], escape(", ".join(f["inputs"])),
                  escape(", ".join(f["results"])))
    console.print(s)
    ops = Table(title="ops")
    ops.add_column("op")
    ops.add_column("count", justify="right")
    for op, n in facts["ops"].items():
        ops.add_row(op, str(n))
    console.print(ops)
