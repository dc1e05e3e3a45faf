"""The JIT: LLVM initialisation, the host target machine and `CodeLibrary`.

Modelled on numba's `CodeLibrary` (numba/core/codegen.py): one library owns one LLVM
module per pipeline (`Pipeline`: the pass builder's full pipeline for loops the
vectorizer widens, a lean one for code already as the machine should run it, a quick
one for code whose time goes to the functions it calls);
`add_ir_module` parses and verifies a unit, `finalize` optimises each unit, compiles it
to an object file and loads the objects into one MCJIT engine, recording the time of
every stage, and keeps the optimised LLVM IR and assembly as strings for
`hlotool compile --emit`.
"""

from __future__ import annotations

import ctypes
import enum
import functools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import llvmlite.binding as llvm

from hlotool.targets.cpu.compile_workers import compile_all, parts_for, split

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


#: AVX-512 CPUs whose cores drop their clock under 512-bit vector code (Skylake-SP and
#: its refreshes): LLVM's preference for 256-bit vectors stays there.
ZMM_THROTTLED = frozenset({"skylake-avx512", "cascadelake", "cooperlake"})


@functools.cache
def host() -> HostInfo:
    """Triple, CPU name and feature string of this machine."""
    _initialize()
    cpu = llvm.get_host_cpu_name()
    return HostInfo(llvm.get_process_triple(), cpu,
                    wide_vectors(cpu, llvm.get_host_cpu_features().flatten()))


def wide_vectors(cpu: str, features: str) -> str:
    """`features`, with 512-bit vectors preferred on AVX-512 CPUs that do not throttle.

    LLVM tunes every Intel AVX-512 CPU to prefer 256-bit vectors (as XLA:CPU's
    `xla_cpu_prefer_vector_width` does), which only Skylake-SP's clock drops justify
    (`ZMM_THROTTLED`); Zen 4 and 5 prefer 512 already. On an Ice Lake-class server
    (llvm: rocketlake) the loop-vectorized exponential ran 1.27x faster with zmm (4M
    f32: 1.47 ms instead of 1.86 on one thread) and softmax 1024x4096 1.46x."""
    if "+avx512f" not in features.split(",") or cpu in ZMM_THROTTLED:
        return features
    return features + ",-prefer-256-bit"


#: The codegen level of an engine that only loads object files: it compiles nothing but
#: the empty module it is created with, which at level 0 finalizes in half the time
#: (~0.3 ms instead of ~0.6 ms per engine).
LOAD_ONLY = 0


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


@functools.cache
def _codegen_machine(level: int) -> llvm.TargetMachine:
    """A target machine kept for emitting objects at codegen level `level`."""
    return _analysis_machine() if level == 2 else target_machine(level)


class Pipeline(enum.Enum):
    """How one unit of a library is optimised and compiled."""

    #: The speed level's pass-builder pipeline (kernels written as scalar loops that the
    #: loop vectorizer widens) and full codegen.
    FULL = "full"
    #: For kernels whose IR is already what the machine should run (explicit vector
    #: operations, or scalar folds no pass may reorder): `LEAN_PASSES` only, and codegen
    #: without loop strength reduction, whose scalar-evolution analysis cost ~6 ms on
    #: a reduction's unrotated loops and buys nothing on such code.
    LEAN = "lean"
    #: For kernels whose time goes to the library functions they call (BLAS, the
    #: convolution microkernels, memcpy): `LEAN_PASSES` and LLVM's quick codegen (level
    #: 0: fast instruction selection and register allocation). The convolution's packing
    #: and tile loops generate in 1 ms instead of 4.6 and run as fast.
    CALLS = "calls"

    @property
    def codegen_level(self) -> int:
        return 0 if self is Pipeline.CALLS else 2


#: The IR passes of lean and calls units: promote allocas to SSA values; codegen's own
#: IR passes and instruction selection do the rest (bench/cpu.py, 2026-11-30: reduce-sum
#: 8M optimizes in 0.3 ms instead of 15 through O2, or 1.4 with instcombine and
#: simplifycfg as well, and runs as fast either way).
LEAN_PASSES = ("sroa",)

#: LLVM's command-line options are process-wide: codegen of lean units sets
#: `-disable-lsr` and resets it under this lock.
_CODEGEN_LOCK = threading.Lock()


@contextmanager
def codegen_options(pipeline: Pipeline) -> Iterator[None]:
    """Hold the codegen lock with the options of `pipeline` set."""
    with _CODEGEN_LOCK:
        if pipeline is not Pipeline.LEAN:
            yield
            return
        llvm.set_option("hlotool", "-disable-lsr=true")
        try:
            yield
        finally:
            llvm.set_option("hlotool", "-disable-lsr=false")


def optimize_lean(module: llvm.ModuleRef) -> None:
    """Run `LEAN_PASSES` over `module`."""
    pb = llvm.create_pass_builder(_analysis_machine(),
                                  llvm.create_pipeline_tuning_options(speed_level=0))
    mpm = llvm.create_new_module_pass_manager()
    for name in LEAN_PASSES:
        getattr(mpm, f"add_{name}_pass")()
    mpm.run(module, pb)


@dataclass(slots=True)
class _Unit:
    """One LLVM module of a library and how it is compiled."""

    module: llvm.ModuleRef
    pipeline: Pipeline


class _ProcessEngine:
    """The MCJIT engine that lives as long as the process, created on first use and never
    freed (pooled threads run its code until the process exits). Every runtime library
    (`cache.runtime_library`) loads its objects here, and so does the first module
    library compiled `resident` (the one module a CLI process runs). Objects added here
    cost ~0.2 ms instead of ~1.3 ms for an engine of their own (a target machine, the
    engine, its first finalization), which a cache hit in a new process pays for each
    library it loads. Symbols cannot clash: runtime symbols start with `hlotool`,
    kernels with `k<index>_`, and one module at most has its code here."""

    engine: llvm.ExecutionEngine | None = None
    lock = threading.Lock()
    #: Whether a resident module's code is in the engine.
    has_module = False

    @classmethod
    def load(cls, objects: list[bytes], *, module: bool = False) -> llvm.ExecutionEngine | None:
        """Add `objects` and finalize; for a module's code (`module`), None without
        loading anything when the engine already holds one."""
        with cls.lock:
            if module:
                if cls.has_module:
                    return None
                cls.has_module = True
            if cls.engine is None:
                empty = llvm.parse_assembly("")
                empty.triple = host().triple
                cls.engine = llvm.create_mcjit_compiler(empty, target_machine(LOAD_ONLY))
            for data in objects:
                cls.engine.add_object_file(llvm.ObjectFileRef.from_data(data))
            cls.engine.finalize_object()
            return cls.engine


class RuntimeLibrary:
    """A runtime library's code, in the process engine (`_ProcessEngine`)."""

    def __init__(self, name: str, objects: list[bytes], *, cache_hit: bool) -> None:
        self.name = name
        self.cache_hit = cache_hit
        engine = _ProcessEngine.load(objects)
        assert engine is not None
        self._engine = engine

    def address(self, name: str) -> int:
        """The address of the function or global `name`."""
        address = self._engine.get_global_value_address(name)
        if not address:
            raise KeyError(f"{name} is not defined in runtime library {self.name}")
        return address

    def get_function(self, name: str) -> ctypes._CFuncPtr:
        """A ctypes function pointer to an entry point `void name(void **)`."""
        return ENTRY_CFUNC(self.address(name))

    def keep_forever(self) -> None:
        """Nothing to do: the process engine is never freed."""


class CodeLibrary:
    """One compiled unit of code: LLVM IR in (one module per pipeline), function
    addresses out."""

    def __init__(self, name: str, *, speed_level: int = 2, resident: bool = False) -> None:
        """`resident`: the code may live until the process exits (the one module a CLI
        command runs); the first such library loads into the process engine."""
        _initialize()
        self.name = name
        self.speed_level = speed_level
        self.resident = resident
        #: Whether the code is in the process engine (never freed).
        self.in_process_engine = False
        self.timings = Timings()
        self.llvm_ir = ""
        self.asm = ""
        self._units: list[_Unit] = []
        self._engine: llvm.ExecutionEngine | None = None
        #: Whether the code came from the disk cache.
        self.cache_hit = False
        #: The object files, one per unit, after `finalize` (what the disk cache keeps).
        self.objects: list[bytes] = []
        #: Processes `finalize` compiles the units in (`compile_workers`).
        self._processes = 1

    def add_ir_module(self, text: str, pipeline: Pipeline = Pipeline.FULL) -> None:
        """Parse and verify textual LLVM IR: one more unit, compiled by `pipeline`."""
        if self._engine is not None:
            raise RuntimeError(f"library {self.name} is already finalized")
        with self.timings.record("parse"):
            mod = llvm.parse_assembly(text)
            mod.name = f"{self.name}.{len(self._units)}"
        with self.timings.record("verify"):
            mod.verify()
        self._units.append(_Unit(mod, pipeline))

    def add_units(self, units: dict[Pipeline, str]) -> None:
        """Add one unit per pipeline (`codegen.build_llvm_module`'s output); a large
        full-pipeline text becomes one unit per core (`compile_workers`), first."""
        from hlotool.targets.cpu.kernels.parallel import threads  # imports this module

        full = units.get(Pipeline.FULL)
        if full is not None:
            parts = split(full, parts_for(full, threads()))
            self._processes = len(parts)
            for part in parts:
                self.add_ir_module(part, Pipeline.FULL)
        for pipeline, text in units.items():
            if pipeline is not Pipeline.FULL:
                self.add_ir_module(text, pipeline)

    def _optimize(self, unit: _Unit) -> None:
        mod = unit.module
        mod.triple = host().triple
        mod.data_layout = str(_analysis_machine().target_data)
        with self.timings.record("optimize"):
            if unit.pipeline is not Pipeline.FULL:
                optimize_lean(mod)
            else:
                optimize(mod, self.speed_level)

    def finalize(self, *, keep_asm: bool = False) -> None:
        """Optimise every unit, emit it as an object file at its pipeline's codegen level
        (kept in `objects`, what the disk cache stores) and load the objects into one
        MCJIT engine (once). The optimised IR (and assembly) of all units is kept as
        text."""
        if self._engine is not None:
            return
        if not self._units:
            raise RuntimeError(f"library {self.name} has no module")
        results = compile_all(self._units, lambda unit: self._compile(unit, keep_asm),
                              self._processes)
        self.llvm_ir = "\n".join(ir_text for _, ir_text, _ in results)
        self.asm = "\n".join(asm for _, _, asm in results if asm)
        self.objects = [obj for obj, _, _ in results]
        self.load_objects(self.objects)

    def _compile(self, unit: _Unit, keep_asm: bool) -> tuple[bytes, str, str]:
        """Optimise and compile one unit: (object file, optimised IR, assembly or "")."""
        self._optimize(unit)
        heading = f"; {unit.module.name}: {unit.pipeline.value} pipeline"
        ir_text = f"{heading}\n{unit.module}"
        asm = ""
        machine = _codegen_machine(unit.pipeline.codegen_level)
        with codegen_options(unit.pipeline):
            if keep_asm:
                with self.timings.record("emit-asm"):
                    asm = f"# {heading[2:]}\n{machine.emit_assembly(unit.module)}"
            with self.timings.record("codegen"):
                return machine.emit_object(unit.module), ir_text, asm

    def load_objects(self, objects: list[bytes]) -> None:
        """Load the object files into an engine: the process engine when `resident` and
        no other module's code is there, else one of the library's own."""
        with self.timings.record("load-object"):
            if self.resident:
                shared = _ProcessEngine.load(objects, module=True)
                if shared is not None:
                    self._engine, self.in_process_engine = shared, True
                    return
            empty = llvm.parse_assembly("")
            empty.triple = host().triple
            engine = llvm.create_mcjit_compiler(empty, target_machine(LOAD_ONLY))
            for data in objects:
                engine.add_object_file(llvm.ObjectFileRef.from_data(data))
            engine.finalize_object()
        self._engine = engine

    def address(self, name: str) -> int:
        """The address of the function or global `name`."""
        if self._engine is None:
            raise RuntimeError(f"library {self.name} is not finalized")
        address = self._engine.get_global_value_address(name)
        if not address:
            raise KeyError(f"{name} is not defined in library {self.name}")
        return address

    def keep_forever(self) -> None:
        """Never free the code (threads that outlive every reference run it); the
        library can give no more addresses."""
        if self._engine is not None and not self.in_process_engine:
            self._engine.detach()

    def get_function(self, name: str) -> ctypes._CFuncPtr:
        """A ctypes function pointer to an entry point `void name(void **)`."""
        if self._engine is None:
            raise RuntimeError(f"library {self.name} is not finalized")
        address = self._engine.get_function_address(name)
        if not address:
            raise KeyError(f"{name} is not defined in library {self.name}")
        return ENTRY_CFUNC(address)
