"""Output fusions of a dot and its elementwise epilogue as one kernel.

A kOutput fusion `relu(dot(x, w) + bias)` would otherwise run as two kernels: the dot
writes its whole result, then a loop kernel reads it back to apply the epilogue (a
second pass over a result that has left the cores' L2 by then). Here hlotool's own gemm
(kernels/gemm.py, `gemm.EPILOGUE_SYMBOL`) writes the dot into the fusion's output and
calls the epilogue on each block of it (MC x NC elements) as soon as its last
contraction block is added, on the thread that computed it, in place: the epilogue reads
the block from L2 instead of memory (XLA:CPU's dot emitter applies output fusions to its
tiles too).

The epilogue must be elementwise in the dot (every instruction between the dot and the
root is elementwise and of the dot's dimensions, so each element reads only its own dot
element, which is final and not read again); the root is f32 like the dot, with the
dot's dimensions. Other operands of the epilogue (a broadcast bias, constants) are read
from their buffers at any index. The dot is one the own gemm computes with both operands
read in place (`blas.plan_blas_dot`: own, nothing packed) and one free dimension of its
right operand (the gemm's columns, the epilogue's contiguous inner loop). Anything else
keeps the two kernels (codegen.py `_plan_output_fusion`).

Calling convention (a loop kernel's): `void <name>(void **buffers)`, the inputs (the
fusion's parameters the dot or the epilogue reads, in `inputs` order), the constants,
then the output. The output is never an input's buffer (`in_place` False): the gemm
reads its operands while epilogues of finished blocks write.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu.jit import Pipeline, host
from hlotool.targets.cpu.kernels import blas, gemm
from hlotool.targets.cpu.kernels.dot import unsupported_dot
from hlotool.targets.cpu.kernels.loop import store_roots
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import ElementalEmitter, Input, delinearize

O = Opcode


@dataclass(slots=True)
class EpiloguePlan:
    """The epilogue as the gemm's callback (`gemm.EPILOGUE_TYPE`), reading the buffers
    of the fusion's kernel: identical epilogues of several fusions are one function."""

    name: str
    roots: list[Instruction]
    inputs: list[Instruction]
    constants: list[tuple[Instruction, np.ndarray]]
    dot: Instruction
    pipeline: Pipeline = Pipeline.FULL

    def emit(self, module: ir.Module, symbol: str, *, x86: bool) -> None:
        """`void symbol(void **buffers, i64 batch, i64 r0, i64 r1, i64 c0, i64 c1)`."""
        _emit_epilogue(module, symbol, self)


@dataclass(slots=True)
class DotFusionPlan:
    """A dot and its elementwise epilogue as one kernel (module docstring): its entry
    calls the gemm, compiled by the pipeline for calls; `callee` is the epilogue."""

    name: str
    #: The fusion's root (f32, the dot's dimensions).
    roots: list[Instruction]
    #: The fusion's parameters the kernel reads, in argument order.
    inputs: list[Instruction]
    #: Array constants of the epilogue, read from buffers after the inputs.
    constants: list[tuple[Instruction, np.ndarray]]
    #: The dot (inside the fusion; its operands are among `inputs`).
    dot: Instruction
    callee: EpiloguePlan
    #: The epilogue's function (set by codegen.build_llvm_module before `emit`).
    callee_symbol: str = ""
    tune: dict[str, int | str] = field(default_factory=dict)
    pipeline: Pipeline = Pipeline.CALLS
    #: The output may not share an input's buffer (runtime.Thunk.may_share).
    in_place: bool = False

    def emit(self, module: ir.Module, symbol: str, *, x86: bool) -> None:
        """The kernel: one call of the gemm with the epilogue as its callback."""
        form = blas.plan_blas_dot(self.dot)
        assert form is not None and form.own and self.callee_symbol
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=symbol)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        buffers = fn.args[0]
        lhs, rhs = (_buffer(b, buffers, self.inputs.index(o)) for o in self.dot.operands)
        out = _buffer(b, buffers, len(self.inputs) + len(self.constants))
        callback = ir.Function(module, gemm.EPILOGUE_TYPE, name=self.callee_symbol)
        blas.emit_own(b, form, lhs, rhs, out, ir.Constant(u.PTR, None), (callback, buffers))
        b.ret_void()


def plan_dot_fusion(name: str, dot: Instruction, root: Instruction, epilogue: list[Instruction],
                    params: list[Instruction],
                    constants: list[tuple[Instruction, np.ndarray]]) -> DotFusionPlan | None:
    """The one-kernel plan of a kOutput fusion of `dot` whose `epilogue` instructions
    (post order, `root` last) read `params` besides the dot, or None when the fusion is
    not one (module docstring)."""
    if dot.opcode is not O.DOT or unsupported_dot(dot) or not blas.available():
        return None
    if root.shape.element_type is not PrimitiveType.F32 or root.shape.is_tuple or \
            root.shape.dimensions != dot.shape.dimensions:
        return None
    if any(o.opcode is not O.PARAMETER for o in dot.operands) or len(blas.dot_dimensions(dot)[5]) != 1:
        return None
    form = blas.plan_blas_dot(dot)
    if form is None or not form.own or form.lhs.pack or form.rhs.pack:
        return None
    if not _elementwise_in(dot, epilogue):
        return None
    inputs = sorted({id(p): p for p in [*dot.operands, *params]}.values(),
                    key=lambda p: p.parameter_number)
    epilogue_plan = EpiloguePlan(f"{name}_epilogue", [root], inputs, constants, dot)
    return DotFusionPlan(name, [root], inputs, constants, dot, epilogue_plan)


def _elementwise_in(dot: Instruction, epilogue: list[Instruction]) -> bool:
    """Whether every epilogue instruction that reads the dot (directly or not) is
    elementwise and of the dot's dimensions."""
    reads = {id(dot)}
    for ins in epilogue:
        if any(id(o) in reads for o in ins.operands):
            if ins.opcode not in ELEMENTWISE or ins.shape.dimensions != dot.shape.dimensions:
                return False
            reads.add(id(ins))
    return True


def _buffer(b: ir.IRBuilder, buffers: ir.Value, k: int) -> ir.Value:
    return b.load(b.gep(buffers, [u.i64(k)], source_etype=u.PTR), typ=u.PTR)


def _emit_epilogue(module: ir.Module, name: str, plan: EpiloguePlan) -> ir.Function:
    """`void name(void **buffers, i64 batch, i64 r0, i64 r1, i64 c0, i64 c1)`
    (`gemm.EPILOGUE_TYPE`): the epilogue over rows r0..r1 and columns c0..c1 of matrix
    `batch` of the output, which holds the dot's values there; it loads the buffers and
    calls the rows function, whose noalias buffers let the inner loop vectorize. A block
    is a whole number of the gemm's strips (NR columns) but at the output's last
    columns, so the rows function's inner loops have static trip counts (NR, and the
    output's columns modulo NR at its edge): the vectorizer makes no remainder loops,
    which took ~8 ms more of the full pipeline per kernel."""
    fn = ir.Function(module, gemm.EPILOGUE_TYPE, name=name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    n = len(plan.inputs) + len(plan.constants) + 1
    rows = _emit_rows(module, f"{name}.rows", plan, n)
    b.call(rows, [*(_buffer(b, fn.args[0], k) for k in range(n)), *fn.args[1:]])
    b.ret_void()
    return fn


def _emit_rows(module: ir.Module, name: str, plan: EpiloguePlan, n: int) -> ir.Function:
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR] * n + [u.I64] * 5),
                     name=name)
    fn.linkage = "internal"
    for arg in fn.args[:n]:
        arg.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sources = plan.inputs + [c for c, _ in plan.constants]
    out = fn.args[n - 1]
    inputs = {id(s): Input(arg, s.shape) for s, arg in zip(sources, fn.args, strict=False)}
    inputs[id(plan.dot)] = Input(out, plan.dot.shape)
    batch, r0, r1, c0, c1 = fn.args[n:]
    dims = plan.dot.shape.dimensions
    lb, _, lf, _, _, _ = blas.dot_dimensions(plan.dot)
    batch_dims, row_dims = dims[:len(lb)], dims[len(lb):len(lb) + len(lf)]
    emitter = ElementalEmitter(b, inputs)
    at_batch = list(delinearize(b, batch_dims, batch))
    nr = gemm.tile(host().features)[1]
    tail = dims[-1] % nr

    def columns(at_row: list[ir.Value], first: ir.Value, count: int) -> None:
        with u.for_range(b, count, name="c") as j:
            store_roots(b, emitter, plan.roots, [out], dims, (*at_batch, *at_row, b.add(first, j)))

    with u.for_range(b, b.sub(r1, r0), name="r") as i:
        at_row = list(delinearize(b, row_dims, b.add(r0, i)))
        with u.for_range(b, b.udiv(b.sub(c1, c0), u.i64(nr)), name="strip") as q:
            columns(at_row, b.add(c0, b.mul(q, u.i64(nr))), nr)
        if tail:
            with b.if_then(b.icmp_signed("==", c1, u.i64(dims[-1]))):
                columns(at_row, u.i64(dims[-1] - tail), tail)
    b.ret_void()
    return fn
