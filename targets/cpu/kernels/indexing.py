"""Update kernels (`UpdatePlan`): dynamic-update-slice, scatter, select-and-scatter and
variadic reduce-window; gather, dynamic-slice and reduce-window are elemental
(targets/llvm/indexing.py), as are the index helpers used here.

Semantics are the interpreter's (hlotool/interpreter/kernels/indexing.py, reduction.py and
data_movement.py), which follow XLA:CPU:

* dynamic-slice and dynamic-update-slice clamp every start index to [0, dim - size];
* gather clamps each start index so the whole slice fits: [0, max(dim - size, 0)];
  operand batching dims start at the batch position of their start-indices dim;
* scatter skips the whole update window of a scatter index when any part of it is out of
  bounds, and applies the `to_apply` combiner element by element in row-major order over
  (update scatter dims, update window dims), so duplicate targets combine in that order;
  `indices_are_sorted` / `unique_indices` are hints and change nothing;
* index values are read as i64; u64 indices beyond the int64 range saturate;
* reduce-window folds each window in row-major order from the init value, skipping
  padding and base-dilation holes; select-and-scatter picks, per window, the first valid
  cell and then each later cell the `select` region does not keep, and combines the source
  values into the output in source order.

Dynamic-update-slice and scatter start from the operand (a copy, skipped
when the output buffer is the operand buffer) and write only the update region / the
update elements, as XLA's in-place emitters do (EmitDynamicUpdateSliceInPlace,
ScatterLoopEmitter). Combiner regions are emitted inline on scalars (`call_scalar`).

Floats follow the kernels' FTZ/DAZ mode; the interpreter's scatter-add (numpy `ufunc.at`)
does not flush, so the two differ only where a scatter-add produces a denormal.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from llvmlite import ir

from hlotool.interpreter.core import Value
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import (
    ElementalEmitter,
    Index,
    Input,
    linear_index,
)
from hlotool.targets.llvm.indexing import (
    ScatterGeometry,
    call_scalar,
    clamp,
    is_int,
    loop_nest,
    start_values,
    starts_ok,
    unsupported_combiner,
    window_element,
)

from hlotool.targets.cpu.kernels.scan import emit_scan, scan_of

O = Opcode
P = PrimitiveType

#: Ops computed by an UpdatePlan (standalone or as a kLoop fusion's root); a variadic
#: reduce-window too (`has_own_plan`).
UPDATE_OPS = frozenset({O.DYNAMIC_UPDATE_SLICE, O.SCATTER, O.SELECT_AND_SCATTER})


# -- own-plan kernels: dynamic-update-slice, scatter, select-and-scatter, variadic reduce-window


@dataclass(slots=True)
class UpdatePlan:
    """A dynamic-update-slice, scatter, select-and-scatter or variadic reduce-window
    (standalone, or the root of a kLoop fusion).

    Entry `void name(void **buffers)`: the `inputs` (the op's distinct operands, or the
    fusion's parameters, in parameter order), then the `constants`, then the outputs (one
    per element of a tuple-shaped result, else one); no scratch.

    The kernel first makes each output equal to its operand (a memcpy, skipped when the
    output pointer equals the operand's input pointer; an operand computed inside the
    fusion is evaluated into the output), then writes only the updated elements:
    dynamic-update-slice stores the update at the clamped start; scatter loops over the
    update elements in order, loading the output element, applying the combiner, storing.
    select-and-scatter fills its output with the init value, then scatters; a variadic
    reduce-window writes every output element once.

    Aliasing: correct with any distinct buffers. Also correct in place (output k handed the
    same buffer as input `aliasable[k]`) where `aliasable[k]` is not None: the operand is
    read by nothing else in the kernel (not the update, the indices, or another operand),
    as XLA's buffer assignment requires before it updates in place.
    """

    name: str
    #: [the instruction computed (a `has_own_plan` op)].
    roots: list[Instruction]
    inputs: list[Instruction]
    constants: list[tuple[Instruction, np.ndarray]] = field(default_factory=list)
    llvm: ClassVar[bool] = True

    @property
    def op(self) -> Instruction:
        return self.roots[0]

    @property
    def bases(self) -> list[Instruction]:
        """The operands the outputs start from (none for select-and-scatter and
        reduce-window: their outputs are computed from the init values)."""
        op = self.op
        if op.opcode is O.DYNAMIC_UPDATE_SLICE:
            return [op.operand(0)]
        return list(op.operands[: op.operand_count // 2]) if op.opcode is O.SCATTER else []

    @property
    def output_shapes(self) -> list[Shape]:
        shape = self.op.shape
        return list(shape.tuple_shapes) if shape.is_tuple else [shape]

    @property
    def aliasable(self) -> list[int | None]:
        """Per output, the input position it may share a buffer with (None: none)."""
        if not self.bases:
            return [None] * len(self.output_shapes)
        out: list[int | None] = []
        for base in self.bases:
            pos = next((k for k, i in enumerate(self.inputs) if i is base), None)
            readers = [x for x in [*self.op.operands, *_fused_users(base, self.op)] if x is base]
            out.append(pos if pos is not None and len(readers) == 1 else None)
        return out

    def emit(self, module: ir.Module, symbol: str, *, x86: bool) -> None:
        from hlotool.targets.cpu.kernels.loop import emit_entry

        n = len(self.inputs) + len(self.constants) + len(self.output_shapes)
        body = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR] * n),
                           name=f"{symbol}.body")
        body.linkage = "internal"
        body.attributes.add("noinline")
        body.attributes.add("nounwind")
        _emit_update_body(body, self)
        emit_entry(module, symbol, body, x86)

    def make_thunk(self, ins: Instruction, library: Any, symbol: str) -> UpdateThunk:
        return UpdateThunk(ins, self, library, symbol)


def _fused_users(base: Instruction, op: Instruction) -> list[Instruction]:
    """`base` once per use by other instructions of the fusion computing `op` (none for a
    standalone op: its operand's other users are outside the kernel)."""
    if op.parent is None or not op.parent.is_fusion_computation:
        return []
    return [base for user in base.users if user is not op for o in user.operands if o is base]


def unsupported_update(op: Instruction) -> str | None:
    """Why a dynamic-update-slice / scatter / select-and-scatter gets no kernel, or None."""
    shapes = [*(op.shape.tuple_shapes if op.shape.is_tuple else [op.shape]),
              *(o.shape for o in op.operands)]
    types = u.ELEMENTAL_TYPES if scan_of(op) is not None else u.NATIVE_TYPES | u.NARROW_FLOATS
    for s in shapes:
        if not s.is_array or s.element_type not in types or s.is_dynamic:
            return f"element type or shape {s}"
    if op.opcode is O.DYNAMIC_UPDATE_SLICE:
        return None if starts_ok(op.operands[2:], op.operand(0).shape.rank) else \
            "dynamic-update-slice start indices"
    if op.opcode is O.SELECT_AND_SCATTER:
        return _unsupported_select_and_scatter(op)
    if op.opcode is O.REDUCE_WINDOW:
        return _unsupported_reduce_window(op)
    n = op.operand_count // 2
    if not is_int(op.operand(n).shape.element_type):
        return "scatter indices type"
    types = [o.shape.element_type for o in op.operands[:n]]
    return unsupported_combiner(op.attrs["to_apply"], types)


def _unsupported_select_and_scatter(op: Instruction) -> str | None:
    from hlotool.interpreter.kernels.reduction import _window_dims

    if any(d.window_reversal for d in _window_dims(op.attrs.get("window"), op.shape.rank)):
        return "window reversal"
    t = op.shape.element_type
    if any(o.shape.element_type is not t for o in op.operands):
        return "mixed element types"
    for key in ("select", "scatter"):
        reason = unsupported_combiner(op.attrs[key], [t])
        if reason:
            return f"{key}: {reason}"
    root = op.attrs["select"].root
    return None if root is not None and root.shape.element_type is P.PRED else "select region type"


def has_own_plan(ins: Instruction) -> bool:
    """Whether `ins` (or a kLoop fusion with `ins` as its root) gets an UpdatePlan: an
    update op, a variadic reduce-window or a scan."""
    return ins.opcode in UPDATE_OPS or (
        ins.opcode is O.REDUCE_WINDOW and (ins.shape.is_tuple or scan_of(ins) is not None))


def _unsupported_reduce_window(op: Instruction) -> str | None:
    """Why a variadic reduce-window or a scan gets no kernel, or None (every prefix and
    suffix scan has one: `kernels/scan.py`)."""
    from hlotool.interpreter.kernels.reduction import _window_dims

    n = op.operand_count // 2
    src = op.operand(0).shape
    if any(o.shape.dimensions != src.dimensions for o in op.operands[:n]):
        return "reduce-window inputs of different shapes"
    dims = _window_dims(op.attrs.get("window"), src.rank)
    if any(d.window_reversal for d in dims):
        return "window reversal"
    types = [o.shape.element_type for o in op.operands[:n]]
    if [o.shape.element_type for o in op.operands[n:]] != types:
        return "init types"
    return unsupported_combiner(op.attrs["to_apply"], types)


def plan_update(ins: Instruction, name: str) -> tuple[UpdatePlan | None, str]:
    """The kernel of an UPDATE_OPS instruction, standalone or a kLoop fusion's root."""
    if ins.opcode is O.FUSION:
        from hlotool.targets.cpu.codegen import _fused_operands

        comp: Computation = ins.attrs["calls"]
        op = comp.root
        assert op is not None
        if ins.attrs.get("kind") != "kLoop":
            return None, f"{ins.attrs.get('kind')} fusion"
        reason = unsupported_update(op)
        if reason:
            return None, f"{op.name}: {reason}"
        constants, reason = _fused_operands(comp.instructions, op)
        if reason:
            return None, reason
        return UpdatePlan(name, [op], list(comp.parameters), constants), ""
    reason = unsupported_update(ins)
    if reason:
        return None, reason
    inputs: list[Instruction] = []
    for o in ins.operands:
        if all(o is not x for x in inputs):
            inputs.append(o)
    return UpdatePlan(name, [ins], inputs), ""


# -- emission ------------------------------------------------------------------------------------


def _emit_update_body(fn: ir.Function, plan: UpdatePlan) -> None:
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sources = plan.inputs + [c for c, _ in plan.constants]
    inputs = {id(i): Input(a, i.shape) for i, a in zip(sources, fn.args, strict=False)}
    outs = list(fn.args[len(sources):])
    for base, out in zip(plan.bases, outs[: len(plan.bases)], strict=True):
        _init_output(b, inputs, base, out)
    em = ElementalEmitter(b, inputs)
    if plan.op.opcode is O.DYNAMIC_UPDATE_SLICE:
        _emit_dus(em, plan.op, outs[0])
    elif plan.op.opcode is O.SELECT_AND_SCATTER:
        _emit_select_and_scatter(em, plan.op, outs[0])
    elif plan.op.opcode is O.REDUCE_WINDOW and scan_of(plan.op) is not None:
        emit_scan(em, plan.op, outs)
    elif plan.op.opcode is O.REDUCE_WINDOW:
        _emit_variadic_reduce_window(em, plan.op, outs)
    else:
        _emit_scatter(em, plan.op, outs)
    b.ret_void()


def _init_output(b: ir.IRBuilder, inputs: dict[int, Input], base: Instruction,
                 out: ir.Value) -> None:
    """out = base: memcpy unless out is base's own buffer; computed elementally if base
    is not an input buffer."""
    dims = base.shape.dimensions
    buf = inputs.get(id(base))
    if buf is None:
        em = ElementalEmitter(b, inputs)
        loop_nest(b, dims, lambda i: _store(b, out, base.shape, i, em.value(base, i)))
        return
    nbytes = int(np.prod(dims, dtype=np.int64)) * _itemsize(base.shape.element_type)
    if nbytes == 0:
        return
    with b.if_then(b.icmp_unsigned("!=", out, buf.pointer)):
        u.memcpy(b, out, buf.pointer, nbytes)


def _itemsize(t: PrimitiveType) -> int:
    return int(np.dtype(t.numpy_dtype).itemsize)


def _store(b: ir.IRBuilder, out: ir.Value, shape: Shape, index: Index, v: ir.Value) -> None:
    if v.type == u.I1:
        v = b.zext(v, u.I8)
    b.store(v, _element_ptr(b, out, shape, index))


def _element_ptr(b: ir.IRBuilder, buf: ir.Value, shape: Shape, index: Index) -> ir.Value:
    return b.gep(buf, [linear_index(b, shape.dimensions, index)],
                 source_etype=u.storage_type(shape.element_type), inbounds=True)


def _emit_dus(em: ElementalEmitter, op: Instruction, out: ir.Value) -> None:
    """Store the update at the clamped start (XLA's EmitDynamicUpdateSliceInPlace)."""
    b = em.b
    base, update = op.operand(0), op.operand(1)
    starts = [clamp(b, s, 0, n - k) for s, n, k in zip(
        start_values(em, op.operands[2:], base.shape.rank), base.shape.dimensions,
        update.shape.dimensions, strict=True)]

    def body(i: Index) -> None:
        at = tuple(b.add(s, x) for s, x in zip(starts, i, strict=True))
        _store(b, out, base.shape, at, em.value(update, i))

    loop_nest(b, update.shape.dimensions, body, name="u")


def _emit_scatter(em: ElementalEmitter, op: Instruction, outs: list[ir.Value]) -> None:
    """For each scatter index in order: if its window fits, combine every window element
    into the outputs in order (XLA's ScatterLoopEmitter, one element at a time)."""
    b = em.b
    n = op.operand_count // 2
    bases, updates = op.operands[:n], op.operands[n + 1:]
    comp: Computation = op.attrs["to_apply"]

    def per_element(at: Index, target: Index) -> None:
        ptrs = [_element_ptr(b, o, x.shape, target) for o, x in zip(outs, bases, strict=True)]
        current = [_load(b, p, x.shape.element_type) for p, x in zip(ptrs, bases, strict=True)]
        new = [em.value(x, at) for x in updates]
        for p, v in zip(ptrs, call_scalar(b, comp, [*current, *new]), strict=True):
            b.store(b.zext(v, u.I8) if v.type == u.I1 else v, p)

    ScatterGeometry.of(op).loop(b, em, per_element)


def _emit_select_and_scatter(em: ElementalEmitter, op: Instruction, out: ir.Value) -> None:
    """out = init; per source element in row-major order, select a window position (the
    first valid cell, replaced by each later cell the `select` region does not keep) and
    combine the source value into it with the `scatter` region (XLA's
    HandleSelectAndScatter)."""
    from hlotool.interpreter.kernels.reduction import _window_dims

    b = em.b
    operand, source, init = op.operands
    shape = op.shape
    dims = _window_dims(op.attrs.get("window"), shape.rank)
    ty = u.value_type(shape.element_type)
    init_value = em.value(init, ())
    loop_nest(b, shape.dimensions, lambda i: _store(b, out, shape, i, init_value), name="f")
    with b.goto_block(b.function.entry_basic_block):
        best, best_at, have = b.alloca(ty), b.alloca(u.I64), b.alloca(u.I1)
    inner = ElementalEmitter(b, em.inputs)

    def per_source(s: Index) -> None:
        b.store(ir.Constant(ty, 0), best)
        b.store(u.i64(0), best_at)
        b.store(ir.Constant(u.I1, 0), have)
        loop_nest(b, [w.size for w in dims], lambda k: per_cell(s, k), name="k")
        with b.if_then(b.load(have, typ=u.I1)):
            ptr = b.gep(out, [b.load(best_at, typ=u.I64)],
                        source_etype=u.storage_type(shape.element_type), inbounds=True)
            new, = call_scalar(b, op.attrs["scatter"],
                               [_load(b, ptr, shape.element_type), em.value(source, s)])
            b.store(b.zext(new, u.I8) if new.type == u.I1 else new, ptr)

    def per_cell(s: Index, k: Index) -> None:
        valid, at = window_element(b, dims, s, k, shape.dimensions)
        with b.if_then(valid):
            cand, current = inner.value(operand, at), b.load(best, typ=ty)
            keep, = call_scalar(b, op.attrs["select"], [current, cand])
            take = b.or_(b.not_(b.load(have, typ=u.I1)), b.not_(keep))
            b.store(b.select(take, cand, current), best)
            lin = linear_index(b, shape.dimensions, at)
            b.store(b.select(take, lin, b.load(best_at, typ=u.I64)), best_at)
            b.store(ir.Constant(u.I1, 1), have)

    loop_nest(b, source.shape.dimensions, per_source, name="s")


def _emit_variadic_reduce_window(em: ElementalEmitter, op: Instruction,
                                 outs: list[ir.Value]) -> None:
    """Per output index, fold every window in row-major order from the init values into
    one accumulator per input (XLA's EmitElementalReduceWindow, variadic)."""
    from hlotool.interpreter.kernels.reduction import _window_dims

    b = em.b
    n = op.operand_count // 2
    srcs, shapes = op.operands[:n], list(op.shape.tuple_shapes)
    dims = _window_dims(op.attrs.get("window"), srcs[0].shape.rank)
    tys = [u.value_type(s.element_type) for s in shapes]
    with b.goto_block(b.function.entry_basic_block):
        accs = [b.alloca(ty) for ty in tys]
    inits = [em.value(i, ()) for i in op.operands[n:]]
    inner = ElementalEmitter(b, em.inputs)
    comp: Computation = op.attrs["to_apply"]

    def per_output(o: Index) -> None:
        for acc, v in zip(accs, inits, strict=True):
            b.store(v, acc)
        loop_nest(b, [w.size for w in dims], lambda k: per_cell(o, k), name="k")
        for acc, ty, out, shape in zip(accs, tys, outs, shapes, strict=True):
            _store(b, out, shape, o, b.load(acc, typ=ty))

    def per_cell(o: Index, k: Index) -> None:
        valid, at = window_element(b, dims, o, k, srcs[0].shape.dimensions)
        old = [b.load(acc, typ=ty) for acc, ty in zip(accs, tys, strict=True)]
        new = call_scalar(b, comp, [*old, *(inner.value(x, at) for x in srcs)])
        for acc, x, y in zip(accs, new, old, strict=True):
            b.store(b.select(valid, x, y), acc)

    loop_nest(b, shapes[0].dimensions, per_output, name="o")


def _load(b: ir.IRBuilder, ptr: ir.Value, t: PrimitiveType) -> ir.Value:
    v = b.load(ptr, typ=u.storage_type(t))
    return b.trunc(v, u.I1) if t is P.PRED else v


# -- runtime -------------------------------------------------------------------------------------


class UpdateThunk:
    """Runs an UpdatePlan on fresh outputs (the runtime's Thunk interface).

    With `in_place`, each aliasable output is a copy of its operand made here and handed
    to the kernel as both that input and the output (the kernel then skips its copy)."""

    def __init__(self, ins: Instruction, plan: UpdatePlan, library: Any, symbol: str,
                 in_place: bool = False) -> None:
        self.fn = library.get_function(symbol)
        self.ins = ins
        self.plan = plan
        self.positions = [_position(ins, i) for i in plan.inputs]
        self.in_specs = [(i.shape.dimensions, i.shape.element_type.numpy_dtype)
                         for i in plan.inputs]
        self.constants = [c for _, c in plan.constants]
        self.out_specs = [(s.dimensions, s.element_type.numpy_dtype) for s in plan.output_shapes]
        self.aliasable = plan.aliasable
        self.in_place = in_place
        n = len(self.in_specs) + len(self.constants) + len(self.out_specs)
        self.args = (ctypes.c_void_p * n)()
        for k, c in enumerate(self.constants):
            self.args[len(self.in_specs) + k] = c.ctypes.data

    def inputs(self, operands: list[Value], env: dict[int, Value]) -> list[Value]:
        return [operands[p] for p in self.positions]

    def native_args(self) -> list[tuple[Any, ...]]:
        """The entry's buffers for the arena runtime (`schedule.NativeArgs`)."""
        tuple_out = self.ins.shape.is_tuple
        return [*(("operand", p, ()) for p in self.positions),
                *(("address", c.ctypes.data) for c in self.constants),
                *(("output", (k,) if tuple_out else ()) for k in range(len(self.out_specs)))]

    def may_share(self, operand: int, index: tuple[int, ...]) -> bool:
        """Whether output `index` may be operand `operand`'s buffer (`UpdatePlan.aliasable`)."""
        source = self.aliasable[index[0] if index else 0]
        return source is not None and self.positions[source] == operand

    def accepts(self, values: list[Value]) -> bool:
        return all(isinstance(v, np.ndarray | np.generic) and np.shape(v) == tuple(dims)
                   for v, (dims, _) in zip(values, self.in_specs, strict=True))

    def __call__(self, values: list[Value]) -> Value:
        keep = [np.ascontiguousarray(v, dtype=dtype)
                for v, (_, dtype) in zip(values, self.in_specs, strict=True)]
        for k, a in enumerate(keep):
            self.args[k] = a.ctypes.data
        outs: list[np.ndarray] = []
        for pos, (dims, dtype) in zip(self.aliasable, self.out_specs, strict=True):
            if self.in_place and pos is not None:
                out = np.array(keep[pos], dtype=dtype, copy=True)
                self.args[pos] = out.ctypes.data
            else:
                out = np.empty(dims, dtype)
            outs.append(out)
        base = len(keep) + len(self.constants)
        for k, o in enumerate(outs):
            self.args[base + k] = o.ctypes.data
        self.fn(self.args)
        return tuple(outs) if self.ins.shape.is_tuple else outs[0]


def _position(ins: Instruction, src: Instruction) -> int:
    """Operand position of an input: a fusion parameter's number or the operand index."""
    if ins.opcode is O.FUSION:
        return src.parameter_number
    return next(k for k, o in enumerate(ins.operands) if o is src)
