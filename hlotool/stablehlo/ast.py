"""Syntax tree of StableHLO/MLIR text: types, attributes, ops (always in generic form),
regions, functions and the module. Built by `parser`, lowered by `lowering`.

Every node that an error can point at keeps a lark Token (`tok`) for its position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from lark import Token

# -- token soup --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Group:
    """A bracketed run of soup: `open` is one of `[ ( { <` or a `tensor<4x` prefix."""

    open: str
    items: tuple[Any, ...]

    def text(self) -> str:
        """The group as MLIR-like text (tokens joined with single spaces where needed)."""
        return soup_text((self,))


#: A soup item: a Token or a Group.
Soup: TypeAlias = tuple[Any, ...]

_CLOSE = {"[": "]", "(": ")", "{": "}", "<": ">"}
_NO_SPACE_BEFORE = {",", ")", "]", ">", "}", ":"}
_NO_SPACE_AFTER = {"(", "[", "<", "{", ":"}


def soup_text(items: Soup) -> str:
    """Text of a soup run, spaced like MLIR's printer (`a = [1, 2]`, `f(x)`, `k=4` kept)."""
    out: list[str] = []
    for item in items:
        piece = _item_text(item)
        if out and not (
            piece[:1] in _NO_SPACE_BEFORE
            or out[-1][-1:] in _NO_SPACE_AFTER
            or (out[-1].endswith("x") and out[-1].startswith("tensor<"))
        ):
            out.append(" ")
        out.append(piece)
    return "".join(out)


def _item_text(item: Any) -> str:
    if isinstance(item, Group):
        close = _CLOSE.get(item.open, ">")
        return item.open + soup_text(item.items) + close
    return str(item)


# -- types -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MlirType:
    """Base of the type nodes."""


@dataclass(frozen=True, slots=True)
class BuiltinType(MlirType):
    """A bare builtin type: `f32`, `i1`, `ui8`, `bf16`, `index`, `none`, ..."""

    name: str
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ComplexType(MlirType):
    element: MlirType


@dataclass(frozen=True, slots=True)
class TensorType(MlirType):
    """`tensor<4x?xf32, #enc>`; `?` dimensions are -1."""

    dims: tuple[int, ...]
    element: MlirType
    encoding: Any = None
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TupleType(MlirType):
    types: tuple[MlirType, ...]


@dataclass(frozen=True, slots=True)
class FutureType(MlirType):
    """`!stablehlo.future<T, ...>` (async collectives)."""

    types: tuple[MlirType, ...]


@dataclass(frozen=True, slots=True)
class DialectType(MlirType):
    """`!stablehlo.token`, `!quant.uniform<...>`, or a type alias `!name`."""

    name: str
    body: Group | None = None
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class FunctionType(MlirType):
    inputs: tuple[MlirType, ...]
    results: tuple[MlirType, ...]


# -- attributes ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IntAttr:
    value: int
    type: MlirType | None = None
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class FloatAttr:
    value: float
    text: str
    type: MlirType | None = None
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class StringAttr:
    value: str
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class WordAttr:
    """A bare word: `true`, `false`, `unit`, an enum spelling, a builtin type name."""

    word: str
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class UnitAttr:
    """A key with no value (`use_global_device_ids`)."""


@dataclass(frozen=True, slots=True)
class ListAttr:
    items: tuple[Any, ...]
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class DictAttr:
    entries: tuple[tuple[str, Any], ...]
    tok: Token | None = field(default=None, compare=False)

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.entries:
            if k == key:
                return v
        return default

    def as_dict(self) -> dict[str, Any]:
        return dict(self.entries)


@dataclass(frozen=True, slots=True)
class DenseArrayAttr:
    """`array<i64: 1, 2>` (values as Python ints, floats or bools)."""

    element: str
    values: tuple[Any, ...]
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class DenseAttr:
    """`dense<...> : tensor<...>`, body kept as text (decoded against the type on use)."""

    body: str
    type: MlirType
    tok: Token | None = field(default=None, compare=False)
    #: `dense_resource<name>`: body is the resource name.
    is_resource: bool = False


@dataclass(frozen=True, slots=True)
class SymbolAttr:
    """`@name`, unquoted (nested references keep their `::@` separators)."""

    name: str
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class DialectAttr:
    """`#stablehlo.gather<...>`, `#stablehlo<precision HIGH>`, `#loc3` (no body)."""

    name: str
    body: Group | None = None
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TypeAttr:
    type: MlirType


@dataclass(frozen=True, slots=True)
class LocAttr:
    """`loc(...)`: the soup inside the parentheses."""

    items: Soup


# -- pretty-form only values (turned into attributes by pretty) ----------------------


@dataclass(frozen=True, slots=True)
class Brackets:
    """`[0] x [1]`, `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`, `[1, 2]`: the lists, and
    the list after `->` when present."""

    lists: tuple[tuple[Any, ...], ...]
    arrow: tuple[Any, ...] | None = None
    tok: Token | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class SliceSpec:
    """`%x [1:3, 0:8:2]` / `%t[1]`: (start, limit or None, stride or None) per entry."""

    entries: tuple[tuple[int, int | None, int | None], ...]
    tok: Token | None = field(default=None, compare=False)


# -- ops, regions, functions ----------------------------------------------------------------


@dataclass(slots=True)
class ValueRef:
    """A use `%name` or `%name#k`."""

    name: str
    index: int | None
    tok: Token


@dataclass(slots=True)
class ResultDef:
    """`%name` (count 1) or `%name:N` on the left of `=`."""

    name: str
    count: int
    tok: Token


@dataclass(slots=True)
class BlockArg:
    name: str
    type: MlirType
    tok: Token
    loc: LocAttr | None = None


@dataclass(slots=True)
class RegionAst:
    args: list[BlockArg]
    ops: list[OpAst]
    tok: Token | None


@dataclass(slots=True)
class OpAst:
    """One operation in generic form (pretty forms are normalized into this)."""

    name: str
    tok: Token
    operands: list[ValueRef] = field(default_factory=list)
    #: Inherent and discardable attributes merged (`<{...}>` and `{...}`).
    attrs: dict[str, Any] = field(default_factory=dict)
    regions: list[RegionAst] = field(default_factory=list)
    operand_types: list[MlirType] | None = None
    result_types: list[MlirType] = field(default_factory=list)
    results: list[ResultDef] = field(default_factory=list)
    loc: LocAttr | None = None
    #: Token of each attribute's key (for positioned errors), when known.
    attr_toks: dict[str, Token] = field(default_factory=dict)

    def attr_tok(self, key: str) -> Token:
        return self.attr_toks.get(key, self.tok)


@dataclass(slots=True)
class ArgAst:
    name: str | None
    type: MlirType
    attrs: DictAttr | None
    loc: LocAttr | None
    tok: Token | None


@dataclass(slots=True)
class FuncAst:
    name: str
    tok: Token
    visibility: str
    args: list[ArgAst]
    results: list[tuple[MlirType, DictAttr | None]]
    attrs: DictAttr | None
    body: RegionAst | None
    loc: LocAttr | None = None


@dataclass(slots=True)
class ModuleAst:
    name: str | None
    tok: Token | None
    attrs: DictAttr | None
    funcs: list[FuncAst] = field(default_factory=list)
    #: Module-level ops other than functions (sdy.mesh, generic ops we keep for errors).
    others: list[OpAst] = field(default_factory=list)


@dataclass(slots=True)
class FileAst:
    """A whole file: its modules (a bare `func.func` list makes an unnamed one), the
    `#alias = ...` table and the dialect resource blobs."""

    modules: list[ModuleAst]
    aliases: dict[str, Any] = field(default_factory=dict)
    type_aliases: dict[str, MlirType] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)


# -- pretty-form pieces (the items between a pretty op's name and its `:`) ----------------------


@dataclass(frozen=True, slots=True)
class KwArg:
    """`key = value` in a pretty op (`dims = [0, 1]`, `type = FFT`, `window = {...}`)."""

    key: str
    value: Any
    tok: Token


@dataclass(frozen=True, slots=True)
class Paren:
    """A parenthesised run of pretty items (`(%x, %w)`, `(%x, k = 3)`)."""

    items: tuple[Any, ...]
    tok: Token | None = None


@dataclass(frozen=True, slots=True)
class Comma:
    """A `,` between pretty items (kept: `compare GT, %a` needs to know where words end)."""


@dataclass(frozen=True, slots=True)
class Signature:
    """`: T`, `: T1, T2`, `: (T1, T2) -> T3`, `: T -> U`."""

    inputs: tuple[MlirType, ...]
    results: tuple[MlirType, ...] | None
    #: `: (T1, T2)` without `-> ...` (an error, reported at the op).
    paren: bool = False
