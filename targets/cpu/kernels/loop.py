"""Loop kernels: one LLVM function per kLoop fusion or standalone elementwise instruction.

The function loops over the output's elements in row-major order (the innermost loop
over the contiguous dimension) and computes every root's value with the elemental
emitter. The loop is written in scalar form with `noalias` buffers; the O3 pipeline's
loop vectorizer widens the innermost loop (docs/targets.md: such a fused loop reaches
the memory bandwidth limit).

Calling convention: `void <name>(void **buffers)` with the input buffers first (in
`LoopPlan.inputs` order, then `LoopPlan.constants`) and the outputs last. The entry
point sets MXCSR's flush-to-zero and denormals-are-zero bits around the kernel, as
XLA:CPU runs, and restores them afterwards.

Threads: the body covers a half-open range `[begin, end)` of its outermost loops (the
leading output dims, flattened until they hold MIN_OUTER iterations; for a tiled
transpose, the dims outside the tile plus the tile rows), and a large kernel's entry
splits that range across threads (`parallel.emit_entry`, as XLA:CPU's outer dimension
partitions). Every element is computed by the same code whatever the split, so results
do not depend on the thread count.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.jit import Pipeline
from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.llvm.transpose import transpose
from hlotool.targets.llvm.elemental import (
    ElementalEmitter,
    Input,
    delinearize,
    linear_index,
    major_to_minor,
)

#: MXCSR bits: flush-to-zero (15) and denormals-are-zero (6).
_FTZ_DAZ = parallel.FTZ_DAZ

O = Opcode


@dataclass(slots=True)
class LoopPlan:
    """What one loop kernel computes."""

    #: Entry-point symbol.
    name: str
    #: Instructions whose values the kernel writes (all with the same dimensions).
    roots: list[Instruction]
    #: Instructions whose values are read from argument buffers, in argument order.
    inputs: list[Instruction]
    #: Array constants read from buffers after the inputs (instruction, value).
    constants: list[tuple[Instruction, np.ndarray]] = field(default_factory=list)
    #: Code-generation parameters chosen by the autotuner (`{"tile": 64}`; 0 = untiled);
    #: missing keys take the defaults (TILE).
    tune: dict[str, int | str] = field(default_factory=dict)
    #: How LLVM compiles the kernel (`codegen.pipeline_of`): the full pipeline's loop
    #: vectorizer, or the lean one for a loop whose time does not matter (a reduce's
    #: small epilogue, `codegen.LEAN_EPILOGUE_RATIO`).
    pipeline: Pipeline = Pipeline.FULL

    @property
    def output_shapes(self) -> list[Shape]:
        return [r.shape for r in self.roots]


def emit_loop_kernel(module: ir.Module, plan: LoopPlan, *, x86: bool = True,
                     symbol: str | None = None) -> None:
    """Add the kernel and its entry point for `plan` to `module` (named `symbol`, by
    default the plan's name). Large kernels split their outermost loops across threads
    (`parallel.emit_entry`)."""
    symbol = symbol or plan.name
    sources = plan.inputs + [c for c, _ in plan.constants]
    n_ptrs = len(sources) + len(plan.roots)
    body = parallel.body_function(module, symbol, n_ptrs)
    outer = _emit_body(body, plan)
    work = parallel.kernel_work(math.prod(plan.roots[0].shape.dimensions), plan.roots, sources)
    parallel.emit_entry(module, symbol, body, x86, outer, parallel.max_parts(outer, work))


def _emit_body(fn: ir.Function, plan: LoopPlan) -> int:
    """The body over `[begin, end)` of its partitioned range; returns the range's size."""
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sources = plan.inputs + [c for c, _ in plan.constants]
    inputs = {id(ins): Input(arg, ins.shape) for ins, arg in zip(sources, fn.args, strict=False)}
    outs = fn.args[len(sources):-2]
    begin, end = fn.args[-2:]
    dims = plan.roots[0].shape.dimensions
    emitter = ElementalEmitter(b, inputs)
    store = lambda index: store_roots(b, emitter, plan.roots, outs, dims, index)  # noqa: E731
    tiled = _transposed_dim(plan)
    tile = int(plan.tune.get("tile", TILE))
    if tiled is None or tile <= 0:
        k = split_rank(dims)
        with _span(b, begin, end) as f:
            _loop_nest(b, dims, list(delinearize(b, dims[:k], f)), store)
        b.ret_void()
        return math.prod(dims[:k])
    perm = _pure_permutation(plan)
    if perm is not None and tile % BLOCK == 0 and dims[tiled] % BLOCK == 0 and \
            dims[-1] % BLOCK == 0:
        blocks = _BlockTranspose(b, fn.args[0], outs[0], plan, perm)
        outer = _tiled_nest(b, dims, tiled, store, tile, (begin, end), blocks)
    else:
        staged = _Staged.make(b, emitter, plan, outs[0], tile)
        outer = _tiled_nest(b, dims, tiled, store, tile, (begin, end), staged=staged)
    b.ret_void()
    return outer


#: Edge of the square blocks a pure transpose moves through vector registers.
BLOCK = 8


def _pure_permutation(plan: LoopPlan) -> list[int] | None:
    """For a kernel that only permutes its one input (copies and transposes of it, as
    XLA's transpose fusions), the output-to-input dim map: output dim d is input dim
    perm[d] of `_source_view(plan)`. Elements of 4 or 8 bytes only (a <8 x T> row fits
    a vector register)."""
    found = _permutation(plan)
    return None if found is None else found[0]


def _source_view(plan: LoopPlan) -> tuple[int, ...]:
    """The dims a pure permutation reads its input as (a row-major reshape of it by a
    bitcast, as `q.reshape(512, 8, 64)` in front of attention's head transpose)."""
    found = _permutation(plan)
    return plan.inputs[0].shape.dimensions if found is None else found[1]


def _permutation(plan: LoopPlan) -> tuple[list[int], tuple[int, ...]] | None:
    if len(plan.roots) != 1 or len(plan.inputs) != 1 or plan.constants:
        return None
    ins, source = plan.roots[0], plan.inputs[0]
    if ins.shape.element_type is not source.shape.element_type or \
            ins.shape.element_type.bits not in (32, 64) or ins.shape.element_type.value == "pred":
        return None
    perm = list(range(ins.shape.rank))
    view = source.shape.dimensions
    while ins is not source:
        if ins.opcode is O.TRANSPOSE:
            perm = [list(ins.attrs["dimensions"])[d] for d in perm]
        elif ins.opcode is O.BITCAST and ins.operand(0) is source and \
                ins.shape.dimensions != source.shape.dimensions and \
                ins.shape.is_row_major and source.shape.is_row_major:
            view = ins.shape.dimensions  # a reshape: the same bytes seen as other dims
        elif ins.opcode is O.BITCAST:
            step = _bitcast_permutation(ins)
            if step is None:
                return None
            perm = [step[d] for d in perm]
        elif ins.opcode is not O.COPY:
            return None
        ins = ins.operand(0)
    return (perm, view) if perm != sorted(perm) else None


def _bitcast_permutation(ins: Instruction) -> list[int] | None:
    """For a bitcast that only relabels dims (the same dims in physical order, as the
    `cpu` pipeline's simplifier makes of a transpose into another layout), the map from
    its dims to its operand's: dim d of the result is dim step[d] of the operand."""
    src, dst = ins.operand(0).shape, ins.shape
    if src.element_type is not dst.element_type or src.rank != dst.rank:
        return None
    src_order, dst_order = major_to_minor(src), major_to_minor(dst)
    if any(dst.dimensions[d] != src.dimensions[s] for d, s in zip(dst_order, src_order)):
        return None
    step = [0] * dst.rank
    for d, s in zip(dst_order, src_order):
        step[d] = s
    return step


class _BlockTranspose:
    """Moves one BLOCK x BLOCK block of a pure transpose: BLOCK vector loads along the
    input's contiguous dim, an in-register transpose, BLOCK vector stores along the
    output's (XLA:CPU's tiled transpose emitter does the same with shuffles)."""

    def __init__(self, b: ir.IRBuilder, src: ir.Value, dst: ir.Value, plan: LoopPlan,
                 perm: list[int]) -> None:
        self.b, self.src, self.dst, self.perm = b, src, dst, perm
        self.in_dims = _source_view(plan)
        self.out_dims = plan.roots[0].shape.dimensions
        t = plan.roots[0].shape.element_type
        self.ty = u.storage_type(t)
        self.vec = ir.VectorType(self.ty, BLOCK)
        self.align = t.bits // 8

    def __call__(self, index: dict[int, ir.Value], j: int, last: int) -> None:
        """The block whose first output element is at `index` (dims j and last at the
        block's corner)."""
        b = self.b
        rows = []
        for c in range(BLOCK):
            at = dict(index)
            at[last] = b.add(index[last], u.i64(c))
            source = [u.i64(0)] * len(self.in_dims)
            for d, v in at.items():
                source[self.perm[d]] = v
            ptr = b.gep(self.src, [linear_index(b, self.in_dims, tuple(source))],
                        source_etype=self.ty, inbounds=True)
            rows.append(b.load(ptr, typ=self.vec, align=self.align))
        for r, row in enumerate(transpose(b, rows)):
            at = dict(index)
            at[j] = b.add(index[j], u.i64(r))
            ptr = b.gep(self.dst, [linear_index(b, self.out_dims, tuple(at[d] for d in sorted(at)))],
                        source_etype=self.ty, inbounds=True)
            b.store(row, ptr, align=self.align)


#: A loop kernel's partitioned range covers its leading dims until they hold this many
#: iterations (so a [2, 100000, 64] kernel still splits evenly).
MIN_OUTER = 64


def split_rank(dims: tuple[int, ...]) -> int:
    """How many leading dims the partitioned range of an untiled loop nest covers: the
    fewest with MIN_OUTER iterations, but never the contiguous dim of a rank >= 2 array
    (its loop stays whole for the vectorizer)."""
    if not dims:
        return 0
    k = 1
    while k < len(dims) - 1 and math.prod(dims[:k]) < MIN_OUTER:
        k += 1
    return k


@contextmanager
def _span(b: ir.IRBuilder, begin: ir.Value, end: ir.Value) -> Iterator[ir.Value]:
    """`for (f = begin; f < end; ++f)`; yields f."""
    with u.for_range(b, b.sub(end, begin), name="part") as j:
        yield b.add(begin, j, flags=["nsw", "nuw"])


#: Tile edge of blocked transposes (a 32x32 f32 tile of reads and writes stays in L1).
TILE = 32


def transposed_dim(plan: LoopPlan) -> int | None:
    """The blocked output dim of a tiled transpose kernel (None: not tiled); public for
    the autotuner, which times tile sizes for these kernels."""
    return _transposed_dim(plan)


def _transposed_dim(plan: LoopPlan) -> int | None:
    found = _transposing(plan)
    return None if found is None else found[0]


def _transposing(plan: LoopPlan) -> tuple[int, Instruction | None] | None:
    """The output dim that walks the contiguous dim of a transposed operand, when the
    kernel contains a transpose (or a dims-relabelling bitcast, `_moving_permutation`)
    that moves its operand's minor dim to an output dim other than the last, reached
    from the root through same-dims ops and row-major reshapes (then the loops are
    blocked over that dim and the output's minor dim), and that transpose (None for a
    pure permutation)."""
    dims = plan.roots[0].shape.dimensions
    rank = len(dims)
    if rank < 2 or dims[-1] < TILE:
        return None
    perm = _pure_permutation(plan)
    if perm is not None:  # also transposes spelled as layout-changing bitcasts and copies
        j = perm.index(rank - 1)
        return (j, None) if j != rank - 1 and dims[j] >= TILE else None
    inputs = {id(i) for i in plan.inputs}
    # (instruction, where each of its dims lies in the output: None when not tracked).
    stack: list[tuple[Instruction, list[int | None] | None]] = [
        (r, list(range(rank))) for r in plan.roots]
    seen: set[int] = set()
    while stack:
        ins, at = stack.pop()
        if id(ins) in seen or id(ins) in inputs:
            continue
        seen.add(id(ins))
        step = _moving_permutation(ins) if at is not None else None
        if step is not None and at is not None:
            j = at[step.index(len(step) - 1)]
            if j is not None and j != rank - 1 and dims[j] >= TILE:
                return j, ins
        for o in ins.operands:
            stack.append((o, _operand_dims_in_output(ins, o, at)))
    return None


def _operand_dims_in_output(ins: Instruction, operand: Instruction,
                            at: list[int | None] | None) -> list[int | None] | None:
    """Where the dims of `operand` lie in the output, given where those of its user `ins`
    do (`at`): the same for an operand of the same dims (elementwise, copy); through a
    row-major reshape (bitcast), an operand dim lies in the user dim whose unit step it is
    (split or merged dims: [4,256,2048] -> [2048,1024] puts dim 0 in dim 0); else None."""
    if at is None:
        return None
    if operand.shape.dimensions == ins.shape.dimensions:
        return at
    if ins.opcode is not O.BITCAST or not (ins.shape.is_row_major and operand.shape.is_row_major):
        return None
    outer = ins.shape.dimensions
    strides = [math.prod(outer[d + 1:]) for d in range(len(outer))]
    found: list[int | None] = []
    for d in range(operand.shape.rank):
        stride = math.prod(operand.shape.dimensions[d + 1:])
        user = next((k for k, s in enumerate(strides) if s == stride and outer[k] > 1), None)
        found.append(at[user] if user is not None else None)
    return found


def _moving_permutation(ins: Instruction) -> list[int] | None:
    """For a transpose, or a bitcast that relabels dims (a transpose into another layout,
    as jax's gradients of `x @ w` hold `copy(bitcast(dw))`), the map from its dims to its
    operand's when it moves the operand's minor dim; else None."""
    if ins.opcode is O.TRANSPOSE:
        step = list(ins.attrs["dimensions"])
    elif ins.opcode is O.BITCAST:
        step = _bitcast_permutation(ins)
    else:
        return None
    return step if step is not None and step != sorted(step) else None


class _Staged:
    """Tiles computed in the transposed operand's order: a kernel that reads most of its
    bytes through a transpose under elementwise ops (jax's gradients: `bitcast(copy(
    bitcast(f(a, b))))` with `a`, `b` in the source's layout) computes each tile with
    the loop over dim j innermost, so those reads are contiguous and vectorize, into a
    stack tile, then moves the tile to the output by `lanes` x `lanes` register
    transposes, a vector store per output row; read in the output's order they were
    gathers 8-32 KiB apart."""

    def __init__(self, b: ir.IRBuilder, emitter: ElementalEmitter, root: Instruction,
                 out: ir.Value, tile: int, lanes: int) -> None:
        self.b, self.emitter, self.root, self.out, self.tile, self.lanes = (
            b, emitter, root, out, tile, lanes)
        self.ty = u.storage_type(root.shape.element_type)
        with b.goto_entry_block():
            self.buffer = u.stack_buffer(b, self.ty, tile * tile, "tile", align=64)

    @classmethod
    def make(cls, b: ir.IRBuilder, emitter: ElementalEmitter, plan: LoopPlan, out: ir.Value,
             tile: int) -> _Staged | None:
        """The staging for `plan`'s tiles, or None: one 32-bit root, tiles a whole number
        of vectors, and more input bytes read through the transpose than around it."""
        from hlotool.targets.cpu.jit import host

        lanes = 16 if "+avx512f" in host().features.split(",") else 8
        found = _transposing(plan)
        root = plan.roots[0]
        t = root.shape.element_type
        if found is None or found[1] is None or len(plan.roots) != 1 or tile % lanes or \
                t.bits != 32 or t.value == "pred":
            return None
        under = _inputs_below(found[1].operands, plan.inputs, None)
        around = _inputs_below(plan.roots, plan.inputs, found[1])
        moved = sum(i.shape.byte_size for i in under if all(i is not a for a in around))
        kept = sum(i.shape.byte_size for i in around)
        return cls(b, emitter, root, out, tile, lanes) if moved > kept else None

    def tile_body(self, index: dict[int, ir.Value], j: int, last: int, corner: tuple[ir.Value, ir.Value],
                  extent: tuple[ir.Value, ir.Value], dims: tuple[int, ...]) -> None:
        """One tile: dims j and last from `corner`, `extent` elements along each."""
        b, tile = self.b, u.i64(self.tile)
        (j0, l0), (nj, nl) = corner, extent
        with u.for_range(b, nl, name="sl") as il, u.for_range(b, nj, name="sj") as ij:
            index[j], index[last] = b.add(j0, ij), b.add(l0, il)
            v = self.emitter.value(self.root, tuple(index[d] for d in range(len(dims))))
            b.store(v, self._at(il, ij))
        whole = b.and_(b.icmp_signed("==", nj, tile), b.icmp_signed("==", nl, tile))
        with b.if_else(whole) as (full, edge):
            with full:
                self._blocks(index, j, last, corner, dims)
            with edge:
                with u.for_range(b, nj, name="ej") as ij, u.for_range(b, nl, name="el") as il:
                    index[j], index[last] = b.add(j0, ij), b.add(l0, il)
                    b.store(b.load(self._at(il, ij), typ=self.ty), self._out(index, dims))

    def _at(self, il: ir.Value, ij: ir.Value) -> ir.Value:
        """The stack tile's element (il, ij)."""
        b = self.b
        return b.gep(self.buffer, [b.add(b.mul(il, u.i64(self.tile)), ij)], source_etype=self.ty)

    def _out(self, index: dict[int, ir.Value], dims: tuple[int, ...]) -> ir.Value:
        lin = linear_index(self.b, dims, tuple(index[d] for d in range(len(dims))))
        return self.b.gep(self.out, [lin], source_etype=self.ty, inbounds=True)

    def _blocks(self, index: dict[int, ir.Value], j: int, last: int,
                corner: tuple[ir.Value, ir.Value], dims: tuple[int, ...]) -> None:
        b, n = self.b, self.lanes
        vty = ir.VectorType(self.ty, n)
        per = self.tile // n
        with u.for_range(b, per, name="bj") as bj, u.for_range(b, per, name="bl") as bl:
            cj, cl = b.mul(bj, u.i64(n)), b.mul(bl, u.i64(n))
            rows = [u.vector_load(b, self._at(b.add(cl, u.i64(r)), cj), vty) for r in range(n)]
            for q, column in enumerate(transpose(b, rows)):
                index[j] = b.add(corner[0], b.add(cj, u.i64(q)))
                index[last] = b.add(corner[1], cl)
                u.vector_store(b, column, self._out(index, dims))


def _inputs_below(tops: list[Instruction], inputs: list[Instruction],
                  stop: Instruction | None) -> list[Instruction]:
    """The inputs that `tops` read, transitively, not through `stop`."""
    wanted = {id(i) for i in inputs}
    found: dict[int, Instruction] = {}
    stack, seen = list(tops), set()
    while stack:
        ins = stack.pop()
        if id(ins) in seen or ins is stop:
            continue
        seen.add(id(ins))
        if id(ins) in wanted:
            found[id(ins)] = ins
            continue
        stack.extend(ins.operands)
    return list(found.values())


def _tiled_nest(b: ir.IRBuilder, dims: tuple[int, ...], j: int,
                emit: Callable[[tuple[ir.Value, ...]], None], tile: int,
                span: tuple[ir.Value, ir.Value], blocks: _BlockTranspose | None = None,
                staged: _Staged | None = None) -> int:
    """Loops over `dims` with dims j and last blocked in tile x tile tiles; the other
    dims and the tile rows of dim j form the partitioned range `span` (its size is
    returned). With `blocks`, each tile moves BLOCK x BLOCK blocks at a time; with
    `staged`, each tile is computed in the transposed operand's order first."""
    last = len(dims) - 1
    outer = [d for d in range(len(dims)) if d not in (j, last)]
    flat = [dims[d] for d in outer] + [-(-dims[j] // tile)]
    index: dict[int, ir.Value] = {}
    with _span(b, *span) as f:
        *rest, tj = delinearize(b, flat, f)
        index.update(zip(outer, rest, strict=True))
        with u.for_range(b, -(-dims[last] // tile), name="tl") as tl:
            j0, l0 = b.mul(tj, u.i64(tile)), b.mul(tl, u.i64(tile))
            nj = _tile_extent(b, j0, dims[j], tile)
            nl = _tile_extent(b, l0, dims[last], tile)
            if blocks is not None:
                per = u.i64(BLOCK)
                with u.for_range(b, b.udiv(nj, per), name="bj") as bj, \
                        u.for_range(b, b.udiv(nl, per), name="bl") as bl:
                    index[j] = b.add(j0, b.mul(bj, per))
                    index[last] = b.add(l0, b.mul(bl, per))
                    blocks(index, j, last)
                return math.prod(flat)
            if staged is not None:
                staged.tile_body(index, j, last, (j0, l0), (nj, nl), dims)
                return math.prod(flat)
            with u.for_range(b, nj, name="ij") as ij, u.for_range(b, nl, name="il") as il:
                index[j] = b.add(j0, ij)
                index[last] = b.add(l0, il)
                emit(tuple(index[d] for d in range(len(dims))))
    return math.prod(flat)


def _tile_extent(b: ir.IRBuilder, start: ir.Value, n: int, tile: int = TILE) -> ir.Value:
    rest = b.sub(u.i64(n), start)
    return b.select(b.icmp_signed("<", rest, u.i64(tile)), rest, u.i64(tile))


def _loop_nest(b: ir.IRBuilder, dims: tuple[int, ...], index: list[ir.Value],
               emit: Callable[[tuple[ir.Value, ...]], None]) -> None:
    """Nested row-major loops over `dims`; calls emit(index) in the innermost body."""
    if len(index) == len(dims):
        emit(tuple(index))
        return
    with u.for_range(b, dims[len(index)], name=f"d{len(index)}") as i:
        _loop_nest(b, dims, [*index, i], emit)


def store_roots(b: ir.IRBuilder, emitter: ElementalEmitter, roots: list[Instruction],
                outs: list[ir.Argument], dims: tuple[int, ...], index: tuple[ir.Value, ...]) -> None:
    """Store every root's value at `index` of its output (of `dims`)."""
    lin = linear_index(b, dims, index)
    for root, out in zip(roots, outs, strict=True):
        v = emitter.value(root, index)
        t = root.shape.element_type
        if v.type == u.I1:
            v = b.zext(v, u.I8)
        ptr = b.gep(out, [lin], source_etype=u.storage_type(t), inbounds=True)
        b.store(v, ptr)


def emit_entry(module: ir.Module, name: str, body: ir.Function, x86: bool) -> None:
    """`void name(void **buffers)`: unpack pointers, set FTZ/DAZ, call the body (one
    thread; `parallel.emit_entry` is the entry of a body over a range)."""
    entry = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=name)
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    ptrs = [b.load(b.gep(entry.args[0], [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
            for k in range(len(body.args))]
    if not x86:
        b.call(body, ptrs)
        b.ret_void()
        return
    saved, mode = b.alloca(u.I32), b.alloca(u.I32)
    stmxcsr = _declare(module, "llvm.x86.sse.stmxcsr")
    ldmxcsr = _declare(module, "llvm.x86.sse.ldmxcsr")
    b.call(stmxcsr, [saved])
    b.store(b.or_(b.load(saved, typ=u.I32), ir.Constant(u.I32, _FTZ_DAZ)), mode)
    b.call(ldmxcsr, [mode])
    b.call(body, ptrs)
    b.call(ldmxcsr, [saved])
    b.ret_void()


def _declare(module: ir.Module, name: str) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=name)
    return fn
