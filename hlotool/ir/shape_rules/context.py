"""What a shape rule sees of an instruction, and the error it raises."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hlotool.ir.types import Shape


class ShapeError(Exception):
    """A shape rule was violated; the message says how, in XLA's words."""


@dataclass(frozen=True, slots=True)
class ProgramShape:
    """Parameter shapes and result shape of a computation."""

    parameters: tuple[Shape, ...]
    result: Shape


@dataclass(slots=True)
class ShapeContext:
    """What a shape rule sees of one instruction."""

    #: Opcode text spelling (e.g. "add"), to keep this module free of the table.
    opcode: str
    operands: Sequence[Shape]
    #: Typed attributes; computation-valued keys hold objects with a `.program_shape`.
    attrs: Mapping[str, Any]
    #: The shape written in the text, or None when omitted.
    declared: Shape | None

    def program(self, key: str) -> ProgramShape:
        return self.attrs[key].program_shape
