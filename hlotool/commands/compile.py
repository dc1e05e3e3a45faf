"""`hlotool compile FILE --target cpu --emit llvm|asm`: show the generated code."""

from __future__ import annotations

import argparse
import sys

from hlotool.commands.common import EXIT_OK, UsageError, add_input, load, write_text

HELP = "compile for a target and print the generated LLVM IR or assembly"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("--target", default="cpu", choices=("cpu",))
    p.add_argument("--emit", default="llvm", choices=("llvm", "asm"),
                   help="optimised LLVM IR (default) or host assembly")
    p.add_argument("-o", "--output", help="write here instead of standard output")
    p.add_argument("--timings", action="store_true", help="print compile time per stage to stderr")


def run(args: argparse.Namespace) -> int:
    from hlotool.targets.cpu import compile_module

    module = load(args)
    ex = compile_module(module, keep_asm=args.emit == "asm", cache=False)
    if ex.library is None:
        raise UsageError(f"nothing in {module.name} compiles natively for {args.target} yet")
    write_text(args.output, ex.library.asm if args.emit == "asm" else ex.library.llvm_ir)
    if args.timings:
        for stage, seconds in ex.library.timings.stages.items():
            print(f"{stage:>10}: {seconds * 1000:8.1f} ms", file=sys.stderr)
    native = len(ex.thunks)
    distinct = len(set(ex.symbols.values()))
    print(f"hlotool: {native} kernels ({distinct} distinct functions); "
          f"{len(ex.skipped)} instructions left to the interpreter",
          file=sys.stderr)
    return EXIT_OK
