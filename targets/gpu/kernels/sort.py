"""Sort kernels: odd-even transposition sort of each row in shared memory (variadic).

One block per row (every index but the sort dimension). The row's elements of every
operand are loaded into shared memory; then ceil(n / 2) rounds of two phases each: the
even phase compares pairs (0,1), (2,3), ..., the odd phase (1,2), (3,4), ..., and a pair
is swapped (in every operand) only when the comparator puts the right element strictly
before the left one; a barrier after each phase. n such phases sort n elements, and
swapping only strictly out-of-order neighbours makes the sort stable: the result is the
interpreter's (a stable sort under the comparator) for any comparator that is a strict
weak order. Rows whose operands do not fit in 48 KiB of shared memory fall back.
"""

from __future__ import annotations

import math

from llvmlite import ir

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.targets.gpu.elemental import gpu_unsupported_reason
from hlotool.targets.gpu.kernel import IndexContext, Kernel, PhaseLoop, Shared
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import delinearize, linear_index
from hlotool.targets.llvm.indexing import call_scalar

O = Opcode
SHARED_BYTES = 48 * 1024


def unsupported_sort(op: Instruction) -> str | None:
    """Why this sort gets no kernel, or None."""
    types = [o.shape.element_type for o in op.operands]
    for s in [*(o.shape for o in op.operands)]:
        if not s.is_array or s.is_dynamic or s.element_type not in u.ELEMENTAL_TYPES \
                or u.is_complex(s.element_type):
            return f"sort of {s}"
    axis = op.attrs["dimensions"][0] % op.operand(0).shape.rank
    n = op.operand(0).shape.dimensions[axis]
    row_bytes = n * sum(_storage_bytes(u.storage_type(t)) for t in types)
    if row_bytes > SHARED_BYTES:
        return f"sort rows of {row_bytes} bytes (shared memory holds {SHARED_BYTES})"
    comp: Computation = op.attrs["to_apply"]
    params = sorted(comp.parameters, key=lambda p: p.parameter_number)
    if len(params) != 2 * len(types) or any(
            p.shape.rank != 0 or p.shape.element_type is not types[k // 2]
            for k, p in enumerate(params)):
        return "sort comparator parameters"
    for ins in comp.instructions:
        if ins.opcode is O.PARAMETER:
            continue
        reason = gpu_unsupported_reason(ins)
        if reason or ins.shape.rank != 0 or ins.called_computations:
            return f"sort comparator: {reason or ins.opcode.value}"
    return None


def _storage_bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(1, t.width // 8)
    return {ir.HalfType: 2, ir.FloatType: 4, ir.DoubleType: 8}[type(t)]


def sort_kernel(name: str, op: Instruction, source: str = "") -> Kernel:
    """The kernel of sort `op`; buffers: its operands, then one output per operand."""
    shape = op.operand(0).shape
    dims = shape.dimensions
    axis = op.attrs["dimensions"][0] % shape.rank
    n = dims[axis]
    others = [d for d in range(len(dims)) if d != axis]
    other_dims = [dims[d] for d in others]
    rows = math.prod(other_dims)
    pairs = max(1, n // 2)
    block = min(256, max(32, 1 << (pairs - 1).bit_length()))
    types = [o.shape.element_type for o in op.operands]
    tys = [u.storage_type(t) for t in types]
    m = len(types)
    comp: Computation = op.attrs["to_apply"]

    def element(ctx: IndexContext, j: ir.Value) -> ir.Value:
        b = ctx.b
        full: list[ir.Value] = [u.i64(0)] * len(dims)
        for d, v in zip(others, delinearize(b, other_dims, ctx.block), strict=True):
            full[d] = v
        full[axis] = j
        return linear_index(b, dims, tuple(full))

    def strided(ctx: IndexContext, count: int, body) -> None:  # noqa: ANN001
        b = ctx.b
        steps = math.ceil(count / block)
        with u.for_range(b, steps, name="part") as s:
            j = b.add(b.mul(s, u.i64(block)), ctx.thread)
            with b.if_then(b.icmp_unsigned("<", j, u.i64(count))):
                body(j)

    def load(ctx: IndexContext) -> None:
        b = ctx.b

        def body(j: ir.Value) -> None:
            at = element(ctx, j)
            for k in range(m):
                v = b.load(b.gep(ctx.param(k), [at], source_etype=tys[k]), typ=tys[k])
                b.store(v, b.gep(ctx.shared(f"s{k}"), [j], source_etype=tys[k]))
        strided(ctx, n, body)

    def step(offset: int):  # noqa: ANN202 - a Phase
        def phase(ctx: IndexContext) -> None:
            b = ctx.b

            def body(p: ir.Value) -> None:
                i = b.add(b.mul(p, u.i64(2)), u.i64(offset))
                j = b.add(i, u.i64(1))
                with b.if_then(b.icmp_unsigned("<", j, u.i64(n))):
                    pi = [b.gep(ctx.shared(f"s{k}"), [i], source_etype=tys[k]) for k in range(m)]
                    pj = [b.gep(ctx.shared(f"s{k}"), [j], source_etype=tys[k]) for k in range(m)]
                    vi = [b.load(p_, typ=tys[k]) for k, p_ in enumerate(pi)]
                    vj = [b.load(p_, typ=tys[k]) for k, p_ in enumerate(pj)]
                    args = []
                    for k in range(m):
                        args += [_value(b, vj[k], types[k]), _value(b, vi[k], types[k])]
                    before, = call_scalar(b, comp, args)
                    with b.if_then(before):
                        for k in range(m):
                            b.store(vj[k], pi[k])
                            b.store(vi[k], pj[k])
            strided(ctx, pairs, body)
        return phase

    def write(ctx: IndexContext) -> None:
        b = ctx.b

        def body(j: ir.Value) -> None:
            at = element(ctx, j)
            for k in range(m):
                v = b.load(b.gep(ctx.shared(f"s{k}"), [j], source_etype=tys[k]), typ=tys[k])
                b.store(v, b.gep(ctx.param(m + k), [at], source_etype=tys[k]))
        strided(ctx, n, body)

    rounds = PhaseLoop("round", math.ceil(n / 2), [step(0), step(1)])
    shared = [Shared(f"s{k}", tys[k], max(1, n)) for k in range(m)]
    return Kernel(name, 2 * m, block, max(1, rows), [load, rounds, write], shared=shared,
                  source=source)


def _value(b: ir.IRBuilder, v: ir.Value, t: object) -> ir.Value:
    """A stored element as the comparator's value (pred bytes as i1)."""
    return b.trunc(v, u.I1) if v.type == u.I8 and u.value_type(t) == u.I1 else v  # type: ignore[arg-type]
