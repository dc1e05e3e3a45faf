"""Tuple simplification: forward get-tuple-element through tuples, and drop tuples that
only reassemble another tuple."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.utils import non_fusion_computations, replace_instruction, same_shape

O = Opcode


@dataclass(frozen=True)
class TupleSimplifierPass(Pass):
    """XLA's TupleSimplifier.

    * `get-tuple-element(tuple(a0, ..., an), i)` becomes `ai`;
    * `tuple(get-tuple-element(x, 0), ..., get-tuple-element(x, n-1))` becomes `x` when
      `x` has exactly those n elements (and the same shape).

    With `exclude-entry`, the entry computation is left alone (XLA's
    `exclude_entry_computation`).
    """

    name = "tuple-simplifier"
    summary = "forward get-tuple-element(tuple) and remove tuples that rebuild a tuple"
    xla = "TupleSimplifier"
    exclude_entry: bool = False

    def run(self, module: Module) -> bool:
        changed = False
        for comp in non_fusion_computations(module):
            if not (self.exclude_entry and comp.is_entry):
                changed |= simplify_tuples(comp)
        return changed


def simplify_tuples(comp: Computation) -> bool:
    """Apply both rewrites to one computation, operands before users."""
    changed = False
    for ins in comp.post_order():
        if ins.parent is not comp:
            continue
        replacement = forwarded_element(ins) or reassembled_tuple(ins)
        if replacement is not None:
            replace_instruction(ins, replacement)
            changed = True
    return changed


def forwarded_element(ins: Instruction) -> Instruction | None:
    """The tuple operand a get-tuple-element of a tuple instruction reads."""
    if ins.opcode is not O.GET_TUPLE_ELEMENT or ins.operand(0).opcode is not O.TUPLE:
        return None
    element = ins.operand(0).operand(ins.attrs["index"])
    return element if same_shape(element.shape, ins.shape) else None


def reassembled_tuple(ins: Instruction) -> Instruction | None:
    """`x` for `tuple(gte(x, 0), ..., gte(x, n-1))` covering all of x."""
    if ins.opcode is not O.TUPLE or not ins.operands:
        return None
    first = ins.operand(0)
    if first.opcode is not O.GET_TUPLE_ELEMENT:
        return None
    source = first.operand(0)
    for i, op in enumerate(ins.operands):
        if op.opcode is not O.GET_TUPLE_ELEMENT or op.operand(0) is not source or (
                op.attrs["index"] != i):
            return None
    if len(source.shape.tuple_shapes) != ins.operand_count:
        return None
    return source if same_shape(source.shape, ins.shape) else None
