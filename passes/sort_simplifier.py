"""Sort simplification: drop operands of a variadic sort whose sorted values nobody reads."""

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
    non_fusion_computations,
    remove_unreferenced,
    replace_instruction,
)

O = Opcode


@dataclass(frozen=True)
class SortSimplifierPass(Pass):
    """XLA's SortSimplifier: an operand of a multi-operand sort is removed when no
    get-tuple-element reads its sorted result and the comparator does not look at it.
    The comparator is rebuilt without the matching parameter pair; with one operand left
    the sort returns an array instead of a tuple. Sorts whose result is used other than
    through get-tuple-element (or is a root) are left alone.
    """

    name = "sort-simplifier"
    summary = "remove unused operands of variadic sorts"
    xla = "SortSimplifier"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        old_comparators: list[Computation] = []
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                keep = _kept_operands(ins)
                if keep is not None:
                    old_comparators.append(ins.attrs["to_apply"])
                    _rebuild(module, comp, ins, keep, names)
        remove_unreferenced(module, old_comparators)
        return bool(old_comparators)


def _kept_operands(sort: Instruction) -> list[int] | None:
    """Operand positions to keep, or None when nothing can be dropped."""
    if sort.opcode is not O.SORT or sort.operand_count < 2 or sort.is_root:
        return None
    if sort.control_predecessors or sort.control_successors:
        return None
    if any(u.opcode is not O.GET_TUPLE_ELEMENT for u in sort.users) or not sort.users:
        return None
    read = {u.attrs["index"] for u in sort.users}
    comparator: Computation = sort.attrs["to_apply"]
    compared = {p.parameter_number // 2 for p in comparator.parameters
                if p.users or p is comparator.root}
    keep = sorted(read | compared)
    return keep if len(keep) < sort.operand_count else None


def _rebuild(module: Module, comp: Computation, sort: Instruction, keep: list[int],
             names: NameTable) -> None:
    b = Builder.before(sort, names)
    attrs = dict(sort.attrs)
    attrs["to_apply"] = _narrow_comparator(module, comp, sort.attrs["to_apply"], keep, names)
    operands = [sort.operand(i) for i in keep]
    shape = (operands[0].shape if len(keep) == 1 else
             Shape.tuple_of([sort.shape.tuple_shapes[i] for i in keep]))
    new = b.add(O.SORT, operands, attrs, shape)
    for user in list(sort.users):
        position = keep.index(user.attrs["index"])
        replace_instruction(user, new if len(keep) == 1 else b.gte(new, position))


def _narrow_comparator(module: Module, before: Computation, comparator: Computation,
                       keep: list[int], names: NameTable) -> Computation:
    """A copy of `comparator` with only the parameter pairs of the kept operands."""
    new = Computation(names.fresh(f"{comparator.name}.narrow"))
    mapping: dict[int, Instruction] = {}
    for ins in comparator.instructions:
        if ins.opcode is O.PARAMETER:
            pair, side = divmod(ins.parameter_number, 2)
            if pair not in keep:
                continue
            copy = clone_instruction(ins, [])
            copy.parameter_number = 2 * keep.index(pair) + side
        else:
            copy = clone_instruction(ins, [mapping[id(o)] for o in ins.operands])
        copy.name = names.fresh(ins.name)
        mapping[id(ins)] = new.add_instruction(copy)
    assert comparator.root is not None
    new.root = mapping[id(comparator.root)]
    module.add_computation(new, before=before)
    return new
