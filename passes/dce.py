"""Dead code elimination."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.module import Module
from hlotool.ir.opcodes import SIDE_EFFECTING, Opcode
from hlotool.passes.base import Pass


@dataclass(frozen=True)
class DcePass(Pass):
    """Remove instructions whose values nobody uses, and computations nobody calls.

    Corresponds to XLA's HloDCE: instructions with side effects, parameters and roots are
    kept; with `remove-computations` (default) unreachable computations go too.
    """

    name = "dce"
    summary = "remove unused instructions and uncalled computations"
    xla = "HloDCE"
    remove_computations: bool = True

    def run(self, module: Module) -> bool:
        changed = False
        for comp in module.computations:
            changed |= remove_dead_instructions(comp)
        if self.remove_computations:
            changed |= remove_dead_computations(module)
        return changed


def remove_dead_instructions(comp: Computation) -> bool:
    """Remove dead instructions of one computation, users before operands."""
    changed = False
    for ins in reversed(list(comp.instructions)):
        if ins.users or ins is comp.root or ins.control_successors:
            continue
        side_effect = ins.opcode in SIDE_EFFECTING or bool(
            ins.opcode is Opcode.CUSTOM_CALL and ins.attrs.get("custom_call_has_side_effect")
        )
        if ins.opcode is not Opcode.PARAMETER and not side_effect:
            comp.remove_instruction(ins)
            changed = True
    return changed


def remove_dead_computations(module: Module) -> bool:
    """Remove computations not reachable from the entry through called computations."""
    reachable: set[int] = set()
    stack = [module.entry]
    while stack:
        c = stack.pop()
        if id(c) in reachable:
            continue
        reachable.add(id(c))
        for ins in c.instructions:
            stack.extend(ins.called_computations)
    dead = [c for c in module.computations if id(c) not in reachable]
    for c in dead:
        module.remove_computation(c)
    return bool(dead)
