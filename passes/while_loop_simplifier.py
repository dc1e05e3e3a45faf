"""While-loop simplification: remove loops that run zero or one times, and loop-carried
values that are constant, that repeat another one, or that nothing reads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.structure import clone_instruction
from hlotool.ir.types import Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    ExpressionEvaluator,
    NameTable,
    clone_into,
    computation_has_side_effect,
    has_side_effect,
    has_single_caller,
    non_fusion_computations,
    parameter_elements,
    remove_dead_code,
    remove_if_dead,
    remove_unreferenced,
    replace_instruction,
    same_shape,
    tuple_element,
)

O = Opcode


@dataclass(frozen=True)
class WhileLoopSimplifierPass(Pass):
    """XLA's WhileLoopSimplifier, for loops over a tuple state:

    * a loop whose trip count is 0 is replaced by its initial value, one whose trip
      count is 1 by a copy of its body (the condition must be free of side effects).
      The trip count is found as XLA's ComputeWhileLoopTripCount does: the state elements
      the condition depends on must start as constants and be updated from each other
      only, without side effects; the interpreter then runs condition and update;
    * state elements that repeat one another are merged into one (XLA's
      TryRemoveRepeatedWhileTupleIndices, generalized): two elements whose initial
      values are equal (the same instruction, or the same computation of the same
      inputs) and whose body updates are the same computation, without side effects,
      of equal elements hold equal values in every iteration, so the condition, the
      body and the users of the loop's result may read one for the other. This covers
      XLA's pass-through and dynamic-update-slice cases and a duplicated induction
      variable (a jax fori_loop's `i` next to the body's own copy of it);
    * a state element that starts as a constant and that the body passes through
      unchanged, or sets to the same constant again, is replaced by that constant
      inside the loop and after it;
    * state elements that neither the condition, nor side effects, nor users of the
      loop's result, nor other live elements depend on are removed.

    The last two edit the condition and body in place, so those must be called by this
    loop only (run flatten-call-graph first).
    """

    name = "while-loop-simplifier"
    summary = "remove trivial loops and dead or constant loop-carried values"
    xla = "WhileLoopSimplifier"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode is O.WHILE and ins.parent is comp:
                    changed |= self._simplify(module, ins, names)
        return changed

    def _simplify(self, module: Module, loop: Instruction, names: NameTable) -> bool:
        if loop.control_predecessors or loop.control_successors:
            return False
        if remove_trivial_loop(module, loop, names):
            return True
        if not _editable(module, loop):
            return False
        changed = merge_repeated_elements(loop, names)
        changed |= sink_constant_elements(loop, names)
        return remove_dead_elements(loop, names) or changed


# -- trip count ----------------------------------------------------------------------------


def trip_count(module: Module, loop: Instruction, limit: int) -> int | None:
    """How many times the body runs, when the state the condition depends on is known
    at compile time and the loop ends within `limit` iterations; None otherwise."""
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    cond_reads, body_reads = parameter_elements(cond), parameter_elements(body)
    root = body.root
    if cond_reads is None or body_reads is None or root is None or root.opcode is not O.TUPLE:
        return None
    needed = _closure(used_elements(cond_reads), root, body_reads)
    if needed is None or computation_has_side_effect(cond):
        return None
    evaluator = ExpressionEvaluator(module)
    try:
        state = {k: evaluator.value(_init_part(loop, k)) for k in needed}
        for count in range(limit + 1):
            if not bool(evaluator.value(cond.root, _known(cond_reads, state))):
                return count
            env = _known(body_reads, state)
            state = {k: evaluator.value(root.operand(k), env) for k in needed}
    except Exception:  # noqa: BLE001 -- anything the interpreter cannot do: unknown count
        return None
    return None


def _closure(start: set[int], root: Instruction, reads: dict[int, list[Instruction]],
             allow_side_effects: bool = False) -> set[int] | None:
    """The state elements `start` depends on through the body's updates (None when an
    update has side effects and they are not allowed)."""
    needed = set(start)
    pending = list(start)
    while pending:
        deps = _dependencies(root.operand(pending.pop()), reads, allow_side_effects)
        if deps is None:
            return None
        pending.extend(deps - needed)
        needed |= deps
    return needed


def _dependencies(ins: Instruction, reads: dict[int, list[Instruction]],
                  allow_side_effects: bool) -> set[int] | None:
    """State elements `ins` is computed from; None when it involves side effects (or
    randomness) and they are not allowed."""
    by_id = {id(g): k for k, gtes in reads.items() for g in gtes}
    deps: set[int] = set()
    seen: set[int] = set()
    stack = [ins]
    while stack:
        top = stack.pop()
        if id(top) in seen:
            continue
        seen.add(id(top))
        if id(top) in by_id:
            deps.add(by_id[id(top)])
            continue
        if not allow_side_effects and (has_side_effect(top) or top.opcode is O.RNG):
            return None
        stack.extend(top.operands)
    return deps


def used_elements(reads: dict[int, list[Instruction]]) -> set[int]:
    """Elements read by a get-tuple-element that is used (or is the root)."""
    return {k for k, gtes in reads.items() if any(g.users or g.is_root for g in gtes)}


def _init_part(loop: Instruction, k: int) -> Instruction:
    init = loop.operand(0)
    if init.opcode is not O.TUPLE:
        raise ValueError("the initial state is not a tuple instruction")
    return init.operand(k)


def _known(reads: dict[int, list[Instruction]], state: dict[int, Any]) -> dict[int, Any]:
    return {id(g): state[k] for k, gtes in reads.items() if k in state for g in gtes}


# -- zero and one trip ------------------------------------------------------------------------


def remove_trivial_loop(module: Module, loop: Instruction, names: NameTable) -> bool:
    """Replace a loop running 0 times by its init, 1 time by its body inlined."""
    count = trip_count(module, loop, limit=1)
    if count is None or count > 1:
        return False
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    if count == 0:
        replacement = loop.operand(0)
    else:
        replacement = clone_into(body, Builder.before(loop, names), loop.operands)
    replace_instruction(loop, replacement)
    if loop.parent is not None:
        loop.parent.remove_instruction(loop)
    remove_unreferenced(module, [cond, body])
    return True


# -- loop-carried values -------------------------------------------------------------------


def _editable(module: Module, loop: Instruction) -> bool:
    """Condition and body belong to this loop alone and read the state element-wise."""
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    if cond is body or not has_single_caller(module, cond, loop) or not has_single_caller(
            module, body, loop):
        return False
    root = body.root
    return (loop.shape.is_tuple and root is not None and root.opcode is O.TUPLE
            and parameter_elements(cond) is not None and parameter_elements(body) is not None
            and not any(i.control_predecessors for c in (cond, body) for i in c.instructions))


def merge_repeated_elements(loop: Instruction, names: NameTable) -> bool:
    """Elements that provably hold the same value as an earlier element in every
    iteration are read from that element instead, inside the loop and after it; the
    repeats are then dead and get removed (XLA's TryRemoveRepeatedWhileTupleIndices)."""
    init, cond, body = loop.operand(0), loop.attrs["condition"], loop.attrs["body"]
    root = body.root
    if init.opcode is not O.TUPLE or root is None:
        return False
    surviving = repeated_elements(loop)
    if not surviving:
        return False
    reads = [g for comp in (cond, body)
             for k, gtes in (parameter_elements(comp) or {}).items() if k in surviving
             for g in gtes]
    changed = _only_element_users(loop, names)
    reads += [u for u in loop.unique_users if u.attrs["index"] in surviving]
    for g in reads:
        g.attrs["index"] = surviving[g.attrs["index"]]
    return changed or bool(reads)


def repeated_elements(loop: Instruction) -> dict[int, int]:
    """Repeated state element -> the first element of its class of equal elements.

    The classes are the largest partition (a greatest fixed point, found by refinement)
    in which the elements of a class have equal shapes and equal initial values, and
    body updates that are equal when the elements of each class are assumed equal: by
    induction on the iterations they then hold equal values throughout."""
    init, body = loop.operand(0), loop.attrs["body"]
    root = body.root
    assert root is not None
    shapes = loop.shape.tuple_shapes
    param = body.parameter(0)
    outer = _Equivalence(None, {})
    classes: list[list[int]] = []
    for k in range(len(shapes)):
        if any(leaf.is_token for leaf in shapes[k].leaves()):
            continue
        for c in classes:
            first = c[0]
            if same_shape(shapes[first], shapes[k]) and outer.equal(init.operand(first),
                                                                  init.operand(k)):
                c.append(k)
                break
        else:
            classes.append([k])
    classes = [c for c in classes if len(c) > 1]
    while classes:
        class_of = {k: n for n, c in enumerate(classes) for k in c}
        inner = _Equivalence(param, class_of)
        refined: list[list[int]] = []
        for c in classes:
            parts: list[list[int]] = []
            for k in c:
                for part in parts:
                    if inner.equal(root.operand(part[0]), root.operand(k)):
                        part.append(k)
                        break
                else:
                    parts.append([k])
            refined.extend(part for part in parts if len(part) > 1)
        if refined == classes:
            break
        classes = refined
    return {k: c[0] for c in classes for k in c[1:]}


class _Equivalence:
    """Structural equality of two instructions: the same instruction, or the same
    opcode, shape, attributes (called computations compared structurally, as CSE
    does) and literal applied to equal operands, without side effects, randomness or
    control edges. Reads of elements of `param` are equal when the elements are in the
    same class of `class_of`."""

    def __init__(self, param: Instruction | None, class_of: dict[int, int]) -> None:
        from hlotool.passes.cse import _Keys  # CSE's structural instruction keys

        self.param = param
        self.class_of = class_of
        self.keys = _Keys()

    def equal(self, a: Instruction, b: Instruction) -> bool:
        stack = [(a, b)]
        seen: set[tuple[int, int]] = set()
        while stack:
            x, y = stack.pop()
            if x is y or (id(x), id(y)) in seen:
                continue
            seen.add((id(x), id(y)))
            if self._is_state_read(x) or self._is_state_read(y):
                if not (self._is_state_read(x) and self._is_state_read(y)):
                    return False
                cx = self.class_of.get(x.attrs["index"])
                if cx is None or cx != self.class_of.get(y.attrs["index"]):
                    return False
                continue
            if not self._local_equal(x, y):
                return False
            stack.extend(zip(x.operands, y.operands, strict=True))
        return True

    def _is_state_read(self, ins: Instruction) -> bool:
        return (self.param is not None and ins.opcode is O.GET_TUPLE_ELEMENT
                and ins.operand(0) is self.param)

    def _local_equal(self, x: Instruction, y: Instruction) -> bool:
        for ins in (x, y):
            if (ins.opcode in (O.PARAMETER, O.RNG, O.AFTER_ALL) or has_side_effect(ins)
                    or ins.control_predecessors or ins.control_successors):
                return False
        if x.opcode is not y.opcode or x.operand_count != y.operand_count:
            return False
        return self._key(x) == self._key(y)

    def _key(self, ins: Instruction) -> tuple[object, ...]:
        return (ins.opcode, ins.shape, self.keys._attrs(ins),  # noqa: SLF001
                ins.literal.fingerprint() if ins.literal is not None else None,
                ins.sharding, ins.async_wrapped, ins.backend_config,
                tuple(sorted(ins.frontend_attributes.items())))


def _only_element_users(loop: Instruction, names: NameTable) -> bool:
    """Make every use of the loop's result a get-tuple-element of it: other users (and
    the root) read a tuple rebuilt from its elements instead. Returns whether it had to."""
    if not loop.is_root and all(u.opcode is O.GET_TUPLE_ELEMENT for u in loop.users):
        return False
    comp = loop.parent
    assert comp is not None
    position = comp.instructions.index(loop)
    after = comp.instructions[position + 1] if position + 1 < len(comp.instructions) else None
    b = Builder(comp, names, after, loop.metadata)
    others = [u for u in loop.unique_users if u.opcode is not O.GET_TUPLE_ELEMENT]
    was_root = loop.is_root
    rebuilt = b.tuple([b.gte(loop, k) for k in range(len(loop.shape.tuple_shapes))])
    for u in others:
        for i, op in enumerate(u.operands):
            if op is loop:
                u.replace_operand(i, rebuilt)
    if was_root:
        comp.root = rebuilt
    return True


def sink_constant_elements(loop: Instruction, names: NameTable) -> bool:
    """Elements initialized by a constant and passed through unchanged, or set again to
    the same constant, become that constant inside the loop and after it (they are then
    dead and get removed; XLA's TryPropagateConstant and TryRemoveConstantParams)."""
    init, body = loop.operand(0), loop.attrs["body"]
    if init.opcode is not O.TUPLE:
        return False
    reads = parameter_elements(body) or {}
    changed = False
    for k, value in enumerate(init.operands):
        passed = body.root.operand(k) if body.root is not None else None
        if value.opcode is not O.CONSTANT or passed is None:
            continue
        if passed not in reads.get(k, []) and not _same_constant(passed, value):
            continue
        cond_uses = _reads_of(loop.attrs["condition"], k)
        for g in [*cond_uses, *_reads_of(body, k), *_outside_reads(loop, k)]:
            replace_instruction(g, _copy_constant(value, g, names))
            changed = True
    return changed


def _same_constant(a: Instruction, b: Instruction) -> bool:
    """Two constants with the same shape and value (XLA's TryRemoveConstantParams case:
    the body sets the element to the constant it started with)."""
    return (a.opcode is O.CONSTANT and b.opcode is O.CONSTANT and a.literal is not None
            and b.literal is not None and a.shape == b.shape
            and a.literal.fingerprint() == b.literal.fingerprint())


def _reads_of(comp: Computation, k: int) -> list[Instruction]:
    """The get-tuple-elements reading element k of the parameter that are used."""
    return [g for g in (parameter_elements(comp) or {}).get(k, []) if g.users or g.is_root]


def _outside_reads(loop: Instruction, k: int) -> list[Instruction]:
    return [u for u in loop.unique_users
            if u.opcode is O.GET_TUPLE_ELEMENT and u.attrs["index"] == k]


def _copy_constant(value: Instruction, where: Instruction, names: NameTable) -> Instruction:
    copy = clone_instruction(value, [])
    copy.name = names.fresh(value.name)
    return Builder.before(where, names).place(copy)


def remove_dead_elements(loop: Instruction, names: NameTable) -> bool:
    """Drop the state elements nothing live depends on (XLA's TryRemoveDeadWhileParams)."""
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    live = _live_elements(loop)
    size = len(loop.shape.tuple_shapes)
    if live is None or not live or len(live) == size:
        return False
    keep = sorted(live)
    new_index = {k: i for i, k in enumerate(keep)}
    shape = Shape.tuple_of([loop.shape.tuple_shapes[k] for k in keep])
    root = body.root
    assert root is not None
    b = Builder(body, names, None, root.metadata)
    new_root = b.tuple([root.operand(k) for k in keep])
    body.root = new_root
    remove_dead_code(body)
    remove_dead_code(cond)
    for comp in (cond, body):
        _narrow_parameter(comp, shape, new_index)
    _narrow_loop(loop, keep, shape, new_index, names)
    return True


def _live_elements(loop: Instruction) -> set[int] | None:
    """Elements read after the loop, by the condition, by side effects in the body, or
    by the update of another live element."""
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    size = len(loop.shape.tuple_shapes)
    if loop.is_root or any(u.opcode is not O.GET_TUPLE_ELEMENT for u in loop.users):
        return set(range(size))
    body_reads = parameter_elements(body)
    cond_reads = parameter_elements(cond)
    if body_reads is None or cond_reads is None or body.root is None:
        return None
    live = {u.attrs["index"] for u in loop.users}
    live |= used_elements(cond_reads)
    for ins in body.instructions:
        if has_side_effect(ins):
            live |= _dependencies(ins, body_reads, allow_side_effects=True) or set()
    return _closure(live, body.root, body_reads, allow_side_effects=True)


def _narrow_parameter(comp: Computation, shape: Shape, new_index: dict[int, int]) -> None:
    param = comp.parameter(0)
    param.shape = shape
    for g in param.unique_users:
        g.attrs["index"] = new_index[g.attrs["index"]]


def _narrow_loop(loop: Instruction, keep: Iterable[int], shape: Shape,
                 new_index: dict[int, int], names: NameTable) -> None:
    b = Builder.before(loop, names)
    init = loop.operand(0)
    loop.set_operands([b.tuple([tuple_element(b, init, k) for k in keep])])
    loop.shape = shape
    for u in loop.unique_users:
        u.attrs["index"] = new_index[u.attrs["index"]]
    remove_if_dead(init)
