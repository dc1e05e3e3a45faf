"""The CPU executable: runs a module instruction by instruction.

Instructions with a compiled kernel run natively through a thunk (a ctypes call with
one pointer per buffer); everything else runs on the reference interpreter's
implementation (`hlotool.interpreter.core.IMPLS`). Control flow (while, call,
conditional) runs on the interpreter, which calls back into this executor for the
bodies, so loop bodies run natively too.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from hlotool.interpreter.core import IMPLS, Evaluator, Unsupported, Value, _at
from hlotool.interpreter.kernels import elementwise as ew
from hlotool.diagnostics import HloError
from hlotool.elided import elided_error, elided_reads
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.base import Executable, ExecutionStats
from hlotool.targets.cpu.codegen import FREE_OPS, CompiledPlan
from hlotool.targets.cpu.jit import CodeLibrary
from hlotool.targets.cpu.kernels.conv import ConvPlan, ConvThunk
from hlotool.targets.cpu.kernels.dot import DotPlan, DotThunk
from hlotool.targets.cpu.kernels.loop import LoopPlan
from hlotool.targets.cpu.kernels.row import RowPlan
from hlotool.targets.cpu.schedule import NotSchedulable, Schedule
from hlotool.targets.cpu.workspace import Workspace, aligned_copy


#: Ops whose work is done by the computations they call (counted there, not here).
_CONTROL = frozenset({Opcode.FUSION, Opcode.CALL, Opcode.WHILE, Opcode.CONDITIONAL})


class Thunk:
    """One native kernel call: operand values in, fresh output arrays out."""

    def __init__(self, ins: Instruction, plan: LoopPlan | RowPlan, library: CodeLibrary,
                 symbol: str) -> None:
        self.fn = library.get_function(symbol)
        self.ins = ins
        self.multi = len(plan.roots) > 1 or ins.shape.is_tuple
        #: Whether an output may be a buffer the kernel reads (`may_share`).
        self.in_place = getattr(plan, "in_place", True)
        self.sources = [_source_position(ins, i) for i in plan.inputs]
        self.in_specs = [(i.shape.dimensions, i.shape.element_type.numpy_dtype) for i in plan.inputs]
        self.constants = [c for _, c in plan.constants]
        self.out_specs = [(r.shape.dimensions, r.shape.element_type.numpy_dtype) for r in plan.roots]
        #: Scratch buffers the kernel writes and nobody reads back (row fusions' reduces).
        self.scratch = [np.empty(r.shape.dimensions, r.shape.element_type.numpy_dtype)
                        for r in getattr(plan, "scratch", ())]
        n = len(self.sources) + len(self.constants) + len(self.out_specs)
        self.args = (ctypes.c_void_p * (n + len(self.scratch)))()
        for k, s in enumerate(self.scratch):
            self.args[n + k] = s.ctypes.data
        for k, c in enumerate(self.constants):
            self.args[len(self.sources) + k] = c.ctypes.data

    def __call__(self, values: list[Value]) -> Value:
        """Run on the input values (in `LoopPlan.inputs` order)."""
        keep: list[np.ndarray] = []
        for k, (v, (dims, dtype)) in enumerate(zip(values, self.in_specs, strict=True)):
            a = np.ascontiguousarray(v, dtype=dtype)
            keep.append(a)
            self.args[k] = a.ctypes.data
        outs = [np.empty(dims, dtype) for dims, dtype in self.out_specs]
        base = len(self.sources) + len(self.constants)
        for k, o in enumerate(outs):
            self.args[base + k] = o.ctypes.data
        self.fn(self.args)
        return tuple(outs) if self.multi else outs[0]

    def native_args(self) -> list[tuple[Any, ...]]:
        """The entry's buffers for the arena runtime (`schedule.NativeArgs`)."""
        args: list[tuple[Any, ...]] = [
            ("value", src) if isinstance(src, Instruction) else
            ("operand", src[0], ()) if src[1] < 0 else ("inner", *src)
            for src in self.sources]
        args += [("address", c.ctypes.data) for c in self.constants]
        args += [("output", (k,) if self.multi else ()) for k in range(len(self.out_specs))]
        args += [("address", s.ctypes.data) for s in self.scratch]
        return args

    def may_share(self, operand: int, index: tuple[int, ...]) -> bool:
        """Loop, row and reduce kernels read each element before writing it (or a row
        before writing the row), so an output may be a buffer they read directly (not
        a kernel whose plan says `in_place` False)."""
        return self.in_place and any(src == (operand, -1) for src in self.sources
                   if not isinstance(src, Instruction))

    def accepts(self, values: list[Value]) -> bool:
        """Whether the values are arrays of the kernel's input dimensions (inside a
        reducer region the interpreter passes region-wide arrays instead)."""
        return all(isinstance(v, np.ndarray | np.generic) and np.shape(v) == tuple(dims)
                   for v, (dims, _) in zip(values, self.in_specs, strict=True))

    def inputs(self, operands: list[Value], env: dict[int, Value]) -> list[Value]:
        """The kernel's input values from the instruction's operands (and, for an inlined
        product, that product's operands)."""
        return [env[id(src)] if isinstance(src, Instruction) else
                operands[src[0]] if src[1] < 0 else env[id(self.ins.operand(src[0]).operand(src[1]))]
                for src in self.sources]


#: Where a kernel input's value comes from: (operand position, -1) for an operand or a
#: fusion parameter, (operand position, operand-of-operand index) for an inlined
#: product's operand, or the instruction itself, computed earlier in the same
#: computation (an output fusion's dot and parameters, read by its epilogue kernel).
Source = tuple[int, int] | Instruction


def _source_position(ins: Instruction, src: Instruction) -> Source:
    """Where the input `src` of the kernel of `ins` comes from (`Source`)."""
    if src.opcode is Opcode.PARAMETER and ins.opcode is Opcode.FUSION:
        return src.parameter_number, -1
    for k, o in enumerate(ins.operands):
        if o is src:
            return k, -1
    for k, o in enumerate(ins.operands):
        for j, oo in enumerate(o.operands):
            if oo is src:
                return k, j
    return src


class CpuExecutable(Executable, Evaluator):
    """A module compiled for the host CPU (native kernels + interpreter fallback)."""

    def __init__(self, module: Module, library: CodeLibrary | None,
                 plan: CompiledPlan) -> None:
        Evaluator.__init__(self, module)
        #: Elided constants (`{...}`) the module reads: running it is refused.
        self.elided = elided_reads(module)
        self.library = library
        self.skipped = plan.skipped
        self.counted = plan.counted
        #: Kernel name -> LLVM function symbol (identical kernels share one function).
        self.symbols = plan.symbols
        self.thunks: dict[int, Thunk | DotThunk | ConvThunk] = {}
        #: Scratch memory of the library thunks (they run one at a time).
        self.workspace = Workspace()
        ins_by_id = {id(i): i for c in module.computations for i in c.instructions}
        for key, kernel in plan.plans.items():
            if isinstance(kernel, DotPlan) and not (kernel.native and library is not None):
                self.thunks[key] = DotThunk(ins_by_id[key], kernel.tune)
            elif isinstance(kernel, ConvPlan) and not (kernel.native and library is not None):
                self.thunks[key] = ConvThunk(ins_by_id[key], kernel.conv, self.workspace)
            elif hasattr(kernel, "make_thunk"):
                symbol = plan.symbols.get(kernel.name, kernel.name)
                self.thunks[key] = kernel.make_thunk(ins_by_id[key], library, symbol)
            elif library is not None:
                symbol = plan.symbols.get(kernel.name, kernel.name)
                self.thunks[key] = Thunk(ins_by_id[key], kernel, library, symbol)
        #: Kernel name -> autotuning record (`autotune.Choice`) of the tuned kernels.
        self.tuning: dict[str, Any] = {}
        #: Kernel name -> "transpose tile=32"-style parameters of the tunable kernels.
        self.kernel_params: dict[str, str] = {}
        self._stats = ExecutionStats()
        self._env: dict[int, Value] = {}
        self._schedule: Schedule | None | bool = False
        self._lock = threading.Lock()

    @property
    def stats(self) -> ExecutionStats:
        return self._stats

    def place(self, args: Sequence[Any]) -> list[Any]:
        """The arguments placed once for many runs, as `jax.device_put` places them for
        XLA: each array argument of an array parameter as a C-contiguous copy of the
        parameter's element type at a 64-byte boundary (its pages already touched), so
        that `run` reads it in place and copies nothing in; other values as they are.
        (Kernels read any contiguous array in place; a placed one also starts on a
        cache line, as XLA's buffers do.)"""
        params = self.module.entry.parameters
        placed: list[Any] = []
        for k, a in enumerate(args):
            shape = params[k].shape if k < len(params) else None
            dtype = shape.element_type.numpy_dtype if shape is not None and shape.is_array \
                else None
            placed.append(aligned_copy(np.asarray(a), dtype)
                          if dtype is not None and isinstance(a, np.ndarray | np.generic) else a)
        return placed

    def run(self, args: Sequence[Any]) -> Any:
        if self.elided:
            raise elided_error(self.elided)
        # One arena and per-kernel scratch: calls from several threads take turns.
        with self._lock, np.errstate(all="ignore"):
            self._stats = ExecutionStats()
            schedule = self._arena_schedule()
            if schedule is not None and len(args) == len(schedule.params):
                try:
                    return schedule.run(args)
                except NotSchedulable:
                    self._stats = ExecutionStats()
            return Evaluator.run(self, args)

    def _arena_schedule(self) -> Schedule | None:
        """The entry as a thunk sequence over one arena (built on first run; None when
        the entry uses something it cannot describe)."""
        if self._schedule is False:
            try:
                self._schedule = Schedule(self)
            except NotSchedulable:
                self._schedule = None
        return self._schedule

    def call(self, comp: Computation, args: Sequence[Value]) -> Value:
        env = self.bind_parameters(comp, args)
        for ins in self._order(comp):
            if ins.opcode is Opcode.PARAMETER:
                continue
            operands = [env[id(o)] for o in ins.operands]
            env[id(ins)] = self._execute(ins, operands, env)
        assert comp.root is not None
        return env[id(comp.root)]

    def _execute(self, ins: Instruction, operands: list[Value], env: dict[int, Value]) -> Value:
        thunk = self.thunks.get(id(ins))
        inputs = thunk.inputs(operands, env) if thunk is not None else None
        if thunk is not None and inputs is not None and thunk.accepts(inputs):
            value = thunk(inputs)
            self._stats.native += getattr(thunk, "executions", 1)
            self._note_product(ins, operands)
            return value
        fn = IMPLS.get(ins.opcode)
        if fn is None:
            raise _at(Unsupported(f"the interpreter cannot run {ins.opcode.value} "
                                  f"(instruction {ins.name})"), ins)
        if ins.opcode not in FREE_OPS and ins.opcode not in _CONTROL and \
                ins.parent is not None and id(ins.parent) in self.counted:
            self._stats.fallback += 1
            by_op = self._stats.fallback_by_opcode
            by_op[ins.opcode.value] = by_op.get(ins.opcode.value, 0) + 1
        try:
            return fn(self, ins, operands)
        except HloError as exc:
            raise _at(exc, ins) from None

    def _note_product(self, ins: Instruction, operands: list[Value]) -> None:
        """Keep the interpreter's multiply-add contraction working for fallback users."""
        if ins.opcode is Opcode.MULTIPLY and ins.shape.element_type is PrimitiveType.F32 \
                and ew._feeds_fma(ins):
            ew._pending_products(self)[ins] = (operands[0], operands[1])
