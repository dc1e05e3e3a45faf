"""The CPU executable's hot path: the entry computation as a fixed sequence of steps over
one arena of buffers (XLA:CPU's thunk sequence over its buffer assignment).

At compile time every array value of the entry gets a slot: a parameter (the caller's
array), a constant (its literal, allocated once), an output (allocated for each run,
or reused when the caller dropped the previous run's result), or a temporary packed
into one arena by the buffer assigner's best-fit heap (`passes.buffer_assignment.
pack_arena`): temporaries whose live ranges do not overlap share bytes, and an
instruction that may write over an operand dying at it (`can_share_operand_buffer`,
XLA's in-place rule) takes over that operand's slot. Reshapes, copies, layout-neutral
bitcasts, tuples and get-tuple-elements name their operand's slot and cost nothing.

Each step is then one of:
* a native LLVM kernel: a ctypes call with a pointer array built once (only the
  parameter and output pointers are patched per run);
* a library thunk (BLAS dot, convolution, kernels from other plans): called on views
  of its operand slots, its result copied into its slot unless written there;
* an interpreter fallback (control flow, ops without a kernel): the reference
  implementation on views of the operand slots, its result copied into its slot.

So no per-instruction array is allocated on the hot path: after the first run every
page of the arena is mapped. Modules this cannot describe (tokens, dynamic shapes)
run through `CpuExecutable`'s instruction-by-instruction path instead.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from hlotool.analysis.liveness import can_share_operand_buffer, leaf_items
from hlotool.interpreter.core import IMPLS, Unsupported, Value, _at
from hlotool.interpreter.kernels import elementwise as ew
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape
from hlotool.diagnostics import HloError
from hlotool.passes.buffer_assignment import ALIGNMENT, Buffer, align, pack_arena
from hlotool.passes.utils import has_side_effect
from hlotool.targets.cpu.codegen import FREE_OPS
from hlotool.targets.cpu.kernels.conv import ConvThunk
from hlotool.targets.cpu.kernels.dot import DotThunk

if TYPE_CHECKING:
    from hlotool.targets.cpu.runtime import CpuExecutable

O = Opcode

#: Opcodes whose value is their first operand's value, unchanged.
_NAMING = frozenset({O.COPY, O.RESHAPE, O.OPT_BARRIER, O.DOMAIN, O.ADD_DEPENDENCY})
#: Ops that run the computations they call (their work is counted there).
_CONTROL = frozenset({O.FUSION, O.CALL, O.WHILE, O.CONDITIONAL})

Leaf = tuple[int, tuple[int, ...]]


#: A native thunk's `native_args()`: its entry's buffers in order, each one of
#: ("operand", operand number, leaf index), ("inner", operand number, operand of that
#: operand) for an inlined product's operand, ("value", instruction) for an array
#: computed earlier in the same computation, ("output", leaf index) or ("address", int)
#: for memory the thunk owns (constants, scratch). A thunk's `may_share(operand number,
#: output leaf index)` says whether that output may be that operand's buffer; the
#: schedule shares only where XLA's in-place rule also allows it and the operand dies.
NativeArgs = list[tuple[Any, ...]]


class NotSchedulable(Exception):
    """The entry uses something the arena path does not describe."""


@dataclass(slots=True)
class Slot:
    """Storage of one array value."""

    id: int
    kind: str  # "parameter", "constant", "output" or "temp"
    dims: tuple[int, ...]
    dtype: np.dtype
    #: Timeline positions: defined at `start`, last read at `end`.
    start: int = 0
    end: int = 0
    offset: int = 0
    #: The constant's value.
    value: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.dims, dtype=np.int64)) * self.dtype.itemsize


@dataclass(slots=True)
class _Native:
    """A ctypes call; `patches` are (argument position, slot) set per run."""

    fn: Any
    args: Any
    patches: list[tuple[int, int]] = field(default_factory=list)


@dataclass(slots=True)
class _Step:
    """A Python step: computes a value from operand values, writes it to `outs`."""

    ins: Instruction
    run: Callable[[list[Value]], Value]
    #: Per operand: the value's structure as slots (nested tuples of slot ids).
    operands: list[Any]
    outs: list[int]
    #: Products the interpreter contracts into this fallback (fused multiply-add).
    products: list[Instruction] = field(default_factory=list)


class Schedule:
    """The entry computation of a compiled module as steps over slots."""

    def __init__(self, ex: CpuExecutable) -> None:
        self.ex = ex
        comp = ex.module.entry
        #: Every planned instruction in execution order (called computations and fused
        #: ones without a kernel of their own are inlined: their instructions are steps).
        self.order: list[Instruction] = []
        self._inlined: set[int] = set()
        self.slots: list[Slot] = []
        #: Leaf value (id(instruction), index) -> slot id.
        self.leaf: dict[Leaf, int] = {}
        self.params = comp.parameters
        if any(not p.shape.is_array for p in self.params):
            raise NotSchedulable("tuple parameter")
        for p in self.params:
            self._define(p, "parameter", -1)
        self.param_slots = [self.leaf[(id(p), ())] for p in self.params]
        self.plans: list[tuple[Instruction, str]] = []
        self._args_cache: dict[int, list[tuple[Any, ...]]] = {}
        self._walk(ex._order(comp))
        assert comp.root is not None
        self.root = comp.root
        self.root_leaves = [self.leaf[(id(comp.root), index)]
                            for index, _ in leaf_items(comp.root.shape)]
        self._liveness()
        live = self._live_steps()  # before sharing: a slot is still one value
        self._share_in_place()
        self.arena_bytes = self._pack()
        self.values = self._allocate()
        self.steps = [self._build(ins, kind) for ins, kind in live]
        self._count(live)
        self._last_outputs: list[np.ndarray] = []
        self._root_structure: Any = None
        #: The slots of the entry's outputs (allocated per run), each once.
        self.output_slots = [s for s in dict.fromkeys(self.root_leaves)
                             if self.slots[s].kind == "output"]
        #: Slots bound per run (parameters, outputs): unbound after it, so that only
        #: the caller holds the arrays.
        self._transient = [s.id for s in self.slots if s.kind in ("parameter", "output")]

    def _allocate(self) -> list[np.ndarray | None]:
        """The arena and every temp's view of it; constants' values. (Parameter and
        output slots are bound per run.)"""
        self._arena = np.empty(self.arena_bytes + ALIGNMENT, np.uint8)
        values: list[np.ndarray | None] = [None] * len(self.slots)
        base = (-self._arena.ctypes.data) % ALIGNMENT
        for s in self.slots:
            if s.kind == "temp":
                raw = self._arena[base + s.offset:base + s.offset + s.nbytes]
                values[s.id] = raw.view(s.dtype).reshape(s.dims)
            elif s.kind == "constant":
                values[s.id] = s.value
        return values

    def _count(self, live: list[tuple[Instruction, str]]) -> None:
        """What one run adds to the executable's statistics: native kernel calls (compiled
        loops count their own, in `counters`) and interpreter fallbacks by opcode."""
        self.counters = [c for ins, kind in live if kind == "native"
                         for c in [getattr(self.ex.thunks[id(ins)], "counter", None)]
                         if c is not None]
        self.native_count = sum(kind != "fallback" for _, kind in live) - len(self.counters)
        self.fallbacks: dict[str, int] = {}
        for ins, kind in live:
            op = ins.opcode
            if kind == "fallback" and op not in _CONTROL and op not in FREE_OPS:
                self.fallbacks[op.value] = self.fallbacks.get(op.value, 0) + 1

    # -- slots --------------------------------------------------------------------------
    def _new_slot(self, kind: str, shape: Shape, t: int) -> int:
        if not shape.is_array or shape.is_dynamic:
            raise NotSchedulable(f"value of shape {shape}")
        dtype = shape.element_type.numpy_dtype
        if dtype is None:
            raise NotSchedulable(f"element type {shape.element_type}")
        s = Slot(len(self.slots), kind, tuple(shape.dimensions), np.dtype(dtype), t, t)
        self.slots.append(s)
        return s.id

    def _define(self, ins: Instruction, kind: str, t: int) -> None:
        for index, leaf in leaf_items(ins.shape):
            self.leaf[(id(ins), index)] = self._new_slot(kind, leaf, t)

    def _forward(self, ins: Instruction, source: Instruction, prefix: tuple[int, ...] = ()) -> None:
        for index, _ in leaf_items(ins.shape):
            self.leaf[(id(ins), index)] = self.leaf[(id(source), (*prefix, *index))]

    def _walk(self, instructions: list[Instruction]) -> None:
        for ins in instructions:
            if ins.opcode is O.PARAMETER:
                continue
            if self._inlinable(ins):
                self._inline(ins)
                continue
            self.order.append(ins)
            self._plan(ins, len(self.order) - 1)

    def _inlinable(self, ins: Instruction) -> bool:
        """A call, or a fusion without a kernel: the callee's instructions become steps
        (once per computation, since values are keyed by instruction)."""
        if ins.opcode is O.CALL:
            return id(ins.attrs["to_apply"]) not in self._inlined
        return ins.opcode is O.FUSION and id(ins) not in self.ex.thunks and \
            id(ins.attrs["calls"]) not in self._inlined

    def _inline(self, ins: Instruction) -> None:
        comp = ins.attrs["to_apply" if ins.opcode is O.CALL else "calls"]
        self._inlined.add(id(comp))
        for p in comp.parameters:
            self._forward(p, ins.operand(p.parameter_number))
        self._walk(comp.post_order())
        assert comp.root is not None
        self._forward(ins, comp.root)

    def _plan(self, ins: Instruction, t: int) -> None:
        op = ins.opcode
        if op is O.TUPLE:
            for i, o in enumerate(ins.operands):
                for index, _ in leaf_items(o.shape):
                    self.leaf[(id(ins), (i, *index))] = self.leaf[(id(o), index)]
            return
        if op is O.GET_TUPLE_ELEMENT:
            self._forward(ins, ins.operand(0), (ins.attrs["index"],))
            return
        if op in _NAMING and ins.shape.is_array and ins.operand(0).shape.is_array and \
                ins.shape.element_type is ins.operand(0).shape.element_type and \
                (op is not O.COPY or ins.shape.is_row_major == ins.operand(0).shape.is_row_major):
            self._forward(ins, ins.operand(0))
            return
        if op is O.BITCAST and _plain_bitcast(ins):
            self._forward(ins, ins.operand(0))
            return
        if op is O.CONSTANT:
            from hlotool.interpreter.kernels.data_movement import literal_value

            assert ins.literal is not None
            self._define(ins, "constant", t)
            slot = self.slots[self.leaf[(id(ins), ())]]
            slot.value = np.require(literal_value(ins.literal), slot.dtype, "C")
            return
        self._define(ins, "temp", t)
        thunk = self.ex.thunks.get(id(ins))
        kind = "native" if hasattr(thunk, "native_args") else \
            "library" if thunk is not None else "fallback"
        if kind == "fallback" and IMPLS.get(op) is None:
            raise _at(Unsupported(f"the interpreter cannot run {op.value} "
                                  f"(instruction {ins.name})"), ins)
        self.plans.append((ins, kind))

    # -- liveness and placement ----------------------------------------------------------
    def _reads(self, ins: Instruction, kind: str) -> list[int]:
        """Slots a step reads."""
        if kind == "native":
            return [s for a in self._native_args(ins) if a[0] in ("operand", "inner", "value")
                    for s in [self._arg_slot(ins, a)]]
        out = []
        for o in ins.operands:
            out.extend(self.leaf[(id(o), index)] for index, _ in leaf_items(o.shape))
            if kind == "fallback" and _contracted(o):
                out.extend(self._slot_of(x) for x in o.operands)
        return out

    def _native_args(self, ins: Instruction) -> list[tuple[Any, ...]]:
        """The kernel entry's buffers, in order (see `NativeArgs`)."""
        args = self._args_cache.get(id(ins))
        if args is None:
            args = self._args_cache[id(ins)] = self.ex.thunks[id(ins)].native_args()
        return args

    def _arg_slot(self, ins: Instruction, arg: tuple[Any, ...]) -> int:
        if arg[0] == "operand":
            return self.leaf[(id(ins.operand(arg[1])), arg[2])]
        if arg[0] == "inner":
            return self._slot_of(ins.operand(arg[1]).operand(arg[2]))
        if arg[0] == "value":
            return self._slot_of(arg[1])
        return self.leaf[(id(ins), arg[1])]

    def _slot_of(self, ins: Instruction) -> int:
        return self.leaf[(id(ins), ())]

    def _liveness(self) -> None:
        self.kinds = {id(i): k for i, k in self.plans}
        self.readers: dict[int, int] = {}
        for t, ins in enumerate(self.order):
            kind = self._kind(ins)
            if kind is None:
                continue
            for s in self._reads(ins, kind):
                slot = self.slots[s]
                slot.end = max(slot.end, t)
                self.readers[s] = self.readers.get(s, 0) + 1
        end = len(self.order)
        for s in self.root_leaves:
            slot = self.slots[s]
            slot.end = end
            if slot.kind == "temp":
                slot.kind = "output"

    def _kind(self, ins: Instruction) -> str | None:
        return self.kinds.get(id(ins))

    def _live_steps(self) -> list[tuple[Instruction, str]]:
        """The steps left once those whose values nobody reads are dropped (a product
        every user recomputes, an epilogue instruction its fusion's kernel computes),
        last to first so that what only dropped steps read is dropped too; steps with
        side effects always run."""
        readers = dict(self.readers)
        live = []
        for ins, kind in reversed(self.plans):
            if kind in ("native", "fallback") and not has_side_effect(ins) and all(
                    readers.get(slot, 0) == 0 and self.slots[slot].kind == "temp"
                    for slot in (self.leaf[(id(ins), index)] for index, _ in leaf_items(ins.shape))):
                for slot in self._reads(ins, kind):
                    readers[slot] -= 1
                continue
            live.append((ins, kind))
        return live[::-1]

    def _share_in_place(self) -> None:
        """An instruction writes a result leaf over a temp operand that dies at it."""
        t_of = {id(ins): t for t, ins in enumerate(self.order)}
        self._leaves_of: dict[int, list[Leaf]] = {}
        for key, slot in self.leaf.items():
            self._leaves_of.setdefault(slot, []).append(key)
        for ins, kind in self.plans:
            if kind == "library":
                continue
            t = t_of[id(ins)]
            taken: set[int] = set()
            for index, _ in leaf_items(ins.shape):
                mine = self.slots[self.leaf[(id(ins), index)]]
                if mine.kind != "temp":
                    continue
                for k, source in self._share_candidates(ins, index):
                    theirs = self.slots[source]
                    if theirs.kind != "temp" or theirs.end != t or theirs.id in taken or \
                            theirs.nbytes != mine.nbytes or theirs.dtype != mine.dtype:
                        continue
                    if kind == "native" and not self._may_share(ins, k, index):
                        continue
                    theirs.end = max(theirs.end, mine.end)
                    taken.add(theirs.id)
                    self._rename(mine.id, theirs.id)
                    break

    def _share_candidates(self, ins: Instruction, index: tuple[int, ...]) -> list[tuple[int, int]]:
        """(operand number, slot) of the operand leaves result leaf `index` may take
        over: XLA's CanShareOperandBufferWithUser, and a while's state leaf by leaf."""
        if ins.opcode is O.WHILE:
            return [(0, self.leaf[(id(ins.operand(0)), index)])]
        if index:
            return []
        return [(k, self._slot_of(o)) for k, o in enumerate(ins.operands)
                if o.shape.is_array and can_share_operand_buffer(ins, k, ())]

    def _may_share(self, ins: Instruction, operand: int, index: tuple[int, ...]) -> bool:
        """Whether the native kernel may write output leaf `index` over operand
        `operand`'s buffer (the thunk's `may_share`)."""
        share = getattr(self.ex.thunks[id(ins)], "may_share", None)
        return share is not None and share(operand, index)

    def _rename(self, old: int, new: int) -> None:
        keys = self._leaves_of.pop(old, [])
        for key in keys:
            self.leaf[key] = new
        self._leaves_of.setdefault(new, []).extend(keys)
        self.slots[old].kind = "dead"

    def _pack(self) -> int:
        temps = [s for s in self.slots if s.kind == "temp"]
        buffers = [Buffer(s.id, self.root, (), align(s.nbytes), "temp", s.start, s.end)
                   for s in temps]
        size = pack_arena(buffers)
        for s, b in zip(temps, buffers, strict=True):
            s.offset = b.offset
        return size

    # -- steps ----------------------------------------------------------------------------
    def _build(self, ins: Instruction, kind: str) -> _Native | _Step:
        if kind == "native":
            return self._native(ins)
        operands = [self._structure(o) for o in ins.operands]
        outs = [self.leaf[(id(ins), index)] for index, _ in leaf_items(ins.shape)]
        if kind == "library":
            thunk = self.ex.thunks[id(ins)]
            return _Step(ins, _library(thunk, self.values, outs), operands, outs)
        products = [o for o in ins.operands if _contracted(o)]
        return _Step(ins, _fallback(self.ex, ins), operands, outs, products)

    def _native(self, ins: Instruction) -> _Native:
        thunk = self.ex.thunks[id(ins)]
        layout = self._native_args(ins)
        args = (ctypes.c_void_p * len(layout))()
        patches: list[tuple[int, int]] = []
        for k, a in enumerate(layout):
            if a[0] == "address":
                args[k] = a[1]
                continue
            s = self._arg_slot(ins, a)
            if self.slots[s].kind in ("parameter", "output"):
                patches.append((k, s))
            else:
                args[k] = self.values[s].ctypes.data
        return _Native(thunk.fn, args, patches)

    def _structure(self, ins: Instruction, index: tuple[int, ...] = ()) -> Any:
        shape = ins.shape.subshape(index) if index else ins.shape
        if shape.is_tuple:
            return [self._structure(ins, (*index, k)) for k in range(len(shape.tuple_shapes))]
        return (self.leaf[(id(ins), index)], tuple(shape.dimensions))

    # -- running --------------------------------------------------------------------------
    def run(self, args: Sequence[Any]) -> Value:
        values = self.values
        for p, s in zip(self.params, self.param_slots, strict=True):
            slot = self.slots[s]
            # np.require keeps a 0-d argument 0-d (ascontiguousarray makes it 1-d).
            a = np.require(args[p.parameter_number], slot.dtype, "C")
            if a.shape != slot.dims:
                raise NotSchedulable("argument shape")
            values[s] = a
        self._bind_outputs()
        # A slot's address is looked up once (ndarray.ctypes.data costs ~1 us) until a
        # Python step may have put a new array there.
        addresses: dict[int, int] = {}
        for step in self.steps:
            if type(step) is _Native:
                a = step.args
                for k, s in step.patches:
                    address = addresses.get(s)
                    if address is None:
                        address = addresses[s] = values[s].ctypes.data
                    a[k] = address
                step.fn(a)
            else:
                self._python_step(step)
                addresses.clear()
        stats = self.ex._stats
        stats.native += self.native_count + sum(int(c[0]) for c in self.counters)
        for op, n in self.fallbacks.items():
            stats.fallback += n
            stats.fallback_by_opcode[op] = stats.fallback_by_opcode.get(op, 0) + n
        result = self._result()
        for s in self._transient:
            values[s] = None
        return result


    def _bind_outputs(self) -> None:
        """Fresh output arrays, or last run's when nobody else holds them any more."""
        last = self._last_outputs
        # Referenced only by `last`, the loop variable and getrefcount's argument.
        reuse = bool(last) and all(sys.getrefcount(a) <= 3 for a in last)
        fresh = last if reuse else [np.empty(self.slots[s].dims, self.slots[s].dtype)
                                    for s in self.output_slots]
        for s, a in zip(self.output_slots, fresh, strict=True):
            self.values[s] = a
        self._last_outputs = fresh

    def _python_step(self, step: _Step) -> None:
        values = self.values
        operands = [_value(values, o) for o in step.operands]
        for p in step.products:
            self.ex._note_product(p, [values[self._slot_of(x)] for x in p.operands])
        try:
            result = step.run(operands)
        except HloError as exc:
            raise _at(exc, step.ins) from None
        if len(step.outs) == 1 and not isinstance(result, tuple):
            dst = values[step.outs[0]]
            if result is not dst:
                np.copyto(dst, result, casting="unsafe")
            return
        for s, leaf in zip(step.outs, _leaves(result), strict=True):
            dst = values[s]
            if leaf is not dst:
                np.copyto(dst, leaf, casting="unsafe")

    def _result(self) -> Value:
        """The root's value: output slots as they are (each once), other leaves copied;
        the (slot, dims) tree is worked out on the first run."""
        if self._root_structure is None:
            self._root_structure = self._structure(self.root)
        values, slots, seen = self.values, self.slots, set()

        def build(node: Any) -> Value:
            if isinstance(node, list):
                return tuple(build(n) for n in node)
            s, dims = node
            a = values[s]
            assert a is not None
            if slots[s].kind != "output" or s in seen:
                a = np.array(a, copy=True)
            else:
                seen.add(s)
            return a if a.shape == dims else a.reshape(dims)

        return build(self._root_structure)


def _value(values: list[np.ndarray | None], structure: Any) -> Value:
    """A value from its slots: (slot, dims) for an array (a name may reshape the slot's
    value), a list of structures for a tuple."""
    if isinstance(structure, list):
        return tuple(_value(values, s) for s in structure)
    slot, dims = structure
    a = values[slot]
    return a if a.shape == dims else a.reshape(dims)


def _leaves(value: Value) -> list[Any]:
    if isinstance(value, tuple):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _plain_bitcast(ins: Instruction) -> bool:
    """A bitcast that is a row-major reshape of the same element type."""
    src, dst = ins.operand(0).shape, ins.shape
    return src.is_array and dst.is_array and src.element_type is dst.element_type and \
        src.is_row_major and dst.is_row_major


def _contracted(o: Instruction) -> bool:
    """A product the interpreter contracts into its user (fma): its operands are read."""
    return o.opcode is O.MULTIPLY and ew._feeds_fma(o)


def _library(thunk: Any, values: list[np.ndarray | None],
             outs: list[int]) -> Callable[[list[Value]], Value]:
    """Call a thunk on operand values; dots and convolutions write into their slot."""
    if isinstance(thunk, DotThunk | ConvThunk):
        slot = outs[0]
        return lambda operands: thunk(thunk.inputs(operands, {}), out=values[slot])
    return lambda operands: thunk(thunk.inputs(operands, {}))


def _fallback(ex: CpuExecutable, ins: Instruction) -> Callable[[list[Value]], Value]:
    fn = IMPLS[ins.opcode]

    def run(operands: list[Value]) -> Value:
        return fn(ex, ins, operands)

    return run


__all__ = ["NotSchedulable", "Schedule"]
