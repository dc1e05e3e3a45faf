"""Reduction kernels: reduce, reduce-window, select-and-scatter and scan.

Reducer regions are evaluated on whole arrays: one call per reduction step, each step
combining the accumulators of all output elements with one more input element.

The order follows XLA:CPU, so float results match it bit for bit:

* a single-output reduce whose reduced dimensions exceed 32 elements is first cut into
  windows of 32 (XLA's tree-reduction rewrite, repeated until no reduced dimension
  exceeds 32);
* each window, and each reduce, folds its elements in row-major order starting from
  the init value (`acc = body(acc, x)`), rounding after every step. The init value thus
  enters once per window and once more at the end, as in XLA:CPU, for every element
  type, except for the reduces XLA:CPU hands to YNNPACK (`adds_init_once`): there the
  windows start from the reducer's identity and the init enters once.

Single-op reducers whose result does not depend on the order (integer add, max/min,
bitwise ops) use numpy's ufunc reductions instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from hlotool.interpreter.core import Evaluator, Value, impl
from hlotool.interpreter.kernels.data_movement import pad_array
from hlotool.interpreter.kernels.elementwise import (
    Kind,
    apply_op,
    convert,
    flush_denormals,
    flush_result,
    fma32,
    from_compute,
    int_range,
    is_sum,
    kind,
    pop_fused_product,
    to_compute,
)
from hlotool.ir.attributes import Window, WindowDimension
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType

O = Opcode

#: XLA:CPU's tree-reduction window.
TREE_WINDOW = 32
#: XLA:CPU prefers YNNPACK for a reduce with this many elements in its operand or result
#: (xla/backends/cpu/ynn_support.cc, IsInstructionPreferredByYnn) ...
YNN_MIN_ELEMENTS = 4096
#: ... and at most this rank (YNN_MAX_TENSOR_RANK).
YNN_MAX_RANK = 8
#: Element types YNNPACK reduces with each reducer (IsReduceLikeOpSupportedByYnn, where
#: operand and result types are equal).
_YNN_TYPES = {
    O.ADD: {PrimitiveType.F32, PrimitiveType.F64},
    O.MAXIMUM: {PrimitiveType.U8, PrimitiveType.S8, PrimitiveType.BF16, PrimitiveType.F16,
                PrimitiveType.F32, PrimitiveType.F64},
}
_YNN_TYPES[O.MINIMUM] = _YNN_TYPES[O.MAXIMUM]
#: XLA:CPU computes prefix scans (reduce-windows spanning a whole axis) in chunks of this.
SCAN_BASE = 16
#: Longer folds of variadic reducers combine neighbours pairwise (the same result for
#: associative bodies, such as JAX's argmax, in log2(n) region calls instead of n).
SEQUENTIAL_LIMIT = 64


# -- reducer regions ---------------------------------------------------------------------------


class Reducer:
    """A reducer region applied to arrays: body(lhs..., rhs...) -> results."""

    def __init__(self, ev: Evaluator, comp: Computation, types: Sequence[PrimitiveType]):
        self.ev = ev
        self.comp = comp
        self.arg_types = [p.shape.element_type for p in comp.parameters]
        self.types = list(types)
        same_types = self.arg_types[: len(self.types)] == self.types
        self.opcode = _single_op(comp) if same_types else None
        self.kind = kind(self.types[0]) if self.opcode is not None else None

    @property
    def arity(self) -> int:
        return len(self.types)

    def cast_inputs(self, values: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Inputs converted to the region's argument types (when they differ)."""
        return [
            convert(np.asarray(v), t, a) if t is not a else np.asarray(v)
            for v, t, a in zip(values, self.types, self.arg_types, strict=False)
        ]

    def __call__(self, lhs: Sequence[np.ndarray], rhs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if self.opcode is not None and self.kind is not None:
            return [apply_op(self.opcode, self.kind, self.kind, [lhs[0], rhs[0]])]
        out = self.ev.call(self.comp, [*lhs, *rhs])
        return list(out) if isinstance(out, tuple) else [out]


def _single_op(comp: Computation) -> Opcode | None:
    """The opcode of a region that is one binary op on its two parameters, else None."""
    params = comp.parameters
    root = comp.root
    if len(params) != 2 or root is None or root.opcode not in _UFUNCS:
        return None
    if set(map(id, root.operands)) != {id(params[0]), id(params[1])}:
        return None
    t = params[0].shape.element_type
    if params[1].shape.element_type is not t or root.shape.element_type is not t:
        return None
    return root.opcode


_UFUNCS: dict[Opcode, dict[str, np.ufunc]] = {
    O.ADD: {"b": np.logical_or, "i": np.add, "f": np.add, "c": np.add},
    O.MULTIPLY: {"b": np.logical_and, "i": np.multiply, "f": np.multiply, "c": np.multiply},
    O.MAXIMUM: {"b": np.logical_or, "i": np.maximum, "f": np.maximum},
    O.MINIMUM: {"b": np.logical_and, "i": np.minimum, "f": np.minimum},
    O.AND: {"b": np.logical_and, "i": np.bitwise_and},
    O.OR: {"b": np.logical_or, "i": np.bitwise_or},
    O.XOR: {"b": np.logical_xor, "i": np.bitwise_xor},
}


def _ufunc_for(reducer: Reducer, *, sequential: bool) -> np.ufunc | None:
    """The ufunc that reduces exactly like the region, if there is one.

    Float add/multiply round differently in another order, so they qualify only where
    numpy evaluates in XLA's sequential order (`sequential`, for accumulate), and never
    for floats narrower than f32, which round to their type after every step.
    """
    k = reducer.kind
    if reducer.opcode is None or k is None:
        return None
    ufunc = _UFUNCS[reducer.opcode].get("i" if k.cls == "u" else k.cls)
    if ufunc is None or k.cls not in "fc" or reducer.opcode in (O.MAXIMUM, O.MINIMUM):
        return ufunc
    return ufunc if sequential and k.bits >= 32 else None


# -- reduce ----------------------------------------------------------------------------------


def adds_init_once(ins: Instruction) -> bool:
    """Whether XLA:CPU runs this reduce on YNNPACK, which adds the init value once per
    output (no tree rewrite): a region that is only add (f32, f64) or maximum/minimum of
    its two parameters, reduced dims given, row-major layouts, rank <= 8, and at least
    4096 elements in the operand or the result."""
    if ins.opcode is not O.REDUCE or ins.operand_count != 2 or not ins.attrs["dimensions"]:
        return False
    comp = ins.attrs["to_apply"]
    op = _single_op(comp) if len(comp.instructions) == 3 else None
    operand = ins.operand(0).shape
    if op not in _YNN_TYPES or ins.shape.element_type not in _YNN_TYPES[op] or \
            operand.element_type is not ins.shape.element_type or operand.rank > YNN_MAX_RANK:
        return False
    if not (operand.is_row_major and ins.shape.is_row_major):
        return False
    return max(operand.element_count, ins.shape.element_count) >= YNN_MIN_ELEMENTS


#: A strided first tree level (`strided_windows`) takes this many windows from each block
#: of STRIDED_LANES * 32 elements.
STRIDED_LANES = 16


def strided_windows(ins: Instruction) -> bool:
    """Whether the first tree level of this reduce takes its windows along the last dim
    at a stride: window l of each block of STRIDED_LANES * 32 elements holds its elements
    l, l + 16, l + 32, ... (in that order), not 32 adjacent ones. For a float sum XLA:CPU
    runs on YNNPACK (`adds_init_once`), whose order is not the tree anyway, over trailing
    dims with the last one a multiple of 512: the windows and the tree above them are
    the same sizes (so is the error bound), and the CPU kernels fold 16 windows in one
    vector with plain vector adds instead of transposing every 16 x 16 block."""
    if not adds_init_once(ins) or _single_op(ins.attrs["to_apply"]) is not O.ADD:
        return False
    shape = ins.operand(0).shape
    dims = sorted(ins.attrs["dimensions"])
    return dims == list(range(shape.rank - len(dims), shape.rank)) and \
        shape.dimensions[-1] % (STRIDED_LANES * TREE_WINDOW) == 0


def strided_view(x: np.ndarray) -> np.ndarray:
    """x with its last dim reordered so that a strided first level's windows are adjacent:
    element 512 b + 32 l + j is x's 512 b + 16 j + l."""
    n = x.shape[-1]
    blocks = x.reshape(*x.shape[:-1], n // (STRIDED_LANES * TREE_WINDOW), TREE_WINDOW,
                       STRIDED_LANES)
    return np.ascontiguousarray(blocks.swapaxes(-1, -2)).reshape(x.shape)


def reduce_arrays(
    reducer: Reducer, inputs: Sequence[np.ndarray], inits: Sequence[np.ndarray],
    axes: Sequence[int], *, init_once: bool = False, strided: bool = False,
) -> list[np.ndarray]:
    """Reduce `inputs` over `axes` (XLA:CPU order); one array per reducer output.
    `init_once`: the windows of the tree start from the reducer's identity (YNNPACK);
    `strided`: its first level's windows are strided (`strided_windows`)."""
    axes = sorted(axes)
    if reducer.arity == 1:
        x = np.asarray(inputs[0])
        tree = any(x.shape[d] > TREE_WINDOW for d in axes)
        ufunc = _ufunc_for(reducer, sequential=False)
        if ufunc is not None and x.size and (init_once or not tree or _init_is_idempotent(
                reducer, inits[0])):
            return [_ufunc_reduce(reducer, ufunc, x, inits[0], tuple(axes))]
        if tree:
            return _tree_reduce(reducer, strided_view(x) if strided else x, inits[0], axes,
                                init_once)
    return _fold_reduce(reducer, inputs, inits, axes)


def _init_is_idempotent(reducer: Reducer, init: np.ndarray) -> bool:
    """op(init, init) == init: adding it once per window is adding it once."""
    assert reducer.opcode is not None and reducer.kind is not None
    if reducer.opcode in (O.MAXIMUM, O.MINIMUM, O.AND, O.OR):
        return True
    return _is_idempotent(reducer.opcode, reducer.kind, np.atleast_1d(init))


def _ufunc_reduce(
    reducer: Reducer, ufunc: np.ufunc, x: np.ndarray, init: np.ndarray, axes: tuple[int, ...]
) -> np.ndarray:
    """An order-independent reduction by numpy, then combined with the init value."""
    k, opcode = reducer.kind, reducer.opcode
    assert k is not None
    assert opcode is not None
    with np.errstate(all="ignore"):
        xc = flush_denormals(to_compute(x, k)) if k.flushes else to_compute(x, k)
        r = np.asarray(ufunc.reduce(xc, axis=axes)) if axes else xc
        if k.cls == "f":
            r = _fix_zero_sign(r, xc, axes, opcode is O.MAXIMUM)
    return apply_op(opcode, k, k, [init, r])


def _fix_zero_sign(r: np.ndarray, x: np.ndarray, axes: tuple[int, ...], is_max: bool) -> np.ndarray:
    """IEEE max (min) over zeros is +0 (-0) if any +0 (-0) is among them."""
    zero = r == 0
    if not np.any(zero):
        return r
    present = np.logical_or.reduce((x == 0) & (np.signbit(x) != is_max), axis=axes)
    return np.where(zero & present, r.dtype.type(0.0 if is_max else -0.0), r)


def _tree_reduce(
    reducer: Reducer, x: np.ndarray, init: np.ndarray, axes: Sequence[int], init_once: bool
) -> list[np.ndarray]:
    """XLA:CPU's rewrite: reduce windows of 32 along the reduced dims, then reduce those
    (windows from the reducer's identity when the init enters once)."""
    start = _window_start(reducer, init) if init_once else init
    partial = reduce_window_arrays(reducer, [x], [start], Window(tuple(_tree_window(x.shape, axes))))
    return reduce_arrays(reducer, partial, [init], axes, init_once=init_once)


def _window_start(reducer: Reducer, init: np.ndarray) -> np.ndarray:
    """The identity a window starts from when the init enters once (-0 for a float sum,
    which leaves every value, -0 included, unchanged)."""
    assert reducer.opcode is not None and reducer.kind is not None
    if reducer.opcode is O.ADD:
        return np.asarray(-0.0, np.asarray(init).dtype)
    return np.asarray(init)


def _tree_window(shape: tuple[int, ...], axes: Sequence[int]) -> list[WindowDimension]:
    """Windows of up to 32 along the reduced dims, stride = size, SAME padding."""
    dims = []
    for d, n in enumerate(shape):
        if d not in axes:
            dims.append(WindowDimension())
            continue
        w = min(n, TREE_WINDOW)
        total = max(-(-n // w) * w - n, 0)
        dims.append(
            WindowDimension(
                size=w, stride=w, padding_low=total // 2, padding_high=total - total // 2
            )
        )
    return dims


def _fold_reduce(
    reducer: Reducer, inputs: Sequence[np.ndarray], inits: Sequence[np.ndarray], axes: Sequence[int]
) -> list[np.ndarray]:
    """Fold the reduced elements in row-major order, all output elements at once."""
    x0 = np.asarray(inputs[0])
    kept = [d for d in range(x0.ndim) if d not in axes]
    kept_shape = tuple(x0.shape[d] for d in kept)
    count = math.prod(x0.shape[d] for d in axes)
    flat = [np.transpose(np.asarray(x), kept + list(axes)).reshape(*kept_shape, count)
            for x in reducer.cast_inputs(inputs)]  # fmt: skip
    accs = [np.broadcast_to(np.asarray(i), kept_shape) for i in reducer.cast_inputs(inits)]
    if count == 0:
        return [np.array(a) for a in accs]
    ufunc = _ufunc_for(reducer, sequential=True)
    if ufunc is not None:
        return [_ordered_reduce(reducer, ufunc, flat[0], inits[0])]
    # Single-output folds keep XLA's order (they are at most 32 elements per reduced
    # dimension here); longer variadic folds go pairwise.
    if reducer.arity > 1 and count > SEQUENTIAL_LIMIT:
        return reducer(accs, _pairwise(reducer, flat))
    for j in range(count):
        accs = reducer(accs, [x[..., j] for x in flat])
    return [np.broadcast_to(a, kept_shape) for a in accs]


def _ordered_reduce(
    reducer: Reducer, ufunc: np.ufunc, data: np.ndarray, init: np.ndarray
) -> np.ndarray:
    """Fold `data[..., 0], data[..., 1], ...` into init in that order (single-op reducer).

    numpy folds in order along an axis that is not its innermost loop; along the
    innermost one it would sum pairwise, so that case goes through `accumulate`, which is
    sequential by definition. Denormals are read as zero once and flushed from the result.
    """
    k, opcode = reducer.kind, reducer.opcode
    assert k is not None
    assert opcode is not None
    with np.errstate(all="ignore"):
        xc = flush_denormals(to_compute(data, k))
        init_c = to_compute(init, k)
        if not _is_neutral_start(opcode, init_c):
            xc = np.concatenate([np.broadcast_to(init_c, (*xc.shape[:-1], 1)), xc], axis=-1)
        if any(st < 0 for st in xc.strides):
            xc = np.ascontiguousarray(xc)
        if _is_innermost(xc):
            lanes = xc.reshape(-1, xc.shape[-1])
            r = _fold_lanes(ufunc, lanes).reshape(xc.shape[:-1])
        else:
            r = ufunc.reduce(xc, axis=-1)
        if opcode is O.ADD and _is_neutral_start(opcode, init_c):
            r = r + init_c  # a zero result takes the sign a fold from +-0 gives it
        return from_compute(flush_result(np.array(r)), k)


#: Elements transposed at a time by _fold_lanes (a block stays in cache).
_LANE_BLOCK = 1 << 16


def _fold_lanes(ufunc: np.ufunc, lanes: np.ndarray) -> np.ndarray:
    """Sequential fold of each row of a 2-D array: blocks of rows are transposed so numpy
    folds them row by row (an outer-axis reduce), which is both in order and fast."""
    out = np.empty(lanes.shape[0], lanes.dtype)
    step = max(2, _LANE_BLOCK // max(lanes.shape[1], 1))
    for i in range(0, lanes.shape[0], step):
        block = lanes[i : i + step].T.copy()
        if block.shape[1] > 1:
            ufunc.reduce(block, axis=0, out=out[i : i + step])
        else:
            out[i] = ufunc.accumulate(block[:, 0])[-1]
    return out


def _is_innermost(x: np.ndarray) -> bool:
    """Whether numpy would iterate the last axis in its inner loop (smallest stride)."""
    last = abs(x.strides[-1])
    return all(last <= abs(st) for st, n in zip(x.strides[:-1], x.shape[:-1], strict=True) if n > 1)


def _is_neutral_start(opcode: Opcode, init: np.ndarray) -> bool:
    """Whether folding from init equals folding from the first element (up to the sign of
    a zero result, fixed separately): init is +-0 for add, 1 for multiply."""
    if init.ndim or not np.isfinite(init):
        return False
    return bool(init == 0) if opcode is O.ADD else bool(init == 1)


def _pairwise(reducer: Reducer, flat: list[np.ndarray]) -> list[np.ndarray]:
    """Combine the last axis pairwise (neighbours, order kept) down to one element."""
    while flat[0].shape[-1] > 1:
        n = flat[0].shape[-1]
        h = n // 2
        merged = reducer(
            [x[..., 0 : 2 * h : 2] for x in flat], [x[..., 1 : 2 * h : 2] for x in flat]
        )
        if n % 2:
            merged = [
                np.concatenate([m, x[..., -1:]], axis=-1) for m, x in zip(merged, flat, strict=True)
            ]
        flat = merged
    return [x[..., 0] for x in flat]


@impl(O.REDUCE)
def _reduce(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    n = len(operands) // 2
    types = [o.shape.element_type for o in ins.operands[:n]]
    reducer = Reducer(ev, ins.attrs["to_apply"], types)
    dims = ins.attrs["dimensions"]
    once = adds_init_once(ins)
    product = pop_fused_product(ev, ins.operand(0)) if is_sum(ins) else None
    if product is not None:
        return _sum_of_products(reducer, *product, operands[1], sorted(dims), once,
                                strided_windows(ins))
    out = reduce_arrays(reducer, operands[:n], operands[n:], dims, init_once=once,
                        strided=strided_windows(ins))
    return out[0] if n == 1 and not ins.shape.is_tuple else tuple(out)


def _sum_of_products(
    reducer: Reducer, a: np.ndarray, b: np.ndarray, init: np.ndarray, axes: list[int],
    init_once: bool, strided: bool = False,
) -> np.ndarray:
    """reduce(multiply(a, b)) with `add`, as XLA:CPU runs it fused: acc = fma(a, b, acc),
    in windows of 32 first when a reduced dimension is longer (see _tree_reduce), strided
    ones (`strided_windows`: a sum XLA:CPU runs on YNNPACK, whose order is not the tree)
    when `strided`."""
    a, b = np.broadcast_arrays(a, b)
    if strided:
        a, b = strided_view(a), strided_view(b)
    if any(a.shape[d] > TREE_WINDOW for d in axes):
        dims = _tree_window(a.shape, axes)
        va, vb = (window_view(v, np.zeros((), v.dtype), dims) for v in (a, b))
        start = _window_start(reducer, init) if init_once else init
        acc = np.broadcast_to(np.asarray(start), va.shape[: a.ndim])
        for pos in np.ndindex(*va.shape[a.ndim :]):
            acc = fma32(va[(Ellipsis, *pos)], vb[(Ellipsis, *pos)], acc)
        return reduce_arrays(reducer, [acc], [init], axes, init_once=init_once)[0]
    kept = [d for d in range(a.ndim) if d not in axes]
    kept_shape = tuple(a.shape[d] for d in kept)
    fa, fb = (np.transpose(v, kept + axes).reshape(*kept_shape, -1) for v in (a, b))
    acc = np.broadcast_to(np.asarray(init), kept_shape)
    for j in range(fa.shape[-1]):
        acc = fma32(fa[..., j], fb[..., j], acc)
    return np.asarray(acc)


# -- reduce-window -----------------------------------------------------------------------------


def _window_dims(window: Window | None, rank: int) -> list[WindowDimension]:
    dims = list(window.dimensions) if window is not None else []
    return dims + [WindowDimension()] * (rank - len(dims))


def window_view(x: np.ndarray, fill: np.ndarray, dims: Sequence[WindowDimension]) -> np.ndarray:
    """A read-only view [out dims..., window dims...] of x padded/dilated with `fill`."""
    padded = pad_array(
        np.asarray(x),
        np.asarray(fill, x.dtype),
        [(d.padding_low, d.padding_high, d.base_dilation - 1) for d in dims],
    )
    out_shape, strides = [], []
    for d, n, st in zip(dims, padded.shape, padded.strides, strict=True):
        span = (d.size - 1) * d.window_dilation + 1
        out_shape.append(max(0, (n - span) // d.stride + 1) if n >= span else 0)
        strides.append(st * d.stride)
    win_shape = [d.size for d in dims]
    win_strides = [st * d.window_dilation for d, st in zip(dims, padded.strides, strict=True)]
    return as_strided(padded, (*out_shape, *win_shape), (*strides, *win_strides), writeable=False)


def reduce_window_arrays(
    reducer: Reducer,
    inputs: Sequence[np.ndarray],
    inits: Sequence[np.ndarray],
    window: Window | None,
) -> list[np.ndarray]:
    """reduce-window: each window folded in row-major order starting from the init values."""
    x0 = np.asarray(inputs[0])
    dims = _window_dims(window, x0.ndim)
    inputs = reducer.cast_inputs(inputs)
    inits = reducer.cast_inputs(inits)
    scan = _scan_axis(dims, x0.shape)
    if (
        scan is not None
        and x0.shape[scan[0]] > SCAN_BASE
        and _ufunc_for(reducer, sequential=False) is None
    ):
        return _tiled_scan(reducer, inputs, inits, *scan)
    if reducer.arity == 1:
        fast = _fast_window(reducer, inputs[0], inits[0], dims, scan)
        if fast is not None:
            return [fast]
    views = [window_view(x, i, dims) for x, i in zip(inputs, inits, strict=True)]
    rank = x0.ndim
    out_shape = views[0].shape[:rank]
    valid = _valid_view(x0.shape, dims)
    accs = [np.broadcast_to(np.asarray(i), out_shape) for i in inits]
    for pos in np.ndindex(*views[0].shape[rank:]):
        where = (Ellipsis, *pos)
        stepped = reducer(accs, [v[where] for v in views])
        if valid is not None:
            stepped = [
                np.where(valid[where], new, old) for new, old in zip(stepped, accs, strict=True)
            ]
        accs = stepped
    return [np.broadcast_to(a, out_shape) for a in accs]


def _valid_view(shape: tuple[int, ...], dims: Sequence[WindowDimension]) -> np.ndarray | None:
    """Which window cells hold operand elements: XLA skips padding and dilation holes
    (they do not enter the fold); None when every cell does."""
    if all(d.padding_low <= 0 and d.padding_high <= 0 and d.base_dilation == 1 for d in dims):
        return None
    return window_view(np.ones(shape, bool), np.zeros((), bool), dims)


def _fast_window(
    reducer: Reducer,
    x: np.ndarray,
    init: np.ndarray,
    dims: Sequence[WindowDimension],
    scan: tuple[int, bool, bool] | None,
) -> np.ndarray | None:
    """numpy shortcuts for single-op reducers: prefix scans and order-free folds."""
    k, opcode = reducer.kind, reducer.opcode
    if k is None or opcode is None:
        return None
    with np.errstate(all="ignore"):
        if scan is not None and not scan[2] and _is_idempotent(opcode, k, init):
            axis, reverse, _ = scan
            # numpy accumulates front to back, which is XLA's order only for prefixes.
            ufunc = _ufunc_for(reducer, sequential=not reverse)
            if ufunc is not None:
                xc = flush_denormals(to_compute(x, k)) if k.flushes else to_compute(x, k)
                r = ufunc.accumulate(np.flip(xc, axis) if reverse else xc, axis=axis)
                r = np.flip(r, axis) if reverse else r
                return apply_op(opcode, k, k, [init, np.asarray(r)])
        ordered = _ufunc_for(reducer, sequential=False) is None
        ufunc = _ufunc_for(reducer, sequential=ordered)
        if ufunc is None:
            return None
        # Padding cells hold the op's identity, so they change nothing (XLA skips them).
        view = window_view(x, _identity(opcode, k), dims)
        out_shape = view.shape[: x.ndim]
        if 0 in out_shape:
            return np.zeros(out_shape, k.storage)
        if ordered:
            return _ordered_reduce(reducer, ufunc, view.reshape(*out_shape, -1), init)
        return _ufunc_reduce(reducer, ufunc, view, init, tuple(range(x.ndim, view.ndim)))


def _identity(opcode: Opcode, k: Kind) -> np.ndarray:
    """The identity element of an order-free single-op reducer, in the storage dtype."""
    if k.cls == "b":
        value: object = opcode in (O.MULTIPLY, O.MINIMUM, O.AND)
    elif k.cls in "fc":
        value = {O.ADD: -0.0, O.MULTIPLY: 1.0, O.MAXIMUM: -np.inf, O.MINIMUM: np.inf}[opcode]
    else:
        lo, hi = int_range(k)
        all_ones = -1 if k.cls == "i" else hi
        value = {O.ADD: 0, O.MULTIPLY: 1, O.MAXIMUM: lo, O.MINIMUM: hi, O.AND: all_ones,
                 O.OR: 0, O.XOR: 0}[opcode]  # fmt: skip
    return from_compute(np.asarray(value).astype(k.compute), k)


def _tiled_scan(
    reducer: Reducer,
    inputs: list[np.ndarray],
    inits: list[np.ndarray],
    axis: int,
    reverse: bool,
    exclusive: bool,
) -> list[np.ndarray]:
    """A long prefix (or suffix) scan as XLA:CPU computes it (its ReduceWindowRewriter):
    scans of SCAN_BASE-element chunks, combined with a scan of the chunk totals."""
    moved = [np.moveaxis(x, axis, -1) for x in inputs]
    out = _scan_last(reducer, moved, inits, reverse, exclusive)
    return [np.moveaxis(o, -1, axis) for o in out]


def _scan_last(
    reducer: Reducer, xs: list[np.ndarray], inits: list[np.ndarray], reverse: bool, exclusive: bool
) -> list[np.ndarray]:
    n = xs[0].shape[-1]
    if n <= SCAN_BASE:
        pad = n if exclusive else n - 1
        last = WindowDimension(
            size=n, padding_low=0 if reverse else pad, padding_high=pad if reverse else 0
        )
        window = Window((WindowDimension(),) * (xs[0].ndim - 1) + (last,))
        return reduce_window_arrays(reducer, xs, inits, window)
    cols = -(-n // SCAN_BASE)
    lead = xs[0].shape[:-1]
    tail = [(0, 0, 0)] * len(lead) + [(0, cols * SCAN_BASE - n, 0)]
    tiled = [pad_array(x, np.asarray(i, x.dtype), tail).reshape(*lead, cols, SCAN_BASE)
             for x, i in zip(xs, inits, strict=True)]  # fmt: skip
    chunks = _scan_last(reducer, tiled, inits, reverse, False)
    totals = [c[..., 0 if reverse else -1] for c in chunks]
    carried = _scan_last(reducer, totals, inits, reverse, True)
    carried = [c[..., 1:] if reverse else c[..., :-1] for c in carried]
    combined = reducer(chunks, [np.broadcast_to(c[..., None], chunks[0].shape) for c in carried])
    flat = [c.reshape(*lead, cols * SCAN_BASE)[..., :n] for c in combined]
    if not exclusive:
        return flat
    edge = [
        np.broadcast_to(np.asarray(i, f.dtype), (*lead, 1))
        for i, f in zip(inits, flat, strict=True)
    ]
    return [
        np.concatenate([f, e] if reverse else [e, f], axis=-1)
        for f, e in zip(flat, edge, strict=True)
    ]


def _is_idempotent(opcode: Opcode, k: Kind, init: np.ndarray) -> bool:
    """op(init, init) == init: then padding cells (which hold init) change nothing."""
    init = np.asarray(init)
    again = apply_op(opcode, k, k, [init, init])
    return init.tobytes() == np.asarray(again, init.dtype).tobytes()


def _scan_axis(
    dims: Sequence[WindowDimension], shape: tuple[int, ...]
) -> tuple[int, bool, bool] | None:
    """(axis, reverse, exclusive) when the window is a prefix (or suffix) scan along one
    axis and trivial along the others."""
    found = None
    for axis, (d, n) in enumerate(zip(dims, shape, strict=True)):
        plain = d.stride == 1 and d.window_dilation == 1 and d.base_dilation == 1
        if d.size == 1 and d.padding_low == 0 and d.padding_high == 0 and plain:
            continue
        if found is not None or not plain or d.size != n or n < 2 or d.window_reversal:
            return None
        if d.padding_high == 0 and d.padding_low in (n - 1, n):
            found = (axis, False, d.padding_low == n)
        elif d.padding_low == 0 and d.padding_high in (n - 1, n):
            found = (axis, True, d.padding_high == n)
        else:
            return None
    return found


@impl(O.REDUCE_WINDOW)
def _reduce_window(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    n = len(operands) // 2
    types = [o.shape.element_type for o in ins.operands[:n]]
    reducer = Reducer(ev, ins.attrs["to_apply"], types)
    out = reduce_window_arrays(reducer, operands[:n], operands[n:], ins.attrs.get("window"))
    return out[0] if n == 1 and not ins.shape.is_tuple else tuple(out)


# -- select-and-scatter ------------------------------------------------------------------------


@impl(O.SELECT_AND_SCATTER)
def _select_and_scatter(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    operand, source, init = (np.asarray(v) for v in operands)
    dims = _window_dims(ins.attrs.get("window"), operand.ndim)
    values = window_view(operand, np.zeros((), operand.dtype), dims)
    index = np.arange(operand.size, dtype=np.int64).reshape(operand.shape)
    indices = window_view(index, np.array(-1, np.int64), dims)
    rank = operand.ndim
    _, chosen_index = _select_positions(ev, ins.attrs["select"], values, indices, rank)
    out = np.full(operand.size, init, dtype=operand.dtype)
    valid = chosen_index >= 0
    _scatter_combine(ev, ins.attrs["scatter"], out, chosen_index[valid], source[valid])
    return out.reshape(operand.shape)


def _select_positions(
    ev: Evaluator, select: Computation, values: np.ndarray, indices: np.ndarray, rank: int
) -> tuple[np.ndarray, np.ndarray]:
    """Fold `select(a, b) ? a : b` over each window's valid elements, keeping positions."""
    out_shape = values.shape[:rank]
    best = np.zeros(out_shape, values.dtype)
    best_index = np.full(out_shape, -1, np.int64)
    for pos in np.ndindex(*values.shape[rank:]):
        cand, cand_index = values[(Ellipsis, *pos)], indices[(Ellipsis, *pos)]
        valid = cand_index >= 0
        keep = np.asarray(ev.call(select, [best, cand]), bool)
        take = valid & ((best_index < 0) | ~keep)
        best = np.where(take, cand, best)
        best_index = np.where(take, cand_index, best_index)
    return best, best_index


def _scatter_combine(
    ev: Evaluator, scatter: Computation, out: np.ndarray, index: np.ndarray, updates: np.ndarray
) -> None:
    """out[index[i]] = scatter(out[index[i]], updates[i]) in order of i, vectorized by rounds."""
    if index.size == 0:
        return
    order = np.argsort(index, kind="stable")
    index, updates = index[order], updates[order]
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    group_start = np.repeat(starts, np.diff(np.r_[starts, index.size]))
    rank = np.arange(index.size) - group_start
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        ids = index[sel]
        out[ids] = np.asarray(ev.call(scatter, [out[ids], updates[sel]]))


# -- scan ----------------------------------------------------------------------------------------


@impl(O.SCAN)
def _scan(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """Carry values through the body along one dimension, stacking its per-step outputs."""
    num_carries = ins.attrs["num_carries"]
    n_inputs = len(operands) - num_carries
    inputs, carries = operands[:n_inputs], list(operands[n_inputs:])
    dim = ins.attrs["dimensions"][0]
    length = np.shape(inputs[0])[dim]
    steps = range(length - 1, -1, -1) if ins.attrs.get("is_reverse") else range(length)
    body = ins.attrs["to_apply"]
    outputs: list[list[np.ndarray]] = []
    slots: list[int] = []
    for i in steps:
        out = ev.call(body, [np.take(x, i, axis=dim) for x in inputs] + carries)
        parts = list(out) if isinstance(out, tuple) else [out]
        n_out = len(parts) - num_carries
        outputs.append(parts[:n_out])
        carries = parts[n_out:]
        slots.append(i)
    stacked = _stack_outputs(outputs, slots, dim, ins)
    result = [*stacked, *carries]
    return tuple(result) if ins.shape.is_tuple else result[0]


def _stack_outputs(
    outputs: list[list[np.ndarray]], slots: list[int], dim: int, ins: Instruction
) -> list[np.ndarray]:
    if not outputs:
        shapes = ins.shape.tuple_shapes if ins.shape.is_tuple else (ins.shape,)
        n_out = len(shapes) - ins.attrs["num_carries"]
        return [np.zeros(s.dimensions, s.element_type.numpy_dtype) for s in shapes[:n_out]]
    order = np.argsort(slots)
    return [np.stack([np.asarray(outputs[j][i]) for j in order], axis=dim)
            for i in range(len(outputs[0]))]  # fmt: skip
