"""Horizontal loop fusion (XLA:GPU's HorizontalLoopFusion).

On a GPU every kernel launch costs a few microseconds, so many small independent loop
fusions are cheaper as one kernel. Candidates are the small kLoop fusions that feed the
same consumer (often the root tuple, or a concatenate) and nothing else; such fusions
cannot depend on each other, since each one's only user is that consumer. Fusions with
the same output dimensions are merged into one multi-output fusion (XLA's non-sliced
variant: one loop, a tuple of results); the consumer reads the results through
get-tuple-element.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hlotool.analysis.liveness import sequential_computations
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.instruction_fusion import Fuser, heroes
from hlotool.passes.multi_output_fusion import merge_siblings

O = Opcode


def is_horizontal_candidate(ins: Instruction, consumer: Instruction, max_elements: int) -> bool:
    """A small, single-output kLoop fusion used only by `consumer`."""
    if ins.opcode is not O.FUSION or ins.attrs.get("kind") != "kLoop" or ins.shape.is_tuple:
        return False
    body: Computation = ins.attrs["calls"]
    assert body.root is not None
    return (
        ins.unique_users == [consumer]
        and not ins.control_successors
        and not ins.control_predecessors
        and ins.shape.element_count <= max_elements
        and not heroes(body)
        and body.root.opcode is not O.DYNAMIC_UPDATE_SLICE
    )


@dataclass(frozen=True)
class HorizontalFusionPass(Pass):
    """Merge small independent loop fusions feeding one consumer into one kernel with a
    tuple of results (XLA:GPU's HorizontalLoopFusion)."""

    name: ClassVar[str] = "horizontal-fusion"
    summary: ClassVar[str] = "batch small independent loop fusions into one kernel (GPU)"
    xla: ClassVar[str] = "HorizontalLoopFusion"
    #: Fusions with more output elements run long enough on their own.
    max_elements: int = 1 << 20
    #: Most fusions merged into one kernel.
    max_fusions: int = 16

    def run(self, module: Module) -> bool:
        fuser = Fuser.of(module)
        changed = False
        for comp in sequential_computations(module):
            for consumer in list(comp.instructions):
                if consumer.parent is comp:
                    changed |= self._fuse_operands(fuser, consumer)
        if changed:
            fuser.finish()
        return changed

    def _fuse_operands(self, fuser: Fuser, consumer: Instruction) -> bool:
        groups: dict[tuple[int, ...], list[Instruction]] = {}
        for operand in dict.fromkeys(consumer.operands):
            if is_horizontal_candidate(operand, consumer, self.max_elements):
                groups.setdefault(operand.shape.dimensions, []).append(operand)
        changed = False
        for group in groups.values():
            for start in range(0, len(group), self.max_fusions):
                chunk = group[start : start + self.max_fusions]
                if len(chunk) < 2:
                    continue
                merged = _place_last(chunk)
                for other in chunk:
                    if other is not merged:
                        merged = merge_siblings(fuser, merged, other)
                changed = True
        return changed


def _place_last(chunk: list[Instruction]) -> Instruction:
    """The member defined last: merging into it keeps every operand ahead of it."""
    comp = chunk[0].parent
    assert comp is not None
    position = {id(i): n for n, i in enumerate(comp.instructions)}
    return max(chunk, key=lambda i: position[id(i)])
