"""Converting one HLO computation into one MLIR block (a function body or an op's region).

Each instruction becomes a `Ref`: a real SSA value (`ValueRef`), or a virtual tuple
(`TupleRef`) whose elements are refs. Tuples are virtual because StableHLO ops have several
results where HLO returns a tuple: a tuple-shaped reduce, sort, while, call, ... prints as
`%0:2 = ...` and its get-tuple-elements become `%0#0`, `%0#1` without printing anything; a
`tuple` instruction is just its operands until some op needs the tuple itself, which is
then built with `stablehlo.tuple` right before that op ("materialized").

Regions are closed like HLO computations, except case/if branches, which read the values
their HLO parameter stands for from the enclosing block (StableHLO branches have no
arguments). An outer constant is re-created inside the branch instead, as the StableHLO
front end does, so that printing what it reads back gives the same text.

Only instructions that reach the root (or have side effects) are converted, and ops whose
results end up unused are dropped before printing (`asm.prune`): the
StableHLO front end reads the text back into the structures converted here, so printing is
a fixed point of parse-then-print.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from hlotool.diagnostics import HloError
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import Literal
from hlotool.ir.opcodes import OPS, Opcode
from hlotool.ir.types import Shape
from hlotool.stablehlo.printer.asm import Group, Op, Part, Region, Symbol, Value
from hlotool.stablehlo.printer.text import dense_text, quote, value_type


@dataclass(eq=False, slots=True)
class ValueRef:
    """A real SSA value of the block `owner`; `literal` when it is a constant."""

    value: Value
    shape: Shape
    owner: Block
    literal: Literal | None = None


@dataclass(eq=False, slots=True)
class TupleRef:
    """A tuple that exists only as its elements."""

    elements: list[Ref]
    shape: Shape


Ref = ValueRef | TupleRef
#: An attribute-dictionary entry: `key = value` text, or parts (when it names functions).
Entry = str | list[Part]
Handler = Callable[["Block", Instruction], Ref]

#: Opcode -> converter; `ops` registers into it.
HANDLERS: dict[Opcode, Handler] = {}


def handles(*opcodes: Opcode) -> Callable[[Handler], Handler]:
    """Register a converter for one or more opcodes."""

    def register(fn: Handler) -> Handler:
        for opcode in opcodes:
            HANDLERS[opcode] = fn
        return fn

    return register


class ModuleContext(Protocol):
    """What a block needs from the module it is printed in (`ModulePrinter` provides it)."""

    def function(self, comp: Computation) -> Symbol:
        """The symbol of the function for `comp`, converting it on first use."""
        ...

    def live_instructions(self, comp: Computation) -> list[Instruction]:
        """The instructions of `comp` to convert, in dependency order."""
        ...


class Block:
    """The ops of one region, built from one computation."""

    def __init__(
        self,
        printer: ModuleContext,
        comp: Computation,
        region: Region,
        *,
        is_function: bool = False,
        flat: bool = False,
    ) -> None:
        self.printer = printer
        self.comp = comp
        self.region = region
        self.is_function = is_function
        #: Return every leaf of a tuple root (while bodies, case branches: StableHLO has
        #: no tuple-typed loop state or branch results), not just its elements.
        self.flat = flat
        self.refs: dict[int, Ref] = {}
        #: Tuples materialized and outer constants re-created in this block, by ref.
        self._made: dict[int, Value] = {}

    # -- spelling ---------------------------------------------------------------------------
    @property
    def call_op(self) -> str:
        """`call` in a function body (MLIR drops the default dialect), else `func.call`."""
        return "call" if self.is_function else "func.call"

    @property
    def return_op(self) -> str:
        return "return" if self.is_function else "stablehlo.return"

    # -- building ---------------------------------------------------------------------------
    def child(self, comp: Computation, *, header: bool = True, flat: bool = False) -> Block:
        """A block for a region of an op in this block."""
        return Block(self.printer, comp, Region(header=header), flat=flat)

    def bind_arguments(self, params: Sequence[Instruction], hint: str = "") -> None:
        """One block argument per parameter."""
        for param in params:
            arg = Value(value_type(param.shape), hint)
            self.region.args.append(arg)
            self.refs[id(param)] = ValueRef(arg, param.shape, self)

    def bind_leaves(self, params: Sequence[Instruction], hint: str = "") -> None:
        """One block argument per leaf of each (tuple) parameter (while state, entry)."""
        for param in params:
            refs: list[Ref] = []
            for shape in param.shape.leaves():
                arg = Value(value_type(shape), hint)
                self.region.args.append(arg)
                refs.append(ValueRef(arg, shape, self))
            self.refs[id(param)] = nest(param.shape, iter(refs))

    def convert(self) -> Region:
        """Convert the computation's live instructions and end with the return."""
        for ins in self.printer.live_instructions(self.comp):
            if ins.opcode is Opcode.PARAMETER:
                continue
            handler = HANDLERS.get(ins.opcode)
            if handler is None:
                raise HloError(
                    f"{ins.opcode.value} (instruction {ins.name}) has no StableHLO form"
                )
            self.refs[id(ins)] = handler(self, ins)
        assert self.comp.root is not None
        values = [self.value(r) for r in self.returned(self.ref(self.comp.root))]
        parts: list[Part] = [self.return_op]
        if values:
            parts += [" ", *commas(values), " : ", ", ".join(v.type for v in values)]
        self.region.ops.append(Op(parts))
        return self.region

    def returned(self, ref: Ref) -> list[Ref]:
        """What a region returns for its root: the elements (or leaves) of a tuple, else
        the value itself."""
        if self.flat:
            return self.leaves(ref)
        return self.flatten(ref) if ref.shape.is_tuple else [ref]

    def emit(
        self,
        parts: list[Part],
        shapes: Sequence[Shape],
        hint: str = "",
        names: Sequence[str] = (),
        pure: bool = True,
    ) -> list[ValueRef]:
        """Append an op with one result per shape: numbered together (`%N:k`), or with
        one suggested name each when `names` is given."""
        if names:
            values = [Value(value_type(s), n) for s, n in zip(shapes, names, strict=True)]
        else:
            group = Group(len(shapes))
            values = [Value(value_type(s), hint, group, i) for i, s in enumerate(shapes)]
        self.region.ops.append(Op(parts, values, pure))
        return [ValueRef(v, s, self) for v, s in zip(values, shapes, strict=True)]

    def emit_for(
        self, ins: Instruction, parts: list[Part], names: Sequence[str] = ()
    ) -> Ref:
        """Append the op of `ins`: one result, or one per element of its tuple shape."""
        shapes = result_shapes(ins.shape)
        refs = self.emit(parts, shapes, names=names, pure=not is_side_effecting(ins))
        return TupleRef(list(refs), ins.shape) if ins.shape.is_tuple else refs[0]

    def emit_leaves(self, ins: Instruction, parts: list[Part]) -> Ref:
        """Append the op of `ins` with one result per leaf of its (nested) tuple shape."""
        refs = self.emit(parts, ins.shape.leaves(), pure=not is_side_effecting(ins))
        return nest(ins.shape, iter(refs))

    def constant(self, lit: Literal, attrs: Sequence[Part] = ()) -> ValueRef:
        """`%cst = stablehlo.constant dense<...> : T` (`%c` for integers and booleans);
        `attrs` is an attribute dictionary printed before the literal."""
        t = lit.shape.element_type
        hint = "cst" if t.is_float or t.is_complex else "c"
        parts: list[Part] = ["stablehlo.constant", *attrs, " " + dense_text(lit)]
        (ref,) = self.emit(parts, [lit.shape], hint)
        ref.literal = lit
        return ref

    # -- values -----------------------------------------------------------------------------
    def ref(self, ins: Instruction) -> Ref:
        return self.refs[id(ins)]

    def operand(self, ins: Instruction, i: int) -> Value:
        """Operand `i` of `ins` as a value of this block."""
        return self.value(self.ref(ins.operand(i)))

    def operands(self, ins: Instruction) -> list[Value]:
        return [self.operand(ins, i) for i in range(ins.operand_count)]

    def value(self, ref: Ref) -> Value:
        """A value usable here: tuples are materialized, outer constants re-created."""
        if isinstance(ref, ValueRef) and (ref.owner is self or ref.literal is None):
            return ref.value
        made = self._made.get(id(ref))
        if made is None:
            made = self._make(ref)
            self._made[id(ref)] = made
        return made

    def _make(self, ref: Ref) -> Value:
        if isinstance(ref, ValueRef):
            assert ref.literal is not None
            return self.constant(ref.literal).value
        values = [self.value(e) for e in ref.elements]
        parts: list[Part] = ["stablehlo.tuple"]
        if values:
            parts += [" ", *commas(values)]
        parts.append(" : " + value_type(ref.shape))
        return self.emit(parts, [ref.shape])[0].value

    def flatten(self, ref: Ref) -> list[Ref]:
        """The elements of a tuple ref; a real tuple value is taken apart with
        `stablehlo.get_tuple_element` ops."""
        if isinstance(ref, TupleRef):
            return list(ref.elements)
        return [self.get_element(ref, i) for i in range(len(ref.shape.tuple_shapes))]

    def leaves(self, ref: Ref) -> list[Ref]:
        """Every non-tuple part of a ref, depth first."""
        if not ref.shape.is_tuple:
            return [ref]
        return [leaf for element in self.flatten(ref) for leaf in self.leaves(element)]

    def get_element(self, ref: ValueRef, i: int) -> ValueRef:
        tup = self.value(ref)
        shape = ref.shape.tuple_shapes[i]
        parts: list[Part] = [
            "stablehlo.get_tuple_element ", tup, f"[{i}] : ({tup.type}) -> {value_type(shape)}"
        ]  # fmt: skip
        return self.emit(parts, [shape])[0]

    # -- attributes -------------------------------------------------------------------------
    def attr_dict(
        self, ins: Instruction, entries: Sequence[Entry] = (), prefix: str = " "
    ) -> list[Part]:
        """`{k = v, ...}` of an op's own entries and the instruction's frontend attributes
        and sharding, sorted by key as MLIR prints dictionaries; nothing when empty."""
        items = sorted([*entries, *discardable_attrs(ins)], key=_attr_key)
        if not items:
            return []
        parts: list[Part] = [prefix + "{"]
        for i, item in enumerate(items):
            parts += [", " if i else "", *([item] if isinstance(item, str) else item)]
        parts.append("}")
        return parts


def result_shapes(shape: Shape) -> list[Shape]:
    """The op results for an HLO shape: a tuple's elements, else the shape itself."""
    return list(shape.tuple_shapes) if shape.is_tuple else [shape]


def nest(shape: Shape, leaves: Iterator[Ref]) -> Ref:
    """A ref of `shape` built from refs of its leaves (taken in order)."""
    if not shape.is_tuple:
        return next(leaves)
    return TupleRef([nest(s, leaves) for s in shape.tuple_shapes], shape)


def commas(values: Sequence[Value]) -> list[Part]:
    """`%a, %b, %c` as parts."""
    parts: list[Part] = []
    for i, v in enumerate(values):
        if i:
            parts.append(", ")
        parts.append(v)
    return parts


def discardable_attrs(ins: Instruction) -> list[str]:
    """`mhlo.frontend_attributes` and `mhlo.sharding` entries of an instruction."""
    out = []
    if ins.frontend_attributes:
        fe = ", ".join(f"{_attr_name(k)} = {quote(v)}"
                       for k, v in sorted(ins.frontend_attributes.items()))  # fmt: skip
        out.append(f"mhlo.frontend_attributes = {{{fe}}}")
    if ins.sharding is not None:
        out.append(f"mhlo.sharding = {quote('{' + ins.sharding.text + '}')}")
    return out


def _attr_name(key: str) -> str:
    """A dictionary key: bare when it is an identifier, else quoted."""
    ok = key and (key[0].isalpha() or key[0] == "_")
    ok = ok and all(ch.isalnum() or ch in "_$." for ch in key)
    return key if ok else quote(key)


def _attr_key(entry: Entry) -> str:
    first = entry if isinstance(entry, str) else str(entry[0])
    return first.split(" = ", 1)[0].strip('"')


def is_side_effecting(ins: Instruction) -> bool:
    """Printed even when nothing uses it."""
    return OPS[ins.opcode].side_effecting or bool(
        ins.attrs.get("custom_call_has_side_effect", False)
    )
