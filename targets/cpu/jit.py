"""The JIT: LLVM initialisation, the host target machine and `CodeLibrary`.

Modelled on numba's `CodeLibrary` (numba/core/codegen.py): one library owns one LLVM
module; `add_ir_module` parses and verifies it, `finalize` optimises it with the new
pass builder and compiles it with MCJIT, recording the time of every stage, and keeps
the optimised LLVM IR and assembly as strings for `hlotool compile --emit`.
"""

from __future__ import annotations

import ctypes
import functools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import llvmlite.binding as llvm

#: Signature of every compiled entry point: `void fn(void **buffers)`.
ENTRY_CFUNC = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))


@functools.cache
def _initialize() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@dataclass(frozen=True, slots=True)
class HostInfo:
    """The CPU the code is generated for."""

    triple: str
    cpu: str
    features: str

    @property
    def key(self) -> str:
        """Identifies the host for cache keys."""
        return f"{self.triple}/{self.cpu}/{self.features}"

    @property
    def is_x86(self) -> bool:
        return self.triple.startswith(("x86_64", "i686", "i386"))


@functools.cache
def host() -> HostInfo:
    """Triple, CPU name and feature string of this machine."""
    _initialize()
    return HostInfo(llvm.get_process_triple(), llvm.get_host_cpu_name(),
                    llvm.get_host_cpu_features().flatten())


def target_machine(opt: int = 2) -> llvm.TargetMachine:
    """A new target machine for the host CPU with all its features (codegen level `opt`).

    Not cached: an MCJIT engine takes ownership of the machine it is given."""
    info = host()
    target = llvm.Target.from_triple(info.triple)
    return target.create_target_machine(cpu=info.cpu, features=info.features, opt=opt,
                                        reloc="static", codemodel="jitdefault", jit=True)


@dataclass(slots=True)
class Timings:
    """Seconds spent per compilation stage, in the order stages ran."""

    stages: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def record(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.stages[stage] = self.stages.get(stage, 0.0) + time.perf_counter() - start

    @property
    def total(self) -> float:
        return sum(self.stages.values())


#: Tuning of the default pipeline (speed level 2), chosen on the bench cases
#: (bench/cpu.py, medians of interleaved compiles, 2026-11-30; kernel times unchanged
#: within noise): the SLP vectorizer and loop unrolling cost 30-60% of the compile of
#: reduce and row kernels (reduce-sum 8M: 72 -> 41 ms, layernorm: 180 -> 65 ms) and buy
#: nothing, since kernels are scalar loops the loop vectorizer widens and interleaves.
#: Level 3 keeps LLVM's full O3 pipeline.
SLP_VECTORIZE = False
UNROLL = False


def optimize(module: llvm.ModuleRef, speed_level: int) -> None:
    """Run the new pass manager's default pipeline at `speed_level` (0 = verify only).

    Kernels are written as scalar loops; the loop vectorizer (on from level 2) turns them
    into AVX-512/AVX2 code. Level 2 is the default: LLVM's O2 with the loop vectorizer and
    interleaving but without SLP vectorization and loop unrolling (`SLP_VECTORIZE`,
    `UNROLL`); level 3 is LLVM's O3 with everything on (on the corpus, plain O2 compiled
    ~2.5x faster than O3: gelu/module.hlo, 128 kernels, 1.9 s vs 5.0 s).
    """
    pto = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    pto.loop_vectorization = speed_level >= 2
    pto.slp_vectorization = speed_level >= 3 or (speed_level == 2 and SLP_VECTORIZE)
    if speed_level == 2:
        pto.loop_unrolling = UNROLL
    pb = llvm.create_pass_builder(_analysis_machine(), pto)
    pb.getModulePassManager().run(module, pb)


@functools.cache
def _analysis_machine() -> llvm.TargetMachine:
    """A target machine kept for the pass builder and the data layout (not for MCJIT,
    which takes ownership of its machine); creating one costs ~0.3 ms."""
    return target_machine()


class CodeLibrary:
    """One compiled unit: LLVM IR in, function addresses out."""

    def __init__(self, name: str, *, speed_level: int = 2) -> None:
        _initialize()
        self.name = name
        self.speed_level = speed_level
        self.timings = Timings()
        self.llvm_ir = ""
        self.asm = ""
        self._module: llvm.ModuleRef | None = None
        self._engine: llvm.ExecutionEngine | None = None
        #: Whether the code came from the disk cache.
        self.cache_hit = False
        #: The object file, when compiled through `finalize_to_object`.
        self.object_code = b""

    def add_ir_module(self, text: str) -> None:
        """Parse and verify textual LLVM IR (one module per library)."""
        if self._module is not None:
            raise RuntimeError(f"library {self.name} already has a module")
        with self.timings.record("parse"):
            mod = llvm.parse_assembly(text)
            mod.name = self.name
        with self.timings.record("verify"):
            mod.verify()
        self._module = mod

    def _optimized(self, keep_asm: bool) -> Any:
        """The module set up for the host, optimised; its IR (and asm) kept as text."""
        if self._module is None:
            raise RuntimeError(f"library {self.name} has no module")
        mod = self._module
        mod.triple = host().triple
        mod.data_layout = str(_analysis_machine().target_data)
        with self.timings.record("optimize"):
            optimize(mod, self.speed_level)
        self.llvm_ir = str(mod)
        if keep_asm:
            with self.timings.record("emit-asm"):
                self.asm = _analysis_machine().emit_assembly(mod)
        return mod

    def finalize(self, *, keep_asm: bool = False) -> None:
        """Optimise, then compile to machine code (once)."""
        if self._engine is not None:
            return
        mod = self._optimized(keep_asm)
        with self.timings.record("codegen"):
            engine = llvm.create_mcjit_compiler(mod, target_machine())
            engine.finalize_object()
            engine.run_static_constructors()
        self._engine = engine

    def finalize_to_object(self, *, keep_asm: bool = False) -> None:
        """Optimise, emit an object file (kept in `object_code`) and load it: the same
        machine code as `finalize`, with one codegen shared by the JIT and the cache."""
        if self._engine is not None:
            return
        mod = self._optimized(keep_asm)
        with self.timings.record("codegen"):
            self.object_code = _analysis_machine().emit_object(mod)
        self.load_object(self.object_code)

    def load_object(self, data: bytes) -> None:
        """Use a previously emitted object file instead of compiling (disk cache hit)."""
        with self.timings.record("load-object"):
            empty = llvm.parse_assembly("")
            empty.triple = host().triple
            engine = llvm.create_mcjit_compiler(empty, target_machine())
            engine.add_object_file(llvm.ObjectFileRef.from_data(data))
            engine.finalize_object()
        self._engine = engine

    def emit_object(self) -> bytes:
        """The optimised module as an object file (for the disk cache)."""
        if self._module is None:
            raise RuntimeError(f"library {self.name} has no module")
        return _analysis_machine().emit_object(self._module)

    def get_function(self, name: str) -> ctypes._CFuncPtr:
        """A ctypes function pointer to an entry point `void name(void **)`."""
        if self._engine is None:
            raise RuntimeError(f"library {self.name} is not finalized")
        address = self._engine.get_function_address(name)
        if not address:
            raise KeyError(f"{name} is not defined in library {self.name}")
        return ENTRY_CFUNC(address)
