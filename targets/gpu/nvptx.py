"""Kernels lowered to NVPTX and PTX through llvmlite's NVPTX back end.

Code-generation policy (fixed, so results do not depend on the compiler's defaults):

* architectures sm_80 and sm_90 (`ARCHS`), PTX ISA version 7.8 (`PTX_VERSION`, the first
  that has sm_90; CUDA 11.8 drivers and newer JIT it);
* floating-point contraction off: no `contract` flags, so LLVM emits `mul.rn`/`add.rn`,
  which ptxas never fuses; the only fused multiply-adds are the explicit `llvm.fma`
  calls the elemental emitter and the math polynomials make (as on the CPU), so both
  targets round the same operations;
* f32 denormals flushed (`"denormal-fp-math-f32"="preserve-sign"`: `.ftz` instructions),
  as XLA runs and as the CPU target sets MXCSR; f64 keeps denormals (PTX has no f64 ftz);
* transcendental functions are the polynomials of `targets/llvm/math.py`, not libdevice.
"""

from __future__ import annotations

import functools
import re

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.targets.gpu.kernel import IndexContext, Kernel, Phase, PhaseLoop
from hlotool.targets.llvm import irutils as u

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
ARCHS = ("sm_80", "sm_90")
PTX_VERSION = "7.8"
_SHARED = 3
_ATTRS = '"denormal-fp-math-f32"="preserve-sign,preserve-sign" nounwind'


@functools.cache
def _initialize() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def new_module(name: str) -> ir.Module:
    m = ir.Module(name)
    m.triple = TRIPLE
    m.data_layout = DATA_LAYOUT
    return m


class _DeviceContext(IndexContext):
    """Special registers, addrspace(3) shared arrays, locals on the thread's stack."""

    def __init__(self, b: ir.IRBuilder, kernel: Kernel, fn: ir.Function) -> None:
        self.b = b
        self.block_size = kernel.block_size
        self.grid_size = kernel.grid_size
        self._fn = fn
        self._loops: dict[str, ir.Value] = {}
        m = b.module
        self._shared = {}
        for s in kernel.shared:
            arr = ir.ArrayType(s.type, s.count)
            g = ir.GlobalVariable(m, arr, f"{kernel.name}.{s.name}", addrspace=_SHARED)
            g.linkage = "internal"
            g.initializer = ir.Constant(arr, ir.Undefined)
            g.align = 16
            self._shared[s.name] = b.addrspacecast(g, u.PTR)
        self._locals = {loc.name: b.alloca(loc.type, name=loc.name) for loc in kernel.locals}
        self._tid = b.zext(_sreg(b, "tid.x"), u.I64)
        self._ctaid = b.zext(_sreg(b, "ctaid.x"), u.I64)

    @property
    def thread(self) -> ir.Value:
        return self._tid

    @property
    def block(self) -> ir.Value:
        return self._ctaid

    def param(self, k: int) -> ir.Value:
        return self._fn.args[k]

    def shared(self, name: str) -> ir.Value:
        return self._shared[name]

    def local(self, name: str) -> ir.Value:
        return self._locals[name]

    def loop_index(self, name: str) -> ir.Value:
        return self._loops[name]


def _sreg(b: ir.IRBuilder, reg: str) -> ir.Value:
    name = f"llvm.nvvm.read.ptx.sreg.{reg}"
    fn = b.module.globals.get(name) or ir.Function(b.module, ir.FunctionType(u.I32, []), name)
    return b.call(fn, [])


def _barrier(b: ir.IRBuilder) -> None:
    name = "llvm.nvvm.barrier0"
    fn = b.module.globals.get(name) or ir.Function(b.module, ir.FunctionType(ir.VoidType(), []), name)
    b.call(fn, [])


def emit_kernel(m: ir.Module, kernel: Kernel) -> ir.Function:
    """Add `kernel` to the NVPTX module `m` as a `ptx_kernel` function."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR] * kernel.params), kernel.name)
    if llvm.llvm_version_info >= (20,):
        fn.calling_convention = "ptx_kernel"
    else:  # older LLVMs mark kernels with metadata instead
        md = m.add_named_metadata("nvvm.annotations")
        md.add(m.add_metadata([fn, "kernel", ir.Constant(u.I32, 1)]))
    for a in fn.args:
        a.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    ctx = _DeviceContext(b, kernel, fn)
    _emit_phases(ctx, kernel.phases, first=True)
    b.ret_void()
    return fn


def _emit_phases(ctx: _DeviceContext, phases: list[Phase | PhaseLoop], first: bool) -> bool:
    """Emit phases with a barrier before every phase but the kernel's first; returns
    whether the next phase needs a barrier before it."""
    b = ctx.b
    need = not first
    for p in phases:
        if isinstance(p, PhaseLoop):
            with u.for_range(b, p.count, name=p.name) as k:
                ctx._loops[p.name] = k
                # Every iteration starts with a barrier: it separates the iteration from
                # the previous one (or from the phases before the loop).
                _barrier(b)
                _emit_phases(ctx, p.phases, first=True)
            need = True
            continue
        if need:
            _barrier(b)
        p(ctx)
        need = True
    return need


def finish_ir(m: ir.Module) -> str:
    """The module's text with the float-mode attributes on every definition."""
    text = str(m)
    text = re.sub(r"^(define [^\n]*\)[^\n{]*?)\s*\{", r"\1 #0 {", text, flags=re.M)
    return f"{text}\nattributes #0 = {{ {_ATTRS} }}\n"


def optimize(text: str, arch: str) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    """Parse, verify and optimise (O3) the NVPTX module for `arch`."""
    _initialize()
    mod = llvm.parse_assembly(text)
    mod.verify()
    tm = llvm.Target.from_triple(TRIPLE).create_target_machine(
        cpu=arch, features=f"+ptx{PTX_VERSION.replace('.', '')}", opt=3)
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod, tm


def to_ptx(text: str, arch: str) -> tuple[str, str]:
    """(optimised LLVM IR, PTX) of an NVPTX module for `arch`."""
    mod, tm = optimize(text, arch)
    return str(mod), tm.emit_assembly(mod)


def kernels_ir(kernels: list[Kernel], name: str) -> str:
    """The NVPTX LLVM module (text, before optimisation) of `kernels`."""
    m = new_module(name)
    for k in kernels:
        emit_kernel(m, k)
    return finish_ir(m)


def kernels_ptx(kernels: list[Kernel], name: str, arch: str) -> tuple[str, str]:
    """(optimised LLVM IR, PTX) of `kernels` for `arch`."""
    return to_ptx(kernels_ir(kernels, name), arch)


def fingerprint(kernel: Kernel) -> str:
    """The kernel's NVPTX IR with its name taken out: kernels with equal fingerprints
    compute the same thing on their buffers and share one function."""
    m = new_module("k")
    emit_kernel(m, kernel)
    return str(m).replace(f'"{kernel.name}', '"K')
