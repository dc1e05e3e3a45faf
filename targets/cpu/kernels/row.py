"""Row-fusion kernels: a fusion whose reduces (over the trailing dims of its result) are
used again inside it (softmax, layernorm; `analysis.liveness.is_row_fusion`).

One LLVM function loops over the rows (the dims the reduces keep). Per row it computes
every reduce in order with the reduce kernel's fold (the same tree, the same jammed
chains: bit-identical to the interpreter and to a standalone reduce kernel), storing
each value to a scratch buffer, then loops over the row's elements computing the root
with the elemental emitter, reading the reduces' values from the scratch buffers. A row
is read while it is still in cache, and no intermediate array is written.

A reduce whose fold is order-sensitive (a float sum: scalar chains) first gets the
values it folds computed for the whole row into a stack buffer, by a loop of their own
that the loop vectorizer widens; the fold and the rest of the row read the buffer (so
softmax's exp runs vectorized and once per element, not in the scalar fold and again
in the division: 7.1 ms -> 2.0 ms on 1024x4096).

Arguments: inputs, constants, the output, then one scratch buffer per reduce (of the
reduce's shape; the thunk owns them). Large kernels split the rows across threads
(`parallel.emit_entry`); a row is always computed whole by one thread.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.llvm.elemental import (
    ElementalEmitter,
    Input,
    delinearize,
    linear_index,
)
from hlotool.targets.cpu.kernels.reduce import (
    LANES,
    buffers_row,
    fits_row_buffer,
    lane_runtime,
    reducer_op,
    row_reduce_emitter,
    row_square,
    row_values,
)

O = Opcode


@dataclass(slots=True)
class RowPlan:
    """A row fusion computed natively, row by row."""

    name: str
    #: The fusion's root (one array).
    roots: list[Instruction]
    inputs: list[Instruction]
    constants: list[tuple[Instruction, np.ndarray]] = field(default_factory=list)
    #: The fusion's reduces in post order (each gets a scratch buffer).
    scratch: list[Instruction] = field(default_factory=list)
    #: Number of leading (row) dims the reduces keep.
    kept: int = 1
    tune: dict[str, int | str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Register the runtime lane folds its float sums may call (before the kernel is
        compiled or loaded from the disk cache)."""
        for red in self.scratch:
            if red.shape.element_type in LANES and reducer_op(red) in (O.ADD, O.MULTIPLY):
                lane_runtime(red.shape.element_type)


def emit_row_kernel(module: ir.Module, plan: RowPlan, symbol: str, *, x86: bool) -> None:
    """Add `symbol` computing `plan`; the rows are split across threads when there is
    enough work (`parallel.emit_entry`: each row is computed whole by one thread, and
    writes only its own elements of the output and of the scratch buffers)."""
    n = len(plan.inputs) + len(plan.constants) + 1 + len(plan.scratch)
    fn = parallel.body_function(module, symbol, n)
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(fn.append_basic_block("start"))
    sources = plan.inputs + [c for c, _ in plan.constants]
    inputs = {id(i): Input(a, i.shape) for i, a in zip(sources, fn.args, strict=False)}
    out = fn.args[len(sources)]
    scratch = fn.args[len(sources) + 1:n]
    begin, end = fn.args[n:]
    root = plan.roots[0]
    dims = root.shape.dimensions
    rows = dims[:plan.kept]

    def row(index: list[ir.Value]) -> None:
        known = dict(inputs)
        for red, buf in zip(plan.scratch, scratch, strict=True):
            product = red.operand(0)
            square = row_square(red, plan.kept)
            if square is not None and id(square) not in known and \
                    fits_row_buffer(square, plan.kept):
                known[id(square)] = row_values(b, entry, square, index, plan.kept, known)
            elif id(product) not in known and buffers_row(red, plan.kept):
                known[id(product)] = row_values(b, entry, product, index, plan.kept, known)
            r = row_reduce_emitter(fn, entry, b, red, known, index, plan.kept)
            value = r.level_value(len(r.levels) + 1, index, None)
            if r.t.value == "pred":
                value = b.zext(value, u.I8)
            ptr = b.gep(buf, [linear_index(b, red.shape.dimensions, tuple(index))],
                        source_etype=u.storage_type(r.t), inbounds=True)
            b.store(value, ptr)
            known[id(red)] = Input(buf, red.shape)
        em = ElementalEmitter(b, known)
        inner = dims[plan.kept:]

        def elems(k: int, idx: list[ir.Value]) -> None:
            if k == len(inner):
                full = (*index, *idx)
                em._cache.clear()
                v = em.value(root, full)
                if v.type == u.I1:
                    v = b.zext(v, u.I8)
                ptr = b.gep(out, [linear_index(b, dims, full)],
                            source_etype=u.storage_type(root.shape.element_type), inbounds=True)
                b.store(v, ptr)
                return
            with u.for_range(b, inner[k], name=f"e{k}") as i:
                elems(k + 1, [*idx, i])

        elems(0, [])

    with u.for_range(b, b.sub(end, begin), name="row") as i:
        row(list(delinearize(b, rows, b.add(begin, i, flags=["nsw", "nuw"]))))
    b.ret_void()
    with b.goto_block(entry):
        b.branch(fn.blocks[1])
    n_rows = math.prod(rows)
    work = parallel.kernel_work(math.prod(dims), plan.roots, sources)
    parallel.emit_entry(module, symbol, fn, x86, n_rows, parallel.max_parts(n_rows, work))
