"""Computation: an ordered list of instructions with one root."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.shape_rules import ProgramShape
from hlotool.ir.types import Shape

if TYPE_CHECKING:
    from hlotool.ir.module import Module


@dataclass(eq=False, slots=True)
class Computation:
    """An HLO computation. `instructions` keeps text (or schedule) order."""

    name: str
    instructions: list[Instruction] = field(default_factory=list)
    root: Instruction | None = None
    parent: Module | None = None
    is_entry: bool = False
    execution_thread: str = "main"
    #: Set on fusion computations: the fusion instruction that calls this one.
    fusion_instruction: Instruction | None = None
    #: Wraps the one instruction of an async op written in sugar form (`negate-start`):
    #: the printer shows it through that op instead of printing the computation.
    async_sugar: bool = False
    #: (line, column) of the name in the source text, (0, 0) when made by a pass.
    location: tuple[int, int] = (0, 0)

    # -- building ------------------------------------------------------------------------
    def add_instruction(self, ins: Instruction) -> Instruction:
        ins.parent = self
        self.instructions.append(ins)
        return ins

    def remove_instruction(self, ins: Instruction) -> None:
        """Remove an instruction that has no users (its operands lose one use each)."""
        if ins.users:
            raise ValueError(f"cannot remove {ins.name}: it still has users")
        if ins is self.root:
            raise ValueError(f"cannot remove {ins.name}: it is the root")
        ins.drop_all_operands()
        ins.drop_control_edges()
        self.instructions.remove(ins)
        ins.parent = None

    # -- queries -----------------------------------------------------------------------
    @property
    def parameters(self) -> list[Instruction]:
        """Parameter instructions ordered by parameter number."""
        params = [i for i in self.instructions if i.opcode is Opcode.PARAMETER]
        return sorted(params, key=lambda i: i.parameter_number)

    def parameter(self, n: int) -> Instruction:
        for i in self.instructions:
            if i.opcode is Opcode.PARAMETER and i.parameter_number == n:
                return i
        raise IndexError(f"{self.name} has no parameter {n}")

    @property
    def num_parameters(self) -> int:
        return sum(1 for i in self.instructions if i.opcode is Opcode.PARAMETER)

    @property
    def program_shape(self) -> ProgramShape:
        assert self.root is not None
        return ProgramShape(tuple(p.shape for p in self.parameters), self.root.shape)

    @property
    def root_shape(self) -> Shape:
        assert self.root is not None
        return self.root.shape

    @property
    def is_fusion_computation(self) -> bool:
        return self.fusion_instruction is not None

    def instruction(self, name: str) -> Instruction:
        for i in self.instructions:
            if i.name == name:
                return i
        raise KeyError(name)

    def post_order(self) -> list[Instruction]:
        """Instructions with every operand (and control predecessor) before its users."""
        order: list[Instruction] = []
        visited: set[int] = set()
        for start in self.instructions:
            if id(start) in visited:
                continue
            stack: list[tuple[Instruction, int]] = [(start, 0)]
            visited.add(id(start))
            while stack:
                node, i = stack.pop()
                deps = node._operands + node.control_predecessors
                if i < len(deps):
                    stack.append((node, i + 1))
                    d = deps[i]
                    if id(d) not in visited and d.parent is self:
                        visited.add(id(d))
                        stack.append((d, 0))
                else:
                    order.append(node)
        return order

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    def __len__(self) -> int:
        return len(self.instructions)

    def __repr__(self) -> str:
        return f"<Computation {self.name} ({len(self.instructions)} instructions)>"
