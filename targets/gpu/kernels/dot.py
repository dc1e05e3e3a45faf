"""Dot kernels: a tiled shared-memory GEMM (the classic CUDA sgemm shape).

The dot is viewed as batch x (M x K) . (K x N): M the lhs's non-contracting,
non-batch dims flattened, N the rhs's, K the contracting dims in pairs. A block of
TILE x TILE threads computes one TILE x TILE output tile of one batch: for each K tile,
phase 1 loads a lhs tile and a rhs tile into shared memory (zeros past the edges),
barrier, phase 2 adds the tile's TILE products to each thread's accumulator (a local,
`fma` in k order for floats: an explicit contraction, as cuBLAS accumulates), barrier.
The last phase writes the accumulator. Operands are read through the elemental
emitter, so an operand's layout or a fused convert costs nothing extra. f16/bf16
operands are widened to f32, accumulated in f32 and rounded once at the end.
"""

from __future__ import annotations

import math

from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.gpu.kernel import IndexContext, Kernel, Local, PhaseLoop, Shared
from hlotool.targets.gpu.kernels.loop import inputs_map, store
from hlotool.targets.gpu.elemental import GpuElementalEmitter
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import delinearize

P = PrimitiveType
TILE = 16
_TYPES = {P.F32, P.F64, P.F16, P.BF16, P.S32, P.S64}


def unsupported_dot(ins: Instruction) -> str | None:
    """Why this dot cannot be a GEMM kernel, or None."""
    if ins.opcode is not Opcode.DOT or ins.operand_count != 2:
        return "not a dot"
    t = ins.shape.element_type
    ta, tb = (o.shape.element_type for o in ins.operands)
    if t not in _TYPES or ta not in _TYPES or tb not in _TYPES:
        return f"dot on {ta.value} x {tb.value} -> {t.value}"
    if u.is_narrow(t) != u.is_narrow(ta) or ta is not tb:
        return "mixed dot types"
    return None


def _acc_type(t: PrimitiveType) -> PrimitiveType:
    return P.F32 if u.is_narrow(t) else t


def dot_kernel(name: str, ins: Instruction, inputs: list[Instruction], source: str = "") -> Kernel:
    """The GEMM kernel of dot `ins` (its operands are `inputs` or computed from them)."""
    a = ins.attrs
    lhs, rhs = ins.operand(0), ins.operand(1)
    lb, rb = list(a.get("lhs_batch_dims") or ()), list(a.get("rhs_batch_dims") or ())
    lc, rc = list(a.get("lhs_contracting_dims") or ()), list(a.get("rhs_contracting_dims") or ())
    lf = [d for d in range(lhs.shape.rank) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.shape.rank) if d not in rb and d not in rc]
    ld, rd = lhs.shape.dimensions, rhs.shape.dimensions
    batch_dims = [ld[d] for d in lb]
    m_dims, n_dims, k_dims = [ld[d] for d in lf], [rd[d] for d in rf], [ld[d] for d in lc]
    nb, m, n, k = (math.prod(x) for x in (batch_dims, m_dims, n_dims, k_dims))
    tm, tn = math.ceil(m / TILE), math.ceil(n / TILE)
    t_out = ins.shape.element_type
    t_in = lhs.shape.element_type
    acc_t = _acc_type(t_out)
    vty = u.value_type(acc_t)
    shared = [Shared("a", vty, TILE * TILE), Shared("b", vty, TILE * TILE)]
    out_param = len(inputs)

    def coords(ctx: IndexContext) -> tuple[ir.Value, ir.Value, ir.Value, ir.Value, ir.Value]:
        b = ctx.b
        ty = b.udiv(ctx.thread, u.i64(TILE))
        tx = b.urem(ctx.thread, u.i64(TILE))
        blk = ctx.block
        bn = b.urem(blk, u.i64(tn))
        rest = b.udiv(blk, u.i64(tn))
        bm = b.urem(rest, u.i64(tm))
        batch = b.udiv(rest, u.i64(tm))
        return ty, tx, b.mul(bm, u.i64(TILE)), b.mul(bn, u.i64(TILE)), batch

    def read(ctx: IndexContext, em: GpuElementalEmitter, operand: Instruction, bdims: list[int],
             fdims: list[int], cdims: list[int], batch: ir.Value, free: ir.Value,
             kk: ir.Value) -> ir.Value:
        b = ctx.b
        index: list[ir.Value] = [u.i64(0)] * operand.shape.rank
        for d, v in zip(bdims, delinearize(b, batch_dims, batch), strict=True):
            index[d] = v
        for d, v in zip(fdims, delinearize(b, [operand.shape.dimensions[x] for x in fdims], free),
                        strict=True):
            index[d] = v
        for d, v in zip(cdims, delinearize(b, k_dims, kk), strict=True):
            index[d] = v
        x = em.value(operand, tuple(index))
        return em.convert(x, t_in, acc_t) if t_in is not acc_t else x

    def zero_acc(ctx: IndexContext) -> None:
        ctx.b.store(ir.Constant(vty, 0.0 if u.is_float(acc_t) else 0), ctx.local("acc"))

    def load_tiles(ctx: IndexContext) -> None:
        b = ctx.b
        ty, tx, m0, n0, batch = coords(ctx)
        k0 = b.mul(ctx.loop_index("kt"), u.i64(TILE))
        em = GpuElementalEmitter(b, inputs_map(ctx, inputs))
        zero = ir.Constant(vty, 0.0 if u.is_float(acc_t) else 0)
        at = b.add(b.mul(ty, u.i64(TILE)), tx)
        row, col = b.add(m0, ty), b.add(k0, tx)
        ok = b.and_(b.icmp_unsigned("<", row, u.i64(m)), b.icmp_unsigned("<", col, u.i64(k)))
        slot = b.gep(ctx.shared("a"), [at], source_etype=vty)
        b.store(zero, slot)
        with b.if_then(ok):
            b.store(read(ctx, em, lhs, lb, lf, lc, batch, row, col), slot)
        em2 = GpuElementalEmitter(b, inputs_map(ctx, inputs))
        row, col = b.add(k0, ty), b.add(n0, tx)
        ok = b.and_(b.icmp_unsigned("<", row, u.i64(k)), b.icmp_unsigned("<", col, u.i64(n)))
        slot = b.gep(ctx.shared("b"), [at], source_etype=vty)
        b.store(zero, slot)
        with b.if_then(ok):
            b.store(read(ctx, em2, rhs, rb, rf, rc, batch, col, row), slot)

    def multiply(ctx: IndexContext) -> None:
        b = ctx.b
        ty, tx, *_ = coords(ctx)
        acc = b.load(ctx.local("acc"), typ=vty)
        for kk in range(TILE):
            x = b.load(b.gep(ctx.shared("a"), [b.add(b.mul(ty, u.i64(TILE)), u.i64(kk))],
                             source_etype=vty), typ=vty)
            y = b.load(b.gep(ctx.shared("b"), [b.add(u.i64(kk * TILE), tx)], source_etype=vty),
                       typ=vty)
            if u.is_float(acc_t):
                acc = u.intrinsic(b, "llvm.fma", vty, [x, y, acc])
            else:
                acc = b.add(acc, b.mul(x, y))
        b.store(acc, ctx.local("acc"))

    def write(ctx: IndexContext) -> None:
        b = ctx.b
        ty, tx, m0, n0, batch = coords(ctx)
        row, col = b.add(m0, ty), b.add(n0, tx)
        ok = b.and_(b.icmp_unsigned("<", row, u.i64(m)), b.icmp_unsigned("<", col, u.i64(n)))
        with b.if_then(ok):
            v = b.load(ctx.local("acc"), typ=vty)
            if acc_t is not t_out:
                v = GpuElementalEmitter(b, {}).convert(v, acc_t, t_out)
            at = b.add(b.mul(b.add(b.mul(batch, u.i64(m)), row), u.i64(n)), col)
            store(b, ctx.param(out_param), at, t_out, v)

    phases = [zero_acc, PhaseLoop("kt", math.ceil(k / TILE), [load_tiles, multiply]), write]
    return Kernel(name, len(inputs) + 1, TILE * TILE, max(1, nb * tm * tn), phases,
                  shared=shared, locals=[Local("acc", vty)], source=source)
