"""The CPU target: LLVM code generation with llvmlite, run through a JIT.

Entry points for the CLI (`hlotool run --target cpu`, `hlotool compile --target cpu`):

* `compile_module(module) -> CpuExecutable`
* `run_module(module, args) -> value` (a numpy array or a tuple of values)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hlotool.ir.module import Module
from hlotool.targets.base import Capabilities, Target
from hlotool.targets.cpu.codegen import build_llvm_module, plan_module
from hlotool.targets.cpu.jit import CodeLibrary
from hlotool.targets.cpu.runtime import CpuExecutable


class CpuTarget(Target):
    """The host CPU through LLVM (llvmlite MCJIT)."""

    name: ClassVar[str] = "cpu"
    capabilities: ClassVar[Capabilities] = Capabilities(native=True, emits_llvm=True,
                                                        emits_asm=True)

    def __init__(self, *, keep_asm: bool = False) -> None:
        self.keep_asm = keep_asm

    def compile(self, module: Module) -> CpuExecutable:
        plan = plan_module(module)
        library = None
        if plan.plans:
            library = CodeLibrary(module.name)
            with library.timings.record("emit-ir"):
                text = build_llvm_module(module.name, list(plan.plans.values()))
            library.add_ir_module(text)
            library.finalize(keep_asm=self.keep_asm)
        return CpuExecutable(module, library, plan)


def compile_module(module: Module, *, keep_asm: bool = False) -> CpuExecutable:
    """Compile `module` for the host CPU."""
    return CpuTarget(keep_asm=keep_asm).compile(module)


def run_module(module: Module, args: Sequence[Any]) -> Any:
    """Compile and run `module` on `args` (numpy arrays, one per entry parameter)."""
    return compile_module(module).run(args)


__all__ = ["CpuExecutable", "CpuTarget", "compile_module", "run_module"]
