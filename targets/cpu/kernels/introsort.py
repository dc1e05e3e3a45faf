"""libstdc++'s `std::sort` (introsort) in LLVM IR, the order XLA:CPU leaves ties in.

`std_sort_function(module, symbol)` emits `void sort(i32 *rank, i32 *index, i64 n)`, which
sorts the (rank, index) pairs by rank exactly as libstdc++'s std::sort does: the same
partitions, median-of-three choices, heap-sort fallback and final insertion sort, step
by step, so the index order of equal ranks is std::sort's. It replays the interpreter's
`hlotool/interpreter/kernels/introsort.py`, which documents the algorithm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llvmlite import ir

from hlotool.interpreter.kernels.introsort import THRESHOLD
from hlotool.targets.llvm import irutils as u

I32 = ir.IntType(32)


@dataclass(slots=True)
class _Pairs:
    """The two i32 arrays being sorted, and the builder emitting code on them."""

    b: ir.IRBuilder
    rank: ir.Value
    index: ir.Value

    def _ptr(self, arr: ir.Value, i: ir.Value) -> ir.Value:
        return self.b.gep(arr, [i], source_etype=I32)

    def key(self, i: ir.Value) -> ir.Value:
        return self.b.load(self._ptr(self.rank, i), typ=I32)

    def get(self, i: ir.Value) -> tuple[ir.Value, ir.Value]:
        return self.key(i), self.b.load(self._ptr(self.index, i), typ=I32)

    def put(self, i: ir.Value, value: tuple[ir.Value, ir.Value]) -> None:
        self.b.store(value[0], self._ptr(self.rank, i))
        self.b.store(value[1], self._ptr(self.index, i))

    def swap(self, i: ir.Value, j: ir.Value) -> None:
        x, y = self.get(i), self.get(j)
        self.put(i, y)
        self.put(j, x)

    def less(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.icmp_signed("<", x, y)


def _var(b: ir.IRBuilder, init: ir.Value) -> ir.AllocaInstr:
    """A stack variable (in the entry block, promoted to a register by mem2reg)."""
    here = b.block
    b.position_at_start(here.function.entry_basic_block)
    slot = b.alloca(init.type)
    b.position_at_end(here)
    b.store(init, slot)
    return slot


def _until(b: ir.IRBuilder, cond: Callable[[], ir.Value], body: Callable[[], None]) -> None:
    """`while (cond()) body();` over stack variables."""
    head = b.append_basic_block("w.head")
    loop = b.append_basic_block("w.body")
    end = b.append_basic_block("w.end")
    b.branch(head)
    b.position_at_end(head)
    b.cbranch(cond(), loop, end)
    b.position_at_end(loop)
    body()
    b.branch(head)
    b.position_at_end(end)


def _function(module: ir.Module, name: str, extra: int) -> tuple[ir.Function, _Pairs]:
    ty = ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR] + [u.I64] * extra)
    fn = ir.Function(module, ty, name=name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    return fn, _Pairs(b, fn.args[0], fn.args[1])


def std_sort_function(module: ir.Module, symbol: str) -> ir.Function:
    """`void sort(i32 *rank, i32 *index, i64 n)`: libstdc++'s std::sort by rank."""
    name = f"{symbol}.stdsort"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    adjust = _adjust_heap_function(module, symbol)
    heap = _heap_sort_function(module, symbol, adjust)
    loop = _introsort_loop_function(module, symbol, heap)
    fn, p = _function(module, name, 1)
    b, n = p.b, fn.args[2]
    depth = b.mul(b.sub(u.i64(63), b.ctlz(b.or_(n, u.i64(1)), ir.Constant(u.I1, 0))), u.i64(2))
    with b.if_then(b.icmp_signed(">", n, u.i64(1))):
        b.call(loop, [p.rank, p.index, u.i64(0), n, depth])
        _final_insertion_sort(p, n)
    b.ret_void()
    return fn


def _introsort_loop_function(module: ir.Module, symbol: str, heap: ir.Function) -> ir.Function:
    """`loop(rank, index, first, last, depth)`: partition down to runs of THRESHOLD."""
    fn, p = _function(module, f"{symbol}.stdsort.loop", 3)
    b = p.b
    first = fn.args[2]
    last = _var(b, fn.args[3])
    depth = _var(b, fn.args[4])

    def more() -> ir.Value:
        return b.icmp_signed(">", b.sub(b.load(last), first), u.i64(THRESHOLD))

    def step() -> None:
        end, d = b.load(last), b.load(depth)
        with b.if_else(b.icmp_signed("==", d, u.i64(0))) as (exhausted, otherwise):
            with exhausted:
                b.call(heap, [p.rank, p.index, first, end])
                b.store(first, last)
            with otherwise:
                d1 = b.sub(d, u.i64(1))
                b.store(d1, depth)
                mid = b.add(first, b.sdiv(b.sub(end, first), u.i64(2)))
                one = b.add(first, u.i64(1))
                _move_median_to_first(p, first, one, mid, b.sub(end, u.i64(1)))
                cut = _unguarded_partition(p, one, end, p.key(first))
                b.call(fn, [p.rank, p.index, cut, end, d1])
                b.store(cut, last)

    _until(b, more, step)
    b.ret_void()
    return fn


def _move_median_to_first(p: _Pairs, result: ir.Value, x: ir.Value, y: ir.Value,
                          z: ir.Value) -> None:
    b = p.b
    rx, ry, rz = p.key(x), p.key(y), p.key(z)
    xy, yz, xz = p.less(rx, ry), p.less(ry, rz), p.less(rx, rz)
    up = b.select(yz, y, b.select(xz, z, x))
    down = b.select(xz, x, b.select(yz, z, y))
    p.swap(result, b.select(xy, up, down))


def _unguarded_partition(p: _Pairs, first: ir.Value, last: ir.Value, pivot: ir.Value) -> ir.Value:
    """Hoare partition of [first, last) around `pivot`; the cut."""
    b = p.b
    lo, hi = _var(b, first), _var(b, last)
    done = _var(b, ir.Constant(u.I1, 0))

    def step() -> None:
        _until(b, lambda: p.less(p.key(b.load(lo)), pivot),
               lambda: b.store(b.add(b.load(lo), u.i64(1)), lo))
        b.store(b.sub(b.load(hi), u.i64(1)), hi)
        _until(b, lambda: p.less(pivot, p.key(b.load(hi))),
               lambda: b.store(b.sub(b.load(hi), u.i64(1)), hi))
        i, j = b.load(lo), b.load(hi)
        with b.if_else(b.icmp_signed(">=", i, j)) as (met, otherwise):
            with met:
                b.store(ir.Constant(u.I1, 1), done)
            with otherwise:
                p.swap(i, j)
                b.store(b.add(i, u.i64(1)), lo)

    _until(b, lambda: b.not_(b.load(done)), step)
    return b.load(lo)


def _adjust_heap_function(module: ir.Module, symbol: str) -> ir.Function:
    """`adjust(rank, index, first, hole, n, value rank, value index)`: libstdc++'s
    __adjust_heap (sift the hole down to a leaf, then push the value up)."""
    ty = ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.I64, u.I64, u.I64, I32, I32])
    fn = ir.Function(module, ty, name=f"{symbol}.stdsort.adjust")
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    p = _Pairs(b, fn.args[0], fn.args[1])
    first, top, n = fn.args[2:5]
    value = (fn.args[5], fn.args[6])
    hole, child = _var(b, top), _var(b, top)

    def at(i: ir.Value) -> ir.Value:
        return b.add(first, i)

    def down() -> None:
        c = b.mul(b.add(b.load(child), u.i64(1)), u.i64(2))
        c = b.select(p.less(p.key(at(c)), p.key(at(b.sub(c, u.i64(1))))), b.sub(c, u.i64(1)), c)
        p.put(at(b.load(hole)), p.get(at(c)))
        b.store(c, hole)
        b.store(c, child)

    half = b.sdiv(b.sub(n, u.i64(1)), u.i64(2))
    _until(b, lambda: b.icmp_signed("<", b.load(child), half), down)
    even = b.icmp_signed("==", b.srem(n, u.i64(2)), u.i64(0))
    last_parent = b.icmp_signed("==", b.load(child), b.sdiv(b.sub(n, u.i64(2)), u.i64(2)))
    with b.if_then(b.and_(even, last_parent)):
        c = b.mul(b.add(b.load(child), u.i64(1)), u.i64(2))
        p.put(at(b.load(hole)), p.get(at(b.sub(c, u.i64(1)))))
        b.store(b.sub(c, u.i64(1)), hole)

    def parent() -> ir.Value:
        return b.sdiv(b.sub(b.load(hole), u.i64(1)), u.i64(2))

    def rising() -> ir.Value:
        above = b.icmp_signed(">", b.load(hole), top)
        safe = b.select(above, parent(), u.i64(0))
        return b.and_(above, p.less(p.key(at(safe)), value[0]))

    def up() -> None:
        q = parent()
        p.put(at(b.load(hole)), p.get(at(q)))
        b.store(q, hole)

    _until(b, rising, up)
    p.put(at(b.load(hole)), value)
    b.ret_void()
    return fn


def _heap_sort_function(module: ir.Module, symbol: str, adjust: ir.Function) -> ir.Function:
    """`heap(rank, index, first, last)`: std::make_heap, then std::sort_heap."""
    fn, p = _function(module, f"{symbol}.stdsort.heap", 2)
    b = p.b
    first, last = fn.args[2], fn.args[3]
    n = b.sub(last, first)
    par = _var(b, b.sdiv(b.sub(n, u.i64(2)), u.i64(2)))

    def make() -> None:
        q = b.load(par)
        r, i = p.get(b.add(first, q))
        b.call(adjust, [p.rank, p.index, first, q, n, r, i])
        b.store(b.sub(q, u.i64(1)), par)

    _until(b, lambda: b.icmp_signed(">=", b.load(par), u.i64(0)), make)
    end = _var(b, last)

    def pop() -> None:
        e = b.sub(b.load(end), u.i64(1))
        b.store(e, end)
        r, i = p.get(e)
        p.put(e, p.get(first))
        b.call(adjust, [p.rank, p.index, first, u.i64(0), b.sub(e, first), r, i])

    _until(b, lambda: b.icmp_signed(">", b.sub(b.load(end), first), u.i64(1)), pop)
    b.ret_void()
    return fn


def _final_insertion_sort(p: _Pairs, n: ir.Value) -> None:
    """Insertion sort of the first THRESHOLD pairs (a pair less than the first moves to the
    front), then unguarded insertion of the rest."""
    b = p.b
    head = b.select(b.icmp_signed("<", n, u.i64(THRESHOLD)), n, u.i64(THRESHOLD))
    with u.for_range(b, b.sub(head, u.i64(1)), name="ins") as q:
        i = b.add(q, u.i64(1))
        value = p.get(i)
        with b.if_else(p.less(value[0], p.key(u.i64(0)))) as (front, otherwise):
            with front:
                j = _var(b, i)

                def shift() -> None:
                    k = b.load(j)
                    p.put(k, p.get(b.sub(k, u.i64(1))))
                    b.store(b.sub(k, u.i64(1)), j)

                _until(b, lambda: b.icmp_signed(">", b.load(j), u.i64(0)), shift)
                p.put(u.i64(0), value)
            with otherwise:
                _linear_insert(p, i, value)
    with u.for_range(b, b.sub(n, head), name="uins") as q:
        i = b.add(head, q)
        _linear_insert(p, i, p.get(i))


def _linear_insert(p: _Pairs, i: ir.Value, value: tuple[ir.Value, ir.Value]) -> None:
    """libstdc++'s __unguarded_linear_insert of `value` (taken from place i)."""
    b = p.b
    at = _var(b, i)

    def shift() -> None:
        k = b.load(at)
        p.put(k, p.get(b.sub(k, u.i64(1))))
        b.store(b.sub(k, u.i64(1)), at)

    _until(b, lambda: p.less(value[0], p.key(b.sub(b.load(at), u.i64(1)))), shift)
    p.put(b.load(at), value)
