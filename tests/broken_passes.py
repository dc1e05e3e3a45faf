"""Deliberately broken passes for the bisect tests (never registered)."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir import Module, Opcode
from hlotool.passes.base import Pass


@dataclass(frozen=True)
class FlipAddPass(Pass):
    """Test-only miscompile: every add becomes a subtract (the module still verifies)."""

    name = "flip-add"
    summary = "test only: add -> subtract"

    def run(self, module: Module) -> bool:
        changed = False
        for comp in module.computations:
            for ins in comp.instructions:
                if ins.opcode is Opcode.ADD:
                    ins.opcode = Opcode.SUBTRACT
                    changed = True
        return changed
