"""Compiling a library's full-pipeline code in forked processes: the parts, a child that
fails, and a module of many kernels computing the interpreter's values either way."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import CpuTarget
from hlotool.targets.cpu import compile_workers
from hlotool.targets.cpu.compile_workers import (
    KERNEL_MARK,
    MIN_KERNELS_PER_PART,
    compile_all,
    parts_for,
    split,
)
from hlotool.targets.cpu.jit import Pipeline
from hlotool.targets.cpu.kernels import parallel
from tests.targets.conftest import assert_same

linux_fork = pytest.mark.skipif(sys.platform != "linux", reason="needs fork (Linux)")
#: Tests that fork on purpose where other tests loaded jax, which warns at each fork.
forks = pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")


@pytest.fixture(autouse=True)
def _forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Other tests of this process may have loaded jax; these test the workers."""
    monkeypatch.setattr(compile_workers, "FORK_UNSAFE_MODULES", ())


def _text(kernels: int) -> str:
    body = "\n".join(f"{KERNEL_MARK}\ndefine void @k{i}() {{\n  ret void\n}}" for i in range(kernels))
    return f'; ModuleID = "m"\ndeclare void @f()\n{body}\n'


def test_split_keeps_every_kernel_once_and_the_declarations_in_each_part() -> None:
    parts = split(_text(50), 3)
    assert len(parts) == 3
    for part in parts:
        assert part.startswith('; ModuleID = "m"\ndeclare void @f()\n')
    names = [line for part in parts for line in part.splitlines() if line.startswith("define")]
    assert names == [f"define void @k{i}() {{" for i in range(50)]
    sizes = [p.count("define") for p in parts]
    assert max(sizes) - min(sizes) <= 1


def test_few_kernels_stay_one_part() -> None:
    assert parts_for(_text(MIN_KERNELS_PER_PART * 2 - 1), 8) == 1
    assert parts_for(_text(200), 1) == 1
    assert split(_text(3), 4) == [_text(3)]


@linux_fork
def test_nothing_forks_once_a_threaded_runtime_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parts_for(_text(200), 2) == 2
    monkeypatch.setattr(compile_workers, "FORK_UNSAFE_MODULES", ("some_runtime",))
    monkeypatch.setitem(sys.modules, "some_runtime", sys)
    assert parts_for(_text(200), 2) == 1


@linux_fork
@forks
def test_a_failing_child_leaves_its_units_to_the_parent() -> None:
    parent = os.getpid()

    def compile_one(unit: int) -> tuple[int, int]:
        if os.getpid() != parent and unit == 2:
            raise RuntimeError("the child fails")
        return unit * unit, os.getpid()

    got = compile_all([0, 1, 2, 3], compile_one, 3)
    assert [v for v, _ in got] == [0, 1, 4, 9]
    assert got[1][1] != parent  # compiled by a child
    assert got[2][1] == parent  # the child failed: compiled again here
    assert got[3][1] == parent  # the parent's own share: unit 0 and those after the children's


def _many_kernels(n: int) -> str:
    """An entry of `n` distinct elementwise fusions (distinct constants), chained."""
    lines, comps = ["  x0 = f32[256] parameter(0)"], []
    for i in range(n):
        comps.append(f"f{i} {{\n  p = f32[256] parameter(0)\n  c = f32[] constant({i + 2})\n"
                     f"  b = f32[256] broadcast(c), dimensions={{}}\n  m = f32[256] multiply(p, b)\n"
                     f"  ROOT t = f32[256] tanh(m)\n}}")
        lines.append(f"  x{i + 1} = f32[256] fusion(x{i}), kind=kLoop, calls=f{i}")
    lines[-1] = "  ROOT" + lines[-1][1:]
    return "HloModule m\n" + "\n".join(comps) + "\nENTRY e {\n" + "\n".join(lines) + "\n}"


@linux_fork
@forks
def test_a_module_of_many_kernels_compiles_in_two_processes_to_the_same_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[object] = []
    collect = compile_workers._collect

    def recording(child: object) -> object:
        got = collect(child)  # type: ignore[arg-type]
        sent.append(got)
        return got

    monkeypatch.setattr(compile_workers, "_collect", recording)
    module = parse_hlo(_many_kernels(2 * MIN_KERNELS_PER_PART + 4))
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32) * 0.1
    want = Evaluator(module).run([x])
    old = parallel.set_threads(2)
    try:
        ex = CpuTarget(cache=False, autotune=False).compile(module)
    finally:
        parallel.set_threads(old)
    assert ex.library is not None
    full = [u for u in ex.library._units if u.pipeline is Pipeline.FULL]
    assert len(full) == 2
    assert len(ex.library.objects) == len(ex.library._units)
    assert len(sent) == 1 and isinstance(sent[0], dict) and list(sent[0]) == [1]  # a child's part
    assert_same(ex.run([x]), want)
