"""Data movement kernels: constants, iota, reshapes, slices, padding, tuples and tokens.

Results may be read-only views of their operands (broadcast, reshape, transpose, slice);
kernels never write into an operand, and the ones that build a new array from an operand
(dynamic-update-slice, pad) copy first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hlotool.elided import elided_error, is_read_elided
from hlotool.interpreter.core import TOKEN, Evaluator, Unsupported, Value, impl
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import Literal
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Layout, Shape

O = Opcode


def literal_value(lit: Literal) -> Value:
    """The interpreter value of a literal (tuples recursively, tokens as TOKEN)."""
    if lit.shape.is_tuple:
        return tuple(literal_value(e) for e in lit.elements)
    if lit.array is None:
        return TOKEN
    return lit.array


@impl(O.CONSTANT)
def _constant(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    if ins.literal is None:
        raise Unsupported(f"constant {ins.name} has no value")
    if is_read_elided(ins):
        raise elided_error([ins])
    return literal_value(ins.literal)


@impl(O.IOTA)
def _iota(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    dims = ins.shape.dimensions
    d = ins.attrs["iota_dimension"]
    shape = [1] * len(dims)
    shape[d] = dims[d]
    t = ins.shape.element_type
    values = np.arange(dims[d], dtype=np.int64).reshape(shape)
    if t.is_float and t.bits < 32:
        values = values.astype(np.float32)
    return np.broadcast_to(values.astype(t.numpy_dtype), dims)


def is_scalar_in_region(ins: Instruction, x: np.ndarray) -> bool:
    """A scalar-to-scalar op of a region that is being evaluated on whole arrays."""
    return x.ndim > 0 and not ins.shape.dimensions and not ins.operand(0).shape.dimensions


@impl(O.BROADCAST)
def _broadcast(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    x = np.asarray(operands[0])
    if is_scalar_in_region(ins, x):
        return x
    out = ins.shape.dimensions
    dims = tuple(ins.attrs.get("dimensions") or ())
    if list(dims) != sorted(dims):
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        x = np.transpose(x, order)
        dims = tuple(sorted(dims))
    expanded = [1] * len(out)
    for i, d in enumerate(dims):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), out)


@impl(O.RESHAPE)
def _reshape(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    x = np.asarray(operands[0])
    return x if is_scalar_in_region(ins, x) else np.reshape(x, ins.shape.dimensions)


@impl(O.DYNAMIC_RESHAPE)
def _dynamic_reshape(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    sizes = [int(np.asarray(s)) for s in operands[1:]]
    return np.reshape(operands[0], sizes)


@impl(O.TRANSPOSE)
def _transpose(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return np.transpose(operands[0], ins.attrs["dimensions"])


@impl(O.REVERSE)
def _reverse(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return np.flip(operands[0], axis=tuple(ins.attrs["dimensions"]))


@impl(O.SLICE)
def _slice(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    ranges = ins.attrs["slice"]
    return operands[0][tuple(slice(r.start, r.limit, r.stride) for r in ranges)]


@impl(O.CONCATENATE)
def _concatenate(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return np.concatenate(operands, axis=ins.attrs["dimensions"][0])


# -- dynamic slicing -------------------------------------------------------------------------


def start_indices(index_operands: Sequence[Value], rank: int) -> list[int]:
    """Start indices given as `rank` scalars or as one rank-1 vector."""
    if len(index_operands) == 1 and np.ndim(index_operands[0]) == 1:
        return [int(v) for v in np.asarray(index_operands[0]).tolist()]
    if len(index_operands) != rank:
        raise Unsupported(f"expected {rank} start indices, got {len(index_operands)}")
    return [int(np.asarray(v)) for v in index_operands]


def clamp_starts(starts: Sequence[int], dims: Sequence[int], sizes: Sequence[int]) -> list[int]:
    """Clamp each start so the slice fits: [0, dim - size]."""
    return [min(max(s, 0), d - n) for s, d, n in zip(starts, dims, sizes, strict=True)]


@impl(O.DYNAMIC_SLICE)
def _dynamic_slice(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    x = operands[0]
    sizes = ins.attrs["dynamic_slice_sizes"]
    starts = clamp_starts(start_indices(operands[1:], x.ndim), x.shape, sizes)
    return x[tuple(slice(s, s + n) for s, n in zip(starts, sizes, strict=True))]


@impl(O.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    x, update = operands[0], np.asarray(operands[1])
    starts = clamp_starts(start_indices(operands[2:], x.ndim), x.shape, update.shape)
    out = np.array(x, copy=True)
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape, strict=True))] = update
    return out


# -- pad -------------------------------------------------------------------------------------


def pad_array(
    x: np.ndarray, value: np.ndarray, padding: Sequence[tuple[int, int, int]]
) -> np.ndarray:
    """Pad with `value`: per dimension (low, high, interior); negative low/high crop."""
    if all(p == (0, 0, 0) for p in padding):
        return x
    out_dims = [
        max(0, low + high + n + max(n - 1, 0) * interior)
        for (low, high, interior), n in zip(padding, x.shape, strict=True)
    ]
    out = np.full(out_dims, value, dtype=x.dtype)
    dst: list[slice] = []
    src: list[slice] = []
    for (low, _, interior), n, size in zip(padding, x.shape, out_dims, strict=True):
        step = interior + 1
        first = -(-max(0, -low) // step)
        stop = min(n, -(-(size - low) // step)) if size > low else 0
        if stop <= first:
            return out
        dst.append(slice(low + first * step, low + (stop - 1) * step + 1, step))
        src.append(slice(first, stop))
    out[tuple(dst)] = x[tuple(src)]
    return out


@impl(O.PAD)
def _pad(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    x, value = np.asarray(operands[0]), np.asarray(operands[1])
    return pad_array(x, value, [(p.low, p.high, p.interior) for p in ins.attrs["padding"]])


# -- copies, bitcasts and identities ------------------------------------------------------


@impl(O.COPY, O.OPT_BARRIER, O.DOMAIN, O.ADD_DEPENDENCY)
def _identity(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """The (first) operand unchanged: values are immutable, so a copy can share it."""
    return operands[0]


def _major_to_minor(shape: Shape) -> list[int]:
    layout = shape.layout or Layout.default_for_rank(shape.rank)
    return list(reversed(layout.minor_to_major))


@impl(O.BITCAST)
def _bitcast(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """Reinterpret the operand's buffer: physical order in, physical order out."""
    x = np.asarray(operands[0])
    src, dst = ins.operand(0).shape, ins.shape
    if is_scalar_in_region(ins, x):
        return np.asarray(x, order="C").view(dst.element_type.numpy_dtype)
    physical = np.transpose(x, _major_to_minor(src)).reshape(-1)
    dtype = dst.element_type.numpy_dtype
    if physical.dtype != dtype:
        physical = np.asarray(physical, order="C").view(dtype)
    order = _major_to_minor(dst)
    data = physical.reshape([dst.dimensions[d] for d in order])
    return np.transpose(data, np.argsort(order))


@impl(O.COPY_START)
def _copy_start(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return (operands[0], operands[0], np.zeros((), np.uint32))


@impl(O.COPY_DONE)
def _copy_done(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0][0]


# -- tuples, tokens, ids, dynamic sizes ----------------------------------------------------


@impl(O.TUPLE)
def _tuple(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return tuple(operands)


@impl(O.GET_TUPLE_ELEMENT)
def _get_tuple_element(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0][ins.attrs["index"]]


@impl(O.AFTER_ALL)
def _after_all(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return TOKEN


@impl(O.PARTITION_ID, O.REPLICA_ID)
def _device_id(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    device = ev.device.partition if ins.opcode is O.PARTITION_ID else ev.device.replica
    return np.array(device, np.uint32)


@impl(O.GET_DIMENSION_SIZE)
def _get_dimension_size(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return np.array(np.shape(operands[0])[ins.attrs["dimensions"][0]], np.int32)


@impl(O.SET_DIMENSION_SIZE)
def _set_dimension_size(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """Keep the first `size` elements of the dimension (the rest is padding)."""
    x, size = operands
    d = ins.attrs["dimensions"][0]
    n = min(max(int(np.asarray(size)), 0), x.shape[d])
    index = [slice(None)] * x.ndim
    index[d] = slice(0, n)
    return x[tuple(index)]
