"""The syntax tree of HLO text: what `grammar/hlo.lark` produces, before name
resolution and attribute typing (done by `hlotool.hlo.lowering`).

Tokens are Lark tokens (str subclasses with `.line` and `.column`), kept so that every
later error can point at the text. Shapes are already IR values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lark import Token

from hlotool.ir.types import Shape


class IntList(tuple[int, ...]):
    """An INT_LIST token's integers, with the token's position for error reports."""

    line: int
    column: int

    @staticmethod
    def from_token(tok: Token) -> IntList:
        body = str(tok)[1:-1].strip()
        out = IntList(int(x) for x in body.split(",")) if body else IntList()
        out.line, out.column = tok.line, tok.column
        return out


@dataclass(slots=True)
class OperandRef:
    """`f32[2] %x` or `x` in an operand list."""

    shape: Shape | None
    name: Token


@dataclass(slots=True)
class InstrAst:
    """One instruction line, or a nested instruction inside an operand list."""

    name: Token | None
    shape: Shape | None
    opcode: Token
    operands: list[OperandRef | InstrAst]
    #: constant: literal syntax tree; parameter: the INT token; else None.
    payload: Any = None
    attrs: list[AttrAst] = field(default_factory=list)
    is_root: bool = False
    #: When the operands came as one OPERAND_LIST token, `operands` holds plain strings
    #: and this token gives their positions (see lexer.operand_names).
    operand_list: Token | None = None


@dataclass(slots=True)
class AttrAst:
    """`key=value`; `form` tells which grammar rule read the value."""

    key: Token
    value: Any
    form: str = "generic"

    @property
    def name(self) -> str:
        return str(self.key)[:-1]


@dataclass(slots=True)
class BraceAst:
    """A generic `{item, item, ...}` value."""

    items: list[Any]


@dataclass(slots=True)
class KvsAst:
    """Space-separated `k=v k2=v2` pairs inside a brace (windows, metadata, ...)."""

    pairs: list[tuple[Token, Any]]


@dataclass(slots=True)
class SliceAst:
    """`[start:limit:stride]`."""

    start: Token
    limit: Token
    stride: Token | None


@dataclass(slots=True)
class InlineBodyAst:
    """An inline computation `{ x = ... ROOT y = ... }` used as an attribute value."""

    instructions: list[InstrAst]


@dataclass(slots=True)
class ComputationAst:
    is_entry: bool
    name: Token
    instructions: list[InstrAst]
    #: Signature result shape (checked against the root), or None.
    result_shape: Shape | None = None
    execution_thread: str = "main"
    thread_key: Token | None = None


@dataclass(slots=True)
class ModuleAst:
    name: Token | None
    header: list[AttrAst]
    stack_frames: Any
    computations: list[ComputationAst]
