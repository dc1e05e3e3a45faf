"""Loop-invariant code motion: compute in front of a while loop what its body computes
the same way on every iteration."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.structure import clone_instruction
from hlotool.ir.types import Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    NameTable,
    has_side_effect,
    has_single_caller,
    non_fusion_computations,
    parameter_elements,
    remove_dead_code,
    remove_if_dead,
    tuple_element,
)

O = Opcode

#: Instructions not worth a loop-carried value of their own: hoisted only as operands of
#: something that is (XLA's NotWorthHoistingIndividually).
NOT_WORTH_HOISTING_ALONE = frozenset({
    O.CONSTANT, O.GET_TUPLE_ELEMENT, O.BITCAST, O.BROADCAST, O.IOTA, O.RESHAPE, O.REVERSE,
    O.SLICE, O.TRANSPOSE, O.TUPLE,
})  # fmt: skip


@dataclass(frozen=True)
class WhileLoopInvariantCodeMotionPass(Pass):
    """XLA's WhileLoopInvariantCodeMotion.

    A state element is invariant when the body passes it through unchanged
    (`ROOT tuple(..., get-tuple-element(param, k), ...)` at position k). An instruction
    of the body is invariant when all its operands are invariant elements, constants or
    invariant instructions, and it has no side effects. Invariant instructions worth it
    (not in `NOT_WORTH_HOISTING_ALONE`), with the invariant instructions they need, are
    copied in front of the loop; those the body still uses come in as new state
    elements appended to the loop's tuple, which the body passes through. Constants are
    never hoisted alone (XLA's default `hoist_constants=false`).

    The loop's condition and body must be called by this loop only (run
    flatten-call-graph first); their parameters must be read through
    get-tuple-element only and the body's root must be a tuple.
    """

    name = "while-loop-invariant-code-motion"
    summary = "hoist loop-invariant instructions out of while bodies"
    xla = "WhileLoopInvariantCodeMotion"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode is O.WHILE and ins.parent is comp and _editable(module, ins):
                    changed |= self._hoist(ins, names)
        return changed

    def _hoist(self, loop: Instruction, names: NameTable) -> bool:
        body: Computation = loop.attrs["body"]
        hoisted = hoisted_instructions(body)
        carried = carried_values(hoisted)
        if not carried:
            return False
        b = Builder.before(loop, names)
        copies = _copy_out(loop, hoisted, b)
        _add_elements(loop, carried, [copies[id(h)] for h in carried], b)
        remove_dead_code(body)
        return True


def hoisted_instructions(body: Computation) -> list[Instruction]:
    """The invariant instructions to copy out, in body order: those worth it and the
    invariant instructions they need."""
    invariant = _invariant(body)
    worth = [i for i in body.instructions if id(i) in invariant and i.users
             and i.opcode not in NOT_WORTH_HOISTING_ALONE]
    needed: set[int] = set()
    stack = list(worth)
    while stack:
        top = stack.pop()
        if id(top) not in needed:
            needed.add(id(top))
            stack.extend(o for o in top.operands if id(o) in invariant)
    return [i for i in body.instructions if id(i) in needed]


def carried_values(hoisted: list[Instruction]) -> list[Instruction]:
    """Hoisted instructions the body still needs, which become new loop state: used by
    an instruction that is not hoisted, or by a cheap hoisted one that the body keeps
    too (cheap instructions are copied rather than carried)."""
    ids = {id(h) for h in hoisted}
    stays: set[int] = set()
    carried: list[Instruction] = []
    for h in reversed(hoisted):
        if not any(id(u) not in ids or id(u) in stays for u in h.users):
            continue
        if h.opcode in NOT_WORTH_HOISTING_ALONE:
            stays.add(id(h))
        else:
            carried.append(h)
    return carried[::-1]


def _editable(module: Module, loop: Instruction) -> bool:
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    root = body.root
    return (cond is not body and loop.shape.is_tuple and root is not None
            and root.opcode is O.TUPLE and not loop.control_predecessors
            and has_single_caller(module, cond, loop) and has_single_caller(module, body, loop)
            and parameter_elements(cond) is not None and parameter_elements(body) is not None
            and not any(i.control_predecessors for i in body.instructions))


def _invariant(body: Computation) -> set[int]:
    """ids of the body's invariant instructions (invariant element reads included)."""
    root = body.root
    assert root is not None
    invariant: set[int] = set()
    reads = parameter_elements(body) or {}
    for k, gtes in reads.items():
        if any(root.operand(k) is g for g in gtes):
            invariant.update(id(g) for g in gtes)
    for ins in body.post_order():
        if ins.opcode is O.PARAMETER or id(ins) in invariant:
            continue
        if ins is root or has_side_effect(ins) or ins.opcode in (O.RNG, O.AFTER_ALL):
            continue
        if all(id(o) in invariant for o in ins.operands):
            invariant.add(id(ins))
    return invariant


def _copy_out(loop: Instruction, hoisted: list[Instruction], b: Builder) -> dict[int, Instruction]:
    """Copies of the hoisted instructions in front of the loop (element reads become
    reads of the loop's initial value)."""
    init = loop.operand(0)
    copies: dict[int, Instruction] = {}
    for ins in hoisted:
        if ins.opcode is O.GET_TUPLE_ELEMENT and ins.operand(0).opcode is O.PARAMETER:
            copies[id(ins)] = tuple_element(b, init, ins.attrs["index"])
            continue
        copy = clone_instruction(ins, [copies[id(o)] for o in ins.operands])
        copy.name = b.names.fresh(ins.name)
        copies[id(ins)] = b.place(copy)
    return copies


def _add_elements(loop: Instruction, carried: list[Instruction], values: list[Instruction],
                  b: Builder) -> None:
    """Append `values` to the loop state; inside the body, `carried` read them instead."""
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    old = loop.shape.tuple_shapes
    n = len(old)
    shape = Shape.tuple_of([*old, *(c.shape for c in carried)])
    outside_users = [u for u in loop.unique_users if u.opcode is not O.GET_TUPLE_ELEMENT]
    was_root = loop.is_root
    init = loop.operand(0)
    loop.set_operands([b.tuple([*(tuple_element(b, init, k) for k in range(n)), *values])])
    remove_if_dead(init)
    loop.shape = shape
    for comp in (cond, body):
        comp.parameter(0).shape = shape
    param = body.parameter(0)
    after_param = body.instructions[body.instructions.index(param) + 1]
    reads = Builder(body, b.names, after_param)
    for i, ins in enumerate(carried):
        ins.replace_all_uses_with(reads.gte(param, n + i))
    root = body.root
    assert root is not None
    body.root = Builder(body, b.names).tuple([*root.operands, *reads.created])
    _restore_old_shape(loop, n, outside_users, was_root, b.names)


def _restore_old_shape(loop: Instruction, n: int, users: list[Instruction], was_root: bool,
                       names: NameTable) -> None:
    """Users other than get-tuple-element see the first n elements, as before."""
    if not users and not was_root:
        return
    comp = loop.parent
    assert comp is not None
    position = comp.instructions.index(loop) + 1
    anchor = comp.instructions[position] if position < len(comp.instructions) else None
    b = Builder(comp, names, anchor, loop.metadata)
    old = b.tuple([b.gte(loop, k) for k in range(n)])
    for user in users:
        for i, op in enumerate(user.operands):
            if op is loop:
                user.replace_operand(i, old)
    if was_root:
        comp.root = old
