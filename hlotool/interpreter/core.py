"""The reference interpreter's core: values, the per-opcode registry and the evaluator.

A value is a numpy array (dtype = the element type's numpy dtype, C-contiguous or not),
a Python tuple of values (tuple shapes), or TOKEN. Each opcode has one implementation
registered with `@impl(Opcode.X)`; it receives the evaluator, the instruction and the
operand values, and returns the result value. Implementations are vectorized: region
bodies (reducers, comparators) are evaluated on whole arrays where the semantics allow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.interpreter.devices import DeviceContext
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape


class _Token:
    """The value of a token-shaped instruction (carries no data)."""

    def __repr__(self) -> str:
        return "TOKEN"


TOKEN = _Token()
Value: TypeAlias = Any  # np.ndarray | tuple["Value", ...] | _Token

Impl = Callable[["Evaluator", Instruction, list[Value]], Value]
IMPLS: dict[Opcode, Impl] = {}


def impl(*opcodes: Opcode) -> Callable[[Impl], Impl]:
    """Register the implementation of one or more opcodes."""

    def register(fn: Impl) -> Impl:
        for op in opcodes:
            if op in IMPLS:
                raise RuntimeError(f"{op.value} is implemented twice")
            IMPLS[op] = fn
        return fn

    return register


class Unsupported(HloError):
    """An instruction the interpreter cannot run (exit status 2, naming it)."""


class Evaluator:
    """Runs computations of one module on numpy values."""

    def __init__(self, module: Module, *, max_while_iterations: int = 10_000_000,
                 device: DeviceContext | None = None) -> None:
        _load_kernels()
        self.module = module
        self.max_while_iterations = max_while_iterations
        #: Which device this interpreter runs as (replica 0, partition 0 alone by default).
        cfg = module.config
        self.device = device if device is not None else DeviceContext(
            replicas=cfg.replica_count, partitions=cfg.num_partitions)
        self._orders: dict[int, list[Instruction]] = {}

    def run(self, args: Sequence[Value]) -> Value:
        """Run the entry computation on its parameter values."""
        return self.call(self.module.entry, list(args))

    def call(self, comp: Computation, args: Sequence[Value]) -> Value:
        """Evaluate a computation on argument values (one per parameter)."""
        env = self.bind_parameters(comp, args)
        for ins in self._order(comp):
            if ins.opcode is Opcode.PARAMETER:
                continue
            fn = IMPLS.get(ins.opcode)
            if fn is None:
                raise _at(Unsupported(f"the interpreter cannot run {ins.opcode.value} "
                                      f"(instruction {ins.name} in {comp.name})"), ins)
            operands = [env[id(o)] for o in ins.operands]
            try:
                env[id(ins)] = fn(self, ins, operands)
            except HloError as exc:
                raise _at(exc, ins) from None
        assert comp.root is not None
        return env[id(comp.root)]

    @staticmethod
    def bind_parameters(comp: Computation, args: Sequence[Value]) -> dict[int, Value]:
        """The environment of one call: id(parameter) -> its argument."""
        env: dict[int, Value] = {}
        for p in comp.parameters:
            if p.parameter_number >= len(args):
                raise Unsupported(f"{comp.name} expects {comp.num_parameters} arguments, got {len(args)}")
            env[id(p)] = args[p.parameter_number]
        return env

    def _order(self, comp: Computation) -> list[Instruction]:
        key = id(comp)
        order = self._orders.get(key)
        if order is None or len(order) != len(comp.instructions):
            order = comp.post_order()
            self._orders[key] = order
        return order


def _at(exc: HloError, ins: Instruction) -> HloError:
    """Give an error the source position of the instruction that raised it."""
    if not exc.line and ins.location[0]:
        exc.line, exc.column = ins.location
        exc.width = max(1, len(ins.name))
    return exc


def _load_kernels() -> None:
    """Import the modules that register implementations (once)."""
    from hlotool.interpreter import kernels  # noqa: F401


def zeros_for(shape: Shape) -> Value:
    """A zero value of any shape (tuples recursively, tokens as TOKEN)."""
    if shape.is_tuple:
        return tuple(zeros_for(s) for s in shape.tuple_shapes)
    if shape.is_token:
        return TOKEN
    return np.zeros(shape.dimensions, dtype=shape.element_type.numpy_dtype)


def flatten(value: Value) -> list[Value]:
    """Leaves of a (possibly nested) tuple value, in order."""
    if isinstance(value, tuple):
        out: list[Value] = []
        for v in value:
            out.extend(flatten(v))
        return out
    return [value]
