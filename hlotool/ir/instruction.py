"""Instruction: the mutable graph node of the IR (one HLO instruction)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hlotool.ir.attributes import Metadata, ResultAccuracy, Sharding
from hlotool.ir.opcodes import OPS, AttrKind, Opcode, OpSpec
from hlotool.ir.types import Shape

if TYPE_CHECKING:
    from hlotool.ir.computation import Computation
    from hlotool.ir.literal import Literal


@dataclass(eq=False, slots=True)
class Instruction:
    """One HLO instruction. Identity-hashed; operands/users are kept consistent by
    `set_operands`, `replace_operand` and `replace_all_uses_with`."""

    name: str
    opcode: Opcode
    shape: Shape
    _operands: list[Instruction] = field(default_factory=list)
    #: Opcode-specific attributes keyed as in text, typed per `AttrKind` (see opcodes.py).
    #: Computation-valued keys (to_apply, calls, ...) hold Computation objects.
    attrs: dict[str, Any] = field(default_factory=dict)
    #: Instructions that use this one as an operand (with repetition, one entry per use).
    users: list[Instruction] = field(default_factory=list)
    parent: Computation | None = None
    #: Payload of `parameter(N)`.
    parameter_number: int = -1
    #: Payload of `constant(...)`.
    literal: Literal | None = None
    #: For async sugar (`negate-start`): the wrapped opcode's spelling, else "".
    async_wrapped: str = ""
    metadata: Metadata | None = None
    sharding: Sharding | None = None
    #: Raw text of backend_config (a `{...}` blob or the string's contents).
    backend_config: str = ""
    #: Values as raw text: a `{...}` blob verbatim, else the string's contents.
    frontend_attributes: dict[str, str] = field(default_factory=dict)
    control_predecessors: list[Instruction] = field(default_factory=list)
    control_successors: list[Instruction] = field(default_factory=list)
    #: `statistics={...}` kept as canonical text inside the braces.
    statistics: str = ""
    #: `origin={...}` kept as canonical text inside the outer braces.
    origin: str = ""
    result_accuracy: ResultAccuracy | None = None
    #: (line, column) in the source text, (0, 0) when made by a pass.
    location: tuple[int, int] = (0, 0)

    # -- operands and users ------------------------------------------------------------
    @property
    def operands(self) -> tuple[Instruction, ...]:
        return tuple(self._operands)

    def operand(self, i: int) -> Instruction:
        return self._operands[i]

    @property
    def operand_count(self) -> int:
        return len(self._operands)

    def set_operands(self, new: Iterable[Instruction]) -> None:
        """Replace the whole operand list, keeping users lists consistent."""
        for old in self._operands:
            old.users.remove(self)
        self._operands = list(new)
        for op in self._operands:
            op.users.append(self)

    def append_operand(self, op: Instruction) -> None:
        """Add one operand at the end (the others' users lists are not touched)."""
        self._operands.append(op)
        op.users.append(self)

    def remove_operand(self, index: int) -> None:
        """Drop operand `index`; later operands move down."""
        self._operands.pop(index).users.remove(self)

    def replace_operand(self, index: int, new: Instruction) -> None:
        old = self._operands[index]
        old.users.remove(self)
        self._operands[index] = new
        new.users.append(self)

    def replace_all_uses_with(self, new: Instruction) -> None:
        """Point every user (and the parent's root) at `new` instead of self."""
        for user in list(self.users):
            for i, op in enumerate(user._operands):
                if op is self:
                    user.replace_operand(i, new)
        if self.parent is not None and self.parent.root is self:
            self.parent.root = new

    def drop_all_operands(self) -> None:
        self.set_operands(())

    def add_control_predecessor(self, pred: Instruction) -> None:
        if pred not in self.control_predecessors:
            self.control_predecessors.append(pred)
            pred.control_successors.append(self)

    def drop_control_edges(self) -> None:
        for p in self.control_predecessors:
            p.control_successors.remove(self)
        for s in self.control_successors:
            s.control_predecessors.remove(self)
        self.control_predecessors = []
        self.control_successors = []

    @property
    def unique_users(self) -> list[Instruction]:
        """Users in first-use order, each once (instructions hash by identity)."""
        return list(dict.fromkeys(self.users))

    def used_only_by(self, user: Instruction) -> bool:
        """`unique_users == [user]`, without building the list (O(1) on a mismatch
        at the front, which matters for instructions with thousands of users)."""
        return bool(self.users) and all(u is user for u in self.users)

    def has_one_use(self) -> bool:
        return len(self.users) == 1

    # -- table lookups ---------------------------------------------------------------------
    @property
    def spec(self) -> OpSpec:
        return OPS[self.opcode]

    @property
    def called_computations(self) -> list[Computation]:
        """Computations referenced by attributes, in the table's attribute order."""
        out: list[Computation] = []
        for a in OPS[self.opcode].attrs:
            v = self.attrs.get(a.key)
            if v is None:
                continue
            if a.kind is AttrKind.COMPUTATION:
                out.append(v)
            elif a.kind is AttrKind.COMPUTATIONS:
                out.extend(v)
        return out

    def replace_called_computation(self, old: Computation, new: Computation) -> None:
        for a in OPS[self.opcode].attrs:
            v = self.attrs.get(a.key)
            if a.kind is AttrKind.COMPUTATION and v is old:
                self.attrs[a.key] = new
            elif a.kind is AttrKind.COMPUTATIONS and v is not None:
                self.attrs[a.key] = tuple(new if c is old else c for c in v)

    @property
    def is_root(self) -> bool:
        return self.parent is not None and self.parent.root is self

    def operand_shapes(self) -> list[Shape]:
        return [o.shape for o in self._operands]

    def walk_operands(self) -> Iterator[Instruction]:
        yield from self._operands

    def __repr__(self) -> str:
        return f"<Instruction {self.name} = {self.shape} {self.opcode.value}>"

    def __str__(self) -> str:
        from hlotool.ir.printer import print_instruction

        return print_instruction(self)
