"""The CPU target: LLVM code generation with llvmlite, run through a JIT.

Entry points for the CLI (`hlotool run --target cpu`, `hlotool compile --target cpu`):

* `compile_module(module, autotune=None) -> CpuExecutable`
* `run_module(module, args, autotune=None) -> value` (a numpy array or a tuple of values)

Autotuning (targets/cpu/autotune.py) is on unless `autotune=False` or HLOTOOL_AUTOTUNE=0.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar

from hlotool.ir.module import Module
from hlotool.targets.base import Capabilities, Target
from hlotool.targets.cpu.autotune import Choice, Log, Tuner, describe, space, stderr_log
from hlotool.targets.cpu.autotune import apply as apply_choices
from hlotool.targets.cpu.autotune import enabled as autotune_enabled
from hlotool.targets.cpu.cache import DiskCache, Entry, module_key
from hlotool.targets.cpu.codegen import (
    CompiledPlan,
    build_llvm_module,
    is_llvm,
    plan_kinds,
    plan_module,
)
from hlotool.targets.cpu.jit import CodeLibrary, Timings
from hlotool.targets.cpu.runtime import CpuExecutable


class CpuTarget(Target):
    """The host CPU through LLVM (llvmlite MCJIT)."""

    name: ClassVar[str] = "cpu"
    capabilities: ClassVar[Capabilities] = Capabilities(native=True, emits_llvm=True,
                                                        emits_asm=True, disk_cache=True)

    def __init__(self, *, keep_asm: bool = False, cache: bool | DiskCache | None = None,
                 speed_level: int = 2, autotune: bool | None = None,
                 autotune_budget: float | None = None, log: Log | None = stderr_log,
                 resident: bool = False) -> None:
        """`cache`: a DiskCache, False for none, None/True for the default directory
        (`HLOTOOL_CACHE_DIR`). Asking for LLVM IR or assembly (`keep_asm`) needs a real
        compile: the cache then only supplies the autotuner's earlier choices.
        `autotune`: time kernel variants on first compile (None: $HLOTOOL_AUTOTUNE, default
        on) within `autotune_budget` seconds per module (None: $HLOTOOL_AUTOTUNE_BUDGET,
        default 2); `log` gets one line per tuned kernel (default: standard error).
        `resident`: the code may stay loaded until the process exits (a CLI command's one
        module; `jit.CodeLibrary`), which saves ~1 ms of loading."""
        self.keep_asm = keep_asm
        self.resident = resident
        self.speed_level = speed_level
        self.autotune = autotune_enabled(autotune)
        self.autotune_budget = autotune_budget
        self.log = log
        #: The tuner of the last compile (None when nothing was timed).
        self.tuner: Tuner | None = None
        if cache is None or cache is True:
            cache = DiskCache.default()
        self.cache: DiskCache | None = cache or None

    def compile(self, module: Module) -> CpuExecutable:
        from hlotool.collector import paused

        with paused():  # thousands of kernels' IR objects: see hlotool.collector
            return self._compile(module)

    def _compile(self, module: Module) -> CpuExecutable:
        self.tuner = None
        plan = plan_module(module)
        ins_by_id = {id(i): i for c in module.computations for i in c.instructions}
        kernels = [(ins_by_id[k], p) for k, p in plan.plans.items()]
        llvm_plans = [p for p in plan.plans.values() if is_llvm(p)]
        # The kernels with variants to time, found only when asked for: a tuned cache
        # entry needs none (a dot's variants cost ~0.5 ms to enumerate).
        tunable = functools.cache(lambda: [kp for kp in kernels if space(*kp) is not None])
        if not llvm_plans and not tunable():
            return CpuExecutable(module, None, plan)
        kinds = plan_kinds(llvm_plans)  # as planned, before any tuning choice
        library = (CodeLibrary(module.name, speed_level=self.speed_level,
                               resident=self.resident) if llvm_plans else None)
        timings = library.timings if library is not None else Timings()
        key = entry = None
        if self.cache is not None:
            with timings.record("cache-key"):
                key = module_key(module, target=self.name, speed_level=self.speed_level)
                entry = self.cache.load(key)
            if entry is not None and entry.kinds != kinds:
                entry = None
        if entry is not None and (entry.tuned or not self.autotune or not tunable()):
            choices = {k: Choice.from_json(v) for k, v in entry.tuning.items()}
            apply_choices(plan.plans, choices)
            if not self.keep_asm:
                if library is not None:
                    library.load_objects(entry.objects)
                    library.cache_hit = True
                plan.symbols = entry.symbols
                return self._executable(module, library, plan, choices)
        elif self.autotune and tunable():
            self.tuner = Tuner(module.name, budget_s=self.autotune_budget, log=self.log)
            with timings.record("autotune"):
                choices = self.tuner.tune(tunable())
            apply_choices(plan.plans, choices)
        else:
            choices = {}
        tuned = self.autotune and bool(tunable()) or (entry is not None and entry.tuned)
        if library is not None:
            with library.timings.record("emit-ir"):
                units, plan.symbols = build_llvm_module(module.name, llvm_plans)
            library.add_units(units)
            library.finalize(keep_asm=self.keep_asm)
        if self.cache is not None and key is not None:
            objects = library.objects if library is not None else []
            self.cache.store(key, Entry(objects, plan.symbols,
                                        {k: c.to_json() for k, c in choices.items()}, tuned,
                                        kinds))
        return self._executable(module, library, plan, choices)

    @staticmethod
    def _executable(module: Module, library: CodeLibrary | None, plan: CompiledPlan,
                    choices: dict[str, Choice]) -> CpuExecutable:
        ex = CpuExecutable(module, library, plan)
        ex.tuning = choices
        ex.kernel_params = {p.name: d for p in plan.plans.values()
                            if (d := describe(p)) is not None}
        return ex


def load_runtime() -> float:
    """Build the libraries kernels call (the BLAS helpers, the convolution microkernels,
    the reductions' lane folds and runtime folds, the row kernels' block operations), as
    the first compile that needs them would; seconds spent (0 once built). Done once per
    process, like XLA:CPU loading its library kernels."""
    import time

    from hlotool.targets.cpu.kernels.conv import load_runtime as load
    from hlotool.targets.cpu.kernels.folds import fold_runtime
    from hlotool.ir.types import PrimitiveType
    from hlotool.targets.cpu.kernels.reduce import LANES, NARROW_SOURCES, lane_runtime
    from hlotool.targets.cpu.kernels.row_ops import row_ops_runtime

    start = time.perf_counter()
    load()
    for t in LANES:
        lane_runtime(t)
    for source in NARROW_SOURCES:
        lane_runtime(PrimitiveType.F32, source)
    fold_runtime()
    row_ops_runtime()
    return time.perf_counter() - start


def compile_module(module: Module, *, keep_asm: bool = False,
                   cache: bool | DiskCache | None = None, autotune: bool | None = None,
                   autotune_budget: float | None = None,
                   log: Log | None = stderr_log, resident: bool = False) -> CpuExecutable:
    """Compile `module` for the host CPU (through the disk cache unless cache=False).

    `autotune`: time variants of the transpose, row-reduction and dot kernels on first
    compile and keep the fastest (None: $HLOTOOL_AUTOTUNE, default on; the choice is
    cached with the code); `autotune_budget`: seconds per module (default 2).
    `resident`: the code may stay loaded until the process exits (see CpuTarget)."""
    return CpuTarget(keep_asm=keep_asm, cache=cache, autotune=autotune,
                     autotune_budget=autotune_budget, log=log,
                     resident=resident).compile(module)


def run_module(module: Module, args: Sequence[Any], *, autotune: bool | None = None,
               autotune_budget: float | None = None) -> Any:
    """Compile and run `module` on `args` (numpy arrays, one per entry parameter)."""
    return compile_module(module, autotune=autotune, autotune_budget=autotune_budget).run(args)


__all__ = ["CpuExecutable", "CpuTarget", "compile_module", "load_runtime", "run_module"]
