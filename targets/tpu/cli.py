"""The TPU target's hooks for `hlotool run` and `hlotool compile` (their options are in
hlotool/commands/tpu_options.py, which the CLI imports at start-up)."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any


def compile_for_run(module: Any, args: argparse.Namespace) -> Any:
    """The TpuExecutable for `hlotool run --target tpu` (the tpu pipeline already ran)."""
    from hlotool.targets.tpu import TpuTarget
    from hlotool.targets.tpu.target import set_default_precision

    set_default_precision(module, args.tpu_precision)
    return TpuTarget(chip_of(args)).compile(module)


def chip_of(args: argparse.Namespace) -> Any:
    from hlotool.commands.common import UsageError
    from hlotool.targets.tpu.chips import get_chip

    overrides = {}
    text = getattr(args, "tpu_topology", None)
    if text:
        from hlotool.targets.tpu.ici import parse_topology

        try:
            overrides["ici_topology"] = parse_topology(text)
        except ValueError as exc:
            raise UsageError(f"--tpu-topology: {exc}") from None
    try:
        return get_chip(args.tpu_chip, args.tpu_dataflow, **overrides)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None


def finish_run(executable: Any, args: argparse.Namespace,
               report: dict[str, Any], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """After a run: write the report file (with `extra` sections) and the timeline, add a
    summary to the JSON output; returns the simulator's report (for the table)."""
    import json

    from hlotool.targets.tpu.report import timeline_svg

    data = {**executable.report(), **(extra or {})}
    if args.report:
        _write_atomic(args.report, json.dumps(data, indent=1) + "\n")
    if args.timeline:
        assert executable.last is not None
        _write_atomic(args.timeline, timeline_svg(executable.last))
    if args.format == "json":
        report["tpu"] = {k: data[k] for k in ("cycles", "seconds", "mxu_utilization",
                                              "hbm_bytes", "peak_vmem_bytes")}
    return data


class DeviceRunners:
    """`hlotool run --target tpu` of a module for several devices: one program (every
    device runs the same SPMD code), one simulation per device; device 0's is reported,
    its collectives timed on the ICI torus (targets/tpu/ici.py)."""

    def __init__(self, module: Any, args: argparse.Namespace) -> None:
        from hlotool.targets.tpu import TpuTarget, prepare

        root = module.entry.root
        sharding = root.sharding if root is not None else None
        prepare(module)
        if module.entry.root is not None:  # fusion may have replaced the ROOT
            module.entry.root.sharding = sharding
        self.module = module
        self.chip = chip_of(args)
        self.compiled = TpuTarget(self.chip).compile(module)
        self.executables: dict[tuple[int, int], Any] = {}

    def __call__(self, ctx: Any) -> Any:
        from hlotool.targets.tpu.target import TpuExecutable

        ex = TpuExecutable(self.module, self.compiled.program)
        ex.device = ctx
        self.executables[(ctx.replica, ctx.partition)] = ex
        return ex

    def finish(self, args: argparse.Namespace, report: dict[str, Any]) -> dict[str, Any]:
        """Device 0's simulator report with the ICI section; written and summarised as
        for one device."""
        from hlotool.targets.tpu import ici

        first = self.executables[min(self.executables)]
        data = finish_run(first, args, report, extra={"ici": ici.report(self.module,
                                                                        self.chip)})
        if "tpu" in report:
            report["tpu"]["ici_seconds"] = data["ici"]["seconds"]
        return data


def compile_command(module: Any, args: argparse.Namespace) -> str:
    """The printed TPU program for `hlotool compile --target tpu --emit tpu`."""
    from hlotool.targets.tpu import prepare
    from hlotool.targets.tpu.compiler import compile_program
    from hlotool.targets.tpu.target import set_default_precision

    prepare(module)
    set_default_precision(module, args.tpu_precision)
    return compile_program(module, chip_of(args)).text()


def _write_atomic(path: str, text: str) -> None:
    """Write a whole file or nothing: a temporary file in the same folder, then rename."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
