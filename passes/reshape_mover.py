"""Reshape moving: sink reshapes and transposes below elementwise operations, so that
equal rearrangements of several operands become one rearrangement of the result."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.structure import clone_instruction
from hlotool.ir.types import Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    NameTable,
    inverse_permutation,
    non_fusion_computations,
    replace_instruction,
)

O = Opcode

#: Instructions a rearrangement can be moved across: elementwise, deterministic.
MOVABLE_ACROSS = (ELEMENTWISE | {O.CONVERT}) - {O.RNG}

#: The data-movement ops this pass sinks.
REARRANGES = frozenset({O.RESHAPE, O.TRANSPOSE})


@dataclass(frozen=True)
class ReshapeMoverPass(Pass):
    """XLA's ReshapeMover.

    An elementwise instruction is a candidate when one operand is a nontrivial
    rearrange (a reshape or transpose of something that is not a constant or a scalar
    broadcast) and every other operand is either an equivalent rearrange (same opcode,
    same input dims, same permutation) or trivially rearrangeable: a constant (which
    gets the inverse rearrange, for constant folding to finish), a broadcast of a scalar
    (broadcast again to the input dims) or, for select and clamp, a scalar. A candidate
    `op(reshape(a), reshape(b))` becomes `reshape(op(a, b))`.

    As in XLA, a candidate is dropped when one of its rearrange operands has users that
    are not candidates (moving would duplicate the rearrange instead of moving it).
    Sweeps repeat until nothing moves. Only data movement is reordered: exact.
    """

    name = "reshape-mover"
    summary = "sink reshapes/transposes below elementwise ops"
    xla = "ReshapeMover"
    max_iterations: int = 10

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            for _ in range(self.max_iterations):
                if not _sweep(comp, names):
                    break
                changed = True
        return changed


def _sweep(comp: Computation, names: NameTable) -> bool:
    candidates = {id(i): i for i in comp.instructions if _reference(i) is not None}
    while True:
        dropped = [k for k, i in candidates.items() if not _operands_exclusive(i, candidates)]
        if not dropped:
            break
        for k in dropped:
            del candidates[k]
    moved = False
    for ins in comp.post_order():
        reference = _reference(ins) if id(ins) in candidates and ins.parent is comp else None
        if reference is not None:
            replace_instruction(ins, _sink(ins, reference, names))
            moved = True
    return moved


def _is_rearrange(ins: Instruction) -> bool:
    return ins.opcode in REARRANGES and not ins.shape.is_dynamic


def _trivially_rearrangeable(ins: Instruction, user: Instruction) -> bool:
    if ins.opcode is O.CONSTANT:
        return True
    if ins.opcode is O.BROADCAST and ins.operand(0).shape.element_count == 1:
        return True
    return user.opcode in (O.SELECT, O.CLAMP) and ins.shape.rank == 0


def _nontrivial(ins: Instruction) -> bool:
    return _is_rearrange(ins) and not _trivially_rearrangeable(ins.operand(0), ins)


def _equivalent(a: Instruction, b: Instruction) -> bool:
    """Same rearrangement of inputs with the same dims."""
    return (a.opcode is b.opcode and a.operand(0).shape.dimensions == b.operand(0).shape.dimensions
            and a.shape.dimensions == b.shape.dimensions
            and a.attrs.get("dimensions") == b.attrs.get("dimensions"))


def _reference(ins: Instruction) -> Instruction | None:
    """The rearrange operand `ins` would be moved across, when `ins` is a candidate."""
    if ins.opcode not in MOVABLE_ACROSS or ins.control_predecessors or ins.shape.is_dynamic:
        return None
    reference = next((o for o in ins.operands if _nontrivial(o)), None)
    if reference is None:
        return None
    for o in ins.operands:
        same = _is_rearrange(o) and _equivalent(o, reference)
        if not same and not _trivially_rearrangeable(o, ins):
            return None
    return reference


def _operands_exclusive(ins: Instruction, candidates: dict[int, Instruction]) -> bool:
    """Every nontrivial rearrange operand is used by candidates only."""
    return all(all(id(u) in candidates for u in o.users)
               for o in ins.operands if _nontrivial(o))


def _sink(ins: Instruction, reference: Instruction, names: NameTable) -> Instruction:
    """`op(rearrange(a), ...)` -> `rearrange(op(a, ...))`, built before `ins`."""
    b = Builder.before(ins, names)
    dims = reference.operand(0).shape.dimensions
    operands = [_undo(o, reference, ins, b) for o in ins.operands]
    inner = clone_instruction(ins, operands)
    inner.name = names.fresh(ins.name)
    inner.shape = Shape.array(ins.shape.element_type, dims)
    b.place(inner)
    if reference.opcode is O.TRANSPOSE:
        out = b.transpose(inner, reference.attrs["dimensions"])
    else:
        out = b.reshape(inner, ins.shape.dimensions)
    out.shape = ins.shape
    return out


def _undo(operand: Instruction, reference: Instruction, user: Instruction,
          b: Builder) -> Instruction:
    """The operand as it was before `reference`'s rearrangement."""
    dims = reference.operand(0).shape.dimensions
    if _is_rearrange(operand) and _equivalent(operand, reference):
        return operand.operand(0)
    if operand.shape.rank == 0 and user.opcode in (O.SELECT, O.CLAMP):
        return operand
    if operand.opcode is O.BROADCAST:
        scalar = b.reshape(operand.operand(0), ())
        return b.broadcast(scalar, Shape.array(operand.shape.element_type, dims), ())
    if reference.opcode is O.TRANSPOSE:
        return b.transpose(operand, inverse_permutation(reference.attrs["dimensions"]))
    return b.reshape(operand, dims)
