"""hlotool's own f32 gemm: packed B panels and a register-blocked FMA microkernel, split
across hlotool's threads.

Two entries, compiled once per host as a runtime library (then loaded from the disk
cache), written in LLVM IR:

* `PARALLEL_SYMBOL` (C[i] = op(A[i]) op(B[i]) for a batch of row-major matrices) is what
  large f32 dots call on hosts with AVX-512 (`blas.own_gemm`). Each C is cut into tiles
  (strips of NR columns times row groups, `_groups`) that one `hlotool_parallel_for` over
  all the batches hands to the threads, each with FTZ/DAZ set as XLA:CPU's threads run;
* `SYMBOL` has CBLAS's `cblas_sgemm` signature (alpha, beta) and runs on the calling
  thread (the tests check the kernels through it).

A tile of C is computed as BLIS structures a gemm: blocks of `NC` of its columns and `KC`
of the contraction; each B block is packed into strips of `NR` columns (KC x NR
contiguous, zero padded: it stays in L2), A is read in place when its rows are contiguous
along the contraction (else packed block by block, `MC_ROWS` rows); for each strip of MR
rows of A (in L1) the microkernel runs over the block's B strips, keeping an MR x NR
tile of C in MR * NR / VL vector registers: for each k it broadcasts MR values of A
against NR / VL vectors of B (`llvm.fma`), then writes the tile to C (through a stack
tile at the edges). Each tile packs only its own columns of B and reads its own rows of
A, so the threads share the packing instead of repeating it (OpenBLAS split by columns
packs all of A in every part).

Each element of C is, per contraction block of KC, one chain of fused multiply-adds over
k in order, and the blocks' sums are added into C in order: the result depends on KC
only, not on the tiles, the threads or the operands' layout, and its error is within a
K-term sum's bound. It is not OpenBLAS's order, so such dots differ from the
interpreter's numpy.matmul in the last bits (tests assert the contraction bound). The
tile is chosen for the host: 6 x 64 with AVX-512 (24 of the 32 zmm registers accumulate;
on Zen 4 it ran ahead of 12 x 32, 14 x 32, 8 x 48 and 4 x 96), 6 x 16 with AVX2 (12 of
16 ymm; not used by dots: on large shapes it ran 1.1-1.6x the time of OpenBLAS's Haswell
kernels).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from dataclasses import dataclass

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.transpose import transpose

#: The runtime entry (cblas_sgemm's signature).
SYMBOL = "hlotool_llvm_sgemm"
#: Contraction block (an A strip, MR x KC, in L1).
KC = 512
#: Columns of B per block (the packed B block, KC x NC floats = 512 KiB, in L2: the
#: microkernel keeps one A strip in L1 and streams the B strips of the block). KC and NC
#: were timed on Zen 4 (256 x 512, 384 x 256 and 512 x 256 within 3% of each other).
NC = 256
#: Rows of A per packed block when A is transposed (rounded down to a multiple of MR).
MC_ROWS = 192
#: Contraction steps ahead at which the microkernel prefetches its B strip into L1 (the
#: strip, KC x NR, is larger than L1 and streams from L2 every call). On the Intel
#: AVX-512 host of 2026-12-07 (bench/gemm.py's shapes, A/B in one process) it made the
#: MLP's dots 256x1024x512 and 256x1024x1024 7-9% faster and 1024^3 0-9%; 2 to 48 steps
#: were within 2% of each other, prefetching A's rows as well was slower.
PREFETCH_B = 8
#: The parallel entry: `void (i32 trans_a, i32 trans_b, i64 m, i64 n, i64 k, ptr a,
#: i64 lda, ptr b, i64 ldb, ptr c, i64 ldc, i64 batches, i64 stride_a, i64 stride_b,
#: i64 stride_c)`: C[i] = op(A[i]) op(B[i]) (row-major; matrix i at i * stride floats).
PARALLEL_SYMBOL = "hlotool_llvm_sgemm_parallel"
#: The parallel entry with an epilogue: PARALLEL_SYMBOL's arguments, then `ptr epilogue,
#: ptr context`; each thread calls `epilogue(context, batch, r0, r1, c0, c1)` (EPILOGUE_TYPE)
#: on every block of C it finished, rows r0..r1 and columns c0..c1 of matrix `batch`,
#: while the block is in its L2 (an output fusion's elementwise epilogue, in place).
EPILOGUE_SYMBOL = "hlotool_llvm_sgemm_parallel_epilogue"
#: Tiles of C per thread the parallel entry cuts at least (for balance on a busy host).
CHUNKS = 4
#: CBLAS constants.
_ROW_MAJOR, _TRANS = 101, 112

_F = ir.FloatType()
_I32 = ir.IntType(32)
_SIG = ir.FunctionType(ir.VoidType(), [_I32, _I32, _I32, u.I64, u.I64, u.I64, _F, u.PTR,
                                       u.I64, u.PTR, u.I64, _F, u.PTR, u.I64])
PARALLEL_TYPE = ir.FunctionType(ir.VoidType(), [_I32, _I32, u.I64, u.I64, u.I64, u.PTR, u.I64,
                                                u.PTR, u.I64, u.PTR, u.I64, u.I64, u.I64, u.I64,
                                                u.I64])
EPILOGUE_ENTRY_TYPE = ir.FunctionType(ir.VoidType(), [*PARALLEL_TYPE.args, u.PTR, u.PTR])
#: `void epilogue(ptr context, i64 batch, i64 r0, i64 r1, i64 c0, i64 c1)`.
EPILOGUE_TYPE = ir.FunctionType(ir.VoidType(), [u.PTR] + [u.I64] * 5)
_PART = ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64])


def tile(features: str) -> tuple[int, int, int]:
    """(MR, NR, VL): the microkernel's tile and vector length for a host feature string."""
    if "+avx512f" in features.split(","):
        return 6, 64, 16
    return 6, 16, 8


def _ceil_div(b: ir.IRBuilder, x: ir.Value, d: int) -> ir.Value:
    return b.udiv(b.add(x, u.i64(d - 1)), u.i64(d))


def _ceil_div_v(b: ir.IRBuilder, x: ir.Value, d: ir.Value) -> ir.Value:
    return b.sdiv(b.add(x, b.sub(d, u.i64(1))), d)


def _smin(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def _emit_pack(m: ir.Module, name: str, width: int, vl: int) -> ir.Function:
    """`void name(ptr dst, ptr src, i64 s_row, i64 s_k, i64 row0, i64 rows, i64 k0,
    i64 kc)`: strips of `width` rows of src (element (r, p) at r*s_row + p*s_k), rows
    row0.. (zero past `rows`), contraction k0..k0+kc, as dst[strip][p][lane]. Whole
    strips copy without bounds checks along the contiguous dimension of src: rows
    contiguous, `width` values per p, which the loop vectorizer widens; the
    contraction contiguous (a transposed B, as x @ w.T reads w), by blocks of `vl` rows
    times `vl` values transposed in registers (`_pack_transposed`)."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR] + [u.I64] * 6), name=name)
    fn.linkage = "internal"
    dst, src, s_row, s_k, row0, rows, k0, kc = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    zero = ir.Constant(_F, 0.0)

    def packed(s: ir.Value, p: ir.Value, lane: ir.Value) -> ir.Value:
        at = b.add(b.mul(b.add(b.mul(s, kc), p), u.i64(width)), lane)
        return b.gep(dst, [at], source_etype=_F)

    def element(r: ir.Value, p: ir.Value) -> ir.Value:
        at = b.add(b.mul(b.add(row0, r), s_row), b.mul(b.add(k0, p), s_k))
        return b.gep(src, [at], source_etype=_F)

    def put(s: ir.Value, p: ir.Value, lane: ir.Value, value: ir.Value) -> None:
        b.store(value, packed(s, p, lane))

    def get(r: ir.Value, p: ir.Value) -> ir.Value:
        return b.load(element(r, p), typ=_F)

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
                        if width % vl == 0:
                            _pack_transposed(b, vl, kc, width, lambda r, p: element(
                                b.add(first, r), p), lambda q, p: packed(s, p, q))
                        else:
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


def _pack_transposed(b: ir.IRBuilder, vl: int, kc: ir.Value, width: int,
                     source: Callable[[ir.Value, ir.Value], ir.Value],
                     target: Callable[[ir.Value, ir.Value], ir.Value]) -> None:
    """A whole strip whose rows are contiguous along the contraction (s_k = 1): for each
    `vl` lanes and `vl` steps of the contraction, `vl` row loads, a register transpose
    and `vl` stores of one step's lanes (the scalar copy it replaces wrote one element
    per step at the strip's stride: x @ w.T of 256x1024x1024 ran 1.5x the time of
    x @ w); the steps past the last whole block one element at a time. `source(r, p)`
    points at element p of the strip's row r, `target(lane, p)` at its packed place."""
    vty = ir.VectorType(_F, vl)
    blocks = b.udiv(kc, u.i64(vl))
    with u.for_range(b, width // vl, name="lanes") as g:
        lane0 = b.mul(g, u.i64(vl))
        with u.for_range(b, blocks, name="pblock") as pb:
            p0 = b.mul(pb, u.i64(vl))
            rows = [u.vector_load(b, source(b.add(lane0, u.i64(r)), p0), vty) for r in range(vl)]
            for q, column in enumerate(transpose(b, rows)):
                u.vector_store(b, column, target(lane0, b.add(p0, u.i64(q))))
        with u.for_range(b, b.sub(kc, b.mul(blocks, u.i64(vl))), name="ptail") as t:
            p = b.add(b.mul(blocks, u.i64(vl)), t)
            with u.for_range(b, vl, name="lane") as lane:
                q = b.add(lane0, lane)
                b.store(b.load(source(q, p), typ=_F), target(q, p))


def _emit_micro(m: ir.Module, mr: int, nr: int, vl: int, width: int) -> ir.Function:
    """`void micro(ptr a, i64 a_row, i64 a_k, ptr bp, i64 kc, ptr c, i64 ldc, i64 rows,
    i64 cols, i1 first, float alpha, float beta)`: the MR x NR tile of C (its first rows x
    cols lie inside C) from an A strip (element (r, p) at r*a_row + p*a_k: packed, or A
    itself, rows past `rows` read as row rows-1) and a packed B strip; `first`: the first
    contraction block (C = alpha acc + beta C, else C += alpha acc; beta 0 reads no C).
    It computes the first `width` (a multiple of VL, up to NR) columns of the strip: the
    narrower kernels take a B strip's last columns."""
    vec = ir.VectorType(_F, vl)
    nv = width // vl
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64, u.PTR, u.I64, u.PTR,
                                                        u.I64, u.I64, u.I64, ir.IntType(1), _F,
                                                        _F]),
                     name=f"hlotool.gemm.micro{width}")
    fn.linkage = "internal"
    fn.args[0].add_attribute("noalias")
    fn.args[3].add_attribute("noalias")
    ap, a_row, a_k, bp, kc, c, ldc, rows, cols, first, alpha, beta = fn.args
    fma = m.globals.get(f"llvm.fma.v{vl}f32") or ir.Function(
        m, ir.FunctionType(vec, [vec, vec, vec]), name=f"llvm.fma.v{vl}f32")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    prefetch = m.globals.get("llvm.prefetch.p0") or ir.Function(
        m, ir.FunctionType(ir.VoidType(), [u.PTR, _I32, _I32, _I32]), name="llvm.prefetch.p0")
    for i in range(mr):  # the tile of C, for writing once the contraction is done
        for j in range(0, width, 16):
            at = b.gep(c, [b.add(b.mul(u.i64(i), ldc), u.i64(j))], source_etype=_F)
            b.call(prefetch, [at, ir.Constant(_I32, 1), ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
    last = b.sub(rows, u.i64(1))
    a_rows = [b.gep(ap, [b.mul(_smin(b, u.i64(i), last), a_row)], source_etype=_F)
              for i in range(mr)]
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
    ahead = b.mul(b.add(k, u.i64(PREFETCH_B)), u.i64(nr))
    for j in range(0, width, 16):  # the B strip's lines PREFETCH_B steps ahead, into L1
        at = b.gep(bp, [b.add(ahead, u.i64(j))], source_etype=_F)
        b.call(prefetch, [at, ir.Constant(_I32, 0), ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
    ak = b.mul(k, a_k)
    splat = ir.Constant(ir.VectorType(_I32, vl), [0] * vl)
    new = []
    for i in range(mr):
        s = b.load(b.gep(a_rows[i], [ak], source_etype=_F), typ=_F)
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
    full = b.and_(b.icmp_signed(">=", rows, u.i64(mr)), b.icmp_signed(">=", cols, u.i64(width)))
    with b.goto_block(fn.entry_basic_block):
        tmp = u.stack_buffer(b, _F, mr * width, "tile", align=64)
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
                            b.gep(tmp, [u.i64(i * width + j * vl)], source_etype=_F), align=4)
            fscale = b.select(first, beta, ir.Constant(_F, 1.0))
            with u.for_range(b, _smin(b, rows, u.i64(mr)), name="er") as i:
                with u.for_range(b, _smin(b, cols, u.i64(width)), name="ec") as j:
                    at = b.gep(c, [b.add(b.mul(i, ldc), j)], source_etype=_F)
                    value = b.load(b.gep(tmp, [b.add(b.mul(i, u.i64(width)), j)],
                                         source_etype=_F), typ=_F)
                    with b.if_else(keep_c) as (add, put):
                        with add:
                            b.store(b.fadd(value, b.fmul(fscale, b.load(at, typ=_F))), at)
                        with put:
                            b.store(value, at)
    b.ret_void()
    return fn


@dataclass(frozen=True, slots=True)
class _Kernels:
    """The runtime's internal functions and its tile."""

    mr: int
    nr: int
    mc: int
    pack_a: ir.Function
    pack_b: ir.Function
    #: The microkernels by the vectors of columns they compute (1 .. NR / VL).
    micros: tuple[ir.Function, ...]


#: The argument record of the column function (`void **`; integers as pointers, alpha
#: and beta as their bits).
_ARGS = ("ta", "tb", "m", "n", "k", "alpha", "a", "lda", "b", "ldb", "beta", "c", "ldc",
         "strips", "group_rows", "groups", "stride_a", "stride_b", "stride_c", "epilogue",
         "context")
_POINTERS = ("a", "b", "c", "epilogue", "context")


def _unpack_args(b: ir.IRBuilder, args: ir.Value) -> dict[str, ir.Value]:
    values = {}
    for i, name in enumerate(_ARGS):
        v = b.load(b.gep(args, [u.i64(i)], source_etype=u.PTR), typ=u.PTR)
        values[name] = v if name in _POINTERS else b.ptrtoint(v, u.I64)
    for name in ("ta", "tb"):
        values[name] = b.trunc(values[name], _I32)
    for name in ("alpha", "beta"):
        values[name] = b.bitcast(b.trunc(values[name], _I32), _F)
    return values


def _pack_args(b: ir.IRBuilder, values: list[ir.Value]) -> ir.Value:
    """The argument record (`_ARGS` order) of the entry's arguments, on the stack."""
    args = b.alloca(u.PTR, size=u.i64(len(_ARGS)))
    for i, (name, value) in enumerate(zip(_ARGS, values, strict=True)):
        if name in ("alpha", "beta"):
            value = b.zext(b.bitcast(value, _I32), u.I64)
        ptr = value if name in _POINTERS else b.inttoptr(b.sext(value, u.I64) if value.type == _I32 else value, u.PTR)
        b.store(ptr, b.gep(args, [u.i64(i)], source_etype=u.PTR))
    return args


def _emit_columns(m: ir.Module, kn: _Kernels, malloc: ir.Function,
                  free: ir.Function) -> ir.Function:
    """`void columns(void **args, ptr a, ptr b, ptr c, i64 r0, i64 r1, i64 s0, i64 s1,
    i64 batch)`: rows r0..r1 of C's strips s0..s1 of NR columns (of the matrices at a, b,
    c, matrix `batch`): block by block of the contraction (KC) and of those columns (NC),
    the B block packed into a buffer of this call (it stays in L2), A read in place when
    its rows are contiguous along the contraction, else packed block by block (MC rows).
    With an epilogue in `args`, each MC x NC block of C is passed to it once the last
    contraction block has been added."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR] * 4 + [u.I64] * 5),
                     name="hlotool.gemm.columns")
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    v = _unpack_args(b, fn.args[0])
    v["a"], v["b"], v["c"] = fn.args[1:4]
    r0, r1, s0, s1, batch = fn.args[4:]
    epilogue = b.icmp_unsigned("!=", b.ptrtoint(v["epilogue"], u.I64), u.i64(0))
    last_pc = b.sub(_ceil_div(b, v["k"], KC), u.i64(1))
    trans_a = b.icmp_signed("==", v["ta"], ir.Constant(_I32, _TRANS))
    trans_b = b.icmp_signed("==", v["tb"], ir.Constant(_I32, _TRANS))
    # op(A)[r, p] at r*sa_r + p*sa_k; op(B)[p, j] read as "rows" j at j*sb_r + p*sb_k.
    sa_r, sa_k = b.select(trans_a, u.i64(1), v["lda"]), b.select(trans_a, v["lda"], u.i64(1))
    sb_r, sb_k = b.select(trans_b, v["ldb"], u.i64(1)), b.select(trans_b, u.i64(1), v["ldb"])
    col_end = _smin(b, b.mul(s1, u.i64(kn.nr)), v["n"])
    bufs = b.call(malloc, [u.i64(4 * KC * (NC + kn.mc))])
    bp, ap = bufs, b.gep(bufs, [u.i64(KC * NC)], source_etype=_F)
    with u.for_range(b, _ceil_div(b, b.sub(col_end, b.mul(s0, u.i64(kn.nr))), NC), name="jc") as jb:
        jc = b.add(b.mul(s0, u.i64(kn.nr)), b.mul(jb, u.i64(NC)))
        nc = _smin(b, u.i64(NC), b.sub(col_end, jc))
        with u.for_range(b, _ceil_div(b, v["k"], KC), name="pc") as pb:
            pc = b.mul(pb, u.i64(KC))
            kc = _smin(b, u.i64(KC), b.sub(v["k"], pc))
            first = b.icmp_signed("==", pb, u.i64(0))
            b.call(kn.pack_b, [bp, v["b"], sb_r, sb_k, jc, nc, pc, kc])
            with u.for_range(b, _ceil_div(b, b.sub(r1, r0), kn.mc), name="ic") as ib:
                ic = b.add(r0, b.mul(ib, u.i64(kn.mc)))
                mcv = _smin(b, u.i64(kn.mc), b.sub(r1, ic))
                with b.if_then(trans_a):
                    b.call(kn.pack_a, [ap, v["a"], sa_r, sa_k, ic, mcv, pc, kc])
                in_place = b.gep(v["a"], [b.add(b.mul(ic, sa_r), pc)], source_etype=_F)
                with u.for_range(b, _ceil_div(b, mcv, kn.mr), name="ir") as is_:
                    r0 = b.mul(is_, u.i64(kn.mr))
                    packed = b.gep(ap, [b.mul(b.mul(is_, kc), u.i64(kn.mr))], source_etype=_F)
                    strip = b.select(trans_a, packed,
                                     b.gep(in_place, [b.mul(r0, sa_r)], source_etype=_F))
                    a_row = b.select(trans_a, u.i64(1), sa_r)
                    a_k = b.select(trans_a, u.i64(kn.mr), u.i64(1))
                    with u.for_range(b, _ceil_div(b, nc, kn.nr), name="jr") as js:
                        col0 = b.mul(js, u.i64(kn.nr))
                        strip_b = b.gep(bp, [b.mul(b.mul(js, kc), u.i64(kn.nr))],
                                        source_etype=_F)
                        at = b.add(b.mul(b.add(ic, r0), v["ldc"]), b.add(jc, col0))
                        _call_micro(b, kn, b.sub(nc, col0), [
                            strip, a_row, a_k, strip_b, kc, b.gep(v["c"], [at], source_etype=_F),
                            v["ldc"], b.sub(mcv, r0), b.sub(nc, col0), first, v["alpha"],
                            v["beta"]])
                with b.if_then(b.and_(epilogue, b.icmp_signed("==", pb, last_pc))):
                    u.call_pointer(b, v["epilogue"], EPILOGUE_TYPE,
                                   [v["context"], batch, ic, b.add(ic, mcv), jc, b.add(jc, nc)])
    b.call(free, [bufs])
    b.ret_void()
    return fn


def _call_micro(b: ir.IRBuilder, kn: _Kernels, cols: ir.Value, args: list[ir.Value]) -> None:
    """The microkernel as wide as the strip's `cols` columns need (a whole strip: NR)."""
    vl = kn.nr // len(kn.micros)
    vectors = _ceil_div(b, _smin(b, cols, u.i64(kn.nr)), vl)
    fn = b.function
    blocks = [fn.append_basic_block(f"micro{k + 1}") for k in range(len(kn.micros))]
    done = fn.append_basic_block("micro.done")
    switch = b.switch(vectors, blocks[-1])
    for k, block in enumerate(blocks[:-1]):
        switch.add_case(u.i64(k + 1), block)
    for block, micro in zip(blocks, kn.micros, strict=True):
        b.position_at_end(block)
        b.call(micro, args)
        b.branch(done)
    b.position_at_end(done)


def _emit_serial(m: ir.Module, kn: _Kernels, columns: ir.Function) -> None:
    """`SYMBOL`: cblas_sgemm on the calling thread."""
    fn = ir.Function(m, _SIG, name=SYMBOL)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    null = ir.Constant(u.PTR, None)
    args = _pack_args(b, [*fn.args[1:], *[u.i64(0)] * 6, null, null])
    a, bm, c = fn.args[7], fn.args[9], fn.args[12]
    b.call(columns, [args, a, bm, c, u.i64(0), fn.args[3], u.i64(0),
                     _ceil_div(b, fn.args[4], kn.nr), u.i64(0)])
    b.ret_void()


def _emit_tiles(m: ir.Module, columns: ir.Function, x86: bool) -> ir.Function:
    """`void part(void **args, i64 u0, i64 u1)`: units u0..u1, unit u the strip
    u % strips of the row group g = u / strips % groups (`group_rows` rows each) of the
    batch u / strips / groups, with FTZ/DAZ set."""
    fn = ir.Function(m, _PART, name="hlotool.gemm.tiles")
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    args, u0, u1 = fn.args
    v = _unpack_args(b, args)
    strips, group_rows = v["strips"], v["group_rows"]

    def body() -> None:
        first, last = b.sdiv(u0, strips), b.sdiv(b.sub(u1, u.i64(1)), strips)
        with u.for_range(b, b.add(b.sub(last, first), u.i64(1)), name="group") as i:
            row = b.add(first, i)
            base = b.mul(row, strips)
            s0 = b.sub(b.select(b.icmp_signed(">", u0, base), u0, base), base)
            s1 = b.sub(_smin(b, u1, b.add(base, strips)), base)
            batch, g = b.sdiv(row, v["groups"]), b.srem(row, v["groups"])
            r0 = b.mul(g, group_rows)
            r1 = _smin(b, b.add(r0, group_rows), v["m"])
            at = [b.gep(v[p], [b.mul(batch, v[f"stride_{p}"])], source_etype=_F) for p in "abc"]
            with b.if_then(b.icmp_signed("<", r0, r1)):
                b.call(columns, [args, *at, r0, r1, s0, s1, batch])

    parallel.with_ftz(b, x86, body)
    b.ret_void()
    return fn


def _groups(b: ir.IRBuilder, kn: _Kernels, rows: ir.Value, cols: ir.Value, strips: ir.Value,
            chunks: ir.Value, trans_a: ir.Value) -> ir.Value:
    """Row groups for `chunks` tiles of C of the least packing and reading for their area:
    a tile packs its columns of B (read and write: cost ~2 a column) and reads its rows of
    A in place (~1 a row), or packs them when A is transposed (~3), so a tile is about
    twice (two thirds) as tall as wide: S = sqrt(rows cols w / chunks) / NR strips a tile
    (w = 1/2 or 3/2; 1..strips, all of them from half), then chunks * S / strips groups
    (1..rows / MR)."""
    f64 = ir.DoubleType()
    weight = b.select(trans_a, ir.Constant(f64, 1.5), ir.Constant(f64, 0.5))
    area = b.fdiv(b.fmul(b.uitofp(b.mul(rows, cols), f64), weight), b.uitofp(chunks, f64))
    sqrt = b.module.globals.get("llvm.sqrt.f64") or ir.Function(
        b.module, ir.FunctionType(f64, [f64]), name="llvm.sqrt.f64")
    width = b.fptosi(b.fadd(b.fdiv(b.call(sqrt, [area]), ir.Constant(f64, kn.nr)),
                            ir.Constant(f64, 0.5)), u.I64)
    width = _clamp(b, width, u.i64(1), strips)
    width = b.select(b.icmp_signed(">", b.mul(width, u.i64(2)), strips), strips, width)
    return _clamp(b, _ceil_div_v(b, b.mul(chunks, width), strips), u.i64(1),
                  _ceil_div(b, rows, kn.mr))


def _clamp(b: ir.IRBuilder, x: ir.Value, lo: ir.Value, hi: ir.Value) -> ir.Value:
    x = _smin(b, x, hi)
    return b.select(b.icmp_signed("<", x, lo), lo, x)


def _emit_parallel(m: ir.Module, kn: _Kernels, columns: ir.Function, x86: bool,
                   tiles: ir.Function, epilogue: bool) -> None:
    """`PARALLEL_SYMBOL` (`EPILOGUE_SYMBOL` with `epilogue`): C[i] = op(A[i]) op(B[i])
    for each of the `batches` on the threads, all batches in one parallel loop, as tiles
    of C: strips of NR columns, times as many row groups as give each thread CHUNKS tiles
    at least (each tile packs its own columns of B; a row group of MR rows at least)."""
    fn = ir.Function(m, EPILOGUE_ENTRY_TYPE if epilogue else PARALLEL_TYPE,
                     name=EPILOGUE_SYMBOL if epilogue else PARALLEL_SYMBOL)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    ta, tb, rows, cols, depth, a, lda, bm, ldb, c, ldc, batches, sa, sb, sc = fn.args[:15]
    null = ir.Constant(u.PTR, None)
    callback, context = fn.args[15:] if epilogue else (null, null)
    parts = _smin(b, parallel.load_threads(b), u.i64(parallel.MAX_THREADS))
    strips = _ceil_div(b, cols, kn.nr)
    trans_a = b.icmp_signed("==", ta, ir.Constant(_I32, _TRANS))
    per_batch = _ceil_div_v(b, b.mul(parts, u.i64(CHUNKS)), batches)
    groups = _groups(b, kn, rows, cols, strips, per_batch, trans_a)
    group_rows = b.mul(_ceil_div(b, _ceil_div_v(b, rows, groups), kn.mr), u.i64(kn.mr))
    groups = _ceil_div_v(b, rows, group_rows)
    one, zero = ir.Constant(_F, 1.0), ir.Constant(_F, 0.0)
    args = _pack_args(b, [ta, tb, rows, cols, depth, one, a, lda, bm, ldb, zero, c, ldc, strips,
                          group_rows, groups, sa, sb, sc, callback, context])
    units = b.mul(b.mul(strips, groups), batches)
    parallel.call_parallel_for(b, tiles, args, units, parts)
    b.ret_void()


def runtime_ir(features: str, x86: bool = True) -> str:
    """The gemm runtime module for a host feature string."""
    mr, nr, vl = tile(features)
    m = ir.Module(name="hlotool.gemm")
    malloc = ir.Function(m, ir.FunctionType(u.PTR, [u.I64]), name="malloc")
    free = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR]), name="free")
    kn = _Kernels(mr, nr, mr * max(1, MC_ROWS // mr), _emit_pack(m, "hlotool.gemm.pack_a", mr, vl),
                  _emit_pack(m, "hlotool.gemm.pack_b", nr, vl),
                  tuple(_emit_micro(m, mr, nr, vl, w) for w in range(vl, nr + 1, vl)))
    columns = _emit_columns(m, kn, malloc, free)
    _emit_serial(m, kn, columns)
    tiles = _emit_tiles(m, columns, x86)
    _emit_parallel(m, kn, columns, x86, tiles, epilogue=False)
    _emit_parallel(m, kn, columns, x86, tiles, epilogue=True)
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
    library = runtime_library("llvm_sgemm", lambda: runtime_ir(features, host().is_x86),
                              Pipeline.FULL)
    llvm.add_symbol(SYMBOL, library.address(SYMBOL))
    for symbol in (PARALLEL_SYMBOL, EPILOGUE_SYMBOL):
        llvm.add_symbol(symbol, library.address(symbol))
    return library
