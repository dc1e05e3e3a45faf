"""`hlotool bisect FILE`: find the first pass after which the module stops verifying,
stops running, or computes different numbers; write a reproducer.

Exit status: 0 no bad pass found, 1 found (and the reproducer written), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from hlotool.commands.common import EXIT_MISMATCH, EXIT_OK, add_input, add_timeout, load
from hlotool.safe_io import check_output

HELP = "find the first pass that breaks the module (verifier or numerics); write a reproducer"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    add_timeout(p, "the bisection")
    p.add_argument("--pipeline", help="a named pipeline: default, cpu, gpu, tpu (default: default)")
    p.add_argument("--passes", help="bisect these passes instead: a,b{option=value},c")
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("-o", "--output", default="reproducer.hlo",
                   help="where to write the reproducer (default: reproducer.hlo)")


def run(args: argparse.Namespace) -> int:
    from hlotool.bisect import bisect, expand, write_reproducer
    from hlotool.commands.opt import resolve

    check_output(args.output, stdout_ok=False)
    module = load(args)
    pipeline = resolve(args.pipeline, args.passes)
    passes = expand(pipeline, module)
    result = bisect(module, passes, rtol=args.rtol, atol=args.atol, seed=args.seed)
    if result.note:
        print(f"hlotool: note: {result.note}; checked the verifier only", file=sys.stderr)
    if not result.found:
        checked = ("the verifier" if result.note else
                   f"the verifier and numerics against the unoptimized module on 1 seeded "
                   f"input set (--seed {args.seed}), rtol={args.rtol:g} atol={args.atol:g}")
        print(f"no bad pass among {result.total} passes (checked {checked}; "
              f"{result.checks} bisection checks)")
        return EXIT_OK
    print(result.summary)
    path = write_reproducer(result, args.output)
    print(f"reproducer: {path}")
    return EXIT_MISMATCH

