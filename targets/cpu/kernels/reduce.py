"""Reduction kernels: standalone reduce and reduce fusions.

The fast paths take a reducer region that is one binary op on its two parameters (add,
multiply, maximum, minimum, and, or, xor) on a native element type, one input and any
set of reduced dimensions. Any other region whose ops the elemental emitter computes on
scalars, with one or several operands (JAX's argmax/argmin: values and iota indices with
a comparator-style region; pairs such as sum+max), goes through `_GeneralEmitter`, which
emits the region on scalar values and folds in the interpreter's order (see there). In
a fusion the reduce is the root and everything feeding it is computed by the elemental
emitter (the elementwise prologue runs inside the loops).

**Order.** Results are bit-identical to the interpreter, which folds in XLA:CPU's order
(hlotool/interpreter/kernels/reduction.py): while a reduced dimension is longer than 32
elements, the reduce is cut into windows of 32 along every reduced dimension (a window of
the whole dimension where it is at most 32; SAME padding, `pad_low = total // 2`), each
window is folded in row-major order starting from the init value, and the windows'
results are reduced again the same way; the last level folds everything left in
row-major order from the init value (XLA:CPU's order where it runs the tree rewrite; the
reduces it hands to YNNPACK keep this tree, with the init once and, for float sums over
a last dim that is a multiple of 512, strided first-level windows: `strided_windows`).
The kernel evaluates exactly that tree, level by level, with one scalar accumulator per
level (padding cells are skipped: they hold the op's identity). Order-free reducers
(integers, pred, float max/min) give the same result in any order, so they fold in one
pass that LLVM vectorizes (`fold_levels`).

An f32 `reduce(multiply(a, b), add)` whose product feeds only the reduce is contracted as
in XLA:CPU: the first level folds `acc = fma(a, b, acc)`.

**Threads.** A reduce that keeps dims splits its output elements (row-major over the
kept dims) across threads when it has enough work (`parallel.emit_entry`); the reduced
dims are never split, so each element's fold is the same on any number of threads. An
order-sensitive full reduction to a scalar runs on one thread, except for its vector
first level (below), whose windows are independent.

**Vectors.** A float sum or product of an array read from memory over its trailing dims,
whose last reduced dim has at least LANES windows of 32 (`lane_folded`), folds the first
tree level with one vector lane per window: each window row of LANES * 32 elements is
loaded as vectors and transposed in registers (vector j = element j of every window,
`targets/llvm/transpose.py`), so each lane adds its window's elements in order; the
blocks at a row's ends read with masked loads where the windows are padded or the last
block runs past the last window. The level's values go to a scratch buffer (split across
the threads by groups of windows, also for a full reduction to a scalar), and the rest
of the tree folds them as above (bit-identical). LANES is 16 f32 windows on AVX-512
hosts and 8 on AVX2 hosts, where one call folds up to four vectors side by side (four
accumulator chains in flight) and reads its rows whole. A float sum XLA:CPU hands to
YNNPACK whose last dim is a multiple of 512 takes its first level's windows at a stride
instead (`strided_windows`, the interpreter's order too): vector j of a 512-element
block is already element j of its 16 windows, so the fold is plain vector adds over one
stream (`_emit_strided_fold`: 1.2-1.7x the transposing fold's rate on Zen 4, 1.7x from
memory).

**Threads.** An order-free single-op reduce (integers, float max/min) with fewer output
elements than threads, a full max for one, folds 16 ranges of its first reduced dim per
output on the threads, then the ranges (`split_chunks`): the same result in any order.

**Runtime folds.** Loops the loop vectorizer would widen in every kernel are calls of a
runtime library compiled once (`folds.py`): a float max or min of an input over its
trailing dims folds each range with the runtime's range fold (`range_runtime`), and a
column sum or product of an input over its first dim folds every tree window with the
runtime's column fold (`column_runtime`), so such kernels compile through LLVM's quick
pipeline (column sum 2048x4096: 8 ms instead of 45-57, full max 4096x4096: 12 instead
of 35-39, as fast to run).

**Speed.** A row reduction (one reduced dimension, the contiguous one) folds 8 adjacent
windows of 32 at once: 8 independent accumulator chains, each in its own exact order,
combined into the next level in order afterwards. That hides the add latency (one chain
runs at ~1 element per 4 cycles, 8 chains at the 2 adds/cycle throughput).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from hlotool.interpreter.kernels import elementwise as ew
from hlotool.interpreter.kernels.reduction import (
    SEQUENTIAL_LIMIT,
    STRIDED_LANES,
    adds_init_once,
    strided_windows,
)
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.jit import Pipeline
from hlotool.targets.cpu.kernels import folds, parallel
from hlotool.targets.llvm.elemental import (
    ElementalEmitter,
    Index,
    Input,
    delinearize,
    linear_index,
    unsupported_reason,
)
from hlotool.targets.cpu.kernels.sort import ScalarEmitter, ordered_parameters
from hlotool.targets.llvm.transpose import transpose

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

    def __post_init__(self) -> None:
        if lane_folded(self):
            lane_runtime(self.reduce.shape.element_type, lane_source(self))
        if column_runtime(self) or range_runtime(self) or tree_runtime(self):
            folds.fold_runtime()
        t = self.reduce.shape.element_type if isinstance(self.reduce, Instruction) else None
        if t in LANES and reducer_op(self.reduce) in folds.COLUMN_OPS and buffered(self):
            lane_runtime(t)  # `_ReduceEmitter._lane_fold_row`
            folds.fold_runtime()

    @property
    def scratch(self) -> list[Result]:
        """The kernel's scratch buffers (after its outputs): the first tree level's
        values when they are folded with vectors (`lane_folded`)."""
        if column_windows(self):
            count = fold_levels(self.reduce)[0].dims[0][3]
            batch = column_batch(self)
            columns = math.prod(self.reduce.shape.dimensions) // batch
            return [Result(Shape.array(self.reduce.shape.element_type,
                                       (batch * count, columns)))]
        chunks = split_chunks(self)
        if chunks:
            outputs = math.prod(self.reduce.shape.dimensions)
            return [Result(Shape.array(self.reduce.shape.element_type, (outputs, chunks)))]
        if not lane_folded(self):
            return []
        red = self.reduce
        src = red.operand(0).shape.dimensions
        outputs = math.prod(n for d, n in enumerate(src) if d not in red.attrs["dimensions"])
        counts = [d[3] for d in fold_levels(red)[0].dims]
        return [Result(Shape.array(red.shape.element_type, (outputs, *counts)))]

    @property
    def pipeline(self) -> Pipeline:
        """How LLVM compiles the kernel: a lane-folded reduction whose remaining tree
        levels fold few values (`QUICK_REST_VALUES`) is calls of the lane-fold runtime and
        a short scalar fold, so LLVM's quick pipeline (level-0 codegen: ~1 ms instead of
        ~2 ms a function; reduce-sum 2048x4096 compiled in 6.5 ms instead of 13.5 and ran
        as fast); a row reduction whose reducer depends on the order folds in scalar
        chains that no pass may vectorize, so the lean pipeline, as does a reduce of
        several operands (argmax: its region's selects fold in one chain; 1024x4096
        compiled in 16 ms instead of 26 and ran as fast); the others' loops need the
        loop vectorizer."""
        if column_runtime(self) or range_runtime(self) or tree_runtime(self):
            return Pipeline.CALLS
        if self.reduce.operand_count > 2:
            return Pipeline.LEAN
        scratch = self.scratch
        if lane_folded(self) and math.prod(scratch[0].shape.dimensions) <= QUICK_REST_VALUES:
            return Pipeline.CALLS
        lean = reducer_op(self.reduce) is not None and order_sensitive(self.reduce) and \
            not is_column_reduction(self) and not buffered(self)
        return Pipeline.LEAN if lean else Pipeline.FULL

    def make_thunk(self, ins: Instruction, library: object, symbol: str) -> object:
        """A `runtime.Thunk`. Entry buffers: inputs, constants, then one output per
        result of the reduce (tuple order). An output may be an input buffer only when
        nothing is reduced (each element is read before it is written, as in loops)."""
        from hlotool.targets.cpu.runtime import Thunk

        if not self.reduce.shape.is_tuple:
            return Thunk(ins, self, library, symbol)  # type: ignore[arg-type]
        results = [Result(s) for s in self.reduce.shape.tuple_shapes]
        view = ReducePlan(self.name, results, self.inputs, self.constants)  # type: ignore[arg-type]
        return Thunk(ins, view, library, symbol)  # type: ignore[arg-type]


@dataclass(slots=True)
class Result:
    """One array result of a kernel with a tuple result (a variadic reduce, an
    rng-bit-generator), as the runtime's Thunk reads a root."""

    shape: Shape


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
    """Why `reduce` gets no single-op kernel (the kind row kernels fold), or None."""
    if reduce.shape.is_tuple or reduce.operand_count != 2:
        return "variadic reduce"
    if reducer_op(reduce) is None:
        return "reducer is not a single add/multiply/max/min/and/or/xor"
    if reduce.operand(0).shape.is_dynamic:
        return "dynamic shape"
    return None


def unsupported_general_reduce(reduce: Instruction) -> str | None:
    """Why `reduce` gets no kernel at all (neither the single-op kernel nor
    `_GeneralEmitter`), or None."""
    if unsupported_reduce(reduce) is None:
        return None
    if any(o.shape.is_dynamic or not o.shape.is_array for o in reduce.operands):
        return "dynamic shape" if any(o.shape.is_dynamic for o in reduce.operands) else \
            "operand is not an array"
    return unsupported_region(reduce)


def unsupported_region(reduce: Instruction) -> str | None:
    """Why the region of `reduce` cannot be emitted on scalar values, or None."""
    comp = reduce.attrs.get("to_apply")
    n = reduce.operand_count // 2
    if comp is None or comp.root is None or reduce.operand_count != 2 * n or n < 1:
        return "reduce without a region"
    types = [reduce.operand(k).shape.element_type for k in range(n)]
    if any(t not in u.NATIVE_TYPES | u.NARROW_FLOATS for t in types):
        return "reduce element type"
    if [reduce.operand(n + k).shape.element_type for k in range(n)] != types:
        return "init types differ from operand types"
    params = ordered_parameters(comp)
    if len(params) != 2 * n or [p.shape.element_type for p in params] != types + types or \
            any(p.shape.rank for p in params):
        return "region parameters differ from the operands"
    results = region_results(comp.root)
    if len(results) != n or [r.shape.element_type for r in results] != types or \
            any(not r.shape.is_array or r.shape.rank for r in results):
        return "region results differ from the operands"
    return _unsupported_scalar_computation(comp)


def _unsupported_scalar_computation(comp: Computation) -> str | None:
    """Why `_RegionEmitter` cannot emit `comp` on scalars, or None."""
    for f in comp.instructions:
        if f.shape.is_array and f.shape.rank:
            return f"region {f.name}: not a scalar"
        if f.opcode in (O.PARAMETER, O.TUPLE):
            continue
        if f.opcode is O.CALL and f.shape.is_array and not f.shape.rank and \
                len(called := f.called_computations) == 1 and called[0].root is not None and \
                not called[0].root.shape.is_tuple:
            reason = _unsupported_scalar_computation(called[0])
        else:
            reason = unsupported_reason(f)
        if reason:
            return f"region {f.name}: {reason}"
    return None


def region_results(root: Instruction) -> list[Instruction]:
    """The instructions a region returns (the operands of a tuple root)."""
    return list(root.operands) if root.opcode is O.TUPLE else [root]


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
    return reducer_op(red) is not None and len(rdims) == 1 and rdims[0] == len(dims) - 1 and \
        dims[-1] > TREE_WINDOW and bool(fold_levels(red)) and not lane_folded(plan)


def _host_lanes() -> dict[PrimitiveType, int]:
    """Windows of the first tree level folded side by side in one vector, per element
    type: a 512-bit vector on AVX-512 hosts, a 256-bit one elsewhere (a 16x16 transpose
    spills on AVX2's 16 registers of 256 bits). Every window folds in the same order
    either way, so the results are the same bits."""
    wide = "+avx512f" in llvm.get_host_cpu_features().flatten().split(",")
    return {P.F32: 16, P.F64: 8} if wide else {P.F32: 8, P.F64: 4}


LANES = _host_lanes()
#: Vectors of LANES windows one lane-fold call folds side by side (`GROUPS`, most first):
#: each vector's accumulator is one chain of dependent adds, so on AVX2 (adds of 3-4
#: cycles' latency, two vectors a cycle) four chains in flight fold 2.2x the elements of
#: one; on AVX-512 the 16x16 transposes' shuffles already bound the fold.
GROUPS = (1,) if LANES[P.F32] == 16 else (4, 2, 1)


def lane_group(t: PrimitiveType, windows: int) -> int:
    """Vectors folded side by side for `windows` windows of the last reduced dim: the
    largest of GROUPS that divides them into whole blocks, else the largest block they
    fill at least once (the last block is then part padding, `_emit_lane_fold`)."""
    whole = [g for g in GROUPS if windows % (LANES[t] * g) == 0]
    return whole[0] if whole else next((g for g in GROUPS if windows >= LANES[t] * g), 1)


#: Output elements one call of the lane fold folds when each is one whole row of windows
#: (a row sum): one call per row cost ~80 ns a row more on Zen 4 (row sums of 8192 rows
#: of 1024: 1.6x the time of a full sum of the same 32 MiB).
ROW_GROUP = 16
def row_group(counts: Sequence[int], per_unit: int, outputs: int) -> int:
    """Output elements one unit of the vector first level folds: ROW_GROUP when there
    are several and each is one whole row of windows (one reduced dim, `per_unit`
    windows a unit covering all `counts` of it), else 1."""
    return ROW_GROUP if len(counts) == 1 and per_unit >= counts[0] and outputs > 1 else 1


#: Units of the vector first level below which its rows are cut into column blocks, so
#: that the threads have parts to share.
WHOLE_ROW_UNITS = 8


def lane_block(red: Instruction) -> int:
    """Windows of the last reduced dim one lane-fold block folds: STRIDED_LANES for
    strided windows (`strided_windows`), else LANES times the group."""
    if strided_windows(red):
        return STRIDED_LANES
    t = red.shape.element_type
    counts = [d[3] for d in fold_levels(red)[0].dims]
    return LANES[t] * lane_group(t, counts[-1])


def unit_windows(block: int, counts: Sequence[int], outputs: int) -> int:
    """Windows of the last reduced dim one unit of the vector first level holds (a
    multiple of the `block`), given each reduced dim's window count and the output
    elements: all of them when that leaves WHOLE_ROW_UNITS units (one lane-fold call
    then reads its rows whole, in memory order: 2x the bandwidth of reading them in
    column blocks on a 2-core EPYC), else one block."""
    whole = outputs * math.prod(counts[:-1]) >= WHOLE_ROW_UNITS
    return -(-counts[-1] // block) * block if whole else block


#: Most values the tree levels after the lane-folded first one may fold for the kernel
#: to take the quick pipeline: at codegen level 0 each scalar add goes through the stack
#: (~1.5 ns instead of ~0.4), so 16384 of them cost ~20 us more; a row reduction of
#: 2048 rows of 4096 (262144 values) ran 2.6 instead of 1.2 ms there.
QUICK_REST_VALUES = 16384


def lane_folded(plan: ReducePlan) -> bool:
    """Whether the kernel folds the first tree level with vectors (`_emit_lane_level`):
    a float sum or product of an input read from memory (no computed prologue, no
    contracted product), row-major, over its trailing dims, whose last reduced dim is
    cut into at least LANES windows of 32 (padded ones included), or into strided
    windows (`strided_windows`). Each vector lane holds one window's accumulator and
    takes that window's elements in order (a register transpose puts element j of
    LANES adjacent windows in one vector; strided windows need none), so every window
    folds exactly as the scalar tree does."""
    red = plan.reduce
    if not isinstance(red, Instruction):  # a tuple result's view (`make_thunk`)
        return False
    t = red.shape.element_type
    if reducer_op(red) not in (O.ADD, O.MULTIPLY) or t not in LANES or red.shape.is_tuple:
        return False
    if square_input(plan) is not None:
        return True
    src = red.operand(0)
    read = _converted_input(plan) or src
    if not any(read is i for i in plan.inputs) or not read.shape.is_row_major:
        return False
    rank, rdims = src.shape.rank, sorted(red.attrs["dimensions"])
    if not rdims or rdims != list(range(rank - len(rdims), rank)):
        return False
    levels = fold_levels(red)
    if not levels:
        return False
    return strided_windows(red) or _lane_windows(levels[0].dims[-1], t)


#: Element types a lane fold of f32 reads and widens (exactly) as it loads them.
NARROW_SOURCES = (P.BF16, P.F16)


def _converted_input(plan: ReducePlan) -> Instruction | None:
    """The bf16/f16 input an f32 reduce folds through a convert (jnp.sum of bf16 sums in
    f32), which a lane fold reads and widens as it loads; None otherwise."""
    red = plan.reduce
    src = red.operand(0)
    if src.opcode is not O.CONVERT or red.shape.element_type is not P.F32:
        return None
    x = src.operand(0)
    if x.shape.element_type not in NARROW_SOURCES or not any(x is i for i in plan.inputs):
        return None
    return x


def _squared(red: Instruction | object) -> Instruction | None:
    """x of a sum of x * x over strided windows (`strided_windows`: a sum XLA:CPU runs on
    YNNPACK) whose product is contracted (acc = fma(x, x, acc), `fused_product`)."""
    if not isinstance(red, Instruction) or red.shape.is_tuple or not strided_windows(red):
        return None
    mul = fused_product(red)
    if mul is None or mul.operand(0) is not mul.operand(1):
        return None
    return mul.operand(0)


def square_input(plan: ReducePlan) -> Instruction | None:
    """The input x of a sum of x * x (`_squared`) read from memory: the strided lane fold
    squares its elements as it folds them (`_emit_strided_fold`); None otherwise."""
    x = _squared(plan.reduce)
    return x if x is not None and any(x is i for i in plan.inputs) and x.shape.is_row_major \
        else None


def row_square(red: Instruction, kept: int) -> Instruction | None:
    """x of a sum of x * x (`_squared`) over the dims after the first `kept`, whose rows
    of x (an input, or computed into a row buffer: `fits_row_buffer`) the strided lane
    fold of squares folds (`row_reduce_emitter`, `_ReduceEmitter._fold_row`)."""
    x = _squared(red)
    if x is None or sorted(red.attrs["dimensions"]) != list(range(kept, x.shape.rank)):
        return None
    return x


def buffered_square(plan: ReducePlan) -> Instruction | None:
    """The computed x of a reduce kernel's sum of x * x over the last dim (`row_square`:
    a variance's centered values), computed for each output's row into a buffer
    (`row_values`, vectorized) and folded by the strided lane fold of squares and the
    tree fold; None otherwise."""
    red = plan.reduce
    if not isinstance(red, Instruction):
        return None
    kept = red.operand(0).shape.rank - 1
    x = row_square(red, kept)
    if x is None or x.opcode in (O.PARAMETER, O.CONSTANT) or any(x is i for i in plan.inputs):
        return None
    return x if fits_row_buffer(x, kept) else None


def lane_source(plan: ReducePlan) -> PrimitiveType | None:
    """The element type a `lane_folded` kernel reads when it is not the reduce's: bf16 or
    f16 widened to f32 (`_converted_input`)."""
    x = _converted_input(plan)
    return x.shape.element_type if x is not None else None


def _lane_windows(dim: tuple[int, int, int, int], t: PrimitiveType) -> bool:
    """Whether the last reduced dim's first-level windows (n, w, pad, count) fold with
    vectors: windows of 32, at least LANES of them (padding at the ends and a last block
    part empty are masked)."""
    n, w, pad, count = dim
    return w == TREE_WINDOW and count >= LANES[t]


def fold_levels(reduce: Instruction) -> list[_Level]:
    """The tree levels a reduce folds through: XLA:CPU's tree, except for reducers whose
    result does not depend on the order (integer and pred ops, float max/min), which
    fold everything in one vectorizable pass with the same result - when the init value
    enters once either way (XLA:CPU adds it once per window of its tree)."""
    if reducer_op(reduce) is not None and not order_sensitive(reduce) and (
            adds_init_once(reduce) or init_idempotent(reduce)):
        return []
    src = reduce.operand(0).shape.dimensions
    return tree_levels([src[d] for d in reduce.attrs["dimensions"]])


#: Largest row (bytes) whose folded values a kernel keeps in a stack buffer (threads
#: get glibc's default stack, 8 MiB).
ROW_BUFFER_BYTES = 256 << 10


def buffers_row(red: Instruction, kept: int) -> bool:
    """Whether the values a reduce folds (its operand, computed in the fusion) are
    computed for the whole row first, into a buffer: when the fold is order-sensitive
    (scalar chains, where their math would run one element at a time; in a loop of its
    own the loop vectorizer widens it) and the row (the dims after the first `kept`)
    fits `ROW_BUFFER_BYTES`. The row's other uses of the values then read the buffer
    too (a row kernel's softmax computes exp once, not twice)."""
    product = red.operand(0)
    # A product the fold contracts into fma (XLA:CPU's sum of products) stays fused.
    return reducer_op(red) is not None and order_sensitive(red) and \
        product.opcode not in (O.PARAMETER, O.CONSTANT) and fused_product(red) is None and \
        fits_row_buffer(product, kept)


def fits_row_buffer(ins: Instruction, kept: int) -> bool:
    """Whether a row of `ins` (the dims after the first `kept`) fits ROW_BUFFER_BYTES."""
    size = math.prod(ins.shape.dimensions[kept:]) * \
        np.dtype(ins.shape.element_type.numpy_dtype).itemsize
    return 0 < size <= ROW_BUFFER_BYTES


def row_values(b: ir.IRBuilder, entry: ir.Block, product: Instruction, index: list[ir.Value],
                kept: int, known: dict[int, Input]) -> Input:
    """Compute `product` over the current row into a stack buffer (a loop of its own,
    which the loop vectorizer widens); the Input reading it."""
    inner = product.shape.dimensions[kept:]
    ty = u.storage_type(product.shape.element_type)
    with b.goto_block(entry):
        buf = u.stack_buffer(b, ty, math.prod(inner), "row", align=64)
    em = ElementalEmitter(b, known)

    def elems(k: int, idx: list[ir.Value]) -> None:
        if k == len(inner):
            em._cache.clear()
            v = em.value(product, (*index, *idx))
            if v.type == u.I1:
                v = b.zext(v, u.I8)
            b.store(v, b.gep(buf, [linear_index(b, inner, tuple(idx))], source_etype=ty,
                             inbounds=True))
            return
        with u.for_range(b, inner[k], name=f"m{k}") as i:
            elems(k + 1, [*idx, i])

    elems(0, [])
    return Input(buf, product.shape, skip=kept)


def init_idempotent(reduce: Instruction) -> bool:
    """op(init, init) == init for the reduce's init value (always for max, min, and, or;
    for the others when the init is a known constant with that property)."""
    op = reducer_op(reduce)
    if op in (O.MAXIMUM, O.MINIMUM, O.AND, O.OR):
        return True
    init = reduce.operand(1)
    comp = init.parent
    if init.opcode is O.PARAMETER and comp is not None and comp.fusion_instruction is not None:
        init = comp.fusion_instruction.operand(init.parameter_number)
    if init.opcode is not O.CONSTANT or init.literal is None or init.literal.array is None \
            or init.literal.elided:
        return False
    v = np.atleast_1d(init.literal.array)
    k = ew.kind(reduce.shape.element_type)
    again = ew.apply_op(op, k, k, [v, v])
    return v.tobytes() == np.asarray(again, v.dtype).tobytes()


def order_sensitive(reduce: Instruction) -> bool:
    """Whether a single-op reduce's result depends on the fold order (a float or
    narrow-float reducer other than max/min)."""
    op, t = reducer_op(reduce), reduce.shape.element_type
    return (u.is_float(t) or u.is_narrow(t)) and op not in (O.MAXIMUM, O.MINIMUM)


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
    results = plan.reduce.operand_count // 2
    if lane_folded(plan):
        _emit_lane_kernel(module, plan, symbol, x86)
        return
    chunks = split_chunks(plan)
    if chunks:
        _emit_split_kernel(module, plan, symbol, x86, chunks)
        return
    if column_windows(plan):
        _emit_column_windows_kernel(module, plan, symbol, x86)
        return
    body = parallel.body_function(module, symbol, buffers + results)
    red = plan.reduce
    src = red.operand(0).shape.dimensions
    outputs = math.prod(n for d, n in enumerate(src) if d not in red.attrs["dimensions"])
    sources = plan.inputs + [c for c, _ in plan.constants]
    work = _work(red, sources)
    if is_column_reduction(plan):
        # Chunks small enough that every thread gets one, at most COLUMN_CHUNK wide.
        per_part = -(-outputs // parallel.max_parts(outputs, work))
        chunk = min(COLUMN_CHUNK, max(16, -(-per_part // 16) * 16))
        _ColumnEmitter(body, plan, chunk).emit()
        outputs = -(-outputs // chunk)
    elif reducer_op(red) is not None:
        _ReduceEmitter(body, plan).emit()
    else:
        _GeneralEmitter(body, plan).emit()
    parallel.emit_entry(module, symbol, body, x86, outputs, parallel.max_parts(outputs, work))


#: Ranges of the first reduced dim an order-free reduce with few outputs is cut into per
#: output (`split_chunks`).
SPLIT = 16
#: The identity an order-free integer fold's ranges start from when the init value enters
#: once (max, min, and, or are idempotent: their ranges start from the init).
_IDENTITY = {O.ADD: 0, O.MULTIPLY: 1, O.XOR: 0}


def split_chunks(plan: ReducePlan) -> int:
    """Ranges per output element of the first reduced dim that the threads fold apart,
    for a single-op reduce whose result does not depend on the order (integer, pred-free,
    float max/min: `fold_levels` is empty) and whose output elements are too few for
    the threads (a full max of a large array); 0 when the kernel folds each output in
    one pass. Every range starts from the init value (idempotent reducers) or the op's
    identity, and the second step folds the ranges from the init, so the result is the
    one pass's."""
    red = plan.reduce
    if not isinstance(red, Instruction) or red.shape.is_tuple:
        return 0
    op, t = reducer_op(red), red.shape.element_type
    if op is None or t is P.PRED or order_sensitive(red) or fold_levels(red) or \
            is_column_reduction(plan):
        return 0
    if not init_idempotent(red) and op not in _IDENTITY:
        return 0
    rdims = sorted(red.attrs["dimensions"])
    if not rdims:
        return 0
    src = red.operand(0).shape.dimensions
    outputs = math.prod(n for d, n in enumerate(src) if d not in rdims)
    chunks = min(SPLIT, src[rdims[0]])
    work = _work(red, plan.inputs + [c for c, _ in plan.constants])
    if chunks < 2 or \
            parallel.max_parts(outputs * chunks, work) <= parallel.max_parts(outputs, work):
        return 0
    return chunks


def _memory_operand(plan: ReducePlan) -> bool:
    """Whether the reduce folds a row-major input buffer itself (no computed prologue,
    no contracted product) into an array of a float type with runtime folds."""
    red = plan.reduce
    if not isinstance(red, Instruction) or red.shape.is_tuple:
        return False
    src = red.operand(0)
    return any(src is i for i in plan.inputs) and src.shape.is_row_major


def range_runtime(plan: ReducePlan) -> bool:
    """Whether a `split_chunks` kernel's ranges are the runtime's range folds
    (`folds.range_symbol`): a float max or min of an input read from memory over its
    trailing dims, so that each (output, range) unit is contiguous."""
    if not _memory_operand(plan) or not split_chunks(plan):
        return False
    red = plan.reduce
    rank, rdims = red.operand(0).shape.rank, sorted(red.attrs["dimensions"])
    return reducer_op(red) in folds.RANGE_OPS and red.shape.element_type in folds.RANGE_TYPES \
        and rdims == list(range(rank - len(rdims), rank))


def _emit_split_kernel(module: ir.Module, plan: ReducePlan, symbol: str, x86: bool,
                       chunks: int) -> None:
    """`symbol` in two parallel steps (`split_chunks`): each (output, range) folded into
    the scratch buffer, then each output's ranges folded into it."""
    red = plan.reduce
    sources = plan.inputs + [c for c, _ in plan.constants]
    n_args = len(sources) + 2  # + the output and the ranges' buffer
    outputs = math.prod(red.shape.dimensions)
    first = parallel.body_function(module, f"{symbol}.ranges", n_args)
    _SplitEmitter(first, plan, chunks).emit()
    rest = parallel.body_function(module, f"{symbol}.rest", n_args)
    _SplitEmitter(rest, plan, chunks).emit_rest()
    work = _work(red, sources)
    parallel.emit_steps(module, symbol, x86,
                        [(first, outputs * chunks, parallel.max_parts(outputs * chunks, work)),
                         (rest, outputs, 1)])


def column_windows(plan: ReducePlan) -> bool:
    """Whether a column reduction over its first dim alone, longer than a window, folds
    its first tree level by windows of rows (`_ColumnWindowEmitter`): a unit is 32 whole
    rows, read in memory order, into one row of first-level values, and the threads take
    the units; the rest of the tree then runs by column chunks (`_ColumnRestEmitter`).
    Column chunks alone read 1 KiB of every row at a 16 KiB stride for a 4096-wide
    input (14 GB/s on 2 cores). A reduce over one middle dim (a mean over the sequence
    of [batch, sequence, features]) is a batch of such column reductions when the
    runtime's column folds take it (`_column_folds_take`)."""
    red = plan.reduce
    if not isinstance(red, Instruction) or not fold_levels(red):
        return False
    if is_column_reduction(plan) and sorted(red.attrs["dimensions"]) == [0]:
        return True
    rdims, dims = sorted(red.attrs["dimensions"]), red.operand(0).shape.dimensions
    return len(rdims) == 1 and 0 < rdims[0] < len(dims) - 1 and \
        math.prod(dims[rdims[0] + 1:]) >= 16 and _column_folds_take(plan)


def column_batch(plan: ReducePlan) -> int:
    """The column reductions a `column_windows` kernel holds: the elements of the dims
    before the reduced one."""
    red = plan.reduce
    return math.prod(red.operand(0).shape.dimensions[:min(red.attrs["dimensions"])])


#: Most bytes of stack a `column_runtime` kernel's rest keeps its tree levels in.
COLUMN_STACK_BYTES = 1 << 20


def column_runtime(plan: ReducePlan) -> bool:
    """Whether a `column_windows` kernel folds through the runtime's column folds
    (`folds.column_symbol`, `_column_folds_take`)."""
    return column_windows(plan) and _column_folds_take(plan)


def _column_folds_take(plan: ReducePlan) -> bool:
    """A float sum or product of an input read from memory whose tree levels above the
    first fit COLUMN_STACK_BYTES by chunks of COLUMN_CHUNK columns
    (`_ColumnRuntimeRest`)."""
    if not _memory_operand(plan):
        return False
    red = plan.reduce
    t = red.shape.element_type
    if reducer_op(red) not in folds.COLUMN_OPS or t not in folds.COLUMN_TYPES:
        return False
    rows = sum(level.dims[0][3] for level in fold_levels(red)[1:])
    return rows * COLUMN_CHUNK * t.bits // 8 <= COLUMN_STACK_BYTES


#: Units the first step of `column_windows` kernels cuts at least (row windows times
#: column parts), for the threads to share.
COLUMN_UNITS = 8


def _emit_column_windows_kernel(module: ir.Module, plan: ReducePlan, symbol: str,
                                x86: bool) -> None:
    """`symbol` in two parallel steps (`column_windows`): units of (column reduction, row
    window, column part) into the scratch buffer [batch, windows, columns], then the tree
    above by chunks of COLUMN_CHUNK columns."""
    red = plan.reduce
    sources = plan.inputs + [c for c, _ in plan.constants]
    n_args = len(sources) + 2
    batch = column_batch(plan)
    columns = math.prod(red.shape.dimensions) // batch
    windows = fold_levels(red)[0].dims[0][3]
    splits = min(-(-COLUMN_UNITS // (windows * batch)), -(-columns // 16))
    first = parallel.body_function(module, f"{symbol}.l1", n_args)
    _ColumnWindowEmitter(first, plan, splits, -(-columns // splits)).emit()
    rest = parallel.body_function(module, f"{symbol}.rest", n_args)
    if column_runtime(plan):
        _ColumnRuntimeRest(rest, plan).emit()
    else:
        _ColumnRestEmitter(rest, plan, COLUMN_CHUNK).emit()
    work = _work(red, sources)
    units = batch * windows * splits
    chunks = batch * -(-columns // COLUMN_CHUNK)
    rest_work = windows * batch * columns * 2
    parallel.emit_steps(module, symbol, x86,
                        [(first, units, parallel.max_parts(units, work)),
                         (rest, chunks, parallel.max_parts(chunks, rest_work))])


#: Output elements a column reduction folds side by side (its accumulator rows).
COLUMN_CHUNK = 256


def buffered(plan: ReducePlan) -> bool:
    """Whether the kernel computes each output's folded values into a row buffer first
    (`buffers_row`: a reduce over its trailing dims of values computed in the kernel);
    that loop needs the loop vectorizer, so the full pipeline."""
    red = plan.reduce
    if buffered_square(plan) is not None:
        return True
    rdims = sorted(red.attrs["dimensions"])
    kept = red.operand(0).shape.rank - len(rdims)
    sources = {id(i) for i in plan.inputs} | {id(c) for c, _ in plan.constants}
    return rdims == list(range(kept, red.operand(0).shape.rank)) and \
        id(red.operand(0)) not in sources and buffers_row(red, kept) and \
        not is_column_reduction(plan)


def is_column_reduction(plan: ReducePlan) -> bool:
    """A single-op reduce over leading dims only, keeping a contiguous block of at least
    16 elements per reduced position (XLA's column reduction): `_ColumnEmitter`."""
    red = plan.reduce
    if reducer_op(red) is None or red.shape.element_type is P.PRED:
        return False
    rdims = sorted(red.attrs["dimensions"])
    dims = red.operand(0).shape.dimensions
    return bool(rdims) and rdims == list(range(len(rdims))) and len(rdims) < len(dims) and \
        math.prod(dims[len(rdims):]) >= 16


#: Work units (`parallel.kernel_work`) of one level-1 value the rest of a lane-folded
#: tree folds: a dependent scalar add, ~1.2 ns on Zen 4, where a unit of streaming work
#: is ~0.015 ns (the threads take the rest of a mean over 8192 rows of 1024: 8% faster).
REST_WORK = 64


def tree_runtime(plan: ReducePlan) -> bool:
    """Whether the tree above a `lane_folded` kernel's first level is the runtime's tree
    fold (`folds.tree_symbol`): the first level leaves each output one row of values
    (only the last reduced dim has more than one window), so the tree above is the one
    of a single dim."""
    if not lane_folded(plan):
        return False
    red = plan.reduce
    counts = [d[3] for d in fold_levels(red)[0].dims]
    return reducer_op(red) in folds.COLUMN_OPS and red.shape.element_type in folds.COLUMN_TYPES \
        and math.prod(counts[:-1]) == 1


def _emit_lane_kernel(module: ir.Module, plan: ReducePlan, symbol: str, x86: bool) -> None:
    """`symbol` in two parallel steps: the first tree level with vectors into the scratch
    buffer (split over units of windows, `unit_windows`), then the rest of the tree from it
    (split over output elements, `_LevelOneEmitter`)."""
    red = plan.reduce
    sources = plan.inputs + [c for c, _ in plan.constants]
    n_args = len(sources) + 2  # + the output and the level-1 buffer
    src = red.operand(0).shape.dimensions
    outputs = math.prod(src[:len(src) - len(red.attrs["dimensions"])])
    counts = [d[3] for d in fold_levels(red)[0].dims]
    per_unit = unit_windows(lane_block(red), counts, outputs)
    units = outputs * math.prod(counts[:-1]) * -(-counts[-1] // per_unit)
    if row_group(counts, per_unit, outputs) > 1:  # `_LaneFolder.rows`
        units = -(-outputs // ROW_GROUP)
    work = _work(red, sources)
    first = parallel.body_function(module, f"{symbol}.l1", n_args)
    _emit_lane_level(first, plan)
    rest = parallel.body_function(module, f"{symbol}.rest", n_args)
    if tree_runtime(plan):
        _TreeRuntimeRest(rest, plan).emit()
    else:
        _LevelOneEmitter(rest, plan).emit()
    rest_work = outputs * math.prod(counts) * REST_WORK
    parallel.emit_steps(module, symbol, x86,
                        [(first, units, parallel.max_parts(units, work)),
                         (rest, outputs, parallel.max_parts(outputs, rest_work))])


def _emit_lane_level(fn: ir.Function, plan: ReducePlan) -> None:
    """The body of the first tree level over units [begin, end): a unit is adjacent
    windows of the last reduced dim (`unit_windows`) at one position of the other
    reduced dims' windows and one output element (`_LaneFolder.unit`)."""
    red = plan.reduce
    sources = plan.inputs + [c for c, _ in plan.constants]
    inputs = {id(i): Input(a, i.shape) for i, a in zip(sources, fn.args, strict=False)}
    begin, end = fn.args[-2:]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    init = ElementalEmitter(b, inputs).value(red.operand(1), ())
    if adds_init_once(red):  # the init enters once, at the tree's root (XLA:CPU's YNNPACK)
        init = ir.Constant(u.value_type(red.shape.element_type), -0.0)
    src = red.operand(0).shape.dimensions
    outputs = math.prod(src[:len(src) - len(red.attrs["dimensions"])])
    square = square_input(plan)
    folder = _LaneFolder(b, red, init, outputs, lane_source(plan), square is not None)
    read = _converted_input(plan) or square or red.operand(0)
    with u.for_range(b, b.sub(end, begin), name="unit") as i:
        unit = b.add(begin, i, flags=["nsw", "nuw"])
        src_ptr, level1 = inputs[id(read)].pointer, fn.args[len(sources) + 1]
        if folder.row_group > 1:
            folder.rows(src_ptr, b.mul(unit, u.i64(folder.row_group)), level1, outputs)
        else:
            index = list(delinearize(b, [outputs, *folder.units], unit))
            folder.unit(src_ptr, b.mul(index[0], u.i64(folder.per_output)), index[1:], level1,
                        b.mul(index[0], u.i64(folder.positions)))
    b.ret_void()


def lane_row(red: Instruction, source: Input | None, kept: int) -> bool:
    """Whether a row kernel's reduce (over the dims after the first `kept`) folds its first
    tree level with vectors (`_LaneFolder`): as `lane_folded`, reading `source` (the
    operand's buffer: an input, or the row's values computed into a row buffer)."""
    t = red.shape.element_type
    if source is None or reducer_op(red) not in (O.ADD, O.MULTIPLY) or t not in LANES or \
            fused_product(red) is not None or not source.shape.is_row_major:
        return False
    rank = red.operand(0).shape.rank
    if sorted(red.attrs["dimensions"]) != list(range(kept, rank)) or source.skip not in (0, kept):
        return False
    levels = fold_levels(red)
    if not levels:
        return False
    return strided_windows(red) or _lane_windows(levels[0].dims[-1], t)


class _LaneFolder:
    """Emits the vector first tree level of a reduce (see `lane_folded`): per unit, calls
    of the runtime's lane fold (`lane_runtime`) over the window rows."""

    def __init__(self, b: ir.IRBuilder, red: Instruction, init: ir.Value,
                 outputs: int, source: PrimitiveType | None = None, square: bool = False) -> None:
        """`outputs`: the output elements whose units are split over threads (1 for a
        row kernel's one row); `source`: the narrow type the rows hold (`lane_source`);
        `square`: the rows hold x of a sum of x * x (`square_input`)."""
        self.b, self.red = b, red
        t = red.shape.element_type
        self.level = fold_levels(red)[0].dims
        counts = [d[3] for d in self.level]
        block = lane_block(red)
        #: Windows one unit holds: `blocks` blocks of `block` windows (the last unit's
        #: last block may run past the last window).
        self.lanes = unit_windows(block, counts, outputs)
        self.blocks = self.lanes // block
        self.ety = u.value_type(t)
        #: The type of the rows' elements in memory.
        self.src_ety = ir.IntType(16) if source is not None else self.ety
        self.init = init
        group = 0 if strided_windows(red) else block // LANES[t]
        name = lane_symbol(t, reducer_op(red), group, source, square)
        self.fold = b.module.globals.get(name) or ir.Function(
            b.module, _lane_fold_type(self.ety), name=name)
        src = red.operand(0).shape.dimensions
        reduced = [src[d] for d in sorted(red.attrs["dimensions"])]
        self.strides = [math.prod(reduced[k + 1:]) for k in range(len(reduced))]
        self.per_output = math.prod(reduced)
        self.counts = counts
        #: Units per output element: level-1 positions of the other reduced dims x groups.
        self.units = [*counts[:-1], -(-counts[-1] // self.lanes)]
        #: Level-1 values per output element.
        self.positions = math.prod(counts)
        #: Output elements one unit folds (`rows`): ROW_GROUP when each output is one
        #: whole row of windows, else 1.
        self.row_group = row_group(counts, self.lanes, outputs)

    def rows(self, src: ir.Value, first: ir.Value, level1: ir.Value, outputs: int) -> None:
        """Fold the rows of output elements first .. first + row_group - 1 (fewer at the
        end) in one call, each into its own level-1 values (starting as the init)."""
        b = self.b
        n, _, pad, _ = self.level[-1]
        count = _smin(b, u.i64(self.row_group), b.sub(u.i64(outputs), first))
        at = b.sub(b.mul(first, u.i64(self.per_output)), u.i64(pad))
        acc = b.gep(level1, [b.mul(first, u.i64(self.positions))], source_etype=self.ety,
                    inbounds=True)
        b.call(self.fold, [b.gep(src, [at], source_etype=self.src_ety), u.i64(self.per_output),
                           count, acc, u.i64(self.blocks), u.i64(pad), u.i64(n + pad),
                           u.i64(self.positions), ir.Constant(u.I1, 1), self.init])

    def all_units(self, src: ir.Value, base: ir.Value, level1: ir.Value) -> None:
        """Every unit of one output element (elements from `base`), its level-1 values
        to `level1` [positions]."""
        b = self.b
        with u.for_range(b, math.prod(self.units), name="lane") as i:
            self.unit(src, base, list(delinearize(b, self.units, i)), level1, u.i64(0))

    def unit(self, src: ir.Value, base: ir.Value, index: list[ir.Value], level1: ir.Value,
             first: ir.Value) -> None:
        """Fold the unit's windows at `index` (level-1 positions of the other reduced
        dims, then the group) of the output element whose elements start at `base`,
        into `level1` + `first` + their positions (which start as the init value)."""
        b, lanes = self.b, self.lanes
        pos, g = index[:-1], index[-1]
        n, _, pad, count = self.level[-1]
        q0 = b.mul(g, u.i64(lanes))
        slot = b.add(b.add(first, b.mul(linear_index(b, self.counts[:-1], tuple(pos)),
                                        u.i64(count))), q0)
        acc = b.gep(level1, [slot], source_etype=self.ety, inbounds=True)
        # This unit's windows q0.. read elements from start = q0 * 32 - pad of each row;
        # those in [lo, hi) relative to it are the input, the rest padding.
        start = b.sub(b.mul(q0, u.i64(TREE_WINDOW)), u.i64(pad))
        lo = b.select(b.icmp_signed("<", start, u.i64(0)), b.neg(start), u.i64(0))
        hi = b.sub(u.i64(n), start)
        with u.for_range(b, _smin(b, u.i64(lanes), b.sub(u.i64(count), q0)), name="init") as q:
            b.store(self.init, b.gep(acc, [q], source_etype=self.ety, inbounds=True))
        blocks = u.i64(self.blocks)

        def call(at: ir.Value, stride: ir.Value, rows: ir.Value) -> None:
            b.call(self.fold, [b.gep(src, [at], source_etype=self.src_ety), stride, rows, acc,
                               blocks, lo, hi, u.i64(0), ir.Constant(u.I1, 0), self.init])

        def rows(k: int, at: ir.Value) -> None:
            if not pos:
                call(at, u.i64(0), u.i64(1))
                return
            n, w, pad, _ = self.level[k]
            begin = b.sub(b.mul(pos[k], u.i64(w)), u.i64(pad))
            row0 = b.select(b.icmp_signed("<", begin, u.i64(0)), u.i64(0), begin)
            stop = b.add(begin, u.i64(w))
            row1 = b.select(b.icmp_signed(">", stop, u.i64(n)), u.i64(n), stop)
            first_row = b.add(at, b.mul(row0, u.i64(self.strides[k])))
            if k == len(pos) - 1:
                call(first_row, u.i64(self.strides[k]), b.sub(row1, row0))
                return
            with u.for_range(b, b.sub(row1, row0), name=f"w{k}") as j:
                rows(k + 1, b.add(first_row, b.mul(j, u.i64(self.strides[k]))))

        rows(0, b.add(base, start))


def _smin(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def _lane_fold_type(ety: ir.Type) -> ir.FunctionType:
    """`void fold(ptr src, i64 stride, i64 rows, ptr acc, i64 blocks, i64 lo, i64 hi,
    i64 acc_stride, i1 fresh, T init)`: window accumulators fold `rows` window rows, row r
    being the blocks * G * LANES * 32 elements at src + r * stride (window q: elements
    q * 32 .. q * 32 + 31), each window in order, into the accumulators at acc + r *
    acc_stride (one per window; `fresh`: each row's start as `init` instead of being
    read: the rows of consecutive outputs, `_LaneFolder.row_group`). Only elements
    lo <= e < hi of a row are read (the others are padding: the reducer's identity) and
    only windows with an element below hi are stored; rows are read whole, one after
    the other."""
    return ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64, u.PTR, u.I64, u.I64, u.I64,
                                           u.I64, u.I1, ety])


def lane_symbol(t: PrimitiveType, op: Opcode | None, group: int,
                source: PrimitiveType | None = None, square: bool = False) -> str:
    """The runtime lane fold of element type `t`, reducer `op` (add or multiply) and
    `group` vectors of windows (0: the strided sum, `_emit_strided_fold`, of squares
    when `square`), reading elements of `source` (bf16/f16, widened) when given."""
    kind = f"{'f32' if t is P.F32 else 'f64'}_{'add' if op is O.ADD else 'mul'}"
    if square:
        return f"hlotool_lane_fold_{kind}_squares_strided"
    kind += f"_from_{source.name.lower()}" if source is not None else ""
    if not group:
        return f"hlotool_lane_fold_{kind}_strided"
    return f"hlotool_lane_fold_{kind}" + (f"_x{group}" if group > 1 else "")


@functools.cache
def lane_runtime(t: PrimitiveType, source: PrimitiveType | None = None) -> object:
    """Load (from the disk cache) or compile the lane folds of `t` once per process and
    register their symbols, before any kernel calling them is compiled or loaded (plans
    ask for it: `ReducePlan`, `row.RowPlan`). Its 32 loads and ~128 shuffles per row
    cost LLVM ~50-100 ms to compile, so kernels call it, as conv's microkernels."""
    from hlotool.targets.cpu.cache import runtime_library

    names = [(lane_symbol(t, op, g, source), op, g) for op in (O.ADD, O.MULTIPLY)
             for g in GROUPS]
    names.append((lane_symbol(t, O.ADD, 0, source), O.ADD, 0))
    squares = lane_symbol(t, O.ADD, 0, square=True) if t is P.F32 and source is None else None

    def text() -> str:
        module = ir.Module(name="hlotool_lane_fold")
        for name, op, group in names:
            if group:
                _emit_lane_fold(module, name, t, op, group, source)
            else:
                _emit_strided_fold(module, name, t, source)
        if squares is not None:
            _emit_strided_fold(module, squares, t, square=True)
        return str(module)

    suffix = f"_from_{source.name}" if source is not None else ""
    library = runtime_library(f"lane_fold_{t.name}{suffix}", text, Pipeline.LEAN)
    for name in [n for n, _, _ in names] + ([squares] if squares else []):
        llvm.add_symbol(name, library.address(name))
    return library  # kept alive for the life of the process


def _emit_lane_fold(module: ir.Module, name: str, t: PrimitiveType, op: Opcode,
                    group: int, source: PrimitiveType | None = None) -> None:
    """The runtime lane fold (`_lane_fold_type`): per row and block, each of `group` segments
    loaded as vectors and transposed in registers so that vector j holds element j of
    each of its windows, then added (multiplied) into its accumulators in order; the
    segments' chains interleave. A block that reaches past [lo, hi) reads with masked
    loads (the padding lanes hold the reducer's identity, -0 or 1, which leaves every
    value as it is) and stores only its windows below hi."""
    lanes = LANES[t]
    vty = ir.VectorType(u.value_type(t), lanes)
    fn = ir.Function(module, _lane_fold_type(vty.element), name=name)
    fn.attributes.add("nounwind")
    src, stride, count, accs, blocks, lo, hi, acc_stride, fresh, init = fn.args
    span = group * lanes * TREE_WINDOW
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    identity = u.splat(b, ir.Constant(vty.element, -0.0 if op is O.ADD else 1.0), vty)
    start = _Start(fresh, u.splat(b, init, vty))
    windows = _ceil_div(b, hi, TREE_WINDOW)
    with u.for_range(b, count, name="row") as r:
        row = b.gep(src, [b.mul(r, stride)], source_etype=_element(vty, source))
        accp = b.gep(accs, [b.mul(r, acc_stride)], source_etype=vty.element)
        with u.for_range(b, blocks, name="block") as k:
            first = b.mul(k, u.i64(span))
            edge = b.or_(b.icmp_signed("<", first, lo),
                         b.icmp_signed(">", b.add(first, u.i64(span)), hi))
            with b.if_else(edge) as (masked, whole):
                with masked:
                    window0 = b.sdiv(first, u.i64(TREE_WINDOW))
                    bounds = _Bounds(_relative(b, lo, first, span), _relative(b, hi, first, span),
                                     _relative(b, windows, window0, span // TREE_WINDOW),
                                     identity)
                    _fold_block(b, row, accp, first, group, vty, op, bounds, start, source)
                with whole:
                    _fold_block(b, row, accp, first, group, vty, op, None, start, source)
    b.ret_void()


@dataclass(slots=True)
class _Bounds:
    """An edge block of a lane fold: its elements lo <= e < hi (relative to the block,
    i32) are the input, the rest padding (`fill`); its windows below `windows` are
    stored."""

    lo: ir.Value
    hi: ir.Value
    windows: ir.Value
    fill: ir.Value

    def mask(self, b: ir.IRBuilder, at: int, lanes: int, lo: ir.Value, hi: ir.Value) -> ir.Value:
        """Lanes at + 0 .. at + lanes-1 that lie in [lo, hi): (p - lo) <u (hi - lo)."""
        vty = ir.VectorType(u.I32, lanes)
        where = ir.Constant(vty, list(range(at, at + lanes)))
        return b.icmp_unsigned("<", b.sub(where, u.splat(b, lo, vty)),
                               u.splat(b, b.sub(hi, lo), vty))


@dataclass(slots=True)
class _Start:
    """How a lane fold's row starts its accumulators: read (`fresh` false) or `init`."""

    fresh: ir.Value
    init: ir.Value

    def load(self, b: ir.IRBuilder, acc: ir.Value, vty: ir.VectorType,
             mask: ir.Value | None = None) -> ir.Value:
        return b.select(self.fresh, self.init, u.vector_load(b, acc, vty, mask))


def _relative(b: ir.IRBuilder, x: ir.Value, origin: ir.Value, size: int) -> ir.Value:
    """x - origin clamped to [0, size], as i32."""
    d = b.sub(x, origin)
    d = b.select(b.icmp_signed("<", d, u.i64(0)), u.i64(0), d)
    return b.trunc(b.select(b.icmp_signed(">", d, u.i64(size)), u.i64(size), d), u.I32)


def _emit_strided_fold(module: ir.Module, name: str, t: PrimitiveType,
                       source: PrimitiveType | None = None, square: bool = False) -> None:
    """The runtime sum of strided windows (`strided_windows`), of `_lane_fold_type`:
    window l of block b holds the block's elements l, l + 16, ..., so vector j of a block
    is element j of its 16 windows, one per lane, and a block folds with 32 plain vector
    adds into its accumulators, each window in order (lo and hi are 0 and the row: such
    rows are whole blocks). The blocks go one after the other, so a row is read as one
    stream: folding four blocks side by side (four chains of adds in flight) read four
    streams 2 KiB apart and ran 1.5-1.8x slower from memory on Zen 4 (reduce-sum
    2048x4096: 0.96 ms instead of 0.56), for 10% more speed from L2. `square`: a sum of
    the elements' squares, each contracted into its window's chain (acc = fma(v, v, acc),
    as the scalar kernels and the interpreter fold a sum of x * x)."""
    vty = ir.VectorType(u.value_type(t), STRIDED_LANES)
    fn = ir.Function(module, _lane_fold_type(vty.element), name=name)
    fn.attributes.add("nounwind")
    src, stride, count, accs, blocks, _, _, acc_stride, fresh, init = fn.args
    ety, span = vty.element, STRIDED_LANES * TREE_WINDOW
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    start = _Start(fresh, u.splat(b, init, vty))
    elements = _element(vty, source)
    with u.for_range(b, count, name="row") as r:
        row = b.gep(src, [b.mul(r, stride)], source_etype=elements)
        accp = b.gep(accs, [b.mul(r, acc_stride)], source_etype=ety)
        with u.for_range(b, blocks, name="block") as k:
            acc = b.gep(accp, [b.mul(k, u.i64(STRIDED_LANES))], source_etype=ety)
            base = b.gep(row, [b.mul(k, u.i64(span))], source_etype=elements)
            value = start.load(b, acc, vty)
            for j in range(TREE_WINDOW):
                at = b.gep(base, [u.i64(j * STRIDED_LANES)], source_etype=elements)
                v = load_lanes(b, at, vty, source)
                value = u.intrinsic(b, "llvm.fma", vty, [v, v, value]) if square \
                    else b.fadd(value, v)
            u.vector_store(b, value, acc)
    b.ret_void()


def _element(vty: ir.VectorType, source: PrimitiveType | None) -> ir.Type:
    """The type of a lane fold's row elements in memory."""
    return ir.IntType(16) if source is not None else vty.element


def load_lanes(b: ir.IRBuilder, at: ir.Value, vty: ir.VectorType, source: PrimitiveType | None,
               mask: ir.Value | None = None, fill: ir.Value | None = None) -> ir.Value:
    """A vector of `vty` (f32) read at `at`, from elements of `source` (bf16 or f16,
    widened exactly) when given; under `mask`, the other lanes hold `fill`."""
    if source is None:
        return u.vector_load(b, at, vty, mask, fill)
    raw = u.vector_load(b, at, ir.VectorType(ir.IntType(16), vty.count), mask, align=2)
    if source is P.F16:
        x = b.fpext(b.bitcast(raw, ir.VectorType(ir.HalfType(), vty.count)), vty)
    else:
        wide = b.zext(raw, ir.VectorType(u.I32, vty.count))
        x = b.bitcast(b.shl(wide, u.splat(b, ir.Constant(u.I32, 16), wide.type)), vty)
    return b.select(mask, x, fill) if mask is not None and fill is not None else x


def _ceil_div(b: ir.IRBuilder, x: ir.Value, d: int) -> ir.Value:
    return b.sdiv(b.add(x, u.i64(d - 1)), u.i64(d))


def _fold_block(b: ir.IRBuilder, row: ir.Value, accp: ir.Value, first: ir.Value, group: int,
                vty: ir.VectorType, op: Opcode, edge: _Bounds | None, start: _Start,
                source: PrimitiveType | None = None) -> None:
    """One block of a lane fold: the elements at row + first, the accumulators of its
    windows at accp + first / 32; an `edge` block masks its loads and its windows."""
    lanes = vty.count
    per_window = TREE_WINDOW // lanes
    combine = b.fadd if op is O.ADD else b.fmul
    ety = vty.element

    def load(offset: int) -> ir.Value:
        at = b.gep(row, [b.add(first, u.i64(offset))], source_etype=_element(vty, source))
        if edge is None:
            return load_lanes(b, at, vty, source)
        return load_lanes(b, at, vty, source, edge.mask(b, offset, lanes, edge.lo, edge.hi),
                          edge.fill)

    window0 = b.sdiv(first, u.i64(TREE_WINDOW))
    accs = [b.gep(accp, [b.add(window0, u.i64(g * lanes))], source_etype=ety)
            for g in range(group)]
    acc_masks = [edge.mask(b, g * lanes, lanes, ir.Constant(u.I32, 0), edge.windows)
                 if edge else None for g in range(group)]
    vectors = [[load((g * lanes * per_window + j) * lanes) for j in range(lanes * per_window)]
               for g in range(group)]
    values = [start.load(b, a, vty, m) for a, m in zip(accs, acc_masks, strict=True)]
    for part in range(per_window):
        columns = [transpose(b, [vectors[g][q * per_window + part] for q in range(lanes)])
                   for g in range(group)]
        for j in range(lanes):
            for g in range(group):
                values[g] = combine(values[g], columns[g][j])
    for g in range(group):
        u.vector_store(b, values[g], accs[g], acc_masks[g])


def _work(red: Instruction, sources: list[Instruction]) -> int:
    """Work units of a reduce kernel (`parallel.kernel_work`): a general region counts its
    ops once per reduced element."""
    elements = math.prod(red.operand(0).shape.dimensions)
    if reducer_op(red) is not None:
        return parallel.kernel_work(elements, [red], sources)
    ops = sum(i.opcode not in (O.PARAMETER, O.TUPLE) for i in red.attrs["to_apply"].instructions)
    return elements * max(1, ops) + sum(i.shape.byte_size for i in [*sources, red])


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
        #: XLA:CPU adds the init once (YNNPACK): the tree's windows start from -0.
        self.init_once = bool(self.levels) and adds_init_once(red)
        #: The first level's windows are strided (`strided_windows`).
        self.strided = strided_windows(red)

    # -- helpers -----------------------------------------------------------------------------
    def acc(self, name: str) -> ir.Value:
        """A stack slot for an accumulator (promoted to a register by SROA)."""
        with self.b.goto_block(self.entry):
            return self.b.alloca(self.ty, name=name)

    def init(self) -> ir.Value:
        self.emitter._cache.clear()
        return self.emitter.value(self.red.operand(1), ())

    def start(self, level: int) -> ir.Value:
        """What a window of `level` starts from: the init, or -0 (a float sum's identity)
        below the final fold when the init enters once."""
        if self.init_once and level <= len(self.levels):
            return ir.Constant(self.ty, -0.0)
        return self.init()

    def combine(self, a: ir.Value, c: ir.Value) -> ir.Value:
        return self.emitter.fold(self.op, self.t, a, c)

    def leaf(self, acc: ir.Value, kept: Sequence[ir.Value], pos: Sequence[ir.Value]) -> ir.Value:
        """acc combined with the input element at kept index + reduced position."""
        index: list[ir.Value] = [u.i64(0)] * len(self.in_dims)
        for d, v in zip(self.kept, kept, strict=True):
            index[d] = v
        for d, v in zip(self.rdims, pos, strict=True):
            index[d] = v
        if self.strided:
            index[-1] = _strided_position(self.b, index[-1])
        self.emitter._cache.clear()
        if self.product is not None:
            from hlotool.targets.llvm import math as fm

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
        self._finish()

    def scratch(self) -> ir.Value:
        """The kernel's scratch buffer: the body's argument after the output."""
        return self.fn.args[len(self.plan.inputs) + len(self.plan.constants) + 1]

    def _finish(self) -> None:
        """Return at the end of the body and enter it from the entry block (which holds the
        accumulators' allocas)."""
        self.b.ret_void()
        with self.b.goto_block(self.entry):
            self.b.branch(self.fn.blocks[1])

    def _output(self, dims: list[int], index: Sequence[ir.Value]) -> None:
        """Fold and store the output element at kept `index` (its folded values first
        computed into a row buffer when the plan is `buffered`)."""
        square = buffered_square(self.plan)
        if square is not None:
            row = row_values(self.b, self.entry, square, list(index), len(self.kept),
                             self.emitter.inputs)
            self._fold_row(row, linear_index(self.b, dims, tuple(index)), square=True)
            return
        if buffered(self.plan):
            product = self.red.operand(0)
            row = row_values(self.b, self.entry, product, list(index), len(self.kept),
                             self.emitter.inputs)
            self.emitter.inputs[id(product)] = row
            if self._lane_fold_row(row, linear_index(self.b, dims, tuple(index))):
                return
        value = self.level_value(len(self.levels) + 1, index, None)
        if self.t is P.PRED:
            value = self.b.zext(value, u.I8)
        ptr = self.b.gep(self.out, [linear_index(self.b, dims, tuple(index))],
                         source_etype=u.storage_type(self.t), inbounds=True)
        self.b.store(value, ptr)

    def _fold_row(self, row: Input, at: ir.Value, square: bool = False) -> None:
        """The runtime's lane fold (of squares when `square`: `buffered_square`) of one
        buffered row into a stack buffer of first-level values, then its tree fold into
        the output `at`."""
        b = self.b
        folder = _LaneFolder(b, self.red, self.start(1), 1, square=square)
        with b.goto_block(self.entry):
            level1 = u.stack_buffer(b, self.ty, folder.positions, "lanes", align=64)
        folder.all_units(row.pointer, u.i64(0), level1)
        fold = folds.declare(b.module, folds.tree_symbol(self.t, reducer_op(self.red)),
                             folds.tree_fold_type(self.ty))
        out = b.gep(self.out, [at], source_etype=self.ty, inbounds=True)
        b.call(fold, [level1, u.i64(folder.positions), u.i64(1), out, self.start(2), self.init()])

    def _lane_fold_row(self, row: Input, at: ir.Value) -> bool:
        """Fold a buffered row of computed values (logsumexp's exponentials) with the
        runtime's lane and tree folds into the output element `at`, when they take it
        (`lane_row`, one row of first-level values); False (nothing emitted) else."""
        red = self.red
        if self.product is not None or not lane_row(red, row, len(self.kept)):
            return False
        counts = [d[3] for d in self.levels[0].dims]
        if reducer_op(red) not in folds.COLUMN_OPS or math.prod(counts[:-1]) != 1:
            return False
        self._fold_row(row, at)
        return True

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
            if not pad and n % w == 0:
                out.append((start, b.add(start, u.i64(w))))  # every window is whole
                continue
            lo = b.select(b.icmp_signed("<", start, u.i64(0)), u.i64(0), start)
            end = b.add(start, u.i64(w))
            hi = b.select(b.icmp_signed(">", end, u.i64(n)), u.i64(n), end)
            out.append((lo, hi))
        return out

    def level_value(self, level: int, kept: Sequence[ir.Value], pos: Sequence[ir.Value] | None) -> ir.Value:
        """The value of position `pos` of tree level `level` (level 0 = the input)."""
        acc = self.acc(f"acc{level}")
        self.b.store(self.start(level), acc)
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
        # Leading partial window(s), then groups of JAM full ones, then the rest; the
        # first and last loops are left out when no window can reach them.
        q = self.loop(lo, smin(hi, smax(lo, u.i64(first_full))), "jh", single) if pad else lo
        full_end = smin(hi, u.i64(last_full))
        jam = max(1, int(self.plan.tune.get("jam", JAM)))
        accs = [self.acc(f"jam{g}") for g in range(jam)]

        def group(q0: ir.Value) -> None:
            for a in accs:
                b.store(self.start(1), a)
            base = b.sub(b.mul(q0, u.i64(w)), u.i64(pad))

            def step(j: ir.Value) -> None:
                for g, a in enumerate(accs):
                    p = b.add(b.add(base, u.i64(g * w)), j)
                    b.store(self.leaf(b.load(a, typ=self.ty), kept, [p]), a)

            self.loop(u.i64(0), u.i64(w), "jj", step)
            for a in accs:
                b.store(self.combine(b.load(acc, typ=self.ty), b.load(a, typ=self.ty)), acc)

        q = self.loop(q, full_end, "jg", group, step=jam)
        if last_full < count or not self._whole_groups(jam):
            self.loop(q, hi, "jt", single)

    def _whole_groups(self, jam: int) -> bool:
        """Whether every level-2 window holds a multiple of `jam` level-1 windows."""
        if len(self.levels) < 2:
            return self.levels[0].dims[0][3] % jam == 0
        n, w, pad, _ = self.levels[1].dims[0]
        return not pad and n % w == 0 and w % jam == 0


class _LevelOneEmitter(_ReduceEmitter):
    """The tree above the first level, reading the first level's values from the
    buffer `_emit_lane_level` wrote ([output, level-1 positions...], row-major)."""

    def __init__(self, fn: ir.Function, plan: ReducePlan) -> None:
        super().__init__(fn, plan)
        self.level1 = self.scratch()
        self.counts = [d[3] for d in self.levels[0].dims]
        #: Whether the buffer holds one output element's values (a row kernel's).
        self.per_row = False

    def level_value(self, level: int, kept: Sequence[ir.Value], pos: Sequence[ir.Value] | None) -> ir.Value:
        b = self.b
        if level != 1:  # as the base class, never jammed (level 1 is a load)
            acc = self.acc(f"acc{level}")
            b.store(self.start(level), acc)
            self._fold(level, kept, self._window(level, pos), [], acc, False)
            return b.load(acc, typ=self.ty)
        assert pos is not None
        at = linear_index(b, self.counts, tuple(pos))
        if not self.per_row:
            kept_dims = [self.in_dims[d] for d in self.kept]
            at = b.add(b.mul(linear_index(b, kept_dims, tuple(kept)),
                             u.i64(math.prod(self.counts))), at)
        return b.load(b.gep(self.level1, [at], source_etype=self.ty, inbounds=True), typ=self.ty)


class _TreeRuntimeRest(_ReduceEmitter):
    """The tree above a `tree_runtime` kernel's first level over output elements [begin,
    end): one call of the runtime's tree fold on their rows of first-level values."""

    def emit(self) -> None:
        b = self.b
        begin, end = self.fn.args[-2:]
        count = math.prod(d[3] for d in self.levels[0].dims)
        values = b.gep(self.scratch(), [b.mul(begin, u.i64(count))], source_etype=self.ty)
        out = b.gep(self.out, [begin], source_etype=self.ty)
        fold = folds.declare(b.module, folds.tree_symbol(self.t, self.op),
                             folds.tree_fold_type(self.ty))
        b.call(fold, [values, u.i64(count), b.sub(end, begin), out, self.start(2), self.init()])
        self._finish()


def _row_emitter(cls: type[_ReduceEmitter], fn: ir.Function, entry: ir.Block,
                 b: ir.IRBuilder, red: Instruction, known: dict[int, Input]) -> _ReduceEmitter:
    """An emitter of class `cls` for a row kernel's reduce, its values in `known`
    (the per-kernel setup of `_ReduceEmitter.__init__` does not apply to a row)."""
    r = cls.__new__(cls)
    r.fn, r.plan, r.entry, r.b = fn, ReducePlan("", [red], []), entry, b
    r.emitter = ElementalEmitter(b, dict(known))
    r.red, r.t = red, red.shape.element_type
    r.ty = u.value_type(r.t)
    r.op = reducer_op(red)
    r.product = fused_product(red)
    if r.product is not None and id(r.product) in known:
        r.product = None
    src = red.operand(0).shape.dimensions
    r.in_dims, r.rdims = src, sorted(red.attrs["dimensions"])
    r.kept = [d for d in range(len(src)) if d not in r.rdims]
    r.levels = fold_levels(red)
    r.init_once = bool(r.levels) and adds_init_once(red)
    r.strided = strided_windows(red)
    return r


def row_reduce_emitter(fn: ir.Function, entry: ir.Block, b: ir.IRBuilder, red: Instruction,
                       known: dict[int, Input], index: Sequence[ir.Value],
                       kept: int) -> _ReduceEmitter:
    """The emitter of a row kernel's reduce over the dims after the first `kept`, for the
    row at `index` (the values it folds in `known`). When its first tree level folds with
    vectors (`lane_row`), that level is emitted here, into a stack buffer of the row's
    level-1 values that the returned emitter's tree reads."""
    square = row_square(red, kept)
    source = known.get(id(square if square is not None else red.operand(0)))
    if square is not None:
        lanes = source is not None and source.shape.is_row_major and source.skip in (0, kept)
    else:
        lanes = lane_row(red, source, kept)
    r = _row_emitter(_LevelOneEmitter if lanes else _ReduceEmitter, fn, entry, b, red, known)
    src = r.in_dims
    if not lanes or not isinstance(r, _LevelOneEmitter):
        return r
    assert source is not None
    folder = _LaneFolder(b, red, r.start(1), 1, square=square is not None)
    with b.goto_block(entry):
        level1 = u.stack_buffer(b, r.ty, folder.positions, "lanes", align=64)
    base = u.i64(0) if source.skip else \
        b.mul(linear_index(b, src[:kept], tuple(index)), u.i64(folder.per_output))
    folder.all_units(source.pointer, base, level1)
    r.level1, r.counts, r.per_row = level1, [d[3] for d in r.levels[0].dims], True
    return r


def row_fold_by_calls(red: Instruction, where: Callable[[Instruction], Input | None],
                      kept: int) -> bool:
    """Whether `row_fold_calls` folds a row kernel's reduce, its values in memory where
    `where` says (an input, a row buffer; None: computed): a float sum or product whose
    first tree level folds with vectors (`lane_row`; for a sum of x * x, `row_square`,
    rows of x in memory) and whose tree above it is one dim's (`tree_runtime`), or an
    f32 sum over the last dim of values (or fma-contracted products) in memory."""
    if red.shape.element_type not in folds.COLUMN_TYPES or reducer_op(red) not in folds.COLUMN_OPS:
        return False
    return _lane_source(red, where, kept) is not None or _tree_sources(red, where, kept) is not None


def _lane_source(red: Instruction, where: Callable[[Instruction], Input | None],
                 kept: int) -> Input | None:
    """The rows a `row_fold_by_calls` reduce's vector first level reads, or None."""
    square = row_square(red, kept)
    source = where(square if square is not None else red.operand(0))
    if source is None:
        return None
    if square is not None:
        lanes = source.shape.is_row_major and source.skip in (0, kept)
    else:
        lanes = lane_row(red, source, kept)
    levels = fold_levels(red)
    if not lanes or not levels:
        return None
    # One row of windows per output: the lane fold's call folds the last dim's windows
    # of one contiguous row (a window that spans other reduced dims needs the reduce
    # kernel's units).
    src = red.operand(0).shape.dimensions
    if any(src[d] != 1 for d in sorted(red.attrs["dimensions"])[:-1]):
        return None
    return source if math.prod(d[3] for d in levels[0].dims[:-1]) == 1 else None


def _tree_sources(red: Instruction, where: Callable[[Instruction], Input | None],
                  kept: int) -> list[Input] | None:
    """What the runtime's row tree (`folds.row_tree_type`) of a `row_fold_by_calls`
    reduce reads: [x] for a sum of x, [x, y] for a sum of x * y contracted into fma
    (`fused_product`); None when it does not fold it."""
    src = red.operand(0).shape
    if red.shape.element_type is not P.F32 or reducer_op(red) is not O.ADD or \
            strided_windows(red) or list(red.attrs["dimensions"]) != [src.rank - 1] or \
            kept != src.rank - 1:
        return None
    mul = fused_product(red)
    sources = [where(x) for x in (mul.operands if mul is not None else [red.operand(0)])]
    if any(s is None or not s.shape.is_row_major or s.skip not in (0, kept) for s in sources):
        return None
    return sources  # type: ignore[return-value]


def row_fold_calls(fn: ir.Function, entry: ir.Block, b: ir.IRBuilder, red: Instruction,
                   known: dict[int, Input], index: Sequence[ir.Value], kept: int) -> ir.Value:
    """A row kernel's reduce (`row_fold_by_calls`) of the row at `index` by calls and no
    loops of its own, in the order `row_reduce_emitter` folds: the lane fold of the
    whole row into its first-level values (each window from the init: `_LaneFolder.rows`
    for one row), then the runtime's tree fold of them (`_TreeRuntimeRest`); or, for
    rows without a vector first level, the runtime's row tree (`folds.row_tree_type`)."""
    r = _row_emitter(_ReduceEmitter, fn, entry, b, red, known)
    where = lambda x: known.get(id(x))  # noqa: E731
    n_row = math.prod(red.operand(0).shape.dimensions[kept:])
    row = linear_index(b, red.operand(0).shape.dimensions[:kept], tuple(index))
    with b.goto_block(entry):
        out = b.alloca(r.ty, name="folded")
    source = _lane_source(red, where, kept)
    if source is None:
        sources = _tree_sources(red, where, kept)
        assert sources is not None
        with b.goto_block(entry):
            level1 = u.stack_buffer(b, r.ty, max(-(-n_row // TREE_WINDOW), 1), "windows")
        rows = [s.pointer if s.skip else
                b.gep(s.pointer, [b.mul(row, u.i64(n_row))], source_etype=r.ty, inbounds=True)
                for s in sources]
        mul = fused_product(red)
        kind = "values" if mul is None else \
            "squares" if mul.operand(0) is mul.operand(1) else "products"
        rows = rows[:1] if kind == "squares" else rows
        tree = folds.declare(b.module, folds.row_tree_symbol(r.t, kind),
                             folds.row_tree_type(r.ty, kind))
        b.call(tree, [*rows, u.i64(n_row), out, r.start(1), r.init(), level1])
        return b.load(out, typ=r.ty)
    square = row_square(red, kept) is not None
    folder = _LaneFolder(b, red, r.start(1), 1, square=square)
    n, _, pad, count = folder.level[-1]
    with b.goto_block(entry):
        level1 = u.stack_buffer(b, r.ty, folder.positions, "lanes", align=64)
    base = u.i64(0) if source.skip else b.mul(row, u.i64(folder.per_output))
    at = b.sub(base, u.i64(pad))
    blocks = -(-count // lane_block(red))
    b.call(folder.fold, [b.gep(source.pointer, [at], source_etype=folder.src_ety),
                         u.i64(folder.per_output), u.i64(1), level1, u.i64(blocks),
                         u.i64(pad), u.i64(n + pad), u.i64(folder.positions),
                         ir.Constant(u.I1, 1), folder.init])
    tree = folds.declare(b.module, folds.tree_symbol(r.t, r.op), folds.tree_fold_type(r.ty))
    b.call(tree, [level1, u.i64(folder.positions), u.i64(1), out, r.start(2), r.init()])
    return b.load(out, typ=r.ty)


class _SplitEmitter(_ReduceEmitter):
    """The two steps of an order-free reduce cut into ranges of its first reduced dim
    (`split_chunks`): units are (output, range) pairs, their values in the scratch
    buffer [outputs, chunks] after the output."""

    def __init__(self, fn: ir.Function, plan: ReducePlan, chunks: int) -> None:
        super().__init__(fn, plan)
        self.chunks = chunks
        self.partials = self.scratch()
        self.runtime = range_runtime(plan)

    def _range_fold(self, o: ir.Value, lo: ir.Value, hi: ir.Value, start: ir.Value) -> ir.Value:
        """The runtime's fold of output o's elements in [lo, hi) of the first reduced dim,
        contiguous (`range_runtime`)."""
        b = self.b
        inner = math.prod(self.in_dims[d] for d in self.rdims[1:])
        per_output = inner * self.in_dims[self.rdims[0]]
        offset = b.add(b.mul(o, u.i64(per_output)), b.mul(lo, u.i64(inner)))
        src = b.gep(self.emitter.inputs[id(self.red.operand(0))].pointer, [offset],
                    source_etype=self.ty)
        fold = folds.declare(b.module, folds.range_symbol(self.t, self.op),
                             folds.range_fold_type(self.ty))
        return b.call(fold, [src, b.mul(b.sub(hi, lo), u.i64(inner)), start])

    def emit(self) -> None:
        """The first step over units [begin, end)."""
        b = self.b
        kept_dims = [self.in_dims[d] for d in self.kept]
        begin, end = self.fn.args[-2:]
        n = self.in_dims[self.rdims[0]]

        def unit(i: ir.Value) -> None:
            o, c = b.sdiv(i, u.i64(self.chunks)), b.srem(i, u.i64(self.chunks))
            lo = b.sdiv(b.mul(c, u.i64(n)), u.i64(self.chunks))
            hi = b.sdiv(b.mul(b.add(c, u.i64(1)), u.i64(n)), u.i64(self.chunks))
            window = [(lo, hi)] + [(u.i64(0), u.i64(self.in_dims[d])) for d in self.rdims[1:]]
            start = self.init() if init_idempotent(self.red) else \
                u.const(self.t, _IDENTITY[self.op])
            if self.runtime:
                value = self._range_fold(o, lo, hi, start)
            else:
                acc = self.acc("part")
                b.store(start, acc)
                self._fold(1, delinearize(b, kept_dims, o), window, [], acc, False)
                value = b.load(acc, typ=self.ty)
            b.store(value, b.gep(self.partials, [i], source_etype=self.ty, inbounds=True))

        self.loop(begin, end, "u", unit)
        self._finish()

    def emit_rest(self) -> None:
        """The second step over outputs [begin, end): each output's ranges from the init."""
        b = self.b
        begin, end = self.fn.args[-2:]

        def output(o: ir.Value) -> None:
            acc = self.acc("out")
            b.store(self.init(), acc)
            base = b.mul(o, u.i64(self.chunks))
            with u.for_range(b, self.chunks, name="c") as c:
                v = b.load(b.gep(self.partials, [b.add(base, c)], source_etype=self.ty,
                                 inbounds=True), typ=self.ty)
                b.store(self.combine(b.load(acc, typ=self.ty), v), acc)
            b.store(b.load(acc, typ=self.ty),
                    b.gep(self.out, [o], source_etype=u.storage_type(self.t), inbounds=True))

        self.loop(begin, end, "o", output)
        self._finish()


def _strided_position(b: ir.IRBuilder, p: ir.Value) -> ir.Value:
    """The element of the last dim at tree position p of strided windows
    (`strided_windows`): p = 512 b + 32 l + j is element 512 b + 16 j + l."""
    span = STRIDED_LANES * TREE_WINDOW
    block = b.mul(b.sdiv(p, u.i64(span)), u.i64(span))
    inner = b.srem(p, u.i64(span))
    lane, j = b.sdiv(inner, u.i64(TREE_WINDOW)), b.srem(inner, u.i64(TREE_WINDOW))
    return b.add(block, b.add(b.mul(j, u.i64(STRIDED_LANES)), lane))


#: Elements a pairwise fold combines in registers before the carry chain (8: argmax of
#: 1024x4096 ran as fast as with 16 and compiled in 26 ms instead of 38).
PAIR_BLOCK = 8
#: Values of one reduce result per tree position (one per operand of a variadic reduce).
Values = list[ir.Value]


class _ColumnEmitter(_ReduceEmitter):
    """A column reduction (reduced dims before the kept ones): every output element is
    folded in exactly the order `_ReduceEmitter` uses (the same tree of windows), but
    up to COLUMN_CHUNK adjacent output elements are folded side by side: each tree level keeps
    a row of accumulators on the stack and its innermost loop runs over the chunk's
    contiguous elements, which the loop vectorizer widens (a per-element fold would read
    one column at a stride). The body's range is over chunks of `chunk` elements."""

    def __init__(self, fn: ir.Function, plan: ReducePlan, chunk: int) -> None:
        super().__init__(fn, plan)
        self.chunk = chunk

    def emit(self) -> None:
        b = self.b
        kept_dims = [self.in_dims[d] for d in self.kept]
        count = math.prod(kept_dims)
        with b.goto_block(self.entry):
            self.rows = [b.alloca(self.ty, size=self.chunk, name=f"row{k}")
                         for k in range(len(self.levels) + 2)]
        begin, end = self.fn.args[-2:]

        def chunk(c: ir.Value) -> None:
            k0 = b.mul(c, u.i64(self.chunk))
            rest = b.sub(u.i64(count), k0)
            n = b.select(b.icmp_signed("<", rest, u.i64(self.chunk)), rest, u.i64(self.chunk))
            top = len(self.levels) + 1
            self._level_row(top, None, kept_dims, k0, n)
            with u.for_range(b, n, name="st") as j:
                ptr = b.gep(self.out, [b.add(k0, j)], source_etype=u.storage_type(self.t),
                            inbounds=True)
                b.store(b.load(self._slot(top, j), typ=self.ty), ptr)

        self.loop(begin, end, "c", chunk)
        self._finish()

    def _slot(self, level: int, j: ir.Value) -> ir.Value:
        return self.b.gep(self.rows[level], [j], source_etype=self.ty, inbounds=True)

    def _level_row(self, level: int, pos: Sequence[ir.Value] | None, kept_dims: list[int],
                   k0: ir.Value, n: ir.Value) -> None:
        """Row `level` of accumulators = the values of window `pos` of that level for the
        chunk's n elements starting at kept element k0."""
        b = self.b
        with u.for_range(b, n, name=f"i{level}") as j:
            b.store(self.start(level), self._slot(level, j))
        window = self._window(level, pos)
        self._positions(level, window, [], kept_dims, k0, n)

    def _positions(self, level: int, window: list[tuple[ir.Value, ir.Value]], pos: list[ir.Value],
                   kept_dims: list[int], k0: ir.Value, n: ir.Value) -> None:
        b = self.b
        if len(pos) < len(window):
            lo, hi = window[len(pos)]
            self.loop(lo, hi, f"q{level}.{len(pos)}",
                      lambda i: self._positions(level, window, [*pos, i], kept_dims, k0, n))
            return
        if level > 1:
            self._level_row(level - 1, pos, kept_dims, k0, n)
        with u.for_range(b, n, name=f"f{level}") as j:
            slot = self._slot(level, j)
            acc = b.load(slot, typ=self.ty)
            if level == 1:
                kept = delinearize(b, kept_dims, b.add(k0, j))
                b.store(self.leaf(acc, kept, pos), slot)
            else:
                below = b.load(self._slot(level - 1, j), typ=self.ty)
                b.store(self.combine(acc, below), slot)


class _ColumnWindowEmitter(_ReduceEmitter):
    """The first tree level of a `column_windows` reduce over units [begin, end): unit u
    is row window u // splits (32 rows, fewer at a padded end) of column part u % splits
    (`part` columns); its first-level values, one per column, accumulate row by row in
    order in the scratch buffer's row of that window."""

    def __init__(self, fn: ir.Function, plan: ReducePlan, splits: int, part: int) -> None:
        super().__init__(fn, plan)
        self.splits, self.part = splits, part
        self.level1 = self.scratch()

    def emit(self) -> None:
        b = self.b
        kept_dims = [self.in_dims[d] for d in self.kept]
        batch = column_batch(self.plan)
        outputs = math.prod(kept_dims) // batch  # the columns of one column reduction
        windows = self.levels[0].dims[0][3]
        begin, end = self.fn.args[-2:]

        def unit(i: ir.Value) -> None:
            per_batch = u.i64(windows * self.splits)
            c, j = b.sdiv(i, per_batch), b.srem(i, per_batch)
            p, s = b.sdiv(j, u.i64(self.splits)), b.srem(j, u.i64(self.splits))
            k0 = b.mul(s, u.i64(self.part))
            n = _smin(b, u.i64(self.part), b.sub(u.i64(outputs), k0))
            at = b.mul(b.add(b.mul(c, u.i64(windows)), p), u.i64(outputs))
            row = b.gep(self.level1, [b.add(at, k0)], source_etype=self.ty, inbounds=True)
            if column_runtime(self.plan):
                ((lo, hi),) = self._window(1, [p])
                src = self.emitter.inputs[id(self.red.operand(0))].pointer
                rows = self.in_dims[self.rdims[0]]
                at = b.add(b.mul(b.add(b.mul(c, u.i64(rows)), lo), u.i64(outputs)), k0)
                column_fold(b, self.t, self.op, b.gep(src, [at], source_etype=self.ty),
                            u.i64(outputs), b.sub(hi, lo), n, row, self.start(1))
                return
            with u.for_range(b, n, name="init") as j:
                b.store(self.start(1), b.gep(row, [j], source_etype=self.ty, inbounds=True))
            ((lo, hi),) = self._window(1, [p])

            def fold(r: ir.Value) -> None:
                with u.for_range(b, n, name="col") as j:
                    slot = b.gep(row, [j], source_etype=self.ty, inbounds=True)
                    kept = delinearize(b, kept_dims, b.add(k0, j))
                    b.store(self.leaf(b.load(slot, typ=self.ty), kept, [r]), slot)

            self.loop(lo, hi, "r", fold)

        self.loop(begin, end, "u", unit)
        self._finish()


class _ColumnRestEmitter(_ColumnEmitter):
    """The tree above the first level of a `column_windows` reduce, by chunks of columns,
    its first-level rows read from the scratch buffer."""

    def __init__(self, fn: ir.Function, plan: ReducePlan, chunk: int) -> None:
        super().__init__(fn, plan, chunk)
        self.level1 = self.scratch()
        self.outputs = math.prod(plan.reduce.shape.dimensions)

    def _level_row(self, level: int, pos: Sequence[ir.Value] | None, kept_dims: list[int],
                   k0: ir.Value, n: ir.Value) -> None:
        if level != 1:
            super()._level_row(level, pos, kept_dims, k0, n)
            return
        assert pos is not None
        b = self.b
        base = b.add(b.mul(pos[0], u.i64(self.outputs)), k0)
        with u.for_range(b, n, name="l1") as j:
            v = b.load(b.gep(self.level1, [b.add(base, j)], source_etype=self.ty,
                             inbounds=True), typ=self.ty)
            b.store(v, self._slot(1, j))


def column_fold(b: ir.IRBuilder, t: PrimitiveType, op: Opcode | None, src: ir.Value,
                stride: ir.Value, rows: ir.Value, cols: ir.Value, dst: ir.Value,
                start: ir.Value) -> None:
    """Call the runtime's column fold (`folds.column_fold_type`)."""
    ty = u.value_type(t)
    assert op is not None
    fold = folds.declare(b.module, folds.column_symbol(t, op), folds.column_fold_type(ty))
    b.call(fold, [src, stride, rows, cols, dst, start])


class _ColumnRuntimeRest(_ReduceEmitter):
    """The tree above the first level of a `column_runtime` reduce over chunks [begin,
    end) of COLUMN_CHUNK columns: every window of every level is one column fold of the
    level below's rows (the scratch buffer's, then stack rows of COLUMN_CHUNK values),
    and the final fold writes the output."""

    def emit(self) -> None:
        b = self.b
        batch = column_batch(self.plan)
        outputs = math.prod(self.red.shape.dimensions) // batch
        per_batch = -(-outputs // COLUMN_CHUNK)
        windows = self.levels[0].dims[0][3]
        with b.goto_block(self.entry):
            bufs = [b.alloca(self.ty, size=level.dims[0][3] * COLUMN_CHUNK, name=f"level{k + 2}")
                    for k, level in enumerate(self.levels[1:])]
        begin, end = self.fn.args[-2:]

        def chunk(i: ir.Value) -> None:
            c = b.sdiv(i, u.i64(per_batch))
            k0 = b.mul(b.srem(i, u.i64(per_batch)), u.i64(COLUMN_CHUNK))
            n = _smin(b, u.i64(COLUMN_CHUNK), b.sub(u.i64(outputs), k0))
            at = b.add(b.mul(c, u.i64(windows * outputs)), k0)
            below = b.gep(self.scratch(), [at], source_etype=self.ty)
            stride = u.i64(outputs)
            for k, buf in enumerate(bufs):
                level = k + 2

                def window(q: ir.Value, level: int = level, below: ir.Value = below,
                           stride: ir.Value = stride, buf: ir.Value = buf) -> None:
                    ((lo, hi),) = self._window(level, [q])
                    first = b.gep(below, [b.mul(lo, stride)], source_etype=self.ty)
                    dst = b.gep(buf, [b.mul(q, u.i64(COLUMN_CHUNK))], source_etype=self.ty)
                    column_fold(b, self.t, self.op, first, stride, b.sub(hi, lo), n, dst,
                                self.start(level))

                self.loop(u.i64(0), u.i64(self.levels[level - 1].dims[0][3]), f"w{level}", window)
                below, stride = buf, u.i64(COLUMN_CHUNK)
            out = b.gep(self.out, [b.add(b.mul(c, u.i64(outputs)), k0)], source_etype=self.ty)
            column_fold(b, self.t, self.op, below, stride, u.i64(self.levels[-1].dims[0][3]), n,
                        out, self.start(len(self.levels) + 1))

        self.loop(begin, end, "c", chunk)
        self._finish()


class _GeneralEmitter(_ReduceEmitter):
    """A reduce whose region is not a single op (several operands, e.g. JAX's argmax,
    or a region of several ops): the region is emitted on scalar values (`ScalarEmitter`)
    and folded in the interpreter's order (hlotool/interpreter/kernels/reduction.py):

    * one operand: XLA:CPU's tree of 32-element windows, as the single-op kernels;
    * several operands, at most SEQUENTIAL_LIMIT reduced elements: one row-major fold
      from the init values;
    * several operands, more: neighbours combined pairwise level by level (an odd last
      element is carried up), then the init values combined with the result. The kernel
      runs that tree as a binary counter: blocks of PAIR_BLOCK elements are combined in
      registers and pushed as one node, slot `l` holds the pending node of level `l`, and
      the pending nodes are combined from the lowest level up at the end.
    """

    def __init__(self, fn: ir.Function, plan: ReducePlan) -> None:
        self.fn = fn
        self.plan = plan
        self.entry = fn.append_basic_block("entry")
        self.b = ir.IRBuilder(fn.append_basic_block("start"))
        sources = plan.inputs + [c for c, _ in plan.constants]
        inputs = {id(i): Input(a, i.shape) for i, a in zip(sources, fn.args, strict=False)}
        red = self.red = plan.reduce
        self.n = red.operand_count // 2
        self.outs = list(fn.args[len(sources):len(sources) + self.n])
        self.emitter = ElementalEmitter(self.b, inputs)
        self.types = [red.operand(k).shape.element_type for k in range(self.n)]
        self.t = self.types[0]
        self.ty = u.value_type(self.t)
        self.op = None
        self.product = None
        comp = red.attrs["to_apply"]
        self.params = ordered_parameters(comp)
        self.results = region_results(comp.root)
        src = red.operand(0).shape.dimensions
        self.in_dims = src
        self.rdims = sorted(red.attrs["dimensions"])
        self.kept = [d for d in range(len(src)) if d not in self.rdims]
        self.sizes = [src[d] for d in self.rdims]
        count = math.prod(self.sizes)
        self.levels = tree_levels(self.sizes) if self.n == 1 and count else []
        self.pairwise = self.n > 1 and count > SEQUENTIAL_LIMIT

    # -- values ------------------------------------------------------------------------------
    def slots(self, name: str) -> Values:
        """Stack slots for one value per result (promoted to registers by SROA)."""
        with self.b.goto_block(self.entry):
            return [self.b.alloca(u.value_type(t), name=f"{name}.{k}")
                    for k, t in enumerate(self.types)]

    def load(self, slots: Values) -> Values:
        return [self.b.load(s, typ=u.value_type(t)) for s, t in zip(slots, self.types, strict=True)]

    def store(self, values: Values, slots: Values) -> None:
        for v, s in zip(values, slots, strict=True):
            self.b.store(v, s)

    def inits(self) -> Values:
        self.emitter._cache.clear()
        return [self.emitter.value(self.red.operand(self.n + k), ()) for k in range(self.n)]

    def region(self, acc: Values, x: Values) -> Values:
        """The region on (acc..., x...)."""
        em = _region_emitter(self.b, self.params, [*acc, *x])
        return [em.value(r, ()) for r in self.results]

    def leaves(self, kept: Sequence[ir.Value], pos: Sequence[ir.Value]) -> Values:
        """The operands' elements at kept index + reduced position."""
        index: list[ir.Value] = [u.i64(0)] * len(self.in_dims)
        for d, v in zip(self.kept, kept, strict=True):
            index[d] = v
        for d, v in zip(self.rdims, pos, strict=True):
            index[d] = v
        self.emitter._cache.clear()
        return [self.emitter.value(self.red.operand(k), tuple(index)) for k in range(self.n)]

    # -- the fold ----------------------------------------------------------------------------
    def _output(self, dims: list[int], index: Sequence[ir.Value]) -> None:
        """Fold and store the results at kept `index`."""
        b = self.b
        if self.pairwise:
            values = self.region(self.inits(), self._pairwise(index))
        else:
            values = self.general_value(len(self.levels) + 1, index, None)
        at = linear_index(b, dims, tuple(index))
        for v, t, out in zip(values, self.types, self.outs, strict=True):
            if t is P.PRED:
                v = b.zext(v, u.I8)
            b.store(v, b.gep(out, [at], source_etype=u.storage_type(t), inbounds=True))

    def general_value(self, level: int, kept: Sequence[ir.Value],
                      pos: Sequence[ir.Value] | None) -> Values:
        """The values of position `pos` of tree level `level` (level 0 = the input)."""
        acc = self.slots(f"acc{level}")
        self.store(self.inits(), acc)
        self._general_fold(level, kept, self._window(level, pos), [], acc)
        return self.load(acc)

    def _general_fold(self, level: int, kept: Sequence[ir.Value],
                      window: list[tuple[ir.Value, ir.Value]], pos: list[ir.Value], acc: Values) -> None:
        k = len(pos)
        if k == len(window):
            x = self.leaves(kept, pos) if level == 1 else self.general_value(level - 1, kept, pos)
            self.store(self.region(self.load(acc), x), acc)
            return
        lo, hi = window[k]
        self.loop(lo, hi, f"r{level}.{k}",
                  lambda i: self._general_fold(level, kept, window, [*pos, i], acc))

    def _pairwise(self, kept: Sequence[ir.Value]) -> Values:
        """The interpreter's pairwise combination of all reduced elements (`_pairwise`).
        The counter's slots are one stack array per operand, indexed by level, so the
        carry chain is one loop with one copy of the region (the region unrolled per
        level made argmax's kernel ~3x larger and its cold compile ~1.8x XLA's)."""
        b = self.b
        count = math.prod(self.sizes)
        top = count.bit_length()
        stack = self._stack(top + 1)
        block_bits = PAIR_BLOCK.bit_length() - 1
        blocks = count // PAIR_BLOCK
        at = lambda j: self.leaves(kept, delinearize(b, self.sizes, j))  # noqa: E731

        def block(q: ir.Value) -> None:
            j0 = b.mul(q, u.i64(PAIR_BLOCK), flags=["nsw", "nuw"])
            nodes = [at(b.add(j0, u.i64(t), flags=["nsw", "nuw"])) for t in range(PAIR_BLOCK)]
            while len(nodes) > 1:
                nodes = [self.region(nodes[i], nodes[i + 1]) for i in range(0, len(nodes), 2)]
            self._push(stack, top, block_bits, j0, nodes[0])

        self.loop(u.i64(0), u.i64(blocks), "pb", block)
        if blocks * PAIR_BLOCK < count:
            self.loop(u.i64(blocks * PAIR_BLOCK), u.i64(count), "pt",
                      lambda j: self._push(stack, top, 0, j, at(j)))
        pending = [lvl for lvl in range(top + 1) if count >> lvl & 1]
        value = self._slot(stack, u.i64(pending[0]))
        for lvl in pending[1:]:
            value = self.region(self._slot(stack, u.i64(lvl)), value)
        return value

    def _stack(self, levels: int) -> Values:
        """One stack array of `levels` values per result."""
        with self.b.goto_block(self.entry):
            return [self.b.alloca(ir.ArrayType(u.value_type(t), levels), name=f"stack.{k}")
                    for k, t in enumerate(self.types)]

    def _slot(self, stack: Values, level: ir.Value) -> Values:
        """The values in slot `level` of the counter."""
        return [self.b.load(self.b.gep(s, [u.i64(0), level], inbounds=True), typ=u.value_type(t))
                for s, t in zip(stack, self.types, strict=True)]

    def _push(self, stack: Values, top: int, level: int, j: ir.Value, value: Values) -> None:
        """Add the node `value` of `level` covering elements from `j` (a multiple of
        2**level) to the counter: while slot `l` is taken (bit l of j), combine it in,
        then park the carry in the first free slot."""
        b = self.b
        carry = self.slots(f"carry{level}")
        self.store(value, carry)
        with b.goto_block(self.entry):
            at = b.alloca(u.I64, name=f"push{level}.level")
        b.store(u.i64(level), at)
        head = b.append_basic_block(f"push{level}.h")
        body = b.append_basic_block(f"push{level}.b")
        done = b.append_basic_block(f"push{level}.done")
        b.branch(head)
        b.position_at_end(head)
        lvl = b.load(at, typ=u.I64)
        taken = b.and_(b.icmp_unsigned("<", lvl, u.i64(top)),
                       b.trunc(b.lshr(j, lvl), u.I1))
        b.cbranch(taken, body, done)
        b.position_at_end(body)
        self.store(self.region(self._slot(stack, lvl), self.load(carry)), carry)
        b.store(b.add(lvl, u.i64(1), flags=["nuw"]), at)
        b.branch(head)
        b.position_at_end(done)
        lvl = b.load(at, typ=u.I64)
        for v, s in zip(self.load(carry), stack, strict=True):
            b.store(v, b.gep(s, [u.i64(0), lvl], inbounds=True))


class _RegionEmitter(ScalarEmitter):
    """The scalar emitter of a reducer region; a `call` (JAX lowers `jnp.where` to one)
    is inlined."""

    def _emit(self, ins: Instruction, index: Index) -> ir.Value:
        if ins.opcode is O.CALL and id(ins) not in self.params:
            callee = ins.called_computations[0]
            args = [self.value(o, index) for o in ins.operands]
            return _region_emitter(self.b, ordered_parameters(callee), args).value(callee.root, ())
        return super()._emit(ins, index)


def _region_emitter(b: ir.IRBuilder, params: Sequence[Instruction],
                    values: Sequence[ir.Value]) -> _RegionEmitter:
    """An emitter of a scalar computation whose parameters hold `values`."""
    return _RegionEmitter(b, {id(p): v for p, v in zip(params, values, strict=True)})
