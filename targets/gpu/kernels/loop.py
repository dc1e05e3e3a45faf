"""Loop kernels: a kLoop fusion (or one elementwise / data-movement instruction) as a
grid-stride loop, XLA:GPU's loop emitter.

Every thread computes elements global_thread, global_thread + grid * block, ... of each
root in row-major order with the elemental emitter (`targets/llvm/elemental.py`); the
grid is capped (`MAX_BLOCKS`), so a large output takes several strides. Roots of
different dimensions (a multi-output fusion) get one loop each, in the same phase.
Buffers: inputs, then array constants, then one output per root.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.types import PrimitiveType
from hlotool.targets.gpu.kernel import IndexContext, Kernel, grid_stride
from hlotool.targets.gpu.elemental import GpuElementalEmitter
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import Input, delinearize

BLOCK = 256
MAX_BLOCKS = 1024


def launch_shape(elements: int, block: int = BLOCK) -> tuple[int, int]:
    """(block size, grid size) for `elements` threads' worth of work."""
    return block, max(1, min(MAX_BLOCKS, math.ceil(elements / block)))


def store(b: ir.IRBuilder, ptr: ir.Value, at: ir.Value, t: PrimitiveType, v: ir.Value) -> None:
    """Store value `v` of element type `t` at element `at` of buffer `ptr`."""
    if t is PrimitiveType.PRED:
        v = b.zext(v, u.I8)
    b.store(v, b.gep(ptr, [at], source_etype=u.storage_type(t), inbounds=True))


def inputs_map(ctx: IndexContext, inputs: Sequence[Instruction]) -> dict[int, Input]:
    """The emitter's input buffers: parameter k of the kernel for inputs[k]."""
    return {id(x): Input(ctx.param(k), x.shape) for k, x in enumerate(inputs)}


def loop_kernel(name: str, roots: Sequence[Instruction], inputs: Sequence[Instruction],
                source: str = "") -> Kernel:
    """The kernel writing every root (inputs: loaded instructions, constants included)."""
    largest = max(math.prod(r.shape.dimensions) for r in roots)
    block, grid = launch_shape(largest)

    def phase(ctx: IndexContext) -> None:
        b = ctx.b
        for k, root in enumerate(roots):
            dims = root.shape.dimensions
            out = ctx.param(len(inputs) + k)
            with grid_stride(ctx, math.prod(dims), name=f"r{k}") as i:
                em = GpuElementalEmitter(b, inputs_map(ctx, inputs))
                index = delinearize(b, dims, i)
                v = em.value(root, index)
                store(b, out, i, root.shape.element_type, v)

    return Kernel(name, len(inputs) + len(roots), block, grid, [phase], source=source)
