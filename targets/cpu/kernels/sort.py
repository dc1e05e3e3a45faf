"""Sort kernels: XLA's `sort` (one or more operands, any comparator) as one LLVM function.

The result is the reference interpreter's (hlotool/interpreter/kernels/sort.py) bit for
bit, because the kernel follows the interpreter's two strategies:

* Key mode. When the comparator is `key(l) LT|GT key(r)`, or JAX's lexicographic chain of
  those (the interpreter's `key_terms`), every element's keys are computed once and
  mapped to order-preserving unsigned integers as `order_key` maps them; a row's
  (keys, index) records are then sorted stably: LSD radix sort, one byte per pass, for
  rows of RADIX_MIN or more, else merge sort (insertion-sorted runs of RUN, then
  branch-free merges); TopK's first k of a long row are selected by insertion. A stable
  sort by the same keys has exactly one result: the interpreter's
  `np.argsort(kind="stable")` / `np.lexsort` one.
* General mode. Any other comparator, or keys compared as FLOAT when some key value of
  the array is NaN (the interpreter then leaves its key path for the whole array): the
  interpreter's bottom-up merge sort whose merges place every element by a binary search
  in the other run, replayed step by step with the comparator emitted as a scalar
  function. Comparators that are not strict weak orders therefore give the interpreter's
  permutation too, except where its merge puts two elements on one place (there numpy
  leaves uninitialized memory, which no kernel can reproduce).

A sort without `is_stable=true` then reorders each row as XLA:CPU's std::sort leaves it:
the stable order gives every element its tie rank (equal keys, or neither element less
under the comparator, share one), and libstdc++'s introsort (`introsort.py`) sorts the
(rank, index) pairs as the interpreter's `introsort` module does.

Then every operand is gathered through the row's permutation into its output.
XLA counterpart: XLA:CPU's sort thunk (`xla/backends/cpu/runtime/sort_thunk.cc`), which
runs std::stable_sort (or std::sort) over the compiled comparator.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from llvmlite import ir

from hlotool.interpreter.core import Value
from hlotool.interpreter.kernels.sort import key_terms
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.targets.cpu.kernels.introsort import std_sort_function
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import ElementalEmitter, Index, unsupported_reason

O = Opcode
P = PrimitiveType

#: Length of the runs sorted by insertion before the merge passes (key mode).
RUN = 16
#: Rows at least this long are sorted by LSD radix sort (one byte per pass), shorter
#: ones by merge sort.
RADIX_MIN = 64
_RADIX = 256
#: TopK rows keeping at most this many records (and a quarter of the row or less) are
#: selected by insertion into a sorted prefix instead of sorted.
SELECT_MAX = 32
#: Width in bytes of the row index stored with every key record.
_INDEX_BYTES = 4
#: Element types of sort operands (f16 and bf16 keys are ordered on their bits).
SORT_TYPES = u.NATIVE_TYPES | u.NARROW_FLOATS


@dataclass(frozen=True, slots=True)
class KeyTerm:
    """One term of a key comparator: `key(lhs) LT|GT key(rhs)`."""

    #: The key expression over the lhs parameters (0, 2, 4, ...).
    expr: Instruction
    descending: bool
    #: The compare's type attribute (inferred from the operand type when absent).
    compare_type: str

    @property
    def key_type(self) -> PrimitiveType:
        return self.expr.shape.element_type

    @property
    def bits(self) -> int:
        """Width of the ordered key (the key value's width; 8 for pred)."""
        t = self.key_type
        return 8 if t is P.PRED else t.bits

    @property
    def nan_breaks(self) -> bool:
        """A NaN among this term's key values sends the interpreter to its general path."""
        return _floating(self.key_type) and self.compare_type != "TOTALORDER"


@dataclass(slots=True)
class SortPlan:
    """A sort (or XLA:CPU's TopK custom call: a sort of (values, iota) keeping the first
    k of every row) computed natively.

    Entry `void symbol(void **buffers)`: the operands (in operand order; for TopK the
    values, then the s32 iota along the last dim, a constant buffer the thunk owns), then
    the outputs (one per operand, in the result tuple's order), then one scratch buffer of
    `scratch_bytes` bytes (8-byte aligned, any contents; the thunk owns it, and a kernel
    runs on one thread, so calls must not share it concurrently). Buffers are row-major. An
    output must NOT alias an input: each output row is gathered from its input row
    through the permutation while it is written, so an output buffer that is also an
    input buffer gives wrong results.
    """

    name: str
    #: The sort or TopK custom-call instruction.
    sort: Instruction
    #: The sorted dimension.
    axis: int
    #: Key mode's terms, or None: the comparator has no key form (general mode only).
    terms: list[KeyTerm] | None
    comparator: Computation
    #: Output length along the axis (TopK's k; the row length for a sort).
    keep: int
    #: TopK: the comparator's operand 1 is the s32 iota along the axis.
    iota: bool = False
    #: Ties keep their order (`is_stable=true`, TopK); else std::sort's order (XLA:CPU).
    stable: bool = True

    @property
    def inputs(self) -> list[Instruction]:
        return list(self.sort.operands)

    @property
    def types(self) -> list[PrimitiveType]:
        """Element types of the sorted operands (those of the buffers, iota included)."""
        ts = [o.shape.element_type for o in self.sort.operands]
        return [*ts, P.S32] if self.iota else ts

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.sort.operand(0).shape.dimensions)

    @property
    def geometry(self) -> tuple[int, int, int]:
        """(rows before the axis, row length, elements after the axis = row stride)."""
        d = self.dims
        return math.prod(d[:self.axis]), d[self.axis], math.prod(d[self.axis + 1:])

    @property
    def general(self) -> bool:
        """Whether the kernel contains the general-mode path."""
        return self.terms is None or any(t.nan_breaks for t in self.terms)

    @property
    def scratch_bytes(self) -> int:
        n = self.geometry[1]
        size = 0
        if self.terms is not None:
            size = 2 * _records(self.terms, n).buffer_bytes
            if n >= RADIX_MIN:
                size += 4 * _RADIX * sum(t.bits // 8 for t in self.terms)
        size = max(size, 16 * n if self.general else 0)
        return size if self.stable else size + 8 * n

    @property
    def tie_offset(self) -> int:
        """Scratch offset of the unstable step's i32 rank and index arrays."""
        return self.scratch_bytes - 8 * self.geometry[1]

    def emit(self, module: ir.Module, symbol: str, *, x86: bool) -> None:
        from hlotool.targets.cpu.kernels.loop import emit_entry

        k = len(self.types)
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR] * (2 * k + 1)),
                         name=f"{symbol}.body")
        _internal(fn, "noinline")
        for arg in fn.args:
            arg.add_attribute("noalias")
        _emit_body(fn, self, symbol)
        emit_entry(module, symbol, fn, x86)

    def make_thunk(self, ins: Instruction, library: Any, symbol: str) -> SortThunk:
        return SortThunk(self, library.get_function(symbol))


class SortThunk:
    """One native sort call: operand arrays in, fresh sorted arrays out."""

    def __init__(self, plan: SortPlan, fn: Callable[[Any], None]) -> None:
        self.fn = fn
        self.multi = plan.sort.shape.is_tuple
        self.specs = [(tuple(o.shape.dimensions), o.shape.element_type.numpy_dtype)
                      for o in plan.inputs]
        results = plan.sort.shape.tuple_shapes if self.multi else (plan.sort.shape,)
        self.out_specs = [(tuple(r.dimensions), r.element_type.numpy_dtype) for r in results]
        #: Buffers the thunk owns: TopK's iota, the scratch.
        self.owned = [np.empty(max(plan.scratch_bytes, 8), np.uint8)]
        if plan.iota:
            dims = plan.dims
            line = np.arange(dims[plan.axis], dtype=np.int32)
            self.owned.insert(0, np.ascontiguousarray(np.broadcast_to(line, dims)))
        self.k = k = len(plan.types)
        self.args = (ctypes.c_void_p * (2 * k + 1))()
        self.args[2 * k] = self.owned[-1].ctypes.data
        if plan.iota:
            self.args[k - 1] = self.owned[0].ctypes.data

    def inputs(self, operands: list[Value], env: dict[int, Value]) -> list[Value]:
        return operands

    def native_args(self) -> list[tuple[Any, ...]]:
        """The entry's buffers for the arena runtime (`schedule.NativeArgs`)."""
        args: list[tuple[Any, ...]] = [("operand", i, ()) for i in range(len(self.specs))]
        if len(self.owned) > 1:
            args.append(("address", self.owned[0].ctypes.data))
        args += [("output", (i,) if self.multi else ()) for i in range(len(self.out_specs))]
        args.append(("address", self.owned[-1].ctypes.data))
        return args

    def accepts(self, values: list[Value]) -> bool:
        return all(isinstance(v, np.ndarray | np.generic) and np.shape(v) == dims
                   for v, (dims, _) in zip(values, self.specs, strict=True))

    def __call__(self, values: list[Value]) -> Value:
        keep = [np.ascontiguousarray(v, dtype=dt)
                for v, (_, dt) in zip(values, self.specs, strict=True)]
        outs = [np.empty(dims, dt) for dims, dt in self.out_specs]
        for i, a in enumerate(keep):
            self.args[i] = a.ctypes.data
        for i, a in enumerate(outs):
            self.args[self.k + i] = a.ctypes.data
        self.fn(self.args)
        return tuple(outs) if self.multi else outs[0]


# -- planning ------------------------------------------------------------------------------


def plan_sort(ins: Instruction, name: str) -> tuple[SortPlan | None, str]:
    """The kernel for a sort instruction, or (None, why not)."""
    ops = list(ins.operands)
    dims = ops[0].shape.dimensions if ops and ops[0].shape.is_array else None
    for o in ops:
        s = o.shape
        if not s.is_array or s.is_dynamic or s.element_type not in SORT_TYPES or \
                s.dimensions != dims:
            return None, f"sort operand {s}"
    assert dims is not None
    axis = ins.attrs["dimensions"][0] if ins.attrs.get("dimensions") else len(dims) - 1
    axis = axis + len(dims) if axis < 0 else axis
    if not 0 <= axis < max(len(dims), 1):
        return None, "sort dimension"
    if dims[axis] >= 1 << 31:
        return None, "sort row of 2**31 elements or more"
    comp: Computation = ins.attrs["to_apply"]
    reason = unsupported_comparator(comp, len(ops))
    if reason:
        return None, reason
    return SortPlan(name, ins, axis, _terms(comp), comp, dims[axis],
                    stable=bool(ins.attrs.get("is_stable"))), ""


def plan_topk(ins: Instruction, name: str) -> tuple[SortPlan | None, str]:
    """XLA:CPU's `custom-call TopK` (values -> (top k values, s32 indices) along the last
    dim under its comparator of (value, index) pairs) or the `topk` op (the natural
    order: TOTALORDER for floats), or (None, why not)."""
    if ins.operand_count != 1 or not ins.shape.is_tuple:
        return None, "TopK signature"
    s = ins.operand(0).shape
    if ins.opcode is O.TOPK:
        comps: Sequence[Computation] = ()
        if s.is_array and s.element_type in SORT_TYPES:
            comps = (_natural_comparator(s.element_type, ins.attrs.get("largest", True)),)
    else:
        comps = ins.attrs.get("called_computations") or ()
    if len(comps) != 1:
        return None, "TopK comparator"
    results = ins.shape.tuple_shapes
    if not s.is_array or s.is_dynamic or s.rank < 1 or s.element_type not in SORT_TYPES or \
            len(results) != 2 or results[1].element_type is not P.S32:
        return None, f"TopK operand {s}"
    k = results[0].dimensions[-1]
    if any(r.dimensions != (*s.dimensions[:-1], k) for r in results) or \
            k > s.dimensions[-1] or s.dimensions[-1] >= 1 << 31:
        return None, "TopK result shapes"
    reason = unsupported_comparator(comps[0], 2)
    if reason:
        return None, reason
    return SortPlan(name, ins, s.rank - 1, _terms(comps[0]), comps[0], k, iota=True), ""


def _natural_comparator(t: PrimitiveType, largest: bool) -> Computation:
    """The (value, index) comparator of `topk`: the interpreter orders by `order_key` in
    the natural compare type of the values (descending when `largest`)."""
    comp = Computation("topk.compare")
    params = [comp.add_instruction(Instruction(f"p{i}", O.PARAMETER, Shape.scalar(ty),
                                               parameter_number=i))
              for i, ty in enumerate((t, t, P.S32, P.S32))]
    ctype = "TOTALORDER" if t.is_float else "SIGNED" if u.is_signed(t) else "UNSIGNED"
    attrs = {"direction": "GT" if largest else "LT", "type": ctype}
    root = comp.add_instruction(Instruction("less", O.COMPARE, Shape.scalar(P.PRED), attrs=attrs))
    root.set_operands(params[:2])
    comp.root = root
    return comp


def _terms(comp: Computation) -> list[KeyTerm] | None:
    assert comp.root is not None
    found = key_terms(comp.root)
    return None if found is None else [KeyTerm(*term) for term in found]


def unsupported_comparator(comp: Computation, operands: int) -> str:
    """Why `comp` cannot be emitted as a scalar comparator of `operands` operands
    ("" when it can)."""
    root = comp.root
    if root is None or root.shape != Shape.scalar(P.PRED) or comp.num_parameters != 2 * operands:
        return "comparator signature"
    for f in comp.instructions:
        if not f.shape.is_array or f.shape.rank != 0:
            return f"comparator {f.name}: not a scalar"
        if f.opcode is O.PARAMETER:
            if f.shape.element_type not in SORT_TYPES:
                return f"comparator parameter {f.shape}"
            continue
        reason = unsupported_reason(f)
        if reason:
            return f"comparator {f.name}: {reason}"
    return ""


# -- scalar functions of the comparator ----------------------------------------------------


class ScalarEmitter(ElementalEmitter):
    """The elemental emitter over a scalar computation (a comparator, a reducer region)
    whose parameters are given values."""

    def __init__(self, builder: ir.IRBuilder, params: dict[int, ir.Value]) -> None:
        super().__init__(builder, {})
        self.params = params

    def _emit(self, ins: Instruction, index: Index) -> ir.Value:
        v = self.params.get(id(ins))
        return v if v is not None else super()._emit(ins, index)


def _scalar_function(module: ir.Module, name: str, root: Instruction,
                     params: Sequence[Instruction]) -> ir.Function:
    """`root` as an internal function of the values of `params` (emitted once per name)."""
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    ty = ir.FunctionType(u.value_type(root.shape.element_type),
                         [u.value_type(p.shape.element_type) for p in params])
    fn = ir.Function(module, ty, name=name)
    _internal(fn, "alwaysinline")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    emitter = ScalarEmitter(b, {id(p): a for p, a in zip(params, fn.args, strict=True)})
    b.ret(emitter.value(root, ()))
    return fn


def _internal(fn: ir.Function, inline: str) -> None:
    fn.linkage = "internal"
    fn.attributes.add(inline)
    fn.attributes.add("nounwind")


def ordered_parameters(comp: Computation) -> list[Instruction]:
    """A computation's parameters by parameter number."""
    return sorted(comp.parameters, key=lambda p: p.parameter_number)


# -- order-preserving keys (the interpreter's order_key) --------------------------------------


def ordered_key(b: ir.IRBuilder, v: ir.Value, term: KeyTerm) -> ir.Value:
    """The unsigned integer (term.bits wide) whose order is the term's order of `v`."""
    t = term.key_type
    if t is P.PRED:
        key = b.zext(v, u.I8)
    elif _floating(t):
        key = _float_key(b, v, t.bits, zero_canonical=term.compare_type != "TOTALORDER")
    elif u.is_signed(t) and term.compare_type != "UNSIGNED":
        key = b.xor(v, ir.Constant(v.type, 1 << (t.bits - 1)))
    else:
        key = v
    return b.not_(key) if term.descending else key


def _floating(t: PrimitiveType) -> bool:
    return u.is_float(t) or u.is_narrow(t)


def _is_nan(b: ir.IRBuilder, v: ir.Value, t: PrimitiveType) -> ir.Value:
    """Whether the float value v (bf16: its i16 bits) is NaN."""
    if t is not P.BF16:
        return b.fcmp_unordered("uno", v, v)
    magnitude = b.and_(v, ir.Constant(u.I16, 0x7FFF))
    return b.icmp_unsigned(">", magnitude, ir.Constant(u.I16, 0x7F80))


def _float_key(b: ir.IRBuilder, v: ir.Value, bits: int, *, zero_canonical: bool) -> ir.Value:
    """XLA's TOTALORDER on the bits (negatives' magnitude flipped) with the sign flipped
    to an unsigned order; with `zero_canonical`, -0 is +0 (IEEE order, no NaN).

    -0 is replaced in key space: a bit test for +-0 on the float would be folded by LLVM
    into `fcmp oeq 0.0`, which under DAZ also holds for denormals (the interpreter's key
    path keeps denormals apart from zero)."""
    ity = ir.IntType(bits)
    half = 1 << (bits - 1)
    k = v if v.type == ity else b.bitcast(v, ity)
    flipped = b.xor(k, ir.Constant(ity, half - 1))
    key = b.xor(b.select(b.icmp_signed("<", k, ir.Constant(ity, 0)), flipped, k),
                ir.Constant(ity, half))
    if not zero_canonical:
        return key
    minus_zero = b.icmp_unsigned("==", key, ir.Constant(ity, half - 1))
    return b.select(minus_zero, ir.Constant(ity, half), key)


# -- key records: (keys..., row index) as arrays in a scratch buffer --------------------------


@dataclass(frozen=True, slots=True)
class _Records:
    """Layout of n records (one array per key term, then the i32 index array), arrays
    ordered by decreasing width so that each is aligned."""

    #: LLVM type of each field (terms in order, then the index).
    types: tuple[ir.IntType, ...]
    #: Byte offset of each field's array.
    offsets: tuple[int, ...]
    buffer_bytes: int

    def fields(self, b: ir.IRBuilder, base: ir.Value) -> list[ir.Value]:
        return [b.gep(base, [u.i64(off)], source_etype=u.I8) for off in self.offsets]

    def load(self, b: ir.IRBuilder, fields: list[ir.Value], i: ir.Value) -> list[ir.Value]:
        return [b.load(b.gep(f, [i], source_etype=t), typ=t)
                for f, t in zip(fields, self.types, strict=True)]

    def store(self, b: ir.IRBuilder, fields: list[ir.Value], i: ir.Value,
              values: Sequence[ir.Value]) -> None:
        for f, t, v in zip(fields, self.types, values, strict=True):
            b.store(v, b.gep(f, [i], source_etype=t))


def _records(terms: list[KeyTerm] | None, n: int) -> _Records:
    widths = [t.bits for t in terms or []] + [8 * _INDEX_BYTES]
    order = sorted(range(len(widths)), key=lambda k: -widths[k])
    offsets = [0] * len(widths)
    at = 0
    for k in order:
        offsets[k] = at
        at += n * widths[k] // 8
    return _Records(tuple(ir.IntType(w) for w in widths), tuple(offsets), -(-at // 8) * 8)


def _lex_less(b: ir.IRBuilder, a: Sequence[ir.Value], c: Sequence[ir.Value]) -> ir.Value:
    """Lexicographic unsigned a < c over the key fields."""
    res = b.icmp_unsigned("<", a[-1], c[-1])
    for x, y in zip(reversed(a[:-1]), reversed(c[:-1]), strict=True):
        res = b.or_(b.icmp_unsigned("<", x, y), b.and_(b.icmp_unsigned("==", x, y), res))
    return res


# -- loops ---------------------------------------------------------------------------------


def _while(b: ir.IRBuilder, init: Sequence[ir.Value],
           cond: Callable[[list[ir.Value]], ir.Value],
           body: Callable[[list[ir.Value]], Sequence[ir.Value]]) -> list[ir.Value]:
    """`while cond(state): state = body(state)` over loop-carried values; the final state."""
    pre = b.block
    head = b.append_basic_block("w.head")
    loop = b.append_basic_block("w.body")
    end = b.append_basic_block("w.end")
    b.branch(head)
    b.position_at_end(head)
    phis = [b.phi(v.type) for v in init]
    for p, v in zip(phis, init, strict=True):
        p.add_incoming(v, pre)
    b.cbranch(cond(list(phis)), loop, end)
    b.position_at_end(loop)
    nxt = body(list(phis))
    for p, v in zip(phis, nxt, strict=True):
        p.add_incoming(v, b.block)
    b.branch(head)
    b.position_at_end(end)
    return list(phis)


def _entry_alloca(b: ir.IRBuilder, ty: ir.Type) -> ir.AllocaInstr:
    """A stack slot at the start of the function (promoted to registers by mem2reg)."""
    here = b.block
    b.position_at_start(here.function.entry_basic_block)
    slot = b.alloca(ty)
    b.position_at_end(here)
    return slot


def _min(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


# -- the kernel ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Row:
    """Values every row function gets: operand and output pointers, scratch, row starts."""

    ops: list[ir.Value]
    outs: list[ir.Value]
    scratch: ir.Value
    #: Offsets of the row's first element in the operands and in the outputs.
    base: ir.Value
    out_base: ir.Value


def _emit_body(fn: ir.Function, plan: SortPlan, symbol: str) -> None:
    module = fn.module
    k = len(plan.types)
    outer, n, inner = plan.geometry
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    rows: list[ir.Function] = []
    if plan.terms is not None:
        rows.append(_key_row_function(module, plan, symbol))
    if plan.general:
        rows.append(_general_row_function(module, plan, symbol))
    general = ir.Constant(u.I1, plan.terms is None)
    if plan.terms is not None and plan.general:
        general = _any_nan_key(b, plan, fn.args[:k], symbol)
    with u.for_range(b, outer, name="o") as o, u.for_range(b, inner, name="in") as i:
        base = b.add(b.mul(o, u.i64(n * inner)), i)
        out_base = b.add(b.mul(o, u.i64(plan.keep * inner)), i)
        args = [*fn.args, base, out_base]
        if len(rows) == 1:
            b.call(rows[0], args)
        else:
            with b.if_else(general) as (then, otherwise):
                with then:
                    b.call(rows[1], args)
                with otherwise:
                    b.call(rows[0], args)
    b.ret_void()


def _row_function(module: ir.Module, name: str, k: int) -> tuple[ir.Function, ir.IRBuilder, _Row]:
    ty = ir.FunctionType(ir.VoidType(), [u.PTR] * (2 * k + 1) + [u.I64, u.I64])
    fn = ir.Function(module, ty, name=name)
    _internal(fn, "noinline")
    for arg in fn.args[:-2]:
        arg.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    a = list(fn.args)
    return fn, b, _Row(a[:k], a[k:2 * k], a[2 * k], a[2 * k + 1], a[2 * k + 2])


def _element(b: ir.IRBuilder, ptr: ir.Value, t: PrimitiveType, at: ir.Value) -> ir.Value:
    """The value (LLVM value type) of element `at` of a buffer of element type t."""
    v = b.load(b.gep(ptr, [at], source_etype=u.storage_type(t)), typ=u.storage_type(t))
    return b.trunc(v, u.I1) if t is P.PRED else v


def _row_values(b: ir.IRBuilder, plan: SortPlan, row: _Row, j: ir.Value) -> list[ir.Value]:
    """Every operand's value at row position j."""
    at = b.add(row.base, b.mul(j, u.i64(plan.geometry[2])))
    return [_element(b, p, t, at) for p, t in zip(row.ops, plan.types, strict=True)]


def _gather(b: ir.IRBuilder, plan: SortPlan, row: _Row,
            source: Callable[[ir.Value], ir.Value]) -> None:
    """outputs[row, j] = operands[row, source(j)] for every operand and j < keep."""
    stride = u.i64(plan.geometry[2])
    with u.for_range(b, plan.keep, name="g") as j:
        src = b.add(row.base, b.mul(source(j), stride))
        dst = b.add(row.out_base, b.mul(j, stride))
        for p, q, et in zip(row.ops, row.outs, plan.types, strict=True):
            t = u.storage_type(et)
            v = b.load(b.gep(p, [src], source_etype=t), typ=t)
            b.store(v, b.gep(q, [dst], source_etype=t))


def _key_functions(module: ir.Module, plan: SortPlan, symbol: str) -> list[ir.Function]:
    lhs = ordered_parameters(plan.comparator)[0::2]
    assert plan.terms is not None
    return [_scalar_function(module, f"{symbol}.key{t}", term.expr, lhs)
            for t, term in enumerate(plan.terms)]


def _any_nan_key(b: ir.IRBuilder, plan: SortPlan, ops: Sequence[ir.Value],
                 symbol: str) -> ir.Value:
    """Whether any NaN-breaking key of the whole array is NaN (the interpreter's check)."""
    assert plan.terms is not None
    keys = _key_functions(b.module, plan, symbol)
    total = math.prod(plan.dims)
    found = _entry_alloca(b, u.I1)
    b.store(ir.Constant(u.I1, 0), found)
    with u.for_range(b, total, name="nan") as e:
        vals = [_element(b, p, t, e) for p, t in zip(ops, plan.types, strict=True)]
        nan = ir.Constant(u.I1, 0)
        for fn, term in zip(keys, plan.terms, strict=True):
            if term.nan_breaks:
                nan = b.or_(nan, _is_nan(b, b.call(fn, vals), term.key_type))
        b.store(b.or_(b.load(found, typ=u.I1), nan), found)
    return b.load(found, typ=u.I1)


def _key_row_function(module: ir.Module, plan: SortPlan, symbol: str) -> ir.Function:
    """Key mode for one row: keys into records, a stable sort (LSD radix for rows of
    RADIX_MIN or more, else merge; TopK's few records by selection), gather."""
    assert plan.terms is not None
    n = plan.geometry[1]
    fn, b, row = _row_function(module, f"{symbol}.keyrow", len(plan.types))
    keys = _key_functions(module, plan, symbol)
    rec = _records(plan.terms, n)
    a = rec.fields(b, row.scratch)
    tmp_base = b.gep(row.scratch, [u.i64(rec.buffer_bytes)], source_etype=u.I8)
    tmp = rec.fields(b, tmp_base)

    def record(j: ir.Value) -> list[ir.Value]:
        vals = _row_values(b, plan, row, j)
        assert plan.terms is not None
        fields = [ordered_key(b, b.call(f, vals), term)
                  for f, term in zip(keys, plan.terms, strict=True)]
        return [*fields, b.trunc(j, u.I32)]

    if _selects(plan):
        _select_first(b, rec, a, n, plan.keep, record)
        index = a[-1]
    else:
        with u.for_range(b, n, name="k") as j:
            rec.store(b, a, j, record(j))
        if n >= RADIX_MIN:
            hist = b.gep(row.scratch, [u.i64(2 * rec.buffer_bytes)], source_etype=u.I8)
            done = rec.fields(b, _radix_sort(b, rec, row.scratch, tmp_base, hist, n))
        else:
            done = _merge_sort(b, rec, a, tmp, n, symbol)
        index = done[-1]
        if not plan.stable and n > 1:
            nkeys = len(rec.types) - 1

            def after(j: ir.Value) -> ir.Value:
                prev = rec.load(b, done, b.sub(j, u.i64(1)))[:nkeys]
                return _lex_less(b, prev, rec.load(b, done, j)[:nkeys])

            index = _std_sort_order(b, plan, row, symbol, index, u.I32, after)
    _gather(b, plan, row,
            lambda j: b.zext(b.load(b.gep(index, [j], source_etype=u.I32), typ=u.I32), u.I64))
    b.ret_void()
    return fn


def _selects(plan: SortPlan) -> bool:
    """Whether the row keeps few enough records (TopK) to select them, not sort the row."""
    return 1 <= plan.keep <= SELECT_MAX and 4 * plan.keep <= plan.geometry[1]


def _select_first(b: ir.IRBuilder, rec: _Records, a: list[ir.Value], n: int, keep: int,
                  record: Callable[[ir.Value], list[ir.Value]]) -> None:
    """a[0:keep] = the first `keep` records of the stable sort of record(0..n-1): records
    in index order are inserted into the sorted prefix after those not greater; once it
    is full, a record not less than its last one is dropped at once."""
    nkeys = len(rec.types) - 1
    count = _entry_alloca(b, u.I64)
    b.store(u.i64(0), count)
    with u.for_range(b, n, name="sel") as j:
        item = record(j)
        have = b.load(count, typ=u.I64)
        full = b.icmp_signed("==", have, u.i64(keep))
        last = rec.load(b, a, u.i64(keep - 1))
        enters = b.or_(b.not_(full), _lex_less(b, item[:nkeys], last[:nkeys]))
        with b.if_then(enters):
            start = b.select(full, u.i64(keep - 1), have)

            def cond(state: list[ir.Value]) -> ir.Value:
                i = state[0]
                inside = b.icmp_signed(">", i, u.i64(0))
                prev = rec.load(b, a, b.select(inside, b.sub(i, u.i64(1)), u.i64(0)))
                return b.and_(inside, _lex_less(b, item[:nkeys], prev[:nkeys]))

            def shift(state: list[ir.Value]) -> list[ir.Value]:
                im = b.sub(state[0], u.i64(1))
                rec.store(b, a, state[0], rec.load(b, a, im))
                return [im]

            i, = _while(b, [start], cond, shift)
            rec.store(b, a, i, item)
            b.store(b.select(full, have, b.add(have, u.i64(1))), count)


def _merge_sort(b: ir.IRBuilder, rec: _Records, a: list[ir.Value], tmp: list[ir.Value], n: int,
                symbol: str) -> list[ir.Value]:
    """Stable sort of records a[0:n]: insertion-sorted runs, then merge passes between a
    and tmp (unrolled: n is a constant). Returns the fields holding the result."""
    _insertion_runs(b, rec, a, n)
    merge = _merge_function(b.module, rec, symbol)
    src, dst = a, tmp
    width = RUN
    while width < n:
        with u.for_range(b, -(-n // (2 * width)), name="m") as m:
            lo = b.mul(m, u.i64(2 * width))
            mid = _min(b, b.add(lo, u.i64(width)), u.i64(n))
            hi = _min(b, b.add(lo, u.i64(2 * width)), u.i64(n))
            b.call(merge, [*src, *dst, lo, mid, hi])
        src, dst = dst, src
        width *= 2
    return src


def _radix_sort(b: ir.IRBuilder, rec: _Records, a: ir.Value, tmp: ir.Value, hist: ir.Value,
                n: int) -> ir.Value:
    """Stable LSD radix sort of the records at `a` (tmp: a second buffer, hist: one
    256-entry i32 histogram per key byte), least significant byte of the last term
    first; a byte that is equal in every record is skipped. Returns the result's base."""
    nkeys = len(rec.types) - 1
    digits = [(t, d) for t in reversed(range(nkeys)) for d in range(rec.types[t].width // 8)]
    total = len(digits) * _RADIX
    with u.for_range(b, total, name="hz") as h:
        b.store(ir.Constant(u.I32, 0), b.gep(hist, [h], source_etype=u.I32))

    def digit(keys: list[ir.Value], pass_: int) -> ir.Value:
        t, d = digits[pass_]
        v = b.lshr(keys[t], ir.Constant(keys[t].type, 8 * d)) if d else keys[t]
        return b.add(b.zext(b.trunc(v, u.I8), u.I64), u.i64(pass_ * _RADIX))

    def bump(at: ir.Value) -> ir.Value:
        ptr = b.gep(hist, [at], source_etype=u.I32)
        old = b.load(ptr, typ=u.I32)
        b.store(b.add(old, ir.Constant(u.I32, 1)), ptr)
        return old

    fields = rec.fields(b, a)
    with u.for_range(b, n, name="hc") as i:
        keys = rec.load(b, fields, i)
        for pass_ in range(len(digits)):
            bump(digit(keys, pass_))
    cur, other = _entry_alloca(b, u.PTR), _entry_alloca(b, u.PTR)
    b.store(a, cur)
    b.store(tmp, other)
    for pass_ in range(len(digits)):
        src, dst = b.load(cur, typ=u.PTR), b.load(other, typ=u.PTR)
        first = digit(rec.load(b, rec.fields(b, src), u.i64(0)), pass_)
        count = b.load(b.gep(hist, [first], source_etype=u.I32), typ=u.I32)
        with b.if_then(b.icmp_unsigned("!=", count, ir.Constant(u.I32, n))):
            _exclusive_prefix(b, b.gep(hist, [u.i64(pass_ * _RADIX)], source_etype=u.I32))
            src_f, dst_f = rec.fields(b, src), rec.fields(b, dst)
            with u.for_range(b, n, name="sc") as i:
                item = rec.load(b, src_f, i)
                rec.store(b, dst_f, b.zext(bump(digit(item, pass_)), u.I64), item)
            b.store(dst, cur)
            b.store(src, other)
    return b.load(cur, typ=u.PTR)


def _exclusive_prefix(b: ir.IRBuilder, counts: ir.Value) -> None:
    """counts[0:256] replaced by their exclusive prefix sums (bucket starts)."""
    total = _entry_alloca(b, u.I32)
    b.store(ir.Constant(u.I32, 0), total)
    with u.for_range(b, _RADIX, name="px") as i:
        ptr = b.gep(counts, [i], source_etype=u.I32)
        c, t = b.load(ptr, typ=u.I32), b.load(total, typ=u.I32)
        b.store(t, ptr)
        b.store(b.add(t, c), total)


def _insertion_runs(b: ir.IRBuilder, rec: _Records, a: list[ir.Value], n: int) -> None:
    """Every run of RUN records (the last may be shorter) sorted by stable insertion."""
    nkeys = len(rec.types) - 1
    with u.for_range(b, -(-n // RUN), name="r") as r:
        start = b.mul(r, u.i64(RUN))
        end = _min(b, b.add(start, u.i64(RUN)), u.i64(n))
        count = b.sub(end, b.add(start, u.i64(1)))
        with u.for_range(b, count, name="ins") as q:
            i = b.add(start, b.add(q, u.i64(1)))
            item = rec.load(b, a, i)

            def cond(state: list[ir.Value]) -> ir.Value:
                j = state[0]
                inside = b.icmp_signed(">", j, start)
                prev = rec.load(b, a, b.select(inside, b.sub(j, u.i64(1)), start))
                return b.and_(inside, _lex_less(b, item[:nkeys], prev[:nkeys]))

            def shift(state: list[ir.Value]) -> list[ir.Value]:
                j = state[0]
                jm = b.sub(j, u.i64(1))
                rec.store(b, a, j, rec.load(b, a, jm))
                return [jm]

            j, = _while(b, [i], cond, shift)
            rec.store(b, a, j, item)


def _merge_function(module: ir.Module, rec: _Records, symbol: str) -> ir.Function:
    """`merge(src fields, dst fields, lo, mid, hi)`: stable branch-free merge of the runs
    src[lo:mid] and src[mid:hi] into dst[lo:hi] (a right record goes first only when it
    is strictly less)."""
    name = f"{symbol}.merge"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    f = len(rec.types)
    ty = ir.FunctionType(ir.VoidType(), [u.PTR] * (2 * f) + [u.I64] * 3)
    fn = ir.Function(module, ty, name=name)
    _internal(fn, "noinline")
    for arg in fn.args[:2 * f]:
        arg.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    src, dst = list(fn.args[:f]), list(fn.args[f:2 * f])
    lo, mid, hi = fn.args[2 * f:]
    nkeys = f - 1

    def both(state: list[ir.Value]) -> ir.Value:
        return b.and_(b.icmp_signed("<", state[0], mid), b.icmp_signed("<", state[1], hi))

    def step(state: list[ir.Value]) -> list[ir.Value]:
        i, j, k = state
        left, right = rec.load(b, src, i), rec.load(b, src, j)
        take_right = _lex_less(b, right[:nkeys], left[:nkeys])
        rec.store(b, dst, k, [b.select(take_right, x, y) for x, y in zip(right, left, strict=True)])
        step_r = b.zext(take_right, u.I64)
        return [b.add(i, b.sub(u.i64(1), step_r)), b.add(j, step_r), b.add(k, u.i64(1))]

    i, j, k = _while(b, [lo, mid, lo], both, step)
    k = _copy_run(b, rec, src, dst, i, mid, k)
    _copy_run(b, rec, src, dst, j, hi, k)
    b.ret_void()
    return fn


def _copy_run(b: ir.IRBuilder, rec: _Records, src: list[ir.Value], dst: list[ir.Value],
              i: ir.Value, end: ir.Value, k: ir.Value) -> ir.Value:
    """dst[k:] = src[i:end]; the next k."""
    def more(state: list[ir.Value]) -> ir.Value:
        return b.icmp_signed("<", state[0], end)

    def copy(state: list[ir.Value]) -> list[ir.Value]:
        rec.store(b, dst, state[1], rec.load(b, src, state[0]))
        return [b.add(state[0], u.i64(1)), b.add(state[1], u.i64(1))]

    return _while(b, [i, k], more, copy)[1]


def _general_row_function(module: ir.Module, plan: SortPlan, symbol: str) -> ir.Function:
    """General mode for one row: the interpreter's binary-search merge sort of a
    permutation, with the comparator called on the operands' values through it."""
    comp = plan.comparator
    assert comp.root is not None
    less = _scalar_function(module, f"{symbol}.less", comp.root, ordered_parameters(comp))
    n = plan.geometry[1]
    fn, b, row = _row_function(module, f"{symbol}.generalrow", len(plan.types))
    perm = [row.scratch, b.gep(row.scratch, [u.i64(8 * n)], source_etype=u.I8)]
    with u.for_range(b, n, name="p") as j:
        for buf in perm:  # both: a place no merge writes still holds a valid index
            b.store(j, b.gep(buf, [j], source_etype=u.I64))
    width, src = 1, 0
    while width < n:
        _binary_merge_pass(b, plan, row, less, perm[src], perm[1 - src], width)
        src, width = 1 - src, width * 2
    final = perm[src]

    def at(j: ir.Value) -> ir.Value:
        return b.load(b.gep(final, [j], source_etype=u.I64), typ=u.I64)

    if plan.stable or n < 2:
        _gather(b, plan, row, at)
    else:
        def after(j: ir.Value) -> ir.Value:
            lhs = _row_values(b, plan, row, at(b.sub(j, u.i64(1))))
            rhs = _row_values(b, plan, row, at(j))
            return b.call(less, [v for pair in zip(lhs, rhs, strict=True) for v in pair])

        index = _std_sort_order(b, plan, row, symbol, final, u.I64, after)
        _gather(b, plan, row,
                lambda j: b.zext(b.load(b.gep(index, [j], source_etype=u.I32), typ=u.I32), u.I64))
    b.ret_void()
    return fn


def _binary_merge_pass(b: ir.IRBuilder, plan: SortPlan, row: _Row, less: ir.Function,
                       src: ir.Value, dst: ir.Value, width: int) -> None:
    """One pass of the interpreter's `_merge_runs`: every element's new place is its place
    in its run plus the count, by binary search, of the other run's elements before it
    (for a left element those strictly less, for a right one those not greater)."""
    n = plan.geometry[1]

    def values(pos: ir.Value) -> list[ir.Value]:
        return _row_values(b, plan, row, b.load(b.gep(src, [pos], source_etype=u.I64), typ=u.I64))

    with u.for_range(b, n, name="e") as p:
        left_start = b.mul(b.udiv(p, u.i64(2 * width)), u.i64(2 * width))
        is_left = b.icmp_signed("<", b.sub(p, left_start), u.i64(width))
        right_start = b.add(left_start, u.i64(width))
        own_start = b.select(is_left, left_start, right_start)
        other_start = b.select(is_left, right_start, left_start)
        rest = b.sub(u.i64(n), right_start)
        rest = b.select(b.icmp_signed("<", rest, u.i64(0)), u.i64(0), _min(b, rest, u.i64(width)))
        other_len = b.select(is_left, rest, u.i64(width))
        mine = values(p)

        def searching(state: list[ir.Value]) -> ir.Value:
            return b.icmp_signed("<", state[0], state[1])

        def probe(state: list[ir.Value]) -> list[ir.Value]:
            lo, hi = state
            mid = b.lshr(b.add(lo, hi), u.i64(1))
            other = values(b.add(other_start, mid))
            args = []
            for x, y in zip(other, mine, strict=True):
                args += [b.select(is_left, x, y), b.select(is_left, y, x)]
            lt = b.call(less, args)
            first = b.select(is_left, lt, b.not_(lt))
            return [b.select(first, b.add(mid, u.i64(1)), lo), b.select(first, hi, mid)]

        before, _ = _while(b, [u.i64(0), other_len], searching, probe)
        dest = b.add(b.add(left_start, b.sub(p, own_start)), before)
        moved = b.load(b.gep(src, [p], source_etype=u.I64), typ=u.I64)
        b.store(moved, b.gep(dst, [dest], source_etype=u.I64))


def _std_sort_order(b: ir.IRBuilder, plan: SortPlan, row: _Row, symbol: str, order: ir.Value,
                    width: ir.IntType, after: Callable[[ir.Value], ir.Value]) -> ir.Value:
    """The i32 index array of the row in std::sort's order, from the stable order `order`
    (indices of type `width`); `after(j)`: element j of it goes strictly after j - 1."""
    n = plan.geometry[1]
    rank = b.gep(row.scratch, [u.i64(plan.tie_offset)], source_etype=u.I8)
    index = b.gep(rank, [u.i64(4 * n)], source_etype=u.I8)

    def place(j: ir.Value) -> ir.Value:
        v = b.load(b.gep(order, [j], source_etype=width), typ=width)
        return v if width is u.I64 else b.zext(v, u.I64)

    zero = ir.Constant(u.I32, 0)
    b.store(zero, b.gep(rank, [place(u.i64(0))], source_etype=u.I32))
    current = _entry_alloca(b, u.I32)
    b.store(zero, current)
    with u.for_range(b, n - 1, name="tie") as q:
        j = b.add(q, u.i64(1))
        r = b.add(b.load(current, typ=u.I32), b.zext(after(j), u.I32))
        b.store(r, current)
        b.store(r, b.gep(rank, [place(j)], source_etype=u.I32))
    with u.for_range(b, n, name="idx") as j:
        b.store(b.trunc(j, u.I32), b.gep(index, [j], source_etype=u.I32))
    b.call(std_sort_function(b.module, symbol), [rank, index, u.i64(n)])
    return index
