"""The memory scheduler: orders are topological, the module is marked scheduled, the
chosen order's simulated peak is never above the input order's, and results hold on
every corpus module."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.analysis.liveness import sequential_computations
from hlotool.frontend import parse_hlo
from hlotool.passes.base import PassError
from hlotool.passes.registry import make_pass
from hlotool.passes.scheduler import SCHEDULERS, MemoryModel, schedule_computation
from tests.conftest import CASE_IDS, CASES
from tests.passes import corpus_numerics
from tests.passes.golden import GoldenCase, case_params, run_case

#: Two chains computed interleaved: every big intermediate of both is live at once.
INTERLEAVED = """
HloModule interleaved
ENTRY main {
  p = f32[1024]{0} parameter(0)
  a1 = f32[1024]{0} exponential(p)
  b1 = f32[1024]{0} negate(p)
  a2 = f32[1024]{0} exponential(a1)
  b2 = f32[1024]{0} negate(b1)
  a3 = f32[1024]{0} exponential(a2)
  b3 = f32[1024]{0} negate(b2)
  a4 = f32[4]{0} slice(a3), slice={[0:4]}
  b4 = f32[4]{0} slice(b3), slice={[0:4]}
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a4, b4)
}
"""


@pytest.mark.parametrize("case", case_params("memory-scheduler"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_corpus_numerics(case: Path) -> None:
    module = corpus_numerics.check(case, "memory-scheduler")
    assert module.config.is_scheduled


@pytest.mark.parametrize("algorithm", [*SCHEDULERS, "auto"])
def test_each_algorithm_gives_a_topological_order(algorithm: str) -> None:
    module = parse_hlo(INTERLEAVED)
    make_pass("memory-scheduler", {"algorithm": algorithm}).run(module)
    seen: set[int] = set()
    for ins in module.entry.instructions:
        assert all(id(o) in seen for o in ins.operands), ins.name
        seen.add(id(ins))


def test_auto_lowers_the_peak_of_an_interleaved_order() -> None:
    module = parse_hlo(INTERLEAVED)
    before = MemoryModel.of(module.entry, {}).peak(list(module.entry.instructions))
    order, peak = schedule_computation(module.entry, "auto", {})
    assert peak < before
    assert peak == MemoryModel.of(module.entry, {}).peak(order)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.name in ("while_loop", "scan", "cond")],
    ids=["while_loop", "scan", "cond"],
)
def test_loop_bodies_are_scheduled_too(case: Path) -> None:
    module, _ = corpus_numerics.load(case)
    make_pass("memory-scheduler").run(module)
    assert len(sequential_computations(module)) > 1
    assert not make_pass("memory-scheduler").run(module)


def test_unknown_algorithm_is_a_pass_error() -> None:
    with pytest.raises(PassError, match="algorithm"):
        make_pass("memory-scheduler", {"algorithm": "random"})


def _scan_schedule(comp, model: MemoryModel) -> list:  # noqa: ANN001 (reference)
    """XLA's ListScheduler written the direct way: scan the ready set every step."""
    from hlotool.passes.scheduler import dependencies

    deps = dependencies(comp)
    position = {id(i): n for n, i in enumerate(comp.instructions)}
    waiting = {id(i): len(deps[id(i)]) for i in comp.instructions}
    dependents: dict[int, list] = {}
    for ins in comp.instructions:
        for d in deps[id(ins)]:
            dependents.setdefault(id(d), []).append(ins)
    remaining = dict(model.readers)
    ready = [i for i in comp.instructions if waiting[id(i)] == 0]
    order = []

    def priority(ins) -> tuple[int, int]:  # noqa: ANN001
        freed = sum(model.size[k] for k in model.uses[id(ins)]
                    if remaining[k] == 1 and k in model.size and k not in model.live_out)
        return (freed - model.defined_bytes(ins), -position[id(ins)])

    while ready:
        best = max(ready, key=priority)
        ready.remove(best)
        order.append(best)
        for k in model.uses[id(best)]:
            remaining[k] -= 1
        for user in dependents.get(id(best), []):
            waiting[id(user)] -= 1
            if waiting[id(user)] == 0:
                ready.append(user)
    return order


@pytest.mark.parametrize("case", CASES[:60], ids=CASE_IDS[:60])
def test_list_schedule_matches_the_ready_set_scan(case: Path) -> None:
    module = parse_hlo((case / "module.hlo").read_text())
    for comp in module.computations:
        model = MemoryModel.of(comp, {})
        assert SCHEDULERS["list"](comp, model) == _scan_schedule(comp, model), comp.name


def test_list_schedule_evaluates_priorities_a_linear_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wide module (every chain ready at once) costs pushes in proportion to its
    instructions and buffer uses, not to instructions times the ready set."""
    import heapq

    import hlotool.passes.scheduler as scheduler

    width = 400
    lines = ["HloModule wide", "ENTRY main {", "  p = f32[64]{0} parameter(0)"]
    for k in range(width):
        lines += [f"  a{k} = f32[64]{{0}} exponential(p)", f"  b{k} = f32[64]{{0}} negate(a{k})"]
    parts = ", ".join(f"b{k}" for k in range(width))
    lines += [f"  ROOT t = ({', '.join(['f32[64]{0}'] * width)}) tuple({parts})", "}"]
    comp = parse_hlo("\n".join(lines)).entry
    model = MemoryModel.of(comp, {})
    pushes = []

    def counting_push(heap: list, item: object) -> None:
        pushes.append(1)
        heapq.heappush(heap, item)

    monkeypatch.setattr(scheduler, "heapq",
                        type("H", (), {"heappush": staticmethod(counting_push),
                                       "heappop": staticmethod(heapq.heappop)}))
    order = scheduler.list_schedule(comp, model)
    uses = sum(len(u) for u in model.uses.values())
    assert len(order) == len(comp.instructions)
    assert len(pushes) <= len(comp.instructions) + uses
