"""Dots as LLVM kernels that call OpenBLAS's CBLAS directly (XLA:CPU's DotThunk calls
Eigen's or a library's gemm the same way: xla/backends/cpu/runtime/dot_thunk.cc).

numpy's wheel bundles OpenBLAS (numpy.libs/libscipy_openblas64_*.so, 64-bit integer
CBLAS). At import this module finds it, and registers its `?gemm` and
`?gemm_batch_strided` entry points with `llvmlite.binding.add_symbol` under hlotool's
own names (`hlotool_sgemm`, ...), before any JIT finalization or disk-cache load (the
module is imported by kernels/dot.py, hence by codegen). Without the library `available()`
is False and dots keep the numpy path of kernels/dot.py.

A dot kernel `void symbol(void **buffers)` takes buffers (lhs, rhs, out, scratch):

1. each operand is read by BLAS as `nb` matrices, in place through transposes and
   leading dimensions (`CblasTrans`, `lda`) when its dimension numbers allow, else
   packed into scratch as contiguous [nb, rows, cols] (flushing denormals on the way);
   an operand read in place is scanned for denormals first (a vectorized loop) and, if
   it has any, copied flushed into scratch (XLA:CPU reads library inputs with DAZ);
2. one `cblas_?gemm_batch_strided` call (tune batch="stacked") or one `cblas_?gemm` per
   batch (batch="loop"); a large gemm is instead split across hlotool's threads, one
   part per thread, each calling single-threaded OpenBLAS on its share of the columns
   (or rows) of every batch, with FTZ/DAZ set (`_emit_split`; x86), or, for f32 on
   hosts with AVX-512, one call of hlotool's own gemm for all batches, which splits it
   across the threads (`own_gemm`, `emit_own`, kernels/gemm.py);
3. denormals of the output are replaced by signed zeros.

The denormal scan and flush loops are compiled once per process (`_helpers`, registered
with `add_symbol` like the CBLAS entry points, on the first `plan_blas_dot`, which every
kernel's form comes from), so a dot kernel is a few calls: ~10 ms to compile.

Convolutions (kernels/conv.py) use `emit_permute`, `emit_gemm` and the denormal
helpers too.

The output never aliases an input (gemm reads the inputs while writing); the kernel is
correct for any distinct buffers. It does not touch MXCSR: flushing is done on bits, and
OpenBLAS's own threads run with their own MXCSR anyway.
"""

from __future__ import annotations

import ctypes
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu.kernels import gemm
from hlotool.targets.llvm import irutils as u
from hlotool.targets.openblas import numpy_openblas, set_threads

P = PrimitiveType
ROW_MAJOR, COL_MAJOR, NO_TRANS, TRANS = 101, 102, 111, 112
#: hlotool's symbol -> OpenBLAS's (64-bit integer interface of scipy-openblas).
_SYMBOLS = {"hlotool_sgemm": "scipy_cblas_sgemm64_", "hlotool_dgemm": "scipy_cblas_dgemm64_",
            "hlotool_sgemv": "scipy_cblas_sgemv64_", "hlotool_dgemv": "scipy_cblas_dgemv64_",
            "hlotool_sdot": "scipy_cblas_sdot64_", "hlotool_ddot": "scipy_cblas_ddot64_",
            "hlotool_sgemm_batch": "cblas_sgemm_batch_strided",

            "hlotool_dgemm_batch": "cblas_dgemm_batch_strided"}
_PREFIX = {P.F32: "hlotool_s", P.F64: "hlotool_d"}
#: OpenBLAS <= 0.3.31 built with DYNAMIC_ARCH (numpy's is) crashes in ?gemm_batch_strided
#: when m*n*k <= 100**3 (its SMALL_MATRIX_OPT path; fixed by OpenBLAS PR #5980): smaller
#: batched dots loop over gemm calls.
SMALL_MATRIX_MNK = 100**3
#: Scratch areas are aligned to this many bytes.
_ALIGN = 64


def _register() -> frozenset[str]:
    """Register the CBLAS entry points found; returns the hlotool names registered."""
    lib = numpy_openblas()
    if lib is None:
        return frozenset()
    found = set()
    for ours, theirs in _SYMBOLS.items():
        fn = getattr(lib, theirs, None)
        if fn is not None:
            llvm.add_symbol(ours, ctypes.cast(fn, ctypes.c_void_p).value)
            found.add(ours)
    if not {"hlotool_sgemm", "hlotool_dgemm", "hlotool_sgemv", "hlotool_dgemv", "hlotool_sdot",
            "hlotool_ddot"} <= found:
        return frozenset()
    single_threaded_blas()
    return frozenset(found)


def single_threaded_blas() -> None:
    """Run OpenBLAS on one thread per call from now on (in the whole process: numpy's
    matmul too). hlotool splits large dots across its own threads (`_emit_split`), as
    XLA:CPU runs library kernels on its own pool: OpenBLAS's threads, woken for every
    call and spinning after it, stalled each dot on a busy machine (an MLP layer of
    2.5 ms took 13-47 ms there) and took a core from the kernels that follow."""
    set_threads(1)


_REGISTERED = _register()


def available() -> bool:
    """Whether dots can be native kernels here (OpenBLAS's CBLAS was found)."""
    return bool(_REGISTERED)


@dataclass(frozen=True, slots=True)
class Operand:
    """How BLAS reads one operand: `nb` matrices of `rows` x `cols`.

    `perm` orders the operand's dims as (batch..., rows..., cols...). Read in place:
    matrix b starts `batch_stride` elements after matrix b-1, `trans` and `ld` as CBLAS
    takes them (row-major). Packed: copied to a contiguous [nb, rows, cols] array."""

    dims: tuple[int, ...]
    perm: tuple[int, ...]
    rows: int
    cols: int
    pack: bool
    trans: bool
    ld: int
    batch_stride: int

    @property
    def size(self) -> int:
        return math.prod(self.dims)

    @property
    def strides(self) -> tuple[int, int]:
        """(row, column) strides in elements of the matrices BLAS reads."""
        return (1, self.ld) if self.trans else (self.ld, 1)


@dataclass(frozen=True, slots=True)
class BlasDot:
    """One dot as BLAS calls: C[b] = A[b] @ B[b] for b < nb, A: m x k, B: k x n."""

    dtype: PrimitiveType
    nb: int
    m: int
    n: int
    k: int
    lhs: Operand
    rhs: Operand
    #: One batched call (cblas_?gemm_batch_strided) rather than a loop of gemm calls.
    stacked: bool
    #: Split across the threads as hlotool's own gemm (kernels/gemm.py) rather than as
    #: OpenBLAS calls (`own_gemm`).
    own: bool = False

    @property
    def itemsize(self) -> int:
        return 4 if self.dtype is P.F32 else 8

    @property
    def routine(self) -> str:
        """The BLAS routine per batch, as numpy.matmul picks it (so results match the
        interpreter bit for bit): `dot` for a 1x1 result, `gemv` for a row or column
        (`gemv_rows`: m == 1), `gemm` otherwise (also when k == 1: one exact product)."""
        if self.m == 1 and self.n == 1:
            return "dot"
        if self.k == 1:
            return "gemm"
        if self.n == 1:
            return "gemv"
        return "gemv_rows" if self.m == 1 else "gemm"

    @property
    def scratch_offsets(self) -> tuple[int, int]:
        """Byte offsets of the lhs and rhs scratch areas."""
        return 0, _aligned(self.lhs.size * self.itemsize)

    @property
    def scratch_bytes(self) -> int:
        return max(_ALIGN, self.scratch_offsets[1] + _aligned(self.rhs.size * self.itemsize))


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def dot_dimensions(ins: Instruction) -> tuple[tuple[int, ...], ...]:
    """A dot's (lhs batch, lhs contracting, lhs free, rhs batch, rhs contracting, rhs
    free) dimensions, free ones in order."""
    a, b = ins.operand(0).shape, ins.operand(1).shape
    attrs = ins.attrs
    lb = tuple(attrs.get("lhs_batch_dims") or ())
    lc = tuple(attrs.get("lhs_contracting_dims") or ())
    rb = tuple(attrs.get("rhs_batch_dims") or ())
    rc = tuple(attrs.get("rhs_contracting_dims") or ())
    lf = tuple(d for d in range(a.rank) if d not in lb and d not in lc)
    rf = tuple(d for d in range(b.rank) if d not in rb and d not in rc)
    return lb, lc, lf, rb, rc, rf


def compile_once(name: str, emit: Callable[[ir.Module, str], None]) -> Any:
    """A kernel compiled in a library of its own, kept for the life of the process
    (thunks hold only the function pointer)."""
    from hlotool.targets.cpu.jit import CodeLibrary

    module = ir.Module(name=f"hlotool_{name}")
    emit(module, name)
    library = CodeLibrary(f"hlotool_{name}")
    library.add_ir_module(str(module))
    library.finalize()
    _LIBRARIES.append(library)
    return library.get_function(name)


_LIBRARIES: list[Any] = []
#: (thunk class, kernel form) -> compiled kernel (forms are frozen dataclasses).
_KERNELS: dict[tuple[str, Any], Any] = {}


class LibraryThunk:
    """The native path shared by the dot and convolution thunks: `form` (None on the
    numpy path), `scratch`, the kernel compiled on first use, two operands in, one
    output of `out_shape` and `dtype`, never in place. Subclasses set `form`, `scratch`,
    `_fn`, `dtype`, `out_shape`, `operand_positions` and define `_compile`."""

    form: Any
    scratch: Any
    _fn: Any
    dtype: Any
    out_shape: tuple[int, ...]
    operand_positions: tuple[int, int] = (0, 1)

    @property
    def native_args(self) -> Any:
        """The native kernel's buffers for the arena runtime (`schedule.NativeArgs`);
        absent (AttributeError) on the numpy path, so the runtime calls the thunk."""
        if self.form is None:
            raise AttributeError("native_args")
        lhs, rhs = self.operand_positions
        return lambda: [("operand", lhs, ()), ("operand", rhs, ()), ("output", ()),
                        ("address", self.scratch.ctypes.data)]

    @property
    def fn(self) -> Any:
        """The native kernel (`void kernel(void **buffers)`), compiled on first use,
        once per process for each form."""
        assert self.form is not None
        if self._fn is None:
            key = (type(self).__name__, self.form)
            self._fn = _KERNELS.get(key)
            if self._fn is None:
                self._fn = _KERNELS[key] = self._compile()
        return self._fn

    def _compile(self) -> Any:
        raise NotImplementedError

    def _native(self, values: list, out: Any) -> Any:
        """Run the native kernel on operand values (into `out`, or a fresh array)."""
        import numpy as np

        from hlotool.interpreter.kernels.elementwise import mark_clean

        a = np.ascontiguousarray(values[0], self.dtype)
        b = np.ascontiguousarray(values[1], self.dtype)
        dst = np.empty(self.out_shape, self.dtype) if out is None else out
        self.fn((ctypes.c_void_p * 4)(a.ctypes.data, b.ctypes.data, dst.ctypes.data,
                                      self.scratch.ctypes.data))
        return mark_clean(dst) if out is None else dst

    def may_share(self, operand: int, index: tuple[int, ...]) -> bool:
        """The kernel reads its operands while writing the output: never in place."""
        return False


def plan_blas_dot(ins: Instruction, tune: dict[str, int | str] | None = None) -> BlasDot | None:
    """The BLAS form of a supported f32/f64 dot (None without the library). Every
    kernel's form comes from here, so the helpers it calls are registered first."""
    if not available():
        return None
    _helpers()
    tune = tune or {}
    a, b = ins.operand(0).shape, ins.operand(1).shape
    lb, lc, lf, rb, rc, rf = dot_dimensions(ins)
    copy = tune.get("layout", "view") == "copy"
    lhs = _operand(tuple(a.dimensions), lb, lf, lc, copy)
    rhs = _operand(tuple(b.dimensions), rb, rc, rf, copy)
    nb = math.prod(a.dimensions[d] for d in lb)
    m, n, k = lhs.rows, rhs.cols, lhs.cols
    stacked = tune.get("batch", "stacked") == "stacked" and nb > 1 and \
        m * n * k > SMALL_MATRIX_MNK and \
        f"{_PREFIX[ins.shape.element_type]}gemm_batch" in _REGISTERED
    dot = BlasDot(ins.shape.element_type, nb, m, n, k, lhs, rhs, stacked)
    if own_gemm(dot):
        gemm.load()
        return BlasDot(dot.dtype, nb, m, n, k, lhs, rhs, False, True)
    return dot


def own_gemm(dot: BlasDot) -> bool:
    """Whether a dot is hlotool's own gemm split across the threads (kernels/gemm.py): an
    f32 gemm worth splitting (`splits`), of MR rows at least (NARROW_OWN_ROWS when it is
    narrower than a strip), on an x86 host with AVX-512. On a Zen 4 host it ran 0.66-1.00x the time of the OpenBLAS split on 20 shapes
    (square, tall, narrow down to 10 columns, transposed, batched; docs/cpu-performance.md)
    and ahead of XLA:CPU's dots, where the OpenBLAS split ran behind them. Elsewhere
    (AVX2: its 6 x 16 tile ran behind OpenBLAS's Haswell kernels) dots keep OpenBLAS."""
    from hlotool.targets.cpu.jit import host

    features = host().features
    if dot.dtype is not P.F32 or not host().is_x86 or "+avx512f" not in features.split(","):
        return False
    mr, nr, _ = gemm.tile(features)
    narrow = dot.n < nr and dot.m < NARROW_OWN_ROWS
    return splits(dot) and dot.m >= mr and not narrow


#: Fewest rows for which a dot narrower than the gemm's strip (N < NR columns) takes
#: hlotool's own gemm: each of its tiles packs a whole zero-padded strip of B for few
#: rows, where OpenBLAS's narrow kernels do better. bench/gemm.py on the Intel host of
#: 2026-12-07, own/OpenBLAS: 32x10x16384 5.3, 256x10x1024 1.9, 64x16x8192 3.4,
#: 128x32x8192 2.2, 512x32x4096 1.5, 1024x32x1024 1.2, 256x48x4096 1.5; 1024x10x1024
#: 0.94, 2048x10x1024 0.99, 4096x10x512 0.94, 8192x16x1024 0.83.
NARROW_OWN_ROWS = 2048


def _operand(dims: tuple[int, ...], batch: tuple[int, ...], rows: tuple[int, ...],
             cols: tuple[int, ...], copy: bool) -> Operand:
    """How to read an operand whose dims `batch`, `rows`, `cols` form the matrices."""
    strides = [math.prod(dims[d + 1:]) for d in range(len(dims))]
    nr, nc = math.prod(dims[d] for d in rows), math.prod(dims[d] for d in cols)
    perm = (*batch, *rows, *cols)
    groups = [_group_stride(dims, strides, g) for g in (batch, rows, cols)]
    form = None
    if not (copy and perm != tuple(range(len(dims)))) and all(s is not False for s in groups):
        form = _matrix(nr, nc, groups[1], groups[2])
    if form is None:
        return Operand(dims, perm, nr, nc, True, False, max(1, nc), nr * nc)
    trans, ld = form
    batch_stride = groups[0] if isinstance(groups[0], int) else 0
    return Operand(dims, perm, nr, nc, False, trans, ld, batch_stride or nr * nc)


def _group_stride(dims: tuple[int, ...], strides: list[int],
                  group: tuple[int, ...]) -> int | None | bool:
    """The stride (elements) of a group of dims read as one index: None when every dim
    has size 1 (any stride), False when they do not collapse into one strided index."""
    live = [d for d in group if dims[d] > 1]
    if not live:
        return None
    for x, y in zip(live, live[1:]):
        if strides[x] != strides[y] * dims[y]:
            return False
    return strides[live[-1]]


def _matrix(rows: int, cols: int, srow: int | None, scol: int | None) -> tuple[bool, int] | None:
    """(transposed, leading dimension) of a rows x cols matrix with these strides as a
    row-major CBLAS operand, or None when it needs packing."""
    if cols <= 1 or scol == 1:
        ld = srow if rows > 1 and srow is not None else max(1, cols)
        if ld >= max(1, cols):
            return False, ld
    if rows <= 1 or srow == 1:
        ld = scol if cols > 1 and scol is not None else max(1, rows)
        if ld >= max(1, rows):
            return True, ld
    return None


# -- emission --------------------------------------------------------------------------------

_BITS = {P.F32: (u.I32, 0x7FFFFFFF, 0x007FFFFF, 0x80000000),
         P.F64: (u.I64, 0x7FFFFFFFFFFFFFFF, 0x000FFFFFFFFFFFFF, 0x8000000000000000)}


def _is_denormal(b: ir.IRBuilder, bits: ir.Value, dtype: PrimitiveType) -> ir.Value:
    """|x| in [smallest denormal, largest denormal]: one unsigned compare."""
    ity, abs_mask, man_mask, _ = _BITS[dtype]
    magnitude = b.and_(bits, ir.Constant(ity, abs_mask))
    return b.icmp_unsigned("<", b.sub(magnitude, ir.Constant(ity, 1)), ir.Constant(ity, man_mask))


def _flushed(b: ir.IRBuilder, bits: ir.Value, dtype: PrimitiveType) -> ir.Value:
    sign = ir.Constant(bits.type, _BITS[dtype][3])
    return b.select(_is_denormal(b, bits, dtype), b.and_(bits, sign), bits)


_SCAN = ir.FunctionType(u.I1, [u.PTR, u.I64])
_FLUSH = ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.I64])


def _helper_names(dtype: PrimitiveType) -> tuple[str, str]:
    """The scan and flush helpers' symbols for one element type."""
    bits = 32 if dtype is P.F32 else 64
    return f"hlotool_blas_scan_f{bits}", f"hlotool_blas_flush_f{bits}"


@functools.cache
def _helpers() -> tuple[object, ...]:
    """Load (from the disk cache) or compile the denormal scan and flush loops once per
    process and register them (kernels call them: the per-dot code stays a few calls,
    quick to compile)."""
    from hlotool.targets.cpu.cache import runtime_library

    def text() -> str:
        module = ir.Module(name="hlotool_blas_helpers")
        for dtype in _BITS:
            scan, flush = _helper_names(dtype)
            _emit_scan(module, scan, dtype)
            _emit_flush(module, flush, dtype)
        return str(module)

    library = runtime_library("blas_helpers", text)
    for dtype in _BITS:
        for name in _helper_names(dtype):
            llvm.add_symbol(name, library.address(name))
    return (library,)  # kept alive for the life of the process


def _emit_scan(module: ir.Module, name: str, dtype: PrimitiveType) -> ir.Function:
    """`i1 name(ptr p, i64 n)`: whether any of the n values at p is denormal."""
    ity = _BITS[dtype][0]
    fn = ir.Function(module, _SCAN, name=name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    p, n = fn.args
    acc = b.alloca(u.I8)
    b.store(ir.Constant(u.I8, 0), acc)
    with u.for_range(b, n) as i:
        bits = b.load(b.gep(p, [i], source_etype=ity, inbounds=True), typ=ity)
        hit = b.zext(_is_denormal(b, bits, dtype), u.I8)
        b.store(b.or_(b.load(acc, typ=u.I8), hit), acc)
    b.ret(b.icmp_unsigned("!=", b.load(acc, typ=u.I8), ir.Constant(u.I8, 0)))
    return fn


def _emit_flush(module: ir.Module, name: str, dtype: PrimitiveType) -> ir.Function:
    """`void name(ptr dst, ptr src, i64 n)`: dst[i] = src[i] with denormals flushed (dst
    may be src)."""
    ity = _BITS[dtype][0]
    fn = ir.Function(module, _FLUSH, name=name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    dst, src, n = fn.args
    with u.for_range(b, n) as i:
        bits = b.load(b.gep(src, [i], source_etype=ity, inbounds=True), typ=ity)
        b.store(_flushed(b, bits, dtype), b.gep(dst, [i], source_etype=ity, inbounds=True))
    b.ret_void()
    return fn


def declare_helpers(module: ir.Module, dtype: PrimitiveType) -> tuple[ir.Function, ir.Function]:
    """The denormal scan (`i1 scan(ptr, i64 n)`) and flush (`void flush(ptr dst, ptr src,
    i64 n)`) helpers, declared in `module` (registered by `plan_blas_dot`/`helpers`)."""
    names = _helper_names(dtype)
    scan = module.globals.get(names[0]) or ir.Function(module, _SCAN, name=names[0])
    flush = module.globals.get(names[1]) or ir.Function(module, _FLUSH, name=names[1])
    return scan, flush


def flushed(b: ir.IRBuilder, bits: ir.Value, dtype: PrimitiveType) -> ir.Value:
    """The bits of a value (integer-typed) with a denormal replaced by a signed zero."""
    return _flushed(b, bits, dtype)


def bits_type(dtype: PrimitiveType) -> ir.IntType:
    """The integer type of an f32/f64 element's bits."""
    return _BITS[dtype][0]


def helpers() -> None:
    """Compile and register the denormal helpers (once per process; kernels call them)."""
    _helpers()


def helper_address(dtype: PrimitiveType) -> int:
    """The address of the denormal scan `i1 scan(ptr p, i64 n)` for f32/f64 (for the
    numpy thunks' input checks, kernels/denormal.py)."""
    library = _helpers()[0]
    return ctypes.cast(library.get_function(_helper_names(dtype)[0]), ctypes.c_void_p).value


def emit_gemm(b: ir.IRBuilder, dtype: PrimitiveType, m: ir.Value | int, n: int, k: int,
              a: ir.Value, lda: int, c: ir.Value, ldc: int, out: ir.Value, ldo: int) -> None:
    """out (m x n, leading dimension ldo) = a (m x k, lda) @ c (k x n, ldc): one row-major
    `cblas_?gemm` call without transposes (m may be a runtime value)."""
    ety = u.F32 if dtype is P.F32 else u.F64
    fn = _declare(b.module, f"{_PREFIX[dtype]}gemm", dtype, False)
    rows = u.i64(m) if isinstance(m, int) else m
    b.call(fn, [ir.Constant(u.I32, ROW_MAJOR), ir.Constant(u.I32, NO_TRANS),
                ir.Constant(u.I32, NO_TRANS), rows, u.i64(n), u.i64(k), ir.Constant(ety, 1.0),
                a, u.i64(lda), c, u.i64(ldc), ir.Constant(ety, 0.0), out, u.i64(ldo)])


def _declare(module: ir.Module, name: str, dtype: PrimitiveType, batched: bool) -> ir.Function:
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    f = u.F32 if dtype is P.F32 else u.F64
    i64 = u.I64
    if batched:
        args = [u.I32, u.I32, u.I32, i64, i64, i64, f, u.PTR, i64, i64, u.PTR, i64, i64, f,
                u.PTR, i64, i64, i64]
    else:
        args = [u.I32, u.I32, u.I32, i64, i64, i64, f, u.PTR, i64, u.PTR, i64, f, u.PTR, i64]
    return ir.Function(module, ir.FunctionType(ir.VoidType(), args), name=name)


def emit_blas_dot(module: ir.Module, symbol: str, dot: BlasDot, *, x86: bool = False) -> None:
    """Add `void symbol(void **buffers)` computing `dot` (buffers: lhs, rhs, out, scratch);
    a large gemm is split across the threads (`_emit_split`)."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=symbol)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    lhs, rhs, out, scratch = (b.load(b.gep(fn.args[0], [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
                              for k in range(4))
    total = dot.nb * dot.m * dot.n
    if total == 0:
        b.ret_void()
        return
    names = _helper_names(dot.dtype)
    scan = module.globals.get(names[0]) or ir.Function(module, _SCAN, name=names[0])
    flush = module.globals.get(names[1]) or ir.Function(module, _FLUSH, name=names[1])
    ety = u.F32 if dot.dtype is P.F32 else u.F64
    if dot.k == 0:
        u.memset(b, out, 0, total * dot.itemsize)
        b.ret_void()
        return
    offsets = dot.scratch_offsets
    if dot.own:
        emit_own(b, dot, lhs, rhs, out, scratch)
        b.ret_void()
        return
    if x86 and splits(dot):
        _emit_split(b, f"{symbol}.part", dot, lhs, rhs, out, scratch, ety)
        b.ret_void()
        return
    a = _prepare(b, dot.lhs, lhs, b.gep(scratch, [u.i64(offsets[0])], source_etype=u.I8),
                 scan, flush, dot.dtype)
    c = _prepare(b, dot.rhs, rhs, b.gep(scratch, [u.i64(offsets[1])], source_etype=u.I8),
                 scan, flush, dot.dtype)
    _gemm(b, dot, a, c, out, ety)
    with b.if_then(b.call(scan, [out, u.i64(total)])):
        b.call(flush, [out, out, u.i64(total)])
    b.ret_void()


def splits(dot: BlasDot) -> bool:
    """Whether a dot's gemm calls are split across the threads: a gemm with at least
    two parts' worth of work (`parallel.max_parts`, counting FLOPs) whose halves stay
    above OpenBLAS's small-matrix path."""
    from hlotool.targets.cpu.kernels import parallel

    flops = 2 * dot.nb * dot.m * dot.n * dot.k
    return dot.routine == "gemm" and dot.m * dot.n * dot.k >= 2 * SMALL_MATRIX_MNK and \
        parallel.max_parts(max(dot.m, dot.n), flops) > 1


def _emit_split(b: ir.IRBuilder, name: str, dot: BlasDot, lhs: ir.Value, rhs: ir.Value, out: ir.Value,
                scratch: ir.Value, ety: ir.Type) -> None:
    """The gemm calls of `dot` on the threads, one part per thread (each a gemm of its
    share of the columns of every batch, or of the rows when the lhs is the larger
    operand, so that each part packs only its share of the larger one), with OpenBLAS
    on one thread per call (`single_threaded_blas`). The
    parts run with FTZ/DAZ set, as XLA:CPU's threads do, so denormal inputs read as zero
    and results flush to zero without the scans of the one-call form. Packed operands
    are packed first, on the calling thread."""
    from hlotool.targets.cpu.kernels import parallel

    a, c = _operands(b, dot, lhs, rhs, scratch)
    by_rows = dot.m * dot.k > dot.k * dot.n
    part = _emit_split_part(b.module, name, dot, ety, by_rows)
    threads = parallel.load_threads(b)
    cap = u.i64(max(1, min(dot.m if by_rows else dot.n, parallel.MAX_THREADS)))
    parts = b.select(b.icmp_signed("<", threads, cap), threads, cap)
    args = b.alloca(u.PTR, size=u.i64(4))
    for k, p in enumerate((a, c, out, b.inttoptr(parts, u.PTR))):
        b.store(p, b.gep(args, [u.i64(k)], source_etype=u.PTR))
    parallel.call_parallel_for(b, part, args, parts, parts)


def emit_own(b: ir.IRBuilder, dot: BlasDot, lhs: ir.Value, rhs: ir.Value, out: ir.Value,
              scratch: ir.Value, epilogue: tuple[ir.Function, ir.Value] | None = None) -> None:
    """`dot` as one call of hlotool's own gemm (`gemm.PARALLEL_SYMBOL`), every batch's
    tiles split across the threads with FTZ/DAZ set (as `_emit_split`); packed operands
    are packed first, on the calling thread. With `epilogue` (a `gemm.EPILOGUE_TYPE`
    function and its context), `gemm.EPILOGUE_SYMBOL`, which calls it on each finished
    block of the output."""
    a, c = _operands(b, dot, lhs, rhs, scratch)
    name, ftype = (gemm.EPILOGUE_SYMBOL, gemm.EPILOGUE_ENTRY_TYPE) if epilogue else \
        (gemm.PARALLEL_SYMBOL, gemm.PARALLEL_TYPE)
    fn = b.module.globals.get(name) or ir.Function(b.module, ftype, name=name)
    b.call(fn, [_trans(dot.lhs), _trans(dot.rhs), u.i64(dot.m), u.i64(dot.n), u.i64(dot.k),
                a, u.i64(dot.lhs.ld), c, u.i64(dot.rhs.ld), out, u.i64(dot.n), u.i64(dot.nb),
                u.i64(dot.lhs.batch_stride), u.i64(dot.rhs.batch_stride),
                u.i64(dot.m * dot.n), *(epilogue or ())])


def _emit_split_part(module: ir.Module, name: str, dot: BlasDot, ety: ir.Type,
                     by_rows: bool) -> ir.Function:
    """`void part(void **(a, c, out, parts), i64 begin, i64 end)`: parts [begin, end)
    of `parts` as one gemm per batch over their rows or columns."""
    from hlotool.targets.cpu.kernels import parallel

    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64]), name=name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    args, begin, end = fn.args
    a, c, out, n_parts = (b.load(b.gep(args, [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
                          for k in range(4))
    n_parts = b.ptrtoint(n_parts, u.I64)
    size = dot.m if by_rows else dot.n
    # Bounds on multiples of 16 (whole cache lines of f32 columns).
    bound = lambda k: b.mul(b.udiv(b.add(b.udiv(b.mul(u.i64(size), k), n_parts), u.i64(8)),  # noqa: E731
                                   u.i64(16)), u.i64(16))
    lo, hi = bound(begin), b.select(b.icmp_signed(">=", end, n_parts), u.i64(size), bound(end))
    hi = b.select(b.icmp_signed(">", hi, u.i64(size)), u.i64(size), hi)
    count = b.sub(hi, lo)
    prefix = _PREFIX[dot.dtype]
    gemm = _declare(module, f"{prefix}gemm", dot.dtype, False)
    one, zero = ir.Constant(ety, 1.0), ir.Constant(ety, 0.0)

    def body() -> None:
        with b.if_then(b.icmp_signed(">", count, u.i64(0))):
            with u.for_range(b, dot.nb, name="batch") as i:
                pa = b.gep(a, [b.mul(i, u.i64(dot.lhs.batch_stride))], source_etype=ety)
                pc = b.gep(c, [b.mul(i, u.i64(dot.rhs.batch_stride))], source_etype=ety)
                po = b.gep(out, [b.mul(i, u.i64(dot.m * dot.n))], source_etype=ety)
                if by_rows:  # rows lo..hi of A (A's row r: r*lda, or column r when trans)
                    step = 1 if dot.lhs.trans else dot.lhs.ld
                    pa = b.gep(pa, [b.mul(lo, u.i64(step))], source_etype=ety)
                    po = b.gep(po, [b.mul(lo, u.i64(max(1, dot.n)))], source_etype=ety)
                    m, n = count, u.i64(dot.n)
                else:  # columns lo..hi of B (B's column j: j, or row j*ldb when trans)
                    step = dot.rhs.ld if dot.rhs.trans else 1
                    pc = b.gep(pc, [b.mul(lo, u.i64(step))], source_etype=ety)
                    po = b.gep(po, [lo], source_etype=ety)
                    m, n = u.i64(dot.m), count
                b.call(gemm, [ir.Constant(u.I32, ROW_MAJOR), _trans(dot.lhs), _trans(dot.rhs),
                              m, n, u.i64(dot.k), one, pa, u.i64(dot.lhs.ld), pc,
                              u.i64(dot.rhs.ld), zero, po, u.i64(max(1, dot.n))])

    parallel.with_ftz(b, True, body)
    b.ret_void()
    return fn


def _operands(b: ir.IRBuilder, dot: BlasDot, lhs: ir.Value, rhs: ir.Value,
              scratch: ir.Value) -> tuple[ir.Value, ir.Value]:
    """The pointers the split forms read the operands from: each packed into its scratch
    area (on the calling thread) or read in place."""
    offsets = dot.scratch_offsets
    return (_pack_only(b, dot.lhs, lhs, b.gep(scratch, [u.i64(offsets[0])], source_etype=u.I8),
                       dot.dtype),
            _pack_only(b, dot.rhs, rhs, b.gep(scratch, [u.i64(offsets[1])], source_etype=u.I8),
                       dot.dtype))


def _pack_only(b: ir.IRBuilder, op: Operand, src: ir.Value, area: ir.Value,
               dtype: PrimitiveType) -> ir.Value:
    """The pointer BLAS reads an operand from: packed into `area` or `src` itself."""
    if op.pack:
        _pack(b, op, src, area, dtype)
        return area
    return src


def _prepare(b: ir.IRBuilder, op: Operand, src: ir.Value, area: ir.Value, scan: ir.Function,
             flush: ir.Function, dtype: PrimitiveType) -> ir.Value:
    """The pointer BLAS reads an operand from: packed into `area`, or `src` itself unless
    it holds denormals (then a flushed copy in `area`)."""
    if op.pack:
        _pack(b, op, src, area, dtype)
        return area
    n = u.i64(op.size)
    dirty = b.call(scan, [src, n])
    with b.if_then(dirty):
        b.call(flush, [area, src, n])
    return b.select(dirty, area, src)


def _pack(b: ir.IRBuilder, op: Operand, src: ir.Value, dst: ir.Value,
          dtype: PrimitiveType) -> None:
    """dst (contiguous, dims in `op.perm` order) = src transposed, denormals flushed."""
    emit_permute(b, op.dims, op.perm, src, dst, dtype)


def emit_permute(b: ir.IRBuilder, dims: tuple[int, ...], perm: tuple[int, ...], src: ir.Value,
                 dst: ir.Value, dtype: PrimitiveType) -> None:
    """dst = src (row-major `dims`) transposed by `perm` (numpy.transpose's), contiguous,
    denormals flushed (convolutions pack their operands with it too)."""
    ity = _BITS[dtype][0]
    strides = [math.prod(dims[d + 1:]) for d in range(len(dims))]
    order = [d for d in perm if dims[d] > 1]

    def level(depth: int, src_at: ir.Value, dst_at: ir.Value) -> None:
        if depth == len(order):
            bits = b.load(b.gep(src, [src_at], source_etype=ity, inbounds=True), typ=ity)
            b.store(_flushed(b, bits, dtype), b.gep(dst, [dst_at], source_etype=ity, inbounds=True))
            return
        d = order[depth]
        inner = math.prod(dims[x] for x in order[depth + 1:])
        with u.for_range(b, dims[d], name=f"p{depth}") as i:
            level(depth + 1, b.add(src_at, b.mul(i, u.i64(strides[d]))),
                  b.add(dst_at, b.mul(i, u.i64(inner))))

    level(0, u.i64(0), u.i64(0))


def _gemm(b: ir.IRBuilder, dot: BlasDot, a: ir.Value, c: ir.Value, out: ir.Value,
          ety: ir.Type) -> None:
    """out[b] = a[b] @ c[b]: one batched call, or a loop of gemm (gemv, dot) calls."""
    if dot.routine != "gemm":
        _level12(b, dot, a, c, out, ety)
        return
    prefix = _PREFIX[dot.dtype]
    one, zero = ir.Constant(ety, 1.0), ir.Constant(ety, 0.0)
    head = [ir.Constant(u.I32, ROW_MAJOR), _trans(dot.lhs), _trans(dot.rhs),
            u.i64(dot.m), u.i64(dot.n), u.i64(dot.k), one]
    if dot.stacked:
        fn = _declare(b.module, f"{prefix}gemm_batch", dot.dtype, True)
        b.call(fn, [*head, a, u.i64(dot.lhs.ld), u.i64(dot.lhs.batch_stride),
                    c, u.i64(dot.rhs.ld), u.i64(dot.rhs.batch_stride), zero,
                    out, u.i64(max(1, dot.n)), u.i64(dot.m * dot.n), u.i64(dot.nb)])
        return
    fn = _declare(b.module, f"{prefix}gemm", dot.dtype, False)

    def call(i: ir.Value) -> None:
        pa = b.gep(a, [b.mul(i, u.i64(dot.lhs.batch_stride))], source_etype=ety)
        pc = b.gep(c, [b.mul(i, u.i64(dot.rhs.batch_stride))], source_etype=ety)
        po = b.gep(out, [b.mul(i, u.i64(dot.m * dot.n))], source_etype=ety)
        b.call(fn, [*head, pa, u.i64(dot.lhs.ld), pc, u.i64(dot.rhs.ld), zero, po,
                    u.i64(max(1, dot.n))])

    if dot.nb == 1:
        call(u.i64(0))
        return
    with u.for_range(b, dot.nb, name="batch") as i:
        call(i)


def _level12(b: ir.IRBuilder, dot: BlasDot, a: ir.Value, c: ir.Value, out: ir.Value,
             ety: ir.Type) -> None:
    """Per batch, numpy.matmul's level-1/2 calls: `?dot` for a 1x1 result, else `?gemv`
    of the matrix operand (lhs for a column, rhs transposed for a row) with the other's
    vector, ColMajor+Trans when the matrix rows are contiguous, else RowMajor+Trans
    (numpy/_core/src/umath/matmul.c.src, `@TYPE@_gemv`)."""
    prefix, module = _PREFIX[dot.dtype], b.module
    if dot.routine == "gemv":  # column: lhs (m x k) times rhs's column
        (si, sj), inc, rows = dot.lhs.strides, dot.rhs.strides[0], dot.m
    else:  # row: rhs transposed (n x k) times lhs's row
        (sj, si), inc, rows = dot.rhs.strides, dot.lhs.strides[1], dot.n
    col_major = sj == 1 and si >= dot.k
    order, lda = (COL_MAJOR, si) if col_major else (ROW_MAJOR, sj)

    def call(i: ir.Value) -> None:
        pa = b.gep(a, [b.mul(i, u.i64(dot.lhs.batch_stride))], source_etype=ety)
        pc = b.gep(c, [b.mul(i, u.i64(dot.rhs.batch_stride))], source_etype=ety)
        po = b.gep(out, [b.mul(i, u.i64(dot.m * dot.n))], source_etype=ety)
        if dot.routine == "dot":
            fn = module.globals.get(f"{prefix}dot") or ir.Function(
                module, ir.FunctionType(ety, [u.I64, u.PTR, u.I64, u.PTR, u.I64]),
                name=f"{prefix}dot")
            r = b.call(fn, [u.i64(dot.k), pa, u.i64(dot.lhs.strides[1]), pc,
                            u.i64(dot.rhs.strides[0])])
            b.store(r, po)
            return
        pm, pv = (pa, pc) if dot.routine == "gemv" else (pc, pa)
        fn = module.globals.get(f"{prefix}gemv") or ir.Function(
            module, ir.FunctionType(ir.VoidType(), [u.I32, u.I32, u.I64, u.I64, ety, u.PTR, u.I64,
                                                    u.PTR, u.I64, ety, u.PTR, u.I64]),
            name=f"{prefix}gemv")
        b.call(fn, [ir.Constant(u.I32, order), ir.Constant(u.I32, TRANS), u.i64(dot.k),
                    u.i64(rows), ir.Constant(ety, 1.0), pm, u.i64(max(1, lda)), pv, u.i64(inc),
                    ir.Constant(ety, 0.0), po, u.i64(1)])

    if dot.nb == 1:
        call(u.i64(0))
        return
    with u.for_range(b, dot.nb, name="batch") as i:
        call(i)


def _trans(op: Operand) -> ir.Constant:
    return ir.Constant(u.I32, TRANS if op.trans else NO_TRANS)
