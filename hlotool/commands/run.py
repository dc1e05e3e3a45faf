"""`hlotool run FILE`: run the entry computation on a target, compare, summarize."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hlotool.commands.common import (
    EXIT_MISMATCH,
    EXIT_OK,
    UsageError,
    add_input,
    add_timeout,
    load,
    status,
)

if TYPE_CHECKING:
    from hlotool.ir.module import Module

HELP = "run the entry computation on a target"
TARGETS = ("interp", "cpu", "gpu", "tpu")
#: The pass pipeline each compiling target runs before code generation.
TARGET_PIPELINES = {"cpu": "cpu", "gpu": "gpu", "tpu": "tpu"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    p.add_argument("--target", default="cpu", choices=TARGETS)
    p.add_argument("--inputs", metavar="IN.npz",
                   help="entry parameters as arg0, arg1, ... (default: with --expect, the "
                        "X.inputs.npz beside X.expected.npz; else random with --seed)")
    p.add_argument("--output", metavar="OUT.npz", help="write out0, out1, ... to this npz")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random inputs used without --inputs (default: 0)")
    p.add_argument("--expect", metavar="EXP.npz",
                   help="expected outputs out0, out1, ...; exit 1 when they differ")
    p.add_argument("--rtol", type=float, default=None)
    p.add_argument("--atol", type=float, default=None)
    p.add_argument("--reference", choices=("xla",), help="also run on XLA:CPU (needs jax) and compare")
    p.add_argument("--pipeline", help="run this pass pipeline before executing")
    p.add_argument("--passes", help="run these passes (a,b{opt=v},c) before executing")
    p.add_argument("--autotune", action=argparse.BooleanOptionalAction, default=None,
                   help="cpu: time kernel variants on first compile and cache the winners "
                        "(default on; HLOTOOL_AUTOTUNE=0 disables)")
    p.add_argument("--autotune-budget", type=float, default=None, metavar="SECONDS",
                   help="cpu: tuning time per module (default 2)")
    p.add_argument("--gpu-emulate", action="store_true",
                   help="gpu: run the kernels in the CPU emulator even when a GPU is present")
    p.add_argument("--bench", type=int, default=0, metavar="N",
                   help="after compiling and one warm-up run, run N times and report timing")
    p.add_argument("--devices", type=int, default=None, metavar="N",
                   help="devices to run (default: the module's replica_count x "
                        "num_partitions); inputs and outputs are global arrays")
    p.add_argument("--distributed", choices=("mpi",), default=None,
                   help="under `mpiexec -n N`: each MPI rank runs one device (the mpi extra)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--semantics", choices=("xla-cpu", "stablehlo"), default="xla-cpu",
                   help="numerics: XLA:CPU's (default; denormals flushed) or the StableHLO "
                        "spec's (interp only)")
    p.add_argument("--max-memory", metavar="SIZE",
                   help="refuse to run a module needing more (e.g. 8G; default "
                        "HLOTOOL_MAX_MEMORY, else 80%% of physical memory)")
    add_timeout(p, "the whole run (compile included)")
    from hlotool.commands.tpu_options import add_run_arguments

    add_run_arguments(p)


def _check_memory(module: Module, max_memory: str | None) -> None:
    from hlotool.limits import check_run_memory, default_max_memory, parse_size

    try:
        limit = parse_size(max_memory) if max_memory else default_max_memory()
    except ValueError as exc:
        raise UsageError(f"--max-memory: {exc}") from None
    check_run_memory(module, limit)


def run(args: argparse.Namespace) -> int:
    from hlotool import values_io
    from hlotool.elided import refuse_elided_reads
    from hlotool.safe_io import check_output

    check_output(args.output, stdout_ok=False)
    module = load(args)
    refuse_elided_reads(module)
    _check_memory(module, args.max_memory)
    target = resolve_target(args.target)
    args.seed_given = args.seed is not None
    args.seed = 0 if args.seed is None else args.seed
    snapshot = args._source.arguments
    if not args.inputs and snapshot is None:
        args.inputs = _sibling_inputs(args, module)
    from hlotool.commands.run_devices import device_count, partition_shard_maps, run_devices

    pristine = not partition_shard_maps(module)  # nothing changed it since it was parsed
    if device_count(module, args, before_passes=True) > 1:
        return run_devices(module, args, target)
    if args.semantics == "stablehlo" and target != "interp":
        raise UsageError("--semantics stablehlo runs on the interpreter (--target interp); "
                         "the cpu target computes as XLA:CPU does")
    if args.inputs:
        inputs = values_io.entry_arguments(module, values_io.load_npz(args.inputs))
    elif snapshot is not None:
        inputs = values_io.entry_arguments(module, snapshot)
    else:
        inputs = values_io.random_arguments(module, args.seed)
    specialized = _specialize_dynamic(module, args, inputs)
    pristine = pristine and specialized is module and not (args.pipeline or args.passes)
    module = specialized
    from hlotool.limits import check_static

    check_static(module)
    if args.pipeline or args.passes:
        from hlotool.commands.opt import apply_passes

        apply_passes(module, args.pipeline, args.passes)
    if device_count(module, args) > 1:  # partitioned by the passes
        return run_devices(module, args, target, passes_done=True)
    passes_seconds, passes_cached = 0.0, False
    if target in TARGET_PIPELINES and args.pipeline != target:
        from hlotool.pipeline_cache import optimize

        # A compiling target always runs its own pipeline (cli.md), after any asked for;
        # its result is cached on disk like the compiled code.
        done = optimize(module, TARGET_PIPELINES[target], progress=sys.stderr.isatty(),
                        source=args._source.identity if pristine else None)
        module, passes_seconds, passes_cached = done.module, done.seconds, done.cached
    if args.bench < 0:
        raise UsageError("--bench needs a number of runs >= 0")
    from hlotool.semantics import using

    execute, place, compile_seconds = _compile(module, target, args)
    with using(args.semantics):
        result = execute(inputs)
    outputs = values_io.output_arrays(result)
    report: dict[str, Any] = {"target": target, "pipeline": TARGET_PIPELINES.get(target)}
    if target == "tpu":
        from hlotool.targets.tpu.cli import finish_run

        tpu_report = finish_run(execute.__self__, args, report)  # type: ignore[attr-defined]
    if args.output:
        values_io.save_npz(args.output, outputs)
    if args.bench:
        report.update(passes_seconds=passes_seconds, passes_cached=passes_cached,
                      compile_seconds=compile_seconds,
                      **bench(execute, place(inputs), args.bench, quiet=args.format == "json"))
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
        from hlotool.report import array_summary

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
        if target == "tpu":
            from hlotool.targets.tpu.report import print_table

            print_table(tpu_report)
    return status


def _sibling_inputs(args: argparse.Namespace, module: Module) -> str | None:
    """With --expect but no --inputs: the inputs file next to the expected outputs
    (X.expected.npz -> X.inputs.npz, expected.npz -> inputs.npz), said on stderr. Without
    one, random inputs would make the comparison meaningless: refuse, unless --seed was
    given (outputs saved from a seeded random run)."""
    import sys
    from pathlib import Path

    if not args.expect or not module.entry.parameters:
        return None
    expect = Path(args.expect)
    name = expect.name
    candidates: list[Path] = []
    if name.endswith(".expected.npz"):
        candidates.append(expect.with_name(name[: -len(".expected.npz")] + ".inputs.npz"))
    if name == "expected.npz" or name.endswith("expected.npz"):
        candidates.append(expect.with_name(name[: -len("expected.npz")] + "inputs.npz"))
    candidates = list(dict.fromkeys(candidates))
    for path in candidates:
        if path.exists():
            print(f"hlotool: using inputs {path} (found beside {expect}; --inputs chooses "
                  "others)", file=sys.stderr)
            return str(path)
    if args.seed_given:
        print(f"hlotool: comparing with {expect} on random inputs (--seed {args.seed})",
              file=sys.stderr)
        return None
    looked = " or ".join(str(p) for p in candidates) or "X.inputs.npz beside X.expected.npz"
    raise UsageError(f"--expect {expect} needs the inputs the expected outputs were computed "
                     f"from: pass --inputs IN.npz (found no {looked}). To compare with "
                     "outputs saved from a random run, give its --seed N")


Run = Callable[[list[Any]], Any]


def _compile(module: Module, target: str,
             args: argparse.Namespace) -> tuple[Run, Callable[[list[Any]], list[Any]], float]:
    """Compile `module` for `target` (a status line on a terminal while it runs); returns
    the function running it, the one placing inputs for many runs (the CPU target's
    aligned copies, as XLA's device buffers) and the seconds compiling took (imports
    not counted)."""
    if target == "cpu":
        from hlotool.targets.cpu import compile_module

        with status(f"compiling {module.name} for the host CPU"):
            started = time.perf_counter()
            ex = compile_module(module, autotune=args.autotune,
                                autotune_budget=args.autotune_budget, resident=True)
            return ex.run, ex.place, time.perf_counter() - started
    if target == "gpu":
        return _compile_gpu(module, args)
    if target == "tpu":
        from hlotool.targets.tpu.cli import compile_for_run

        started = time.perf_counter()
        tpu = compile_for_run(module, args)
        return tpu.run, list, time.perf_counter() - started
    import numpy as np

    from hlotool.interpreter.core import Evaluator

    started = time.perf_counter()
    evaluator = Evaluator(module)

    def interpret(inputs: list[Any]) -> Any:
        with np.errstate(all="ignore"):
            return evaluator.run(inputs)

    return interpret, list, time.perf_counter() - started


def _compile_gpu(module: Module, args: argparse.Namespace
                 ) -> tuple[Callable[[list[Any]], Any], Callable[[list[Any]], list[Any]], float]:
    """The gpu target: on the device when the driver answers, else emulated (one line
    on standard error says so)."""
    import sys

    from hlotool.targets.gpu import compile_module, driver

    emulate = bool(getattr(args, "gpu_emulate", False))
    if not emulate:
        status = driver.probe()
        if not status.ok:
            print(f"hlotool: no GPU ({status.message}); running the gpu target's kernels "
                  "in the CPU emulator", file=sys.stderr)
            emulate = True
    started = time.perf_counter()
    try:
        ex = compile_module(module, emulate=True if emulate else None)
    except driver.DriverError as exc:
        raise UsageError(f"gpu: {exc}") from None
    seconds = time.perf_counter() - started

    def execute(inputs: list[Any]) -> Any:
        try:
            return ex.run(inputs)
        except driver.DriverError as exc:
            raise UsageError(f"gpu: {exc}") from None

    return execute, list, seconds


def bench(execute: Callable[[list[Any]], Any], inputs: list[Any], runs: int, *,
          quiet: bool = False) -> dict[str, Any]:
    """Time `runs` runs on inputs placed once, after one warm-up run on them (a progress
    bar on a terminal unless quiet)."""
    import statistics

    from rich.progress import Progress

    execute(inputs)
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
    src = args._source
    if src.language != "stablehlo":
        return module
    from hlotool.stablehlo import is_dynamic, specialize_for_values

    return specialize_for_values(src.text, inputs) if is_dynamic(module) else module


def resolve_target(target: str) -> str:
    """The target that will run."""
    if target in TARGETS:
        return target
    raise UsageError(f"target {target} is not available (available: {', '.join(TARGETS)})")
