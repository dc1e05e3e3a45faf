"""The GPU executable: the host runtime that launches kernels and runs the rest.

Instructions with a kernel launch it on the backend (the CUDA driver, or the emulator);
control flow (while, conditional, call) runs on the host as the interpreter runs it,
calling back into this runtime for the bodies, so loop bodies launch kernels too;
everything else runs on the reference interpreter, and `stats` counts both.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.interpreter.core import IMPLS, Evaluator, Unsupported, Value, _at
from hlotool.interpreter.kernels import elementwise as ew
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.base import Executable, ExecutionStats
from hlotool.targets.gpu.plan import CONTROL, FREE_OPS, GpuPlan, KernelPlan


class Backend(Protocol):
    """Where kernels run: `launch` writes the output buffers in place."""

    name: str

    def launch(self, name: str, buffers: Sequence[np.ndarray], outputs: int = 0) -> None:
        """Run kernel `name`; the last `outputs` buffers are its outputs."""


class GpuExecutable(Executable, Evaluator):
    """A module compiled for the GPU (kernels + host control flow + interpreter)."""

    def __init__(self, module: Module, plan: GpuPlan, backend: Backend) -> None:
        Evaluator.__init__(self, module)
        self.plan = plan
        self.backend = backend
        self._stats = ExecutionStats()
        self._lock = threading.Lock()

    @property
    def stats(self) -> ExecutionStats:
        return self._stats

    @property
    def skipped(self) -> dict[str, str]:
        return self.plan.skipped

    def run(self, args: Sequence[Any]) -> Any:
        with self._lock, np.errstate(all="ignore"):
            self._stats = ExecutionStats()
            return Evaluator.run(self, args)

    def call(self, comp: Any, args: Sequence[Value]) -> Value:
        env = self.bind_parameters(comp, args)
        for ins in self._order(comp):
            if ins.opcode is Opcode.PARAMETER:
                continue
            env[id(ins)] = self._execute(ins, [env[id(o)] for o in ins.operands])
        assert comp.root is not None
        return env[id(comp.root)]

    def _execute(self, ins: Instruction, operands: list[Value]) -> Value:
        plan = self.plan.plans.get(id(ins))
        if plan is not None and _arrays(operands, plan):
            value = self._launch(plan, operands)
            self._stats.native += 1
            if ins.opcode is Opcode.MULTIPLY and ins.shape.element_type is PrimitiveType.F32 \
                    and ew._feeds_fma(ins):
                ew._pending_products(self)[ins] = (operands[0], operands[1])
            return value
        fn = IMPLS.get(ins.opcode)
        if fn is None:
            raise _at(Unsupported(f"the interpreter cannot run {ins.opcode.value} "
                                  f"(instruction {ins.name})"), ins)
        if ins.opcode not in FREE_OPS and ins.opcode not in CONTROL and \
                ins.parent is not None and id(ins.parent) in self.plan.counted:
            self._stats.fallback += 1
            by_op = self._stats.fallback_by_opcode
            by_op[ins.opcode.value] = by_op.get(ins.opcode.value, 0) + 1
        try:
            return fn(self, ins, operands)
        except HloError as exc:
            raise _at(exc, ins) from None

    def _launch(self, plan: KernelPlan, operands: list[Value]) -> Value:
        ins_inputs = [np.ascontiguousarray(operands[s], dtype=t)
                      for s, t in zip(plan.sources, plan.input_types, strict=True)]
        outs = [np.empty(s.dimensions, s.element_type.numpy_dtype) for s in plan.outputs]
        self.backend.launch(plan.symbol, [*ins_inputs, *plan.constants, *outs], len(outs))
        return tuple(outs) if plan.tuple_result else outs[0]


def _arrays(operands: list[Value], plan: KernelPlan) -> bool:
    """Whether the operands the kernel reads are arrays (inside a reducer region the
    interpreter may pass other values)."""
    return all(isinstance(operands[s], np.ndarray | np.generic) for s in plan.sources)
