"""`hlotool run` of a module for several devices (replica_count x num_partitions > 1):
global arrays in, each device's piece cut by the parameter shardings, every device run
in one process on the interpreter, global arrays out (hlotool.spmd.run)."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import TYPE_CHECKING, Any

from hlotool.commands.common import EXIT_MISMATCH, EXIT_OK, UsageError

if TYPE_CHECKING:
    from hlotool.ir.module import Module


def device_count(module: Module, args: argparse.Namespace, before_passes: bool = False) -> int:
    """How many devices the run uses: the module's, which --devices may only restate
    (before the passes, a one-device module may still be partitioned by them)."""
    from hlotool.limits import device_count as devices_of

    cfg = module.config
    count = devices_of(module)
    asked = getattr(args, "devices", None)
    if asked is not None and asked != count and not (before_passes and count == 1):
        raise UsageError(
            f"--devices {asked}: {module.name} is written for {count} device(s) "
            f"(replica_count={cfg.replica_count} x num_partitions={cfg.num_partitions}); "
            "a module with sharding annotations is partitioned by --passes spmd-partitioner")
    return count


def partition_shard_maps(module: Module) -> bool:
    """A module with shard_map regions (before XLA's passes) has per-device code that
    only its devices can run: partition it first (the spmd pipeline), saying so.
    Returns whether it did."""
    targets = {i.attrs.get("custom_call_target") for c in module.computations
               for i in c.instructions if i.opcode.value == "custom-call"}
    if "xla.sdy.GlobalToLocalShape" not in targets:
        return False
    from hlotool.commands.opt import apply_passes

    print(f"hlotool: {module.name} has shard_map regions: partitioned by the spmd pipeline",
          file=sys.stderr)
    apply_passes(module, "spmd", None, verify_each=False)
    return True


def run_devices(module: Module, args: argparse.Namespace, target: str,
                passes_done: bool = False) -> int:
    from hlotool import values_io
    from hlotool.spmd.run import random_global_arguments, run_sharded

    if not passes_done and (args.pipeline or args.passes):
        from hlotool.commands.opt import apply_passes

        apply_passes(module, args.pipeline, args.passes)

    if target not in ("interp", "cpu", "tpu"):
        raise UsageError(f"--target {target} runs one device; {module.name} needs "
                         f"{device_count(module, args)} (use --target cpu, interp or tpu)")
    arrays = (values_io.load_npz(args.inputs) if args.inputs
              else random_global_arguments(module, args.seed))
    runner = {"cpu": _cpu_runner, "tpu": _tpu_runner}.get(target, lambda m, a: None)(
        module, args)
    if getattr(args, "distributed", None) == "mpi":
        if target == "tpu":
            raise UsageError("--distributed mpi runs --target cpu or interp")
        return _run_mpi(module, args, arrays, runner, target)
    result = run_sharded(module, arrays, runner)
    return _report(module, args, target, result, runner if target == "tpu" else None)


def _run_mpi(module: Module, args: argparse.Namespace, arrays: dict[str, Any],
             runner: Any, target: str) -> int:
    """This rank's device; rank 0 reports, and every rank exits with its status. A
    failure on any rank stops them all (MPI_Abort) instead of leaving them waiting."""
    from hlotool.spmd.mpi import run_mpi, world

    comm = world()
    try:
        result = run_mpi(module, arrays, runner)
        status = _report(module, args, target, result) if result is not None else EXIT_OK
    except Exception as exc:  # noqa: BLE001 - reported, then every rank stops
        print(f"hlotool: rank {comm.rank}: error: {exc}", file=sys.stderr, flush=True)
        comm.Abort(2)
        raise
    return int(comm.bcast(status, root=0))


def _report(module: Module, args: argparse.Namespace, target: str, result: Any,
            tpu: Any = None) -> int:
    from hlotool import values_io

    for note in result.notes:
        print(f"hlotool: {note}", file=sys.stderr)
    outputs = {f"out{i}": a for i, a in enumerate(result.outputs)}
    if args.output:
        values_io.save_npz(args.output, outputs)
    report: dict[str, Any] = {"target": target, "devices": device_count(module, args)}
    tpu_report = tpu.finish(args, report) if tpu is not None else None
    status = EXIT_OK
    if args.expect:
        diffs = values_io.compare_outputs(outputs, values_io.load_npz(args.expect),
                                          args.rtol, args.atol)
        report["comparison"] = [d.as_json() for d in diffs]
        report["ok"] = all(d.ok for d in diffs)
        status = EXIT_OK if report["ok"] else EXIT_MISMATCH
    if args.format == "json":
        from hlotool.report import array_summary

        report["outputs"] = {k: array_summary(v) for k, v in outputs.items()}
        print(json.dumps(report, default=str))
        return status
    from hlotool.report import print_comparison, print_outputs

    cfg = module.config
    print(f"hlotool: {module.name} ran on {report['devices']} devices ({cfg.replica_count} "
          f"replica(s) x {cfg.num_partitions} partition(s)) on {target}", file=sys.stderr)
    if not args.output:
        print_outputs(outputs)
    if "comparison" in report:
        print_comparison(report["comparison"], "expected")
    if tpu_report is not None:
        from hlotool.targets.tpu.ici import print_ici
        from hlotool.targets.tpu.report import print_table

        print_table(tpu_report)
        print_ici(tpu_report["ici"])
    return status


def _tpu_runner(module: Module, args: argparse.Namespace) -> Any:
    """The simulated TPU for every device (targets/tpu/cli.py)."""
    from hlotool.targets.tpu.cli import DeviceRunners

    return DeviceRunners(module, args)


def _cpu_runner(module: Module, args: argparse.Namespace) -> Any:
    """One CPU executable per device (compiled once, the others from the code cache);
    their collectives exchange through the device's context."""
    from hlotool.commands.opt import apply_passes
    from hlotool.targets.cpu import compile_module

    root = module.entry.root
    sharding = root.sharding if root is not None else None
    apply_passes(module, "cpu", None, verify_each=False)
    if module.entry.root is not None:  # fusion may have replaced the ROOT
        module.entry.root.sharding = sharding
    lock = threading.Lock()

    def make(ctx: Any) -> Any:
        with lock:
            ex = compile_module(module, autotune=False)
        ex.device = ctx
        return ex

    return make
