"""Helpers shared by passes: building instructions in place, fresh names, replacing and
removing instructions, recognizing constants, evaluating constant expressions with the
interpreter, and cloning computations.

Every pass keeps `Computation.instructions` topological (operands before users), because
the printer prints list order and the verifier checks it: new instructions go right
before the instruction they serve (`Builder.anchor`), never at the end.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hlotool.ir.attributes import Metadata
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import Literal
from hlotool.ir.module import Module
from hlotool.ir.opcodes import OPS, SIDE_EFFECTING, AttrKind, Opcode
from hlotool.ir.shape_rules import ShapeContext
from hlotool.ir.structure import clone_instruction
from hlotool.ir.types import Layout, PrimitiveType, Shape

O = Opcode


# -- computations and the call graph -------------------------------------------------------


def non_fusion_computations(module: Module) -> list[Computation]:
    """Computations that are not the body of a fusion (what XLA's passes visit)."""
    return [c for c in module.computations if not c.is_fusion_computation]


def call_sites(module: Module) -> dict[int, list[Instruction]]:
    """id(computation) -> the instructions that call it (one entry per reference)."""
    sites: dict[int, list[Instruction]] = {}
    for comp in module.computations:
        for ins in comp.instructions:
            for callee in ins.called_computations:
                sites.setdefault(id(callee), []).append(ins)
    return sites


def has_single_caller(module: Module, comp: Computation, caller: Instruction) -> bool:
    """True when `caller` is the only instruction referencing `comp`, and only once."""
    return call_sites(module).get(id(comp), []) == [caller]


def remove_unreferenced(module: Module, comps: Iterable[Computation]) -> None:
    """Remove those of `comps` (and, transitively, their callees) nobody calls any more."""
    pending = list(comps)
    while pending:
        sites = call_sites(module)
        dead = [c for c in dict.fromkeys(pending)
                if c.parent is module and not c.is_entry and id(c) not in sites]
        if not dead:
            return
        pending = []
        for c in dead:
            pending.extend(i for ins in c.instructions for i in ins.called_computations)
            module.remove_computation(c)


def computation_slots(ins: Instruction) -> list[tuple[str, int | None, Computation]]:
    """(attribute, index or None, computation) for every called-computation reference."""
    out: list[tuple[str, int | None, Computation]] = []
    for a in OPS[ins.opcode].attrs:
        v = ins.attrs.get(a.key)
        if v is None:
            continue
        if a.kind is AttrKind.COMPUTATION:
            out.append((a.key, None, v))
        elif a.kind is AttrKind.COMPUTATIONS:
            out.extend((a.key, i, c) for i, c in enumerate(v))
    return out


def replace_called_computation_at(ins: Instruction, key: str, index: int | None,
                                  new: Computation) -> None:
    """Replace one called-computation slot: attribute `key`, list position `index`."""
    if index is None:
        ins.attrs[key] = new
    else:
        comps = list(ins.attrs[key])
        comps[index] = new
        ins.attrs[key] = tuple(comps)


# -- side effects --------------------------------------------------------------------------


def has_side_effect(ins: Instruction) -> bool:
    """XLA's HasSideEffect: side-effecting opcodes, side-effecting custom-calls, and
    instructions whose called computations contain either."""
    if ins.opcode in SIDE_EFFECTING:
        return True
    if ins.opcode is O.CUSTOM_CALL and ins.attrs.get("custom_call_has_side_effect"):
        return True
    return any(computation_has_side_effect(c) for c in ins.called_computations)


def computation_has_side_effect(comp: Computation) -> bool:
    """Does anything in `comp` (or what it calls) have a side effect? Inside
    `side_effect_cache()` the answer is computed once per computation."""
    cache: dict[int, tuple[Computation, bool]] | None = getattr(_SIDE_EFFECTS, "cache", None)
    if cache is None:
        return any(has_side_effect(i) for i in comp.instructions)
    hit = cache.get(id(comp))
    if hit is None or hit[0] is not comp:
        hit = cache[id(comp)] = (comp, any(has_side_effect(i) for i in comp.instructions))
    return hit[1]


_SIDE_EFFECTS = threading.local()


@contextmanager
def side_effect_cache() -> Iterator[None]:
    """Remember which computations have side effects while the block runs (passes that
    ask once per candidate pair: fusion). Passes move side-effecting instructions but
    never create or delete them, so an answer stays true for the block's duration."""
    outer = getattr(_SIDE_EFFECTS, "cache", None)
    _SIDE_EFFECTS.cache = {} if outer is None else outer
    try:
        yield
    finally:
        _SIDE_EFFECTS.cache = outer


# -- names ---------------------------------------------------------------------------------


_SUFFIX = re.compile(r"\.\d+$")


class NameTable:
    """Module-wide unique instruction and computation names (XLA's NameUniquer)."""

    def __init__(self, module: Module) -> None:
        self.taken: set[str] = {c.name for c in module.computations}
        self.taken.update(i.name for c in module.computations for i in c.instructions)
        self._next: dict[str, int] = {}

    def fresh(self, base: str) -> str:
        """`base` itself when free, else `base.N` (a numeric suffix of `base` is replaced)."""
        if base not in self.taken:
            self.taken.add(base)
            return base
        stem = _SUFFIX.sub("", base)
        n = self._next.get(stem, 1)
        while f"{stem}.{n}" in self.taken:
            n += 1
        self._next[stem] = n + 1
        name = f"{stem}.{n}"
        self.taken.add(name)
        return name


# -- building ------------------------------------------------------------------------------


def infer_shape(opcode: Opcode, operands: Sequence[Instruction], attrs: dict[str, Any],
                declared: Shape | None = None) -> Shape:
    """The result shape by the opcode's shape rule; `declared` (required for opcodes XLA
    cannot infer, such as reshape or convert) wins when compatible, keeping its layout."""
    ctx = ShapeContext(opcode.value, [o.shape for o in operands], attrs, declared)
    inferred: Shape = OPS[opcode].shape_rule(ctx)
    if declared is None:
        return inferred
    if not inferred.compatible(declared):
        raise ValueError(f"{opcode.value}: declared {declared} but the rule gives {inferred}")
    return declared


def insert_before(comp: Computation, new: Instruction, anchor: Instruction | None) -> Instruction:
    """Put `new` into `comp` right before `anchor` (at the end when None)."""
    if anchor is None:
        return comp.add_instruction(new)
    return comp.insert_before(new, anchor)


@dataclass
class Builder:
    """Creates instructions in one computation, each placed right before `anchor` so
    that the list stays topological. New instructions inherit `metadata` (XLA's
    SetupDerivedInstruction)."""

    comp: Computation
    names: NameTable
    anchor: Instruction | None = None
    metadata: Metadata | None = None
    #: Every instruction this builder made, in creation order.
    created: list[Instruction] = field(default_factory=list)

    @staticmethod
    def before(anchor: Instruction, names: NameTable) -> Builder:
        """A builder inserting before `anchor`, in its computation, with its metadata."""
        assert anchor.parent is not None
        return Builder(anchor.parent, names, anchor, anchor.metadata)

    def add(self, opcode: Opcode, operands: Sequence[Instruction],
            attrs: dict[str, Any] | None = None, shape: Shape | None = None,
            name: str | None = None) -> Instruction:
        """A new instruction; its shape comes from the shape rule unless given."""
        attrs = dict(attrs or {})
        shape = infer_shape(opcode, operands, attrs, shape)
        ins = Instruction(self.names.fresh(name or opcode.value), opcode, shape, attrs=attrs,
                          metadata=self.metadata)
        ins.set_operands(operands)
        return self.place(ins)

    def place(self, ins: Instruction) -> Instruction:
        """Insert an instruction made elsewhere (it keeps its name)."""
        insert_before(self.comp, ins, self.anchor)
        self.created.append(ins)
        return ins

    # -- shorthands ---------------------------------------------------------------------
    def constant(self, literal: Literal, name: str = "constant") -> Instruction:
        ins = Instruction(self.names.fresh(name), O.CONSTANT, literal.shape, literal=literal,
                          metadata=self.metadata)
        return self.place(ins)

    def scalar(self, value: Any, element_type: PrimitiveType) -> Instruction:
        return self.constant(Literal.from_array(np.asarray(value), element_type))

    def splat(self, value: Any, shape: Shape) -> Instruction:
        """`value` in every element of `shape`: a scalar constant, broadcast if needed."""
        scalar = self.scalar(value, shape.element_type)
        if shape.rank == 0:
            return scalar
        return self.broadcast(scalar, shape, ())

    def broadcast(self, x: Instruction, shape: Shape, dims: Sequence[int]) -> Instruction:
        """Broadcast into `shape` (x itself when that would be the identity)."""
        if x.shape.dimensions == shape.dimensions and list(dims) == list(range(len(dims))):
            return x
        return self.add(O.BROADCAST, [x], {"dimensions": tuple(dims)},
                        Shape.array(x.shape.element_type, shape.dimensions))

    def reshape(self, x: Instruction, dims: Sequence[int]) -> Instruction:
        """Reshape to `dims` (x itself when it already has them)."""
        if tuple(dims) == x.shape.dimensions:
            return x
        return self.add(O.RESHAPE, [x], shape=Shape.array(x.shape.element_type, tuple(dims)))

    def transpose(self, x: Instruction, perm: Sequence[int]) -> Instruction:
        """Transpose by `perm` (x itself for the identity permutation)."""
        if list(perm) == list(range(len(perm))):
            return x
        return self.add(O.TRANSPOSE, [x], {"dimensions": tuple(perm)})

    def convert(self, x: Instruction, element_type: PrimitiveType) -> Instruction:
        """Convert to `element_type` (x itself when it already has it)."""
        if x.shape.element_type is element_type:
            return x
        return self.add(O.CONVERT, [x], shape=x.shape.with_element_type(element_type))

    def gte(self, x: Instruction, index: int) -> Instruction:
        return self.add(O.GET_TUPLE_ELEMENT, [x], {"index": index})

    def tuple(self, parts: Sequence[Instruction]) -> Instruction:
        return self.add(O.TUPLE, parts)


# -- replacing and removing ----------------------------------------------------------------


def is_removable(ins: Instruction) -> bool:
    """Dead and free to delete: no users, not the root, no control edges, no side effect,
    not a parameter."""
    return (not ins.users and not ins.is_root and not ins.control_successors
            and not ins.control_predecessors and ins.opcode is not O.PARAMETER
            and not has_side_effect(ins))


def remove_if_dead(ins: Instruction) -> bool:
    """Remove `ins` when removable, then its operands that became dead (XLA's
    RemoveInstructionAndUnusedOperands). Returns whether `ins` went."""
    if ins.parent is None or not is_removable(ins):
        return False
    comp = ins.parent
    operands = list(dict.fromkeys(ins.operands))
    comp.remove_instruction(ins)
    for op in operands:
        remove_if_dead(op)
    return True


def remove_dead_code(comp: Computation) -> bool:
    """Remove every removable instruction of `comp` (users first); returns whether any."""
    changed = False
    for ins in reversed(list(comp.instructions)):
        if ins.parent is comp and is_removable(ins):
            comp.remove_instruction(ins)
            changed = True
    return changed


def replace_instruction(old: Instruction, new: Instruction) -> None:
    """Point every use of `old` (and the root) at `new`, then delete `old` if dead."""
    if new is not old:
        old.replace_all_uses_with(new)
        remove_if_dead(old)


def same_shape(a: Shape, b: Shape) -> bool:
    """Equal shapes, layouts included (a missing layout counts as the default)."""
    return a.compatible(b) and a.dynamic == b.dynamic and _layouts(a) == _layouts(b)


def _layouts(s: Shape) -> list[Layout | None]:
    return [(leaf.layout or Layout.default_for_rank(leaf.rank)) if leaf.is_array else None
            for leaf in s.leaves()]


def inverse_permutation(perm: Sequence[int]) -> list[int]:
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return inverse


# -- tuples and loop state -----------------------------------------------------------------


def parameter_elements(comp: Computation) -> dict[int, list[Instruction]] | None:
    """For a one-parameter computation whose parameter is a tuple read only through
    get-tuple-element: element index -> the get-tuple-elements reading it. None when the
    parameter is used any other way (or is the root)."""
    if comp.num_parameters != 1:
        return None
    param = comp.parameter(0)
    if not param.shape.is_tuple or param.is_root:
        return None
    out: dict[int, list[Instruction]] = {}
    for user in param.unique_users:
        if user.opcode is not O.GET_TUPLE_ELEMENT:
            return None
        out.setdefault(user.attrs["index"], []).append(user)
    return out


def tuple_element(builder: Builder, tup: Instruction, index: int) -> Instruction:
    """Element `index` of a tuple value: the operand of a tuple instruction, else a new
    get-tuple-element."""
    if tup.opcode is O.TUPLE:
        return tup.operand(index)
    return builder.gte(tup, index)


# -- constants -----------------------------------------------------------------------------


def splat_value(ins: Instruction) -> Any | None:
    """The value every element of `ins` has, when `ins` is a constant with all elements
    equal or a broadcast of one (XLA's IsAll); None otherwise or when empty."""
    while ins.opcode is O.BROADCAST:
        ins = ins.operand(0)
    if (ins.opcode is not O.CONSTANT or ins.literal is None or ins.literal.data is None
            or ins.literal.elided):
        return None
    data = ins.literal.data
    if data.size == 0:
        return None
    first = data.reshape(-1)[0] if not ins.literal.is_lazy_splat else data[(0,) * data.ndim]
    if data.size > 1 and (first != first if ins.literal.is_lazy_splat
                          else not np.array_equal(data, np.full_like(data, first))):
        return None  # NaN never matches, as XLA's IsAll compares values
    return first


def is_all(ins: Instruction, value: Any) -> bool:
    """Every element of `ins` equals `value` (compared as numbers; NaN never matches)."""
    v = splat_value(ins)
    if v is None:
        return False
    try:
        return bool(v == np.asarray(value).astype(v.dtype))
    except (TypeError, ValueError, OverflowError):
        return False


def all_ones_value(t: PrimitiveType) -> Any:
    """The value with every bit set: true, -1, or the unsigned maximum."""
    if t is PrimitiveType.PRED:
        return True
    if t.is_unsigned_int:
        return (1 << t.bits) - 1
    return -1


def lowest_value(t: PrimitiveType) -> Any:
    """-inf for floats, the minimum for integers, false for pred."""
    if t is PrimitiveType.PRED:
        return False
    if t.is_float:
        return -np.inf
    return -(1 << (t.bits - 1)) if t.is_signed_int else 0


def highest_value(t: PrimitiveType) -> Any:
    """+inf for floats, the maximum for integers, true for pred."""
    if t is PrimitiveType.PRED:
        return True
    if t.is_float:
        return np.inf
    return (1 << (t.bits - 1)) - 1 if t.is_signed_int else (1 << t.bits) - 1


def literal_from_value(value: Any, shape: Shape) -> Literal | None:
    """An interpreter value as a literal of `shape` (None for tokens)."""
    if shape.is_tuple:
        parts = [literal_from_value(v, s) for v, s in zip(value, shape.tuple_shapes, strict=True)]
        if any(p is None for p in parts):
            return None
        return Literal(shape, elements=tuple(p for p in parts if p is not None))
    if not shape.is_array:
        return None
    arr = np.array(value, dtype=shape.element_type.numpy_dtype, order="C")
    if arr.shape != shape.dimensions:
        return None
    return Literal(shape, arr)


def value_from_literal(literal: Literal) -> Any:
    """A literal as an interpreter value (arrays, tuples of values)."""
    if literal.shape.is_tuple:
        return tuple(value_from_literal(e) for e in literal.elements)
    if literal.array is None:
        from hlotool.interpreter.core import TOKEN

        return TOKEN
    return literal.array


# -- evaluation ----------------------------------------------------------------------------


class ExpressionEvaluator:
    """Evaluates instructions with the reference interpreter, given values for some of
    them (parameters, loop state); everything else is computed from its operands."""

    def __init__(self, module: Module) -> None:
        from hlotool.interpreter.core import IMPLS, Evaluator

        self.evaluator = Evaluator(module)
        self.impls = IMPLS

    def value(self, ins: Instruction, known: dict[int, Any] | None = None) -> Any:
        """The value of `ins`; `known` maps id(instruction) to given values (and caches)."""
        env = known if known is not None else {}
        stack = [ins]
        while stack:
            top = stack[-1]
            if id(top) in env:
                stack.pop()
                continue
            missing = [o for o in top.operands if id(o) not in env]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            env[id(top)] = self._apply(top, [env[id(o)] for o in top.operands])
        return env[id(ins)]

    def _apply(self, ins: Instruction, operands: list[Any]) -> Any:
        if ins.opcode is O.CONSTANT and ins.literal is not None:
            return value_from_literal(ins.literal)
        if ins.opcode is O.PARAMETER:
            raise ValueError(f"{ins.name}: parameter value not given")
        fn = self.impls.get(ins.opcode)
        if fn is None:
            raise ValueError(f"the interpreter cannot evaluate {ins.opcode.value}")
        with np.errstate(all="ignore"):
            return fn(self.evaluator, ins, operands)


# -- reducers ------------------------------------------------------------------------------


#: Binary opcodes whose operands can be swapped (bit-exactly).
COMMUTATIVE_OPCODES = frozenset({O.ADD, O.MULTIPLY, O.MAXIMUM, O.MINIMUM, O.AND, O.OR, O.XOR})


def binary_reducer_opcode(comp: Computation) -> Opcode | None:
    """`op` when `comp` is just `ROOT op(p0, p1)` on two scalar parameters (either order
    for the commutative ops), else None."""
    root = comp.root
    if root is None or comp.num_parameters != 2 or root.operand_count != 2:
        return None
    if not root.shape.is_scalar or any(op.opcode is not O.PARAMETER for op in root.operands):
        return None
    numbers = [op.parameter_number for op in root.operands]
    if numbers == [0, 1] or (numbers == [1, 0] and root.opcode in COMMUTATIVE_OPCODES):
        return root.opcode
    return None


def scalar_computation(module: Module, names: NameTable, opcode: Opcode,
                       element_type: PrimitiveType, before: Computation) -> Computation:
    """A two-parameter scalar computation `ROOT opcode(p0, p1)` (a reducer): an existing
    one placed before `before` when the module has it, else a new one placed right
    before `before` (callees stay ahead of callers in text order)."""
    scalar = Shape.scalar(element_type)
    for c in module.computations[:module.computations.index(before)]:
        if (not c.is_fusion_computation and not c.is_entry and binary_reducer_opcode(c) is opcode
                and c.root is not None and c.root.shape == scalar
                and all(p.shape == scalar for p in c.parameters)):
            return c
    comp = Computation(names.fresh(f"{opcode.value}.{element_type.value}"))
    params = [Instruction(names.fresh(n), O.PARAMETER, scalar, parameter_number=i)
              for i, n in enumerate(("lhs", "rhs"))]
    for p in params:
        comp.add_instruction(p)
    root = Instruction(names.fresh(opcode.value), opcode, infer_shape(opcode, params, {}))
    root.set_operands(params)
    comp.add_instruction(root)
    comp.root = root
    module.add_computation(comp, before=before)
    return comp


# -- cloning -------------------------------------------------------------------------------


def clone_into(callee: Computation, builder: Builder,
               arguments: Sequence[Instruction]) -> Instruction:
    """Copy `callee`'s instructions (parameters mapped to `arguments`) through `builder`;
    returns the copy of its root. Control edges inside the callee are kept."""
    mapping: dict[int, Instruction] = {}
    for p in callee.parameters:
        mapping[id(p)] = arguments[p.parameter_number]
    for ins in callee.instructions:
        if ins.opcode is O.PARAMETER:
            continue
        copy = clone_instruction(ins, [mapping[id(o)] for o in ins.operands])
        copy.name = builder.names.fresh(ins.name)
        for pred in ins.control_predecessors:
            if pred.opcode is not O.PARAMETER:
                copy.add_control_predecessor(mapping[id(pred)])
        mapping[id(ins)] = builder.place(copy)
    assert callee.root is not None
    return mapping[id(callee.root)]


def clone_computation(comp: Computation, module: Module, names: NameTable,
                      suffix: str = "clone") -> Computation:
    """A copy of `comp` under fresh names, added to `module` before `comp`. Fusion
    computations it calls are cloned too (a fusion body has exactly one caller); other
    callees are shared."""
    new = Computation(names.fresh(f"{comp.name}.{suffix}"), execution_thread=comp.execution_thread)
    module.add_computation(new, before=comp)
    mapping: dict[int, Instruction] = {}
    for ins in comp.instructions:
        copy = clone_instruction(ins, [mapping[id(o)] for o in ins.operands])
        copy.name = names.fresh(ins.name)
        for pred in ins.control_predecessors:
            copy.add_control_predecessor(mapping[id(pred)])
        mapping[id(ins)] = copy
        new.add_instruction(copy)
        if ins.opcode is O.FUSION:
            fused = clone_computation(ins.attrs["calls"], module, names, suffix)
            fused.fusion_instruction = copy
            copy.attrs["calls"] = fused
    assert comp.root is not None
    new.root = mapping[id(comp.root)]
    return new

