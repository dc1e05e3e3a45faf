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
from hlotool.ir.types import Shape
from hlotool.targets.cpu import irutils as u
from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.cpu.kernels.elemental import (
    ElementalEmitter,
    Input,
    delinearize,
    linear_index,
)

#: MXCSR bits: flush-to-zero (15) and denormals-are-zero (6).
_FTZ_DAZ = parallel.FTZ_DAZ


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
    body = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR] * n_ptrs + [u.I64, u.I64]),
                       name=f"{symbol}.body")
    body.linkage = "internal"
    body.attributes.add("noinline")
    body.attributes.add("nounwind")
    for arg in body.args[:n_ptrs]:
        arg.add_attribute("noalias")
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
    store = lambda index: _store_roots(b, emitter, plan, outs, dims, index)  # noqa: E731
    tiled = _transposed_dim(plan)
    tile = int(plan.tune.get("tile", TILE))
    if tiled is None or tile <= 0:
        k = split_rank(dims)
        with _span(b, begin, end) as f:
            _loop_nest(b, dims, list(delinearize(b, dims[:k], f)), store)
        b.ret_void()
        return math.prod(dims[:k])
    outer = _tiled_nest(b, dims, tiled, store, tile, (begin, end))
    b.ret_void()
    return outer


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
    """The output dim that walks the contiguous dim of a transposed operand, when the
    kernel contains a transpose of the output's shape that moves the minor dim (then the
    loops are blocked over that dim and the output's minor dim)."""
    dims = plan.roots[0].shape.dimensions
    rank = len(dims)
    if rank < 2 or dims[-1] < TILE:
        return None
    inputs = {id(i) for i in plan.inputs}
    stack, seen = list(plan.roots), set()
    while stack:
        ins = stack.pop()
        if id(ins) in seen or id(ins) in inputs:
            continue
        seen.add(id(ins))
        if ins.opcode.value == "transpose" and ins.shape.dimensions == dims:
            perm = list(ins.attrs["dimensions"])
            j = perm.index(rank - 1)
            if j != rank - 1 and dims[j] >= TILE:
                return j
        stack.extend(ins.operands)
    return None


def _tiled_nest(b: ir.IRBuilder, dims: tuple[int, ...], j: int,
                emit: Callable[[tuple[ir.Value, ...]], None], tile: int,
                span: tuple[ir.Value, ir.Value]) -> int:
    """Loops over `dims` with dims j and last blocked in tile x tile tiles; the other
    dims and the tile rows of dim j form the partitioned range `span` (its size is
    returned)."""
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


def _store_roots(b: ir.IRBuilder, emitter: ElementalEmitter, plan: LoopPlan,
                 outs: list[ir.Argument], dims: tuple[int, ...], index: tuple[ir.Value, ...]) -> None:
    lin = linear_index(b, dims, index)
    for root, out in zip(plan.roots, outs, strict=True):
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
