"""Index arithmetic and the elemental indexing ops: gather, dynamic-slice and
reduce-window computed per output element (XLA's ElementalIrEmitter EmitElementalGather /
DynamicSlice / ReduceWindow), so they fuse into any target's loop kernels; plus the index
helpers the update kernels share (clamped start indices, window cells, row-major loop
nests, combiner regions emitted inline on scalars with `call_scalar`).

Semantics are the interpreter's (hlotool/interpreter/kernels/indexing.py and
reduction.py), which follow XLA:CPU:

* dynamic-slice clamps every start index to [0, dim - size];
* gather clamps each start index so the whole slice fits: [0, max(dim - size, 0)];
  operand batching dims start at the batch position of their start-indices dim;
* index values are read as i64; u64 indices beyond the int64 range saturate;
* reduce-window folds each window in row-major order from the init value, skipping
  padding and base-dilation holes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from typing import Any

from llvmlite import ir

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import ElementalEmitter, Index, unsupported_reason

O = Opcode
P = PrimitiveType

_INT64_MAX = (1 << 63) - 1


def is_int(t: PrimitiveType) -> bool:
    return t in u.NATIVE_TYPES and not u.is_float(t) and t is not P.PRED


def as_i64(b: ir.IRBuilder, v: ir.Value, t: PrimitiveType) -> ir.Value:
    """An integer index value as i64 (a u64 beyond the int64 range saturates)."""
    width = v.type.width
    if width < 64:
        return b.sext(v, u.I64) if u.is_signed(t) else b.zext(v, u.I64)
    if t is P.U64:
        return b.select(b.icmp_signed("<", v, u.i64(0)), u.i64(_INT64_MAX), v)
    return v


@functools.cache

def index_constant(k: int) -> ir.Constant:
    """One shared i64 constant per value, for index components: ElementalEmitter caches
    values by the ids of the index values, so a temporary constant that nothing keeps
    alive could be freed and its id reused by another index component."""
    return u.i64(k)


def clamp(b: ir.IRBuilder, x: ir.Value, lo: int, hi: int) -> ir.Value:
    """min(max(x, lo), hi) on i64."""
    x = b.select(b.icmp_signed("<", x, u.i64(lo)), u.i64(lo), x)
    return b.select(b.icmp_signed(">", x, u.i64(hi)), u.i64(hi), x)


def start_values(em: ElementalEmitter, operands: Sequence[Instruction],
                  rank: int) -> list[ir.Value]:
    """Start indices given as `rank` scalars or as one rank-1 vector, as i64."""
    if len(operands) == 1 and operands[0].shape.rank == 1:
        o = operands[0]
        t = o.shape.element_type
        return [as_i64(em.b, em.value(o, (index_constant(k),)), t) for k in range(rank)]
    return [as_i64(em.b, em.value(o, ()), o.shape.element_type) for o in operands]


def starts_ok(operands: Sequence[Instruction], rank: int) -> bool:
    if any(not is_int(o.shape.element_type) for o in operands):
        return False
    if len(operands) == 1 and operands[0].shape.rank == 1:
        return operands[0].shape.dimensions[0] == rank
    return len(operands) == rank and all(o.shape.rank == 0 for o in operands)


def unsupported_indexing(ins: Instruction) -> str | None:
    """Why the elemental emitter cannot compute this gather / dynamic-slice /
    reduce-window, or None."""
    if ins.opcode is O.REDUCE_WINDOW:
        return unsupported_reduce_window(ins)
    if ins.opcode is O.DYNAMIC_SLICE:
        ok = starts_ok(ins.operands[1:], ins.operand(0).shape.rank)
        return None if ok else "dynamic-slice start indices"
    if not is_int(ins.operand(1).shape.element_type):
        return "gather indices type"
    return None


def emit_indexed(em: ElementalEmitter, ins: Instruction, index: Index) -> ir.Value:
    """The value of a gather, dynamic-slice or reduce-window at `index`."""
    if ins.opcode is O.REDUCE_WINDOW:
        return _reduce_window(em, ins, index)
    if ins.opcode is O.DYNAMIC_SLICE:
        return _dynamic_slice(em, ins, index)
    return _gather(em, ins, index)


def _dynamic_slice(em: ElementalEmitter, ins: Instruction, index: Index) -> ir.Value:
    """operand[clamp(start) + index] (XLA's EmitElementalDynamicSlice)."""
    src = ins.operand(0)
    dims, sizes = src.shape.dimensions, ins.attrs["dynamic_slice_sizes"]
    starts = start_values(em, ins.operands[1:], src.shape.rank)
    b = em.b
    return em.value(src, tuple(b.add(clamp(b, s, 0, n - k), i)
                               for s, n, k, i in zip(starts, dims, sizes, index, strict=True)))


def index_starts(em: ElementalEmitter, indices: Instruction, to_operand: Sequence[int],
            batch: list[ir.Value], ivd: int) -> dict[int, ir.Value]:
    """Operand dim -> start index (i64, unclamped) read from the index vector at `batch`
    (gather's start_index_map, scatter's scatter_dims_to_operand_dims)."""
    t = indices.shape.element_type
    starts: dict[int, ir.Value] = {}
    for k, d in enumerate(to_operand):
        at = list(batch)
        if ivd < indices.shape.rank:
            at.insert(ivd, index_constant(k))
        starts[d] = as_i64(em.b, em.value(indices, tuple(at)), t)
    return starts


@dataclass(frozen=True, slots=True)
class ScatterGeometry:
    """Where a scatter's update elements land: XLA's ScatterLoopEmitter loops over the
    scatter dims of the updates (`scatter_dims`), then over their window dims (`uwd`)."""

    op: Instruction
    dims: tuple[int, ...]
    udims: tuple[int, ...]
    uwd: list[int]
    scatter_dims: list[int]
    window_dims: list[int]
    sizes: list[int]

    @classmethod
    def of(cls, op: Instruction) -> ScatterGeometry:
        a = op.attrs
        n = op.operand_count // 2
        dims = op.operand(0).shape.dimensions
        udims = op.operand(n + 1).shape.dimensions
        uwd = list(a["update_window_dims"])
        batching = list(a.get("input_batching_dims", ()))
        window_dims = [d for d in range(len(dims))
                       if d not in a["inserted_window_dims"] and d not in batching]
        sizes = [1] * len(dims)
        for d, w in zip(window_dims, uwd, strict=True):
            sizes[d] = udims[w]
        return cls(op, tuple(dims), tuple(udims), uwd,
                   [d for d in range(len(udims)) if d not in uwd], window_dims, sizes)

    def starts(self, em: ElementalEmitter, batch: Index) -> dict[int, ir.Value]:
        """Start index (i64, unclamped) of every operand dim that has one."""
        a = self.op.attrs
        indices = self.op.operand(self.op.operand_count // 2)
        ivd = a["index_vector_dim"]
        starts = index_starts(em, indices, a["scatter_dims_to_operand_dims"], list(batch), ivd)
        for d, idim in zip(a.get("input_batching_dims", ()),
                           a.get("scatter_indices_batching_dims", ()), strict=True):
            starts[d] = batch[idim if idim < ivd else idim - 1]
        return starts

    def fits(self, b: ir.IRBuilder, starts: dict[int, ir.Value]) -> ir.Value:
        """i1: the whole window at `starts` lies inside the operand (else XLA skips it)."""
        ok: ir.Value = ir.Constant(u.I1, 1)
        for d, s in starts.items():
            ok = b.and_(ok, b.and_(b.icmp_signed(">=", s, u.i64(0)),
                                   b.icmp_signed("<=", s, u.i64(self.dims[d] - self.sizes[d]))))
        return ok

    def positions(self, b: ir.IRBuilder, batch: Index, starts: dict[int, ir.Value],
                  w: Index) -> tuple[tuple[ir.Value, ...], tuple[ir.Value, ...]]:
        """(index into the updates, index into the operand) of window element `w`."""
        at: list[ir.Value] = [u.i64(0)] * len(self.udims)
        for k, d in enumerate(self.scatter_dims):
            at[d] = batch[k]
        for k, d in enumerate(self.uwd):
            at[d] = w[k]
        target: list[ir.Value] = []
        for d in range(len(self.dims)):
            v = starts.get(d, index_constant(0))
            if d in self.window_dims:
                v = b.add(v, w[self.window_dims.index(d)])
            target.append(v)
        return tuple(at), tuple(target)

    def loop(self, b: ir.IRBuilder, em: ElementalEmitter,
             per_element: Callable[[Index, Index], None]) -> None:
        """Per scatter index in order, per element of its window if it fits:
        per_element(update index, operand index)."""
        def per_index(batch: Index) -> None:
            starts = self.starts(em, batch)
            with b.if_then(self.fits(b, starts)):
                loop_nest(b, [self.udims[w] for w in self.uwd],
                          lambda w: per_element(*self.positions(b, batch, starts, w)), name="w")

        loop_nest(b, [self.udims[d] for d in self.scatter_dims], per_index, name="s")


def _gather(em: ElementalEmitter, ins: Instruction, index: Index) -> ir.Value:
    """operand[clamped start + window offset] (XLA's EmitElementalGather)."""
    a, b = ins.attrs, em.b
    operand, indices = ins.operand(0), ins.operand(1)
    dims, sizes = operand.shape.dimensions, a["slice_sizes"]
    offset_dims = list(a["offset_dims"])
    operand_batching = list(a.get("operand_batching_dims", ()))
    window_dims = [d for d in range(len(dims))
                   if d not in a["collapsed_slice_dims"] and d not in operand_batching]
    batch = [index[o] for o in range(ins.shape.rank) if o not in offset_dims]
    starts = index_starts(em, indices, a["start_index_map"], batch, a["index_vector_dim"])
    for d in list(starts):
        starts[d] = clamp(b, starts[d], 0, max(dims[d] - sizes[d], 0))
    ivd = a["index_vector_dim"]
    for d, idim in zip(operand_batching, a.get("start_indices_batching_dims", ()), strict=True):
        starts[d] = batch[idim if idim < ivd else idim - 1]
    out: list[ir.Value] = []
    for d in range(len(dims)):
        v = starts.get(d, index_constant(0))
        if d in window_dims:
            w = index[offset_dims[window_dims.index(d)]]
            v = w if d not in starts else b.add(v, w)
        out.append(v)
    return em.value(operand, tuple(out))


def unsupported_reduce_window(ins: Instruction) -> str | None:
    """Why the elemental emitter cannot compute this reduce-window, or None.

    The kernel folds each window in row-major order from the init value, skipping padding
    and dilation holes (the interpreter's and XLA's order). The interpreter evaluates a
    prefix/suffix scan of an order-dependent reducer (float add/multiply, regions) as
    XLA's rewritten tiled scan instead, so the elemental emitter leaves those windows to
    a target's scan kernel (the CPU target's `kernels/scan.py`) or the interpreter."""
    from hlotool.interpreter.kernels.reduction import _scan_axis, _window_dims

    if ins.operand_count != 2:
        return "variadic reduce-window"
    src = ins.operand(0).shape
    dims = _window_dims(ins.attrs.get("window"), src.rank)
    if any(d.window_reversal for d in dims):
        return "window reversal"
    comp: Computation = ins.attrs["to_apply"]
    reason = unsupported_combiner(comp, [ins.shape.element_type])
    if reason:
        return reason
    if _scan_axis(dims, src.dimensions) is not None and not order_free(comp):
        return "scan with an order-dependent reducer"
    return None

_ORDER_FREE_OPS = frozenset({O.ADD, O.MULTIPLY, O.MAXIMUM, O.MINIMUM, O.AND, O.OR, O.XOR})


def order_free(comp: Computation) -> bool:
    """A reducer that is one commutative, associative op of its two parameters (float,
    f16/bf16 and complex add/multiply excluded: they round differently in another order)."""
    root, params = comp.root, comp.parameters
    if root is None or root.opcode not in _ORDER_FREE_OPS or len(comp.instructions) != 3:
        return False
    if {id(o) for o in root.operands} != {id(p) for p in params} or len(params) != 2:
        return False
    t = root.shape.element_type
    if u.is_complex(t):
        return False
    return not (u.is_float(t) or u.is_narrow(t)) or root.opcode in (O.MAXIMUM, O.MINIMUM)


def _reduce_window(em: ElementalEmitter, ins: Instruction, index: Index) -> ir.Value:
    """Fold the window of output `index` (XLA's EmitElementalReduceWindow)."""
    from hlotool.interpreter.kernels.reduction import _window_dims

    b = em.b
    src = ins.operand(0)
    dims = _window_dims(ins.attrs.get("window"), src.shape.rank)
    ty = u.value_type(ins.shape.element_type)
    with b.goto_block(b.function.entry_basic_block):
        acc = b.alloca(ty, name="rw.acc")
    b.store(em.value(ins.operand(1), ()), acc)
    inner = ElementalEmitter(b, em.inputs)
    comp: Computation = ins.attrs["to_apply"]

    def body(k: Index) -> None:
        valid, at = window_element(b, dims, index, k, src.shape.dimensions)
        old = b.load(acc, typ=ty)
        new, = call_scalar(b, comp, [old, inner.value(src, at)])
        b.store(b.select(valid, new, old), acc)

    loop_nest(b, [w.size for w in dims], body, name="rw")
    return b.load(acc, typ=ty)


def window_element(b: ir.IRBuilder, dims: Sequence[Any], out: Index, k: Index,
                   shape: Sequence[int]) -> tuple[ir.Value, Index]:
    """(whether window cell `k` of output `out` is an operand element rather than padding
    or a dilation hole, its operand index (0 where it is not))."""
    valid: ir.Value = ir.Constant(u.I1, 1)
    at: list[ir.Value] = []
    for w, o, kk, n in zip(dims, out, k, shape, strict=True):
        q = b.sub(b.add(b.mul(o, u.i64(w.stride)), b.mul(kk, u.i64(w.window_dilation))),
                  u.i64(w.padding_low))
        pos = b.sdiv(q, u.i64(w.base_dilation)) if w.base_dilation > 1 else q
        ok = b.and_(b.icmp_signed(">=", q, u.i64(0)), b.icmp_signed("<", pos, u.i64(n)))
        if w.base_dilation > 1:
            ok = b.and_(ok, b.icmp_signed("==", b.srem(q, u.i64(w.base_dilation)), u.i64(0)))
        valid = b.and_(valid, ok)
        at.append(b.select(ok, pos, u.i64(0)))
    return valid, tuple(at)


def unsupported_combiner(comp: Computation, types: list[PrimitiveType]) -> str | None:
    """Why the scatter combiner cannot be emitted on scalars, or None."""
    params = sorted(comp.parameters, key=lambda p: p.parameter_number)
    if len(params) != 2 * len(types) or any(
            not p.shape.is_array or p.shape.rank != 0 or p.shape.element_type is not t
            for p, t in zip(params, types + types, strict=False)):
        return "scatter combiner parameters"
    root = comp.root
    assert root is not None
    for ins in comp.instructions:
        if ins.opcode is O.PARAMETER or (ins is root and ins.opcode is O.TUPLE):
            continue
        reason = unsupported_reason(ins)
        if reason or ins.shape.rank != 0 or ins.called_computations:
            return f"scatter combiner: {reason or ins.opcode.value}"
    return None


def loop_nest(b: ir.IRBuilder, dims: Sequence[int], body: Callable[[Index], None],
               index: tuple[ir.Value, ...] = (), name: str = "d") -> None:
    """Row-major loops over `dims`; body(index) innermost."""
    if len(index) == len(dims):
        body(index)
        return
    with u.for_range(b, dims[len(index)], name=f"{name}{len(index)}") as i:
        loop_nest(b, dims, body, (*index, i), name)


class _RegionEmitter(ElementalEmitter):
    """An elemental emitter whose parameters are given scalar values."""

    def __init__(self, builder: ir.IRBuilder, params: dict[int, ir.Value]) -> None:
        super().__init__(builder, {})
        self.params = params

    def _emit(self, ins: Instruction, index: Index) -> ir.Value:
        value = self.params.get(id(ins))
        return value if value is not None else super()._emit(ins, index)


def call_scalar(b: ir.IRBuilder, comp: Computation, args: Sequence[ir.Value]) -> list[ir.Value]:
    """The results of a scalar computation (a combiner region) applied to `args`,
    emitted inline with the elemental emitter."""
    em = _RegionEmitter(b, {id(p): args[p.parameter_number] for p in comp.parameters})
    root = comp.root
    assert root is not None
    roots = list(root.operands) if root.opcode is O.TUPLE else [root]
    return [em.value(r, ()) for r in roots]
