"""`hlotool debug FILE`: step through a pass pipeline in a terminal UI."""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from hlotool.commands.common import EXIT_OK, UsageError, add_input, load, stage_file

if TYPE_CHECKING:
    from hlotool.ir.module import Module

HELP = "step through a pass pipeline: diffs, IR, graph, undo/redo, numerics, bisect"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--pipeline", help="a named pipeline: default, cpu, gpu, tpu (default: default)")
    which.add_argument("--passes", help="step through these passes instead: a,b{option=value},c")
    p.add_argument("--rtol", type=float, default=None)
    p.add_argument("--atol", type=float, default=None)
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--check-each", action="store_true",
                   help="run the numeric check after every step")
    p.add_argument("--export-dir", default=".",
                   help="where e (.hlo), E (every step as NNN-<pass>.hlo), g (.svg), "
                        "G (graph diff .svg) and b (reproducer) write (default: .)")


def run(args: argparse.Namespace) -> int:
    from hlotool.passes.base import PassError
    from hlotool.tui.app import DebuggerApp, DebugOptions
    from hlotool.tui.session import resolve_pipeline

    reference = _xla_after(args)
    module = load(args)  # after the reference: the UI names this module's source
    try:
        pipeline = resolve_pipeline(args.pipeline, args.passes)
    except PassError as exc:
        raise UsageError(str(exc)) from None
    export_dir = Path(args.export_dir)
    if not export_dir.is_dir():
        raise UsageError(f"--export-dir {export_dir} is not a directory")
    options = DebugOptions(source_name=args._source.name, export_dir=export_dir, rtol=args.rtol,
                           atol=args.atol, seed=args.seed, check_each=args.check_each,
                           exit_process=getattr(args, "_hard_exit", False))
    DebuggerApp(module, pipeline, options, reference).run()  # Textual cancels its workers on quit
    if getattr(args, "_hard_exit", False):
        from hlotool.interrupt import exit_now

        exit_now(EXIT_OK)  # neither a pass still running nor the teardown holds the exit
    return EXIT_OK


def _xla_after(args: argparse.Namespace) -> Module | None:
    """For a dump folder (no --stage): XLA's after-optimizations module of --module."""
    if args.file == "-" or not Path(args.file).is_dir() or args.stage is not None:
        return None
    after = stage_file(args, args.file, "after")
    return load(args, verify=False, path=after) if after else None
