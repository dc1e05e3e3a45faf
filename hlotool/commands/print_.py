"""`hlotool print FILE [--format hlo|stablehlo]`: canonical text (a fixed point)."""

from __future__ import annotations

import argparse

from hlotool.commands.common import EXIT_OK, UsageError, add_input, load, write_text
from hlotool.safe_io import check_output

HELP = "print a module in canonical text"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("--format", choices=("hlo", "stablehlo"),
                   help="output language (default: the input's)")
    p.add_argument("-o", "--output", help="write here instead of standard output")


def run(args: argparse.Namespace) -> int:
    check_output(args.output)
    module = load(args)
    fmt = args.format or ("stablehlo" if _input_is_stablehlo(args) else "hlo")
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


def _input_is_stablehlo(args: argparse.Namespace) -> bool:
    from hlotool.frontend import is_stablehlo_text

    if args.input_format:
        return bool(args.input_format == "stablehlo")
    src = args._source
    return is_stablehlo_text(src.text, src.name if src.name != "<stdin>" else "")
