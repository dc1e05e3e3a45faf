"""What an MLIR bytecode file holds, dialect-agnostic: ops, regions, blocks, values, and
attributes/types as (dialect, kind, fields) records that the dialect codecs fill in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class BcType:
    """A type: `dialect` (`vhlo`, `builtin`), `kind` (`RankedTensorV1`, ...) and fields."""

    dialect: str
    kind: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class BcAttr:
    """An attribute, like BcType (fields may hold ints, strs, bytes, tuples, BcAttr, BcType)."""

    dialect: str
    kind: str
    args: tuple[Any, ...] = ()


@dataclass(eq=False, slots=True)
class Value:
    """An SSA value; `type` is set where it is defined (a forward use sees it later)."""

    type: BcType | None = None
    name: str = ""


@dataclass(eq=False, slots=True)
class Block:
    args: list[Value] = field(default_factory=list)
    arg_locs: list[BcAttr | None] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Region:
    blocks: list[Block] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class Op:
    """One operation: `name` is `dialect.op`, `attrs` the attribute dictionary in order."""

    name: str
    loc: BcAttr | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    results: list[Value] = field(default_factory=list)
    operands: list[Value] = field(default_factory=list)
    successors: list[Block] = field(default_factory=list)
    regions: list[Region] = field(default_factory=list)
    isolated: bool = False


@dataclass(slots=True)
class BcModule:
    """A whole file: its version, producer, top-level ops and dialect versions."""

    version: int
    producer: str
    ops: list[Op]
    dialect_versions: dict[str, bytes] = field(default_factory=dict)
