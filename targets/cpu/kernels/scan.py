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
Suffix scans (padding high) fold every window in row-major order in XLA, an order no
stream reproduces; they stay on the interpreter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import ElementalEmitter, Index, linear_index
from hlotool.targets.llvm.indexing import call_scalar, loop_nest, order_free

O = Opcode

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


def unsupported_scan(ins: Instruction) -> str | None:
    """Why this scan gets no scan kernel, or None."""
    scan = scan_of(ins)
    assert scan is not None
    return "suffix scan" if scan[1] else None


def scan_levels(n: int, comp: Computation) -> list[int]:
    """The element count of each level of XLA's tiled scan of `n` elements (one level
    for an order-free reducer or a scan of at most SCAN_BASE elements)."""
    from hlotool.interpreter.kernels.reduction import SCAN_BASE

    sizes = [n]
    if order_free(comp):
        return sizes
    while sizes[-1] > SCAN_BASE:
        sizes.append(-(-sizes[-1] // SCAN_BASE))
    return sizes


class _ScanEmitter:
    """Emits one scan kernel body: loops over the other dims, then the stream."""

    def __init__(self, em: ElementalEmitter, op: Instruction, outs: list[ir.Value]) -> None:
        from hlotool.interpreter.kernels.reduction import SCAN_BASE

        self.em, self.b, self.op, self.outs = em, em.b, op, outs
        self.k = op.operand_count // 2
        self.srcs = list(op.operands[: self.k])
        self.shapes = list(op.shape.tuple_shapes) if op.shape.is_tuple else [op.shape]
        self.axis, _, self.exclusive = scan_of(op) or (0, False, False)
        self.comp: Computation = op.attrs["to_apply"]
        dims = self.srcs[0].shape.dimensions
        self.n = dims[self.axis]
        self.levels = scan_levels(self.n, self.comp)
        assert SCAN_BASE == 16, "levels are addressed by 4-bit digits of the index"
        self.base = SCAN_BASE
        minor = self.axis < len(dims) - 1
        self.lanes = min(dims[-1], SCAN_LANES) if minor else 1
        self.tys = [u.value_type(s.element_type) for s in self.shapes]
        b = self.b
        with b.goto_block(b.function.entry_basic_block):
            self.acc = [self._state(f"scan.acc{level}") for level in range(len(self.levels))]
            self.carry = [self._state(f"scan.carry{level}") for level in range(len(self.levels) - 1)]
        self.inits = [em.value(i, ()) for i in op.operands[self.k:]]

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
        at = (*outer, i, *rest[:-1], self.b.add(rest[-1], t)) if rest else (*outer, i)
        for out, shape, v in zip(self.outs, self.shapes, values, strict=True):
            if v.type == u.I1:
                v = self.b.zext(v, u.I8)
            ptr = self.b.gep(out, [linear_index(self.b, shape.dimensions, at)],
                             source_etype=u.storage_type(shape.element_type), inbounds=True)
            self.b.store(v, ptr)


def emit_scan(em: ElementalEmitter, op: Instruction, outs: list[ir.Value]) -> None:
    """Store every output of the scan `op` (see the module docstring for the order)."""
    _ScanEmitter(em, op, outs).emit()
