"""hlotool's own f32 gemm: packed panels and a register-blocked FMA microkernel.

`hlotool_llvm_sgemm` has CBLAS's `cblas_sgemm` signature (64-bit integers, row-major
only: C = alpha op(A) op(B) + beta C), so a dot kernel calls it where it would call
OpenBLAS (`blas.gemm_symbol`); the autotuner times both (the dot variant `gemm`:
"blas" or "llvm") and keeps the faster. It is a runtime library (compiled once per
host, then loaded from the disk cache), written in LLVM IR as BLIS structures a gemm:

* loops over blocks of `NC` columns of B, `KC` of the contraction, `MC` rows of A,
  then strips of A (kept in L1) and, inside, strips of the B block (read from L2);
* each B block is packed into strips of `NR` columns (KC x NR contiguous, zero padded),
  each A block into strips of `MR` rows (KC x MR), so the microkernel reads both
  sequentially (A and B may be transposed: packing reads them through strides);
* the microkernel keeps an MR x NR tile of C in MR * NR / VL vector registers and for
  each k broadcasts MR values of A against NR / VL vectors of B (`llvm.fma`), then
  writes the tile to C (through a stack tile at the edges).

Each element of C is one chain of fused multiply-adds over k in order (blocks of KC
continue the chain through C), so its error is within a K-term sum's bound. The tile is
chosen for the host: 12 x 32 with AVX-512 (24 of the 32 zmm registers accumulate),
6 x 16 with AVX2 (12 of 16 ymm).
"""

from __future__ import annotations

import ctypes
import functools

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.targets.llvm import irutils as u

#: The runtime entry (cblas_sgemm's signature).
SYMBOL = "hlotool_llvm_sgemm"
#: Contraction block (B strip KC x NR in L1, A block MC x KC in L2).
KC = 256
#: Columns of B per block (the packed B block, KC x NC floats = 512 KiB, in L2: the
#: microkernel keeps one A strip in L1 and streams the B strips of the block).
NC = 512
#: CBLAS constants.
_ROW_MAJOR, _TRANS = 101, 112

_F = ir.FloatType()
_I32 = ir.IntType(32)
_SIG = ir.FunctionType(ir.VoidType(), [_I32, _I32, _I32, u.I64, u.I64, u.I64, _F, u.PTR,
                                       u.I64, u.PTR, u.I64, _F, u.PTR, u.I64])


def tile(features: str) -> tuple[int, int, int]:
    """(MR, NR, VL): the microkernel's tile and vector length for a host feature string."""
    if "+avx512f" in features.split(","):
        return 12, 32, 16
    return 6, 16, 8


def _ceil_div(b: ir.IRBuilder, x: ir.Value, d: int) -> ir.Value:
    return b.udiv(b.add(x, u.i64(d - 1)), u.i64(d))


def _smin(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def _emit_pack(m: ir.Module, name: str, width: int) -> ir.Function:
    """`void name(ptr dst, ptr src, i64 s_row, i64 s_k, i64 row0, i64 rows, i64 k0,
    i64 kc)`: strips of `width` rows of src (element (r, p) at r*s_row + p*s_k), rows
    row0.. (zero past `rows`), contraction k0..k0+kc, as dst[strip][p][lane]. Whole
    strips copy without bounds checks along the contiguous dimension of src (rows
    contiguous: `width` values per p, which the loop vectorizer widens)."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR] + [u.I64] * 6), name=name)
    fn.linkage = "internal"
    dst, src, s_row, s_k, row0, rows, k0, kc = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    zero = ir.Constant(_F, 0.0)

    def put(s: ir.Value, p: ir.Value, lane: ir.Value, value: ir.Value) -> None:
        at = b.add(b.mul(b.add(b.mul(s, kc), p), u.i64(width)), lane)
        b.store(value, b.gep(dst, [at], source_etype=_F))

    def get(r: ir.Value, p: ir.Value) -> ir.Value:
        at = b.add(b.mul(b.add(row0, r), s_row), b.mul(b.add(k0, p), s_k))
        return b.load(b.gep(src, [at], source_etype=_F), typ=_F)

    with u.for_range(b, _ceil_div(b, rows, width), name="strip") as s:
        first = b.mul(s, u.i64(width))
        whole = b.icmp_signed("<=", b.add(first, u.i64(width)), rows)
        with b.if_else(whole) as (full, edge):
            with full:
                with b.if_else(b.icmp_signed("==", s_row, u.i64(1))) as (rows_in_line, k_in_line):
                    with rows_in_line:
                        with u.for_range(b, kc, name="p") as p:
                            with u.for_range(b, width, name="lane") as lane:
                                put(s, p, lane, get(b.add(first, lane), p))
                    with k_in_line:
                        with u.for_range(b, width, name="lane") as lane:
                            with u.for_range(b, kc, name="p") as p:
                                put(s, p, lane, get(b.add(first, lane), p))
            with edge:
                with u.for_range(b, kc, name="p") as p:
                    with u.for_range(b, width, name="lane") as lane:
                        r = b.add(first, lane)
                        inside = b.icmp_signed("<", r, rows)
                        v = get(b.select(inside, r, u.i64(0)), p)
                        put(s, p, lane, b.select(inside, v, zero))
    b.ret_void()
    return fn


def _emit_micro(m: ir.Module, mr: int, nr: int, vl: int) -> ir.Function:
    """`void micro(ptr ap, ptr bp, i64 kc, ptr c, i64 ldc, i64 rows, i64 cols, i1 first,
    float alpha, float beta)`: the MR x NR tile of packed strips into C (the first
    rows x cols of it lie inside C); `first`: the first contraction block (C = alpha acc + beta C, else
    C += alpha acc; beta 0 reads no C)."""
    vec = ir.VectorType(_F, vl)
    nv = nr // vl
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.I64, u.PTR, u.I64,
                                                        u.I64, u.I64, ir.IntType(1), _F, _F]),
                     name="hlotool.gemm.micro")
    fn.linkage = "internal"
    for arg in fn.args[:2]:
        arg.add_attribute("noalias")
    ap, bp, kc, c, ldc, rows, cols, first, alpha, beta = fn.args
    fma = ir.Function(m, ir.FunctionType(vec, [vec, vec, vec]), name=f"llvm.fma.v{vl}f32")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    pre = b.block
    loop, done = fn.append_basic_block("k"), fn.append_basic_block("store")
    b.cbranch(b.icmp_signed(">", kc, u.i64(0)), loop, done)
    b.position_at_end(loop)
    k = b.phi(u.I64)
    k.add_incoming(u.i64(0), pre)
    accs = [[b.phi(vec) for _ in range(nv)] for _ in range(mr)]
    for row in accs:
        for acc in row:
            acc.add_incoming(ir.Constant(vec, None), pre)
    bv = [b.load(b.gep(bp, [b.add(b.mul(k, u.i64(nr)), u.i64(j * vl))], source_etype=_F),
                 typ=vec, align=4) for j in range(nv)]
    splat = ir.Constant(ir.VectorType(_I32, vl), [0] * vl)
    new = []
    for i in range(mr):
        s = b.load(b.gep(ap, [b.add(b.mul(k, u.i64(mr)), u.i64(i))], source_etype=_F), typ=_F)
        sv = b.shuffle_vector(b.insert_element(ir.Constant(vec, ir.Undefined), s,
                                               ir.Constant(_I32, 0)),
                              ir.Constant(vec, ir.Undefined), splat)
        new.append([b.call(fma, [sv, bv[j], accs[i][j]]) for j in range(nv)])
    k_next = b.add(k, u.i64(1))
    k.add_incoming(k_next, b.block)
    for i in range(mr):
        for j in range(nv):
            accs[i][j].add_incoming(new[i][j], b.block)
    b.cbranch(b.icmp_signed("<", k_next, kc), loop, done)
    b.position_at_end(done)
    result = [[b.phi(vec) for _ in range(nv)] for _ in range(mr)]
    for i in range(mr):
        for j in range(nv):
            result[i][j].add_incoming(ir.Constant(vec, None), pre)
            result[i][j].add_incoming(new[i][j], loop)
    va = b.shuffle_vector(b.insert_element(ir.Constant(vec, ir.Undefined), alpha,
                                           ir.Constant(_I32, 0)),
                          ir.Constant(vec, ir.Undefined), splat)
    vb = b.shuffle_vector(b.insert_element(ir.Constant(vec, ir.Undefined), beta,
                                           ir.Constant(_I32, 0)),
                          ir.Constant(vec, ir.Undefined), splat)
    keep_c = b.or_(b.not_(first), b.fcmp_ordered("!=", beta, ir.Constant(_F, 0.0)))
    scale = b.select(first, vb, ir.Constant(vec, [1.0] * vl))
    full = b.and_(b.icmp_signed(">=", rows, u.i64(mr)), b.icmp_signed(">=", cols, u.i64(nr)))
    with b.goto_block(fn.entry_basic_block):
        tmp = u.stack_buffer(b, _F, mr * nr, "tile", align=64)
    with b.if_else(full) as (whole, edge):
        with whole:
            for i in range(mr):
                for j in range(nv):
                    at = b.gep(c, [b.add(b.mul(u.i64(i), ldc), u.i64(j * vl))], source_etype=_F)
                    value = b.fmul(va, result[i][j])
                    with b.if_else(keep_c) as (add, put):
                        with add:
                            old = b.load(at, typ=vec, align=4)
                            b.store(b.fadd(value, b.fmul(scale, old)), at, align=4)
                        with put:
                            b.store(value, at, align=4)
        with edge:
            for i in range(mr):
                for j in range(nv):
                    b.store(b.fmul(va, result[i][j]),
                            b.gep(tmp, [u.i64(i * nr + j * vl)], source_etype=_F), align=4)
            fscale = b.select(first, beta, ir.Constant(_F, 1.0))
            with u.for_range(b, _smin(b, rows, u.i64(mr)), name="er") as i:
                with u.for_range(b, _smin(b, cols, u.i64(nr)), name="ec") as j:
                    at = b.gep(c, [b.add(b.mul(i, ldc), j)], source_etype=_F)
                    value = b.load(b.gep(tmp, [b.add(b.mul(i, u.i64(nr)), j)],
                                         source_etype=_F), typ=_F)
                    with b.if_else(keep_c) as (add, put):
                        with add:
                            b.store(b.fadd(value, b.fmul(fscale, b.load(at, typ=_F))), at)
                        with put:
                            b.store(value, at)
    b.ret_void()
    return fn


def runtime_ir(features: str) -> str:
    """The gemm runtime module for a host feature string."""
    mr, nr, vl = tile(features)
    mc = mr * max(1, 192 // mr)
    m = ir.Module(name="hlotool.gemm")
    malloc = ir.Function(m, ir.FunctionType(u.PTR, [u.I64]), name="malloc")
    free = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR]), name="free")
    pack_a, pack_b = _emit_pack(m, "hlotool.gemm.pack_a", mr), _emit_pack(m, "hlotool.gemm.pack_b", nr)
    micro = _emit_micro(m, mr, nr, vl)
    fn = ir.Function(m, _SIG, name=SYMBOL)
    _, ta, tb, rows, cols, depth, alpha, a, lda, bm, ldb, beta, c, ldc = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    trans_a = b.icmp_signed("==", ta, ir.Constant(_I32, _TRANS))
    trans_b = b.icmp_signed("==", tb, ir.Constant(_I32, _TRANS))
    # op(A)[r, p] at r*sa_r + p*sa_k; op(B)[p, j] read as "rows" j at j*sb_r + p*sb_k.
    sa_r, sa_k = b.select(trans_a, u.i64(1), lda), b.select(trans_a, lda, u.i64(1))
    sb_r, sb_k = b.select(trans_b, ldb, u.i64(1)), b.select(trans_b, u.i64(1), ldb)
    bufs = b.call(malloc, [u.i64(4 * KC * (mc + NC + nr))])
    ap = bufs
    bp = b.gep(bufs, [u.i64(KC * mc)], source_etype=_F)
    with u.for_range(b, _ceil_div(b, cols, NC), name="jc") as jb:
        jc = b.mul(jb, u.i64(NC))
        nc = _smin(b, u.i64(NC), b.sub(cols, jc))
        with u.for_range(b, _ceil_div(b, depth, KC), name="pc") as pb:
            pc = b.mul(pb, u.i64(KC))
            kc = _smin(b, u.i64(KC), b.sub(depth, pc))
            first = b.icmp_signed("==", pb, u.i64(0))
            b.call(pack_b, [bp, bm, sb_r, sb_k, jc, nc, pc, kc])
            with u.for_range(b, _ceil_div(b, rows, mc), name="ic") as ib:
                ic = b.mul(ib, u.i64(mc))
                mcv = _smin(b, u.i64(mc), b.sub(rows, ic))
                b.call(pack_a, [ap, a, sa_r, sa_k, ic, mcv, pc, kc])
                with u.for_range(b, _ceil_div(b, mcv, mr), name="ir") as is_:
                    row0 = b.mul(is_, u.i64(mr))
                    strip_a = b.gep(ap, [b.mul(b.mul(is_, kc), u.i64(mr))], source_etype=_F)
                    with u.for_range(b, _ceil_div(b, nc, nr), name="jr") as js:
                        col0 = b.mul(js, u.i64(nr))
                        strip_b = b.gep(bp, [b.mul(b.mul(js, kc), u.i64(nr))],
                                        source_etype=_F)
                        at = b.add(b.mul(b.add(ic, row0), ldc), b.add(jc, col0))
                        b.call(micro, [strip_a, strip_b, kc,
                                       b.gep(c, [at], source_etype=_F), ldc,
                                       b.sub(mcv, row0), b.sub(nc, col0), first, alpha,
                                       beta])
    b.call(free, [bufs])
    b.ret_void()
    return str(m)


@functools.cache
def load() -> object:
    """Load (from the disk cache) or compile the gemm runtime once per process and
    register `SYMBOL`; returns the library (kept alive)."""
    from hlotool.targets.cpu.cache import runtime_library
    from hlotool.targets.cpu.jit import Pipeline, host

    libc = ctypes.CDLL(None)
    for name in ("malloc", "free"):
        llvm.add_symbol(name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
    features = host().features
    library = runtime_library("llvm_sgemm", lambda: runtime_ir(features), Pipeline.FULL)
    llvm.add_symbol(SYMBOL, library.address(SYMBOL))
    return library
