"""convolution: any dim_labels, window, dilations, reversal, feature and batch groups.

The operands are brought to canonical layouts (lhs [batch, feature, spatial...], rhs
[out feature, in feature, spatial...]); the lhs is base-dilated and padded (negative
padding crops), then `sliding_window_view` gives strided, window-dilated patches and
one batched matmul per group contracts them with the kernel (im2col).

Floats compute in f32 (f64 for f64 operands) and round to the result type once, as XLA
does for bf16/f16; integers compute in int64 and wrap to the result type, which equals
wrapping after every step. Summation order differs from XLA's, so float results match
within rounding, not bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import DTypeLike
from numpy.lib.stride_tricks import sliding_window_view

from hlotool.interpreter.core import Evaluator, Value, impl
from hlotool.ir.attributes import ConvDimensionNumbers, Window, WindowDimension
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType


def compute_dtype(types: Sequence[PrimitiveType]) -> np.dtype:
    """The numpy dtype a contraction over these element types computes in."""
    if any(t.is_complex for t in types):
        return np.dtype(np.complex128)
    if any(t is PrimitiveType.F64 for t in types):
        return np.dtype(np.float64)
    if any(t.is_float for t in types):
        return np.dtype(np.float32)
    return np.dtype(np.int64)


def cast_result(value: np.ndarray, ty: PrimitiveType) -> np.ndarray:
    """Cast a computed value to the result type (ints wrap, pred means non-zero)."""
    if ty is PrimitiveType.PRED:
        return value != 0
    if ty.is_complex or not np.iscomplexobj(value):
        return value.astype(ty.numpy_dtype)
    return value.real.astype(ty.numpy_dtype)


def _dilate_and_pad(x: np.ndarray, dims: Sequence[WindowDimension]) -> np.ndarray:
    """Base-dilate then pad (negative padding crops) the spatial axes 2.. of x."""
    lead = x.ndim - len(dims)
    shape = list(x.shape)
    place: list[slice] = [slice(None)] * lead
    crop: list[slice] = [slice(None)] * lead
    for i, wd in enumerate(dims):
        size = x.shape[lead + i]
        dilated = (size - 1) * wd.base_dilation + 1 if size else 0
        low, high = max(wd.padding_low, 0), max(wd.padding_high, 0)
        shape[lead + i] = dilated + low + high
        place.append(slice(low, low + dilated, wd.base_dilation))
        end = shape[lead + i] - max(-wd.padding_high, 0)
        crop.append(slice(max(-wd.padding_low, 0), max(end, max(-wd.padding_low, 0))))
    out = np.zeros(shape, dtype=x.dtype)
    out[tuple(place)] = x
    return out[tuple(crop)]


def _output_size(padded: int, wd: WindowDimension) -> int:
    effective = (wd.size - 1) * wd.window_dilation + 1
    if padded < effective:
        return 0
    return (padded - effective) // wd.stride + 1


def _patches(x: np.ndarray, dims: Sequence[WindowDimension],
             out_sizes: Sequence[int]) -> np.ndarray:
    """Windows of x [..., spatial] as a view [..., out spatial..., window spatial...]."""
    k = len(dims)
    if k == 0:
        return x
    lead = x.ndim - k
    effective = [(wd.size - 1) * wd.window_dilation + 1 for wd in dims]
    view = sliding_window_view(x, effective, axis=tuple(range(lead, x.ndim)))
    picks = [slice(None)] * lead
    picks += [slice(0, (o - 1) * wd.stride + 1, wd.stride) for o, wd in zip(out_sizes, dims)]
    picks += [slice(None, None, wd.window_dilation) for wd in dims]
    return view[tuple(picks)]


def _grouped(lhs: np.ndarray, rhs: np.ndarray, features: int, batches: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """lhs [G, batch, in feature/G, sp...] and rhs [G, out feature/G, in, k...]."""
    n, c = lhs.shape[:2]
    o = rhs.shape[0]
    if batches > 1:
        groups = batches
        x = lhs.reshape(groups, n // groups, c, *lhs.shape[2:])
    else:
        groups = features
        x = lhs.reshape(n, groups, c // groups, *lhs.shape[2:]).swapaxes(0, 1)
    w = rhs.reshape(groups, o // groups, *rhs.shape[1:])
    return x, w


def convolve(lhs: np.ndarray, rhs: np.ndarray, dn: ConvDimensionNumbers, window: Window | None,
             feature_groups: int, batch_groups: int, out_type: PrimitiveType,
             types: Sequence[PrimitiveType]) -> np.ndarray:
    """XLA convolution of lhs by rhs, returned with the output dim labels of `dn`."""
    dtype = compute_dtype([*types, out_type])
    dims, out_sizes, xg, wg = grouped_operands(lhs, rhs, dn, window, feature_groups,
                                               batch_groups, dtype)
    groups, nb, cg = xg.shape[:3]
    og = wg.shape[1]
    k = len(dims)
    if 0 in out_sizes:
        result = np.zeros((groups, nb, *out_sizes, og), dtype=dtype)
    else:
        patches = _patches(xg, dims, out_sizes)
        # [g, n, c, out..., win...] -> [g, n * out, c * win]
        order = (0, 1, *range(3, 3 + k), 2, *range(3 + k, 3 + 2 * k))
        cols = np.transpose(patches, order).reshape(groups, nb * int(np.prod(out_sizes)), -1)
        kernel = wg.reshape(groups, og, -1).transpose(0, 2, 1)
        result = np.matmul(cols, kernel).reshape(groups, nb, *out_sizes, og)
    return cast_result(to_output_labels(result, dn), out_type)


def grouped_operands(lhs: np.ndarray, rhs: np.ndarray, dn: ConvDimensionNumbers,
                     window: Window | None, feature_groups: int, batch_groups: int,
                     dtype: DTypeLike) -> tuple[Sequence[WindowDimension], list[int],
                                                           np.ndarray, np.ndarray]:
    """(window dims, output sizes, input [g, n, c, spatial...] dilated and padded, kernel
    [g, o, i, spatial...] reversed where the window says): what every convolution
    evaluator starts from."""
    spatial = len(dn.input_spatial_dimensions)
    dims = window.dimensions if window is not None else (WindowDimension(),) * spatial
    x = np.transpose(lhs, (dn.input_batch_dimension, dn.input_feature_dimension,
                           *dn.input_spatial_dimensions)).astype(dtype)
    w = np.transpose(rhs, (dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
                           *dn.kernel_spatial_dimensions)).astype(dtype)
    flips = tuple(2 + i for i, wd in enumerate(dims) if wd.window_reversal)
    if flips:
        w = np.flip(w, axis=flips)
    x = _dilate_and_pad(x, dims)
    out_sizes = [_output_size(x.shape[2 + i], wd) for i, wd in enumerate(dims)]
    xg, wg = _grouped(x, w, feature_groups, batch_groups)
    return dims, out_sizes, xg, wg


def to_output_labels(result: np.ndarray, dn: ConvDimensionNumbers) -> np.ndarray:
    """[g, n, out..., o] -> the output in `dn`'s dim order (feature = g * o)."""
    groups, nb, *out_sizes, og = result.shape
    result = np.moveaxis(result, -1, 2).swapaxes(0, 1).reshape(nb, groups * og, *out_sizes)
    src = [0] * (2 + len(out_sizes))
    src[dn.output_batch_dimension] = 0
    src[dn.output_feature_dimension] = 1
    for i, d in enumerate(dn.output_spatial_dimensions):
        src[d] = 2 + i
    return np.transpose(result, src)


@impl(Opcode.CONVOLUTION)
def _convolution(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    a = ins.attrs
    return convolve(
        ops[0], ops[1], a["dim_labels"], a.get("window"), a.get("feature_group_count", 1),
        a.get("batch_group_count", 1), ins.shape.element_type,
        [o.shape.element_type for o in ins.operands],
    )  # fmt: skip
