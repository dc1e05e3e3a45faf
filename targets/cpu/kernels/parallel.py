"""Splitting a kernel's work across the cores, inside the native code.

XLA:CPU partitions a large loop over its outer dimensions and runs the parts on a thread
pool (`outer_dimension_partitions` in the backend config, xla/service/cpu/
parallel_task_assignment.cc; the runtime is `ParallelForkJoin`). Here a kernel body takes
a half-open range `[begin, end)` of its outermost partitionable loop (the first output
dims of a loop kernel, the rows of a row kernel, the kept dims of a reduce) and the entry
point hands the range to `hlotool_parallel_for`, a small fork-join runtime written in
LLVM IR and JIT-compiled once per process by this module:

    void hlotool_parallel_for(void (*part)(void **buffers, i64 begin, i64 end),
                              void **buffers, i64 n, i64 max_parts)

It uses `parts = min(threads, max_parts, n)` threads: the calling thread and
`parts - 1` workers of a pool started once per process (detached pthreads, started
as a loop first needs them and kept until the process exits; between loops each polls
for the next one for `SPIN_TICKS`, then sleeps on a condition variable). The caller posts the loop (heap-allocated shared state,
reference counted) under the pool's lock, wakes `parts - 1` workers and works itself.
The range is cut into `min(n, CHUNKS_PER_THREAD * parts)` chunks (chunk c is
`[n*c/chunks, n*(c+1)/chunks)`) that the threads take first come, first served from an
atomic counter; the caller returns once every chunk is done, without waiting for a
worker that has not woken yet (it finds the loop gone, or no chunk left, and only drops
its reference). So on a busy machine a worker the OS does not run delays the kernel by
at most one chunk, and a worker that cannot be started is simply missing. Waking a
pooled worker costs a few microseconds where starting a thread cost tens (a 64x64
kernel split in two: ~6 instead of ~18 us a call over the unsplit call, medians on a
loaded machine). Every part function sets MXCSR's FTZ/DAZ bits itself (MXCSR is per
thread). The pool runs one loop at a time: a loop posted while another is in flight
(a kernel on another Python thread, or a part that itself calls a split kernel) runs
on its calling thread alone. A forked child starts with an empty pool
(`os.register_at_fork`).

The thread count is not compiled into the kernels (so it is not part of the compile-cache
key): it is the global `hlotool.threads` of the runtime module, set from Python at import
to $HLOTOOL_THREADS or, when unset, the number of CPUs this process may run on
(`os.sched_getaffinity`), and changed with `set_threads`. The compile-time `max_parts`
of a kernel caps the parts by its amount of work (`kernel_work`, `max_parts`); a kernel
below two parts' worth is compiled without any call to the runtime, so it never pays
the dispatch.

The runtime is a runtime library of the disk cache (`cache.runtime_library`: compiled
once per host, ~80 ms, then loaded in ~1 ms). Kernels reach it through
`llvmlite.binding.add_symbol`, done at import of this module (imported by the loop kernels, hence before any JIT finalization or disk-cache
load); the runtime's code is never freed (the workers run it until the process exits).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import TRANSCENDENTAL, Opcode
from hlotool.targets.llvm import irutils as u

#: The runtime entry kernels call.
PARALLEL_FOR = "hlotool_parallel_for"
#: The pool's set-up, called once when the runtime is loaded.
POOL_INIT = "hlotool.pool_init"
#: The thread count as kernels read it (`load_threads`).
THREADS = "hlotool_threads"
#: Most threads one kernel uses.
MAX_THREADS = 256
#: Work units (`kernel_work`) one part must have at least. A unit takes ~0.01-0.05 ns
#: (gelu: 0.016, a copy: 0.011, a lane-folded sum: 0.02-0.05 on the Intel host of
#: 2026-12-07), so a part runs >= ~15-50 us. Posting a loop costs the caller a few us
#: (a lock, a condition signal); a worker that is asleep may take far longer to wake (on
#: that virtual machine ~100 us, so its chunks go to the caller meanwhile), which the
#: workers' spin after each loop (`SPIN_TICKS`) hides between the kernels of a run.
#: (XLA:CPU's DefaultCostModel asks 100000 "cycles" of flops + 10 x bytes per part.)
MIN_WORK_PER_PART = 1 << 20

#: MXCSR bits: flush-to-zero (15) and denormals-are-zero (6).
FTZ_DAZ = 0x8040

_PART = ir.FunctionType(ir.VoidType(), [u.PTR, u.I64, u.I64])


#: Words of the shared state of one parallel loop (heap allocated and reference counted:
#: a worker that is still leaving a loop reads it, and the last one out frees it).
_FN, _BUFFERS, _N, _CHUNKS, _NEXT, _DONE, _REFS, _SLOTS = range(8)
_STATE_WORDS = 8
#: Bytes reserved for a pthread mutex or condition variable (glibc: 40 and 48, macOS:
#: 64 and 48).
_SYNC_BYTES = 128

_LIBC = [("pthread_create", u.I32, [u.PTR, u.PTR, u.PTR, u.PTR]),
         ("pthread_detach", u.I32, [u.I64]),
         ("pthread_mutex_init", u.I32, [u.PTR, u.PTR]),
         ("pthread_mutex_lock", u.I32, [u.PTR]),
         ("pthread_mutex_unlock", u.I32, [u.PTR]),
         ("pthread_cond_init", u.I32, [u.PTR, u.PTR]),
         ("pthread_cond_wait", u.I32, [u.PTR, u.PTR]),
         ("pthread_cond_signal", u.I32, [u.PTR]),
         ("sched_yield", u.I32, []),
         ("malloc", u.PTR, [u.I64]),
         ("free", ir.VoidType(), [u.PTR])]


class _Pool:
    """The pool's globals in the runtime module: its lock and the condition its idle
    workers wait on, the loop being run (null when none), a counter bumped for every
    loop posted, and the number of workers started."""

    def __init__(self, m: ir.Module) -> None:
        self.libc = {name: ir.Function(m, ir.FunctionType(ret, args), name=name)
                     for name, ret, args in _LIBC}
        sync = ir.ArrayType(u.I8, _SYNC_BYTES)
        self.mutex, self.cond = (self._global(m, f"hlotool.pool.{x}", sync, 64)
                                 for x in ("mutex", "cond"))
        self.job = self._global(m, "hlotool.pool.job", u.PTR, 8)
        self.posted, self.workers = (self._global(m, f"hlotool.pool.{x}", u.I64, 8)
                                     for x in ("posted", "workers"))

    @staticmethod
    def _global(m: ir.Module, name: str, typ: ir.Type, align: int) -> ir.GlobalVariable:
        g = ir.GlobalVariable(m, typ, name=name)
        g.initializer = ir.Constant(typ, None)
        g.align = align
        return g

    def call(self, b: ir.IRBuilder, name: str, *args: ir.Value) -> ir.Value:
        return b.call(self.libc[name], list(args))

    def lock(self, b: ir.IRBuilder) -> None:
        self.call(b, "pthread_mutex_lock", self.mutex)

    def unlock(self, b: ir.IRBuilder) -> None:
        self.call(b, "pthread_mutex_unlock", self.mutex)

    @staticmethod
    def get(b: ir.IRBuilder, g: ir.Value, typ: ir.Type = u.I64) -> ir.Value:
        """A shared word, read anew every time (other threads write it)."""
        return b.load_atomic(g, "monotonic", 8, typ=typ)

    @staticmethod
    def put(b: ir.IRBuilder, value: ir.Value, g: ir.Value) -> None:
        """Write a shared word (built directly: llvmlite's `store_atomic` rejects
        opaque pointers)."""
        b._insert(ir.instructions.StoreAtomicInstr(b.block, value, g, "monotonic", 8))


def _runtime_ir() -> str:
    """The runtime module: `hlotool_parallel_for`, its worker threads' routine, the pool's
    set-up (`hlotool.pool_init`) and the thread-count global."""
    m = ir.Module(name="hlotool.parallel")
    count = ir.GlobalVariable(m, u.I64, name="hlotool.threads")
    count.initializer = u.i64(1)
    pool = _Pool(m)
    work, release = _work_loop(m), _release(m, pool.libc["free"])
    _pool_init(m, pool)
    worker = _worker(m, pool, work, release, _host_is_x86())

    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.I64, u.I64]),
                     name=PARALLEL_FOR)
    buffers, n, cap = fn.args[1:]
    part = u.Callee(fn.args[0], _PART)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    smin = lambda x, y: b.select(b.icmp_signed("<", x, y), x, y)  # noqa: E731
    parts = smin(smin(b.load(count, typ=u.I64), cap), n)
    serial, alloc, post, busy, posted = (
        fn.append_basic_block(x) for x in ("serial", "alloc", "post", "busy", "posted"))
    b.cbranch(b.icmp_signed("<=", parts, u.i64(1)), serial, alloc)
    b.position_at_end(serial)
    b.call(part, [buffers, u.i64(0), n])
    b.ret_void()
    b.position_at_end(alloc)
    state = b.call(pool.libc["malloc"], [u.i64(8 * _STATE_WORDS)])
    null = ir.Constant(u.PTR, None)
    lock_block = fn.append_basic_block("lock")
    b.cbranch(b.icmp_unsigned("==", state, null), serial, lock_block)
    b.position_at_end(lock_block)
    pool.lock(b)
    # Another loop in flight (a kernel on another Python thread, or a part that runs a
    # split kernel itself): this one runs on the calling thread alone.
    b.cbranch(b.icmp_unsigned("!=", pool.get(b, pool.job, u.PTR), null), busy, post)
    b.position_at_end(busy)
    pool.unlock(b)
    pool.call(b, "free", state)
    b.branch(serial)
    b.position_at_end(post)
    helpers = _grow(b, fn, pool, worker, b.sub(parts, u.i64(1)))
    words = [b.ptrtoint(fn.args[0], u.I64), b.ptrtoint(buffers, u.I64), n,
             smin(n, b.mul(parts, u.i64(CHUNKS_PER_THREAD))), u.i64(0), u.i64(0), u.i64(1),
             helpers]
    for k, v in enumerate(words):
        b.store(v, _word(b, state, k))
    pool.put(b, state, pool.job)
    pool.put(b, b.add(pool.get(b, pool.posted), u.i64(1)), pool.posted)
    pool.unlock(b)
    # Woken after the unlock, so that a worker does not wake only to wait for the lock.
    with u.for_range(b, helpers, name="wake"):
        pool.call(b, "pthread_cond_signal", pool.cond)
    b.branch(posted)
    b.position_at_end(posted)
    b.call(work, [state])
    # Wait for the chunks the workers took (not for the workers: one that wakes late
    # finds the loop gone or no chunk left).
    chunks = b.load(_word(b, state, _CHUNKS), typ=u.I64)
    wait, waiting, over = (fn.append_basic_block(x) for x in ("wait", "waiting", "over"))
    b.branch(wait)
    b.position_at_end(wait)
    done = b.load_atomic(_word(b, state, _DONE), "acquire", 8, typ=u.I64)
    b.cbranch(b.icmp_signed("<", done, chunks), waiting, over)
    b.position_at_end(waiting)
    pool.call(b, "sched_yield")
    b.branch(wait)
    b.position_at_end(over)
    pool.lock(b)
    pool.put(b, null, pool.job)
    pool.unlock(b)
    b.call(release, [state])
    b.ret_void()
    return str(m)


def _grow(b: ir.IRBuilder, fn: ir.Function, pool: _Pool, worker: ir.Function,
          wanted: ir.Value) -> ir.Value:
    """With the lock held: start workers until there are `wanted` (or one fails to
    start); the number of workers there are, at most `wanted`."""
    header, start, done = (fn.append_basic_block(x) for x in ("grow", "grow.start",
                                                               "grow.done"))
    tid = b.alloca(u.I64)
    b.branch(header)
    b.position_at_end(header)
    have = pool.get(b, pool.workers)
    b.cbranch(b.icmp_signed("<", have, wanted), start, done)
    b.position_at_end(start)
    null = ir.Constant(u.PTR, None)
    rc = pool.call(b, "pthread_create", tid, null, worker, null)
    started = fn.append_basic_block("grow.started")
    b.cbranch(b.icmp_signed("==", rc, _i32(0)), started, done)
    b.position_at_end(started)
    pool.call(b, "pthread_detach", b.load(tid, typ=u.I64))
    pool.put(b, b.add(have, u.i64(1)), pool.workers)
    b.branch(header)
    b.position_at_end(done)
    have = pool.get(b, pool.workers)
    return b.select(b.icmp_signed("<", have, wanted), have, wanted)


def _spin(m: ir.Module, pool: _Pool) -> ir.Function:
    """`void spin(i64 seen)`: poll the posted-loop counter, with `pause` and
    `sched_yield` between reads (a thread that has work, on a machine with more threads
    than cores, gets the core), until it moves past `seen` or SPIN_TICKS time-stamp
    ticks have gone."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.I64]), name="hlotool.spin")
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    clock = ir.Function(m, ir.FunctionType(u.I64, []), name="llvm.readcyclecounter")
    pause = ir.Function(m, ir.FunctionType(ir.VoidType(), []), name="llvm.x86.sse2.pause")
    start = b.call(clock, [])
    loop, done = fn.append_basic_block("poll"), fn.append_basic_block("done")
    b.branch(loop)
    b.position_at_end(loop)
    b.call(pause, [])
    pool.call(b, "sched_yield")
    moved = b.icmp_unsigned("!=", pool.get(b, pool.posted), fn.args[0])
    late = b.icmp_unsigned(">", b.sub(b.call(clock, []), start), u.i64(SPIN_TICKS))
    b.cbranch(b.or_(moved, late), done, loop)
    b.position_at_end(done)
    b.ret_void()
    return fn


def _worker(m: ir.Module, pool: _Pool, work: ir.Function, release: ir.Function,
            x86: bool) -> ir.Function:
    """`void *worker(void *)`: wait until a loop is posted (polling for SPIN_TICKS on
    x86, then asleep on the condition); join it while it still wants helpers
    (`_SLOTS`), run chunks until none is left, drop the reference, wait again. Never
    returns."""
    fn = ir.Function(m, ir.FunctionType(u.PTR, [u.PTR]), name="hlotool.worker")
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    seen = b.alloca(u.I64)
    b.store(u.i64(0), seen)
    pool.lock(b)
    check, sleep, fresh, join = (fn.append_basic_block(x)
                                 for x in ("check", "sleep", "fresh", "join"))
    b.branch(check)
    b.position_at_end(check)
    posted = pool.get(b, pool.posted)
    b.cbranch(b.icmp_unsigned("==", posted, b.load(seen, typ=u.I64)), sleep, fresh)
    b.position_at_end(sleep)
    if SPIN_TICKS and x86:
        pool.unlock(b)
        b.call(_spin(m, pool), [b.load(seen, typ=u.I64)])
        pool.lock(b)
        wait = fn.append_basic_block("wait")
        b.cbranch(b.icmp_unsigned("==", pool.get(b, pool.posted), b.load(seen, typ=u.I64)),
                  wait, check)
        b.position_at_end(wait)
    pool.call(b, "pthread_cond_wait", pool.cond, pool.mutex)
    b.branch(check)
    b.position_at_end(fresh)
    b.store(posted, seen)
    state = pool.get(b, pool.job, u.PTR)
    slots = fn.append_basic_block("slots")
    b.cbranch(b.icmp_unsigned("==", state, ir.Constant(u.PTR, None)), check, slots)
    b.position_at_end(slots)
    free = b.load(_word(b, state, _SLOTS), typ=u.I64)
    b.cbranch(b.icmp_signed(">", free, u.i64(0)), join, check)
    b.position_at_end(join)
    b.store(b.sub(free, u.i64(1)), _word(b, state, _SLOTS))
    b.atomic_rmw("add", _word(b, state, _REFS), u.i64(1), "monotonic")
    pool.unlock(b)
    b.call(work, [state])
    b.call(release, [state])
    pool.lock(b)
    b.branch(check)
    return fn


def _pool_init(m: ir.Module, pool: _Pool) -> None:
    """`void hlotool.pool_init()`: set up the lock and the condition with no worker and
    no loop. Called when the runtime is loaded and again in a forked child, which has
    none of the parent's workers (`os.register_at_fork`)."""
    init = ir.Function(m, ir.FunctionType(ir.VoidType(), []), name=POOL_INIT)
    b = ir.IRBuilder(init.append_basic_block("entry"))
    null = ir.Constant(u.PTR, None)
    pool.call(b, "pthread_mutex_init", pool.mutex, null)
    pool.call(b, "pthread_cond_init", pool.cond, null)
    pool.put(b, null, pool.job)
    pool.put(b, u.i64(0), pool.workers)
    b.ret_void()


#: Time-stamp ticks (~0.3-0.5 ms) an idle worker polls for the next loop, yielding between
#: reads, before it sleeps on the condition (x86; as Eigen's pool and OpenMP runtimes
#: spin): a worker woken from sleep took ~100 us to join on the Intel host of
#: 2026-12-07, a split add of 1M f32 ran 0.28 ms with sleeping workers, 0.20 with
#: spinning ones (docs/cpu-performance.md).
SPIN_TICKS = 1_000_000


def _host_is_x86() -> bool:
    from hlotool.targets.cpu.jit import host

    return host().is_x86


#: Chunks per thread a loop is cut into (taken first come, first served, so a thread
#: the OS does not run yet delays the loop by at most one chunk).
CHUNKS_PER_THREAD = 4


def _word(b: ir.IRBuilder, state: ir.Value, k: int) -> ir.Value:
    return b.gep(state, [u.i64(k)], source_etype=u.I64)


def _work_loop(m: ir.Module) -> ir.Function:
    """`void work(state *s)`: run chunks until none is left."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR]), name="hlotool.work")
    fn.linkage = "internal"
    s = fn.args[0]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    load = lambda k, ty=u.I64: b.load(_word(b, s, k), typ=ty)  # noqa: E731
    part = u.Callee(b.inttoptr(load(_FN), u.PTR), _PART)
    buffers = b.inttoptr(load(_BUFFERS), u.PTR)
    n, chunks = load(_N), load(_CHUNKS)
    take, run, end = (fn.append_basic_block(x) for x in ("take", "run", "end"))
    b.branch(take)
    b.position_at_end(take)
    c = b.atomic_rmw("add", _word(b, s, _NEXT), u.i64(1), "monotonic")
    b.cbranch(b.icmp_signed("<", c, chunks), run, end)
    b.position_at_end(run)
    bound = lambda k: b.udiv(b.mul(n, k), chunks)  # noqa: E731
    b.call(part, [buffers, bound(c), bound(b.add(c, u.i64(1)))])
    b.atomic_rmw("add", _word(b, s, _DONE), u.i64(1), "release")
    b.branch(take)
    b.position_at_end(end)
    b.ret_void()
    return fn


def _release(m: ir.Module, free: ir.Function) -> ir.Function:
    """`void release(state *s)`: drop one reference; the last one frees the state."""
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [u.PTR]), name="hlotool.release")
    fn.linkage = "internal"
    s = fn.args[0]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    old = b.atomic_rmw("sub", _word(b, s, _REFS), u.i64(1), "acq_rel")
    with b.if_then(b.icmp_signed("==", old, u.i64(1))):
        b.call(free, [s])
    b.ret_void()
    return fn


def _i32(v: int) -> ir.Constant:
    return ir.Constant(u.I32, v)


class _Runtime:
    """The runtime library (from the disk cache, else compiled once and stored there),
    kept for the life of the process."""

    def __init__(self) -> None:
        from hlotool.targets.cpu.cache import runtime_library
        from hlotool.targets.cpu.jit import Pipeline

        libc = ctypes.CDLL(None)
        for name, _, _ in _LIBC:
            llvm.add_symbol(name, ctypes.cast(getattr(libc, name), ctypes.c_void_p).value)
        library = runtime_library("parallel", _runtime_ir, Pipeline.LEAN)
        llvm.add_symbol(PARALLEL_FOR, library.address(PARALLEL_FOR))
        address = library.address("hlotool.threads")
        llvm.add_symbol(THREADS, address)
        self.threads = ctypes.c_int64.from_address(address)
        self.pool_init = ctypes.CFUNCTYPE(None)(library.address(POOL_INIT))
        self.pool_init()
        os.register_at_fork(after_in_child=self.pool_init)
        # Never freed: the pool's workers run this code until the process exits.
        library.keep_forever()


def default_threads() -> int:
    """$HLOTOOL_THREADS when set (>= 1), else the CPUs this process may run on."""
    env = os.environ.get("HLOTOOL_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            pass
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def threads() -> int:
    """The number of threads a kernel splits its work across now."""
    return _RUNTIME.threads.value if _RUNTIME is not None else 1


def set_threads(n: int | None = None) -> int:
    """Use `n` threads from now on (None: `default_threads()`); returns the old count.

    Takes effect for every compiled kernel, also those loaded from the disk cache.
    Without the runtime (no pthreads) everything runs on one thread."""
    if _RUNTIME is None:
        return 1
    old = _RUNTIME.threads.value
    _RUNTIME.threads.value = min(MAX_THREADS, max(1, default_threads() if n is None else int(n)))
    return old


def max_parts(outer: int, work: int) -> int:
    """The most parts worth running for a kernel with `outer` partitionable iterations
    and `work` work units (`kernel_work`): 1 below 2 * MIN_WORK_PER_PART (and always
    without the runtime)."""
    if _RUNTIME is None:
        return 1
    return max(1, min(outer, MAX_THREADS, work // MIN_WORK_PER_PART))


#: Ops that cost (almost) nothing per element in a fused loop.
_FREE = frozenset({Opcode.PARAMETER, Opcode.CONSTANT, Opcode.BROADCAST, Opcode.RESHAPE,
                   Opcode.BITCAST, Opcode.TUPLE, Opcode.GET_TUPLE_ELEMENT})  # fmt: skip
#: Work units of a transcendental op (a polynomial of ~10-20 flops).
TRANSCENDENTAL_WORK = 8


def kernel_work(elements: int, roots: list[Instruction], inputs: list[Instruction]) -> int:
    """Work units of a kernel that evaluates `roots` from `inputs` at `elements` points:
    ops (`ops_per_element`) plus the bytes it reads and writes, as XLA:CPU's cost model
    adds flops and bytes accessed (xla/service/cpu/parallel_task_assignment.cc)."""
    nbytes = sum(i.shape.byte_size for i in [*inputs, *roots])
    return elements * ops_per_element(roots, inputs) + nbytes


def ops_per_element(roots: list[Instruction], inputs: list[Instruction]) -> int:
    """Work units per output element of the expression computing `roots` from `inputs`
    (1 per op, TRANSCENDENTAL_WORK per transcendental; at least 1)."""
    leaves = {id(i) for i in inputs}
    stack, seen, total = list(roots), set(), 0
    while stack:
        ins = stack.pop()
        if id(ins) in seen or id(ins) in leaves:
            continue
        seen.add(id(ins))
        if ins.opcode not in _FREE:
            total += TRANSCENDENTAL_WORK if ins.opcode in TRANSCENDENTAL else 1
        stack.extend(ins.operands)
    return max(1, total)


def body_function(module: ir.Module, symbol: str, buffers: int) -> ir.Function:
    """`void symbol.body(ptr noalias x buffers, i64 begin, i64 end)`, the per-range
    function `emit_entry` calls: internal and never inlined (the FTZ/DAZ switch around
    its call must not let LLVM move floating-point code across it)."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR] * buffers + [u.I64] * 2),
                     name=f"{symbol}.body")
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    fn.attributes.add("nounwind")
    for arg in fn.args[:buffers]:
        arg.add_attribute("noalias")
    return fn


def emit_entry(module: ir.Module, name: str, body: ir.Function, x86: bool, n: int,
               parts: int) -> None:
    """`void name(void **buffers)` running `body(buffers..., i64 begin, i64 end)` over
    `[0, n)`, split into at most `parts` parts (1: on the calling thread only).

    Split, it adds `name.part(void **buffers, i64 begin, i64 end)` for the threads; the
    function that calls the body (the entry itself when not split, which saves LLVM a
    function to compile) unpacks the buffers, sets FTZ/DAZ in MXCSR (per thread, as
    XLA:CPU runs), calls the body and restores MXCSR."""
    emit_steps(module, name, x86, [(body, n, parts)])


def emit_steps(module: ir.Module, name: str, x86: bool,
               steps: list[tuple[ir.Function, int, int]]) -> None:
    """`void name(void **buffers)` running body functions one after another, each as
    `emit_entry` runs one: (body, n, parts) over `[0, n)` in at most `parts` parts. One
    entry for all the steps: every function costs LLVM's code generator ~1 ms."""
    entry = _glue(ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=name))
    b = ir.IRBuilder(entry.append_basic_block("entry"))
    for k, (body, n, parts) in enumerate(steps):
        if parts <= 1:
            _call_part(b, entry.args[0], body, x86, u.i64(0), u.i64(n))
            continue
        part = _glue(ir.Function(module, _PART, name=f"{name}.part" + (f"{k}" if k else "")))
        part.linkage = "internal"
        pb = ir.IRBuilder(part.append_basic_block("entry"))
        _call_part(pb, part.args[0], body, x86, part.args[1], part.args[2])
        pb.ret_void()
        call_parallel_for(b, part, entry.args[0], n, parts)
    b.ret_void()


def _glue(fn: ir.Function) -> ir.Function:
    """`fn`, a function that only unpacks buffers and calls (an entry, a part), marked
    optnone: LLVM's passes skip it and codegen takes its quick path there (~0.55 ms
    instead of ~1 ms a function on Zen 4; a few ns more per call)."""
    fn.attributes.add("noinline")
    fn.attributes.add("optnone")
    return fn


def load_threads(b: ir.IRBuilder) -> ir.Value:
    """The thread count now (i64), for a kernel that cuts its work into exactly one
    part per thread (a library call per part, each with a setup cost); 1 without the
    runtime."""
    if _RUNTIME is None:
        return u.i64(1)
    count = b.module.globals.get(THREADS)
    if count is None:
        count = ir.GlobalVariable(b.module, u.I64, name=THREADS)
        count.linkage = "external"
    return b.load(count, typ=u.I64)


def call_parallel_for(b: ir.IRBuilder, part: ir.Function, args: ir.Value, n: int | ir.Value,
                      parts: int | ir.Value) -> None:
    """`hlotool_parallel_for(part, args, n, parts)`: part(args, begin, end) over [0, n)
    split into at most `parts` ranges run on the threads (n and parts may be values
    computed at run time)."""
    run = b.module.globals.get(PARALLEL_FOR) or ir.Function(
        b.module, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR, u.I64, u.I64]),
        name=PARALLEL_FOR)
    b.call(run, [part, args, *(u.i64(v) if isinstance(v, int) else v for v in (n, parts))])


def _call_part(b: ir.IRBuilder, buffers: ir.Value, body: ir.Function, x86: bool,
               begin: ir.Value, end: ir.Value) -> None:
    """Unpack the buffer array and call `body` on [begin, end) with FTZ/DAZ set."""
    ptrs = [b.load(b.gep(buffers, [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
            for k in range(len(body.args) - 2)]
    with_ftz(b, x86, lambda: b.call(body, [*ptrs, begin, end]))


def with_ftz(b: ir.IRBuilder, x86: bool, call: Callable[[], object]) -> None:
    """Run `call()` with MXCSR's FTZ/DAZ bits set (x86 only), restoring MXCSR after."""
    if not x86:
        call()
        return
    with b.goto_block(b.function.entry_basic_block):
        saved, mode = b.alloca(u.I32), b.alloca(u.I32)
    stmxcsr = _declare(b.module, "llvm.x86.sse.stmxcsr")
    ldmxcsr = _declare(b.module, "llvm.x86.sse.ldmxcsr")
    b.call(stmxcsr, [saved])
    b.store(b.or_(b.load(saved, typ=u.I32), _i32(FTZ_DAZ)), mode)
    b.call(ldmxcsr, [mode])
    call()
    b.call(ldmxcsr, [saved])


def _declare(module: ir.Module, name: str) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=name)
    return fn


def _start() -> _Runtime | None:
    """The runtime, or None where libc has no pthreads (kernels then run on one thread)."""
    try:
        return _Runtime()
    except (AttributeError, OSError):
        return None


_RUNTIME = _start()
set_threads()
