"""The register-tiled contraction of a native convolution (kernels/conv.py, tune
gemm="tiled"): im2col blocks that stay in L2, multiplied by a register-tiled LLVM
microkernel, the blocks split across the cores.

XLA:CPU runs a convolution on one core with a library kernel (../shared/docs/targets.md
Part 0). OpenBLAS is slow on the convolution's narrow gemm (n = output features, often
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
  not a multiple of VL; rows past the last multiple of MR go one by one.

Each part runs with MXCSR's FTZ/DAZ set on x86 (as XLA:CPU's threads do), so the sums
flush denormals as XLA's; the summation order is k in order, one fma per term.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from llvmlite import ir

from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu import irutils as u
from hlotool.targets.cpu.jit import host
from hlotool.targets.cpu.kernels import parallel

if TYPE_CHECKING:
    from hlotool.targets.cpu.kernels.conv import ConvForm

P = PrimitiveType
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


def emit_tiled(b: ir.IRBuilder, form: ConvForm, im2col: ir.Function, src: ir.Value,
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
    run = module.globals.get(parallel.PARALLEL_FOR) or ir.Function(
        module, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.I64, u.I64]),
        name=parallel.PARALLEL_FOR)
    b.call(run, [part, args, u.i64(blocks), u.i64(parts)])


def _emit_part(module: ir.Module, name: str, form: ConvForm, im2col: ir.Function,
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
        cols = b.alloca(ety, size=u.i64(form.chunk * form.kk), name="cols")
        cols.align = 64
    full, single = _micro(module, name, form, MR), _micro(module, name, form, 1)

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
                    b.call(im2col, [src, cols, g, r0, rows])
                kg = b.gep(ker, [b.mul(g, u.i64(form.kk * form.og))], source_etype=ety)
                out = b.gep(dst, [b.add(b.mul(r0, u.i64(form.o)), b.mul(g, u.i64(form.og)))],
                            source_etype=ety)
                _tiles(b, form, rows, block, kg, out, full, single, ety)

    parallel.with_ftz(b, x86, body)
    b.ret_void()
    return fn


def _tiles(b: ir.IRBuilder, form: ConvForm, rows: ir.Value, cols: ir.Value, kg: ir.Value,
           out: ir.Value, full: ir.Function, single: ir.Function, ety: ir.Type) -> None:
    """The microkernel calls of one block and group: MR rows at a time, then one by one."""
    tiles = b.udiv(rows, u.i64(MR))
    with u.for_range(b, tiles, name="tile") as t:
        r = b.mul(t, u.i64(MR))
        b.call(full, [b.gep(cols, [b.mul(r, u.i64(form.kk))], source_etype=ety), kg,
                      b.gep(out, [b.mul(r, u.i64(form.o))], source_etype=ety)])
    done = b.mul(tiles, u.i64(MR))
    with u.for_range(b, b.sub(rows, done), name="rest") as t:
        r = b.add(done, t)
        b.call(single, [b.gep(cols, [b.mul(r, u.i64(form.kk))], source_etype=ety), kg,
                        b.gep(out, [b.mul(r, u.i64(form.o))], source_etype=ety)])


def _micro(module: ir.Module, name: str, form: ConvForm, mr: int) -> ir.Function:
    """`void name.mr(ptr a, ptr k, ptr c)`: c[i, :og] = a[i, :kk] @ k[:kk, :og] for
    i < mr (a's rows kk apart, c's rows o apart), NV vectors of columns at a time."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.PTR]),
                     name=f"{name}.micro{mr}")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    a, k, c = fn.args
    vl, nv = vector_shape(form.dtype)
    vectors = math.ceil(form.og / vl)
    for first in range(0, vectors, nv):
        cols = [(j * vl, min(vl, form.og - j * vl)) for j in range(first, min(vectors, first + nv))]
        _column_block(b, form, mr, cols, a, k, c, vl)
    b.ret_void()
    return fn


def _column_block(b: ir.IRBuilder, form: ConvForm, mr: int, cols: list[tuple[int, int]],
                  a: ir.Value, k: ir.Value, c: ir.Value, vl: int) -> None:
    """One register tile: mr rows x the column vectors `cols` ((offset, width) each) of
    `vl` elements."""
    ety = u.F32 if form.dtype is P.F32 else u.F64
    vty = ir.VectorType(ety, vl)
    zero = ir.Constant(vty, [ir.Constant(ety, 0.0)] * vl)
    pre = b.block
    loop = b.append_basic_block("k.body")
    after = b.append_basic_block("k.end")
    b.branch(loop)
    b.position_at_end(loop)
    kk = b.phi(u.I64, name="k")
    kk.add_incoming(u.i64(0), pre)
    accs = [[b.phi(vty, name=f"acc{i}_{j}") for j in range(len(cols))] for i in range(mr)]
    for row in accs:
        for acc in row:
            acc.add_incoming(zero, pre)
    krow = b.gep(k, [b.mul(kk, u.i64(form.og))], source_etype=ety)
    bv = [_load(b, b.gep(krow, [u.i64(off)], source_etype=ety), vty, width)
          for off, width in cols]
    new = []
    for i in range(mr):
        s = b.load(b.gep(a, [b.add(kk, u.i64(i * form.kk))], source_etype=ety), typ=ety)
        splat = b.shuffle_vector(b.insert_element(ir.Constant(vty, ir.Undefined), s, u.i64(0)),
                                 ir.Constant(vty, ir.Undefined),
                                 ir.Constant(ir.VectorType(u.I32, vl), [0] * vl))
        fma = _declare(b.module, f"llvm.fma.{_mangle(vty)}", vty, [vty, vty, vty])
        new.append([b.call(fma, [splat, v, acc]) for v, acc in zip(bv, accs[i], strict=True)])
    nxt = b.add(kk, u.i64(1), flags=["nuw", "nsw"])
    kk.add_incoming(nxt, b.block)
    for row, vals in zip(accs, new, strict=True):
        for acc, v in zip(row, vals, strict=True):
            acc.add_incoming(v, b.block)
    b.cbranch(b.icmp_unsigned("<", nxt, u.i64(form.kk)), loop, after)
    b.position_at_end(after)
    for i, vals in enumerate(new):
        for (off, width), v in zip(cols, vals, strict=True):
            _store(b, v, b.gep(c, [u.i64(i * form.o + off)], source_etype=ety), width)


def _mask(vl: int, width: int) -> ir.Constant:
    return ir.Constant(ir.VectorType(u.I1, vl), [1] * width + [0] * (vl - width))


def _load(b: ir.IRBuilder, p: ir.Value, vty: ir.VectorType, width: int) -> ir.Value:
    """A vector of `width` elements at p (the rest zero)."""
    if width == vty.count:
        return b.load(p, typ=vty, align=4)
    zero = ir.Constant(vty, [ir.Constant(vty.element, 0.0)] * vty.count)
    mask = _mask(vty.count, width)
    fn = _declare(b.module, f"llvm.masked.load.{_mangle(vty)}.p0", vty,
                  [u.PTR, u.I32, mask.type, vty])
    return b.call(fn, [p, ir.Constant(u.I32, 4), mask, zero])


def _store(b: ir.IRBuilder, v: ir.Value, p: ir.Value, width: int) -> None:
    """Store the first `width` elements of v at p."""
    vty = v.type
    if width == vty.count:
        b.store(v, p, align=4)
        return
    mask = _mask(vty.count, width)
    fn = _declare(b.module, f"llvm.masked.store.{_mangle(vty)}.p0", ir.VoidType(),
                  [vty, u.PTR, u.I32, mask.type])
    b.call(fn, [v, p, ir.Constant(u.I32, 4), mask])


def _declare(module: ir.Module, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    fn = module.globals.get(name)
    return fn if fn is not None else ir.Function(module, ir.FunctionType(ret, args), name=name)


def _mangle(vty: ir.VectorType) -> str:
    return f"v{vty.count}{'f32' if isinstance(vty.element, ir.FloatType) else 'f64'}"
