"""Reduction kernels: standalone reduce and reduce fusions with a single-op reducer.

The reducer region must be one binary op on its two parameters (add, multiply, maximum,
minimum, and, or, xor) on a native element type; the reduce has one input and any set of
reduced dimensions. In a fusion the reduce is the root and everything feeding it is
computed by the elemental emitter (the elementwise prologue runs inside the loops).

**Order.** Results are bit-identical to the interpreter, which folds in XLA:CPU's order
(hlotool/interpreter/kernels/reduction.py): while a reduced dimension is longer than 32
elements, the reduce is cut into windows of 32 along every reduced dimension (a window of
the whole dimension where it is at most 32; SAME padding, `pad_low = total // 2`), each
window is folded in row-major order starting from the init value, and the windows'
results are reduced again the same way; the last level folds everything left in
row-major order from the init value. The kernel evaluates exactly that tree, level by
level, with one scalar accumulator per level (padding cells are skipped: they hold the
op's identity). Order-free reducers (integers, pred, float max/min) give the same result
in any order, so they fold in one pass that LLVM vectorizes (`fold_levels`).

An f32 `reduce(multiply(a, b), add)` whose product feeds only the reduce is contracted as
in XLA:CPU: the first level folds `acc = fma(a, b, acc)`.

**Threads.** A reduce that keeps dims splits its output elements (row-major over the
kept dims) across threads when it has enough work (`parallel.emit_entry`); the reduced
dims are never split, so each element's fold is the same on any number of threads. A
full reduction to a scalar runs on one thread.

**Speed.** A row reduction (one reduced dimension, the contiguous one) folds 8 adjacent
windows of 32 at once: 8 independent accumulator chains, each in its own exact order,
combined into the next level in order afterwards. That hides the add latency (one chain
runs at ~1 element per 4 cycles, 8 chains at the 2 adds/cycle throughput).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from hlotool.interpreter.kernels import elementwise as ew
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu import irutils as u
from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.cpu.kernels.elemental import (
    ElementalEmitter,
    Input,
    delinearize,
    linear_index,
)

O = Opcode
P = PrimitiveType

#: XLA:CPU's tree-reduction window.
TREE_WINDOW = 32
#: Windows folded side by side in a row reduction.
JAM = 8
#: Reducer ops with a kernel.
REDUCER_OPS = frozenset({O.ADD, O.MULTIPLY, O.MAXIMUM, O.MINIMUM, O.AND, O.OR, O.XOR})


@dataclass(slots=True)
class ReducePlan:
    """One reduce (standalone or a fusion's root) computed natively."""

    name: str
    #: The reduce instruction (roots[0]).
    roots: list[Instruction]
    inputs: list[Instruction]
    constants: list[tuple[Instruction, np.ndarray]] = field(default_factory=list)
    #: Code-generation parameters chosen by the autotuner (`{"jam": 16}`: windows folded
    #: side by side in a row reduction); missing keys take the defaults (JAM).
    tune: dict[str, int | str] = field(default_factory=dict)

    @property
    def reduce(self) -> Instruction:
        return self.roots[0]


def reducer_op(reduce: Instruction) -> Opcode | None:
    """The single binary op of a reduce's region (None if it is anything else)."""
    comp = reduce.attrs.get("to_apply")
    if comp is None or reduce.operand_count != 2:
        return None
    params, root = comp.parameters, comp.root
    if len(params) != 2 or root is None or root.opcode not in REDUCER_OPS:
        return None
    if len(comp.instructions) != 3 or root.operand_count != 2 or \
            {id(o) for o in root.operands} != {id(params[0]), id(params[1])}:
        return None
    t = reduce.shape.element_type
    if any(p.shape.element_type is not t or p.shape.rank for p in params) or \
            root.shape.element_type is not t or reduce.operand(0).shape.element_type is not t:
        return None
    if t not in u.NATIVE_TYPES | u.NARROW_FLOATS:
        return None
    if (u.is_float(t) or u.is_narrow(t)) and root.opcode in (O.AND, O.OR, O.XOR):
        return None
    return root.opcode


def unsupported_reduce(reduce: Instruction) -> str | None:
    """Why `reduce` gets no kernel, or None."""
    if reduce.shape.is_tuple or reduce.operand_count != 2:
        return "variadic reduce"
    if reducer_op(reduce) is None:
        return "reducer is not a single add/multiply/max/min/and/or/xor"
    if reduce.operand(0).shape.is_dynamic:
        return "dynamic shape"
    return None


def fused_product(reduce: Instruction) -> Instruction | None:
    """The f32 multiply XLA:CPU contracts into this sum (acc = fma(a, b, acc)), if any."""
    mul = reduce.operand(0)
    if mul.opcode is not O.MULTIPLY or mul.shape.element_type is not P.F32:
        return None
    return mul if ew._feeds_fma(mul) and ew.is_sum(reduce) else None


@dataclass(slots=True)
class _Level:
    """One tree level: windows over the previous level's reduced positions."""

    #: Per reduced dim: (size of the previous level, window, padding low, window count).
    dims: list[tuple[int, int, int, int]]


def is_row_reduction(plan: ReducePlan) -> bool:
    """Whether the kernel folds JAM windows side by side (one reduced dim, the contiguous
    one, longer than a window): the autotuner times the jam factor of these kernels."""
    red = plan.reduce
    dims = red.operand(0).shape.dimensions
    rdims = sorted(red.attrs["dimensions"])
    return len(rdims) == 1 and rdims[0] == len(dims) - 1 and dims[-1] > TREE_WINDOW and \
        bool(fold_levels(red))


def fold_levels(reduce: Instruction) -> list[_Level]:
    """The tree levels a reduce folds through: XLA:CPU's tree, except for reducers whose
    result does not depend on the order (integer and pred ops, float max/min), which
    fold everything in one vectorizable pass with the same result."""
    op, t = reducer_op(reduce), reduce.shape.element_type
    if op is not None and (not (u.is_float(t) or u.is_narrow(t)) or op in (O.MAXIMUM, O.MINIMUM)):
        return []
    src = reduce.operand(0).shape.dimensions
    return tree_levels([src[d] for d in reduce.attrs["dimensions"]])


def tree_levels(sizes: Sequence[int]) -> list[_Level]:
    """The windowing levels of XLA:CPU's tree reduction for reduced-dim `sizes`."""
    levels = []
    sizes = list(sizes)
    while any(n > TREE_WINDOW for n in sizes):
        dims = []
        for n in sizes:
            w = min(n, TREE_WINDOW)
            count = -(-n // w) if n else 0
            total = max(count * w - n, 0)
            dims.append((n, w, total // 2, count))
        levels.append(_Level(dims))
        sizes = [d[3] for d in dims]
    return levels


def emit_reduce_kernel(module: ir.Module, plan: ReducePlan, symbol: str, *, x86: bool) -> None:
    """Add `symbol` computing `plan`. The output elements (the kept dims) are split
    across threads when there is enough work (`parallel.emit_entry`); the reduced dims
    never are, so every element is folded in the same order as on one thread."""
    buffers = len(plan.inputs) + len(plan.constants)
    args = [u.PTR] * (buffers + 1) + [u.I64] * 2
    body = ir.Function(module, ir.FunctionType(ir.VoidType(), args), name=f"{symbol}.body")
    body.linkage = "internal"
    body.attributes.add("noinline")
    body.attributes.add("nounwind")
    for arg in body.args[:buffers + 1]:
        arg.add_attribute("noalias")
    _ReduceEmitter(body, plan).emit()
    red = plan.reduce
    outputs = math.prod(red.shape.dimensions)
    sources = plan.inputs + [c for c, _ in plan.constants]
    work = parallel.kernel_work(math.prod(red.operand(0).shape.dimensions), [red], sources)
    parallel.emit_entry(module, symbol, body, x86, outputs, parallel.max_parts(outputs, work))


class _ReduceEmitter:
    def __init__(self, fn: ir.Function, plan: ReducePlan) -> None:
        self.fn = fn
        self.plan = plan
        self.entry = fn.append_basic_block("entry")
        self.b = ir.IRBuilder(fn.append_basic_block("start"))
        sources = plan.inputs + [c for c, _ in plan.constants]
        inputs = {id(i): Input(a, i.shape) for i, a in zip(sources, fn.args, strict=False)}
        self.out = fn.args[len(sources)]
        self.emitter = ElementalEmitter(self.b, inputs)
        red = plan.reduce
        self.red = red
        self.t = red.shape.element_type
        self.ty = u.value_type(self.t)
        self.op = reducer_op(red)
        self.product = fused_product(red)
        if self.product is not None and id(self.product) in inputs:
            self.product = None
        src = red.operand(0).shape.dimensions
        self.in_dims = src
        self.rdims = sorted(red.attrs["dimensions"])
        self.kept = [d for d in range(len(src)) if d not in self.rdims]
        self.levels = fold_levels(red)

    # -- helpers -----------------------------------------------------------------------------
    def acc(self, name: str) -> ir.Value:
        """A stack slot for an accumulator (promoted to a register by SROA)."""
        with self.b.goto_block(self.entry):
            return self.b.alloca(self.ty, name=name)

    def init(self) -> ir.Value:
        self.emitter._cache.clear()
        return self.emitter.value(self.red.operand(1), ())

    def combine(self, a: ir.Value, c: ir.Value) -> ir.Value:
        return self.emitter.fold(self.op, self.t, a, c)

    def leaf(self, acc: ir.Value, kept: Sequence[ir.Value], pos: Sequence[ir.Value]) -> ir.Value:
        """acc combined with the input element at kept index + reduced position."""
        index: list[ir.Value] = [u.i64(0)] * len(self.in_dims)
        for d, v in zip(self.kept, kept, strict=True):
            index[d] = v
        for d, v in zip(self.rdims, pos, strict=True):
            index[d] = v
        self.emitter._cache.clear()
        if self.product is not None:
            from hlotool.targets.cpu.kernels import math as fm

            x = self.emitter.value(self.product.operand(0), tuple(index))
            y = self.emitter.value(self.product.operand(1), tuple(index))
            return fm.fma(self.b, x, y, acc)
        x = self.emitter.value(self.red.operand(0), tuple(index))
        return self.combine(acc, x)

    def loop(self, lo: ir.Value, hi: ir.Value, name: str, body: Callable[[ir.Value], None],
             step: int = 1) -> ir.Value:
        """for (i = lo; i + step <= hi; i += step) body(i); returns the final i."""
        b = self.b
        pre = b.block
        header = b.append_basic_block(f"{name}.h")
        block = b.append_basic_block(f"{name}.b")
        end = b.append_basic_block(f"{name}.e")
        b.branch(header)
        b.position_at_end(header)
        i = b.phi(u.I64, name=name)
        i.add_incoming(lo, pre)
        b.cbranch(b.icmp_signed("<=", b.add(i, u.i64(step)), hi), block, end)
        b.position_at_end(block)
        body(i)
        i.add_incoming(b.add(i, u.i64(step), flags=["nsw"]), b.block)
        b.branch(header)
        b.position_at_end(end)
        return i

    # -- the tree ----------------------------------------------------------------------------
    def emit(self) -> None:
        """The body over output elements `[begin, end)` (row-major over the kept dims)."""
        b = self.b
        kept_dims = [self.in_dims[d] for d in self.kept]
        begin, end = self.fn.args[-2:]
        self.loop(begin, end, "o", lambda f: self._output(kept_dims, delinearize(b, kept_dims, f)))
        b.ret_void()
        with b.goto_block(self.entry):
            b.branch(self.fn.blocks[1])

    def _output(self, dims: list[int], index: Sequence[ir.Value]) -> None:
        """Fold and store the output element at kept `index`."""
        value = self.level_value(len(self.levels) + 1, index, None)
        if self.t is P.PRED:
            value = self.b.zext(value, u.I8)
        ptr = self.b.gep(self.out, [linear_index(self.b, dims, tuple(index))],
                         source_etype=u.storage_type(self.t), inbounds=True)
        self.b.store(value, ptr)

    def _window(self, level: int, pos: Sequence[ir.Value] | None) -> list[tuple[ir.Value, ir.Value]]:
        """[lo, hi) per reduced dim of the window at `pos` of `level` (1-based; the final
        fold, level len(levels)+1, covers everything)."""
        b = self.b
        if level == len(self.levels) + 1:
            sizes = [d[3] for d in self.levels[-1].dims] if self.levels else \
                [self.in_dims[d] for d in self.rdims]
            return [(u.i64(0), u.i64(n)) for n in sizes]
        assert pos is not None
        out = []
        for (n, w, pad, _), p in zip(self.levels[level - 1].dims, pos, strict=True):
            start = b.sub(b.mul(p, u.i64(w)), u.i64(pad))
            lo = b.select(b.icmp_signed("<", start, u.i64(0)), u.i64(0), start)
            end = b.add(start, u.i64(w))
            hi = b.select(b.icmp_signed(">", end, u.i64(n)), u.i64(n), end)
            out.append((lo, hi))
        return out

    def level_value(self, level: int, kept: Sequence[ir.Value], pos: Sequence[ir.Value] | None) -> ir.Value:
        """The value of position `pos` of tree level `level` (level 0 = the input)."""
        acc = self.acc(f"acc{level}")
        self.b.store(self.init(), acc)
        window = self._window(level, pos)
        jam = level == 2 and len(self.rdims) == 1 and self.rdims[0] == len(self.in_dims) - 1
        self._fold(level, kept, window, [], acc, jam)
        return self.b.load(acc, typ=self.ty)

    def _fold(self, level: int, kept: Sequence[ir.Value], window: list[tuple[ir.Value, ir.Value]],
              pos: list[ir.Value], acc: ir.Value, jam: bool) -> None:
        b = self.b
        k = len(pos)
        if k == len(window):
            if level == 1:
                b.store(self.leaf(b.load(acc, typ=self.ty), kept, pos), acc)
            else:
                v = self.level_value(level - 1, kept, pos)
                b.store(self.combine(b.load(acc, typ=self.ty), v), acc)
            return
        lo, hi = window[k]
        if jam and k == len(window) - 1:
            self._jammed(kept, lo, hi, acc)
            return
        self.loop(lo, hi, f"r{level}.{k}", lambda i: self._fold(level, kept, window, [*pos, i], acc, jam))

    def _jammed(self, kept: Sequence[ir.Value], lo: ir.Value, hi: ir.Value, acc: ir.Value) -> None:
        """Fold level-1 windows lo..hi-1 into acc in order, JAM full windows at a time."""
        b = self.b
        n, w, pad, count = self.levels[0].dims[0]
        first_full = 1 if pad else 0
        last_full = count - (1 if count * w - pad > n else 0)  # exclusive

        def single(q: ir.Value) -> None:
            v = self.level_value(1, kept, [q])
            b.store(self.combine(b.load(acc, typ=self.ty), v), acc)

        smin = lambda x, y: b.select(b.icmp_signed("<", x, y), x, y)  # noqa: E731
        smax = lambda x, y: b.select(b.icmp_signed(">", x, y), x, y)  # noqa: E731
        # Leading partial window(s), then groups of JAM full ones, then the rest.
        head_end = smin(hi, smax(lo, u.i64(first_full)))
        q = self.loop(lo, head_end, "jh", single)
        full_end = smin(hi, u.i64(last_full))
        jam = max(1, int(self.plan.tune.get("jam", JAM)))
        accs = [self.acc(f"jam{g}") for g in range(jam)]

        def group(q0: ir.Value) -> None:
            for a in accs:
                b.store(self.init(), a)
            base = b.sub(b.mul(q0, u.i64(w)), u.i64(pad))

            def step(j: ir.Value) -> None:
                for g, a in enumerate(accs):
                    p = b.add(b.add(base, u.i64(g * w)), j)
                    b.store(self.leaf(b.load(a, typ=self.ty), kept, [p]), a)

            self.loop(u.i64(0), u.i64(w), "jj", step)
            for a in accs:
                b.store(self.combine(b.load(acc, typ=self.ty), b.load(a, typ=self.ty)), acc)

        q = self.loop(q, full_end, "jg", group, step=jam)
        self.loop(q, hi, "jt", single)
