"""Fusion wrapping (XLA's FusionWrapper): every remaining loop-fusible instruction of a
sequential computation becomes a one-instruction kLoop fusion (`wrapped_<op>` calling
`wrapped_<op>_computation`), so the code generator only ever emits fusions. Bitcasts,
constants, parameters and tuple plumbing stay as they are; they are not kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hlotool.analysis.liveness import sequential_computations
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.instruction_fusion import Fuser, is_loop_fusible
from hlotool.passes.utils import has_side_effect

O = Opcode

#: Loop-fusible ops that are no kernel of their own.
NOT_WRAPPED = frozenset({O.BITCAST, O.CONSTANT})
#: Other ops XLA:CPU's fusion emitters take as single-instruction loop fusions.
ALSO_WRAPPED = frozenset({O.REDUCE_WINDOW, O.SCATTER, O.SELECT_AND_SCATTER})


@dataclass(frozen=True)
class FusionWrapperPass(Pass):
    """Wrap each remaining fusible instruction in a fusion of its own (XLA's
    FusionWrapper)."""

    name: ClassVar[str] = "fusion-wrapper"
    summary: ClassVar[str] = "wrap leftover fusible instructions in single-op fusions"
    xla: ClassVar[str] = "FusionWrapper"

    def run(self, module: Module) -> bool:
        fuser = Fuser.of(module)
        changed = False
        for comp in sequential_computations(module):
            for ins in list(comp.instructions):
                if _wants_wrapping(ins):
                    fuser.wrap(
                        ins,
                        f"wrapped_{ins.opcode.value}",
                        f"wrapped_{ins.opcode.value}_computation",
                    )
                    changed = True
        if changed:
            fuser.finish()
        return changed


def _wants_wrapping(ins: Instruction) -> bool:
    if ins.opcode in NOT_WRAPPED or ins.control_predecessors or ins.control_successors:
        return False
    if has_side_effect(ins):
        return False
    return ins.opcode in ALSO_WRAPPED or is_loop_fusible(ins)
