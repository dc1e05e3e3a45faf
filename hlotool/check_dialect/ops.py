"""Lowering and running the StableHLO interpreter's test dialect (`check.*`, plus
`interpreter.probe`).

A check is an observation of values at a point of a function. Each check op lowers to a
side-effecting custom call `check.<kind>` whose operands are the observed value and the
expected one (for the `*_const` forms, the literal becomes a constant instruction); its
result is an empty tuple that nothing uses. The interpreter runs it wherever it sits
(in a while body, a branch or a called function, as often as that code runs); the
handler registered here records the operand values in the evaluator when it is a
`RecordingEvaluator`, and does nothing otherwise (so `hlotool run` of a file with checks
ignores them). The comparison happens afterwards, in Python (`compare`).

`interpreter.probe %x, probe_id = "id"` lowers to an identity custom call that records
each value it passes (per iteration); `check.expect_serialized_eq %v, probe_id = "id",
iter = N` compares `%v` with the N-th value recorded under that id in the same run (the
StableHLO interpreter writes probes to files and reads them back; hlotool keeps them in
memory, so no probe directory is needed).
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hlotool.stablehlo.ast import DenseAttr
from hlotool.stablehlo.attrs import dense_literal, get_float, get_int, get_string
from hlotool.stablehlo.lowering import CONVERTERS, OpCtx
from hlotool.interpreter.core import Evaluator, Value
from hlotool.interpreter.kernels.custom_call import handler
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape

#: check op -> (number of value operands, takes a literal, needs float or complex).
CHECK_OPS: dict[str, tuple[int, bool, bool]] = {
    "check.expect_eq": (2, False, False),
    "check.expect_eq_const": (1, True, False),
    "check.expect_almost_eq": (2, False, True),
    "check.expect_almost_eq_const": (1, True, True),
    "check.expect_close": (2, False, True),
    "check.expect_serialized_eq": (1, False, False),
}
PROBE_OP = "interpreter.probe"
#: StableHLO's default absolute tolerance of expect_almost_eq (reference/Element.h).
DEFAULT_TOLERANCE = 1e-4


@dataclass
class CheckSpec:
    """One check op of the source: what it compares and how."""

    kind: str
    line: int
    column: int
    tolerance: float = DEFAULT_TOLERANCE
    min_ulp: int = 0
    max_ulp: int = 1
    probe_id: str = ""
    iteration: int = 0


@dataclass
class Collector:
    """The check ops lowered while it is active, by the id of their custom call."""

    specs: dict[int, CheckSpec] = field(default_factory=dict)


COLLECTOR: ContextVar[Collector | None] = ContextVar("check_collector", default=None)


class RecordingEvaluator(Evaluator):
    """An evaluator that keeps what checks and probes observe."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: id(check custom call) -> operand values, one list per execution.
        self.observations: dict[int, list[list[Value]]] = {}
        #: probe id -> values in execution order.
        self.probes: dict[str, list[Value]] = {}


# -- lowering ---------------------------------------------------------------------------------


def _spec(ctx: OpCtx) -> CheckSpec:
    """The check's options from its attributes (StableHLO's defaults otherwise)."""
    spec = CheckSpec(ctx.name.removeprefix("check."), ctx.tok.line or 0, ctx.tok.column or 0)
    spec.tolerance = ctx.get("tolerance", get_float, DEFAULT_TOLERANCE)
    spec.max_ulp = ctx.get("max_ulp_difference", get_int, 1)
    spec.min_ulp = ctx.get("min_ulp_difference", get_int, 0)
    if spec.kind == "expect_serialized_eq":
        spec.probe_id = ctx.need("probe_id", get_string)
        spec.iteration = ctx.get("iter", get_int, ctx.get("iteration", get_int, 0))
    return spec


def _expected_constant(ctx: OpCtx) -> Instruction:
    """The literal of a `*_const` check as a constant instruction."""
    value = ctx.op.attrs.get("value")
    if not isinstance(value, DenseAttr):
        raise ctx.error("expects `%value, dense<...> : type`")
    lit = dense_literal(value, ctx.lw.file.resources)
    return ctx.emit(Opcode.CONSTANT, lit.shape, [], literal=lit)


def _check_types(ctx: OpCtx, operands: list[Instruction], floating: bool) -> None:
    """The observed values must be arrays of one type (float/complex where asked)."""
    first = operands[0].shape
    if not first.is_array:
        raise ctx.error(f"checks take tensors, not {first}")
    for other in operands[1:]:
        if other.shape.without_layouts() != first.without_layouts():
            raise ctx.error(
                f"operand types differ: {first.without_layouts()} vs "
                f"{other.shape.without_layouts()}"
            )
    t = first.element_type
    if floating and not (t.is_float or t.is_complex):
        raise ctx.error(f"needs floating-point or complex values, not {t.value}")


def _convert_check(ctx: OpCtx) -> list[Instruction]:
    arity, literal, floating = CHECK_OPS[ctx.name]
    ctx.arity(arity)
    operands = list(ctx.operands)
    if literal:
        operands.append(_expected_constant(ctx))
    spec = _spec(ctx)
    _check_types(ctx, operands, floating)
    attrs = {"custom_call_target": ctx.name, "custom_call_has_side_effect": True}
    ins = ctx.emit(Opcode.CUSTOM_CALL, Shape.tuple_of([]), operands, attrs)
    collector = COLLECTOR.get()
    if collector is not None:
        collector.specs[id(ins)] = spec
    return []


def _convert_probe(ctx: OpCtx) -> list[Instruction]:
    ctx.arity(1)
    probe_id = ctx.need("probe_id", get_string)
    attrs = {"custom_call_target": PROBE_OP, "custom_call_has_side_effect": True}
    shape = ctx.operands[0].shape
    return [ctx.emit(Opcode.CUSTOM_CALL, shape, ctx.operands, attrs, backend_config=probe_id)]


for _name in CHECK_OPS:
    CONVERTERS[_name] = _convert_check
CONVERTERS[PROBE_OP] = _convert_probe


# -- running ----------------------------------------------------------------------------------


@handler(*CHECK_OPS)
def _run_check(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    if isinstance(ev, RecordingEvaluator):
        ev.observations.setdefault(id(ins), []).append([np.array(v) for v in ops])
    return ()


@handler(PROBE_OP)
def _run_probe(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    if isinstance(ev, RecordingEvaluator):
        ev.probes.setdefault(ins.backend_config, []).append(np.array(ops[0]))
    return ops[0]
