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
from hlotool.targets.cpu.cache import DiskCache, Entry, module_key
from hlotool.targets.cpu.codegen import build_llvm_module, is_llvm, plan_module
from hlotool.targets.cpu.jit import CodeLibrary
from hlotool.targets.cpu.runtime import CpuExecutable


class CpuTarget(Target):
    """The host CPU through LLVM (llvmlite MCJIT)."""

    name: ClassVar[str] = "cpu"
    capabilities: ClassVar[Capabilities] = Capabilities(native=True, emits_llvm=True,
                                                        emits_asm=True, disk_cache=True)

    def __init__(self, *, keep_asm: bool = False, cache: bool | DiskCache | None = None,
                 speed_level: int = 2) -> None:
        """`cache`: a DiskCache, False for none, None/True for the default directory
        (`HLOTOOL_CACHE_DIR`). Asking for LLVM IR or assembly (`keep_asm`, or reading
        `library.llvm_ir`) needs a real compile: `hlotool compile` passes cache=False."""
        self.keep_asm = keep_asm
        self.speed_level = speed_level
        if cache is None or cache is True:
            cache = DiskCache.default()
        self.cache: DiskCache | None = cache or None

    def compile(self, module: Module) -> CpuExecutable:
        plan = plan_module(module)
        library = None
        llvm_plans = [p for p in plan.plans.values() if is_llvm(p)]
        if llvm_plans:
            library = CodeLibrary(module.name, speed_level=self.speed_level)
            key = None
            if self.cache is not None and not self.keep_asm:
                with library.timings.record("cache-key"):
                    key = module_key(module, target=self.name, speed_level=self.speed_level)
                    entry = self.cache.load(key)
                if entry is not None and set(entry.symbols) == {p.name for p in llvm_plans}:
                    library.load_object(entry.obj)
                    library.cache_hit = True
                    plan.symbols = entry.symbols
                    return CpuExecutable(module, library, plan)
            with library.timings.record("emit-ir"):
                text, plan.symbols = build_llvm_module(module.name, llvm_plans)
            library.add_ir_module(text)
            if key is not None:
                # One codegen: emit the object (cached) and load it into the JIT.
                library.finalize_to_object(keep_asm=self.keep_asm)
                assert self.cache is not None
                self.cache.store(key, Entry(library.object_code, plan.symbols))
            else:
                library.finalize(keep_asm=self.keep_asm)
        return CpuExecutable(module, library, plan)


def compile_module(module: Module, *, keep_asm: bool = False,
                   cache: bool | DiskCache | None = None) -> CpuExecutable:
    """Compile `module` for the host CPU (through the disk cache unless cache=False)."""
    return CpuTarget(keep_asm=keep_asm, cache=cache).compile(module)


def run_module(module: Module, args: Sequence[Any]) -> Any:
    """Compile and run `module` on `args` (numpy arrays, one per entry parameter)."""
    return compile_module(module).run(args)


__all__ = ["CpuExecutable", "CpuTarget", "compile_module", "run_module"]
