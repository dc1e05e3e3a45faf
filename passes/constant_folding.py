"""Constant folding: evaluate instructions whose inputs are all known, with the
reference interpreter, and replace them by constants."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    ExpressionEvaluator,
    NameTable,
    has_side_effect,
    literal_from_value,
    non_fusion_computations,
    replace_instruction,
)

O = Opcode

#: Never folded, whatever their operands (XLA's HloConstantFolding list):
#: constants and parameters are already what they are, tuples of constants are better
#: left as tuples, broadcasts and iotas only grow constants, FFT and loops are too
#: expensive to evaluate at compile time, dynamic-size queries depend on runtime sizes,
#: after-all/rng are side effects, and XLA's evaluator does not run rng-bit-generator;
#: custom-calls, barriers, domains, async wrappers and device ids are opaque or known
#: only at run time.
NOT_FOLDED = frozenset({
    O.PARAMETER, O.CONSTANT, O.TUPLE, O.BROADCAST, O.IOTA, O.FFT, O.WHILE, O.AFTER_ALL,
    O.RNG, O.RNG_BIT_GENERATOR, O.RNG_GET_AND_UPDATE_STATE, O.GET_DIMENSION_SIZE,
    O.SET_DIMENSION_SIZE, O.CUSTOM_CALL, O.PARTITION_ID, O.REPLICA_ID, O.DOMAIN,
    O.OPT_BARRIER, O.ASYNC_START, O.ASYNC_UPDATE, O.ASYNC_DONE, O.COPY_START, O.COPY_DONE,
})  # fmt: skip

#: Opcodes an operand may be built from and still count as known at compile time.
_CONSTANT_LEAVES = frozenset({O.CONSTANT, O.IOTA})

#: Opcodes whose values never count as known at compile time, even as operands.
_OPAQUE = NOT_FOLDED - {O.BROADCAST, O.TUPLE}

#: XLA's kMaximumConstantSizeElements (45 million): neither the folded result nor the
#: operands together may have more elements than this.
DEFAULT_MAX_ELEMENTS = 45 * 1000 * 1000


@dataclass(frozen=True)
class ConstantFoldingPass(Pass):
    """XLA's HloConstantFolding.

    An instruction is folded when at least one operand is a constant and every operand
    is computable at compile time (built from constants and iotas without parameters or
    side effects), or when it has no operands. It is evaluated by the interpreter (the
    oracle, so folding preserves numerics by construction) and replaced by a constant.

    Not folded: the opcodes in `NOT_FOLDED` (broadcasts and iotas only make constants
    bigger; while loops, FFT and custom-calls are too costly or opaque), side-effecting
    instructions and instructions calling side-effecting computations, token results,
    dynamic shapes, and results or operands with more than `max-elements` elements
    (default XLA's 45 million). Fusion computations are left alone, as in XLA.
    """

    name = "constant-folding"
    summary = "evaluate instructions with constant operands at compile time"
    xla = "HloConstantFolding"
    max_elements: int = DEFAULT_MAX_ELEMENTS

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            changed |= self._fold_computation(module, comp, names)
        return changed

    def _fold_computation(self, module: Module, comp: Computation, names: NameTable) -> bool:
        evaluator = ExpressionEvaluator(module)
        known: dict[int, bool] = {}
        changed = False
        for ins in comp.post_order():
            if ins.parent is not comp or not self._should_fold(ins, known):
                continue
            try:
                value = evaluator.value(ins)
            except Exception:  # noqa: BLE001 -- whatever the interpreter cannot do stays
                continue
            literal = literal_from_value(value, ins.shape)
            if literal is None:
                continue
            constant = Builder.before(ins, names).constant(literal)
            replace_instruction(ins, constant)
            changed = True
        return changed

    def _should_fold(self, ins: Instruction, known: dict[int, bool]) -> bool:
        if ins.opcode in NOT_FOLDED or ins.shape.is_dynamic or ins.control_predecessors:
            return False
        if ins.operands and not any(o.opcode is O.CONSTANT for o in ins.operands):
            return False
        if not all(is_compile_time_constant(o, known) for o in ins.operands):
            return False
        if not ins.shape.is_array and not ins.shape.is_tuple:
            return False
        if any(not leaf.is_array for leaf in ins.shape.leaves()) or has_side_effect(ins):
            return False
        return self._small_enough(ins)

    def _small_enough(self, ins: Instruction) -> bool:
        result = sum(leaf.element_count for leaf in ins.shape.leaves())
        operands = sum(o.shape.element_count for o in ins.operands if o.shape.is_array)
        return max(result, operands) <= self.max_elements


def is_compile_time_constant(ins: Instruction, known: dict[int, bool]) -> bool:
    """Whether `ins` is computable from constants and iotas alone (memoized in `known`)."""
    stack = [ins]
    while stack:
        top = stack[-1]
        if top.opcode in _CONSTANT_LEAVES:
            known[id(top)] = True
            stack.pop()
            continue
        if id(top) in known:
            stack.pop()
            continue
        if (top.opcode in _OPAQUE or not top.operands or has_side_effect(top)
                or top.shape.is_dynamic):
            known[id(top)] = False
            stack.pop()
            continue
        pending = [o for o in top.operands if id(o) not in known]
        if pending:
            stack.extend(pending)
            continue
        known[id(top)] = all(known[id(o)] for o in top.operands)
        stack.pop()
    return known[id(ins)]
