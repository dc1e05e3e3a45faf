"""Row-fusion kernels: a fusion whose reduces (over the trailing dims of its result) are
used again inside it (softmax, layernorm; `analysis.liveness.is_row_fusion`).

One LLVM function loops over the rows (the dims the reduces keep). Per row it computes
every reduce in order with the reduce kernel's fold (the same tree, the same jammed
chains: bit-identical to the interpreter and to a standalone reduce kernel), storing
each value to a scratch buffer, then computes the root over the row's elements, reading
the reduces' values from the scratch buffers. A row is read while it is still in cache,
and no intermediate array is written.

A reduce whose fold is order-sensitive (a float sum: scalar chains) first gets the
values it folds computed for the whole row into a stack buffer; the fold and the rest of
the row read the buffer (so softmax's exp runs vectorized and once per element, not in
the scalar fold and again in the division: 7.1 ms -> 2.0 ms on 1024x4096).

The row's elementwise work is done one of two ways:
- **Block calls** (`block_kinds`), when every value the row computes is f32, bf16 or f16
  (a narrow value's block holding the f32 it equals) and either one value per row (a
  reduce, a constant, a broadcast of a row's value: `s`) or an elementwise op of the
  ops `row_ops` has over the row's contiguous elements (`v`):
  the row is cut into blocks of `BLOCK` elements and each op is one call into the
  precompiled block operations (`row_ops`); max/min fold by the range folds (`folds`),
  and float sums whose values are in memory by the lane fold and the tree fold, or
  the row tree for short rows (`reduce.row_fold_calls`). The kernel is then calls and
  a little scalar code per row, compiled by LLVM's quick pipeline (the lean one when a
  sum still folds by the tree's emitted chains): softmax of 4096x4096 compiles in
  ~10 ms instead of ~38 (XLA:CPU hands it to YNNPACK and takes ~13); the runtime is
  the fused loops' within a few percent for rows of 512 and more, up to a third more
  on rows of 256 (one more pass over the row, and a call per op on short blocks).
- **Fused loops** otherwise: loops over the row's elements computing the values with the
  elemental emitter, which the full pipeline's loop vectorizer widens.

A fusion of row reduces whose result is one value per row (a row max, the sum of
exp(x - m), logsumexp's sum and log, a mean; `codegen._plan_row_reduction`) runs the
same way when block calls apply and every fold is a call: per row the reduces, then the
result's value by the elemental emitter. XLA:CPU hands these to YNNPACK too; the reduce
kernel took the full pipeline for them (a row max of 4096x1000: 22 ms cold, 7 ms now).

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
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu.jit import Pipeline
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.kernels import folds, parallel, row_ops
from hlotool.targets.llvm.elemental import (
    ElementalEmitter,
    Input,
    delinearize,
    is_fusable_product,
    linear_index,
)
from hlotool.targets.llvm.elemental import _divides_by_constant as divides_by_constant
from hlotool.targets.cpu.kernels.reduce import (
    LANES,
    buffers_row,
    fits_row_buffer,
    fold_levels,
    fused_product,
    lane_runtime,
    reducer_op,
    row_fold_by_calls,
    row_fold_calls,
    row_reduce_emitter,
    row_square,
    row_values,
)

O = Opcode
P = PrimitiveType

#: Elements per block of a block-call row kernel (2 KiB of f32 per temporary block).
BLOCK = 512
#: Kinds of values in a block-call row kernel: one per row, or a block of the row's.
SCALAR, BLOCKS = "s", "v"


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
    #: How a block-call kernel computes the row (`block_kinds`); None for a kernel of
    #: fused loops.
    blocks: RowBlocks | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        """Register the runtime libraries the kernel calls (before it is compiled or
        loaded from the disk cache)."""
        for red in self.scratch:
            if red.shape.element_type in LANES and reducer_op(red) in (O.ADD, O.MULTIPLY):
                lane_runtime(red.shape.element_type)
        self.blocks = block_kinds(self)
        if self.blocks is not None:
            row_ops.row_ops_runtime()
            folds.fold_runtime()
            for t in self.blocks.rounded:
                row_ops.rounded_runtime(t)

    @property
    def dims(self) -> tuple[int, ...]:
        """The dims of the arrays the kernel walks row by row: the root's, or, for a
        result of one value per row (a reduce and what it feeds per row: a max,
        logsumexp, a mean), its reduces' operands'."""
        root = self.roots[0]
        if root.shape.rank > self.kept:
            return root.shape.dimensions
        return self.scratch[0].operand(0).shape.dimensions

    @property
    def per_row(self) -> bool:
        """Whether the result is one value per row."""
        return self.roots[0].shape.rank <= self.kept

    @property
    def pipeline(self) -> Pipeline:
        """Block-call kernels are scalar code and calls: the quick pipeline when all
        their folds are calls too (`RowBlocks.calls`), else the lean one."""
        if self.blocks is None:
            return Pipeline.FULL
        return Pipeline.CALLS if self.blocks.calls else Pipeline.LEAN


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
    scratch = list(fn.args[len(sources) + 1:n])
    begin, end = fn.args[n:]
    dims = plan.dims
    rows = dims[:plan.kept]
    row = _BlockRow(fn, entry, b, plan, inputs) if plan.blocks is not None else None
    with u.for_range(b, b.sub(end, begin), name="row") as i:
        index = list(delinearize(b, rows, b.add(begin, i, flags=["nsw", "nuw"])))
        if row is not None:
            row.emit(index, out, scratch)
        else:
            _fused_row(fn, entry, b, plan, inputs, index, out, scratch)
    b.ret_void()
    with b.goto_block(entry):
        b.branch(fn.blocks[1])
    n_rows = math.prod(rows)
    work = parallel.kernel_work(math.prod(dims), plan.roots, sources)
    parallel.emit_entry(module, symbol, fn, x86, n_rows, parallel.max_parts(n_rows, work))


def _reduce_value(fn: ir.Function, entry: ir.Block, b: ir.IRBuilder, red: Instruction,
                  known: dict[int, Input], index: list[ir.Value], kept: int) -> ir.Value:
    """The row's value of `red` by the reduce kernel's fold, its values in `known`."""
    r = row_reduce_emitter(fn, entry, b, red, known, index, kept)
    value = r.level_value(len(r.levels) + 1, index, None)
    return b.zext(value, u.I8) if r.t.value == "pred" else value


def _store_reduce(b: ir.IRBuilder, red: Instruction, buf: ir.Value, index: list[ir.Value],
                  value: ir.Value, known: dict[int, Input]) -> None:
    """Store the row's value of `red` to its scratch buffer, which later values read."""
    t = red.shape.element_type
    ptr = b.gep(buf, [linear_index(b, red.shape.dimensions, tuple(index))],
                source_etype=u.storage_type(t), inbounds=True)
    b.store(value, ptr)
    known[id(red)] = Input(buf, red.shape)


def _fused_row(fn: ir.Function, entry: ir.Block, b: ir.IRBuilder, plan: RowPlan,
               inputs: dict[int, Input], index: list[ir.Value], out: ir.Value,
               scratch: list[ir.Value]) -> None:
    """One row by fused loops of the elemental emitter (the full pipeline widens them)."""
    known = dict(inputs)
    for red, buf in zip(plan.scratch, scratch, strict=True):
        product = red.operand(0)
        square = row_square(red, plan.kept)
        if square is not None and id(square) not in known and \
                fits_row_buffer(square, plan.kept):
            known[id(square)] = row_values(b, entry, square, index, plan.kept, known)
        elif id(product) not in known and buffers_row(red, plan.kept):
            known[id(product)] = row_values(b, entry, product, index, plan.kept, known)
        value = _reduce_value(fn, entry, b, red, known, index, plan.kept)
        _store_reduce(b, red, buf, index, value, known)
    root = plan.roots[0]
    dims = root.shape.dimensions
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


# -- block calls ----------------------------------------------------------------------


@dataclass(slots=True)
class RowBlocks:
    """How a block-call kernel computes a row (`block_kinds`)."""

    #: id -> `SCALAR` or `BLOCKS` for the instructions the kernel computes.
    kinds: dict[int, str]
    #: id of a float sum or product -> the values computed into row buffers before its
    #: fold reads them (its operand, the x of a sum of x * x, or a contracted
    #: product's operands; none when it folds an input).
    buffered: dict[int, list[Instruction]]
    #: Whether every reduce folds by calls (`reduce.row_fold_by_calls`, max and min by
    #: the range fold): the kernel is then calls and a little scalar code per row, for
    #: LLVM's quick pipeline.
    calls: bool
    #: The narrow types of the bf16/f16 ops it computes (`row_ops.rounded_runtime`).
    rounded: frozenset[PrimitiveType] = frozenset()


def block_kinds(plan: RowPlan) -> RowBlocks | None:
    """How a block-call kernel computes the row (module docstring), or None when the
    plan needs fused loops: a value of another type or shape, an op `row_ops` lacks, an
    input read other than contiguously, or a reduce other than a float max or min of
    blocks, or a float sum or product of an input or of values that fit a row buffer."""
    root = plan.roots[0]
    if math.prod(plan.dims[plan.kept:]) == 0:
        return None
    kinds: dict[int, str] = {}
    sources = {id(s) for s in plan.inputs} | {id(c) for c, _ in plan.constants}
    reduces = {id(r) for r in plan.scratch}
    classify = _Classifier(plan, sources, reduces, kinds)
    if classify(root) != (SCALAR if plan.per_row else BLOCKS):
        return None
    buffered: dict[int, list[Instruction]] = {}
    for red in plan.scratch:
        values = _block_reduce(plan, red, classify)
        if values is None:
            return None
        buffered[id(red)] = values
    calls = all(reducer_op(r) in (O.MAXIMUM, O.MINIMUM) or _folds_by_calls(plan, r, buffered)
                for r in plan.scratch)
    rounded = frozenset(
        i.shape.element_type for i in root.parent.instructions
        if kinds.get(id(i)) == BLOCKS and i.shape.element_type in row_ops.NARROW
        and i.opcode not in (O.PARAMETER, O.CONVERT) and i is not root)
    return RowBlocks(kinds, buffered, calls, rounded)


def _folds_by_calls(plan: RowPlan, red: Instruction,
                    buffered: dict[int, list[Instruction]]) -> bool:
    """Whether a float sum or product folds by `reduce.row_fold_calls`, reading its
    values where the block-call kernel leaves them (an input, or a row buffer)."""
    rows = {id(v) for values in buffered.values() for v in values}
    inputs = {id(i) for i in plan.inputs}

    def where(x: Instruction) -> Input | None:
        if id(x) in rows:
            return Input(ir.Constant(u.PTR, None), x.shape, plan.kept)
        return Input(ir.Constant(u.PTR, None), x.shape) if id(x) in inputs else None

    return row_fold_by_calls(red, where, plan.kept)


def _block_reduce(plan: RowPlan, red: Instruction,
                  classify: _Classifier) -> list[Instruction] | None:
    """The values a block-call kernel computes into row buffers for folding `red`
    (`RowBlocks.buffered`), or None when it cannot fold it."""
    product = red.operand(0)
    rank, kept = product.shape.rank, plan.kept
    t = red.shape.element_type
    if t not in (P.F32, *row_ops.NARROW) or red.operand_count != 2 or \
            product.shape.dimensions != plan.dims or \
            sorted(red.attrs["dimensions"]) != list(range(kept, rank)):
        return None
    op = reducer_op(red)
    if op in (O.MAXIMUM, O.MINIMUM):  # a narrow one too: f32 max picks a value, exact
        return [] if not fold_levels(red) and classify(product) == BLOCKS else None
    if op not in (O.ADD, O.MULTIPLY) or t is not P.F32:
        return None
    if classify.is_row_input(product):
        return []
    square = row_square(red, kept)
    mul = fused_product(red)
    if square is not None and fits_row_buffer(square, kept):
        values = [square]
    elif mul is not None:
        values = list(dict.fromkeys(mul.operands))
    elif buffers_row(red, kept):
        values = [product]
    else:
        return None
    out = []
    for x in values:
        kind = classify(x)
        if kind is None or kind == BLOCKS and not fits_row_buffer(x, kept):
            return None
        if kind == BLOCKS and not classify.is_row_input(x):
            out.append(x)
    return out


class _Classifier:
    """The kind of each value of a block-call kernel (`block_kinds`), memoised in
    `kinds`; None where the value cannot be computed that way."""

    def __init__(self, plan: RowPlan, sources: set[int], reduces: set[int],
                 kinds: dict[int, str]) -> None:
        self.kept = plan.kept
        self.root = plan.roots[0]
        self.dims = plan.dims
        self.sources, self.reduces, self.kinds = sources, reduces, kinds
        self.failed: set[int] = set()

    def __call__(self, x: Instruction) -> str | None:
        if id(x) in self.kinds:
            return self.kinds[id(x)]
        if id(x) in self.failed:
            return None
        kind = self._kind(x)
        if kind is None:
            self.failed.add(id(x))
        else:
            self.kinds[id(x)] = kind
        return kind

    def _convert(self, x: Instruction) -> str | None:
        """Between f32 and bf16/f16 (a narrow value's block holds the f32 it equals)."""
        o = x.operand(0)
        src, dst = o.shape.element_type, x.shape.element_type
        if {src, dst} not in ({P.F32, P.BF16}, {P.F32, P.F16}):
            return None
        return self(o)

    def is_row_input(self, x: Instruction) -> bool:
        """An input of the row's shape, read contiguously."""
        return id(x) in self.sources and x.shape.dimensions == self.dims and \
            x.shape.element_type is P.F32 and x.shape.is_row_major

    def inner_input(self, x: Instruction) -> bool:
        """A broadcast of a contiguous f32 input along the row's elements (a layernorm's
        scale): the same block for every row."""
        o = x.operand(0)
        return x.opcode is O.BROADCAST and id(o) in self.sources and \
            list(x.attrs["dimensions"]) == list(range(self.kept, len(self.dims))) and \
            o.shape.element_type is P.F32 and o.shape.is_row_major

    def _kind(self, x: Instruction) -> str | None:
        shape = x.shape
        if not shape.is_array:
            return None
        if id(x) in self.reduces or shape.rank == 0 or shape.dimensions == self.dims[:self.kept]:
            return SCALAR
        t = shape.element_type
        if shape.dimensions != self.dims or t not in (P.F32, *row_ops.NARROW):
            return None
        if id(x) in self.sources:
            return BLOCKS if self.is_row_input(x) or \
                t in row_ops.NARROW and shape.is_row_major else None
        if x.opcode is O.CONVERT:
            return self._convert(x)
        if t is P.F16 and x.opcode is O.LOGISTIC:  # XLA:CPU expands it into rounded f16 ops
            return None
        if x.opcode is O.CONSTANT:
            return SCALAR  # uniform (an array constant is a source)
        if x.opcode is O.BROADCAST:
            if all(d < self.kept for d in x.attrs["dimensions"]):
                return SCALAR
            return BLOCKS if self.inner_input(x) else None
        if x.opcode.value not in row_ops.UNARY and x.opcode.value not in row_ops.BINARY:
            return None
        operands = [self(o) for o in x.operands]
        if None in operands:
            return None
        return SCALAR if all(k == SCALAR for k in operands) else BLOCKS


#: An operand of a block operation: its kind and value (a block pointer or a float).
Operand = tuple[str, ir.Value]


class _BlockRow:
    """Emits one row of a block-call kernel (`block_kinds`)."""

    def __init__(self, fn: ir.Function, entry: ir.Block, b: ir.IRBuilder, plan: RowPlan,
                 inputs: dict[int, Input]) -> None:
        assert plan.blocks is not None
        self.fn, self.entry, self.b, self.plan = fn, entry, b, plan
        self.kinds = plan.blocks.kinds
        self.buffered = plan.blocks.buffered
        self.calls = plan.blocks.calls
        self.inputs = inputs
        self.dims = plan.dims
        self.length = math.prod(self.dims[plan.kept:])
        self.block = min(BLOCK, self.length)
        self.temps: list[ir.Value] = []

    # -- one row --------------------------------------------------------------------------
    def emit(self, index: list[ir.Value], out: ir.Value, scratch: list[ir.Value]) -> None:
        b, plan = self.b, self.plan
        self.index = index
        self.known = dict(self.inputs)
        self.em = ElementalEmitter(b, self.known)
        self.scalars: dict[int, ir.Value] = {}
        #: id -> this row's values: an input's row, or a row buffer.
        self.rows: dict[int, ir.Value] = {}
        at = b.mul(linear_index(b, self.dims[:plan.kept], tuple(index)), u.i64(self.length))
        self.row_start = at
        for red, buf in zip(plan.scratch, scratch, strict=True):
            _store_reduce(b, red, buf, index, self._reduce(red), self.known)
        root = plan.roots[0]
        if plan.per_row:
            value = self._scalar(root)
            ptr = b.gep(out, [linear_index(b, root.shape.dimensions, tuple(index))],
                        source_etype=_etype(root), inbounds=True)
            b.store(b.zext(value, u.I8) if value.type == u.I1 else value, ptr)
            return
        dest = b.gep(out, [at], source_etype=_etype(root), inbounds=True)
        self._compute(root, dest)

    def _reduce(self, red: Instruction) -> ir.Value:
        b, kept = self.b, self.plan.kept
        op = reducer_op(red)
        if op in (O.MAXIMUM, O.MINIMUM):
            return self._range_fold(red, op, red.operand(0))
        for values in self.buffered[id(red)]:
            if id(values) in self.known:
                continue
            with b.goto_block(self.entry):
                buf = u.stack_buffer(b, u.F32, self.length, "row", align=64)
            self._compute(values, buf)
            self.rows[id(values)] = buf
            self.known[id(values)] = Input(buf, values.shape, skip=kept)
            widened = values.operand(0) if values.opcode is O.CONVERT else None
            if widened is not None and id(widened) not in self.inputs:
                self.rows[id(widened)] = buf  # a narrow value's row: the f32 it equals
        if self.calls:
            return row_fold_calls(self.fn, self.entry, b, red, self.known, self.index, kept)
        return _reduce_value(self.fn, self.entry, b, red, self.known, self.index, kept)

    def _range_fold(self, red: Instruction, op: Opcode, product: Instruction) -> ir.Value:
        """max/min of the row from the init value (order-free: block by block)."""
        b = self.b
        fold = folds.declare(b.module, folds.range_symbol(P.F32, op),
                             folds.range_fold_type(u.F32))
        t = red.shape.element_type
        init = self._wide(self.em.value(red.operand(1), ()), t)
        row = self._row_pointer(product)
        if row is not None and t is P.F32:
            return b.call(fold, [row, u.i64(self.length), init])
        with b.goto_block(self.entry):
            acc = b.alloca(u.F32, name="acc")
        b.store(init, acc)
        self._prepare(product)

        def body(off: ir.Value, n: ir.Value) -> None:
            values = self._f32(product, off, n)
            b.store(b.call(fold, [values, n, b.load(acc, typ=u.F32)]), acc)

        self._blocks(body)
        value = b.load(acc, typ=u.F32)
        return value if t is P.F32 else self.em.narrow(value, t)

    # -- blocks ---------------------------------------------------------------------------
    def _compute(self, x: Instruction, dest: ir.Value) -> None:
        """The row's values of `x` into `dest`, block by block."""
        b = self.b
        self._prepare(x)

        def body(off: ir.Value, n: ir.Value) -> None:
            at = b.gep(dest, [off], source_etype=_etype(x), inbounds=True)
            got = self._block(x, off, n, at)
            if got is not at:
                u.memcpy(b, at, got, b.mul(n, u.i64(_itemsize(x))))

        self._blocks(body)

    def _blocks(self, body: object) -> None:
        """Run body(offset, count) over the row's blocks."""
        b = self.b
        count = -(-self.length // self.block)
        with u.for_range(b, count, name="block") as k:
            self.cache: dict[int, ir.Value] = {}
            self.wide: dict[int, ir.Value] = {}
            self.used = 0
            off = b.mul(k, u.i64(self.block))
            n = u.i64(self.block) if self.length % self.block == 0 else \
                _smin(b, u.i64(self.block), b.sub(u.i64(self.length), off))
            body(off, n)  # type: ignore[operator]

    def _row_pointer(self, x: Instruction) -> ir.Value | None:
        """The row's values of `x` in memory (an input's row, a row buffer), or None."""
        b = self.b
        if id(x) in self.rows:
            return self.rows[id(x)]
        if self.kinds.get(id(x)) != BLOCKS:
            return None
        buf = self.inputs.get(id(x))
        if buf is not None:
            return b.gep(buf.pointer, [self.row_start], source_etype=_etype(x), inbounds=True)
        if x.opcode is O.BROADCAST:
            source = self.inputs.get(id(x.operand(0)))
            if source is not None:
                return source.pointer
        return None

    def _temp(self) -> ir.Value:
        if self.used == len(self.temps):
            with self.b.goto_block(self.entry):
                self.temps.append(u.stack_buffer(self.b, u.F32, self.block, "block", align=64))
        self.used += 1
        return self.temps[self.used - 1]

    def _block(self, x: Instruction, off: ir.Value, n: ir.Value, dest: ir.Value | None,
               wide_dest: bool = False) -> ir.Value:
        """A pointer to this block of `x`'s values (`dest` when it computes them): in
        memory, the values as stored (a bf16/f16 input's 16-bit ones); computed, f32
        blocks (a narrow value's holding the f32 it equals), except into a `dest` of x's
        narrow type (the root), which gets them rounded; `wide_dest`: `dest` holds f32."""
        b = self.b
        row = self._row_pointer(x)
        if row is not None:  # a row buffer holds f32, whatever x's type
            etype = u.F32 if id(x) in self.rows else _etype(x)
            return b.gep(row, [off], source_etype=etype, inbounds=True)
        hit = self.cache.get(id(x))
        if hit is not None:
            return hit
        t = x.shape.element_type
        if x.opcode is O.CONVERT:  # f32 <-> bf16/f16
            o = x.operand(0)
            if t is P.F32 and dest is not None and id(o) not in self.inputs and \
                    id(o) not in self.rows and id(o) not in self.cache:
                got = self._block(o, off, n, dest, wide_dest=True)  # straight into dest
                self.cache[id(x)] = got
                return got
            wide = self._f32(o, off, n)
            if t is P.F32:
                got = wide  # the f32 a narrow value equals
            else:
                got = dest if dest is not None else self._temp()
                stored = dest is not None and not wide_dest  # the 16-bit values, else f32
                op = row_ops.convert_name(P.F32, t) if stored else row_ops.round_name(t)
                row_ops.call(b, op, BLOCKS, got, [wide], n)
        else:
            op, args = self._operation(x, off, n)
            kinds, values = "".join(k for k, _ in args), [v for _, v in args]
            narrow = t is not P.F32
            if narrow and (dest is None or wide_dest):  # rounded, as `_narrow_op`
                got = dest if dest is not None else self._temp()
                row_ops.call(b, op, kinds, got, values, n, rounded=t)
            elif narrow:  # the root: computed in f32, stored rounded
                wide = self._temp()
                row_ops.call(b, op, kinds, wide, values, n)
                got = dest
                row_ops.call(b, row_ops.convert_name(P.F32, t), BLOCKS, got, [wide], n)
            else:
                got = dest if dest is not None else self._temp()
                row_ops.call(b, op, kinds, got, values, n)
        self.cache[id(x)] = got
        return got

    def _f32(self, x: Instruction, off: ir.Value, n: ir.Value) -> ir.Value:
        """This block of `x`'s values as f32 (a bf16/f16 input's widened)."""
        got = self._block(x, off, n, None)
        t = x.shape.element_type
        if t is P.F32 or id(x) not in self.inputs:
            return got
        hit = self.wide.get(id(x))
        if hit is None:
            hit = self.wide[id(x)] = self._temp()
            row_ops.call(self.b, row_ops.convert_name(t, P.F32), BLOCKS, hit, [got], n)
        return hit

    def _wide(self, v: ir.Value, t: PrimitiveType) -> ir.Value:
        """A value of type t as the f32 the block operations take."""
        return v if t is P.F32 else self.em.widen(v, t)

    def _operand(self, x: Instruction, off: ir.Value, n: ir.Value) -> Operand:
        if self.kinds[id(x)] == SCALAR:
            return SCALAR, self._wide(self._scalar(x), x.shape.element_type)
        return BLOCKS, self._f32(x, off, n)

    def _unary(self, op: str, a: Operand, n: ir.Value) -> Operand:
        """op on an operand: in the kernel for a value, a block operation for a block."""
        b = self.b
        kind, v = a
        if kind == SCALAR:
            if op == "negate":
                return SCALAR, b.fneg(v)
            return SCALAR, b.fdiv(ir.Constant(u.F32, 1.0), v)
        into = self._temp()
        row_ops.call(b, op, BLOCKS, into, [v], n)
        return BLOCKS, into

    def _operation(self, x: Instruction, off: ir.Value,
                   n: ir.Value) -> tuple[str, list[Operand]]:
        """The block operation computing `x` and its operands, as the elemental emitter
        computes it (`ElementalEmitter._float_op`: the same contractions)."""
        op = x.opcode
        composite = self._exp_of_difference(x)
        if composite is not None:
            return "exponential_of_subtract", [self._operand(o, off, n) for o in composite.operands]
        if op in (O.ADD, O.SUBTRACT):
            for i in (0, 1):
                mul = x.operand(i)
                if id(mul) in self.known or not is_fusable_product(mul):
                    continue
                a = self._operand(mul.operand(0), off, n)
                c = self._operand(mul.operand(1), off, n)
                if mul.opcode is O.DIVIDE:
                    c = self._unary("recip", c, n)
                other = self._operand(x.operand(1 - i), off, n)
                if op is O.SUBTRACT:
                    if i == 0:
                        other = self._unary("negate", other, n)
                    else:
                        a = self._unary("negate", a, n)
                return "fma", [a, c, other]
        args = [self._operand(o, off, n) for o in x.operands]
        if op is O.DIVIDE and divides_by_constant(x):
            t = x.shape.element_type
            kind, recip = self._unary("recip", args[1], n)
            if t is not P.F32:  # the reciprocal rounded to the type (`_narrow_op`)
                recip = self.em.round_to(recip, t)
            return "multiply", [args[0], (kind, recip)]
        return op.value, args

    def _exp_of_difference(self, x: Instruction) -> Instruction | None:
        """The f32 subtract that `x`, an f32 exp, alone reads, when one block operation
        can compute both (`row_ops.COMPOSITE`): not in memory or computed already, and no
        product of it contracted into an fma."""
        if x.opcode is not O.EXP or x.shape.element_type is not P.F32:
            return None
        d = x.operand(0)
        if d.opcode is not O.SUBTRACT or d.shape.element_type is not P.F32 or \
                len(d.users) != 1 or id(d) in self.known or id(d) in self.cache or \
                self._row_pointer(d) is not None:
            return None
        if any(id(m) not in self.known and is_fusable_product(m) for m in d.operands):
            return None
        return d

    # -- one value per row ----------------------------------------------------------------
    def _prepare(self, x: Instruction) -> None:
        """Compute, before a loop over blocks, the values per row the blocks of `x`
        read (a value computed inside the loop would not reach the next one)."""
        seen: set[int] = set()
        stack = [x]
        while stack:
            node = stack.pop()
            if id(node) in seen or self._row_pointer(node) is not None:
                continue
            seen.add(id(node))
            if self.kinds[id(node)] == SCALAR:
                self._scalar(node)
                if node.opcode in (O.MULTIPLY, O.DIVIDE):
                    stack.extend(o for o in node.operands if self.kinds.get(id(o)) == SCALAR)
                continue
            for o in node.operands:
                stack.append(o)
                if o.opcode in (O.MULTIPLY, O.DIVIDE):
                    stack.extend(o.operands)

    def _scalar(self, x: Instruction) -> ir.Value:
        """The row's value of a `SCALAR` instruction, by the elemental emitter."""
        hit = self.scalars.get(id(x))
        if hit is None:
            rank = x.shape.rank
            zeros = [u.i64(0)] * (rank - self.plan.kept)
            index = () if rank == 0 else tuple(self.index[:min(rank, self.plan.kept)] + zeros)
            hit = self.scalars[id(x)] = self.em.value(x, index)
        return hit


def _etype(x: Instruction) -> ir.Type:
    """The type of `x`'s elements in memory (f32, or a narrow input's or result's)."""
    return u.storage_type(x.shape.element_type)


def _itemsize(x: Instruction) -> int:
    return int(np.dtype(x.shape.element_type.numpy_dtype).itemsize)


def _smin(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)
