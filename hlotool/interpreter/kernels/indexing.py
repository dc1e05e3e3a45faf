"""gather and scatter with all dimension numbers (batching dims included).

Both ops walk the same index space: the "batch" dims of the start indices (every dim
but index_vector_dim) followed by the window dims. Each is turned into one broadcast
integer index array per operand dim, so the work is a single numpy fancy-index (gather)
or a handful of array updates (scatter).

XLA:CPU semantics reproduced here:
* gather clamps each start index so that the whole slice fits in the operand;
* scatter skips the whole update window of a scatter index if any part of it is out of
  bounds, and applies updates in order of the scatter indices (row-major over the update
  scatter dims), each window as a whole, so with duplicate targets and a `.set` combiner
  the last update wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from hlotool.interpreter.core import Evaluator, Value, flatten, impl
from hlotool.interpreter.kernels.elementwise import flush_denormals
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode

_INT64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True, slots=True)
class _IndexSpace:
    """Start indices of every operand dim over the batch shape of the start indices."""

    batch_shape: tuple[int, ...]
    #: operand dim -> int64 array of `batch_shape` (dims absent from the map start at 0).
    starts: dict[int, np.ndarray]


def _to_int64(a: np.ndarray) -> np.ndarray:
    """Indices as int64, saturating unsigned values beyond the int64 range."""
    if a.dtype.kind == "u" and a.dtype.itemsize == 8:
        a = np.minimum(a, np.uint64(_INT64_MAX))
    return a.astype(np.int64)


def _index_space(
    indices: np.ndarray,
    index_vector_dim: int,
    index_map: Sequence[int],
    operand_batching_dims: Sequence[int],
    indices_batching_dims: Sequence[int],
) -> _IndexSpace:
    """Start indices from the index vectors (index_map) and the batching dims (iotas)."""
    idx = np.asarray(indices)
    if index_vector_dim == idx.ndim:
        idx = idx[..., None]
    idx = _to_int64(np.moveaxis(idx, index_vector_dim, -1))
    batch_shape = idx.shape[:-1]
    starts = {d: idx[..., k] for k, d in enumerate(index_map)}
    for operand_dim, indices_dim in zip(operand_batching_dims, indices_batching_dims):
        axis = indices_dim if indices_dim < index_vector_dim else indices_dim - 1
        shape = [1] * len(batch_shape)
        shape[axis] = batch_shape[axis]
        iota = np.arange(batch_shape[axis], dtype=np.int64).reshape(shape)
        starts[operand_dim] = np.broadcast_to(iota, batch_shape)
    return _IndexSpace(batch_shape, starts)


def _operand_indices(
    space: _IndexSpace, window_dims: Sequence[int], sizes: Sequence[int], rank: int
) -> list[np.ndarray]:
    """Per operand dim, a broadcastable index array over batch_shape + window shape.

    `window_dims` are the operand dims that have a window axis (in order) and `sizes`
    holds each operand dim's window size.
    """
    nb, nw = len(space.batch_shape), len(window_dims)
    out = []
    for d in range(rank):
        start = space.starts.get(d)
        index = np.zeros((1,) * (nb + nw), dtype=np.int64)
        if start is not None:
            index = index + start.reshape(space.batch_shape + (1,) * nw)
        if d in window_dims:
            shape = [1] * (nb + nw)
            shape[nb + window_dims.index(d)] = sizes[d]
            index = index + np.arange(sizes[d], dtype=np.int64).reshape(shape)
        out.append(index)
    return out


def _window_dims(rank: int, *dropped: Sequence[int]) -> list[int]:
    """Operand dims that keep a window axis (those not collapsed/inserted or batching)."""
    gone = {d for dims in dropped for d in dims}
    return [d for d in range(rank) if d not in gone]


def _clamp_starts(space: _IndexSpace, dims: Sequence[int], sizes: Sequence[int]) -> _IndexSpace:
    """Clamp start indices so that each slice of `sizes` fits in `dims` (gather's rule)."""
    starts = {d: np.clip(s, 0, max(dims[d] - sizes[d], 0)) for d, s in space.starts.items()}
    return _IndexSpace(space.batch_shape, starts)


def _place_axes(result_rank: int, window_positions: Sequence[int], nb: int) -> list[int]:
    """Transpose that moves batch + window axes to the result positions of the window axes."""
    src: list[int] = []
    batch = 0
    for o in range(result_rank):
        if o in window_positions:
            src.append(nb + list(window_positions).index(o))
        else:
            src.append(batch)
            batch += 1
    return src


# -- gather ------------------------------------------------------------------------------


@impl(Opcode.GATHER)
def _gather(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    operand, indices = ops
    a = ins.attrs
    rank = operand.ndim
    sizes = list(a["slice_sizes"])
    window_dims = _window_dims(rank, a["collapsed_slice_dims"], a.get("operand_batching_dims", ()))
    space = _index_space(
        indices, a["index_vector_dim"], a["start_index_map"],
        a.get("operand_batching_dims", ()), a.get("start_indices_batching_dims", ()),
    )  # fmt: skip
    space = _clamp_starts(space, operand.shape, sizes)
    index = _operand_indices(space, window_dims, sizes, rank)
    full_shape = space.batch_shape + tuple(sizes[d] for d in window_dims)
    gathered = np.broadcast_to(operand[tuple(index)], full_shape)
    offset_dims = tuple(a["offset_dims"])
    src = _place_axes(len(full_shape), offset_dims, len(space.batch_shape))
    return np.ascontiguousarray(gathered.transpose(src))


# -- scatter -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Targets:
    """Flat operand positions hit by the in-bounds updates, in XLA's update order."""

    positions: np.ndarray
    #: For each position, the flat index into the (transposed) updates.
    update_index: np.ndarray


def _scatter_targets(
    ins: Instruction, operand_shape: tuple[int, ...], indices: np.ndarray,
    updates_shape: tuple[int, ...],
) -> tuple[_Targets, list[int]]:  # fmt: skip
    """The in-bounds targets and the transpose that puts update scatter dims first."""
    a = ins.attrs
    rank = len(operand_shape)
    uwd = list(a["update_window_dims"])
    window_dims = _window_dims(rank, a["inserted_window_dims"], a.get("input_batching_dims", ()))
    sizes = [1] * rank
    for d, u in zip(window_dims, uwd):
        sizes[d] = updates_shape[u]
    space = _index_space(
        indices, a["index_vector_dim"], a["scatter_dims_to_operand_dims"],
        a.get("input_batching_dims", ()), a.get("scatter_indices_batching_dims", ()),
    )  # fmt: skip
    in_bounds = np.ones(space.batch_shape, dtype=bool)
    for d, s in space.starts.items():
        in_bounds &= (s >= 0) & (s <= operand_shape[d] - sizes[d])
    index = _operand_indices(space, window_dims, sizes, rank)
    full_shape = space.batch_shape + tuple(sizes[d] for d in window_dims)
    flat = np.zeros((1,) * len(full_shape), dtype=np.int64)
    for d, ix in enumerate(index):
        flat = flat * operand_shape[d] + np.clip(ix, 0, max(operand_shape[d] - 1, 0))
    flat = np.broadcast_to(flat, full_shape)
    window_ones = (1,) * len(window_dims)
    mask_flat = np.broadcast_to(in_bounds.reshape(space.batch_shape + window_ones), full_shape)
    mask_flat = mask_flat.reshape(-1)
    update_perm = [d for d in range(len(updates_shape)) if d not in uwd] + uwd
    targets = _Targets(flat.reshape(-1)[mask_flat], np.flatnonzero(mask_flat))
    return targets, update_perm


def _has_denormals(*arrays: np.ndarray) -> bool:
    """Whether any f32/f64 value is denormal."""
    return any(flush_denormals(a) is not a for a in arrays)


#: apply(flat operand, positions, updates) in place, for one operand.
_Apply = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def _fast_apply(comp: Computation, dtype: np.dtype) -> _Apply | None:
    """A direct way to apply the single-operand combiner `comp`, or None (run the region).

    Recognised: `.set` (returns the update), keep (returns the operand) and binary ops of
    both parameters via `ufunc.at`. ufuncs serve numpy's own dtypes only (ml_dtypes
    arithmetic goes through the region so it rounds like XLA), and floats only for
    add/multiply (max/min have NaN and signed-zero rules the elementwise kernels own).
    """
    root = comp.root
    if root is None or comp.num_parameters != 2:
        return None
    if root.opcode is Opcode.PARAMETER:
        return _apply_last if root.parameter_number == 1 else _keep
    ufunc = _UFUNCS.get(root.opcode)
    numbers = sorted(o.parameter_number for o in root.operands if o.opcode is Opcode.PARAMETER)
    if ufunc is None or numbers != [0, 1] or dtype.kind not in "biufc":
        return None
    arithmetic = root.opcode in (Opcode.ADD, Opcode.MULTIPLY)
    if (dtype.kind in "fc" and not arithmetic) or (dtype.kind == "b" and arithmetic):
        return None
    return ufunc.at


_UFUNCS = {
    Opcode.ADD: np.add, Opcode.MULTIPLY: np.multiply, Opcode.MAXIMUM: np.maximum,
    Opcode.MINIMUM: np.minimum, Opcode.AND: np.bitwise_and, Opcode.OR: np.bitwise_or,
    Opcode.XOR: np.bitwise_xor,
}  # fmt: skip


def _keep(out: np.ndarray, positions: np.ndarray, update: np.ndarray) -> None:
    """A combiner that returns the operand value changes nothing."""


def _occurrence_rank(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(stable order by position, how many earlier updates hit the same position)."""
    order = np.argsort(positions, kind="stable")
    sorted_pos = positions[order]
    n = len(sorted_pos)
    first = np.ones(n, dtype=bool)
    first[1:] = sorted_pos[1:] != sorted_pos[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    return order, np.arange(n) - group_start


def _apply_region(ev: Evaluator, comp: Computation, outs: list[np.ndarray],
                  positions: np.ndarray, updates: list[np.ndarray]) -> None:
    """Apply the combiner in rounds: round r handles every position's r-th update."""
    if positions.size == 0:
        return
    order, rank = _occurrence_rank(positions)
    for r in range(int(rank.max()) + 1):
        pick = order[rank == r]
        at = positions[pick]
        result = flatten(ev.call(comp, [o[at] for o in outs] + [u[pick] for u in updates]))
        for o, value in zip(outs, result):
            o[at] = np.broadcast_to(np.asarray(value), at.shape)


def _apply_last(out: np.ndarray, positions: np.ndarray, update: np.ndarray) -> None:
    """Assign with the last update winning for duplicate positions."""
    reversed_pos = positions[::-1]
    unique, first_in_reversed = np.unique(reversed_pos, return_index=True)
    out[unique] = update[::-1][first_in_reversed]


@impl(Opcode.SCATTER)
def _scatter(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    n = (len(ops) - 1) // 2
    operands, indices, updates = ops[:n], ops[n], ops[n + 1 :]
    targets, perm = _scatter_targets(ins, operands[0].shape, indices, updates[0].shape)
    outs = [np.array(o).reshape(-1) for o in operands]
    ups = [np.transpose(u, perm).reshape(-1)[targets.update_index] for u in updates]
    comp: Computation = ins.attrs["to_apply"]
    fast = _fast_apply(comp, outs[0].dtype) if n == 1 else None
    if fast is not None:
        start = outs[0].copy() if outs[0].dtype.kind == "f" else None
        fast(outs[0], targets.positions, ups[0])
        if start is not None and _has_denormals(start, ups[0], outs[0]):
            # XLA:CPU flushes every step's inputs and result: fold step by step instead.
            outs[0] = start
            _apply_region(ev, comp, outs, targets.positions, ups)
    else:
        _apply_region(ev, comp, outs, targets.positions, ups)
    results = [o.reshape(op.shape) for o, op in zip(outs, operands)]
    return tuple(results) if ins.shape.is_tuple else results[0]
