"""The runtime folds reduction kernels call: column folds (one value per column, the rows
folded in order), tree folds (XLA:CPU's tree over rows of values), range folds (an
order-free fold of contiguous elements) and row trees (XLA:CPU's whole tree of one row's
sum, of values, squares or contracted products, for row kernels whose rows are too short
for the vector first level).

They are one runtime library (`fold_runtime`), compiled once per process through the
full pipeline (its scalar loops are what the loop vectorizer widens, as the kernels'
own loops were) and kept in the disk cache, so that a kernel made only of calls to them
compiles through LLVM's quick pipeline: a column sum of 2048x4096 compiled in ~45 ms
through the full pipeline, its loops being the kernel's own.
"""

from __future__ import annotations

import functools

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu.jit import Pipeline
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm import math as fm
from hlotool.targets.llvm.elemental import ElementalEmitter

O = Opcode
P = PrimitiveType

#: Element types and reducers of the column folds (XLA's tree folds float sums and
#: products in order) and of the range folds (order-free: float max and min).
COLUMN_TYPES = (P.F32, P.F64)
COLUMN_OPS = (O.ADD, O.MULTIPLY)
RANGE_TYPES = (P.F32, P.F64)
RANGE_OPS = (O.MAXIMUM, O.MINIMUM)


def column_symbol(t: PrimitiveType, op: Opcode) -> str:
    return f"hlotool_column_fold_{t.name.lower()}_{op.value}"


def tree_symbol(t: PrimitiveType, op: Opcode) -> str:
    return f"hlotool_tree_fold_{t.name.lower()}_{op.value}"


def range_symbol(t: PrimitiveType, op: Opcode) -> str:
    return f"hlotool_range_fold_{t.name.lower()}_{op.value}"


#: What a row tree folds: values x, squares x * x or products x * y (fma-contracted).
ROW_TREE_KINDS = ("values", "squares", "products")


def row_tree_symbol(t: PrimitiveType, kind: str) -> str:
    return f"hlotool_row_tree_{t.name.lower()}_add_{kind}"


def column_fold_type(ety: ir.Type) -> ir.FunctionType:
    """`void fold(ptr src, i64 stride, i64 rows, i64 cols, ptr dst, T start)`: dst[c] =
    start folded with src[r * stride + c] for r = 0 .. rows-1 in order, for every c <
    cols; the rows are read whole, one after the other."""
    return ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64, u.I64, u.PTR, ety])


def tree_fold_type(ety: ir.Type) -> ir.FunctionType:
    """`void fold(ptr values, i64 count, i64 rows, ptr out, T start, T init)`: per row r,
    XLA:CPU's tree over the row's `count` values at values + r * count (windows of 32,
    SAME padding, each from `start`, while more than 32 are left; the rest folded from
    `init`) into out[r]. The values are overwritten (each level's in place)."""
    return ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64, u.PTR, ety, ety])


def row_tree_type(ety: ir.Type, kind: str) -> ir.FunctionType:
    """`void fold(ptr x, [ptr y,] i64 count, ptr out, T start, T init, ptr scratch)`:
    XLA:CPU's tree of one row's sum of x[i] (`kind` "values"), of x[i] * x[i] or of
    x[i] * y[i] (fma-contracted: acc = fma(x, y, acc)) into *out: windows of 32 with SAME
    padding, each from `start`, while more than 32 are left, the rest from `init` (as
    `tree_fold_type`; the first level is read from x and y, written to `scratch`,
    ceil(count / 32) values, and folds 8 whole windows side by side)."""
    vectors = [u.PTR, u.PTR] if kind == "products" else [u.PTR]
    return ir.FunctionType(ir.VoidType(), [*vectors, u.I64, u.PTR, ety, ety, u.PTR])


def range_fold_type(ety: ir.Type) -> ir.FunctionType:
    """`T fold(ptr src, i64 n, T start)`: start folded with src[0 .. n-1] (an order-free
    reducer: in any order)."""
    return ir.FunctionType(ety, [u.PTR, u.I64, ety])


@functools.cache
def fold_runtime() -> object:
    """Load (from the disk cache) or compile the folds once per process and register
    their symbols, before any kernel calling them is compiled or loaded (plans ask for
    it in `ReducePlan.__post_init__`)."""
    from hlotool.targets.cpu.cache import runtime_library

    names = [f(t, op) for t in COLUMN_TYPES for op in COLUMN_OPS
             for f in (column_symbol, tree_symbol)] + \
        [range_symbol(t, op) for t in RANGE_TYPES for op in RANGE_OPS] + \
        [row_tree_symbol(P.F32, kind) for kind in ROW_TREE_KINDS]

    def text() -> str:
        module = ir.Module(name="hlotool_folds")
        for t in COLUMN_TYPES:
            for op in COLUMN_OPS:
                _emit_column_fold(module, t, op)
                _emit_tree_fold(module, t, op)
        for t in RANGE_TYPES:
            for op in RANGE_OPS:
                _emit_range_fold(module, t, op)
        for kind in ROW_TREE_KINDS:
            _emit_row_tree(module, P.F32, kind)
        return str(module)

    library = runtime_library("reduction_folds", text, Pipeline.FULL)
    for name in names:
        llvm.add_symbol(name, library.address(name))
    return library  # kept alive for the life of the process


def _function(module: ir.Module, name: str, typ: ir.FunctionType) -> ir.Function:
    fn = ir.Function(module, typ, name=name)
    fn.attributes.add("nounwind")
    for arg in fn.args:
        if isinstance(arg.type, ir.PointerType):
            arg.add_attribute("noalias")
    return fn


def _emit_column_fold(module: ir.Module, t: PrimitiveType, op: Opcode) -> None:
    ty = u.value_type(t)
    fn = _function(module, column_symbol(t, op), column_fold_type(ty))
    src, stride, rows, cols, dst, start = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    emitter = ElementalEmitter(b, {})
    with u.for_range(b, cols, name="init") as c:
        b.store(start, b.gep(dst, [c], source_etype=ty, inbounds=True))
    with u.for_range(b, rows, name="row") as r:
        row = b.gep(src, [b.mul(r, stride)], source_etype=ty, inbounds=True)
        with u.for_range(b, cols, name="col") as c:
            slot = b.gep(dst, [c], source_etype=ty, inbounds=True)
            x = b.load(b.gep(row, [c], source_etype=ty, inbounds=True), typ=ty)
            b.store(emitter.fold(op, t, b.load(slot, typ=ty), x), slot)
    b.ret_void()


def _emit_tree_fold(module: ir.Module, t: PrimitiveType, op: Opcode) -> None:
    ty = u.value_type(t)
    fn = _function(module, tree_symbol(t, op), tree_fold_type(ty))
    values, count, rows, out, start, init = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    acc = b.alloca(ty)
    emitter = ElementalEmitter(b, {})

    def fold(row: ir.Value, lo: ir.Value, hi: ir.Value, first: ir.Value) -> ir.Value:
        b.store(first, acc)
        with u.for_range(b, b.sub(hi, lo), name="e") as i:
            x = b.load(b.gep(row, [b.add(lo, i)], source_etype=ty, inbounds=True), typ=ty)
            b.store(emitter.fold(op, t, b.load(acc, typ=ty), x), acc)
        return b.load(acc, typ=ty)

    with u.for_range(b, rows, name="row") as r:
        row = b.gep(values, [b.mul(r, count)], source_etype=ty, inbounds=True)
        pre = b.block
        header, level, done = (b.append_basic_block(n) for n in ("level.h", "level.b", "level.e"))
        b.branch(header)
        b.position_at_end(header)
        n = b.phi(u.I64, name="n")
        n.add_incoming(count, pre)
        b.cbranch(b.icmp_signed(">", n, u.i64(32)), level, done)
        b.position_at_end(level)
        windows = b.sdiv(b.add(n, u.i64(31)), u.i64(32))
        pad = b.sdiv(b.sub(b.mul(windows, u.i64(32)), n), u.i64(2))
        with u.for_range(b, windows, name="q") as q:
            first = b.sub(b.mul(q, u.i64(32)), pad)
            lo = b.select(b.icmp_signed("<", first, u.i64(0)), u.i64(0), first)
            end = b.add(first, u.i64(32))
            hi = b.select(b.icmp_signed(">", end, n), n, end)
            b.store(fold(row, lo, hi, start), b.gep(row, [q], source_etype=ty, inbounds=True))
        n.add_incoming(windows, b.block)
        b.branch(header)
        b.position_at_end(done)
        b.store(fold(row, u.i64(0), n, init), b.gep(out, [r], source_etype=ty, inbounds=True))
    b.ret_void()


#: Windows of a row tree's first level folded side by side (their chains interleaved).
ROW_TREE_JAM = 8


def _emit_row_tree(module: ir.Module, t: PrimitiveType, kind: str) -> None:
    ty = u.value_type(t)
    fn = _function(module, row_tree_symbol(t, kind), row_tree_type(ty, kind))
    if kind == "products":
        x, y, count, out, start, init, scratch = fn.args
    else:
        (x, count, out, start, init, scratch), y = fn.args, None
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    accs = [b.alloca(ty) for _ in range(ROW_TREE_JAM)]
    emitter = ElementalEmitter(b, {})

    def step(acc: ir.Value, at: ir.Value) -> None:
        v = b.load(b.gep(x, [at], source_etype=ty, inbounds=True), typ=ty)
        if kind == "values":
            b.store(emitter.fold(O.ADD, t, b.load(acc, typ=ty), v), acc)
            return
        w = v if y is None else b.load(b.gep(y, [at], source_etype=ty, inbounds=True), typ=ty)
        b.store(fm.fma(b, v, w, b.load(acc, typ=ty)), acc)

    def fold(lo: ir.Value, hi: ir.Value, first: ir.Value) -> ir.Value:
        b.store(first, accs[0])
        with u.for_range(b, b.sub(hi, lo), name="e") as i:
            step(accs[0], b.add(lo, i))
        return b.load(accs[0], typ=ty)

    def window(q: ir.Value, pad: ir.Value) -> None:
        first = b.sub(b.mul(q, u.i64(32)), pad)
        lo = b.select(b.icmp_signed("<", first, u.i64(0)), u.i64(0), first)
        end = b.add(first, u.i64(32))
        hi = b.select(b.icmp_signed(">", end, count), count, end)
        b.store(fold(lo, hi, start), b.gep(scratch, [q], source_etype=ty, inbounds=True))

    with b.if_else(b.icmp_signed(">", count, u.i64(32))) as (tree, flat):
        with tree:
            windows = b.sdiv(b.add(count, u.i64(31)), u.i64(32))
            pad = b.sdiv(b.sub(b.mul(windows, u.i64(32)), count), u.i64(2))
            groups = b.sdiv(b.add(windows, u.i64(ROW_TREE_JAM - 1)), u.i64(ROW_TREE_JAM))
            with u.for_range(b, groups, name="g") as g:
                q0 = b.mul(g, u.i64(ROW_TREE_JAM))
                first = b.sub(b.mul(q0, u.i64(32)), pad)
                full = b.and_(b.icmp_signed(">=", first, u.i64(0)), b.icmp_signed(
                    "<=", b.add(first, u.i64(32 * ROW_TREE_JAM)), count))
                with b.if_else(full) as (jammed, edge):
                    with jammed:  # whole windows: their chains side by side
                        for acc in accs:
                            b.store(start, acc)
                        with u.for_range(b, 32, name="i") as i:
                            for j, acc in enumerate(accs):
                                step(acc, b.add(first, b.add(u.i64(32 * j), i)))
                        for j, acc in enumerate(accs):
                            slot = b.gep(scratch, [b.add(q0, u.i64(j))], source_etype=ty,
                                         inbounds=True)
                            b.store(b.load(acc, typ=ty), slot)
                    with edge:
                        last = b.add(q0, u.i64(ROW_TREE_JAM))
                        stop = b.select(b.icmp_signed("<", last, windows), last, windows)
                        with u.for_range(b, b.sub(stop, q0), name="q") as k:
                            window(b.add(q0, k), pad)
            rest = declare(module, tree_symbol(t, O.ADD), tree_fold_type(ty))
            b.call(rest, [scratch, windows, u.i64(1), out, start, init])
        with flat:
            b.store(fold(u.i64(0), count, init), out)
    b.ret_void()


def _emit_range_fold(module: ir.Module, t: PrimitiveType, op: Opcode) -> None:
    ty = u.value_type(t)
    fn = _function(module, range_symbol(t, op), range_fold_type(ty))
    src, n, start = fn.args
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    acc = b.alloca(ty)
    b.store(start, acc)
    emitter = ElementalEmitter(b, {})
    with u.for_range(b, n, name="i") as i:
        x = b.load(b.gep(src, [i], source_etype=ty, inbounds=True), typ=ty)
        b.store(emitter.fold(op, t, b.load(acc, typ=ty), x), acc)
    b.ret(b.load(acc, typ=ty))


def declare(module: ir.Module, name: str, typ: ir.FunctionType) -> ir.Function:
    """The fold `name` declared in a kernel's module."""
    fn = module.globals.get(name)
    return fn if fn is not None else ir.Function(module, typ, name=name)
