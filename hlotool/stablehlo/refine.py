"""Lowering-time folding of small integer tensors, for shape refinement.

JAX's shape-polymorphic modules compute the shapes they pass to `dynamic_*` ops from
`get_dimension_size` results (reshape, concatenate, convert, multiply, ...). Once the
entry's shapes are fixed those values are known; `fold` records each instruction's value
when all its operands are known, in the spirit of StableHLO's refine-shapes pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import UNBOUNDED, PrimitiveType

#: Larger tensors are not tracked (shape computations are tiny).
MAX_ELEMENTS = 4096

O = Opcode
Fold = Callable[[Instruction, list[np.ndarray]], np.ndarray]


def _wrap(fn: Callable[..., Any]) -> Fold:
    return lambda ins, args: np.asarray(fn(*args))


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.any(b == 0):
        raise ZeroDivisionError
    if a.dtype.kind in "iu":
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)
    return a / b


def _remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if np.any(b == 0):
        raise ZeroDivisionError
    return np.fmod(a, b)


def _compare(ins: Instruction, args: list[np.ndarray]) -> np.ndarray:
    a, b = args
    ops: dict[str, Callable[[Any, Any], Any]] = {
        "EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
        "GT": np.greater, "GE": np.greater_equal,
    }  # fmt: skip
    return np.asarray(ops[ins.attrs["direction"]](a, b))


def _broadcast(ins: Instruction, args: list[np.ndarray]) -> np.ndarray:
    (x,) = args
    dims = ins.attrs.get("dimensions", ())
    shape = [1] * ins.shape.rank
    for i, d in enumerate(dims):
        shape[d] = x.shape[i]
    return np.broadcast_to(x.reshape(shape), ins.shape.dimensions)


def _slice(ins: Instruction, args: list[np.ndarray]) -> np.ndarray:
    return args[0][tuple(slice(s.start, s.limit, s.stride) for s in ins.attrs["slice"])]


def _iota(ins: Instruction, args: list[np.ndarray]) -> np.ndarray:
    d = ins.attrs["iota_dimension"]
    shape = [1] * ins.shape.rank
    shape[d] = ins.shape.dimensions[d]
    return np.broadcast_to(np.arange(ins.shape.dimensions[d]).reshape(shape), ins.shape.dimensions)


_FOLDS: dict[Opcode, Fold] = {
    O.ADD: _wrap(np.add), O.SUBTRACT: _wrap(np.subtract), O.MULTIPLY: _wrap(np.multiply),
    O.DIVIDE: _wrap(_divide), O.REMAINDER: _wrap(_remainder), O.MAXIMUM: _wrap(np.maximum),
    O.MINIMUM: _wrap(np.minimum), O.AND: _wrap(np.bitwise_and), O.OR: _wrap(np.bitwise_or),
    O.XOR: _wrap(np.bitwise_xor), O.NEGATE: _wrap(np.negative), O.ABS: _wrap(np.abs),
    O.NOT: _wrap(lambda a: ~a if a.dtype != np.bool_ else np.logical_not(a)),
    O.SIGN: _wrap(np.sign), O.SELECT: _wrap(np.where),
    O.CLAMP: _wrap(lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi)),
    O.COMPARE: _compare, O.BROADCAST: _broadcast, O.SLICE: _slice, O.IOTA: _iota,
    O.RESHAPE: lambda ins, a: a[0].reshape(ins.shape.dimensions),
    O.CONVERT: lambda ins, a: a[0],
    O.CONCATENATE: lambda ins, a: np.concatenate(a, axis=ins.attrs["dimensions"][0]),
    O.TRANSPOSE: lambda ins, a: np.transpose(a[0], ins.attrs["dimensions"]),
    O.REVERSE: lambda ins, a: np.flip(a[0], ins.attrs["dimensions"]),
    O.COPY: lambda ins, a: a[0],
}  # fmt: skip


def _trackable(ins: Instruction) -> bool:
    s = ins.shape
    if not s.is_array or UNBOUNDED in s.dimensions:
        return False
    t = s.element_type
    return (t.is_integral or t is PrimitiveType.PRED) and s.element_count <= MAX_ELEMENTS


def fold(known: dict[int, np.ndarray], ins: Instruction) -> None:
    """Record the value of `ins` in `known` (by instruction id) when it can be computed now."""
    if not _trackable(ins):
        return
    value = _value(known, ins)
    if value is not None:
        dtype = ins.shape.element_type.numpy_dtype
        known[id(ins)] = np.asarray(value).astype(dtype).reshape(ins.shape.dimensions)


def _value(known: dict[int, np.ndarray], ins: Instruction) -> np.ndarray | None:
    if ins.opcode is O.CONSTANT and ins.literal is not None:
        return ins.literal.array
    if ins.opcode is O.GET_DIMENSION_SIZE:
        dim = ins.operand(0).shape.dimensions[ins.attrs["dimensions"][0]]
        return None if dim == UNBOUNDED else np.int32(dim)
    fn = _FOLDS.get(ins.opcode)
    if fn is None:
        return None
    args = [known.get(id(o)) for o in ins.operands]
    if not args or any(a is None for a in args):
        return None
    try:
        with np.errstate(all="ignore"):
            return fn(ins, args)  # type: ignore[arg-type]
    except (ZeroDivisionError, ValueError, IndexError):
        return None
