"""Kernels split across threads (targets/cpu/kernels/parallel.py) compute the same bits as
on one thread and as the interpreter: loop kernels (plain and tiled transposes), row
kernels and reductions that keep dims, for uneven splits, more threads than cores and
more threads than rows.

The work threshold is lowered (`MIN_WORK_PER_PART`) so small shapes split; modules are
compiled without the disk cache, whose key does not include that threshold.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.cache import DiskCache
from hlotool.targets.cpu.kernels import parallel
from tests.targets.conftest import assert_same
from tests.targets.test_cpu_reduce import reduce_text
from tests.targets.test_cpu_row import LAYERNORM, softmax_text

THREADS = (1, 2, 3, 5)


@pytest.fixture
def low_threshold(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Split kernels of any size; restore the thread count afterwards."""
    monkeypatch.setattr(parallel, "MIN_WORK_PER_PART", 1)
    old = parallel.threads()
    yield
    parallel.set_threads(old)


def compile_text(text: str) -> Any:
    return compile_module(parse_hlo(text), cache=False, autotune=False, keep_asm=True)


def check_split(text: str, *args: np.ndarray, split: bool = True) -> None:
    """Same bits with every thread count as the interpreter; `split`: the kernel calls
    the parallel runtime."""
    ex = compile_text(text)
    assert ("call void @hlotool_parallel_for" in ex.library.llvm_ir) is split
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run(list(args))
    for n in THREADS:
        parallel.set_threads(n)
        got = ex.run(list(args))
        assert ex.stats.fallback == 0, ex.skipped
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,), strict=True):
            assert_same(g, w)


def elementwise(shape: tuple[int, ...]) -> str:
    s = ",".join(map(str, shape))
    return f"""HloModule m
f {{
  p = f32[{s}] parameter(0)
  c = f32[] constant(0.044715)
  cb = f32[{s}] broadcast(c), dimensions={{}}
  x3 = f32[{s}] multiply(p, p)
  m = f32[{s}] multiply(x3, cb)
  t = f32[{s}] tanh(m)
  e = f32[{s}] exponential(p)
  ROOT r = f32[{s}] add(t, e)
}}
ENTRY e {{
  a = f32[{s}] parameter(0)
  ROOT f = f32[{s}] fusion(a), kind=kLoop, calls=f
}}"""


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * 4).astype(np.float32)


@pytest.mark.parametrize("shape", [(1001,), (7, 129), (3, 5, 67), (2, 1, 33), (5,)])
def test_loop_kernel(low_threshold: None, shape: tuple[int, ...]) -> None:
    check_split(elementwise(shape), rand(*shape))


def test_more_threads_than_iterations(low_threshold: None) -> None:
    """MAX_THREADS threads on 1001 and on 7 outer iterations."""
    for shape in [(1001, 3), (7, 40)]:
        ex = compile_text(elementwise(shape))
        x = rand(*shape, seed=13)
        with np.errstate(all="ignore"):
            want = Evaluator(parse_hlo(elementwise(shape))).run([x])
        parallel.set_threads(parallel.MAX_THREADS)
        for _ in range(3):
            assert_same(ex.run([x]), want)


def test_multi_output_loop_kernel(low_threshold: None) -> None:
    text = """HloModule m
f {
  p = s32[37,11] parameter(0)
  q = s32[37,11] parameter(1)
  a = s32[37,11] multiply(p, q)
  b = pred[37,11] compare(p, q), direction=LT
  ROOT t = (s32[37,11], pred[37,11]) tuple(a, b)
}
ENTRY e {
  x = s32[37,11] parameter(0)
  y = s32[37,11] parameter(1)
  ROOT f = (s32[37,11], pred[37,11]) fusion(x, y), kind=kLoop, calls=f
}"""
    rng = np.random.default_rng(2)
    x, y = (rng.integers(-2**31, 2**31 - 1, (37, 11), dtype=np.int32) for _ in range(2))
    check_split(text, x, y)


@pytest.mark.parametrize("shape,perm", [((100, 70), (1, 0)), ((3, 65, 40), (0, 2, 1)),
                                        ((40, 3, 97), (2, 1, 0))])
def test_tiled_transpose(low_threshold: None, shape: tuple[int, ...],
                         perm: tuple[int, ...]) -> None:
    out = tuple(shape[p] for p in perm)
    s, o = ",".join(map(str, shape)), ",".join(map(str, out))
    text = f"""HloModule m
ENTRY e {{
  a = f32[{s}] parameter(0)
  t = f32[{o}] transpose(a), dimensions={{{",".join(map(str, perm))}}}
  ROOT r = f32[{o}] negate(t)
}}"""
    check_split(text, rand(*shape))


@pytest.mark.parametrize("shape", [(37, 300), (3, 4097), (2, 40)])
def test_softmax(low_threshold: None, shape: tuple[int, int]) -> None:
    check_split(softmax_text(*shape, "kInput"), rand(*shape, seed=3))


def test_layernorm_two_row_dims(low_threshold: None) -> None:
    check_split(LAYERNORM, rand(3, 5, 300, seed=4), rand(300, seed=5))


@pytest.mark.parametrize("shape,dims", [((33, 1000), (1,)), ((1000, 33), (0,)),
                                        ((5, 7, 300), (2,)), ((6, 70, 9), (0, 2)),
                                        ((3, 2), (1,))])
def test_reduce_keeping_dims(low_threshold: None, shape: tuple[int, ...],
                             dims: tuple[int, ...]) -> None:
    check_split(reduce_text(shape, list(dims), "add"), rand(*shape, seed=6))


def test_integer_max_reduce(low_threshold: None) -> None:
    x = np.random.default_rng(7).integers(-1000, 1000, (17, 500), dtype=np.int32)
    check_split(reduce_text((17, 500), [1], "maximum", "s32"), x)


def test_full_reduction_stays_on_one_thread(low_threshold: None) -> None:
    check_split(reduce_text((100, 100), [0, 1], "add"), rand(100, 100, seed=8), split=False)


def test_small_kernels_do_not_split() -> None:
    """With the default threshold a small kernel has no threading code at all."""
    check_split(elementwise((64, 64)), rand(64, 64), split=False)
    check_split(softmax_text(4, 100, "kInput"), rand(4, 100), split=False)


def test_large_kernel_splits_by_default() -> None:
    old = parallel.threads()
    try:
        check_split(elementwise((512, 1024)), rand(512, 1024, seed=9))
    finally:
        parallel.set_threads(old)


def test_thread_count_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    old = parallel.threads()
    try:
        for env, want in [("3", 3), ("1", 1), ("0", 1), ("100000", parallel.MAX_THREADS)]:
            monkeypatch.setenv("HLOTOOL_THREADS", env)
            parallel.set_threads()
            assert parallel.threads() == want
        monkeypatch.setenv("HLOTOOL_THREADS", "many")
        assert parallel.default_threads() >= 1
        monkeypatch.delenv("HLOTOOL_THREADS")
        parallel.set_threads()
        assert parallel.set_threads(7) == parallel.default_threads()
        assert parallel.threads() == 7
    finally:
        parallel.set_threads(old)


def test_concurrent_executables(low_threshold: None) -> None:
    """Two executables running at once from different Python threads."""
    parallel.set_threads(3)
    texts = [elementwise((61, 77)), softmax_text(29, 500, "kInput")]
    args = [rand(61, 77, seed=10), rand(29, 500, seed=11)]
    exes = [compile_text(t) for t in texts]
    with np.errstate(all="ignore"):
        wants = [Evaluator(parse_hlo(t)).run([a]) for t, a in zip(texts, args, strict=True)]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(20):
                assert_same(exes[k].run([args[k]]), wants[k])
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors


def test_split_kernel_from_the_disk_cache(tmp_path: Path) -> None:
    """A cached object file finds the runtime too (the symbol is registered at import)."""
    old = parallel.threads()
    text = softmax_text(256, 2048, "kInput")
    x = rand(256, 2048, seed=12)
    try:
        parallel.set_threads(2)
        first = compile_module(parse_hlo(text), cache=DiskCache(tmp_path), autotune=False,
                               keep_asm=True)
        assert "call void @hlotool_parallel_for" in first.library.llvm_ir
        second = compile_module(parse_hlo(text), cache=DiskCache(tmp_path), autotune=False)
        assert second.library.cache_hit and not first.library.cache_hit
        with np.errstate(all="ignore"):
            want = Evaluator(parse_hlo(text)).run([x])
        assert_same(second.run([x]), want)
        assert_same(first.run([x]), want)
    finally:
        parallel.set_threads(old)


def _os_threads() -> int:
    return len(os.listdir(f"/proc/{os.getpid()}/task"))


def test_workers_are_pooled(low_threshold: None) -> None:
    """Split kernels reuse the pool's workers: many runs start no more threads than one."""
    parallel.set_threads(3)
    text = elementwise((61, 77))
    ex = compile_text(text)
    x = rand(61, 77, seed=14)
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run([x])
    assert_same(ex.run([x]), want)
    before = _os_threads()
    for _ in range(50):
        assert_same(ex.run([x]), want)
    assert _os_threads() <= before


def test_split_kernel_in_a_forked_child(low_threshold: None) -> None:
    """A forked child (which has none of the parent's workers) runs split kernels."""
    parallel.set_threads(3)
    text = softmax_text(29, 500, "kInput")
    ex = compile_text(text)
    x = rand(29, 500, seed=15)
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run([x])
    assert_same(ex.run([x]), want)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            got = ex.run([x])
            code = 0 if np.array_equal(got.view(np.uint32), want.view(np.uint32)) else 3
        finally:
            os._exit(code)
    assert _wait_child(pid, seconds=120) == 0


def _wait_child(pid: int, seconds: float) -> int:
    """The child's exit code; a child stuck past `seconds` (a lock another thread held at
    the fork) is killed and fails the test instead of hanging the suite."""
    import signal
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError(f"the forked child did not finish in {seconds} s")
