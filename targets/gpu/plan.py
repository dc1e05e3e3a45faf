"""Which instruction becomes which GPU kernel (after the `gpu` pipeline's fusion).

* a kLoop fusion, or a standalone elementwise / data-movement op: a loop kernel (a
  transpose that moves the minor dimension, or a fusion whose root is one: the tiled
  shared-memory transpose);
* a fusion whose roots are reduces of one shape (kInput), or a standalone reduce: a
  reduction kernel;
* a dot (standalone, or a fusion whose root is a dot): the tiled GEMM;
* a scatter: a one-block kernel applying the updates in the interpreter's order;
* a sort: an odd-even transposition sort per row in shared memory (stable);
* while, conditional and call run in the host runtime (the interpreter's control flow,
  calling back into the runtime for their bodies, whose instructions are planned too);
* everything else, and any fusion that gets no kernel, runs on the reference
  interpreter; a fusion without a kernel runs its body instruction by instruction, each
  planned on its own. `GpuPlan.skipped` says why, per instruction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import CALLS_REDUCER, ELEMENTWISE, Opcode
from hlotool.ir.types import Shape
from hlotool.targets.gpu.elemental import gpu_unsupported_reason as unsupported_reason
from hlotool.targets.gpu.kernel import Kernel
from hlotool.targets.gpu.kernels.dot import dot_kernel, unsupported_dot
from hlotool.targets.gpu.kernels.loop import loop_kernel
from hlotool.targets.gpu.kernels.sort import sort_kernel, unsupported_sort
from hlotool.targets.gpu.kernels.scatter import scatter_kernel, unsupported_scatter
from hlotool.targets.gpu.kernels.transpose import tiled_dims, transpose_kernel
from hlotool.targets.gpu.kernels.reduce import reduce_kernel, same_reduction, unsupported_reduce

O = Opcode

#: Ops whose interpreter implementation moves no data (views, tuples, leaves): neither
#: kernels nor fallbacks (counted as the CPU target counts).
FREE_OPS = frozenset({O.PARAMETER, O.CONSTANT, O.TUPLE, O.GET_TUPLE_ELEMENT, O.RESHAPE, O.COPY,
                      O.AFTER_ALL, O.OPT_BARRIER, O.DOMAIN, O.ADD_DEPENDENCY})  # fmt: skip
#: Ops whose work is done by the computations they call (counted there).
CONTROL = frozenset({O.FUSION, O.CALL, O.WHILE, O.CONDITIONAL})
#: Standalone ops compiled as single-instruction loop kernels.
STANDALONE = (ELEMENTWISE | {O.CONVERT, O.BITCAST_CONVERT, O.BROADCAST, O.BITCAST, O.TRANSPOSE,
                             O.SLICE, O.REVERSE, O.PAD, O.CONCATENATE, O.IOTA, O.GATHER,
                             O.DYNAMIC_SLICE, O.REDUCE_WINDOW, O.DYNAMIC_UPDATE_SLICE,
                             O.CONVOLUTION}) - {O.MAP}


@dataclass(slots=True)
class KernelPlan:
    """One kernel launch: where its buffers come from and what it returns."""

    kernel: Kernel
    #: For each input buffer: the operand position of the instruction it reads.
    sources: list[int]
    #: Array constants passed after the inputs.
    constants: list[np.ndarray]
    #: One per output buffer.
    outputs: list[Shape]
    #: Whether the instruction's value is a tuple of the outputs.
    tuple_result: bool
    #: The dtype of each input buffer.
    input_types: list[np.dtype] = field(default_factory=list)
    #: The function that runs it: its own kernel's name, or that of an identical kernel.
    symbol: str = ""


@dataclass(slots=True)
class GpuPlan:
    """The kernels of one module and why the rest runs on the interpreter."""

    plans: dict[int, KernelPlan] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    #: ids of computations whose instructions count as executions (not reducers).
    counted: set[int] = field(default_factory=set)

    @property
    def kernels(self) -> list[Kernel]:
        """One kernel per distinct function (identical kernels share one)."""
        return [p.kernel for p in self.plans.values() if p.symbol == p.kernel.name]


def plan_module(module: Module) -> GpuPlan:
    out = GpuPlan()
    reducers = _reducer_computations(module)
    names: set[str] = set()
    for comp in module.computations:
        if id(comp) in reducers:
            continue
        out.counted.add(id(comp))
        for ins in comp.instructions:
            if ins.opcode in FREE_OPS or ins.opcode in (O.CALL, O.WHILE, O.CONDITIONAL):
                continue
            name = _symbol(ins, names)
            try:
                plan, reason = plan_instruction(ins, name)
            except (KeyError, NotImplementedError, TypeError, ValueError) as exc:
                plan, reason = None, f"kernel generation: {exc}"
            if plan is not None:
                names.add(name)
                out.plans[id(ins)] = plan
            else:
                out.skipped[ins.name] = reason
    _share_identical(out)
    return out


def _share_identical(plan: GpuPlan) -> None:
    """Point each kernel plan at the first kernel with the same code (`symbol`)."""
    from hlotool.targets.gpu.nvptx import fingerprint

    first: dict[str, str] = {}
    for p in plan.plans.values():
        p.symbol = first.setdefault(fingerprint(p.kernel), p.kernel.name)


def _reducer_computations(module: Module) -> set[int]:
    todo: list[Computation] = [c for comp in module.computations for i in comp.instructions
                               if i.opcode in CALLS_REDUCER for c in i.called_computations]
    seen: set[int] = set()
    while todo:
        c = todo.pop()
        if id(c) not in seen:
            seen.add(id(c))
            todo.extend(x for i in c.instructions for x in i.called_computations)
    return seen


def _symbol(ins: Instruction, taken: set[str]) -> str:
    """A PTX-safe kernel name after the instruction (`fusion.3` -> `fusion_3`)."""
    base = "".join(c if c.isalnum() or c == "_" else "_" for c in ins.name) or "kernel"
    if base[0].isdigit():
        base = f"k_{base}"
    name, k = base, 1
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    return name


def plan_instruction(ins: Instruction, name: str) -> tuple[KernelPlan | None, str]:
    """The kernel for `ins`, or (None, why not)."""
    if ins.opcode is O.FUSION:
        return _plan_fusion(ins, name)
    if not all(o.shape.is_array for o in ins.operands):
        return None, "tuple operand"
    sources = list(range(ins.operand_count))
    if ins.opcode is O.REDUCE:
        reason = unsupported_reduce(ins) or _elemental_operands(ins.operands)
        if reason:
            return None, reason
        k = reduce_kernel(name, [ins], list(ins.operands), ins.name)
        return _finish(k, ins, sources, [], _result_shapes(ins), ins.shape.is_tuple), ""
    if ins.opcode is O.SORT:
        reason = unsupported_sort(ins)
        if reason:
            return None, reason
        return _finish(sort_kernel(name, ins, ins.name), ins, sources, [], _result_shapes(ins),
                       ins.shape.is_tuple), ""
    if ins.opcode is O.SCATTER:
        reason = unsupported_scatter(ins)
        if reason:
            return None, reason
        return _finish(scatter_kernel(name, ins, ins.name), ins, sources, [], _result_shapes(ins),
                       ins.shape.is_tuple), ""
    if ins.opcode is O.DOT:
        reason = unsupported_dot(ins) or _elemental_operands(ins.operands)
        if reason:
            return None, reason
        return _finish(dot_kernel(name, ins, list(ins.operands), ins.name), ins, sources, [],
                       [ins.shape], False), ""
    if ins.opcode in STANDALONE:
        reason = unsupported_reason(ins)
        if reason:
            return None, reason
        if tiled_dims(ins) is not None:
            k = transpose_kernel(name, ins, ins, list(ins.operands), ins.name)
            return _finish(k, ins, sources, [], [ins.shape], False), ""
        return _finish(loop_kernel(name, [ins], list(ins.operands), ins.name), ins, sources, [],
                       [ins.shape], False), ""
    return None, f"no GPU kernel for {ins.opcode.value}"


def _elemental_operands(operands: list[Instruction]) -> str | None:
    for o in operands:
        if not o.shape.is_array or o.shape.is_dynamic:
            return f"operand shape {o.shape}"
    return None


def _result_shapes(ins: Instruction) -> list[Shape]:
    return list(ins.shape.tuple_shapes) if ins.shape.is_tuple else [ins.shape]


def _finish(kernel: Kernel, ins: Instruction, sources: list[int], constants: list[np.ndarray],
            outputs: list[Shape], tuple_result: bool) -> KernelPlan:
    """The plan reading operands `sources` of `ins`, then `constants`."""
    return KernelPlan(kernel, sources, constants, outputs, tuple_result,
                      [ins.operand(k).shape.element_type.numpy_dtype for k in sources])


def _plan_fusion(ins: Instruction, name: str) -> tuple[KernelPlan | None, str]:
    comp: Computation = ins.attrs["calls"] if "calls" in ins.attrs else ins.called_computations[0]
    root = comp.root
    assert root is not None
    roots = list(root.operands) if root.opcode is O.TUPLE else [root]
    if any(not r.shape.is_array for r in roots):
        return None, "nested tuple result"
    params = sorted(comp.parameters, key=lambda p: p.parameter_number)
    if any(not p.shape.is_array for p in params):
        return None, "tuple parameter"
    inputs: list[Instruction] = list(params)
    sources = [p.parameter_number for p in params]
    constants: list[np.ndarray] = []
    for i in comp.instructions:
        if i.opcode is O.CONSTANT and i.shape.is_array and i.shape.rank > 0 and not _splat(i):
            inputs.append(i)
            constants.append(_constant_array(i))
    root_ids = {id(r) for r in roots}
    kinds = {r.opcode for r in roots}
    for i in comp.instructions:
        if i.opcode in (O.PARAMETER, O.CONSTANT) or (i is root and i.opcode is O.TUPLE):
            continue
        if i.opcode in (O.REDUCE, O.DOT) and id(i) in root_ids:
            continue
        reason = unsupported_reason(i)
        if reason:
            return None, f"{i.name}: {reason}"
    tuple_result = root.opcode is O.TUPLE
    if O.REDUCE in kinds:
        if kinds != {O.REDUCE} or not all(same_reduction(roots[0], r) for r in roots):
            return None, "reduction fusion with roots of different shapes"
        for r in roots:
            reason = unsupported_reduce(r)
            if reason:
                return None, reason
        outs = [s for r in roots for s in _result_shapes(r)]
        k = reduce_kernel(name, roots, inputs, ins.name)
        return _finish(k, ins, sources, constants, outs, tuple_result or len(outs) > 1), ""
    if O.DOT in kinds:
        if len(roots) != 1:
            return None, "multi-output dot fusion"
        reason = unsupported_dot(roots[0])
        if reason:
            return None, reason
        return _finish(dot_kernel(name, roots[0], inputs, ins.name), ins, sources, constants,
                       [roots[0].shape], False), ""
    if len(roots) == 1 and tiled_dims(roots[0]) is not None:
        k = transpose_kernel(name, roots[0], roots[0], inputs, ins.name)
    else:
        k = loop_kernel(name, roots, inputs, ins.name)
    return _finish(k, ins, sources, constants, [r.shape for r in roots], tuple_result), ""


def _splat(ins: Instruction) -> bool:
    assert ins.literal is not None and ins.literal.data is not None
    return ins.literal.data.size == 0 or ins.literal.splat_element() is not None


def _constant_array(ins: Instruction) -> np.ndarray:
    from hlotool.interpreter.kernels.data_movement import literal_value

    assert ins.literal is not None
    return np.ascontiguousarray(literal_value(ins.literal), dtype=ins.shape.element_type.numpy_dtype)
