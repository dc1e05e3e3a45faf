"""Control-flow kernels: call, fusion, while, conditional and async wrappers."""

from __future__ import annotations

import numpy as np

from hlotool.interpreter.core import Evaluator, Unsupported, Value, impl, zeros_for
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode

O = Opcode


@impl(O.CALL)
def _call(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return ev.call(ins.attrs["to_apply"], operands)


@impl(O.FUSION)
def _fusion(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return ev.call(ins.attrs["calls"], operands)


@impl(O.WHILE)
def _while(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    condition, body = ins.attrs["condition"], ins.attrs["body"]
    state = operands[0]
    limit = ev.max_while_iterations
    iterations = 0
    while bool(ev.call(condition, [state])):
        if iterations >= limit:
            raise Unsupported(f"while loop {ins.name} did not finish within {limit} iterations")
        state = ev.call(body, [state])
        iterations += 1
    return state


@impl(O.CONDITIONAL)
def _conditional(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """Pred form picks true/false; index form picks a branch, the last when out of range."""
    selector = np.asarray(operands[0])
    branches = ins.attrs.get("branch_computations")
    if branches is None:
        branches = (ins.attrs["true_computation"], ins.attrs["false_computation"])
        index = 0 if bool(selector) else 1
    else:
        index = int(selector)
        if not 0 <= index < len(branches):
            index = len(branches) - 1
    return ev.call(branches[index], [operands[1 + index]])


@impl(O.ASYNC_START)
def _async_start(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """((operands...), result, context): the wrapped computation runs eagerly."""
    result = ev.call(ins.attrs["calls"], operands)
    context = (zeros_for(s) for s in ins.shape.tuple_shapes[2:])
    return (tuple(operands), result, *context)


@impl(O.ASYNC_UPDATE)
def _async_update(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0]


@impl(O.ASYNC_DONE)
def _async_done(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0][1]
