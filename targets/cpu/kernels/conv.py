"""Convolution: a native LLVM kernel (im2col + a register-tiled microkernel or CBLAS
gemm) where OpenBLAS is found, else im2col through strided views + one numpy matmul.

Native (`ConvPlan.native`, `emit_conv`; XLA:CPU's ConvolutionThunk calls a library
kernel the same way), everything that depends only on shapes and attributes is fixed
at compile time (`ConvForm`), and one call of `void conv(void **buffers)` does:

1. the kernel is packed as [groups, window..., cg, og] into scratch, and the lhs as
   [batch, spatial..., feature] unless it already is (denormals flushed on the way:
   XLA:CPU reads them as zero);
2. the rows (batch, output position...) of the im2col matrix [rows, window... x cg]
   are packed block by block, per group, by an LLVM loop: each row's window positions
   map to base-dilated, padded input coordinates (negative padding crops: the same
   formula), and positions in the padding or between dilated elements are zeros;
3. each block is multiplied by the group's kernel into the output columns of the
   group: by the register-tiled microkernel of kernels/conv_tiled.py (default; blocks
   in L2, split across the cores) or by one CBLAS gemm per block (tune gemm="blas");
4. the result [batch, out spatial..., out feature] is written in place when the output
   dim labels are so, else into scratch and transposed into the output.

Batch groups take the batch as (group, batch / groups), feature groups the features as
(group, cg); output feature g * og + j belongs to group g (XLA's convention).

The numpy path (no BLAS) precomputes the same permutations: the input copied once into
a zeroed padded, base-dilated buffer, `as_strided` views it as [batch groups, batch,
out spatial..., window..., feature groups, feature] (strides, window dilation and
negative padding are view arithmetic), one copy makes the im2col matrix and one
(batched) matmul goes through BLAS, then one transpose gives the output dim labels.

Numerics: the interpreter's (hlotool/interpreter/kernels/convolution.py) computes f32
in f32 and f64 in f64 with the same im2col contraction; only the summation order
differs (here the columns are (window, feature), there (feature, window)), so results
agree to float rounding, not bit for bit. Window reversal, integer, bf16/f16,
mixed-type, dynamic-shape and empty convolutions stay on the interpreter.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from llvmlite import ir
from numpy.lib.stride_tricks import as_strided

from hlotool.interpreter.kernels.elementwise import flush_denormals
from hlotool.ir.attributes import WindowDimension
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.jit import Pipeline, host
from hlotool.targets.cpu.kernels import blas
from hlotool.targets.cpu.kernels import conv_tiled as tiled
from hlotool.targets.cpu.kernels.denormal import flush_inputs, has_denormals
from hlotool.targets.cpu.kernels.depthwise import DepthwisePlan, is_depthwise
from hlotool.targets.cpu.workspace import Workspace

P = PrimitiveType
#: Emits im2col rows where the builder stands: (builder, src, cols, group, first, count).
Im2col = Callable[[ir.IRBuilder, ir.Value, ir.Value, ir.Value, ir.Value, ir.Value], None]
_TYPES = {P.F32: np.float32, P.F64: np.float64}


@dataclass(slots=True)
class ConvPlan:
    """A convolution computed by im2col + BLAS (a standalone convolution, or a fusion
    whose root is a convolution of two of its parameters).

    Native (`native`: OpenBLAS found) it is an LLVM kernel (`emit`) whose entry takes
    the buffers (lhs, rhs, output, scratch of `scratch_bytes`); no constants. The output
    must not be an input's buffer (the im2col and gemm read the inputs while the output
    is written); any distinct buffers are fine. Without BLAS the runtime makes a numpy
    `ConvThunk`."""

    name: str
    roots: list[Instruction]
    inputs: list[Instruction]
    tune: dict[str, int | str] = field(default_factory=dict)

    @property
    def conv(self) -> Instruction:
        return self.roots[0]

    @property
    def native(self) -> bool:
        """Whether the convolution is an LLVM kernel calling CBLAS (see `emit`)."""
        return blas.available()

    @property
    def scratch_bytes(self) -> int:
        """Bytes of the native kernel's scratch buffer (its last entry buffer)."""
        return conv_form(self.conv, self.tune).scratch_bytes

    @property
    def pipeline(self) -> Pipeline:
        """How LLVM compiles the kernel: with the tiled contraction on x86 it packs with
        memcpy and calls the runtime microkernels, so the quick pipeline for calls."""
        calls = self.native and host().is_x86 and conv_form(self.conv, self.tune).tiled
        return Pipeline.CALLS if calls else Pipeline.FULL

    def emit(self, module: Any, symbol: str, *, x86: bool) -> None:
        """The native kernel: entry buffers (lhs, rhs, out, scratch of `scratch_bytes`);
        the output must not be an input buffer."""
        if not self.native:
            raise RuntimeError("no BLAS library for a native convolution")
        emit_conv(module, symbol, conv_form(self.conv, self.tune), x86=x86)

    def make_thunk(self, ins: Instruction, library: Any, symbol: str) -> ConvThunk:
        """A thunk calling the kernel `emit` put in the module's library."""
        return ConvThunk(ins, self.conv, fn=library.get_function(symbol), tune=self.tune)


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


def load_runtime(dtypes: tuple[PrimitiveType, ...] = tuple(_TYPES)) -> None:
    """Build and register what native convolutions of `dtypes` call, once per process
    (where OpenBLAS is found): the denormal helpers and the microkernels."""
    if blas.available():
        blas.helpers()
        for dtype in dtypes:
            tiled.runtime(dtype, *tiled.vector_shape(dtype))


def plan_convolution(ins: Instruction, name: str) -> tuple[ConvPlan | DepthwisePlan | None, str]:
    """A ConvPlan for a convolution, or for a fusion computing only a convolution of its
    parameters (XLA:CPU wraps convolutions in such kCustom fusions).

    Registers the denormal helpers (kernels/blas.py) and the microkernels
    (conv_tiled.runtime) native kernels call first: a module's object code may come
    from the disk cache, loaded right after planning."""
    if ins.opcode is Opcode.CONVOLUTION:
        return _plan(ins, name)
    comp = ins.attrs.get("calls")
    root = getattr(comp, "root", None)
    if ins.opcode is not Opcode.FUSION or root is None or root.opcode is not Opcode.CONVOLUTION:
        return None, "not a convolution"
    if any(o.opcode is not Opcode.PARAMETER for o in root.operands) or \
            any(f is not root and f.opcode is not Opcode.PARAMETER for f in comp.instructions):
        return None, "convolution fusion with other instructions"
    return _plan(root, name)


def _plan(conv: Instruction, name: str) -> tuple[ConvPlan | DepthwisePlan | None, str]:
    reason = unsupported_conv(conv)
    if reason:
        return None, reason
    if is_depthwise(conv):
        return DepthwisePlan(name, [conv], list(conv.operands)), ""
    load_runtime((conv.shape.element_type,))
    return ConvPlan(name, [conv], list(conv.operands)), ""


class ConvThunk(blas.LibraryThunk):
    """One convolution: a call of its native kernel (`form`, `fn`; the arena runtime
    calls it directly through `native_args`), or without BLAS pad + strided im2col view
    + one (batched) numpy matmul."""

    def __init__(self, ins: Instruction, conv: Instruction | None = None,
                 workspace: Workspace | None = None, *, fn: Any = None,
                 tune: dict[str, int | str] | None = None, native: bool | None = None) -> None:
        """`fn`: the native kernel when already compiled (else compiled on first use);
        `native`: False for the numpy path even where BLAS is found."""
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
        #: The native kernel's form (None: the numpy path).
        native = blas.available() if native is None else native and blas.available()
        self.form = conv_form(conv, tune or {}) if native else None
        self.scratch = _aligned_bytes(self.form.scratch_bytes if self.form else 0)
        self._fn = fn

    @property
    def operand_positions(self) -> tuple[int, int]:
        return self.sources[0], self.sources[1]

    def _compile(self) -> Any:
        from hlotool.targets.cpu.jit import Pipeline, host

        form, x86 = self.form, host().is_x86
        return blas.compile_once("conv", lambda m, name: emit_conv(m, name, form, x86=x86))

    def inputs(self, operands: list, env: dict) -> list:
        return [operands[s] for s in self.sources]

    def accepts(self, values: list) -> bool:
        return all(isinstance(v, np.ndarray | np.generic) and np.shape(v) == tuple(d)
                   for v, (d, _) in zip(values, self.in_specs, strict=True))

    def __call__(self, values: list, out: np.ndarray | None = None) -> np.ndarray:
        """The convolution of the operand values, written into `out` when given (an
        array of the result's dimensions and type, not an operand's buffer)."""
        if self.form is not None:
            return self._native(values, out)
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
        x = np.transpose(flush_inputs(np.asarray(values[0], self.dtype)), self.lperm)
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
        w = np.transpose(flush_inputs(np.asarray(values[1], self.dtype)), self.rperm)
        ker = np.transpose(w.reshape(self.ker_split), self.ker_perm).reshape(self.ker_shape)
        res = out.reshape(1, self.cols_shape[1], self.ker_shape[2]) if direct else scratch[-1]
        with np.errstate(all="ignore"):
            if self.groups == 1:
                np.matmul(cols[0], ker[0], out=res[0])
            else:
                np.matmul(cols, ker, out=res)
        if not direct:
            res = res.reshape(self.res_shape)
            if self.groups > 1:
                res = np.transpose(res, self.res_perm)
            res = np.transpose(res.reshape(self.canon_shape), self.out_perm)
            if out is None:
                out = np.empty(self.out_shape, self.dtype)
            np.copyto(out, res)
        if has_denormals(out):  # results flushed to zero, as XLA:CPU runs (FTZ)
            np.copyto(out, flush_denormals(out))
        return out


def _aligned_bytes(n: int) -> np.ndarray:
    """n bytes starting at a 64-byte boundary."""
    raw = np.empty(n + _ALIGN, np.uint8)
    skip = (-raw.ctypes.data) % _ALIGN
    return raw[skip:skip + n]



# -- the native kernel -----------------------------------------------------------------------

#: Bytes of im2col rows packed per gemm call (gemm="blas"). OpenBLAS's threads cost
#: milliseconds per call on a busy machine, so the chunks are big (the whole 58 MiB
#: im2col matrix of the 3x3 8x56x56x64 convolution is one call).
CHUNK_BYTES = 64 << 20
_ALIGN = 64


@dataclass(frozen=True, slots=True)
class Spatial:
    """One spatial dimension: input size, window size, stride, window (rhs) and base (lhs)
    dilation, low padding (negative: cropped), output size."""

    size: int
    window: int
    stride: int
    wdil: int
    bdil: int
    low: int
    out: int

    @property
    def dilated(self) -> int:
        return (self.size - 1) * self.bdil + 1


@dataclass(frozen=True, slots=True)
class ConvForm:
    """A convolution as the native kernel computes it (hashable: one kernel per form).

    The lhs is read as [n, spatial..., c] (`lperm` of its dims; packed into scratch first
    unless already so), the kernel packed as [groups, window..., cg, og], and per block
    of `chunk` output rows (batch, out spatial...) and per group, the rows' im2col
    matrix [rows, window... * cg] is packed and multiplied into the [rows, o] output
    (columns g * og...) by the tiled microkernel or one gemm; the output is
    [nb, out spatial..., o] (in place when `out_perm` is the identity, else in scratch
    then transposed)."""

    dtype: PrimitiveType
    lhs: tuple[int, ...]
    lperm: tuple[int, ...]
    #: The rhs dims with the output feature split into (groups, og), and the permutation
    #: of those bringing them to [groups, window..., cg, og].
    kdims: tuple[int, ...]
    kperm: tuple[int, ...]
    out_perm: tuple[int, ...]
    spatial: tuple[Spatial, ...]
    n: int
    c: int
    o: int
    gb: int
    gf: int
    #: Rows of one im2col block (per gemm call, or per block of the tiled contraction).
    chunk: int
    #: The contraction: the register-tiled LLVM microkernel (kernels/conv_tiled.py) or
    #: one CBLAS gemm per block and group.
    tiled: bool

    @property
    def itemsize(self) -> int:
        return 4 if self.dtype is P.F32 else 8

    @property
    def groups(self) -> int:
        return self.gb * self.gf

    @property
    def nb(self) -> int:
        return self.n // self.gb

    @property
    def cg(self) -> int:
        return self.c // self.gf

    @property
    def og(self) -> int:
        return self.o // self.groups

    @property
    def kk(self) -> int:
        """Columns of the im2col matrix (window positions x cg)."""
        return math.prod(s.window for s in self.spatial) * self.cg

    @property
    def rows(self) -> int:
        """Rows of the im2col matrix (nb x output positions)."""
        return self.nb * math.prod(s.out for s in self.spatial)

    @property
    def canon_out(self) -> tuple[int, ...]:
        return (self.nb, *(s.out for s in self.spatial), self.o)

    @property
    def in_place_lhs(self) -> bool:
        return self.lperm == tuple(range(len(self.lperm)))

    @property
    def in_place_out(self) -> bool:
        return self.out_perm == tuple(range(len(self.out_perm)))

    @property
    def plain_rows(self) -> bool:
        """Whether the im2col matrix is the [batch, spatial..., c] lhs itself (a 1x1
        window, unit strides and dilations, no padding, one group)."""
        return self.groups == 1 and all(
            (s.window, s.stride, s.wdil, s.bdil, s.low, s.out) == (1, 1, 1, 1, 0, s.size)
            for s in self.spatial)

    @property
    def offsets(self) -> tuple[int, int, int, int, int]:
        """Byte offsets of the scratch areas (kernel, im2col chunk, lhs, output) and the
        end."""
        sizes = [self.groups * self.kk * self.og, 0 if self.tiled else self.chunk * self.kk,
                 0 if self.in_place_lhs else math.prod(self.lhs),
                 0 if self.in_place_out else math.prod(self.canon_out)]
        out = [0]
        for n in sizes:
            out.append(out[-1] + _aligned(n * self.itemsize))
        return tuple(out)  # type: ignore[return-value]

    @property
    def scratch_bytes(self) -> int:
        return max(_ALIGN, self.offsets[-1])


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def conv_form(conv: Instruction, tune: dict[str, int | str]) -> ConvForm:
    """The native form of a supported convolution."""
    a = conv.attrs
    dn = a["dim_labels"]
    lhs, rhs, out = conv.operand(0).shape, conv.operand(1).shape, conv.shape
    k = len(dn.input_spatial_dimensions)
    window = a.get("window")
    dims = list(window.dimensions) if window is not None else [WindowDimension()] * k
    spatial = tuple(Spatial(lhs.dimensions[d], wd.size, wd.stride, wd.window_dilation,
                            wd.base_dilation, wd.padding_low,
                            out.dimensions[dn.output_spatial_dimensions[i]])
                    for i, (d, wd) in enumerate(zip(dn.input_spatial_dimensions, dims,
                                                    strict=True)))
    gf = int(a.get("feature_group_count", 1) or 1)
    gb = int(a.get("batch_group_count", 1) or 1)
    o = rhs.dimensions[dn.kernel_output_feature_dimension]
    # The rhs's output feature dim split into (groups, og): virtual dims and their order.
    ko = dn.kernel_output_feature_dimension
    kdims = (*rhs.dimensions[:ko], gb * gf, o // (gb * gf), *rhs.dimensions[ko + 1:])
    virt = lambda d: d if d < ko else d + 1  # noqa: E731 - rhs dim -> virtual dim
    kperm = (ko, *(virt(d) for d in dn.kernel_spatial_dimensions),
             virt(dn.kernel_input_feature_dimension), ko + 1)
    src = [0] * (2 + k)
    src[dn.output_batch_dimension] = 0
    src[dn.output_feature_dimension] = 1 + k
    for i, d in enumerate(dn.output_spatial_dimensions):
        src[d] = 1 + i
    c = lhs.dimensions[dn.input_feature_dimension]
    itemsize = 4 if out.element_type is P.F32 else 8
    kk = math.prod(s.window for s in spatial) * (c // gf)
    rows = lhs.dimensions[dn.input_batch_dimension] // gb * math.prod(s.out for s in spatial)
    chunk_bytes = int(tune.get("chunk_bytes", CHUNK_BYTES))
    chunk = max(1, min(rows, chunk_bytes // (kk * itemsize)))
    block = tiled.block_rows(rows, kk, itemsize)
    use_tiled = tune.get("gemm", "tiled") == "tiled" and \
        block * kk * itemsize <= tiled.MAX_BLOCK_BYTES
    return ConvForm(out.element_type, tuple(lhs.dimensions),
                    (dn.input_batch_dimension, *dn.input_spatial_dimensions,
                     dn.input_feature_dimension),
                    kdims, kperm, tuple(src), spatial,
                    lhs.dimensions[dn.input_batch_dimension], c, o, gb, gf,
                    block if use_tiled else chunk, use_tiled)


def emit_conv(module: ir.Module, symbol: str, form: ConvForm, *, x86: bool = False) -> None:
    """Add `void symbol(void **buffers)` computing `form` (buffers: lhs, rhs, out,
    scratch of `form.scratch_bytes`)."""
    blas.helpers()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=symbol)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    lhs, rhs, out, scratch = (b.load(b.gep(fn.args[0], [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
                              for k in range(4))
    off = form.offsets
    area = [b.gep(scratch, [u.i64(x)], source_etype=u.I8) for x in off[:4]]
    ker, cols = area[0], area[1]
    # The tiled microkernel runs with DAZ set (x86), so it reads denormals as zero
    # itself: its operands are copied as they are, and a kernel already in
    # [groups, window..., cg, og] order is read in place.
    raw = form.tiled and x86
    if raw and _in_order(form.kdims, form.kperm):
        ker = rhs
    else:
        blas.emit_permute(b, form.kdims, form.kperm, rhs, ker, form.dtype)
    src = lhs
    if not form.in_place_lhs:
        blas.emit_permute(b, form.lhs, form.lperm, lhs, area[2], form.dtype)
        src = area[2]
    dst = out if form.in_place_out else area[3]
    def im2col(b: ir.IRBuilder, src: ir.Value, cols: ir.Value, g: ir.Value, first: ir.Value,
               count: ir.Value) -> None:
        _im2col(b, form, raw, src, cols, g, first, count)

    if form.tiled:
        tiled.emit_tiled(b, form, im2col, src, ker, dst, symbol, x86)
    else:
        _chunks(b, form, im2col, src, cols, ker, dst)
    if not (form.tiled and x86):  # denormal results read as zero (XLA:CPU's FTZ)
        scan, flush = blas.declare_helpers(b.module, form.dtype)
        n = u.i64(form.rows * form.o)
        with b.if_then(b.call(scan, [dst, n])):
            b.call(flush, [dst, dst, n])
    if not form.in_place_out:
        blas.emit_permute(b, form.canon_out, form.out_perm, dst, out, form.dtype)
    b.ret_void()


def _chunks(b: ir.IRBuilder, form: ConvForm, im2col: Im2col, src: ir.Value,
            cols: ir.Value, ker: ir.Value, dst: ir.Value) -> None:
    """Per chunk of rows and per group: pack the im2col rows, one gemm into dst."""
    ety = u.F32 if form.dtype is P.F32 else u.F64
    total, chunk, kk, og = form.rows, form.chunk, form.kk, form.og
    with u.for_range(b, -(-total // chunk), name="chunk") as ch:
        r0 = b.mul(ch, u.i64(chunk))
        left = b.sub(u.i64(total), r0)
        rows = b.select(b.icmp_signed("<", left, u.i64(chunk)), left, u.i64(chunk))
        at = b.gep(dst, [b.mul(r0, u.i64(form.o))], source_etype=ety)
        with u.for_range(b, form.groups, name="g") as g:
            im2col(b, src, cols, g, r0, rows)
            blas.emit_gemm(b, form.dtype, rows, og, kk, cols, kk,
                           b.gep(ker, [b.mul(g, u.i64(kk * og))], source_etype=ety), og,
                           b.gep(at, [b.mul(g, u.i64(og))], source_etype=ety), form.o)


def _in_order(dims: tuple[int, ...], perm: tuple[int, ...]) -> bool:
    """Whether transposing `dims` by `perm` keeps the elements' order (the dims that
    move have size 1)."""
    moved = [d for d in perm if dims[d] > 1]
    return moved == sorted(moved)


def _im2col(b: ir.IRBuilder, form: ConvForm, raw: bool, src: ir.Value, cols: ir.Value,
            g: ir.Value, first: ir.Value, count: ir.Value) -> None:
    """Emit, where `b` stands: rows [first, first + count) of group `g`'s im2col matrix
    into cols, denormals flushed unless `raw` (then copied as they are); src is the lhs
    as [n, spatial..., c]."""
    gb_i, gf_i = b.udiv(g, u.i64(form.gf)), b.urem(g, u.i64(form.gf))
    outs = [s.out for s in form.spatial]
    positions = math.prod(outs)
    # Element strides of the lhs as [n, spatial..., c].
    sizes = [form.n, *(s.size for s in form.spatial), form.c]
    strides = [math.prod(sizes[d + 1:]) for d in range(len(sizes))]
    with u.for_range(b, count, name="row") as i:
        r = b.add(first, i)
        batch = b.add(b.mul(gb_i, u.i64(form.nb)), b.udiv(r, u.i64(positions)))
        base = b.add(b.mul(batch, u.i64(strides[0])), b.mul(gf_i, u.i64(form.cg)))
        coords = [b.urem(b.udiv(r, u.i64(math.prod(outs[d + 1:]))), u.i64(outs[d]))
                  for d in range(len(outs))]
        _window(b, form, src, cols, coords, strides[1:-1], base, b.mul(i, u.i64(form.kk)), raw)


def _window(b: ir.IRBuilder, form: ConvForm, src: ir.Value, cols: ir.Value,
            coords: list[ir.Value], strides: list[int], base: ir.Value, row: ir.Value,
            raw: bool) -> None:
    """One im2col row: per window position, cg input features (or zeros) into cols."""
    ity = blas.bits_type(form.dtype)
    cg = form.cg

    def level(d: int, valid: ir.Value, at: ir.Value, col: ir.Value) -> None:
        if d == len(form.spatial):
            dst = b.gep(cols, [b.add(row, col)], source_etype=ity)
            if raw:
                with b.if_else(valid) as (then, otherwise):
                    with then:
                        u.memcpy(b, dst, b.gep(src, [at], source_etype=ity), cg * form.itemsize)
                    with otherwise:
                        u.memset(b, dst, 0, cg * form.itemsize)
                return
            with b.if_else(valid) as (then, otherwise):
                with then:
                    p = b.gep(src, [at], source_etype=ity)
                    with u.for_range(b, cg, name="c") as c:
                        bits = b.load(b.gep(p, [c], source_etype=ity), typ=ity)
                        b.store(blas.flushed(b, bits, form.dtype),
                                b.gep(dst, [c], source_etype=ity))
                with otherwise:
                    with u.for_range(b, cg, name="z") as c:
                        b.store(ir.Constant(ity, 0), b.gep(dst, [c], source_etype=ity))
            return
        s = form.spatial[d]
        inner = math.prod(x.window for x in form.spatial[d + 1:]) * cg
        with u.for_range(b, s.window, name=f"w{d}") as w:
            q = b.sub(b.add(b.mul(coords[d], u.i64(s.stride)), b.mul(w, u.i64(s.wdil))),
                      u.i64(s.low))
            ok = b.icmp_unsigned("<", q, u.i64(s.dilated))
            if s.bdil > 1:
                ok = b.and_(ok, b.icmp_unsigned("==", b.urem(q, u.i64(s.bdil)), u.i64(0)))
                q = b.udiv(q, u.i64(s.bdil))
            level(d + 1, b.and_(valid, ok), b.add(at, b.mul(q, u.i64(strides[d]))),
                  b.add(col, b.mul(w, u.i64(inner))))

    level(0, ir.Constant(u.I1, 1), base, u.i64(0))
