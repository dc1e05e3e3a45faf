"""Scatter kernels in a deterministic order (variadic too).

One block: phase 1 copies the operands into the outputs (all threads, strided); barrier;
phase 2 has thread 0 apply the updates exactly as the interpreter does: for each scatter
index in row-major order, skip the whole update window if any part of it is out of
bounds, else combine each window element (row-major) into the output with the
`to_apply` region. The result is the interpreter's, bit for bit, whatever the combiner;
a parallel version (atomics for add/min/max, sorted segments otherwise) is still to come.
"""

from __future__ import annotations

import math

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.targets.gpu.elemental import GpuElementalEmitter
from hlotool.targets.gpu.kernel import IndexContext, Kernel, grid_stride
from hlotool.targets.gpu.kernels.loop import inputs_map, store
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import Index, linear_index
from hlotool.targets.llvm.indexing import (
    ScatterGeometry,
    call_scalar,
    is_int,
    unsupported_combiner,
)

O = Opcode
BLOCK = 256


def unsupported_scatter(op: Instruction) -> str | None:
    """Why this scatter gets no kernel, or None."""
    shapes = [*(op.shape.tuple_shapes if op.shape.is_tuple else [op.shape]),
              *(o.shape for o in op.operands)]
    for s in shapes:
        if not s.is_array or s.element_type not in u.NATIVE_TYPES or s.is_dynamic:
            return f"element type or shape {s}"
    n = op.operand_count // 2
    if not is_int(op.operand(n).shape.element_type):
        return "scatter indices type"
    return unsupported_combiner(op.attrs["to_apply"], [o.shape.element_type for o in op.operands[:n]])


def scatter_kernel(name: str, op: Instruction, source: str = "") -> Kernel:
    """The kernel of scatter `op`; buffers: its operands, then one output per operand."""
    n = op.operand_count // 2
    bases, updates = op.operands[:n], op.operands[n + 1:]
    geometry = ScatterGeometry.of(op)
    dims = geometry.dims
    comp: Computation = op.attrs["to_apply"]
    inputs = list(op.operands)
    out0 = len(inputs)

    def copy(ctx: IndexContext) -> None:
        b = ctx.b
        with grid_stride(ctx, math.prod(dims), name="copy") as i:
            for k, x in enumerate(bases):
                t = x.shape.element_type
                ty = u.storage_type(t)
                v = b.load(b.gep(ctx.param(k), [i], source_etype=ty), typ=ty)
                b.store(v, b.gep(ctx.param(out0 + k), [i], source_etype=ty))

    def apply(ctx: IndexContext) -> None:
        b = ctx.b
        with b.if_then(b.icmp_unsigned("==", ctx.thread, u.i64(0))):
            em = GpuElementalEmitter(b, inputs_map(ctx, inputs))

            def per_element(at: Index, target: Index) -> None:
                lin = linear_index(b, dims, target)
                inner = GpuElementalEmitter(b, inputs_map(ctx, inputs))
                current = []
                for k, x in enumerate(bases):
                    t = x.shape.element_type
                    ty = u.storage_type(t)
                    v = b.load(b.gep(ctx.param(out0 + k), [lin], source_etype=ty), typ=ty)
                    current.append(b.trunc(v, u.I1) if v.type != u.value_type(t) else v)
                new = [inner.value(x, at) for x in updates]
                for k, v in enumerate(call_scalar(b, comp, [*current, *new])):
                    store(b, ctx.param(out0 + k), lin, bases[k].shape.element_type, v)

            geometry.loop(b, em, per_element)

    return Kernel(name, len(inputs) + n, BLOCK, 1, [copy, apply], source=source)
