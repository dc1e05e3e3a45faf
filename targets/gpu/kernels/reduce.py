"""Reduction kernels: a reduce (variadic too) or a kInput fusion whose roots are reduces
of the same operand shape over the same dimensions, XLA:GPU's reduction emitter.

Two strategies, chosen by shape:

* block tree (`TREE`, when the reduced elements are many): one block per output element.
  Thread t folds the reduced elements t, t + B, t + 2B, ... (row-major over the reduced
  dims) into its accumulator, starting from the init value; the block's partial results
  then meet in shared memory in a pairwise tree: at step s = B/2, B/4, ..., 1 thread
  t < s combines slot t with slot t + s (the order a warp-shuffle `shfl.down` tree
  gives), one barrier per step, and thread 0 writes the result. B is a power of two
  (32..256) fitted to the reduced size.
* per-thread fold (`SEQUENTIAL`, few reduced elements, or column reductions with many
  outputs): a grid-stride loop over output elements; each thread folds its output's
  reduced elements in row-major order from the init value (the interpreter's order),
  so neighbouring threads read neighbouring columns.

Float sums therefore round in another order than the interpreter's (within the corpus's
tolerances; integer, min/max and boolean reductions are exact). Buffers: inputs, then
one output per reduce result (a variadic reduce's results in order, reduce by reduce).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llvmlite import ir

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.gpu.kernel import IndexContext, Kernel, Local, Shared, grid_stride
from hlotool.targets.gpu.kernels.loop import MAX_BLOCKS, inputs_map, store
from hlotool.targets.gpu.elemental import GpuElementalEmitter
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import Index, delinearize
from hlotool.targets.llvm.indexing import call_scalar, unsupported_combiner

O = Opcode
P = PrimitiveType
#: Reduced elements per output below which each thread folds a whole output.
SEQUENTIAL_BELOW = 64


def unsupported_reduce(ins: Instruction) -> str | None:
    """Why this reduce cannot be a GPU reduction kernel, or None."""
    n = ins.operand_count // 2
    types = [ins.operand(k).shape.element_type for k in range(n)]
    if any(t not in u.ELEMENTAL_TYPES or u.is_complex(t) for t in types):
        return "reduce element type"
    return unsupported_combiner(ins.attrs["to_apply"], types)


def same_reduction(a: Instruction, c: Instruction) -> bool:
    """Reduces the same kernel can compute together (same operand dims, same dims)."""
    return a.operand(0).shape.dimensions == c.operand(0).shape.dimensions and \
        tuple(a.attrs["dimensions"]) == tuple(c.attrs["dimensions"])


def _value_slot(t: PrimitiveType) -> ir.Type:
    return u.I8 if t is P.PRED else u.value_type(t)


def _load(b: ir.IRBuilder, ptr: ir.Value, at: ir.Value, t: PrimitiveType) -> ir.Value:
    v = b.load(b.gep(ptr, [at], source_etype=_value_slot(t)), typ=_value_slot(t))
    return b.trunc(v, u.I1) if t is P.PRED else v


def _put(b: ir.IRBuilder, ptr: ir.Value, at: ir.Value, t: PrimitiveType, v: ir.Value) -> None:
    b.store(b.zext(v, u.I8) if t is P.PRED else v, b.gep(ptr, [at], source_etype=_value_slot(t)))


def reduce_kernel(name: str, reduces: Sequence[Instruction], inputs: Sequence[Instruction],
                  source: str = "") -> Kernel:
    """The kernel computing every reduce of `reduces` (all `same_reduction`)."""
    first = reduces[0]
    dims_in = first.operand(0).shape.dimensions
    reduced = sorted(first.attrs["dimensions"])
    kept = [d for d in range(len(dims_in)) if d not in reduced]
    out_dims = [dims_in[d] for d in kept]
    red_dims = [dims_in[d] for d in reduced]
    n_out, n_red = math.prod(out_dims), math.prod(red_dims)
    results = [(r, k) for r in reduces for k in range(r.operand_count // 2)]
    types = [r.operand(k).shape.element_type for r, k in results]
    column = bool(reduced) and max(reduced) < max(kept, default=-1)
    if n_red < SEQUENTIAL_BELOW or (column and n_out >= 1024):
        return _sequential(name, reduces, inputs, results, types, kept, reduced, out_dims,
                           red_dims, source)
    return _tree(name, reduces, inputs, results, types, kept, reduced, out_dims, red_dims,
                 source)


def _operand_index(kept: list[int], reduced: list[int], out: Index, red: Index) -> Index:
    full: list[ir.Value] = [u.i64(0)] * (len(kept) + len(reduced))
    for d, v in zip(kept, out, strict=True):
        full[d] = v
    for d, v in zip(reduced, red, strict=True):
        full[d] = v
    return tuple(full)


def _fold(b: ir.IRBuilder, em: GpuElementalEmitter, r: Instruction, acc: list[ir.Value],
          index: Index) -> list[ir.Value]:
    n = r.operand_count // 2
    xs = [em.value(r.operand(k), index) for k in range(n)]
    comp: Computation = r.attrs["to_apply"]
    return call_scalar(b, comp, [*acc, *xs])


def _init(em: GpuElementalEmitter, r: Instruction) -> list[ir.Value]:
    n = r.operand_count // 2
    return [em.value(r.operand(n + k), ()) for k in range(n)]


def _sequential(name: str, reduces: Sequence[Instruction], inputs: Sequence[Instruction],
                results: list[tuple[Instruction, int]], types: list[PrimitiveType],
                kept: list[int], reduced: list[int], out_dims: list[int], red_dims: list[int],
                source: str) -> Kernel:
    n_out, n_red = math.prod(out_dims), math.prod(red_dims)
    block = 256 if n_out >= 256 else max(32, 1 << (max(1, n_out) - 1).bit_length())
    grid = max(1, min(MAX_BLOCKS, math.ceil(n_out / block)))
    locs = [Local(f"acc{k}", _value_slot(t)) for k, t in enumerate(types)]

    def phase(ctx: IndexContext) -> None:
        b = ctx.b
        with grid_stride(ctx, n_out, name="out") as o:
            em = GpuElementalEmitter(b, inputs_map(ctx, inputs))
            out = delinearize(b, out_dims, o)
            k = 0
            for r in reduces:
                m = r.operand_count // 2
                for j, v in enumerate(_init(em, r)):
                    _put(b, ctx.local(f"acc{k + j}"), u.i64(0), types[k + j], v)
                with u.for_range(b, n_red, name="red") as jr:
                    inner = GpuElementalEmitter(b, inputs_map(ctx, inputs))
                    acc = [_load(b, ctx.local(f"acc{k + j}"), u.i64(0), types[k + j])
                           for j in range(m)]
                    new = _fold(b, inner, r, acc, _operand_index(kept, reduced, out,
                                                                 delinearize(b, red_dims, jr)))
                    for j, v in enumerate(new):
                        _put(b, ctx.local(f"acc{k + j}"), u.i64(0), types[k + j], v)
                for j in range(m):
                    v = _load(b, ctx.local(f"acc{k + j}"), u.i64(0), types[k + j])
                    store(b, ctx.param(len(inputs) + k + j), o, types[k + j], v)
                k += m

    return Kernel(name, len(inputs) + len(results), block, grid, [phase], locals=locs,
                  source=source)


def _tree(name: str, reduces: Sequence[Instruction], inputs: Sequence[Instruction],
          results: list[tuple[Instruction, int]], types: list[PrimitiveType],
          kept: list[int], reduced: list[int], out_dims: list[int], red_dims: list[int],
          source: str) -> Kernel:
    n_out, n_red = math.prod(out_dims), math.prod(red_dims)
    block = min(256, 1 << (n_red - 1).bit_length())
    shared = [Shared(f"part{k}", _value_slot(t), block) for k, t in enumerate(types)]

    def spans() -> list[tuple[Instruction, int]]:
        out, k = [], 0
        for r in reduces:
            out.append((r, k))
            k += r.operand_count // 2
        return out

    def accumulate(ctx: IndexContext) -> None:
        b = ctx.b
        em = GpuElementalEmitter(b, inputs_map(ctx, inputs))
        out = delinearize(b, out_dims, ctx.block)
        for r, k in spans():
            m = r.operand_count // 2
            slots = [ctx.shared(f"part{k + j}") for j in range(m)]
            for j, v in enumerate(_init(em, r)):
                _put(b, slots[j], ctx.thread, types[k + j], v)
            with _strided(b, ctx.thread, n_red, block) as jr:
                inner = GpuElementalEmitter(b, inputs_map(ctx, inputs))
                acc = [_load(b, slots[j], ctx.thread, types[k + j]) for j in range(m)]
                new = _fold(b, inner, r, acc,
                            _operand_index(kept, reduced, out, delinearize(b, red_dims, jr)))
                for j, v in enumerate(new):
                    _put(b, slots[j], ctx.thread, types[k + j], v)

    def step(s: int):  # noqa: ANN202 - a Phase
        def combine(ctx: IndexContext) -> None:
            b = ctx.b
            with b.if_then(b.icmp_unsigned("<", ctx.thread, u.i64(s))):
                other = b.add(ctx.thread, u.i64(s))
                for r, k in spans():
                    m = r.operand_count // 2
                    slots = [ctx.shared(f"part{k + j}") for j in range(m)]
                    mine = [_load(b, slots[j], ctx.thread, types[k + j]) for j in range(m)]
                    theirs = [_load(b, slots[j], other, types[k + j]) for j in range(m)]
                    new = call_scalar(b, r.attrs["to_apply"], [*mine, *theirs])
                    for j, v in enumerate(new):
                        _put(b, slots[j], ctx.thread, types[k + j], v)
                        if s == 1:
                            store(b, ctx.param(len(inputs) + k + j), ctx.block, types[k + j], v)
        return combine

    def single(ctx: IndexContext) -> None:
        """A one-thread block: the accumulator is the result."""
        b = ctx.b
        for r, k in spans():
            for j in range(r.operand_count // 2):
                v = _load(b, ctx.shared(f"part{k + j}"), u.i64(0), types[k + j])
                store(b, ctx.param(len(inputs) + k + j), ctx.block, types[k + j], v)

    steps = [step(block >> (i + 1)) for i in range(block.bit_length() - 1)] or [single]
    return Kernel(name, len(inputs) + len(results), block, max(1, n_out),
                  [accumulate, *steps], shared=shared, source=source)


class _strided:
    """`for (j = start; j < count; j += step)` (a context manager yielding j)."""

    def __init__(self, b: ir.IRBuilder, start: ir.Value, count: int, step: int) -> None:
        self.b, self.start, self.count, self.step = b, start, count, step

    def __enter__(self) -> ir.Value:
        b = self.b
        self.pre = b.block
        self.header = b.append_basic_block("red.header")
        self.body = b.append_basic_block("red.body")
        self.end = b.append_basic_block("red.end")
        b.branch(self.header)
        b.position_at_end(self.header)
        self.j = b.phi(u.I64, name="j")
        self.j.add_incoming(self.start, self.pre)
        b.cbranch(b.icmp_signed("<", self.j, u.i64(self.count)), self.body, self.end)
        b.position_at_end(self.body)
        return self.j

    def __exit__(self, *exc: object) -> None:
        b = self.b
        self.j.add_incoming(b.add(self.j, u.i64(self.step)), b.block)
        b.branch(self.header)
        b.position_at_end(self.end)
