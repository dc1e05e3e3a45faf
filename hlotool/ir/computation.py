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
    """An HLO computation. `instructions` keeps text (or schedule) order.

    Removals and positioned insertions are recorded and applied to the list in one
    sweep the next time `instructions` is read, so a pass that edits a big computation
    instruction by instruction pays O(1) per edit instead of a list search and shift."""

    name: str
    _instructions: list[Instruction] = field(default_factory=list)
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
    #: Pending edits (ids of instructions still held by `_instructions`, so ids are unique).
    _removed: set[int] = field(default_factory=set, repr=False)
    _before: dict[int, list[Instruction]] = field(default_factory=dict, repr=False)
    _after: dict[int, list[Instruction]] = field(default_factory=dict, repr=False)
    _pending_inserts: int = field(default=0, repr=False)

    # -- the instruction list ----------------------------------------------------------
    @property
    def instructions(self) -> list[Instruction]:
        if self._removed or self._pending_inserts:
            self._apply_edits()
        return self._instructions

    @instructions.setter
    def instructions(self, value: list[Instruction]) -> None:
        self._removed.clear()
        self._before.clear()
        self._after.clear()
        self._pending_inserts = 0
        self._instructions = value

    def _apply_edits(self) -> None:
        """Apply pending removals and insertions in one sweep (into a new list, so an
        iteration over the old one is not disturbed). Insertions land where repeated
        `list.insert` at the anchor would have put them."""
        removed, before, after = self._removed, self._before, self._after
        if not before and not after:
            self.instructions = [i for i in self._instructions if id(i) not in removed]
            return
        out: list[Instruction] = []
        # (instruction, expanded): first its `before` list, then itself and its `after` list.
        stack: list[tuple[Instruction, bool]] = []
        for first in self._instructions:
            stack.append((first, False))
            while stack:
                ins, expanded = stack.pop()
                key = id(ins)
                if not expanded and key in before:
                    stack.append((ins, True))
                    stack.extend((b, False) for b in reversed(before.pop(key)))
                    continue
                if key not in removed:
                    out.append(ins)
                if key in after:
                    stack.extend((a, False) for a in after.pop(key))
        self.instructions = out

    # -- building ------------------------------------------------------------------------
    def add_instruction(self, ins: Instruction) -> Instruction:
        if self._removed and id(ins) in self._removed:
            self._apply_edits()
        ins.parent = self
        self._instructions.append(ins)
        return ins

    def insert_before(self, new: Instruction, anchor: Instruction) -> Instruction:
        """Put `new` right before `anchor` (an instruction of this computation)."""
        return self._insert(new, anchor, self._before)

    def insert_after(self, new: Instruction, anchor: Instruction) -> Instruction:
        """Put `new` right after `anchor` (an instruction of this computation)."""
        return self._insert(new, anchor, self._after)

    def _insert(self, new: Instruction, anchor: Instruction,
                where: dict[int, list[Instruction]]) -> Instruction:
        if anchor.parent is not self:
            raise ValueError(f"{anchor.name} is not in {self.name}")
        if id(new) in self._removed or new.parent is self:
            self._apply_edits()
            if new.parent is self:
                raise ValueError(f"{new.name} is already in {self.name}")
        new.parent = self
        where.setdefault(id(anchor), []).append(new)
        self._pending_inserts += 1
        return new

    def detach(self, ins: Instruction) -> None:
        """Take `ins` out of the list, keeping its operands and users."""
        if ins.parent is not self:
            raise ValueError(f"{ins.name} is not in {self.name}")
        self._removed.add(id(ins))
        ins.parent = None

    def remove_instruction(self, ins: Instruction) -> None:
        """Remove an instruction that has no users (its operands lose one use each)."""
        if ins.users:
            raise ValueError(f"cannot remove {ins.name}: it still has users")
        if ins is self.root:
            raise ValueError(f"cannot remove {ins.name}: it is the root")
        ins.drop_all_operands()
        ins.drop_control_edges()
        self.detach(ins)

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
            # (node, index of its next dependency): operands, then control predecessors.
            # No per-step list is built: a tuple of 40k operands stays linear.
            stack: list[tuple[Instruction, int]] = [(start, 0)]
            visited.add(id(start))
            while stack:
                node, i = stack.pop()
                operands = node._operands
                n = len(operands)
                if i < n:
                    d = operands[i]
                elif i < n + len(node.control_predecessors):
                    d = node.control_predecessors[i - n]
                else:
                    order.append(node)
                    continue
                stack.append((node, i + 1))
                if id(d) not in visited and d.parent is self:
                    visited.add(id(d))
                    stack.append((d, 0))
        return order

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    def __len__(self) -> int:
        return len(self._instructions) - len(self._removed) + self._pending_inserts

    def __repr__(self) -> str:
        return f"<Computation {self.name} ({len(self.instructions)} instructions)>"
