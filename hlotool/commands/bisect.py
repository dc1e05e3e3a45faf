"""`hlotool bisect FILE`: find the first pass after which the module stops verifying,
stops running, or computes different numbers; write a reproducer.

For a dump folder (no --stage), XLA's own after-optimizations module of the same module
is first run against the before module on the interpreter (the snapshot's inputs when the
dump has one), and the comparison printed; then hlotool's pipeline is bisected as for a file.

Exit status: 0 no bad pass found, 1 found (and the reproducer written), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hlotool.commands.common import (EXIT_MISMATCH, EXIT_OK, add_input, add_timeout, load,
                                     stage_file)

if TYPE_CHECKING:
    from hlotool.ir.module import Module
from hlotool.safe_io import check_output

HELP = "find the first pass that breaks the module (verifier or numerics); write a reproducer"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    add_timeout(p, "the bisection")
    p.add_argument("--pipeline", help="a named pipeline: default, cpu, gpu, tpu (default: default)")
    p.add_argument("--passes", help="bisect these passes instead: a,b{option=value},c")
    p.add_argument("--rtol", type=float, default=None)
    p.add_argument("--atol", type=float, default=None)
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("-o", "--output", default="reproducer.hlo",
                   help="where to write the reproducer (default: reproducer.hlo)")


def run(args: argparse.Namespace) -> int:
    from hlotool import values_io
    from hlotool.bisect import bisect, expand, write_reproducer
    from hlotool.commands.opt import resolve

    check_output(args.output, stdout_ok=False)
    module = load(args)
    pipeline = resolve(args.pipeline, args.passes)
    if args.file != "-" and Path(args.file).is_dir() and args.stage is None:
        compare_xla(args, module)
    passes = expand(pipeline, module)
    result = bisect(module, passes, rtol=args.rtol, atol=args.atol, seed=args.seed)
    if result.note:
        print(f"hlotool: note: {result.note}; checked the verifier only", file=sys.stderr)
    if not result.found:
        checked = ("the verifier" if result.note else
                   f"the verifier and numerics against the unoptimized module on 1 seeded "
                   f"input set (--seed {args.seed}), {values_io.tolerance_text(args.rtol, args.atol)}")
        print(f"no bad pass among {result.total} passes (checked {checked}; "
              f"{result.checks} bisection checks)")
        return EXIT_OK
    print(result.summary)
    path = write_reproducer(result, args.output)
    print(f"reproducer: {path}")
    return EXIT_MISMATCH



def compare_xla(args: argparse.Namespace, before: Module) -> bool | None:
    """Run the dump's after-optimizations module against `before` and print how they
    compare; whether they agree (None when the dump has no after module or it cannot run)."""
    from hlotool import values_io
    from hlotool.bisect import run_module
    from hlotool.report import print_comparison

    path = stage_file(args, args.file, "after")
    if path is None:
        print("XLA's after-optimizations module: none in the dump; bisecting only")
        return None
    after = load(args, verify=False, path=path)
    try:
        inputs, where = _inputs(args, before)
        want = run_module(before, inputs)
        got = run_module(after, inputs)
    except Exception as exc:
        print(f"XLA's after-optimizations module: not compared (the interpreter cannot run "
              f"the pair: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
              "bisecting only")
        return None
    diffs = values_io.compare_outputs(got, want, args.rtol, args.atol)
    ok = all(d.ok for d in diffs)
    verdict = "agrees with" if ok else "DISAGREES with"
    print(f"XLA's after-optimizations module ({Path(path).name}) {verdict} the before module "
          f"on {where}, {values_io.tolerance_text(args.rtol, args.atol)}")
    print_comparison([d.as_json() for d in diffs], "the before module")
    if not ok:
        print("XLA's own optimized module computes different numbers (not a hlotool pass); "
              "bisecting hlotool's pipeline on the before module:")
    return ok


def _inputs(args: argparse.Namespace, module: Module) -> tuple[list[Any], str]:
    """The dump's snapshot arguments when it has a snapshot, else seeded random inputs."""
    from hlotool import values_io
    from hlotool.commands.common import Source

    snapshot = stage_file(args, args.file, "snapshot")
    if snapshot is not None:
        src = Source(snapshot)
        src.read_proto()
        if src.arguments is not None:
            return (values_io.entry_arguments(module, src.arguments),
                    f"the inputs of {Path(snapshot).name}")
    return values_io.random_arguments(module, args.seed), f"seeded inputs (--seed {args.seed})"
