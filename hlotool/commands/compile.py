"""`hlotool compile FILE --target cpu --emit llvm|asm`: show the generated code, the
code `hlotool run` runs (after the target's pass pipeline, as run does).

The tunable kernels' parameters (transpose tile, row-reduction jam, dot variant) head the
output as comments, with the autotuner's timings when it ran (on by default; the choices
of an earlier compile are read from the disk cache without timing again)."""

from __future__ import annotations

import argparse
import sys

from hlotool.commands.common import (
    EXIT_OK,
    UsageError,
    add_input,
    add_timeout,
    load,
    status,
    write_text,
)
from hlotool.safe_io import check_output

HELP = "compile for a target and print the generated LLVM IR or assembly"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    add_timeout(p, "compilation")
    p.add_argument("--target", default="cpu", choices=("cpu", "gpu", "tpu"))
    p.add_argument("--emit", choices=("llvm", "asm", "ptx", "cubin", "tpu"),
                   help="optimised LLVM IR (cpu's and gpu's default), host assembly (cpu), "
                        "PTX or a cubin (gpu), or the TPU program (tpu's default and only choice)")
    p.add_argument("--arch", default="sm_90", choices=("sm_80", "sm_90"),
                   help="gpu: the architecture to compile for")
    p.add_argument("-o", "--output", help="write here instead of standard output")
    p.add_argument("--timings", action="store_true", help="print compile time per stage to stderr")
    p.add_argument("--autotune", action=argparse.BooleanOptionalAction, default=None,
                   help="time kernel variants and keep the fastest (default: on unless "
                        "HLOTOOL_AUTOTUNE=0)")
    p.add_argument("--autotune-budget", type=float, default=None, metavar="SECONDS",
                   help="tuning time per module (default 2, or HLOTOOL_AUTOTUNE_BUDGET)")
    from hlotool.commands.tpu_options import add_chip_arguments

    add_chip_arguments(p)


def parameter_comments(ex, prefix: str) -> list[str]:  # noqa: ANN001 - a CpuExecutable
    """One comment line per tunable kernel: its parameters and how they were chosen."""
    lines = []
    # kernels are named k<number>_<instruction>: in the order of their numbers
    by_number = sorted(ex.kernel_params.items(), key=lambda kv: int(kv[0][1:].split("_")[0]))
    for kernel, params in by_number:
        choice = ex.tuning.get(kernel)
        if choice is None:
            how = "default, not tuned"
        else:
            tried = " ".join(f"{k}:{v:.3g}" for k, v in choice.tried.items())
            how = f"autotuned on {choice.instruction} {choice.shape}; tried {tried} ms"
        symbol = ex.symbols.get(kernel, kernel)
        lines.append(f"{prefix} kernel {kernel} ({symbol}): {params} ({how})")
    return lines


def run(args: argparse.Namespace) -> int:
    args.emit = args.emit or ("tpu" if args.target == "tpu" else "llvm")
    if args.target == "tpu" or args.emit == "tpu":
        if args.target != "tpu" or args.emit != "tpu":
            raise UsageError("--emit tpu goes with --target tpu (and only it)")
        from hlotool.targets.tpu.cli import compile_command

        write_text(args.output, compile_command(load(args), args))
        return EXIT_OK
    if args.target == "gpu":
        from hlotool.commands.compile_gpu import run_compile

        return run_compile(args)
    if args.emit in ("ptx", "cubin"):
        raise UsageError(f"--emit {args.emit} needs --target gpu")
    from hlotool.pipeline_cache import optimize
    from hlotool.targets.cpu import compile_module

    check_output(args.output)
    # The code `hlotool run` runs: the cpu pipeline (fusion, layout) first, as run does.
    module = optimize(load(args), "cpu", progress=sys.stderr.isatty(),
                      source=args._source.identity).module
    with status(f"compiling {module.name} for the host CPU"):
        # keep_asm: generate the code again even on a disk-cache hit (the cache keeps
        # object code and the tuning choices, not the IR or assembly shown here).
        ex = compile_module(module, keep_asm=True, autotune=args.autotune,
                            autotune_budget=args.autotune_budget)
    if ex.library is None:
        raise UsageError(f"nothing in {module.name} compiles natively for {args.target} yet")
    prefix = "#" if args.emit == "asm" else ";"
    header = parameter_comments(ex, prefix)
    body = ex.library.asm if args.emit == "asm" else ex.library.llvm_ir
    write_text(args.output, "\n".join([*header, body]) if header else body)
    if args.timings:
        for stage, seconds in ex.library.timings.stages.items():
            print(f"{stage:>10}: {seconds * 1000:8.1f} ms", file=sys.stderr)
    native = len(ex.thunks)
    distinct = len(set(ex.symbols.values()))
    print(f"hlotool: {native} kernels ({distinct} distinct functions); "
          f"{len(ex.skipped)} instructions left to the interpreter",
          file=sys.stderr)
    return EXIT_OK
