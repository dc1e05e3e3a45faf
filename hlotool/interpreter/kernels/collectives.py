"""Collectives on one device: with a single replica and partition every group has one
member, so all-reduce, all-gather, all-to-all, reduce-scatter and collective-broadcast
return their operands, and collective-permute delivers a value only along a (0, 0)
pair (devices that receive nothing get zeros, as in XLA). Modules for several devices
are a clear error."""

from __future__ import annotations

import numpy as np

from hlotool.interpreter.core import Evaluator, Unsupported, Value, impl, zeros_for
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode as O


def _one_device(ev: Evaluator, ins: Instruction) -> None:
    cfg = ev.module.config
    if cfg.replica_count * cfg.num_partitions != 1:
        raise Unsupported(
            f"{ins.opcode.value} in a module for {cfg.replica_count} replicas x "
            f"{cfg.num_partitions} partitions: the interpreter runs one device"
        )


def _same(operands: list[Value]) -> Value:
    return operands[0] if len(operands) == 1 else tuple(operands)


@impl(O.ALL_REDUCE, O.ALL_GATHER, O.ALL_TO_ALL, O.REDUCE_SCATTER, O.COLLECTIVE_BROADCAST)
def _identity(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    _one_device(ev, ins)
    return _same(operands)


@impl(O.ALL_REDUCE_START)
def _all_reduce_start(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    _one_device(ev, ins)
    return _same(operands)


@impl(O.ALL_GATHER_START)
def _all_gather_start(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """(operands, results): the results equal the operands on one device."""
    _one_device(ev, ins)
    return (_same(operands), _same(operands))


@impl(O.ALL_REDUCE_DONE)
def _all_reduce_done(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0]


@impl(O.ALL_GATHER_DONE, O.COLLECTIVE_PERMUTE_DONE)
def _second_of_pair(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0][1]


def _permuted(ins: Instruction, x: Value) -> Value:
    pairs = ins.attrs.get("source_target_pairs", ())
    if any(tuple(p) == (0, 0) for p in pairs):
        return x
    return zeros_for(ins.operand(0).shape)


@impl(O.COLLECTIVE_PERMUTE)
def _collective_permute(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    _one_device(ev, ins)
    if len(operands) != 1:
        raise Unsupported("collective-permute with slice operands is not supported")
    return _permuted(ins, operands[0])


@impl(O.COLLECTIVE_PERMUTE_START)
def _collective_permute_start(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    _one_device(ev, ins)
    if len(operands) != 1:
        raise Unsupported("collective-permute with slice operands is not supported")
    x = operands[0]
    extra = tuple(np.zeros(s.dimensions, s.element_type.numpy_dtype)
                  for s in ins.shape.tuple_shapes[2:])
    return (x, _permuted(ins, x), *extra)
