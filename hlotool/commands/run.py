"""`hlotool run FILE`: run the entry computation on a target, compare, summarize."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hlotool.commands.common import EXIT_MISMATCH, EXIT_OK, UsageError, add_input, load

if TYPE_CHECKING:
    from hlotool.ir.module import Module

HELP = "run the entry computation on a target"
TARGETS = ("interp", "cpu", "gpu", "tpu")
#: The pass pipeline each compiling target runs before code generation.
TARGET_PIPELINES = {"cpu": "cpu"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("--target", default="cpu", choices=TARGETS)
    p.add_argument("--inputs", help="npz with arg0, arg1, ... (default: random with --seed)")
    p.add_argument("--output", help="write out0, out1, ... to this npz")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--expect", help="npz of expected outputs; exit 1 when they differ")
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument("--reference", choices=("xla",), help="also run on XLA:CPU (needs jax) and compare")
    p.add_argument("--pipeline", help="run this pass pipeline before executing")
    p.add_argument("--passes", help="run these passes (a,b{opt=v},c) before executing")
    p.add_argument("--autotune", action=argparse.BooleanOptionalAction, default=None,
                   help="cpu: time kernel variants on first compile and cache the winners "
                        "(default on; HLOTOOL_AUTOTUNE=0 disables)")
    p.add_argument("--autotune-budget", type=float, default=None, metavar="SECONDS",
                   help="cpu: tuning time per module (default 2)")
    p.add_argument("--bench", type=int, default=0, metavar="N",
                   help="after compiling and one warm-up run, run N times and report timing")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from hlotool import values_io

    module = load(args)
    target = resolve_target(args.target)
    if args.inputs:
        inputs = values_io.entry_arguments(module, values_io.load_npz(args.inputs))
    else:
        inputs = values_io.random_arguments(module, args.seed)
    module = _specialize_dynamic(module, args, inputs)
    if args.pipeline or args.passes:
        from hlotool.commands.opt import apply_passes

        apply_passes(module, args.pipeline, args.passes)
    if target in TARGET_PIPELINES and args.pipeline != target:
        from hlotool.commands.opt import apply_passes

        # A compiling target always runs its own pipeline (cli.md), after any asked for.
        apply_passes(module, TARGET_PIPELINES[target], None, verify_each=False,
                     progress=sys.stderr.isatty())
    if args.bench < 0:
        raise UsageError("--bench needs a number of runs >= 0")
    execute, compile_seconds = _compile(module, target, args)
    result = execute(inputs)
    outputs = values_io.output_arrays(result)
    if args.output:
        values_io.save_npz(args.output, outputs)
    report: dict[str, Any] = {"target": target, "pipeline": TARGET_PIPELINES.get(target)}
    if args.bench:
        report.update(compile_seconds=compile_seconds,
                      **bench(execute, inputs, args.bench, quiet=args.format == "json"))
    status = EXIT_OK
    if args.expect:
        want = values_io.load_npz(args.expect)
        diffs = values_io.compare_outputs(outputs, want, args.rtol, args.atol)
        report["comparison"] = [d.as_json() for d in diffs]
        report["ok"] = all(d.ok for d in diffs)
        if not report["ok"]:
            status = EXIT_MISMATCH
    if args.reference == "xla":
        from hlotool.reference import run_xla

        ref = values_io.output_arrays(run_xla(args._source.text, inputs, args._source.name))
        diffs = values_io.compare_outputs(outputs, ref, args.rtol, args.atol)
        report["reference"] = [d.as_json() for d in diffs]
        if not all(d.ok for d in diffs):
            status = EXIT_MISMATCH
    if args.format == "json":
        report["outputs"] = {k: array_summary(v) for k, v in outputs.items()}
        print(json.dumps(report, default=str))
    else:
        from hlotool.report import print_comparison, print_outputs

        if not args.output:
            print_outputs(outputs)
        for key in ("comparison", "reference"):
            if key in report:
                print_comparison(report[key], "expected" if key == "comparison" else "XLA:CPU")
        if args.bench:
            from hlotool.report import print_timing

            print_timing(report)
    return status


def _compile(module: Module, target: str,
             args: argparse.Namespace) -> tuple[Callable[[list[Any]], Any], float]:
    """Compile `module` for `target` (a status line on a terminal while it runs); returns
    the function running it and the seconds compiling took (imports not counted)."""
    if target == "cpu":
        from rich.console import Console

        from hlotool.targets.cpu import compile_module

        console = Console(stderr=True)
        with console.status(f"compiling {module.name} for the host CPU"):
            started = time.perf_counter()
            ex = compile_module(module, autotune=args.autotune,
                                autotune_budget=args.autotune_budget)
            return ex.run, time.perf_counter() - started
    import numpy as np

    from hlotool.interpreter.core import Evaluator

    started = time.perf_counter()
    evaluator = Evaluator(module)

    def interpret(inputs: list[Any]) -> Any:
        with np.errstate(all="ignore"):
            return evaluator.run(inputs)

    return interpret, time.perf_counter() - started


def bench(execute: Callable[[list[Any]], Any], inputs: list[Any], runs: int, *,
          quiet: bool = False) -> dict[str, Any]:
    """Time `runs` runs after the warm-up (a progress bar on a terminal unless quiet)."""
    import statistics

    from rich.progress import Progress

    times: list[float] = []
    with Progress(transient=True, disable=quiet) as progress:
        task = progress.add_task("benchmark", total=runs)
        for _ in range(runs):
            t = time.perf_counter()
            execute(inputs)
            times.append(time.perf_counter() - t)
            progress.advance(task)
    return {"runs": runs, "run_seconds_median": statistics.median(times),
            "run_seconds_min": min(times), "run_seconds_mean": statistics.fmean(times),
            "run_seconds_max": max(times)}


def _specialize_dynamic(module: Module, args: argparse.Namespace, inputs: list[Any]) -> Module:
    """A shape-polymorphic StableHLO module, lowered again with the inputs' shapes."""
    from hlotool.frontend import is_stablehlo_text

    src = args._source
    if not is_stablehlo_text(src.text, src.name if src.name != "<stdin>" else ""):
        return module
    from hlotool.frontend.stablehlo import is_dynamic, specialize_for_values

    return specialize_for_values(src.text, inputs) if is_dynamic(module) else module


def resolve_target(target: str) -> str:
    """The target that will run (gpu and tpu come with later work)."""
    if target in ("interp", "cpu"):
        return target
    raise UsageError(f"target {target} is not available yet (available: interp, cpu)")


def array_summary(a: Any) -> dict[str, Any]:
    """Shape, dtype and min/max/mean of an output (JSON-friendly)."""
    import numpy as np

    a = np.asarray(a)
    out: dict[str, Any] = {"shape": list(a.shape), "dtype": str(a.dtype)}
    numeric = a.dtype.kind in "biuf" or type(a.dtype).__module__.startswith("ml_dtypes")
    if a.size and numeric:
        f = a.astype(np.float64)
        with np.errstate(all="ignore"):
            out.update(min=float(np.nanmin(f)), max=float(np.nanmax(f)), mean=float(np.nanmean(f)))
    return out
