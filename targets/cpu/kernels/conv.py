"""Convolution: im2col through strided views plus one BLAS matmul, inside a thunk.

Like dots (kernels/dot.py), f32/f64 convolutions are not compiled by LLVM: everything
that depends only on shapes and attributes is worked out once, at compile time
(the dimension-number permutations, the padded/base-dilated buffer shape and where the
input lands in it, the window and stride multipliers of the strided im2col view, the
group split and the matmul shapes), so a call is a handful of numpy calls:

1. the input, viewed as [batch, spatial..., feature], is copied once into a zeroed
   padded (and base-dilated) buffer -- skipped when there is no padding, no dilation
   and the input already is [batch, spatial..., feature];
2. `as_strided` views that buffer as [batch groups, batch, out spatial..., window...,
   feature groups, feature] (strides, window dilation and negative padding are only
   view arithmetic), and one transpose + reshape copies it into the im2col matrix
   [groups, batch * out spatial, window * feature];
3. the kernel is viewed as [groups, window * feature, out feature / groups] and one
   (batched, when grouped) matmul goes through BLAS;
4. one transpose brings [batch, out spatial..., out feature] to the output dim labels.

Numerics: the interpreter's (hlotool/interpreter/kernels/convolution.py) computes f32
in f32 and f64 in f64 with the same im2col contraction; only the summation order inside
BLAS may differ (the columns here are (window, feature), there (feature, window)), so
results agree to float rounding, not bit for bit. Window reversal, integer, bf16/f16,
mixed-type, dynamic-shape and empty convolutions stay on the interpreter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import as_strided

from hlotool.ir.attributes import WindowDimension
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu.workspace import Workspace

P = PrimitiveType
_TYPES = {P.F32: np.float32, P.F64: np.float64}


@dataclass(slots=True)
class ConvPlan:
    """A convolution computed by im2col + BLAS (a standalone convolution, or a fusion
    whose root is a convolution of two of its parameters)."""

    name: str
    roots: list[Instruction]
    inputs: list[Instruction]
    tune: dict[str, int | str] = field(default_factory=dict)

    @property
    def conv(self) -> Instruction:
        return self.roots[0]


def unsupported_conv(conv: Instruction) -> str | None:
    if conv.opcode is not Opcode.CONVOLUTION or conv.operand_count != 2:
        return "not a convolution"
    types = {conv.shape.element_type, *(o.shape.element_type for o in conv.operands)}
    if len(types) != 1 or next(iter(types)) not in _TYPES:
        return "convolution element types"
    shapes = (conv.shape, *(o.shape for o in conv.operands))
    if any(not s.is_array or s.is_dynamic for s in shapes):
        return "dynamic shape"
    if any(0 in s.dimensions for s in shapes):
        return "empty convolution"
    window = conv.attrs.get("window")
    if window is not None and any(wd.window_reversal for wd in window.dimensions):
        return "window reversal"
    if conv.attrs.get("dim_labels") is None:
        return "no dim_labels"
    return None


def plan_convolution(ins: Instruction, name: str) -> tuple[ConvPlan | None, str]:
    """A ConvPlan for a convolution, or for a fusion computing only a convolution of its
    parameters (XLA:CPU wraps convolutions in such kCustom fusions)."""
    if ins.opcode is Opcode.CONVOLUTION:
        reason = unsupported_conv(ins)
        return (None, reason) if reason else (ConvPlan(name, [ins], list(ins.operands)), "")
    comp = ins.attrs.get("calls")
    root = getattr(comp, "root", None)
    if ins.opcode is not Opcode.FUSION or root is None or root.opcode is not Opcode.CONVOLUTION:
        return None, "not a convolution"
    if any(o.opcode is not Opcode.PARAMETER for o in root.operands) or \
            any(f is not root and f.opcode is not Opcode.PARAMETER for f in comp.instructions):
        return None, "convolution fusion with other instructions"
    reason = unsupported_conv(root)
    return (None, reason) if reason else (ConvPlan(name, [root], list(root.operands)), "")


class ConvThunk:
    """One convolution as pad + strided im2col view + one (batched) matmul."""

    def __init__(self, ins: Instruction, conv: Instruction | None = None,
                 workspace: Workspace | None = None) -> None:
        self.ins = ins
        #: Where the padded input, the im2col matrix and the product live during a call.
        self.workspace = workspace if workspace is not None else Workspace()
        conv = conv if conv is not None else ins
        a = conv.attrs
        dn = a["dim_labels"]
        lhs, rhs, out = conv.operand(0).shape, conv.operand(1).shape, conv.shape
        k = len(dn.input_spatial_dimensions)
        window = a.get("window")
        dims = list(window.dimensions) if window is not None else [WindowDimension()] * k
        gf = int(a.get("feature_group_count", 1) or 1)
        gb = int(a.get("batch_group_count", 1) or 1)
        self.dtype = np.dtype(_TYPES[out.element_type])
        # Where the values come from: the conv's operands, or the fusion's parameters.
        if conv is ins:
            self.sources = [0, 1]
        else:
            self.sources = [o.parameter_number for o in conv.operands]
        self.in_specs = [(lhs.dimensions, self.dtype), (rhs.dimensions, self.dtype)]

        # 1. lhs as [N, spatial..., C]; the padded, base-dilated buffer.
        self.lperm = (dn.input_batch_dimension, *dn.input_spatial_dimensions,
                      dn.input_feature_dimension)
        n = lhs.dimensions[dn.input_batch_dimension]
        c = lhs.dimensions[dn.input_feature_dimension]
        sizes = [lhs.dimensions[d] for d in dn.input_spatial_dimensions]
        buf: list[int] = []
        place: list[slice] = []
        crop: list[slice] = []
        for size, wd in zip(sizes, dims, strict=True):
            dilated = (size - 1) * wd.base_dilation + 1
            low, high = max(wd.padding_low, 0), max(wd.padding_high, 0)
            total = dilated + low + high
            buf.append(total)
            place.append(slice(low, low + dilated, wd.base_dilation))
            start = max(-wd.padding_low, 0)
            crop.append(slice(start, max(total - max(-wd.padding_high, 0), start)))
        self.buf_shape = (n, *buf, c)
        self.place = (slice(None), *place, slice(None))
        self.crop = (slice(None), *crop, slice(None))
        self.pad = any(p != slice(0, s, 1) for p, s in zip(place, buf, strict=True))
        self.cropped = any(cr != slice(0, s) for cr, s in zip(crop, buf, strict=True))
        self.lhs_identity = self.lperm == tuple(range(lhs.rank))

        # 2. The im2col view [Gb, Nb, out..., win..., Gf, Cg] and its copy.
        outs = [out.dimensions[d] for d in dn.output_spatial_dimensions]
        groups = gb * gf
        nb, cg = n // gb, c // gf
        self.view_shape = (gb, nb, *outs, *(wd.size for wd in dims), gf, cg)
        # Multipliers of the buffer strides (N, spatial..., C) per view axis.
        self.mult: list[tuple[int, int]] = [(0, nb), (0, 1)]
        self.mult += [(1 + i, wd.stride) for i, wd in enumerate(dims)]
        self.mult += [(1 + i, wd.window_dilation) for i, wd in enumerate(dims)]
        self.mult += [(1 + k, cg), (1 + k, 1)]
        self.col_perm = (0, 2 + 2 * k, 1, *range(2, 2 + 2 * k), 3 + 2 * k)
        m = nb * math.prod(outs)
        kk = math.prod(wd.size for wd in dims) * cg
        self.cols_shape = (groups, m, kk)

        # 3. The kernel as [G, win * Cg, Og].
        o = rhs.dimensions[dn.kernel_output_feature_dimension]
        og = o // groups
        self.rperm = (*dn.kernel_spatial_dimensions, dn.kernel_input_feature_dimension,
                      dn.kernel_output_feature_dimension)
        self.ker_split = (*(wd.size for wd in dims), cg, groups, og)
        self.ker_perm = (k + 1, *range(k + 1), k + 2)
        self.ker_shape = (groups, kk, og)
        self.groups = groups

        # 4. [G, Nb, out..., Og] -> [Nb, out..., G * Og] -> output dim labels.
        self.res_shape = (groups, nb, *outs, og)
        self.res_perm = (*range(1, 2 + k), 0, 2 + k)
        self.canon_shape = (nb, *outs, o)
        src = [0] * (2 + k)
        src[dn.output_batch_dimension] = 0
        src[dn.output_feature_dimension] = 1 + k
        for i, d in enumerate(dn.output_spatial_dimensions):
            src[d] = 1 + i
        self.out_perm = tuple(src)
        self.out_shape = out.dimensions
        self.flops = 2 * groups * m * kk * og

    def inputs(self, operands: list, env: dict) -> list:
        return [operands[s] for s in self.sources]

    def accepts(self, values: list) -> bool:
        return all(isinstance(v, np.ndarray | np.generic) and np.shape(v) == tuple(d)
                   for v, (d, _) in zip(values, self.in_specs, strict=True))

    def __call__(self, values: list, out: np.ndarray | None = None) -> np.ndarray:
        """The convolution of the operand values, written into `out` when given (an
        array of the result's dimensions and type)."""
        direct = out is not None and self.groups == 1 and \
            self.out_perm == tuple(range(len(self.out_perm)))
        padded = self.pad or not self.lhs_identity
        cols_shape = tuple(self.view_shape[i] for i in self.col_perm)
        specs = [(cols_shape, self.dtype)]
        if padded:
            specs.append((self.buf_shape, self.dtype))
        if not direct:
            specs.append(((self.groups, self.cols_shape[1], self.ker_shape[2]), self.dtype))
        scratch = self.workspace.arrays(*specs)
        x = np.transpose(np.asarray(values[0], self.dtype), self.lperm)
        if padded:
            b = scratch[1]
            if self.pad:
                b.fill(0)
            b[self.place] = x
            x = b
        if self.cropped:
            x = x[self.crop]
        strides = [x.strides[axis] * mul for axis, mul in self.mult]
        view = as_strided(x, self.view_shape, strides, writeable=False)
        np.copyto(scratch[0], np.transpose(view, self.col_perm))
        cols = scratch[0].reshape(self.cols_shape)
        w = np.transpose(np.asarray(values[1], self.dtype), self.rperm)
        ker = np.transpose(w.reshape(self.ker_split), self.ker_perm).reshape(self.ker_shape)
        res = out.reshape(1, self.cols_shape[1], self.ker_shape[2]) if direct else scratch[-1]
        with np.errstate(all="ignore"):
            if self.groups == 1:
                np.matmul(cols[0], ker[0], out=res[0])
            else:
                np.matmul(cols, ker, out=res)
        if direct:
            return out
        res = res.reshape(self.res_shape)
        if self.groups > 1:
            res = np.transpose(res, self.res_perm)
        res = np.transpose(res.reshape(self.canon_shape), self.out_perm)
        if out is None:
            return np.ascontiguousarray(res)
        np.copyto(out, res)
        return out
