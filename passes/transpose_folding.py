"""Transpose folding (XLA's TransposeFolding, for dots).

`dot(transpose(x), y)` reads `x` with its dimensions permuted; the dot can do the same
by naming `x`'s dimensions in its contracting and batch lists, and the transpose (a
copy after layout assignment) disappears. XLA:CPU runs it just before layout
assignment, for dots its emitter can read transposed (row/column transposes).

The fold is exact only when the operand's free (non-contracting, non-batch) dimensions
keep their relative order, since a dot's result lists them in operand order; other
transposes stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.utils import non_fusion_computations, remove_if_dead

O = Opcode

#: Dot attribute names per operand side.
_SIDES = (("lhs_contracting_dims", "lhs_batch_dims"), ("rhs_contracting_dims", "rhs_batch_dims"))


def folded_dims(dot: Instruction, side: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The contracting and batch dims that read through operand `side`'s transpose,
    or None when folding it would reorder the dot's result."""
    transpose = dot.operand(side)
    perm = tuple(transpose.attrs["dimensions"])
    contracting_key, batch_key = _SIDES[side]
    contracting = tuple(dot.attrs.get(contracting_key) or ())
    batch = tuple(dot.attrs.get(batch_key) or ())
    free = [d for d in range(len(perm)) if d not in contracting and d not in batch]
    mapped = [perm[d] for d in free]
    if mapped != sorted(mapped):
        return None
    return tuple(perm[d] for d in contracting), tuple(perm[d] for d in batch)


@dataclass(frozen=True)
class TransposeFoldingPass(Pass):
    """Fold transposed dot operands into the dot's dimension numbers (XLA's
    TransposeFolding)."""

    name: ClassVar[str] = "transpose-folding"
    summary: ClassVar[str] = "fold transposes of dot operands into the dot's dimensions"
    xla: ClassVar[str] = "TransposeFolding"

    def run(self, module: Module) -> bool:
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode is O.DOT and ins.parent is comp:
                    changed |= self._fold(ins)
        return changed

    def _fold(self, dot: Instruction) -> bool:
        changed = False
        for side in (0, 1):
            transpose = dot.operand(side)
            if transpose.opcode is not O.TRANSPOSE or dot.operands.count(transpose) != 1:
                continue
            dims = folded_dims(dot, side)
            if dims is None:
                continue
            contracting_key, batch_key = _SIDES[side]
            dot.attrs[contracting_key] = dims[0]
            if dot.attrs.get(batch_key) or dims[1]:
                dot.attrs[batch_key] = dims[1]
            dot.replace_operand(side, transpose.operand(0))
            remove_if_dead(transpose)
            changed = True
        return changed
