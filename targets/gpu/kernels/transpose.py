"""Transpose kernels through shared-memory tiles (XLA:GPU's transpose emitter).

For a transpose (standalone, or a fusion whose root is one) that moves the input's minor
dimension: let A be the output dimension the input's minor dimension becomes and C the
output's minor dimension. A block of 32 x 8 threads owns a 32 x 32 tile of (A, C) for one
value of the other output dimensions. Phase 1 reads the tile with consecutive threads on
consecutive A (the input's contiguous dimension), four rows of C per thread, into a
32 x 33 shared array (the extra column keeps the column reads free of bank conflicts);
barrier; phase 2 writes the tile with consecutive threads on consecutive C (the output's
contiguous dimension). Values come from the elemental emitter, so a fused root computes
its whole expression while reading.
"""

from __future__ import annotations

import math

from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.targets.gpu.elemental import GpuElementalEmitter
from hlotool.targets.gpu.kernel import IndexContext, Kernel, Shared
from hlotool.targets.gpu.kernels.loop import inputs_map, store
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import delinearize

TILE = 32
ROWS = 8


def tiled_dims(ins: Instruction) -> tuple[int, int] | None:
    """(A, C) output dimensions of a transpose worth tiling, or None (the input's minor
    dimension stays minor, or the tile would be mostly empty)."""
    if ins.opcode is not Opcode.TRANSPOSE or ins.shape.rank < 2:
        return None
    perm = list(ins.attrs["dimensions"])
    r = len(perm)
    a = perm.index(r - 1)
    if a == r - 1:
        return None
    dims = ins.shape.dimensions
    if dims[a] < 8 or dims[r - 1] < 8:
        return None
    return a, r - 1


def transpose_kernel(name: str, root: Instruction, hero: Instruction, inputs: list[Instruction],
                     source: str = "") -> Kernel:
    """The tiled kernel writing `root` (whose value at an index is that of the transpose
    `hero` fed through elementwise ops); `tiled_dims(hero)` must not be None."""
    dims_a, dims_c = tiled_dims(hero)  # type: ignore[misc]
    dims = root.shape.dimensions
    other = [d for d in range(len(dims)) if d not in (dims_a, dims_c)]
    other_dims = [dims[d] for d in other]
    ta, tc = math.ceil(dims[dims_a] / TILE), math.ceil(dims[dims_c] / TILE)
    grid = math.prod(other_dims) * ta * tc
    pitch = TILE + 1
    vty = u.storage_type(root.shape.element_type)

    def tile(ctx: IndexContext) -> tuple[ir.Value, ir.Value, ir.Value, ir.Value, tuple[ir.Value, ...]]:
        b = ctx.b
        tx = b.urem(ctx.thread, u.i64(TILE))
        ty = b.udiv(ctx.thread, u.i64(TILE))
        bc = b.urem(ctx.block, u.i64(tc))
        rest = b.udiv(ctx.block, u.i64(tc))
        ba = b.urem(rest, u.i64(ta))
        outer = delinearize(b, other_dims, b.udiv(rest, u.i64(ta)))
        return tx, ty, b.mul(ba, u.i64(TILE)), b.mul(bc, u.i64(TILE)), outer

    def index(outer: tuple[ir.Value, ...], a: ir.Value, c: ir.Value) -> tuple[ir.Value, ...]:
        full: list[ir.Value] = [u.i64(0)] * len(dims)
        for d, v in zip(other, outer, strict=True):
            full[d] = v
        full[dims_a], full[dims_c] = a, c
        return tuple(full)

    def inside(b: ir.IRBuilder, a: ir.Value, c: ir.Value) -> ir.Value:
        return b.and_(b.icmp_unsigned("<", a, u.i64(dims[dims_a])),
                      b.icmp_unsigned("<", c, u.i64(dims[dims_c])))

    def read(ctx: IndexContext) -> None:
        b = ctx.b
        tx, ty, a0, c0, outer = tile(ctx)
        for r in range(0, TILE, ROWS):
            row = b.add(ty, u.i64(r))
            a, c = b.add(a0, tx), b.add(c0, row)
            with b.if_then(inside(b, a, c)):
                em = GpuElementalEmitter(b, inputs_map(ctx, inputs))
                v = em.value(root, index(outer, a, c))
                if v.type != vty:
                    v = b.zext(v, vty)
                at = b.add(b.mul(row, u.i64(pitch)), tx)
                b.store(v, b.gep(ctx.shared("tile"), [at], source_etype=vty))

    def write(ctx: IndexContext) -> None:
        b = ctx.b
        tx, ty, a0, c0, outer = tile(ctx)
        for r in range(0, TILE, ROWS):
            row = b.add(ty, u.i64(r))
            a, c = b.add(a0, row), b.add(c0, tx)
            with b.if_then(inside(b, a, c)):
                at = b.add(b.mul(tx, u.i64(pitch)), row)
                v = b.load(b.gep(ctx.shared("tile"), [at], source_etype=vty), typ=vty)
                if v.type != u.value_type(root.shape.element_type):
                    v = b.trunc(v, u.value_type(root.shape.element_type))
                lin = _linear(b, dims, index(outer, a, c))
                store(b, ctx.param(len(inputs)), lin, root.shape.element_type, v)

    return Kernel(name, len(inputs) + 1, TILE * ROWS, grid, [read, write],
                  shared=[Shared("tile", vty, TILE * pitch)], source=source)


def _linear(b: ir.IRBuilder, dims: tuple[int, ...], index: tuple[ir.Value, ...]) -> ir.Value:
    lin: ir.Value = u.i64(0)
    for n, i in zip(dims, index, strict=True):
        lin = b.add(b.mul(lin, u.i64(n)), i)
    return lin
