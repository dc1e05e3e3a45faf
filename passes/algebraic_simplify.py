"""Algebraic simplification: local rewrites that remove work without changing results.

The rules are data (`rules_algebraic`, tinygrad's `PatternMatcher` idea): each names the
opcodes it looks at, says in one line what it does, and has a function that returns the
replacement instruction or None. Every rule is numerically exact (up to XLA:CPU's
flushing of denormals by arithmetic: `x * 1 -> x` keeps a denormal `x`, as in XLA) except
three that XLA itself applies: two reorder a floating-point sum (vector dot to reduce,
reduce of a transpose), and one, on CPU only, divides once per element of a broadcast
divisor and multiplies (`divide_by_broadcast`); those stay within XLA's own tolerance and
give XLA:CPU's results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hlotool.ir.attributes import SliceRange
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    COMMUTATIVE_OPCODES,
    Builder,
    NameTable,
    all_ones_value,
    binary_reducer_opcode,
    highest_value,
    is_all,
    lowest_value,
    non_fusion_computations,
    remove_if_dead,
    replace_instruction,
    same_shape,
    scalar_computation,
    splat_value,
)

O = Opcode
P = PrimitiveType
Rewrite = Callable[[Instruction, Builder], "Instruction | None"]


@dataclass(frozen=True)
class Rule:
    """One rewrite: the opcodes it applies to, what it does, and how."""

    opcodes: frozenset[Opcode]
    description: str
    rewrite: Rewrite


def rule(opcodes: Opcode | Sequence[Opcode], description: str, rewrite: Rewrite) -> Rule:
    """A Rule for one opcode or several."""
    ops = (opcodes,) if isinstance(opcodes, Opcode) else tuple(opcodes)
    return Rule(frozenset(ops), description, rewrite)


@dataclass(frozen=True)
class AlgebraicSimplifyPass(Pass):
    """XLA's AlgebraicSimplifier: apply `rules_algebraic` until none fires (at most
    `max-iterations` sweeps per computation). Fusion computations are left alone and
    instructions with control edges or dynamic shapes are skipped, as in XLA.

    With `dot-strength-reduction=false`, dots are never rewritten into multiplies and
    reductions (XLA's `enable_dot_strength_reduction`); with `cpu=true` (XLA's
    `executing_on_cpu`, the `cpu` pipeline), a division by a broadcast is a
    multiplication by the broadcast reciprocal (`divide_by_broadcast`).
    """

    name = "algebraic-simplify"
    summary = "algebraic rewrites: identities, redundant data movement, dot strength reduction"
    xla = "AlgebraicSimplifier"
    max_iterations: int = 10
    dot_strength_reduction: bool = True
    cpu: bool = False

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        rules = self.rules()
        changed = False
        for comp in non_fusion_computations(module):
            for _ in range(self.max_iterations):
                if not simplify_computation(comp, names, rules):
                    break
                changed = True
        return changed

    def rules(self) -> dict[Opcode, list[Rule]]:
        """The rules by opcode, those of disabled options left out."""
        by_opcode: dict[Opcode, list[Rule]] = {}
        for r in rules_algebraic:
            if not self.dot_strength_reduction and r in rules_dot_strength_reduction:
                continue
            if not self.cpu and r in rules_cpu:
                continue
            for op in r.opcodes:
                by_opcode.setdefault(op, []).append(r)
        return by_opcode


def simplify_computation(comp: Computation, names: NameTable,
                         rules: dict[Opcode, list[Rule]]) -> bool:
    """One sweep over the computation in post order; returns whether a rule fired."""
    changed = False
    for ins in comp.post_order():
        if ins.parent is not comp or not _eligible(ins):
            continue
        for r in rules.get(ins.opcode, ()):
            if _apply(r, ins, names):
                changed = True
                break
    return changed


def _eligible(ins: Instruction) -> bool:
    if ins.control_predecessors or ins.control_successors or ins.shape.is_dynamic:
        return False
    return not any(o.shape.is_dynamic for o in ins.operands)


def _apply(r: Rule, ins: Instruction, names: NameTable) -> bool:
    """Run one rule; replace `ins` when it gives a replacement of the same shape."""
    builder = Builder.before(ins, names)
    new = r.rewrite(ins, builder)
    if new is not None and new is not ins:
        if new in builder.created and new.shape.compatible(ins.shape):
            new.shape = ins.shape
        if same_shape(new.shape, ins.shape):
            replace_instruction(ins, new)
            _remove_unused(builder)
            return True
    _remove_unused(builder)
    return False


def _remove_unused(builder: Builder) -> None:
    """Drop what a rule built but did not end up using."""
    for made in reversed(builder.created):
        remove_if_dead(made)


# ======================================================================================
# Helpers
# ======================================================================================


def _zero(t: PrimitiveType) -> Any:
    return 0


def _one(t: PrimitiveType) -> Any:
    return 1


def _dims(ins: Instruction) -> tuple[int, ...]:
    return ins.shape.dimensions


def _et(ins: Instruction) -> PrimitiveType:
    return ins.shape.element_type


def _is_int_or_pred(t: PrimitiveType) -> bool:
    return t.is_integral or t is P.PRED


def _squeeze(dims: Sequence[int]) -> list[int]:
    return [d for d in dims if d != 1]


def _range(start: int, size: int, stride: int) -> SliceRange:
    """The slice range of `size` elements from `start` by `stride`."""
    return SliceRange(start, start + (size - 1) * stride + 1 if size else start, stride)


def _degenerate_map(src: Sequence[int], dst: Sequence[int]) -> dict[int, int] | None:
    """When reshaping `src` dims to `dst` dims only inserts or deletes size-1 dims: the
    position in `dst` of every non-degenerate `src` dim. None otherwise."""
    if _squeeze(src) != _squeeze(dst):
        return None
    src_big = [i for i, d in enumerate(src) if d != 1]
    dst_big = [i for i, d in enumerate(dst) if d != 1]
    return dict(zip(src_big, dst_big, strict=True))


# ======================================================================================
# Elementwise arithmetic
# ======================================================================================

#: `x op e -> x` when every element of the right operand is `e`; the left operand too
#: for commutative opcodes. `e` is a function of the element type.
RIGHT_IDENTITY: dict[Opcode, Callable[[PrimitiveType], Any]] = {
    O.ADD: _zero, O.SUBTRACT: _zero, O.MULTIPLY: _one, O.DIVIDE: _one, O.POWER: _one,
    O.OR: _zero, O.XOR: _zero, O.AND: all_ones_value,
    O.SHIFT_LEFT: _zero, O.SHIFT_RIGHT_ARITHMETIC: _zero, O.SHIFT_RIGHT_LOGICAL: _zero,
    O.MAXIMUM: lowest_value, O.MINIMUM: highest_value,
}  # fmt: skip

#: `x op z -> z` when every element of one operand is `z`, for these element types.
ABSORBING: dict[Opcode, tuple[Callable[[PrimitiveType], Any], Callable[[PrimitiveType], bool]]] = {
    O.MULTIPLY: (_zero, lambda t: t.is_integral),
    O.AND: (_zero, _is_int_or_pred),
    O.OR: (all_ones_value, _is_int_or_pred),
}

#: `x op x -> x`.
IDEMPOTENT_BINARY = frozenset({O.AND, O.OR, O.MAXIMUM, O.MINIMUM})

#: `f(f(x)) -> f(x)`.
IDEMPOTENT_UNARY = frozenset({O.ABS, O.CEIL, O.FLOOR, O.ROUND_AFZ, O.ROUND_EVEN, O.SIGN})

#: `f(f(x)) -> x`.
INVOLUTIONS = frozenset({O.NEGATE, O.NOT})

#: compare(x, x) for integers: the directions that are always true.
_REFLEXIVE = frozenset({"EQ", "GE", "LE"})


def binary_identity(ins: Instruction, b: Builder) -> Instruction | None:
    """x + 0, x - 0, x * 1, x / 1, x ** 1, x | 0, x ^ 0, x & ~0, x << 0, max(x, -inf),
    min(x, +inf) -> x."""
    t = _et(ins.operand(0))
    if t.is_complex and ins.opcode in (O.MAXIMUM, O.MINIMUM):
        return None
    identity = RIGHT_IDENTITY[ins.opcode](t)
    lhs, rhs = ins.operands
    if is_all(rhs, identity):
        return lhs
    if ins.opcode in COMMUTATIVE_OPCODES and is_all(lhs, identity):
        return rhs
    return None


def absorbing_operand(ins: Instruction, b: Builder) -> Instruction | None:
    """x * 0 (integers), x & 0, x | ~0 -> that constant."""
    value, applies = ABSORBING[ins.opcode]
    t = _et(ins)
    if not applies(t):
        return None
    for op in ins.operands:
        if is_all(op, value(t)):
            return op
    return None


def idempotent_binary(ins: Instruction, b: Builder) -> Instruction | None:
    """x & x, x | x, max(x, x), min(x, x) -> x."""
    return ins.operand(0) if ins.operand(0) is ins.operand(1) else None


def self_cancel(ins: Instruction, b: Builder) -> Instruction | None:
    """x - x, x ^ x -> 0 for integers (and pred)."""
    if ins.operand(0) is not ins.operand(1) or not _is_int_or_pred(_et(ins)):
        return None
    return b.splat(0, ins.shape)


def compare_same(ins: Instruction, b: Builder) -> Instruction | None:
    """compare(x, x) -> true/false for integers (floats could be NaN)."""
    if ins.operand(0) is not ins.operand(1) or not _is_int_or_pred(_et(ins.operand(0))):
        return None
    return b.splat(ins.attrs["direction"] in _REFLEXIVE, ins.shape)


def involution(ins: Instruction, b: Builder) -> Instruction | None:
    """-(-x) -> x, not(not(x)) -> x."""
    inner = ins.operand(0)
    return inner.operand(0) if inner.opcode is ins.opcode else None


def idempotent_unary(ins: Instruction, b: Builder) -> Instruction | None:
    """abs(abs(x)), floor(floor(x)), ... -> the inner one."""
    inner = ins.operand(0)
    return inner if inner.opcode is ins.opcode else None


def add_negated(ins: Instruction, b: Builder) -> Instruction | None:
    """x + (-y) -> x - y, (-y) + x -> x - y, x - (-y) -> x + y (IEEE-exact)."""
    lhs, rhs = ins.operands
    if ins.opcode is O.SUBTRACT:
        return b.add(O.ADD, [lhs, rhs.operand(0)]) if rhs.opcode is O.NEGATE else None
    if rhs.opcode is O.NEGATE:
        return b.add(O.SUBTRACT, [lhs, rhs.operand(0)])
    if lhs.opcode is O.NEGATE:
        return b.add(O.SUBTRACT, [rhs, lhs.operand(0)])
    return None


def abs_of_negate(ins: Instruction, b: Builder) -> Instruction | None:
    """abs(-x) -> abs(x)."""
    inner = ins.operand(0)
    return b.add(O.ABS, [inner.operand(0)]) if inner.opcode is O.NEGATE else None


def divide_by_broadcast(ins: Instruction, b: Builder) -> Instruction | None:
    """x / broadcast(y) -> x * broadcast(1 / y) for real floats, y used only by the
    broadcast and not a constant (XLA:CPU's rewrite under `executing_on_cpu`: one division
    per element of y instead of per element of x; the result rounds twice, so it may
    differ from x / y by an ulp, as XLA:CPU's does). A constant y is left to the kernels'
    division by a constant, which is XLA's `A / Const => A * (1 / Const)`."""
    x, bcast = ins.operands
    if bcast.opcode is not O.BROADCAST:
        return None
    y = bcast.operand(0)
    t = _et(ins)
    if _is_int_or_pred(t) or t.is_complex or len(y.users) != 1 or y.opcode is O.CONSTANT:
        return None
    recip = b.add(O.DIVIDE, [b.splat(1, y.shape), y])
    return b.add(O.MULTIPLY, [x, b.broadcast(recip, ins.shape, bcast.attrs["dimensions"])])


def power_zero(ins: Instruction, b: Builder) -> Instruction | None:
    """x ** 0 -> 1 (IEEE pow(x, 0) is 1 even for NaN)."""
    return b.splat(1, ins.shape) if is_all(ins.operand(1), 0) else None


def power_two(ins: Instruction, b: Builder) -> Instruction | None:
    """x ** 2 -> x * x (real types: one rounding either way)."""
    x = ins.operand(0)
    if _et(x).is_complex or not is_all(ins.operand(1), 2):
        return None
    return b.add(O.MULTIPLY, [x, x])


# ======================================================================================
# Select, conversions
# ======================================================================================


def select_same(ins: Instruction, b: Builder) -> Instruction | None:
    """select(p, x, x) -> x."""
    return ins.operand(1) if ins.operand(1) is ins.operand(2) else None


def select_constant(ins: Instruction, b: Builder) -> Instruction | None:
    """select(true, a, b) -> a; select(false, a, b) -> b."""
    v = splat_value(ins.operand(0))
    return None if v is None else ins.operand(1 if bool(v) else 2)


def select_not(ins: Instruction, b: Builder) -> Instruction | None:
    """select(not(p), a, b) -> select(p, b, a)."""
    pred, on_true, on_false = ins.operands
    if pred.opcode is not O.NOT:
        return None
    return b.add(O.SELECT, [pred.operand(0), on_false, on_true])


def select_nested(ins: Instruction, b: Builder) -> Instruction | None:
    """select(p, select(p, a, b), c) -> select(p, a, c); select(p, a, select(p, b, c))
    -> select(p, a, c)."""
    pred, on_true, on_false = ins.operands
    if on_true.opcode is O.SELECT and on_true.operand(0) is pred:
        return b.add(O.SELECT, [pred, on_true.operand(1), on_false])
    if on_false.opcode is O.SELECT and on_false.operand(0) is pred:
        return b.add(O.SELECT, [pred, on_true, on_false.operand(2)])
    return None


def convert_same(ins: Instruction, b: Builder) -> Instruction | None:
    """convert / bitcast-convert to the operand's own type -> x."""
    return ins.operand(0) if _et(ins.operand(0)) is _et(ins) else None


def convert_round_trip(ins: Instruction, b: Builder) -> Instruction | None:
    """convert(convert(x: A) -> B) -> A  becomes x when A -> B is lossless."""
    inner = ins.operand(0)
    if inner.opcode is not O.CONVERT:
        return None
    x = inner.operand(0)
    if _et(x) is _et(ins) and is_lossless_conversion(_et(x), _et(inner)):
        return x
    return None


def is_lossless_conversion(a: PrimitiveType, b: PrimitiveType) -> bool:
    """Every value of `a` converts to `b` and back unchanged (XLA's upcasts)."""
    if a is b or a is P.PRED:
        return True
    if a.is_integral and b.is_integral:
        if a.is_signed_int == b.is_signed_int:
            return b.bits >= a.bits
        return a.is_unsigned_int and b.bits > a.bits
    if a.is_float and b.is_float:
        return a in _FLOAT_WIDENINGS and b in _FLOAT_WIDENINGS[a]
    return a.is_float and b.is_complex and b.component_type in _FLOAT_WIDENINGS.get(a, (a,))


#: Float types each IEEE-like narrower type widens into exactly.
_FLOAT_WIDENINGS: dict[PrimitiveType, tuple[PrimitiveType, ...]] = {
    P.F16: (P.F16, P.F32, P.F64),
    P.BF16: (P.BF16, P.F32, P.F64),
    P.F32: (P.F32, P.F64),
    P.F64: (P.F64,),
}

#: (exponent bits, mantissa bits) of the types reduce-precision can leave unchanged.
_PRECISION = {P.F16: (5, 10), P.BF16: (8, 7), P.F32: (8, 23), P.F64: (11, 52)}


def reduce_precision_noop(ins: Instruction, b: Builder) -> Instruction | None:
    """reduce-precision to at least the type's own precision -> x."""
    bits = _PRECISION.get(_et(ins))
    if bits is None:
        return None
    exponent, mantissa = bits
    if ins.attrs["exponent_bits"] >= exponent and ins.attrs["mantissa_bits"] >= mantissa:
        return ins.operand(0)
    return None


# ======================================================================================
# Data movement
# ======================================================================================


def copy_same_layout(ins: Instruction, b: Builder) -> Instruction | None:
    """copy(x) or bitcast(x) with the shape and layout x already has -> x."""
    return ins.operand(0) if same_shape(ins.operand(0).shape, ins.shape) else None


def broadcast_identity(ins: Instruction, b: Builder) -> Instruction | None:
    """broadcast(x) to x's own shape -> x."""
    x = ins.operand(0)
    dims = list(ins.attrs.get("dimensions") or ())
    return x if _dims(x) == _dims(ins) and dims == list(range(x.shape.rank)) else None


def broadcast_of_broadcast(ins: Instruction, b: Builder) -> Instruction | None:
    """broadcast(broadcast(x)) -> one broadcast(x) with composed dimensions."""
    inner = ins.operand(0)
    if inner.opcode is not O.BROADCAST:
        return None
    outer_dims = ins.attrs.get("dimensions") or ()
    dims = [outer_dims[d] for d in inner.attrs.get("dimensions") or ()]
    return b.broadcast(inner.operand(0), ins.shape, dims)


def broadcast_is_reshape(ins: Instruction, b: Builder) -> Instruction | None:
    """A broadcast adding only size-1 dims (same element count) -> reshape."""
    x = ins.operand(0)
    if x.shape.rank == ins.shape.rank or x.shape.element_count != ins.shape.element_count:
        return None
    return b.reshape(x, _dims(ins))


def reshape_identity(ins: Instruction, b: Builder) -> Instruction | None:
    """reshape(x) to x's own dimensions -> x."""
    return ins.operand(0) if _dims(ins.operand(0)) == _dims(ins) else None


def reshape_of_reshape(ins: Instruction, b: Builder) -> Instruction | None:
    """reshape(reshape(x)) -> reshape(x)."""
    inner = ins.operand(0)
    if inner.opcode is not O.RESHAPE:
        return None
    return b.reshape(inner.operand(0), _dims(ins))


def reshape_of_broadcast(ins: Instruction, b: Builder) -> Instruction | None:
    """reshape(broadcast(x)) that only inserts or deletes size-1 dims -> broadcast(x),
    when x has no size-1 dims (a scalar x always qualifies)."""
    inner = ins.operand(0)
    if inner.opcode is not O.BROADCAST:
        return None
    x = inner.operand(0)
    mapping = _degenerate_map(_dims(inner), _dims(ins))
    if mapping is None or 1 in _dims(x):
        return None
    dims = [mapping[d] for d in inner.attrs.get("dimensions") or ()]
    return b.broadcast(x, ins.shape, dims)


def transpose_identity(ins: Instruction, b: Builder) -> Instruction | None:
    """transpose(x) by the identity permutation -> x."""
    perm = ins.attrs["dimensions"]
    return ins.operand(0) if list(perm) == list(range(len(perm))) else None


def transpose_of_transpose(ins: Instruction, b: Builder) -> Instruction | None:
    """transpose(transpose(x)) -> one transpose by the composed permutation."""
    inner = ins.operand(0)
    if inner.opcode is not O.TRANSPOSE:
        return None
    first, second = inner.attrs["dimensions"], ins.attrs["dimensions"]
    return b.transpose(inner.operand(0), [first[p] for p in second])


def transpose_of_broadcast(ins: Instruction, b: Builder) -> Instruction | None:
    """transpose(broadcast(x)) -> broadcast(x) when x's dims keep their order."""
    inner = ins.operand(0)
    if inner.opcode is not O.BROADCAST:
        return None
    where = {p: j for j, p in enumerate(ins.attrs["dimensions"])}
    dims = [where[d] for d in inner.attrs.get("dimensions") or ()]
    if dims != sorted(dims):
        return None
    return b.broadcast(inner.operand(0), ins.shape, dims)


def transpose_is_reshape(ins: Instruction, b: Builder) -> Instruction | None:
    """A transpose that only moves size-1 dims -> reshape."""
    x = ins.operand(0)
    moved = [p for p in ins.attrs["dimensions"] if _dims(x)[p] != 1]
    if moved != sorted(moved):
        return None
    return b.reshape(x, _dims(ins))


def slice_identity(ins: Instruction, b: Builder) -> Instruction | None:
    """slice(x) covering all of x -> x."""
    x = ins.operand(0)
    full = all(r.start == 0 and r.stride == 1 for r in ins.attrs["slice"])
    return x if full and _dims(x) == _dims(ins) else None


def slice_of_slice(ins: Instruction, b: Builder) -> Instruction | None:
    """slice(slice(x)) -> one slice of x."""
    inner = ins.operand(0)
    if inner.opcode is not O.SLICE:
        return None
    ranges = []
    pairs = zip(ins.attrs["slice"], inner.attrs["slice"], _dims(ins), strict=True)
    for outer, first, size in pairs:
        start = first.start + outer.start * first.stride
        ranges.append(_range(start, size, first.stride * outer.stride))
    return b.add(O.SLICE, [inner.operand(0)], {"slice": tuple(ranges)}, ins.shape)


def slice_of_concat(ins: Instruction, b: Builder) -> Instruction | None:
    """slice(concatenate(...)) lying within one operand -> a slice of that operand."""
    concat = ins.operand(0)
    if concat.opcode is not O.CONCATENATE:
        return None
    dim = concat.attrs["dimensions"][0]
    r = ins.attrs["slice"][dim]
    size = _dims(ins)[dim]
    last = r.start + max(size - 1, 0) * r.stride
    offset = 0
    for op in concat.operands:
        if offset <= r.start and last < offset + _dims(op)[dim]:
            ranges = list(ins.attrs["slice"])
            ranges[dim] = _range(r.start - offset, size, r.stride)
            if _dims(op) == _dims(ins):
                return op
            return b.add(O.SLICE, [op], {"slice": tuple(ranges)}, ins.shape)
        offset += _dims(op)[dim]
    return None


def slice_of_broadcast(ins: Instruction, b: Builder) -> Instruction | None:
    """slice(broadcast(x)) -> broadcast(slice(x)): slice the smaller array."""
    inner = ins.operand(0)
    if inner.opcode is not O.BROADCAST:
        return None
    x = inner.operand(0)
    dims = inner.attrs.get("dimensions") or ()
    ranges = tuple(ins.attrs["slice"][d] for d in dims)
    sliced_dims = tuple(_dims(ins)[d] for d in dims)
    if sliced_dims != _dims(x):
        x = b.add(O.SLICE, [x], {"slice": ranges}, Shape.array(_et(x), sliced_dims))
    return b.broadcast(x, ins.shape, dims)


def concat_single(ins: Instruction, b: Builder) -> Instruction | None:
    """concatenate(x) -> x."""
    return ins.operand(0) if ins.operand_count == 1 else None


def concat_drop_empty(ins: Instruction, b: Builder) -> Instruction | None:
    """Operands with no elements are dropped from a concatenate."""
    kept = [op for op in ins.operands if op.shape.element_count]
    if len(kept) == ins.operand_count or not kept:
        return None
    if len(kept) == 1:
        return kept[0]
    return b.add(O.CONCATENATE, kept, dict(ins.attrs), ins.shape)


def concat_adjacent_slices(ins: Instruction, b: Builder) -> Instruction | None:
    """concatenate(slice(x)[a:b], slice(x)[b:c]) -> slice(x)[a:c] (neighbours merged)."""
    dim = ins.attrs["dimensions"][0]
    merged: list[Instruction] = []
    for op in ins.operands:
        prev = merged[-1] if merged else None
        joined = _join_slices(prev, op, dim, b) if prev is not None else None
        if joined is not None:
            merged[-1] = joined
        else:
            merged.append(op)
    if len(merged) == ins.operand_count:
        return None
    if len(merged) == 1:
        return merged[0]
    return b.add(O.CONCATENATE, merged, dict(ins.attrs), ins.shape)


def _join_slices(a: Instruction, c: Instruction, dim: int, b: Builder) -> Instruction | None:
    if a.opcode is not O.SLICE or c.opcode is not O.SLICE or a.operand(0) is not c.operand(0):
        return None
    ra, rc = a.attrs["slice"], c.attrs["slice"]
    for d, (x, y) in enumerate(zip(ra, rc, strict=True)):
        if d != dim and x != y:
            return None
    if ra[dim].stride != 1 or rc[dim].stride != 1 or ra[dim].limit != rc[dim].start:
        return None
    ranges = list(ra)
    ranges[dim] = SliceRange(ra[dim].start, rc[dim].limit, 1)
    dims = list(_dims(a))
    dims[dim] += _dims(c)[dim]
    return b.add(O.SLICE, [a.operand(0)], {"slice": tuple(ranges)}, Shape.array(_et(a), dims))


def pad_identity(ins: Instruction, b: Builder) -> Instruction | None:
    """pad(x) with no padding anywhere -> x."""
    if all(p.low == 0 and p.high == 0 and p.interior == 0 for p in ins.attrs["padding"]):
        return ins.operand(0)
    return None


def reverse_degenerate(ins: Instruction, b: Builder) -> Instruction | None:
    """reverse along size-1 dims does nothing: those dims are dropped (x when none is left)."""
    x = ins.operand(0)
    dims = tuple(d for d in ins.attrs["dimensions"] if _dims(x)[d] != 1)
    if dims == tuple(ins.attrs["dimensions"]):
        return None
    return b.add(O.REVERSE, [x], {"dimensions": dims}) if dims else x


def reverse_of_reverse(ins: Instruction, b: Builder) -> Instruction | None:
    """reverse(reverse(x)) along the same dims -> x."""
    inner = ins.operand(0)
    if inner.opcode is O.REVERSE and set(inner.attrs["dimensions"]) == set(ins.attrs["dimensions"]):
        return inner.operand(0)
    return None


def gte_of_tuple(ins: Instruction, b: Builder) -> Instruction | None:
    """get-tuple-element(tuple(...), i) -> operand i."""
    t = ins.operand(0)
    return t.operand(ins.attrs["index"]) if t.opcode is O.TUPLE else None


def dynamic_slice_constant(ins: Instruction, b: Builder) -> Instruction | None:
    """dynamic-slice with constant start indices -> slice (starts clamped as at run time)."""
    x, *indices = ins.operands
    starts = [splat_value(i) for i in indices]
    if any(s is None for s in starts):
        return None
    ranges = []
    for start, size, dim in zip(starts, ins.attrs["dynamic_slice_sizes"], _dims(x), strict=True):
        s = min(max(int(start), 0), dim - size)
        ranges.append(SliceRange(s, s + size, 1))
    if _dims(x) == _dims(ins):
        return x
    return b.add(O.SLICE, [x], {"slice": tuple(ranges)}, ins.shape)


def dynamic_update_slice_whole(ins: Instruction, b: Builder) -> Instruction | None:
    """dynamic-update-slice whose update covers the operand -> the update; whose update
    is empty -> the operand."""
    x, update = ins.operand(0), ins.operand(1)
    if _dims(update) == _dims(x):
        return update
    return x if update.shape.element_count == 0 else None


# ======================================================================================
# Reductions
# ======================================================================================

#: The value `init` must have for `reduce` with this reducer to leave single elements
#: unchanged.
REDUCER_IDENTITY: dict[Opcode, Callable[[PrimitiveType], Any]] = {
    O.ADD: _zero, O.MULTIPLY: _one, O.MAXIMUM: lowest_value, O.MINIMUM: highest_value,
    O.AND: all_ones_value, O.OR: _zero, O.XOR: _zero,
}  # fmt: skip


def _simple_reduce(ins: Instruction) -> Opcode | None:
    """The reducer opcode of a single-operand reduce whose init is its identity."""
    if ins.operand_count != 2:
        return None
    op = binary_reducer_opcode(ins.attrs["to_apply"])
    if op not in REDUCER_IDENTITY:
        return None
    if _et(ins.operand(0)).is_complex and op in (O.MAXIMUM, O.MINIMUM):
        return None
    return op if is_all(ins.operand(1), REDUCER_IDENTITY[op](_et(ins))) else None


def reduce_trivial(ins: Instruction, b: Builder) -> Instruction | None:
    """reduce over no dims or only size-1 dims (init the reducer's identity) -> reshape."""
    x = ins.operand(0)
    if any(_dims(x)[d] != 1 for d in ins.attrs["dimensions"]) or _simple_reduce(ins) is None:
        return None
    return b.reshape(x, _dims(ins))


def reduce_of_broadcast(ins: Instruction, b: Builder) -> Instruction | None:
    """max/min/and/or-reduce over exactly the dims a broadcast added -> its operand."""
    inner = ins.operand(0)
    if inner.opcode is not O.BROADCAST or _simple_reduce(ins) not in IDEMPOTENT_BINARY:
        return None
    kept = set(inner.attrs.get("dimensions") or ())
    added = {d for d in range(inner.shape.rank) if d not in kept}
    if set(ins.attrs["dimensions"]) != added or 0 in _dims(inner):
        return None
    return inner.operand(0)


def reduce_of_transpose(ins: Instruction, b: Builder) -> Instruction | None:
    """reduce(transpose(x)) that keeps the kept dims in order -> reduce(x) (XLA does this;
    it may reorder a floating-point sum)."""
    inner = ins.operand(0)
    if inner.opcode is not O.TRANSPOSE or ins.operand_count != 2:
        return None
    perm = inner.attrs["dimensions"]
    reduced = set(ins.attrs["dimensions"])
    kept = [perm[j] for j in range(len(perm)) if j not in reduced]
    if kept != sorted(kept):
        return None
    attrs = dict(ins.attrs)
    attrs["dimensions"] = tuple(sorted(perm[j] for j in reduced))
    return b.add(O.REDUCE, [inner.operand(0), ins.operand(1)], attrs, ins.shape)


# ======================================================================================
# Dots
# ======================================================================================


def _dot_dims(ins: Instruction) -> tuple[tuple[int, ...], ...]:
    a = ins.attrs
    return (tuple(a.get("lhs_batch_dims") or ()), tuple(a.get("lhs_contracting_dims") or ()),
            tuple(a.get("rhs_batch_dims") or ()), tuple(a.get("rhs_contracting_dims") or ()))


def _plain_dot(ins: Instruction) -> bool:
    """A dot without an algorithm, on arithmetic types."""
    return "algorithm" not in ins.attrs and all(
        _et(x) is not P.PRED for x in (*ins.operands, ins))


def dot_empty_contraction(ins: Instruction, b: Builder) -> Instruction | None:
    """A dot contracting over zero elements -> zeros."""
    lhs = ins.operand(0)
    _, lc, _, _ = _dot_dims(ins)
    if not lc or math.prod(_dims(lhs)[d] for d in lc) != 0 or not _plain_dot(ins):
        return None
    return b.splat(0, ins.shape)


def dot_outer_product(ins: Instruction, b: Builder) -> Instruction | None:
    """A dot whose contracting dims all have size 1 (or that has none) is a product of
    broadcasts: multiply(broadcast(lhs), broadcast(rhs)) (exact: one term per sum)."""
    lhs, rhs = ins.operands
    lb, lc, rb, rc = _dot_dims(ins)
    if math.prod(_dims(lhs)[d] for d in lc) != 1 or not _plain_dot(ins):
        return None
    et, nb = _et(ins), len(lb)
    lfree = [d for d in range(lhs.shape.rank) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.shape.rank) if d not in rb and d not in rc]
    left = _free_part(b, lhs, lb, lfree, lc, et)
    right = _free_part(b, rhs, rb, rfree, rc, et)
    out = Shape.array(et, _dims(ins))
    left = b.broadcast(left, out, range(nb + len(lfree)))
    right = b.broadcast(right, out, [*range(nb), *range(nb + len(lfree), out.rank)])
    return b.add(O.MULTIPLY, [left, right])


def _free_part(b: Builder, x: Instruction, batch: Sequence[int], free: Sequence[int],
               contracting: Sequence[int], et: PrimitiveType) -> Instruction:
    """x with batch dims first, then free dims, the size-1 contracting dims dropped."""
    moved = b.transpose(x, [*batch, *free, *contracting])
    kept = b.reshape(moved, [_dims(x)[d] for d in (*batch, *free)])
    return b.convert(kept, et)


def dot_of_vectors(ins: Instruction, b: Builder) -> Instruction | None:
    """dot(a[K], b[K]) -> reduce(multiply(a, b)), accumulated in f32 for narrow floats
    (XLA's dot strength reduction for vector products)."""
    lhs, rhs = ins.operands
    lb, lc, rb, rc = _dot_dims(ins)
    if lhs.shape.rank != 1 or rhs.shape.rank != 1 or lb or rb or not _plain_dot(ins):
        return None
    if _dims(lhs)[0] < 2 or lc != (0,) or rc != (0,):
        return None
    et = _et(ins)
    acc = et if not et.is_float or et is P.F64 else P.F32
    product = b.add(O.MULTIPLY, [b.convert(lhs, acc), b.convert(rhs, acc)])
    module = b.comp.parent
    assert module is not None
    adder = scalar_computation(module, b.names, O.ADD, acc, before=b.comp)
    total = b.add(O.REDUCE, [product, b.scalar(0, acc)],
                  {"dimensions": (0,), "to_apply": adder})
    return b.convert(total, et)


# ======================================================================================
# The rule table
# ======================================================================================

#: Dot rewrites that XLA's `enable_dot_strength_reduction` controls.
rules_dot_strength_reduction: tuple[Rule, ...] = (
    rule(O.DOT, "dot with size-1 contracting dims -> multiply of broadcasts", dot_outer_product),
    rule(O.DOT, "dot of two vectors -> reduce(multiply)", dot_of_vectors),
)

#: Rewrites XLA's AlgebraicSimplifier makes only with `executing_on_cpu`.
rules_cpu: tuple[Rule, ...] = (
    rule(O.DIVIDE, "x / broadcast(y) -> x * broadcast(1 / y) (CPU)", divide_by_broadcast),
)

#: Every rule, in the order tried for an instruction.
rules_algebraic: tuple[Rule, ...] = (
    # -- elementwise arithmetic --------------------------------------------------------
    rule(tuple(RIGHT_IDENTITY), "x + 0, x * 1, x / 1, x | 0, max(x, -inf), ... -> x",
         binary_identity),
    rule(tuple(ABSORBING), "x * 0 (integers), x & 0, x | ~0 -> the constant",
         absorbing_operand),
    rule(tuple(IDEMPOTENT_BINARY), "x & x, x | x, max(x, x), min(x, x) -> x", idempotent_binary),
    rule((O.SUBTRACT, O.XOR), "x - x, x ^ x -> 0 for integers", self_cancel),
    rule(O.COMPARE, "compare(x, x) -> true/false for integers", compare_same),
    rule(tuple(INVOLUTIONS), "-(-x) -> x, not(not x) -> x", involution),
    rule(tuple(IDEMPOTENT_UNARY), "abs(abs x), floor(floor x), ... -> abs x, floor x, ...",
         idempotent_unary),
    rule((O.ADD, O.SUBTRACT), "x + (-y) -> x - y, x - (-y) -> x + y", add_negated),
    rule(O.ABS, "abs(-x) -> abs(x)", abs_of_negate),
    rule(O.POWER, "x ** 0 -> 1", power_zero),
    rule(O.POWER, "x ** 2 -> x * x", power_two),
    *rules_cpu,
    # -- select and conversions ------------------------------------------------------
    rule(O.SELECT, "select(p, x, x) -> x", select_same),
    rule(O.SELECT, "select(true, a, b) -> a, select(false, a, b) -> b", select_constant),
    rule(O.SELECT, "select(not p, a, b) -> select(p, b, a)", select_not),
    rule(O.SELECT, "select(p, select(p, a, b), c) -> select(p, a, c)", select_nested),
    rule((O.CONVERT, O.BITCAST_CONVERT), "convert to the same type -> x", convert_same),
    rule(O.CONVERT, "convert(convert(x: A) -> B) -> A  -> x for lossless A -> B",
         convert_round_trip),
    rule(O.REDUCE_PRECISION, "reduce-precision to the type's own precision -> x",
         reduce_precision_noop),
    # -- data movement -----------------------------------------------------------------
    rule((O.COPY, O.BITCAST), "copy(x), bitcast(x) keeping x's shape and layout -> x",
         copy_same_layout),
    rule(O.BROADCAST, "broadcast(x) to x's shape -> x", broadcast_identity),
    rule(O.BROADCAST, "broadcast(broadcast(x)) -> broadcast(x)", broadcast_of_broadcast),
    rule(O.BROADCAST, "broadcast adding only size-1 dims -> reshape", broadcast_is_reshape),
    rule(O.RESHAPE, "reshape(x) to x's dims -> x", reshape_identity),
    rule(O.RESHAPE, "reshape(reshape(x)) -> reshape(x)", reshape_of_reshape),
    rule(O.RESHAPE, "reshape(broadcast(x)) moving size-1 dims -> broadcast(x)",
         reshape_of_broadcast),
    rule(O.TRANSPOSE, "transpose(x) by the identity -> x", transpose_identity),
    rule(O.TRANSPOSE, "transpose(transpose(x)) -> transpose(x)", transpose_of_transpose),
    rule(O.TRANSPOSE, "transpose(broadcast(x)) -> broadcast(x)", transpose_of_broadcast),
    rule(O.TRANSPOSE, "transpose moving only size-1 dims -> reshape", transpose_is_reshape),
    rule(O.SLICE, "slice(x) covering x -> x", slice_identity),
    rule(O.SLICE, "slice(slice(x)) -> slice(x)", slice_of_slice),
    rule(O.SLICE, "slice(concatenate(...)) within one operand -> slice(operand)",
         slice_of_concat),
    rule(O.SLICE, "slice(broadcast(x)) -> broadcast(slice(x))", slice_of_broadcast),
    rule(O.CONCATENATE, "concatenate(x) -> x", concat_single),
    rule(O.CONCATENATE, "concatenate drops operands without elements", concat_drop_empty),
    rule(O.CONCATENATE, "concatenate(x[a:b], x[b:c]) -> x[a:c]", concat_adjacent_slices),
    rule(O.PAD, "pad(x) with zero padding -> x", pad_identity),
    rule(O.REVERSE, "reverse along size-1 dims -> fewer dims (or x)", reverse_degenerate),
    rule(O.REVERSE, "reverse(reverse(x)) -> x", reverse_of_reverse),
    rule(O.GET_TUPLE_ELEMENT, "get-tuple-element(tuple(...), i) -> operand i", gte_of_tuple),
    rule(O.DYNAMIC_SLICE, "dynamic-slice at constant indices -> slice",
         dynamic_slice_constant),
    rule(O.DYNAMIC_UPDATE_SLICE, "dynamic-update-slice of the whole operand -> update",
         dynamic_update_slice_whole),
    # -- reductions --------------------------------------------------------------------
    rule(O.REDUCE, "reduce over size-1 dims with identity init -> reshape", reduce_trivial),
    rule(O.REDUCE, "max/min-reduce over broadcast dims -> the broadcast operand",
         reduce_of_broadcast),
    rule(O.REDUCE, "reduce(transpose(x)) -> reduce(x) with permuted dims", reduce_of_transpose),
    # -- dots --------------------------------------------------------------------------
    rule(O.DOT, "dot contracting zero elements -> zeros", dot_empty_contraction),
    *rules_dot_strength_reduction,
)


def describe_rules() -> list[str]:
    """One line per rule: opcodes and description (for documentation and listings)."""
    return [f"{', '.join(sorted(o.value for o in r.opcodes))}: {r.description}"
            for r in rules_algebraic]

