"""The assembly layer of the StableHLO printer: a small MLIR-like tree of functions, regions,
ops and SSA values, MLIR's value naming, and rendering to text.

The converter (`block`) builds the tree with unnamed values; naming runs
once the whole function is built, because MLIR numbers a region's own results before the
values of its nested regions (`%3:2 = sort ({ %5 = ... })` followed by `%4 = ...`), and
sibling regions reuse the same numbers. Names follow MLIR's `SSANameState`: results are
`%N` (one number per op, `%N:k` / `%N#i` for several results), ops may suggest names
(`%cst`, `%c`, `%iterArg`, `%output_state`) made unique with `_N` suffixes, and entry block
arguments are `%argN`, counted on from the enclosing function's arguments.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterator
from dataclasses import dataclass, field


class Group:
    """The results of one op that MLIR numbers together (`%N:k`)."""

    __slots__ = ("name", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.name = ""


@dataclass(eq=False, slots=True)
class Value:
    """An SSA value: an op result, a block argument or a function argument."""

    type: str
    #: Name suggested by the defining op (`cst`, `iterArg`, ...); empty: numbered.
    hint: str = ""
    group: Group | None = None
    index: int = 0
    #: Assigned by naming (without `%`) for values outside a group.
    name: str = ""

    @property
    def text(self) -> str:
        """The value as an operand: `%x`, `%5`, `%5#1`."""
        if self.group is None:
            return "%" + self.name
        if self.group.size == 1:
            return "%" + self.group.name
        return f"%{self.group.name}#{self.index}"


@dataclass(eq=False, slots=True)
class Symbol:
    """A function symbol; named once the module knows which functions it prints."""

    base: str
    name: str = ""

    @property
    def text(self) -> str:
        return "@" + self.name


@dataclass(frozen=True, slots=True)
class Newline:
    """A line break inside an op, indented `extra` columns past the op's own indent."""

    extra: int = 0


@dataclass(eq=False, slots=True)
class Region:
    """One single-block region: its block arguments and ops."""

    args: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    #: Print the `^bb0(%a: T, ...):` header (generic form); pretty forms name args elsewhere.
    header: bool = True


Part = str | Value | Region | Newline | Symbol


@dataclass(eq=False, slots=True)
class Op:
    """One operation: results (one group, or individually named values) and its text as
    parts; regions appear among the parts where they are printed."""

    parts: list[Part]
    results: list[Value] = field(default_factory=list)
    #: False for ops with side effects (kept even when their results are unused).
    pure: bool = True

    @property
    def regions(self) -> Iterator[Region]:
        return (p for p in self.parts if isinstance(p, Region))


@dataclass(eq=False, slots=True)
class Function:
    """A `func.func`: its symbol, visibility and body (whose block arguments are the
    function's arguments), plus per-argument attributes and the result types."""

    symbol: Symbol
    visibility: str
    body: Region
    #: One attribute-dictionary text (or "") per argument.
    arg_attrs: list[str]
    result_types: list[str]


# -- dead ops -------------------------------------------------------------------------------


def prune(region: Region) -> set[int]:
    """Drop pure ops whose results nothing uses, here and in the regions of the ops that
    stay; returns the ids of the values the remaining ops (nested ones included) use.

    Printing only what is used keeps parse-then-print a fixed point: the front end does not
    rebuild values that nothing reads (e.g. a tuple element a case branch ignores)."""
    used: set[int] = set()
    kept: list[Op] = []
    for op in reversed(region.ops):
        if op.pure and op.results and not any(id(v) in used for v in op.results):
            continue
        kept.append(op)
        for part in op.parts:
            if isinstance(part, Value):
                used.add(id(part))
            elif isinstance(part, Region):
                used |= prune(part)
    region.ops = kept[::-1]
    return used


def symbols(region: Region) -> Iterator[Symbol]:
    """The function symbols the ops of a region use, in text order."""
    for op in region.ops:
        for part in op.parts:
            if isinstance(part, Symbol):
                yield part
            elif isinstance(part, Region):
                yield from symbols(part)


# -- naming ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Counters:
    """MLIR's per-region naming state, copied into each nested region."""

    value: int = 0
    argument: int = 0
    conflict: int = 0


class _Namer:
    """Assign names to the values of one function, as MLIR's SSANameState does."""

    def function(self, body: Region) -> None:
        self.region(body, _Counters(), ChainMap())

    def region(self, region: Region, counters: _Counters, used: ChainMap[str, bool]) -> None:
        scope = used.new_child()
        for arg in region.args:
            if arg.hint:
                arg.name = self.unique(arg.hint, counters, scope)
            else:
                arg.name = self.unique(f"arg{counters.argument}", counters, scope)
                counters.argument += 1
        for op in region.ops:
            self.results(op, counters, scope)
        for op in region.ops:
            for nested in op.regions:
                inner = _Counters(counters.value, counters.argument, counters.conflict)
                self.region(nested, inner, scope)

    def results(self, op: Op, counters: _Counters, scope: ChainMap[str, bool]) -> None:
        if not op.results:
            return
        first = op.results[0]
        if first.group is not None:
            if first.hint:
                first.group.name = self.unique(first.hint, counters, scope)
            else:
                first.group.name = str(counters.value)
                counters.value += 1
            return
        for value in op.results:
            value.name = self.unique(value.hint, counters, scope)

    @staticmethod
    def unique(name: str, counters: _Counters, scope: ChainMap[str, bool]) -> str:
        """`name`, or `name_N` with MLIR's shared conflict counter when taken."""
        if name in scope:
            while True:
                probe = f"{name}_{counters.conflict}"
                counters.conflict += 1
                if probe not in scope:
                    name = probe
                    break
        scope[name] = True
        return name


# -- rendering ------------------------------------------------------------------------------


def render_function(func: Function, indent: str = "  ") -> str:
    """`func.func` with its body (values are named first)."""
    _Namer().function(func.body)
    args = ", ".join(
        f"{a.text}: {a.type}" + (f" {attrs}" if attrs else "")
        for a, attrs in zip(func.body.args, func.arg_attrs, strict=True)
    )
    head = f"{indent}func.func {func.visibility} {func.symbol.text}({args})"
    results = func.result_types
    if len(results) == 1:
        head += f" -> {results[0]}"
    elif results:
        head += " -> (" + ", ".join(results) + ")"
    lines = [head + " {"]
    lines.extend(render_op(op, indent + "  ") for op in func.body.ops)
    lines.append(indent + "}")
    return "\n".join(lines)


def render_op(op: Op, indent: str) -> str:
    """One op (possibly several lines), starting with `indent`."""
    out = [indent, _result_defs(op.results)]
    for part in op.parts:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Value):
            out.append(part.text)
        elif isinstance(part, Newline):
            out.append("\n" + indent + " " * part.extra)
        elif isinstance(part, Symbol):
            out.append(part.text)
        else:
            out.append(render_region(part, indent))
    return "".join(out)


def render_region(region: Region, indent: str) -> str:
    """`{`, the optional block header, the ops, and `}` at the op's indent."""
    lines = ["{"]
    if region.header and region.args:
        args = ", ".join(f"{a.text}: {a.type}" for a in region.args)
        lines.append(f"{indent}^bb0({args}):")
    lines.extend(render_op(op, indent + "  ") for op in region.ops)
    lines.append(indent + "}")
    return "\n".join(lines)


def _result_defs(results: list[Value]) -> str:
    if not results:
        return ""
    group = results[0].group
    if group is None:
        return ", ".join("%" + v.name for v in results) + " = "
    if group.size == 1:
        return f"%{group.name} = "
    return f"%{group.name}:{group.size} = "
