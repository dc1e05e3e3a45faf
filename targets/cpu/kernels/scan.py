"""Scans: a reduce-window that is a prefix scan along one axis (jnp.cumsum, cumprod,
cummax, associative scans lowered for CPU), computed in one pass over the operand.

A window that covers the whole scan axis with `n - 1` (inclusive) or `n` (exclusive)
elements of low padding is a prefix scan. XLA:CPU never folds such a window per output
(n^2 work): its ReduceWindowRewriter first rewrites a scan longer than 16 elements into
scans of 16-element chunks and a scan of the chunk totals, combined as
`op(chunk prefix, exclusive scan of the earlier totals)`, recursively. The interpreter
computes that same order (`_tiled_scan` in hlotool/interpreter/kernels/reduction.py), and
so does this kernel, streaming: every level of the recursion keeps its running chunk
prefix and its carried value, and a level takes one element each time the level below
completes a chunk. Float add/multiply and region reducers round exactly as XLA's.

An order-free reducer (integer add, max, min, and, or, xor) gives the same result in
any order; it is folded front to back in one level, as the interpreter does.

Lanes: a scan along a non-minor axis carries up to `SCAN_LANES` consecutive minor
elements together (their loops vectorize); a scan along the minor axis carries one.

Suffix scans (padding high: jax's cumsum(reverse=True), and the gradient of every
cumsum) take the same rewrite with the chunks still aligned at the start (the last one
padded with the init), but each output of a chunk folds its window forward, from the
init through the chunk's end: out[i] = init op x[i] op x[i+1] ... . `_SuffixEmitter`
computes that level by level (16 * 17 / 2 region calls a chunk), the chunk totals into
a stack buffer per level above.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import ElementalEmitter, Index, linear_index
from hlotool.targets.llvm.indexing import call_scalar, loop_nest, order_free

O = Opcode
P = PrimitiveType

#: Minor elements scanned together along a non-minor scan axis.
SCAN_LANES = 256


def scan_of(ins: Instruction) -> tuple[int, bool, bool] | None:
    """(axis, reverse, exclusive) when `ins` is a reduce-window that scans one axis."""
    if ins.opcode is not O.REDUCE_WINDOW:
        return None
    from hlotool.interpreter.kernels.reduction import _scan_axis, _window_dims

    src = ins.operand(0).shape
    if not src.is_array:
        return None
    return _scan_axis(_window_dims(ins.attrs.get("window"), src.rank), src.dimensions)


def chunk_levels(n: int) -> list[int]:
    """The element count of each level of XLA's tiled scan of `n` elements: chunks of
    SCAN_BASE, their totals the next level, until one has at most SCAN_BASE."""
    from hlotool.interpreter.kernels.reduction import SCAN_BASE

    sizes = [n]
    while sizes[-1] > SCAN_BASE:
        sizes.append(-(-sizes[-1] // SCAN_BASE))
    return sizes


def scan_levels(n: int, comp: Computation) -> list[int]:
    """The levels of a prefix scan of `n` elements (`chunk_levels`; one level for an
    order-free reducer)."""
    return [n] if order_free(comp) else chunk_levels(n)


class _Scan:
    """What both scan emitters read of the reduce-window `op`."""

    def __init__(self, em: ElementalEmitter, op: Instruction, outs: list[ir.Value]) -> None:
        from hlotool.interpreter.kernels.reduction import SCAN_BASE

        self.em, self.b, self.op, self.outs = em, em.b, op, outs
        self.k = op.operand_count // 2
        self.srcs = list(op.operands[: self.k])
        self.shapes = list(op.shape.tuple_shapes) if op.shape.is_tuple else [op.shape]
        scan = scan_of(op)
        assert scan is not None
        self.axis, _, self.exclusive = scan
        self.comp: Computation = op.attrs["to_apply"]
        self.dims = self.srcs[0].shape.dimensions
        self.base = SCAN_BASE
        self.tys = [u.value_type(s.element_type) for s in self.shapes]
        self.inits = [em.value(i, ()) for i in op.operands[self.k:]]

    def store(self, at: Index, values: Sequence[ir.Value]) -> None:
        """Store one value of every output at index `at` (pred as a byte)."""
        b = self.b
        for out, shape, v in zip(self.outs, self.shapes, values, strict=True):
            if v.type == u.I1:
                v = b.zext(v, u.I8)
            ptr = b.gep(out, [linear_index(b, shape.dimensions, at)],
                        source_etype=u.storage_type(shape.element_type), inbounds=True)
            b.store(v, ptr)

    def load(self, at: Index) -> list[ir.Value]:
        """The outputs' values at index `at`, as `store` wrote them."""
        b, values = self.b, []
        for out, shape, ty in zip(self.outs, self.shapes, self.tys, strict=True):
            ptr = b.gep(out, [linear_index(b, shape.dimensions, at)],
                        source_etype=u.storage_type(shape.element_type), inbounds=True)
            v = b.load(ptr, typ=u.storage_type(shape.element_type))
            values.append(b.trunc(v, u.I1) if ty == u.I1 else v)
        return values


class _ScanEmitter(_Scan):
    """Emits one prefix scan kernel body: loops over the other dims, then the stream."""

    def __init__(self, em: ElementalEmitter, op: Instruction, outs: list[ir.Value]) -> None:
        super().__init__(em, op, outs)
        dims = self.dims
        self.n = dims[self.axis]
        self.levels = scan_levels(self.n, self.comp)
        assert self.base == 16, "levels are addressed by 4-bit digits of the index"
        minor = self.axis < len(dims) - 1
        self.lanes = min(dims[-1], SCAN_LANES) if minor else 1
        b = self.b
        with b.goto_block(b.function.entry_basic_block):
            self.acc = [self._state(f"scan.acc{level}") for level in range(len(self.levels))]
            self.carry = [self._state(f"scan.carry{level}") for level in range(len(self.levels) - 1)]

    def _state(self, name: str) -> list[ir.Value]:
        return [u.stack_buffer(self.b, ty, self.lanes, f"{name}.{j}")
                for j, ty in enumerate(self.tys)]

    def emit(self) -> None:
        dims = self.srcs[0].shape.dimensions
        outer = list(dims[: self.axis])
        if self.lanes == 1:
            loop_nest(self.b, outer + list(dims[self.axis + 1:]),
                      lambda i: self._block(tuple(i[: self.axis]), tuple(i[self.axis:]), None))
            return
        middle = list(dims[self.axis + 1: -1])
        blocks = -(-dims[-1] // self.lanes)

        def per_block(i: Index) -> None:
            start = self.b.mul(i[-1], u.i64(self.lanes))
            width = self._min(self.b.sub(u.i64(dims[-1]), start), u.i64(self.lanes))
            self._block(tuple(i[: self.axis]), (*i[self.axis: -1], start), width)

        loop_nest(self.b, [*outer, *middle, blocks], per_block)

    def _min(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.select(self.b.icmp_signed("<", x, y), x, y)

    def _lanes(self, width: ir.Value | None, body: Callable[[ir.Value], None]) -> None:
        """body(lane) for each lane of the block (lane 0 alone for a minor-axis scan)."""
        if width is None:
            body(u.i64(0))
            return
        with u.for_range(self.b, width, name="lane") as t:
            body(t)

    def _block(self, outer: Index, rest: Index, width: ir.Value | None) -> None:
        """Scan the axis at (outer, *, rest), lanes [rest[-1], rest[-1] + width)."""
        b = self.b
        if self.exclusive:
            self._lanes(width, lambda t: self._store(outer, u.i64(0), rest, t, self.inits))
        for level in range(len(self.levels) - 1):
            self._lanes(width, lambda t, level=level: self._set(self.carry[level], t, self.inits))
        with u.for_range(b, self.n, name="scan") as i:
            first = self._chunk_start(i, 0)
            self._lanes(width, lambda t: self._element(outer, i, rest, t, first))
            if len(self.levels) > 1:
                self._push_if_done(i, 1, width)

    def _chunk_start(self, i: ir.Value, level: int) -> ir.Value:
        """Whether the element of `level` that element i of level 0 reaches is the first
        of its chunk (of the whole level at the top)."""
        at = self.b.lshr(i, u.i64(4 * level)) if level else i
        if level < len(self.levels) - 1:
            at = self.b.and_(at, u.i64(self.base - 1))
        return self.b.icmp_unsigned("==", at, u.i64(0))

    def _element(self, outer: Index, i: ir.Value, rest: Index, t: ir.Value,
                 first: ir.Value) -> None:
        at = (*outer, i, *rest[:-1], self.b.add(rest[-1], t)) if rest else (*outer, i)
        values = [self.em.value(s, at) for s in self.srcs]
        result = self._step(0, t, first, values)
        out_i = self.b.add(i, u.i64(1)) if self.exclusive else i
        self._store(outer, out_i, rest, t, result)

    def _step(self, level: int, t: ir.Value, first: ir.Value,
              values: Sequence[ir.Value]) -> list[ir.Value]:
        """Fold `values` into `level`'s running chunk prefix; the level's output (the
        prefix combined with the carried value below the top)."""
        b = self.b
        prev = [b.select(first, init, self._get(acc, t, ty))
                for init, acc, ty in zip(self.inits, self.acc[level], self.tys, strict=True)]
        prefix = call_scalar(b, self.comp, [*prev, *values])
        self._set(self.acc[level], t, prefix)
        if level == len(self.levels) - 1:
            return prefix
        carried = [self._get(c, t, ty) for c, ty in zip(self.carry[level], self.tys, strict=True)]
        return call_scalar(b, self.comp, [*prefix, *carried])

    def _push_if_done(self, i: ir.Value, level: int, width: ir.Value | None) -> None:
        """When element i completes a chunk of level-1, its prefix enters `level`; what
        that level yields is the carried value of level-1's next chunk."""
        b = self.b
        span = 1 << (4 * level)
        done = b.icmp_unsigned("==", b.and_(i, u.i64(span - 1)), u.i64(span - 1))
        with b.if_then(done):
            first = self._chunk_start(i, level)

            def lane(t: ir.Value) -> None:
                below = [self._get(a, t, ty) for a, ty in zip(self.acc[level - 1], self.tys, strict=True)]
                self._set(self.carry[level - 1], t, self._step(level, t, first, below))

            self._lanes(width, lane)
            if level + 1 < len(self.levels):
                self._push_if_done(i, level + 1, width)

    def _get(self, state: ir.Value, t: ir.Value, ty: ir.Type) -> ir.Value:
        return self.b.load(self.b.gep(state, [t], source_etype=ty, inbounds=True), typ=ty)

    def _set(self, state: list[ir.Value], t: ir.Value, values: Sequence[ir.Value]) -> None:
        for s, v in zip(state, values, strict=True):
            self.b.store(v, self.b.gep(s, [t], source_etype=v.type, inbounds=True))

    def _store(self, outer: Index, i: ir.Value, rest: Index, t: ir.Value,
               values: Sequence[ir.Value]) -> None:
        self.store((*outer, i, *rest[:-1], self.b.add(rest[-1], t)) if rest else (*outer, i),
                   values)


class _SuffixEmitter(_Scan):
    """Emits one suffix scan kernel body: per line along the axis, level 0 in the output
    (read from the operand, then combined with the carried values), the levels above in
    stack buffers. Level l of m > SCAN_BASE elements: each chunk's outputs fold their
    window forward from the init (positions past m hold the init), the chunk's first
    one is its total, which level l + 1 scans; then every output of chunk c combines
    with level l + 1's value at c + 1 (the init for the last chunk). A level of at most
    SCAN_BASE elements is folded window by window, without padding."""

    def __init__(self, em: ElementalEmitter, op: Instruction, outs: list[ir.Value]) -> None:
        super().__init__(em, op, outs)
        self.sizes = chunk_levels(self.dims[self.axis])
        b = self.b
        with b.goto_block(b.function.entry_basic_block):
            self.levels = [[u.stack_buffer(b, ty, size, f"suffix{level}.{j}")
                            for j, ty in enumerate(self.tys)]
                           for level, size in enumerate(self.sizes[1:], 1)]
            self.acc = [u.stack_buffer(b, ty, 1, f"suffix.acc{j}") for j, ty in enumerate(self.tys)]

    def emit(self) -> None:
        rest = list(self.dims[: self.axis]) + list(self.dims[self.axis + 1:])
        loop_nest(self.b, rest, lambda i: self._line(tuple(i[: self.axis]), tuple(i[self.axis:])))

    def _line(self, outer: Index, rest: Index) -> None:
        self.line = (outer, rest)
        n = self.sizes[0]
        if self.exclusive:
            self._write(0, u.i64(n), self.inits)
        self._level(0)

    # -- the values of a level ------------------------------------------------------------
    def _at(self, i: ir.Value) -> Index:
        outer, rest = self.line
        return (*outer, i, *rest)

    def _read(self, level: int, i: ir.Value, source: bool = False) -> list[ir.Value]:
        """Element i of `level` (level 0: the operand when `source`, else the output)."""
        b = self.b
        if level == 0 and source:
            return [self.em.value(s, self._at(i)) for s in self.srcs]
        if level == 0:
            return self.load(self._at(i))
        return [b.load(b.gep(buf, [i], source_etype=ty, inbounds=True), typ=ty)
                for buf, ty in zip(self.levels[level - 1], self.tys, strict=True)]

    def _write(self, level: int, i: ir.Value, values: Sequence[ir.Value]) -> None:
        if level == 0:
            self.store(self._at(i), values)
            return
        for buf, v in zip(self.levels[level - 1], values, strict=True):
            self.b.store(v, self.b.gep(buf, [i], source_etype=v.type, inbounds=True))

    def _fold(self, values: Sequence[ir.Value]) -> None:
        acc = [self.b.load(a, typ=ty) for a, ty in zip(self.acc, self.tys, strict=True)]
        for a, v in zip(self.acc, call_scalar(self.b, self.comp, [*acc, *values]), strict=True):
            self.b.store(v, a)

    def _result(self) -> list[ir.Value]:
        return [self.b.load(a, typ=ty) for a, ty in zip(self.acc, self.tys, strict=True)]

    def _start(self) -> None:
        for a, v in zip(self.acc, self.inits, strict=True):
            self.b.store(v, a)

    # -- the levels -----------------------------------------------------------------------
    def _level(self, level: int) -> None:
        b, m = self.b, self.sizes[level]
        if level == len(self.sizes) - 1:
            with u.for_range(b, m, name=f"w{level}") as i:
                self._start()
                with u.for_range(b, b.sub(u.i64(m), i), name=f"wj{level}") as t:
                    self._fold(self._read(level, b.add(i, t), source=level == 0))
                self._write(level, i, self._result())
            return
        cols = self.sizes[level + 1]
        chunk = self._chunk_lanes if self._lane_op() is not None else self._chunk
        with u.for_range(b, cols, name=f"c{level}") as c:
            chunk(level, c)
        self._level(level + 1)
        with u.for_range(b, cols, name=f"k{level}") as c:
            nxt = b.add(c, u.i64(1))
            last = b.icmp_signed("<", nxt, u.i64(cols))
            above = self._read(level + 1, b.select(last, nxt, u.i64(cols - 1)))
            carried = [b.select(last, v, init) for v, init in zip(above, self.inits, strict=True)]
            first = b.mul(c, u.i64(self.base))
            with u.for_range(b, min(self.base, m), name=f"ki{level}") as i:
                at = b.add(first, i)
                with b.if_then(b.icmp_signed("<", at, u.i64(m))):
                    combined = call_scalar(b, self.comp, [*self._read(level, at), *carried])
                    self._write(level, at, combined)

    def _padded(self, level: int, p: ir.Value) -> list[ir.Value]:
        """Element p of `level`, or the init past its end (the last chunk's padding)."""
        b, m = self.b, self.sizes[level]
        inside = b.icmp_signed("<", p, u.i64(m))
        read = self._read(level, b.select(inside, p, u.i64(m - 1)), source=level == 0)
        return [b.select(inside, v, init) for v, init in zip(read, self.inits, strict=True)]

    def _chunk(self, level: int, c: ir.Value) -> None:
        """Chunk c of `level`: output i folds elements i .. SCAN_BASE-1 forward from the
        init; output 0 is also the chunk's total, element c of the level above."""
        b, m = self.b, self.sizes[level]
        first = b.mul(c, u.i64(self.base))
        with u.for_range(b, self.base, name=f"ci{level}") as i:
            self._start()
            with u.for_range(b, b.sub(u.i64(self.base), i), name=f"cj{level}") as t:
                self._fold(self._padded(level, b.add(first, b.add(i, t))))
            value = self._result()
            at = b.add(first, i)
            with b.if_then(b.icmp_signed("<", at, u.i64(m))):
                self._write(level, at, value)
            with b.if_then(b.icmp_unsigned("==", i, u.i64(0))):
                self._write(level + 1, c, value)

    def _lane_op(self) -> Opcode | None:
        """The add or multiply of a single-operand scan whose region is only that op on
        its parameters, of a type the lanes compute exactly as the scalar region (f32,
        f64, integers): `_chunk_lanes` then folds a chunk's outputs as vector lanes."""
        root, params = self.comp.root, self.comp.parameters
        t = self.shapes[0].element_type
        if self.k != 1 or root is None or root.opcode not in (O.ADD, O.MULTIPLY) or \
                len(self.comp.instructions) != 3 or \
                {id(o) for o in root.operands} != {id(q) for q in params}:
            return None
        return root.opcode if t in (P.F32, P.F64) or (t.is_integral and t is not P.PRED) \
            else None

    def _chunk_lanes(self, level: int, c: ir.Value) -> None:
        """`_chunk` with lane i of one vector holding output i: element j enters the lanes
        i <= j, so each lane folds its window forward from the init, the same bits."""
        b, m, n = self.b, self.sizes[level], self.base
        ty = self.tys[0]
        vty = ir.VectorType(ty, n)
        floats = ty in (ir.FloatType(), ir.DoubleType())
        combine = {(O.ADD, True): b.fadd, (O.ADD, False): b.add,
                   (O.MULTIPLY, True): b.fmul, (O.MULTIPLY, False): b.mul}[(self._lane_op(), floats)]
        first = b.mul(c, u.i64(n))
        acc = u.splat(b, self.inits[0], vty)
        for j in range(n):
            (x,) = self._padded(level, b.add(first, u.i64(j)))
            mask = ir.Constant(ir.VectorType(u.I1, n), [int(i <= j) for i in range(n)])
            acc = b.select(mask, combine(acc, u.splat(b, x, vty)), acc)
        with u.for_range(b, min(n, m), name=f"cl{level}") as i:
            at = b.add(first, i)
            with b.if_then(b.icmp_signed("<", at, u.i64(m))):
                self._write(level, at, [b.extract_element(acc, i)])
        self._write(level + 1, c, [b.extract_element(acc, u.i64(0))])


def emit_scan(em: ElementalEmitter, op: Instruction, outs: list[ir.Value]) -> None:
    """Store every output of the scan `op` (see the module docstring for the order)."""
    scan = scan_of(op)
    assert scan is not None
    (_SuffixEmitter if scan[1] else _ScanEmitter)(em, op, outs).emit()
