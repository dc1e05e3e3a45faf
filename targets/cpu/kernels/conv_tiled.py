"""The register-tiled contraction of a native convolution (kernels/conv.py, tune
gemm="tiled"): im2col blocks that stay in L2, multiplied by a register-tiled LLVM
microkernel, the blocks split across the cores.

XLA:CPU runs a convolution on one core with a library kernel (measured
when the CPU target was designed). OpenBLAS is slow on the convolution's narrow gemm (n = output features, often
64: ~45 GFLOP/s on one core for 25088x576 @ 576x64, measured on a busy development
machine; it also re-packs the whole 58 MiB im2col matrix, and each call's threads cost
milliseconds there), so the kernel does the contraction itself, as Goto's algorithm
does, the im2col being the packing:

* the rows (batch, output position) are cut into blocks of `ConvForm.chunk` rows whose
  im2col matrix [rows, kk] (kk = window positions x input features of a group) fits
  in L2 (`TILE_BYTES`); `hlotool_parallel_for` (kernels/parallel.py) hands blocks to
  the threads, each packing its block into its own stack buffer;
* a 1x1 convolution without strides, dilations, padding or groups whose lhs is
  [batch, spatial..., c] is its own im2col matrix: read in place (x86, where DAZ makes
  the microkernel read denormals as zero);
* per block and group, MR rows x (NV vectors of VL elements) of output are one
  microkernel call (`vector_shape`): MR * NV sums in registers (16 zmm), per k one
  vector load of the packed kernel row per column vector, one broadcast per row and
  MR * NV fused multiply-adds; the last column vector of a group is masked when og is
  not a multiple of VL; the last tile of a block may have fewer than MR rows (the
  kernel computes the missing ones from the first and stores only the real ones);
* the microkernels are a runtime library (`runtime`: compiled once per process per
  element type, for 1..NV column vectors, whole or masked), taking kk, the row strides
  and the last vector's width as arguments, as XLA:CPU calls library kernels: a
  convolution's own code is its packing and tile loops, which compile in a few
  milliseconds (bench/cpu.py's conv: 50 ms of LLVM per convolution before).

Each part runs with MXCSR's FTZ/DAZ set on x86 (as XLA:CPU's threads do), so the sums
flush denormals as XLA's; the summation order is k in order, one fma per term.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.ir.types import PrimitiveType
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.jit import host
from hlotool.targets.cpu.kernels import parallel

if TYPE_CHECKING:
    from hlotool.targets.cpu.kernels.conv import ConvForm, Im2col

P = PrimitiveType
_ELEMENT = {P.F32: u.F32, P.F64: u.F64}
#: Rows of output per microkernel call.
MR = 4
#: Bytes of one im2col block (packed per thread, kept in the 1 MiB L2).
TILE_BYTES = 256 << 10
#: Largest block buffer on a thread's stack (bigger rows: the BLAS path).
MAX_BLOCK_BYTES = 512 << 10


def vector_shape(dtype: PrimitiveType) -> tuple[int, int]:
    """(elements per vector, vectors of output features per microkernel call): 64-byte
    vectors, 4 per call (MR * 4 = 16 of the 32 zmm registers hold sums) with AVX-512;
    else 32-byte vectors, 2 per call (8 of 16 registers: AVX2 and others). Six rows of
    four zmm (24 sums) spill in LLVM's register allocation; four rows do not."""
    wide = "+avx512f" in host().features.split(",")
    vector_bytes = 64 if wide else 32
    return vector_bytes // (4 if dtype is P.F32 else 8), 4 if wide else 2


def block_rows(rows: int, kk: int, itemsize: int) -> int:
    """Rows of one im2col block: a multiple of MR within TILE_BYTES (at least MR)."""
    block = max(MR, TILE_BYTES // (kk * itemsize) // MR * MR)
    return min(block, -(-rows // MR) * MR)


def emit_tiled(b: ir.IRBuilder, form: ConvForm, im2col: Im2col, src: ir.Value,
               ker: ir.Value, dst: ir.Value, symbol: str, x86: bool) -> None:
    """dst [rows, o] = the convolution, from src (lhs as [n, spatial..., c]) and ker
    (packed [groups, kk, og]); emitted where `b` stands."""
    module = b.module
    part = _emit_part(module, f"{symbol}.part", form, im2col, x86)
    blocks = -(-form.rows // form.chunk)
    args = b.alloca(u.PTR, size=u.i64(3), name="part.args")
    for k, v in enumerate((src, ker, dst)):
        b.store(v, b.gep(args, [u.i64(k)], source_etype=u.PTR))
    parts = parallel.max_parts(blocks, 2 * form.rows * form.kk * form.o)
    if parts <= 1:
        b.call(part, [args, u.i64(0), u.i64(blocks)])
        return
    parallel.call_parallel_for(b, part, args, blocks, parts)


def _emit_part(module: ir.Module, name: str, form: ConvForm, im2col: Im2col,
               x86: bool) -> ir.Function:
    """`void name(void **(src, ker, dst), i64 begin, i64 end)`: blocks [begin, end)."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64]), name=name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    args, begin, end = fn.args
    src, ker, dst = (b.load(b.gep(args, [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
                     for k in range(3))
    ety = u.F32 if form.dtype is P.F32 else u.F64
    # With DAZ set (x86) a plain [rows, c] lhs is read in place (no im2col copy).
    direct = x86 and form.plain_rows
    if not direct:
        cols = u.stack_buffer(b, ety, form.chunk * form.kk, "cols", align=64)

    def body() -> None:
        with u.for_range(b, b.sub(end, begin), name="block") as i:
            r0 = b.mul(b.add(begin, i), u.i64(form.chunk))
            left = b.sub(u.i64(form.rows), r0)
            rows = b.select(b.icmp_signed("<", left, u.i64(form.chunk)), left,
                            u.i64(form.chunk))
            with u.for_range(b, form.groups, name="g") as g:
                if direct:
                    block = b.gep(src, [b.mul(r0, u.i64(form.kk))], source_etype=ety)
                else:
                    block = cols
                    im2col(b, src, cols, g, r0, rows)
                kg = b.gep(ker, [b.mul(g, u.i64(form.kk * form.og))], source_etype=ety)
                out = b.gep(dst, [b.add(b.mul(r0, u.i64(form.o)), b.mul(g, u.i64(form.og)))],
                            source_etype=ety)
                _tiles(b, form, rows, block, kg, out, ety)

    parallel.with_ftz(b, x86, body)
    b.ret_void()
    return fn


def _tiles(b: ir.IRBuilder, form: ConvForm, rows: ir.Value, cols: ir.Value, kg: ir.Value,
           out: ir.Value, ety: ir.Type) -> None:
    """The microkernel calls of one block and group, MR rows per tile (the last tile
    may have fewer: the kernel takes how many)."""
    with u.for_range(b, b.udiv(b.add(rows, u.i64(MR - 1)), u.i64(MR)), name="tile") as t:
        r = b.mul(t, u.i64(MR))
        left = b.sub(rows, r)
        m = b.select(b.icmp_signed("<", left, u.i64(MR)), left, u.i64(MR))
        _micro_calls(b, form, b.gep(cols, [b.mul(r, u.i64(form.kk))], source_etype=ety), kg,
                     b.gep(out, [b.mul(r, u.i64(form.o))], source_etype=ety), m, ety)


def _micro_calls(b: ir.IRBuilder, form: ConvForm, a: ir.Value, k: ir.Value, c: ir.Value,
                 m: ir.Value, ety: ir.Type) -> None:
    """c[i, :og] = a[i, :kk] @ k[:kk, :og] for i < m <= MR: one runtime microkernel call
    per block of up to NV column vectors."""
    vl, nv = vector_shape(form.dtype)
    runtime(form.dtype, vl, nv)
    vectors = math.ceil(form.og / vl)
    for first in range(0, vectors, nv):
        count = min(nv, vectors - first)
        width = min(vl, form.og - (first + count - 1) * vl)
        name = micro_symbol(form.dtype, vl, count, width < vl)
        fn = b.module.globals.get(name) or ir.Function(b.module, _MICRO, name=name)
        at = u.i64(first * vl)
        b.call(fn, [a, b.gep(k, [at], source_etype=ety), b.gep(c, [at], source_etype=ety),
                    u.i64(form.kk), u.i64(form.og), u.i64(form.o), u.i64(width), m])


# -- the runtime microkernels ---------------------------------------------------------------

#: `void micro(ptr a, ptr k, ptr c, i64 kk, i64 ldk, i64 ldc, i64 width, i64 m)`:
#: c[i * ldc + j] = sum over p < kk of a[i * kk + p] * k[p * ldk + j], for i < m (1 to
#: MR) and j < (vectors - 1) * VL + width. Rows past m are computed from row 0 (always
#: readable) and not stored.
_MICRO = ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.PTR, *[u.I64] * 5])


def micro_symbol(dtype: PrimitiveType, vl: int, vectors: int, masked: bool) -> str:
    """The runtime microkernel of `vectors` column vectors of `vl` lanes, the last one
    masked to its `width` argument or whole."""
    t = "f32" if dtype is P.F32 else "f64"
    return f"hlotool_conv_micro_{t}x{vl}_{vectors}{'m' if masked else ''}"


@functools.cache
def runtime(dtype: PrimitiveType, vl: int, nv: int) -> Any:
    """Load (from the disk cache) or compile the microkernels of `dtype` with `vl`-lane
    vectors once per process (one library, lean pipeline: 1..nv column vectors, whole
    or masked) and register their symbols.

    The contraction depends on the convolution only through kk, the row strides and
    the last vector's width, which the kernels take as arguments, so every
    convolution's code calls these (as XLA:CPU calls its library kernels): a
    convolution compiles only its packing and tile loops."""
    from hlotool.targets.cpu.cache import runtime_library
    from hlotool.targets.cpu.jit import Pipeline

    kernels = [(micro_symbol(dtype, vl, n, masked), n, masked)
               for n in range(1, nv + 1) for masked in (False, True)]

    def text() -> str:
        module = ir.Module(name="hlotool_conv_micro")
        for name, n, masked in kernels:
            _emit_micro(module, name, ir.VectorType(_ELEMENT[dtype], vl), n, masked)
        return str(module)

    library = runtime_library(f"conv_micro_{dtype.name}x{vl}_{nv}", text, Pipeline.LEAN)
    for name, _, _ in kernels:
        llvm.add_symbol(name, library.address(name))
    return library  # kept alive for the life of the process


def _emit_micro(module: ir.Module, name: str, vty: ir.VectorType, vectors: int,
                masked: bool) -> None:
    """One register tile: MR rows x `vectors` column vectors of `vty`, summed over p in
    order (one fma per term)."""
    fn = ir.Function(module, _MICRO, name=name)
    fn.attributes.add("nounwind")
    a, k, c, kk, ldk, ldc, width, m = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    vl, ety = vty.count, vty.element
    zero = ir.Constant(vty, None)  # zeroinitializer: short IR text to print and parse
    mask = None
    if masked:
        lanes = ir.Constant(ir.VectorType(u.I64, vl), list(range(vl)))
        mask = b.icmp_unsigned("<", lanes, u.splat(b, width, ir.VectorType(u.I64, vl)))
    masks = [mask if masked and j == vectors - 1 else None for j in range(vectors)]
    rows = [b.gep(a, [b.select(b.icmp_signed("<", u.i64(i), m), b.mul(u.i64(i), kk), u.i64(0))],
                  source_etype=ety) if i else a for i in range(MR)]
    pre = b.block
    loop = b.append_basic_block("k.body")
    after = b.append_basic_block("k.end")
    b.branch(loop)
    b.position_at_end(loop)
    p = b.phi(u.I64, name="p")
    p.add_incoming(u.i64(0), pre)
    accs = [[b.phi(vty, name=f"acc{i}_{j}") for j in range(vectors)] for i in range(MR)]
    for row in accs:
        for acc in row:
            acc.add_incoming(zero, pre)
    krow = b.gep(k, [b.mul(p, ldk)], source_etype=ety)
    bv = [u.vector_load(b, b.gep(krow, [u.i64(j * vl)], source_etype=ety), vty, m)
          for j, m in enumerate(masks)]
    new = []
    for i in range(MR):
        s = b.load(b.gep(rows[i], [p], source_etype=ety), typ=ety)
        splat = u.splat(b, s, vty)
        new.append([u.intrinsic(b, "llvm.fma", vty, [splat, v, acc])
                    for v, acc in zip(bv, accs[i], strict=True)])
    nxt = b.add(p, u.i64(1), flags=["nuw", "nsw"])
    p.add_incoming(nxt, b.block)
    for row, vals in zip(accs, new, strict=True):
        for acc, v in zip(row, vals, strict=True):
            acc.add_incoming(v, b.block)
    b.cbranch(b.icmp_unsigned("<", nxt, kk), loop, after)
    b.position_at_end(after)
    done = b.append_basic_block("done")
    for i, vals in enumerate(new):
        if i:  # row 0 always exists; once a row is past m, so are the rest
            store = b.append_basic_block(f"store{i}")
            b.cbranch(b.icmp_signed("<", u.i64(i), m), store, done)
            b.position_at_end(store)
        crow = b.gep(c, [b.mul(u.i64(i), ldc)], source_etype=ety)
        for j, (v, mask) in enumerate(zip(vals, masks, strict=True)):
            u.vector_store(b, v, b.gep(crow, [u.i64(j * vl)], source_etype=ety), mask)
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()

