"""Dots of bf16/f16 operands computed in f32 (XLA's ChangeOpDataType, as XLA:CPU sets it
up for dots its runtime has no low-precision kernel for)."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.passes.base import Pass
from hlotool.passes.utils import Builder, NameTable, non_fusion_computations, replace_instruction

O = Opcode
P = PrimitiveType
_NARROW = frozenset({P.BF16, P.F16})
_FLOATS = _NARROW | {P.F32}


@dataclass(frozen=True)
class ChangeOpDataTypePass(Pass):
    """A dot whose operands are bf16 or f16 (f32 allowed beside them) and whose result is
    bf16, f16 or f32 becomes converts of its operands to f32, the same dot in f32, and a
    convert of the result back to its type. The value does not change: XLA:CPU computes
    such dots in f32 and rounds once at the end (and the reference interpreter does the
    same), so the dot can run on the f32 BLAS kernels."""

    name = "change-op-data-type"
    summary = "compute bf16/f16 dots in f32: converts around an f32 dot"
    xla = "ChangeOpDataType"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode is not O.DOT or not ins.shape.is_array:
                    continue
                types = [o.shape.element_type for o in ins.operands]
                if not any(t in _NARROW for t in types) or \
                        any(t not in _FLOATS for t in types) or \
                        ins.shape.element_type not in _FLOATS:
                    continue
                b = Builder.before(ins, names)
                wide = [o if o.shape.element_type is P.F32 else
                        b.add(O.CONVERT, [o], shape=o.shape.with_element_type(P.F32))
                        for o in ins.operands]
                dot = b.add(O.DOT, wide, dict(ins.attrs), ins.shape.with_element_type(P.F32))
                out = dot if ins.shape.element_type is P.F32 else \
                    b.add(O.CONVERT, [dot], shape=ins.shape)
                replace_instruction(ins, out)
                if ins.parent is not None:
                    comp.remove_instruction(ins)
                changed = True
        return changed
