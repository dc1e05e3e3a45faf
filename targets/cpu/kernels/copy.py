"""Byte copies: a bitcast-convert between element widths (u32[..., 2] <-> u64[...], as JAX
packs random keys) reinterprets the same bytes, so its kernel is one memcpy."""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.jit import Pipeline


@dataclass(slots=True)
class CopyPlan:
    """A kernel copying its operand's bytes into its output (entry buffers: operand,
    output)."""

    name: str
    roots: list[Instruction]
    inputs: list[Instruction]
    constants: tuple[()] = ()
    pipeline: Pipeline = Pipeline.CALLS

    def emit(self, module: ir.Module, symbol: str, *, x86: bool) -> None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=symbol)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        src, dst = (b.load(b.gep(fn.args[0], [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
                    for k in range(2))
        nbytes = self.roots[0].shape.byte_size
        if nbytes:
            u.memcpy(b, dst, src, nbytes)
        b.ret_void()


def plan_byte_copy(ins: Instruction, name: str) -> tuple[CopyPlan | None, str]:
    """A CopyPlan for a bitcast-convert between element widths in row-major layouts."""
    src, dst = ins.operand(0).shape, ins.shape
    if ins.opcode is not Opcode.BITCAST_CONVERT or not (src.is_array and dst.is_array) or \
            src.element_type.bits == dst.element_type.bits or \
            not (src.is_row_major and dst.is_row_major) or src.byte_size != dst.byte_size or \
            any(t.bits % 8 for t in (src.element_type, dst.element_type)):
        return None, "not a bitcast-convert between widths"
    return CopyPlan(name, [ins], [ins.operand(0)]), ""
