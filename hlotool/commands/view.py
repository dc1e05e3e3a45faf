"""`hlotool view FILE`: write the module as a self-contained interactive page (pan, zoom,
search, expand fusions and loops in place, cost and bytes per op; with --diff-from, the
diff colours) and say where it is."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from hlotool.commands.common import EXIT_OK, UsageError, add_input, load

HELP = "write an interactive HTML page of the module (no network needed) and say where"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("-o", "--output", metavar="OUT.html",
                   help="where to write the page (default: FILE with .html)")
    p.add_argument("--after-pipeline", metavar="NAME",
                   help="run this pass pipeline first (the page shows the result)")
    p.add_argument("--diff-from", metavar="A",
                   help="colour each op by what happened to it since module A "
                        "(added, fused into, changed, unchanged)")


def run(args: argparse.Namespace) -> int:
    module = load(args)
    before = load(args, path=args.diff_from) if args.diff_from else None
    if args.after_pipeline:
        from hlotool.commands.opt import apply_passes

        if before is None:
            from hlotool.ir.structure import clone_module

            before = clone_module(module)
        apply_passes(module, args.after_pipeline, None)
    output = args.output or _default_output(args.file)
    write_page(module, output, before)
    print(f"wrote {Path(output).resolve()}: {module.instruction_count} instructions; "
          "open it in a browser")
    return EXIT_OK


def _default_output(source: str) -> str:
    if source == "-":
        raise UsageError("reading standard input: name the page with -o OUT.html")
    return str(Path(source).with_suffix(".html"))


def write_page(module: object, output: str, before: object = None) -> None:
    """Write the page atomically (a temp file in the same directory, then a rename)."""
    from hlotool.graph.page import build_page

    html = build_page(module, diff_from=before)  # type: ignore[arg-type]
    target = Path(output)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
