"""The simulator: executes a module with TPU numerics and counts its kernels' cycles.

Values come from the reference interpreter's opcode table with replacements: dots and
convolutions with float operands run as MXU passes (bf16 operands, f32 accumulation in
MXU-depth chunks, convolutions as implicit GEMMs; HIGH 3 and HIGHEST 6 passes), and float elementwise math (arithmetic,
exp/log/tanh/logistic/roots/trig) runs as the 32-bit VPU does: in f32 with numpy,
narrow types rounded back per op. Everything else runs on the interpreter. Every execution of a
kernel (an instruction of a sequential computation, so loop bodies count once per trip)
is recorded; cycles are the program's static per-kernel costs summed over that trace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from hlotool.interpreter.core import IMPLS, Evaluator, Unsupported, Value, _at
from hlotool.diagnostics import HloError
from hlotool.interpreter.kernels.contraction import _dot_dims
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.openblas import blas_threads
from hlotool.targets.tpu.numerics import convolution_mxu, dot_general_mxu
from hlotool.targets.tpu.program import Program
from hlotool.targets.tpu.units import mxu_passes

P = PrimitiveType
_MXU_FLOATS = frozenset({P.F32, P.BF16, P.F16, P.F8E5M2, P.F8E4M3, P.F8E4M3FN, P.F8E4M3B11FNUZ,
                         P.F8E3M4, P.F8E5M2FNUZ, P.F8E4M3FNUZ})


def uses_mxu_numerics(ins: Instruction) -> bool:
    """Whether a dot/convolution's values are computed as bf16 MXU passes (float operands
    and a float result narrower than f64); others run exactly on the interpreter."""
    if ins.opcode not in (Opcode.DOT, Opcode.CONVOLUTION) or ins.operand_count != 2:
        return False
    types = [o.shape.element_type for o in ins.operands]
    return all(t in _MXU_FLOATS for t in types) and ins.shape.element_type in _MXU_FLOATS


_NARROW_FLOATS = frozenset({P.F32, P.BF16, P.F16})
O = Opcode


def _logistic(x: np.ndarray) -> np.ndarray:
    return np.float32(1) / (np.float32(1) + np.exp(-x))


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return np.float32(1) / np.sqrt(x)


#: The VPU's float math: numpy in f32 (TPU transcendental approximations are not public;
#: numpy's f32 functions are within a few ulps of the correctly rounded result).
VPU_MATH: dict[Opcode, Any] = {
    O.ADD: np.add, O.SUBTRACT: np.subtract, O.MULTIPLY: np.multiply, O.DIVIDE: np.divide,
    O.MAXIMUM: np.maximum, O.MINIMUM: np.minimum, O.NEGATE: np.negative, O.ABS: np.abs,
    O.EXP: np.exp, O.EXPM1: np.expm1, O.LOG: np.log, O.LOG1P: np.log1p, O.TANH: np.tanh,
    O.LOGISTIC: _logistic, O.SQRT: np.sqrt, O.RSQRT: _rsqrt, O.CBRT: np.cbrt,
    O.POWER: np.power, O.SIN: np.sin, O.COS: np.cos, O.TAN: np.tan, O.ATAN2: np.arctan2,
}


def uses_vpu_numerics(ins: Instruction) -> bool:
    """Whether an elementwise op runs as VPU f32 math here (f32/bf16/f16 operands and
    result); others run on the interpreter (XLA:CPU semantics)."""
    return (ins.opcode in VPU_MATH and ins.shape.is_array
            and ins.shape.element_type in _NARROW_FLOATS
            and all(o.shape.element_type in _NARROW_FLOATS for o in ins.operands))


def _vpu(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """An elementwise op in f32 on the VPU, rounded back to a narrow result type."""
    if not uses_vpu_numerics(ins):
        return IMPLS[ins.opcode](ev, ins, operands)
    out = VPU_MATH[ins.opcode](*(_f32(x) for x in operands))
    return _cast(np.asarray(out, dtype=np.float32), ins.shape.element_type)


def _f32(x: Any) -> np.ndarray:
    """A value as f32 (no copy when it already is)."""
    return np.asarray(x, dtype=np.float32)


def _cast(x: np.ndarray, t: PrimitiveType) -> np.ndarray:
    return x if t is P.F32 else x.astype(t.numpy_dtype)


class TpuEvaluator(Evaluator):
    """The interpreter with MXU numerics for dots and convolutions, recording kernels."""

    def __init__(self, module: Any, program: Program, device: Any = None) -> None:
        super().__init__(module, device=device)
        self.program = program
        self.depth = program.chip.mxu_depth
        self.impls = dict(IMPLS)
        self.impls[Opcode.DOT] = self._dot
        self.impls[Opcode.CONVOLUTION] = self._conv
        for op in VPU_MATH:
            self.impls[op] = _vpu
        #: Kernel indices in execution order.
        self.trace: list[int] = []

    def call(self, comp: Computation, args: Sequence[Value]) -> Value:
        env: dict[int, Value] = {}
        for p in comp.parameters:
            if p.parameter_number >= len(args):
                raise Unsupported(f"{comp.name} expects {comp.num_parameters} arguments, "
                                  f"got {len(args)}")
            env[id(p)] = args[p.parameter_number]
        index = self.program.index
        for ins in self._order(comp):
            if ins.opcode is Opcode.PARAMETER:
                continue
            fn = self.impls.get(ins.opcode)
            if fn is None:
                raise _at(Unsupported(f"the TPU simulator cannot run {ins.opcode.value} "
                                      f"(instruction {ins.name} in {comp.name})"), ins)
            k = index.get(id(ins))
            if k is not None:
                self.trace.append(k)
            try:
                env[id(ins)] = fn(self, ins, [env[id(o)] for o in ins.operands])
            except HloError as exc:
                raise _at(exc, ins) from None
        assert comp.root is not None
        return env[id(comp.root)]

    @staticmethod
    def _dot(ev: TpuEvaluator, ins: Instruction, operands: list[Value]) -> Value:
        if not uses_mxu_numerics(ins):
            return IMPLS[Opcode.DOT](ev, ins, operands)
        out = dot_general_mxu(_f32(operands[0]), _f32(operands[1]), _dot_dims(ins),
                              mxu_passes(ins), ev.depth)
        return _cast(out, ins.shape.element_type)

    @staticmethod
    def _conv(ev: TpuEvaluator, ins: Instruction, operands: list[Value]) -> Value:
        if not uses_mxu_numerics(ins):
            return IMPLS[Opcode.CONVOLUTION](ev, ins, operands)
        a = ins.attrs
        out = convolution_mxu(_f32(operands[0]), _f32(operands[1]), a["dim_labels"],
                              a.get("window"), a.get("feature_group_count", 1),
                              a.get("batch_group_count", 1), mxu_passes(ins), ev.depth)
        return _cast(out, ins.shape.element_type)


class Simulation:
    """One run: its outputs and the kernels it executed."""

    def __init__(self, program: Program, trace: list[int], result: Value) -> None:
        self.program = program
        self.trace = trace
        self.result = result
        self.counts = Counter(trace)


def simulate(module: Any, program: Program, args: Sequence[Value],
             device: Any = None) -> Simulation:
    """Run the module on `args` with TPU numerics, recording every kernel execution
    (as `device`, a DeviceContext, when it is one of several). OpenBLAS runs on one
    thread: the MXU chunks are many short calls, which its threads slow down on a busy
    machine (see hlotool.targets.openblas)."""
    ev = TpuEvaluator(module, program, device)
    with np.errstate(all="ignore"), blas_threads(1):
        result = ev.run(list(args))
    return Simulation(program, ev.trace, result)
