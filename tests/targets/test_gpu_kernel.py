"""The GPU kernel model: one body, two lowerings; thread orders catch a missing barrier."""

from __future__ import annotations

import numpy as np
import pytest
from llvmlite import ir

from hlotool.targets.gpu import nvptx, ptxas
from hlotool.targets.gpu.emulator import ORDERS, Emulator, thread_order
from hlotool.targets.gpu.kernel import IndexContext, Kernel, Local, PhaseLoop, Shared
from hlotool.targets.llvm import irutils as u

BLOCK, GRID = 64, 8
N = BLOCK * GRID


def _at(ctx: IndexContext, ptr: ir.Value, i: ir.Value) -> ir.Value:
    return ctx.b.gep(ptr, [i], source_etype=u.F32)


def _axpy() -> Kernel:
    def body(ctx: IndexContext) -> None:
        b, i = ctx.b, ctx.global_thread()
        x = b.load(_at(ctx, ctx.param(0), i), typ=u.F32)
        y = b.load(_at(ctx, ctx.param(1), i), typ=u.F32)
        b.store(b.fadd(b.fmul(ir.Constant(u.F32, 2.0), x), y), _at(ctx, ctx.param(2), i))
    return Kernel("axpy", 3, BLOCK, GRID, [body])


def _shift(barrier: bool) -> Kernel:
    """out[i] = x[i + 1 within the block] through shared memory (with or without the
    barrier between the write and the read)."""
    def write(ctx: IndexContext) -> None:
        b = ctx.b
        x = b.load(_at(ctx, ctx.param(0), ctx.global_thread()), typ=u.F32)
        b.store(x, _at(ctx, ctx.shared("s"), ctx.thread))

    def read(ctx: IndexContext) -> None:
        b = ctx.b
        nxt = b.urem(b.add(ctx.thread, u.i64(1)), u.i64(BLOCK))
        v = b.load(_at(ctx, ctx.shared("s"), nxt), typ=u.F32)
        b.store(v, _at(ctx, ctx.param(1), ctx.global_thread()))

    def both(ctx: IndexContext) -> None:
        write(ctx)
        read(ctx)

    phases = [write, read] if barrier else [both]
    name = "shift" if barrier else "shift_racy"
    return Kernel(name, 2, BLOCK, GRID, phases, shared=[Shared("s", u.F32, BLOCK)])


def _block_sums() -> Kernel:
    """Per block: a PhaseLoop of 3 rounds adding every thread's neighbour through shared
    memory into a per-thread local (barriers inside the loop)."""
    def init(ctx: IndexContext) -> None:
        b = ctx.b
        b.store(b.load(_at(ctx, ctx.param(0), ctx.global_thread()), typ=u.F32), ctx.local("acc"))

    def publish(ctx: IndexContext) -> None:
        b = ctx.b
        b.store(b.load(ctx.local("acc"), typ=u.F32), _at(ctx, ctx.shared("s"), ctx.thread))

    def gather(ctx: IndexContext) -> None:
        b = ctx.b
        step = b.shl(u.i64(1), ctx.loop_index("round"))
        other = b.urem(b.add(ctx.thread, step), u.i64(BLOCK))
        v = b.load(_at(ctx, ctx.shared("s"), other), typ=u.F32)
        b.store(b.fadd(b.load(ctx.local("acc"), typ=u.F32), v), ctx.local("acc"))

    def done(ctx: IndexContext) -> None:
        b = ctx.b
        b.store(b.load(ctx.local("acc"), typ=u.F32), _at(ctx, ctx.param(1), ctx.global_thread()))

    return Kernel("rounds", 2, BLOCK, GRID, [init, PhaseLoop("round", 3, [publish, gather]), done],
                  shared=[Shared("s", u.F32, BLOCK)], locals=[Local("acc", u.F32)])


@pytest.fixture(scope="module")
def emulator() -> Emulator:
    return Emulator([_axpy(), _shift(True), _shift(False), _block_sums()], "model")


def _run(em: Emulator, name: str, *arrays: np.ndarray, order: str) -> np.ndarray:
    out = np.zeros(N, np.float32)
    em.launch(name, [*arrays, out], order)
    return out


def test_axpy_every_order(emulator: Emulator) -> None:
    x = np.arange(N, dtype=np.float32)
    y = np.full(N, 0.5, np.float32)
    for order in ORDERS:
        np.testing.assert_array_equal(_run(emulator, "axpy", x, y, order=order), 2 * x + y)


def test_shared_memory_with_barrier_agrees(emulator: Emulator) -> None:
    x = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    want = np.roll(x.reshape(GRID, BLOCK), -1, axis=1).reshape(-1)
    for order in ORDERS:
        np.testing.assert_array_equal(_run(emulator, "shift", x, order=order), want)


def test_missing_barrier_is_caught(emulator: Emulator) -> None:
    """The racy kernel passes in forward order; reversed or shuffled orders expose it."""
    x = np.random.default_rng(1).standard_normal(N).astype(np.float32)
    results = {o: _run(emulator, "shift_racy", x, order=o) for o in ORDERS}
    assert not all(np.array_equal(results["forward"], r) for r in results.values())


def test_phase_loop_with_locals(emulator: Emulator) -> None:
    x = np.random.default_rng(2).standard_normal(N).astype(np.float32)
    acc = x.reshape(GRID, BLOCK).astype(np.float32)
    for r in range(3):
        acc = acc + np.roll(acc, -(1 << r), axis=1)
    for order in ORDERS:
        np.testing.assert_allclose(_run(emulator, "rounds", x, order=order), acc.reshape(-1),
                                   rtol=1e-6)


def test_thread_orders_are_permutations() -> None:
    for order in ORDERS:
        assert sorted(thread_order(37, order, seed=3)) == list(range(37))
    assert list(thread_order(4, "reversed")) == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="thread order"):
        thread_order(4, "sideways")


def test_nvptx_lowering_has_barriers_and_assembles() -> None:
    """The same kernels as PTX: one bar.sync per phase boundary, ftz arithmetic, no
    contraction, and ptxas (the gpu extra) accepts them for sm_80 and sm_90."""
    kernels = [_axpy(), _shift(True), _block_sums()]
    for arch in nvptx.ARCHS:
        _, ptx = nvptx.kernels_ptx(kernels, "model", arch)
        assert f".target {arch}" in ptx and f".version {nvptx.PTX_VERSION}" in ptx
        assert ".shared" in ptx and "bar.sync" in ptx
        assert "add.rn.ftz.f32" in ptx and "fma.rn" not in ptx
        assert ptxas.find() is not None, "ptxas missing: install the gpu extra"
        cubin, res = ptxas.assemble(ptx, arch)
        assert cubin[:4] == b"\x7fELF"
        assert res["shift"].barriers == 1 and res["shift"].shared_bytes == BLOCK * 4
        assert res["axpy"].barriers == 0


def test_bad_ptx_is_a_clear_error() -> None:
    with pytest.raises(ptxas.PtxasError, match="ptxas -arch=sm_90 failed"):
        ptxas.assemble(".version 7.8\n.target sm_90\n.address_size 64\nnonsense;\n", "sm_90")


def test_resource_parsing() -> None:
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
           "ptxas info    : Function properties for k\n"
           "    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
           "ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n")
    r = ptxas.parse_resources(log)["k"]
    assert (r.registers, r.barriers, r.shared_bytes, r.stack_bytes, r.spill_bytes) == (12, 1, 1024, 16, 4)
