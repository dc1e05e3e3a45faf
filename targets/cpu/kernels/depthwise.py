"""Depthwise convolutions (one input feature per group, as MobileNet and ConvNeXt use)
as a direct loop kernel.

Through im2col and the tiled microkernel such a convolution multiplies a [rows, window]
matrix by a [window, 1] column per feature: one vector lane of sixteen does work. Here,
per output position (every output dim but the feature, which must be the minor dim of
the input, the kernel and the output), the window positions are unrolled and the
features form the inner loop, which the loop vectorizer widens: out[.., c] =
fma(x_k[c], w_k[c], ...) over window positions k in order, from 0 (the tiled kernel's
order for one input feature per group). A position in the padding reads 0 (its weight
still multiplies it, as XLA's padded input does), and the loads use a clamped in-bounds
position so that the loop has no branch.

Supported: f32/f64, feature groups equal to the input features, one output feature per
group, no batch groups, no base dilation; any window size, stride, window dilation and
(negative too) padding, and any order of the other dims.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.attributes import WindowDimension
from hlotool.ir.types import PrimitiveType
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.llvm.elemental import delinearize

P = PrimitiveType


@dataclass(slots=True)
class DepthwisePlan:
    """A depthwise convolution: entry buffers (lhs, rhs, output)."""

    name: str
    roots: list[Instruction]
    inputs: list[Instruction]
    constants: list[tuple[Instruction, np.ndarray]] = field(default_factory=list)

    def emit(self, module: ir.Module, symbol: str, *, x86: bool) -> None:
        emit_depthwise(module, symbol, self.roots[0], x86)


def is_depthwise(conv: Instruction) -> bool:
    """Whether the direct kernel computes `conv` (see the module's docstring)."""
    dn = conv.attrs["dim_labels"]
    lhs, rhs, out = conv.operand(0).shape, conv.operand(1).shape, conv.shape
    c = lhs.dimensions[dn.input_feature_dimension]
    window = conv.attrs.get("window")
    dims = list(window.dimensions) if window is not None else []
    return out.element_type in (P.F32, P.F64) and c > 1 and \
        int(conv.attrs.get("feature_group_count", 1) or 1) == c and \
        int(conv.attrs.get("batch_group_count", 1) or 1) == 1 and \
        rhs.dimensions[dn.kernel_input_feature_dimension] == 1 and \
        rhs.dimensions[dn.kernel_output_feature_dimension] == c and \
        dn.input_feature_dimension == lhs.rank - 1 and \
        dn.output_feature_dimension == out.rank - 1 and \
        dn.kernel_output_feature_dimension == rhs.rank - 1 and \
        all(wd.base_dilation == 1 and not wd.window_reversal for wd in dims) and \
        all(s.is_row_major for s in (lhs, rhs, out))


def emit_depthwise(module: ir.Module, symbol: str, conv: Instruction, x86: bool) -> None:
    """Add `void symbol(void **(lhs, rhs, out))`; output positions split across threads."""
    dn = conv.attrs["dim_labels"]
    lhs, rhs, out = conv.operand(0).shape, conv.operand(1).shape, conv.shape
    c = out.dimensions[-1]
    k = len(dn.input_spatial_dimensions)
    window = conv.attrs.get("window")
    wds = list(window.dimensions) if window is not None else [WindowDimension()] * k
    ety = u.F32 if out.element_type is P.F32 else u.F64
    fn = parallel.body_function(module, symbol, 3)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    src, weights, dst, begin, end = fn.args
    positions = out.dimensions[:-1]
    lstride = [math.prod(lhs.dimensions[d + 1:]) for d in range(lhs.rank)]
    kstride = [math.prod(rhs.dimensions[d + 1:]) for d in range(rhs.rank)]
    sizes = [wd.size for wd in wds]
    with u.for_range(b, b.sub(end, begin), name="pos") as i:
        row = b.add(begin, i)
        index = delinearize(b, positions, row)
        base = b.mul(index[dn.output_batch_dimension], u.i64(lstride[dn.input_batch_dimension]))
        taps = []
        for w in np.ndindex(*sizes):
            valid: ir.Value = ir.Constant(u.I1, 1)
            at, kat = base, 0
            for s, (wd, wi) in enumerate(zip(wds, w, strict=True)):
                d = dn.input_spatial_dimensions[s]
                o = index[dn.output_spatial_dimensions[s]]
                q = b.add(b.mul(o, u.i64(wd.stride)), u.i64(wi * wd.window_dilation - wd.padding_low))
                n = lhs.dimensions[d]
                inside = b.icmp_unsigned("<", q, u.i64(n))
                valid = b.and_(valid, inside)
                clamped = b.select(inside, q, u.i64(0))
                at = b.add(at, b.mul(clamped, u.i64(lstride[d])))
                kat += wi * kstride[dn.kernel_spatial_dimensions[s]]
            taps.append((valid, at, kat))
        out_at = b.mul(row, u.i64(c))
        with u.for_range(b, c, name="c") as f:
            acc: ir.Value = ir.Constant(ety, 0.0)
            for valid, at, kat in taps:
                x = b.load(b.gep(src, [b.add(at, f)], source_etype=ety, inbounds=True), typ=ety)
                x = b.select(valid, x, ir.Constant(ety, 0.0))
                wv = b.load(b.gep(weights, [b.add(u.i64(kat), f)], source_etype=ety,
                                  inbounds=True), typ=ety)
                acc = u.intrinsic(b, "llvm.fma", ety, [x, wv, acc])
            b.store(acc, b.gep(dst, [b.add(out_at, f)], source_etype=ety, inbounds=True))
    b.ret_void()
    rows = math.prod(positions)
    work = 2 * rows * c * math.prod(sizes) + out.byte_size
    parallel.emit_entry(module, symbol, fn, x86, rows, parallel.max_parts(rows, work))
