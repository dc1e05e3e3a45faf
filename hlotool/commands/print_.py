"""`hlotool print FILE [--format hlo|stablehlo|artifact]`: canonical text (a fixed point), or
a StableHLO portable artifact at a target version."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from hlotool.commands.common import EXIT_OK, UsageError, add_input, load, write_text
from hlotool.safe_io import check_output

if TYPE_CHECKING:
    from hlotool.ir.module import Module

HELP = "print a module in canonical text"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("--format", choices=("hlo", "stablehlo", "artifact"),
                   help="output language (default: the input's); artifact: a StableHLO "
                   "portable artifact (VHLO bytecode, needs -o)")
    p.add_argument("--target-version", metavar="X.Y.Z",
                   help="--format artifact: the StableHLO version to write (default: the "
                   "input artifact's, else the newest hlotool writes)")
    p.add_argument("-o", "--output", help="write here instead of standard output")


def run(args: argparse.Namespace) -> int:
    check_output(args.output)
    module = load(args)
    fmt = args.format or ("stablehlo" if _input_is_stablehlo(args) else "hlo")
    if fmt == "artifact":
        return _write_artifact(args, module)
    if args.target_version:
        raise UsageError("--target-version goes with --format artifact")
    if fmt == "stablehlo":
        try:
            from hlotool.stablehlo.printer import print_stablehlo
        except ImportError:
            raise UsageError("printing as StableHLO is not supported yet") from None
        text = print_stablehlo(module)
    else:
        from hlotool.ir.printer import print_module

        text = print_module(module)
    write_text(args.output, text)
    return EXIT_OK


def _write_artifact(args: argparse.Namespace, module: Module) -> int:
    """StableHLO text (the input's own, or the module printed) -> VHLO bytecode."""
    from hlotool.bytecode import (MAX_VERSION, MIN_VERSION, parse_version, read_artifact,
                                  version_text)
    from hlotool.bytecode.from_stablehlo import from_stablehlo
    from hlotool.bytecode.writer import write_bytecode
    from hlotool.safe_io import atomic_write

    if not args.output or args.output == "-":
        raise UsageError("--format artifact writes binary bytecode: name the file with -o")
    src = args._source
    target = MAX_VERSION
    if args.target_version:
        try:
            target = parse_version(args.target_version)
        except ValueError as exc:
            raise UsageError(f"--target-version: {exc}") from None
    elif src.artifact:
        from pathlib import Path

        found = read_artifact(Path(src.name).read_bytes()).version
        target = found or target
    if not MIN_VERSION <= target <= MAX_VERSION:
        raise UsageError(f"--target-version {version_text(target)} is outside the versions "
                         f"hlotool writes ({version_text(MIN_VERSION)} to "
                         f"{version_text(MAX_VERSION)})")
    if _input_is_stablehlo(args):
        text = src.text
        data = write_bytecode(from_stablehlo(text, target))
    else:
        from hlotool.diagnostics import HloError
        from hlotool.stablehlo.printer import print_stablehlo

        try:
            data = write_bytecode(from_stablehlo(print_stablehlo(module), target))
        except HloError as exc:  # positioned in the printed text, not in the input
            raise UsageError(f"cannot write {src.name} as an artifact: {exc.message}") from None
    atomic_write(args.output, data)
    return EXIT_OK


def _input_is_stablehlo(args: argparse.Namespace) -> bool:
    from hlotool.frontend import is_stablehlo_text

    if args.input_format:
        return bool(args.input_format == "stablehlo")
    src = args._source
    return is_stablehlo_text(src.text, src.name if src.name != "<stdin>" else "")
