"""While-loop simplification: remove loops that run zero or one times, and loop-carried
values that are constant or that nothing reads."""

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
    * a state element that starts as a constant and that the body passes through
      unchanged is replaced by that constant inside the loop and after it;
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
        changed = sink_constant_elements(loop, names)
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


def sink_constant_elements(loop: Instruction, names: NameTable) -> bool:
    """Elements initialized by a constant and passed through unchanged become that
    constant inside the loop and after it (they are then dead and get removed)."""
    init, body = loop.operand(0), loop.attrs["body"]
    if init.opcode is not O.TUPLE:
        return False
    reads = parameter_elements(body) or {}
    changed = False
    for k, value in enumerate(init.operands):
        passed = body.root.operand(k) if body.root is not None else None
        if value.opcode is not O.CONSTANT or passed is None or passed not in reads.get(k, []):
            continue
        cond_uses = _reads_of(loop.attrs["condition"], k)
        for g in [*cond_uses, *_reads_of(body, k), *_outside_reads(loop, k)]:
            replace_instruction(g, _copy_constant(value, g, names))
            changed = True
    return changed


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
