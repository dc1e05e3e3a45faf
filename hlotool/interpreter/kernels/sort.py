"""sort (any comparator) and topk.

Two strategies, both vectorized:

* Key fast path. When the comparator is `key(lhs) LT|GT key(rhs)` (or JAX's lexicographic
  `lt0 | (eq0 & (lt1 | ...))`), where the rhs expression mirrors the lhs one on the rhs
  parameters, the key expressions are evaluated once on the whole operands, mapped to
  order-preserving unsigned integers and sorted with numpy's stable sorts. This covers
  JAX's `sort`/`argsort` (NaN-canonicalising TOTALORDER comparators) and XLA's TopK
  comparators.
* General path: a bottom-up stable merge sort whose merges are vectorized binary
  searches, so the comparator region runs on whole arrays of element pairs,
  O(log^2 n) times.

Both give the stable order. A sort without `is_stable=true` under XLA:CPU semantics then
orders the elements of each tie group as XLA:CPU's std::sort does (`introsort`), from the
rows' tie ranks; rows without ties are already in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from hlotool.interpreter.core import IMPLS, Evaluator, Unsupported, Value, impl
from hlotool.interpreter.kernels.introsort import std_sort_permutation
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.semantics import Semantics, current

_SIGN64 = np.uint64(1 << 63)
#: goes_first(element index, other-run index, element is in the left run) -> bool array.
_Decide = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


# -- order-preserving integer keys -------------------------------------------------------


def _compare_type(ins: Instruction) -> str:
    """The compare's type attribute, inferred from the operand type when absent."""
    explicit = ins.attrs.get("type")
    if explicit:
        return explicit
    ty = ins.operand(0).shape.element_type
    if ty.is_float:
        return "FLOAT"
    return "SIGNED" if ty.is_signed_int else "UNSIGNED"


def order_key(values: np.ndarray, compare_type: str) -> np.ndarray | None:
    """u64 keys whose unsigned order is `values`' order under `compare_type`.

    None when no such key exists (complex values, NaN under FLOAT comparisons).
    """
    v = np.asarray(values)
    ty = PrimitiveType.from_numpy(v.dtype)
    if ty is PrimitiveType.PRED:
        return v.astype(np.uint64)
    if ty.is_complex:
        return None
    if ty.is_integral:
        if compare_type == "UNSIGNED" and ty.is_signed_int:
            v = v.astype(np.int64) & np.int64((1 << ty.bits) - 1 if ty.bits < 64 else -1)
            return v.view(np.uint64)
        if ty.is_unsigned_int:
            return v.astype(np.uint64)
        return v.astype(np.int64).view(np.uint64) ^ _SIGN64
    if compare_type != "TOTALORDER":
        if np.isnan(v.astype(np.float64)).any():
            return None
        v = np.where(v == 0, np.zeros((), v.dtype), v)
    return _float_total_order(v)


def natural_compare_type(dtype: np.dtype) -> str:
    """The compare type XLA infers for an element type (TOTALORDER for floats)."""
    ty = PrimitiveType.from_numpy(dtype)
    if ty.is_float:
        return "TOTALORDER"
    return "SIGNED" if ty.is_signed_int else "UNSIGNED"


def _float_total_order(v: np.ndarray) -> np.ndarray:
    """XLA's TOTALORDER: signed bits with the magnitude bits of negatives flipped."""
    signed = np.dtype(f"i{v.dtype.itemsize}")
    k = np.ascontiguousarray(v).view(signed).astype(np.int64)
    k = np.where(k < 0, k ^ np.int64(np.iinfo(signed).max), k)
    return k.view(np.uint64) ^ _SIGN64


# -- recognising key comparators ---------------------------------------------------------


def _cone(root: Instruction) -> dict[int, Instruction]:
    """`root` and everything it depends on, by id."""
    found: dict[int, Instruction] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in found:
            found[id(node)] = node
            stack.extend(node.operands)
    return found


def _uses_parameters(ins: Instruction) -> bool:
    return any(n.opcode is Opcode.PARAMETER for n in _cone(ins).values())


def _mirrors(a: Instruction, b: Instruction) -> bool:
    """`b` computes on the rhs parameters what `a` computes on the lhs ones."""
    if a.opcode is Opcode.PARAMETER:
        return (b.opcode is Opcode.PARAMETER and a.parameter_number % 2 == 0
                and b.parameter_number == a.parameter_number + 1)  # fmt: skip
    if a is b:
        return not _uses_parameters(a)
    return _same_node(a, b) and all(_mirrors(x, y) for x, y in zip(a.operands, b.operands))


def _same_node(a: Instruction, b: Instruction) -> bool:
    """Same opcode, shape, attributes, operand count and constant value."""
    if a.opcode is not b.opcode or a.shape != b.shape or a.attrs != b.attrs:
        return False
    if a.operand_count != b.operand_count:
        return False
    if a.opcode is Opcode.CONSTANT:
        return a.literal is not None and b.literal is not None and a.literal.bit_equal(b.literal)
    return a.opcode is not Opcode.PARAMETER


def _same_expr(a: Instruction, b: Instruction) -> bool:
    if a is b:
        return True
    if a.opcode is Opcode.PARAMETER:
        return b.opcode is Opcode.PARAMETER and a.parameter_number == b.parameter_number
    return _same_node(a, b) and all(_same_expr(x, y) for x, y in zip(a.operands, b.operands))


def _key_compare(ins: Instruction) -> tuple[Instruction, bool, str] | None:
    """(lhs key expression, descending, compare type) of `key(l) LT|GT key(r)`."""
    if ins.opcode is not Opcode.COMPARE or ins.attrs.get("direction") not in ("LT", "GT"):
        return None
    lhs, rhs = ins.operands
    if not _mirrors(lhs, rhs) or _compare_type(ins) == "WEAKORDER":
        return None
    return lhs, ins.attrs["direction"] == "GT", _compare_type(ins)


def _is_key_equality(ins: Instruction, less: Instruction) -> bool:
    """`ins` is `key(l) EQ key(r)` over the same keys (and type) as the compare `less`."""
    if ins.opcode is not Opcode.COMPARE or ins.attrs.get("direction") != "EQ":
        return False
    if _compare_type(ins) != _compare_type(less):
        return False
    (a, b), (x, y) = ins.operands, less.operands
    return (_same_expr(a, x) and _same_expr(b, y)) or (_same_expr(a, y) and _same_expr(b, x))


def key_terms(root: Instruction) -> list[tuple[Instruction, bool, str]] | None:
    """The lexicographic key terms of a comparator, or None if it has another form."""
    single = _key_compare(root)
    if single is not None:
        return [single]
    if root.opcode is not Opcode.OR:
        return None
    for less, rest in (root.operands, root.operands[::-1]):
        first = _key_compare(less)
        if first is None or rest.opcode is not Opcode.AND:
            continue
        for eq, tail in (rest.operands, rest.operands[::-1]):
            if _is_key_equality(eq, less):
                tail_terms = key_terms(tail)
                if tail_terms is not None:
                    return [first, *tail_terms]
    return None


def _evaluate(ev: Evaluator, comp: Computation, root: Instruction, args: Sequence[Value]) -> Value:
    """Evaluate the sub-expression `root` of `comp` on argument values."""
    cone = _cone(root)
    env: dict[int, Value] = {}
    for ins in comp.post_order():
        if id(ins) not in cone:
            continue
        if ins.opcode is Opcode.PARAMETER:
            env[id(ins)] = args[ins.parameter_number]
            continue
        fn = IMPLS.get(ins.opcode)
        if fn is None:
            raise Unsupported(f"the interpreter cannot run {ins.opcode.value} (in {comp.name})")
        env[id(ins)] = fn(ev, ins, [env[id(o)] for o in ins.operands])
    return env[id(root)]


def _keys(ev: Evaluator, comp: Computation, operands: list[np.ndarray]) -> list[np.ndarray] | None:
    """Per term, u64 keys over the operands (ascending order = comparator order)."""
    assert comp.root is not None
    terms = key_terms(comp.root)
    if terms is None:
        return None
    args: list[Value] = []
    for op in operands:
        args += [op, op]
    keys = []
    for expr, descending, compare_type in terms:
        value = np.broadcast_to(_evaluate(ev, comp, expr, args), operands[0].shape)
        key = order_key(value, compare_type)
        if key is None:
            return None
        keys.append(~key if descending else key)
    return keys


# -- the general path: vectorized merge sort ---------------------------------------------


def _less(ev: Evaluator, comp: Computation, flat: list[np.ndarray], a: np.ndarray,
          b: np.ndarray) -> np.ndarray:
    """comparator(flat[a], flat[b]) for index arrays a, b."""
    args: list[Value] = []
    for f in flat:
        args += [f[a], f[b]]
    return np.broadcast_to(np.asarray(ev.call(comp, args), dtype=bool), a.shape)


def _merge_sort(ev: Evaluator, comp: Computation, operands: list[np.ndarray]) -> np.ndarray:
    """Stable permutation of the last axis of 2-D operands (bottom-up merge sort)."""
    rows, n = operands[0].shape
    perm = np.tile(np.arange(n, dtype=np.int64), (rows, 1))
    width = 1
    while width < n:
        perm = _merge_runs(ev, comp, operands, perm, width)
        width *= 2
    return perm


def _merge_runs(ev: Evaluator, comp: Computation, operands: list[np.ndarray], perm: np.ndarray,
                width: int) -> np.ndarray:
    """One pass: each pair of adjacent sorted runs of `width` becomes one sorted run.

    An element's new place is its place in its own run plus the number of elements of
    the other run that go before it: for a left element the right elements strictly
    less than it, for a right element the left elements not greater (stability).
    """
    rows, n = perm.shape
    flat = [np.take_along_axis(op, perm, axis=1).reshape(-1) for op in operands]
    pos = np.arange(n, dtype=np.int64)
    left_start = pos // (2 * width) * (2 * width)
    is_left = pos - left_start < width
    own_start = np.where(is_left, left_start, left_start + width)
    other_start = np.where(is_left, left_start + width, left_start)
    other_len = np.where(is_left, np.clip(n - left_start - width, 0, width), width)
    base = (np.arange(rows, dtype=np.int64) * n)[:, None]

    def goes_first(me: np.ndarray, other: np.ndarray, left: np.ndarray) -> np.ndarray:
        less = _less(ev, comp, flat, np.where(left, other, me), np.where(left, me, other))
        return np.where(left, less, ~less)

    full = (rows, n)
    before = _count_before(
        goes_first, np.broadcast_to(base + pos, full), np.broadcast_to(base + other_start, full),
        np.broadcast_to(other_len, full), np.broadcast_to(is_left, full),
    )  # fmt: skip
    target = left_start + (pos - own_start) + before
    merged = np.empty_like(perm)
    valid = np.all(np.sort(target, axis=1) == pos, axis=1)
    if valid.all():
        np.put_along_axis(merged, target, perm, axis=1)
        return merged
    # A comparator that is no strict weak order (e.g. `LT` on floats with NaNs) has no
    # consistent merge positions: merge those rows pairwise instead, which always
    # gives a permutation (XLA's std::stable_sort gives some permutation too).
    for r in range(rows):
        if valid[r]:
            merged[r][target[r]] = perm[r]
        else:
            merged[r] = _merge_row(lambda a, b: bool(_less(ev, comp, flat, np.array(r * n + a),
                                                           np.array(r * n + b))),
                                   perm[r], width)
    return merged


def _merge_row(less: Callable[[int, int], bool], perm: np.ndarray, width: int) -> np.ndarray:
    """One merge pass over one row, two pointers per pair of runs; `less(i, j)` compares
    the elements at positions i and j of the current order."""
    n = perm.size
    out = np.empty_like(perm)
    k = 0
    for start in range(0, n, 2 * width):
        i, mid = start, min(start + width, n)
        j, end = mid, min(start + 2 * width, n)
        while i < mid or j < end:
            if j < end and (i >= mid or less(j, i)):
                out[k], j = perm[j], j + 1
            else:
                out[k], i = perm[i], i + 1
            k += 1
    return out


def _count_before(goes_first: _Decide, me: np.ndarray, start: np.ndarray, length: np.ndarray,
                  left: np.ndarray) -> np.ndarray:
    """Binary search, for all elements at once, of how many elements of the other run
    (start, length) go before each element; `goes_first(me, other, left)` decides."""
    lo = np.zeros(me.shape, dtype=np.int64)
    hi = length.copy()
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo[active] + hi[active]) // 2
        first = goes_first(me[active], start[active] + mid, left[active])
        lo[active] = np.where(first, mid + 1, lo[active])
        hi[active] = np.where(first, hi[active], mid)


# -- entry points ------------------------------------------------------------------------


def sort_permutation(ev: Evaluator, comp: Computation, operands: Sequence[np.ndarray],
                     axis: int, stable: bool = True) -> np.ndarray:
    """Indices along `axis` that sort the operands under the comparator `comp`: stably,
    or (`stable=False`) with ties in libstdc++ std::sort's order, as XLA:CPU leaves them."""
    moved = [np.moveaxis(np.asarray(op), axis, -1) for op in operands]
    shape = moved[0].shape
    if not shape or shape[-1] <= 1:
        return np.zeros(shape, dtype=np.int64) if shape else np.zeros((), dtype=np.int64)
    keys = _keys(ev, comp, moved)
    if keys is not None:
        if len(keys) == 1:
            perm = np.argsort(keys[0], axis=-1, kind="stable")
        else:
            perm = np.lexsort(keys[::-1], axis=-1)
        if not stable:
            ordered = [np.take_along_axis(k, perm, axis=-1).reshape(-1, shape[-1]) for k in keys]
            steps = np.any([k[:, 1:] != k[:, :-1] for k in ordered], axis=0)
            perm = _unstable(perm.reshape(-1, shape[-1]), steps).reshape(shape)
    else:
        flat2d = [m.reshape(-1, shape[-1]) for m in moved]
        perm = _merge_sort(ev, comp, flat2d)
        if not stable:
            perm = _unstable(perm, _sorted_steps(ev, comp, flat2d, perm))
        perm = perm.reshape(shape)
    return np.moveaxis(perm, -1, axis)


def _sorted_steps(ev: Evaluator, comp: Computation, flat2d: list[np.ndarray],
                  perm: np.ndarray) -> np.ndarray:
    """Per row of the stable order, whether each element goes before the next one."""
    rows, n = perm.shape
    flat = [f.reshape(-1) for f in flat2d]
    at = perm + (np.arange(rows, dtype=np.int64) * n)[:, None]
    return _less(ev, comp, flat, at[:, :-1], at[:, 1:])


def _unstable(perm: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Rows of a stable permutation reordered as std::sort leaves them; `steps[r, j]`:
    element j + 1 of row r's stable order goes strictly after element j."""
    ties = ~steps.all(axis=1)
    if not ties.any():
        return perm
    out = perm.copy()
    sorted_ranks = np.concatenate(
        [np.zeros((perm.shape[0], 1), np.int64), np.cumsum(steps, axis=1)], axis=1)
    for r in np.flatnonzero(ties):
        ranks = np.empty(perm.shape[1], np.int64)
        ranks[perm[r]] = sorted_ranks[r]
        out[r] = std_sort_permutation(ranks.tolist())
    return out


def sorted_operands(ev: Evaluator, comp: Computation, operands: Sequence[np.ndarray],
                    axis: int, stable: bool = True) -> list[np.ndarray]:
    perm = sort_permutation(ev, comp, operands, axis, stable)
    return [np.take_along_axis(np.asarray(op), perm, axis=axis) for op in operands]


def top_k_with_comparator(ev: Evaluator, comp: Computation, values: np.ndarray,
                          k: int) -> tuple[np.ndarray, np.ndarray]:
    """The first k elements of the last axis under `comp` (which also sees the s32 indices)."""
    iota = np.broadcast_to(np.arange(values.shape[-1], dtype=np.int32), values.shape)
    perm = sort_permutation(ev, comp, [values, iota], values.ndim - 1)[..., :k]
    return np.take_along_axis(values, perm, axis=-1), perm.astype(np.int32)


def stable_order(ins: Instruction) -> bool:
    """Whether ties keep their order: `is_stable=true`, or any sort under the StableHLO
    semantics (which leaves the order of ties open); else std::sort's order (XLA:CPU)."""
    return bool(ins.attrs.get("is_stable")) or current() is Semantics.STABLEHLO


@impl(Opcode.SORT)
def _sort(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    axis = ins.attrs["dimensions"][0]
    if axis < 0:
        axis += ops[0].ndim
    result = sorted_operands(ev, ins.attrs["to_apply"], ops, axis, stable_order(ins))
    return tuple(result) if ins.shape.is_tuple else result[0]


@impl(Opcode.TOPK)
def _topk(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """k largest (or smallest) along the last axis in total order, ties by lower index."""
    values = np.asarray(ops[0])
    k = ins.attrs["k"]
    key = order_key(values, natural_compare_type(values.dtype))
    if key is None:
        raise Unsupported(f"topk of {values.dtype} is not supported")
    if ins.attrs.get("largest", True):
        key = ~key
    perm = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(values, perm, axis=-1), perm.astype(np.int32)

