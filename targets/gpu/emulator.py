"""Kernels lowered to the host CPU: the GPU emulator (compiled with llvmlite's MCJIT).

Each kernel becomes `void <name>(void **buffers, const i32 *order)`, which runs the
whole grid: for each block { fill shared memory with 0xff bytes (NaN / -1, so a read of
something no thread wrote shows); for each barrier-separated phase { for t in
0..block_size { thread order[t] runs the phase } } } — the loop fission MCUDA and POCL
use. `order` is a permutation of the block's threads: running the same code under
forward, reversed and shuffled orders and comparing the results finds the races a
missing barrier leaves (a phase reading what another thread writes in the same phase).

Float mode as on the device: the launch sets MXCSR's flush-to-zero and
denormals-are-zero bits on x86 hosts and restores them afterwards; contraction is off
and the same explicit fmas are emitted, so emulated and device results agree.
"""

from __future__ import annotations

import ctypes
import functools
import random
from collections.abc import Sequence

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from hlotool.targets.gpu.kernel import IndexContext, Kernel, Phase, PhaseLoop
from hlotool.targets.llvm import irutils as u

#: `void kernel(void **buffers, const int32_t *order)`.
EMULATED_CFUNC = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.POINTER(ctypes.c_int32))
_FTZ_DAZ = 0x8040
#: A module of at most this many kernels, one of which launches at least
#: FULL_PIPELINE_THREADS threads, is compiled with LLVM's O2 pipeline (slow to compile,
#: fast to run); others with SROA, instcombine and simplifycfg and no codegen
#: optimisation (a module of 800 small kernels compiles in 2 s instead of 34).
FULL_PIPELINE_KERNELS = 48
FULL_PIPELINE_THREADS = 1 << 16
_LEAN_PASSES = ("sroa", "instruction_combine", "simplify_cfg")


@functools.cache
def _host() -> tuple[str, str, str]:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.get_process_triple(), llvm.get_host_cpu_name(), \
        llvm.get_host_cpu_features().flatten()


def new_module(name: str) -> ir.Module:
    m = ir.Module(name)
    m.triple = _host()[0]
    return m


class _HostContext(IndexContext):
    """Thread and block indices from the emulator's loops; per-thread local slots."""

    def __init__(self, b: ir.IRBuilder, kernel: Kernel, buffers: ir.Value,
                 shared: dict[str, ir.Value], locals_: dict[str, tuple[ir.Type, ir.Value]]) -> None:
        self.b = b
        self.block_size = kernel.block_size
        self.grid_size = kernel.grid_size
        self._buffers = buffers
        self._params: dict[int, ir.Value] = {}
        self._shared = shared
        self._locals = locals_
        self._loops: dict[str, ir.Value] = {}
        self.tid: ir.Value = u.i64(0)
        self.bid: ir.Value = u.i64(0)

    @property
    def thread(self) -> ir.Value:
        return self.tid

    @property
    def block(self) -> ir.Value:
        return self.bid

    def param(self, k: int) -> ir.Value:
        return self._params[k]

    def load_params(self, n: int) -> None:
        b = self.b
        for k in range(n):
            self._params[k] = b.load(b.gep(self._buffers, [u.i64(k)], source_etype=u.PTR), typ=u.PTR)

    def shared(self, name: str) -> ir.Value:
        return self._shared[name]

    def local(self, name: str) -> ir.Value:
        ty, arr = self._locals[name]
        return self.b.gep(arr, [self.tid], source_etype=ty)

    def loop_index(self, name: str) -> ir.Value:
        return self._loops[name]


def emit_kernel(m: ir.Module, kernel: Kernel, x86: bool) -> None:
    """Add the emulated grid of `kernel` to the host module `m`."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR]), kernel.name)
    buffers, order = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    shared = {s.name: u.stack_buffer(b, s.type, s.count, s.name, align=16) for s in kernel.shared}
    nbytes = {s.name: s.count * _size(s.type) for s in kernel.shared}
    locals_ = {loc.name: (loc.type, u.stack_buffer(b, loc.type, kernel.block_size, loc.name))
               for loc in kernel.locals}
    ctx = _HostContext(b, kernel, buffers, shared, locals_)
    ctx.load_params(kernel.params)
    saved = _set_ftz(b) if x86 else None
    with u.for_range(b, kernel.grid_size, name="block") as blk:
        ctx.bid = blk
        for name, ptr in shared.items():
            u.memset(b, ptr, 0xFF, nbytes[name])
        _emit_phases(ctx, kernel.phases, order)
    if saved is not None:
        _restore(b, saved)
    b.ret_void()


def _emit_phases(ctx: _HostContext, phases: list[Phase | PhaseLoop], order: ir.Value) -> None:
    b = ctx.b
    for p in phases:
        if isinstance(p, PhaseLoop):
            with u.for_range(b, p.count, name=p.name) as k:
                ctx._loops[p.name] = k
                _emit_phases(ctx, p.phases, order)
            continue
        with u.for_range(b, ctx.block_size, name="thread") as t:
            slot = b.load(b.gep(order, [t], source_etype=u.I32), typ=u.I32)
            ctx.tid = b.zext(slot, u.I64)
            p(ctx)


def _size(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(1, t.width // 8)
    if isinstance(t, ir.LiteralStructType):
        return sum(_size(e) for e in t.elements)
    return {ir.HalfType: 2, ir.FloatType: 4, ir.DoubleType: 8}[type(t)]


def _set_ftz(b: ir.IRBuilder) -> ir.Value:
    m = b.module
    st = _declare(m, "llvm.x86.sse.stmxcsr")
    ld = _declare(m, "llvm.x86.sse.ldmxcsr")
    saved = b.alloca(u.I32, name="mxcsr.saved")
    mode = b.alloca(u.I32, name="mxcsr")
    b.call(st, [saved])
    b.store(b.or_(b.load(saved, typ=u.I32), ir.Constant(u.I32, _FTZ_DAZ)), mode)
    b.call(ld, [mode])
    return saved


def _restore(b: ir.IRBuilder, saved: ir.Value) -> None:
    b.call(_declare(b.module, "llvm.x86.sse.ldmxcsr"), [saved])


def _declare(m: ir.Module, name: str) -> ir.Function:
    fn = m.globals.get(name)
    if fn is None:
        fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR]), name)
    return fn


class Emulator:
    """The compiled host code of a set of kernels and the launcher."""

    def __init__(self, kernels: Sequence[Kernel], name: str = "gpu") -> None:
        triple, cpu, features = _host()
        x86 = triple.startswith(("x86_64", "i686", "i386"))
        m = new_module(name)
        for k in kernels:
            emit_kernel(m, k, x86)
        self.kernels = {k.name: k for k in kernels}
        mod = llvm.parse_assembly(str(m))
        mod.verify()
        full = len(kernels) <= FULL_PIPELINE_KERNELS and \
            any(k.grid_size * k.block_size >= FULL_PIPELINE_THREADS for k in kernels)
        tm = llvm.Target.from_triple(triple).create_target_machine(
            cpu=cpu, features=features, opt=2 if full else 0, reloc="static",
            codemodel="jitdefault", jit=True)
        pto = llvm.create_pipeline_tuning_options(speed_level=2 if full else 0)
        pb = llvm.create_pass_builder(tm, pto)
        if full:
            pb.getModulePassManager().run(mod, pb)
        else:
            mpm = llvm.create_new_module_pass_manager()
            for name in _LEAN_PASSES:
                getattr(mpm, f"add_{name}_pass")()
            mpm.run(mod, pb)
        self._engine = llvm.create_mcjit_compiler(mod, tm)
        self._engine.finalize_object()
        self._module = mod
        self._fns = {k.name: EMULATED_CFUNC(self._engine.get_function_address(k.name))
                     for k in kernels}
        self._orders: dict[tuple[int, str, int], np.ndarray] = {}

    def launch(self, name: str, buffers: Sequence[np.ndarray], order: str = "forward",
               seed: int = 0) -> None:
        """Run kernel `name` over its whole grid on `buffers` (contiguous arrays)."""
        k = self.kernels[name]
        perm = self._order(k.block_size, order, seed)
        args = (ctypes.c_void_p * max(1, len(buffers)))(*[a.ctypes.data for a in buffers])
        self._fns[name](args, perm.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)))

    def _order(self, n: int, order: str, seed: int) -> np.ndarray:
        key = (n, order, seed)
        perm = self._orders.get(key)
        if perm is None:
            perm = thread_order(n, order, seed)
            self._orders[key] = perm
        return perm


#: The thread orders the race check runs.
ORDERS = ("forward", "reversed", "shuffled")


def thread_order(n: int, order: str, seed: int = 0) -> np.ndarray:
    """A permutation of 0..n-1: forward, reversed or shuffled (seeded)."""
    if order == "forward":
        perm = list(range(n))
    elif order == "reversed":
        perm = list(range(n - 1, -1, -1))
    elif order == "shuffled":
        perm = list(range(n))
        random.Random(seed).shuffle(perm)
    else:
        raise ValueError(f"unknown thread order {order!r} (forward, reversed, shuffled)")
    return np.asarray(perm, dtype=np.int32)
