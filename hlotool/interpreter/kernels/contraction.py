"""Contraction kernels: dot, ragged-dot and scaled-dot.

Float dots run in f32 (f64, complex) whatever the operand types, with XLA:CPU's
denormal flushing, and round once to the result type; precision settings are accepted
and ignored, as on CPU. Integer dots are exact with two's-complement wrap-around.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from hlotool.interpreter.core import Evaluator, Unsupported, Value, impl
from hlotool.interpreter.kernels.elementwise import (
    convert,
    flush_denormals,
    flush_result,
    int_range,
    kind,
    reduce_precision,
)
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType

P = PrimitiveType

#: Operand rounding implied by single-pass dot algorithms: (exponent bits, mantissa bits).
_ALGORITHM_OPERAND_PRECISION = {
    "dot_bf16_bf16_f32": (8, 7),
    "dot_bf16_bf16_bf16": (8, 7),
    "dot_tf32_tf32_f32": (8, 10),
    "dot_f16_f16_f32": (5, 10),
    "dot_f16_f16_f16": (5, 10),
}


def dot_general(
    a: np.ndarray,
    b: np.ndarray,
    lhs_batch: Sequence[int],
    lhs_contract: Sequence[int],
    rhs_batch: Sequence[int],
    rhs_contract: Sequence[int],
) -> np.ndarray:
    """numpy dot_general: result dims are batch, lhs free, rhs free (XLA's order)."""
    lhs_free = [d for d in range(a.ndim) if d not in lhs_batch and d not in lhs_contract]
    rhs_free = [d for d in range(b.ndim) if d not in rhs_batch and d not in rhs_contract]
    batch = [a.shape[d] for d in lhs_batch]
    m = [a.shape[d] for d in lhs_free]
    n = [b.shape[d] for d in rhs_free]
    k = math.prod(a.shape[d] for d in lhs_contract)
    nb, nm, nn = math.prod(batch), math.prod(m), math.prod(n)
    lhs = np.transpose(a, [*lhs_batch, *lhs_free, *lhs_contract]).reshape(nb, nm, k)
    rhs = np.transpose(b, [*rhs_batch, *rhs_contract, *rhs_free]).reshape(nb, k, nn)
    out = np.matmul(lhs[0], rhs[0])[None] if nb == 1 else np.matmul(lhs, rhs)
    return out.reshape((*batch, *m, *n))


def _compute_dtype(types: Sequence[PrimitiveType]) -> np.dtype:
    """The dtype a dot runs in: f32/f64/complex for float dots, an integer marker otherwise."""
    if any(t.is_complex for t in types):
        wide = any(t in (P.C128, P.F64) for t in types)
        return np.dtype(np.complex128 if wide else np.complex64)
    if any(t.is_float for t in types):
        return np.dtype(np.float64 if P.F64 in types else np.float32)
    return np.dtype(np.int64)


def _float_dot(
    lhs: np.ndarray,
    rhs: np.ndarray,
    lt: PrimitiveType,
    rt: PrimitiveType,
    dtype: np.dtype,
    dims: tuple[Sequence[int], ...],
    algorithm: str | None,
) -> np.ndarray:
    """Float/complex dot: operands widened to `dtype`, denormals flushed (XLA:CPU)."""
    a = flush_denormals(_widen(lhs, lt, dtype))
    b = flush_denormals(_widen(rhs, rt, dtype))
    precision = _ALGORITHM_OPERAND_PRECISION.get(algorithm or "")
    if precision is not None and dtype.kind == "f":
        a, b = (reduce_precision(x, *precision) for x in (a, b))
    return flush_result(np.asarray(dot_general(a, b, *dims)))


def _widen(x: np.ndarray, t: PrimitiveType, dtype: np.dtype) -> np.ndarray:
    """An operand in the dot's compute dtype (integers through XLA's convert)."""
    x = np.asarray(x)
    if not (t.is_float or t.is_complex):
        wide = dtype in (np.dtype(np.float64), np.dtype(np.complex128))
        x = convert(x, t, P.F64 if wide else P.F32)
    return x if x.dtype == dtype else x.astype(dtype)


def _int_dot(
    lhs: np.ndarray,
    rhs: np.ndarray,
    lt: PrimitiveType,
    rt: PrimitiveType,
    dims: tuple[Sequence[int], ...],
) -> np.ndarray:
    """Integer (and pred) dot with two's-complement wrap: exact mod 2**64."""
    a = np.asarray(lhs).astype(np.int64)
    b = np.asarray(rhs).astype(np.int64)
    k = math.prod(a.shape[d] for d in dims[1])
    if _fits_float64(lt, rt, k):
        exact = dot_general(a.astype(np.float64), b.astype(np.float64), *dims)
        return np.rint(exact).astype(np.int64)
    return dot_general(a.view(np.uint64), b.view(np.uint64), *dims).view(np.int64)


def _fits_float64(lt: PrimitiveType, rt: PrimitiveType, k: int) -> bool:
    """Whether every partial sum is an integer below 2**53 (so BLAS in f64 is exact)."""
    if lt is P.PRED or rt is P.PRED:
        return k < 2**52
    bound = max(abs(v) for v in int_range(kind(lt))) * max(abs(v) for v in int_range(kind(rt)))
    return bound * max(k, 1) < 2**53


Dims = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _dot_dims(ins: Instruction) -> Dims:
    """(lhs batch, lhs contracting, rhs batch, rhs contracting) dimensions."""
    attrs = ins.attrs
    return (
        tuple(attrs.get("lhs_batch_dims") or ()),
        tuple(attrs.get("lhs_contracting_dims") or ()),
        tuple(attrs.get("rhs_batch_dims") or ()),
        tuple(attrs.get("rhs_contracting_dims") or ()),
    )


def contract(
    lhs: np.ndarray,
    rhs: np.ndarray,
    types: tuple[PrimitiveType, PrimitiveType, PrimitiveType],
    dims: Dims,
    algorithm: str | None = None,
) -> np.ndarray:
    """dot_general of two operands of types[0], types[1] into a result of types[2]."""
    lt, rt, out_t = types
    dtype = _compute_dtype([lt, rt, out_t])
    with np.errstate(all="ignore"):
        if dtype.kind in "fc":
            r = _float_dot(lhs, rhs, lt, rt, dtype, dims, algorithm)
            return convert(r, PrimitiveType.from_numpy(dtype), out_t)
        return convert(_int_dot(lhs, rhs, lt, rt, dims), P.S64, out_t)


def _types(ins: Instruction) -> tuple[PrimitiveType, PrimitiveType, PrimitiveType]:
    """Element types of the two contracted operands and of the result."""
    lhs, rhs = ins.operand(0).shape, ins.operand(1).shape
    return lhs.element_type, rhs.element_type, ins.shape.element_type


@impl(Opcode.DOT)
def _dot(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    lhs, rhs = operands
    return contract(lhs, rhs, _types(ins), _dot_dims(ins), ins.attrs.get("algorithm"))


@impl(Opcode.SCALED_DOT)
def _scaled_dot(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """dot(lhs * scale, rhs * scale), each scale repeated in blocks over its operand."""
    types = [o.shape.element_type for o in ins.operands]
    lhs = _apply_scale(operands[0], types[0], operands[1], types[1])
    rhs = _apply_scale(operands[2], types[2], operands[3], types[3])
    out_t = ins.shape.element_type
    return contract(lhs, rhs, (P.F32, P.F32, out_t), _dot_dims(ins), ins.attrs.get("algorithm"))


def _apply_scale(
    x: np.ndarray, xt: PrimitiveType, scale: np.ndarray, st: PrimitiveType
) -> np.ndarray:
    values = convert(x, xt, P.F32)
    factors = convert(scale, st, P.F32)
    for axis, (n, m) in enumerate(zip(values.shape, factors.shape, strict=True)):
        if m != n:
            factors = np.repeat(factors, n // m, axis=axis)
    return values * factors


@impl(Opcode.RAGGED_DOT)
def _ragged_dot(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """A dot whose lhs ragged dimension is cut into consecutive groups of `group_sizes`:
    groups pick rhs slices along its group dimension (ragged non-contracting dimension),
    or each produce one result along a new leading dimension (ragged contracting
    dimension), or cut a batch dimension. Rows beyond the groups are zero."""
    lhs, rhs, group_sizes = (np.asarray(v) for v in operands)
    if group_sizes.ndim != 1:
        raise Unsupported("ragged-dot with batched group sizes")
    dims = _dot_dims(ins)
    lb, lc, rb, rc = dims
    ragged = ins.attrs["lhs_ragged_dims"][0]
    types = _types(ins)
    out = np.zeros(ins.shape.dimensions, ins.shape.element_type.numpy_dtype)
    bounds = np.concatenate([[0], np.cumsum(group_sizes.astype(np.int64))])
    for g in range(group_sizes.size):
        lo, hi = (min(int(b), lhs.shape[ragged]) for b in bounds[g : g + 2])
        if hi <= lo:
            continue
        part = _take(lhs, ragged, lo, hi)
        if ragged in lc:
            rhs_dim = rc[lc.index(ragged)]
            out[g] = contract(part, _take(rhs, rhs_dim, lo, hi), types, dims)
        elif ragged in lb:
            rhs_dim = rb[lb.index(ragged)]
            result = contract(part, _take(rhs, rhs_dim, lo, hi), types, dims)
            _put(out, lb.index(ragged), lo, hi, result)
        else:
            group_dim = ins.attrs["rhs_group_dims"][0]
            rhs_g = np.take(rhs, g, axis=group_dim)
            shift = [d - (d > group_dim) for d in rb], [d - (d > group_dim) for d in rc]
            result = contract(part, rhs_g, types, (lb, lc, tuple(shift[0]), tuple(shift[1])))
            free = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
            _put(out, len(lb) + free.index(ragged), lo, hi, result)
    return out


def _take(x: np.ndarray, axis: int, lo: int, hi: int) -> np.ndarray:
    index = [slice(None)] * x.ndim
    index[axis] = slice(lo, hi)
    return x[tuple(index)]


def _put(out: np.ndarray, axis: int, lo: int, hi: int, values: np.ndarray) -> None:
    index = [slice(None)] * out.ndim
    index[axis] = slice(lo, hi)
    out[tuple(index)] = values
