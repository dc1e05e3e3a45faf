"""Call-graph flattening: give every sequential call site its own computation."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    NameTable,
    clone_computation,
    computation_slots,
    replace_called_computation_at,
)

O = Opcode

#: Opcodes whose called computations run once per execution as control flow (XLA's
#: "sequential" call context); reducers, comparators and fusion bodies are "embedded"
#: and may be shared freely. Async wrappers are left alone: start, update and done share
#: one computation, and cloning it for one of them would split the chain.
SEQUENTIAL_CALLERS = frozenset({O.CALL, O.WHILE, O.CONDITIONAL})


@dataclass(frozen=True)
class FlattenCallGraphPass(Pass):
    """XLA's FlattenCallGraph: a computation called from more than one sequential call
    site (call, while condition/body, conditional branch) is cloned, so that afterwards
    every such computation has exactly one caller. Later passes (while loop
    simplification, invariant code motion) rely on that to edit callees in place.
    Computations unreachable from the entry are not visited.
    """

    name = "flatten-call-graph"
    summary = "clone computations called from several control-flow sites"
    xla = "FlattenCallGraph"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        claimed: set[int] = set()
        visited: set[int] = set()
        queue: deque[Computation] = deque([module.entry])
        changed = False
        while queue:
            comp = queue.popleft()
            if id(comp) in visited:
                continue
            visited.add(id(comp))
            for ins in comp.instructions:
                for key, index, callee in computation_slots(ins):
                    if ins.opcode not in SEQUENTIAL_CALLERS:
                        queue.append(callee)
                        continue
                    if id(callee) in claimed:
                        callee = clone_computation(callee, module, names)
                        replace_called_computation_at(ins, key, index, callee)
                        changed = True
                    claimed.add(id(callee))
                    queue.append(callee)
        return changed
