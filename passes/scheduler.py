"""Memory-minimizing scheduling (XLA's HloMemoryScheduler with DefaultMemoryScheduler).

Each computation that runs in sequence (the entry, loop bodies and conditions, branches)
gets three candidate orders, and keeps the one whose simulated peak memory is lowest:

- list: XLA's ListScheduler, greedy; among the ready instructions take the one that
  frees the most bytes net of what it allocates (ties: earliest in the current order);
- dfs: XLA's DFSMemoryScheduler, a post-order from the root visiting first the operands
  with the most extra users, then the largest subgraphs;
- post-order: operands before users in the current order.

The instruction list *is* the schedule: the pass reorders `Computation.instructions`
(always topologically) and sets `is_scheduled=true`. Memory is simulated on logical
buffers: bitcasts, tuples and get-tuple-elements allocate nothing, a buffer dies after
its last user, and an instruction that runs a loop or branch adds that computation's
own peak while it runs.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from hlotool.analysis.liveness import (
    BufferKey,
    control_flow_callees,
    defined_buffers,
    sequential_computations,
    value_trees,
)
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass, PassError
from hlotool.passes.utils import has_side_effect

O = Opcode


@dataclass
class MemoryModel:
    """Buffer sizes and uses of one computation, for simulating schedules."""

    comp: Computation
    #: Bytes of each logical buffer the computation defines.
    size: dict[BufferKey, int] = field(default_factory=dict)
    #: Buffers each instruction defines / reads.
    defines: dict[int, list[BufferKey]] = field(default_factory=dict)
    uses: dict[int, set[BufferKey]] = field(default_factory=dict)
    #: How many instructions read each buffer.
    readers: dict[BufferKey, int] = field(default_factory=dict)
    #: Buffers the computation returns (never freed).
    live_out: set[BufferKey] = field(default_factory=set)
    #: Peak bytes of the loops and branches an instruction runs.
    callee_peak: dict[int, int] = field(default_factory=dict)

    @staticmethod
    def of(comp: Computation, peaks: dict[int, int]) -> MemoryModel:
        m = MemoryModel(comp)
        trees = value_trees(comp)
        for ins in comp.instructions:
            keys = []
            if ins.opcode not in (O.PARAMETER, O.CONSTANT):
                for index, leaf in defined_buffers(ins):
                    key = (id(ins), index)
                    m.size[key] = leaf.byte_size
                    keys.append(key)
            m.defines[id(ins)] = keys
            used = {k for o in ins.operands for keys_ in trees[id(o)].values() for k in keys_}
            m.uses[id(ins)] = used
            for k in used:
                m.readers[k] = m.readers.get(k, 0) + 1
            m.callee_peak[id(ins)] = max(
                (peaks.get(id(c), 0) for c in control_flow_callees(ins)), default=0
            )
        assert comp.root is not None
        m.live_out = {k for keys_ in trees[id(comp.root)].values() for k in keys_}
        return m

    def defined_bytes(self, ins: Instruction) -> int:
        return sum(self.size[k] for k in self.defines[id(ins)])

    def peak(self, order: list[Instruction]) -> int:
        """Simulated peak bytes of running `order` (XLA's HeapSimulator without
        fragmentation: MinimumMemoryForComputation)."""
        remaining = dict(self.readers)
        live = peak = 0
        for ins in order:
            live += self.defined_bytes(ins)
            peak = max(peak, live + self.callee_peak[id(ins)])
            for k in self.uses[id(ins)]:
                remaining[k] -= 1
                if remaining[k] == 0 and k not in self.live_out and k in self.size:
                    live -= self.size[k]
            for k in self.defines[id(ins)]:
                if k not in remaining and k not in self.live_out:
                    live -= self.size[k]
        return peak


def dependencies(comp: Computation) -> dict[int, list[Instruction]]:
    """Operands, control predecessors, and (to keep their order) the previous
    instruction with side effects."""
    deps: dict[int, list[Instruction]] = {}
    previous: Instruction | None = None
    for ins in comp.instructions:
        d = list(dict.fromkeys((*ins.operands, *ins.control_predecessors)))
        if has_side_effect(ins):
            if previous is not None and previous not in d:
                d.append(previous)
            previous = ins
        deps[id(ins)] = d
    return deps


# -- the three schedulers -----------------------------------------------------------------
def list_schedule(comp: Computation, model: MemoryModel) -> list[Instruction]:
    """XLA's ListScheduler: greedily schedule the ready instruction with the best
    bytes-freed minus bytes-allocated (ties: earliest in the current order).

    The ready set is a heap. A ready instruction's priority only rises, when a buffer
    it reads gets down to its last reader, so it is pushed again then and stale entries
    are skipped: O(n log n) instead of a scan of the ready set per step."""
    deps = dependencies(comp)
    instructions = comp.instructions
    position = {id(i): n for n, i in enumerate(instructions)}
    waiting = {id(i): len(deps[id(i)]) for i in instructions}
    dependents: dict[int, list[Instruction]] = {}
    readers: dict[BufferKey, list[Instruction]] = {}
    for ins in instructions:
        for d in deps[id(ins)]:
            dependents.setdefault(id(d), []).append(ins)
        for k in model.uses[id(ins)]:
            readers.setdefault(k, []).append(ins)
    remaining = dict(model.readers)
    freeable = {k: size for k, size in model.size.items() if k not in model.live_out}
    score: dict[int, int] = {}
    heap: list[tuple[int, int, Instruction]] = []

    def push(ins: Instruction) -> None:
        s = sum(freeable.get(k, 0) for k in model.uses[id(ins)] if remaining[k] == 1)
        s -= model.defined_bytes(ins)
        score[id(ins)] = s
        heapq.heappush(heap, (-s, position[id(ins)], ins))

    for ins in instructions:
        if waiting[id(ins)] == 0:
            push(ins)
    order: list[Instruction] = []
    done: set[int] = set()
    while heap:
        neg, _, best = heapq.heappop(heap)
        if id(best) in done or -neg != score[id(best)]:
            continue
        done.add(id(best))
        order.append(best)
        for k in model.uses[id(best)]:
            remaining[k] -= 1
            if remaining[k] == 1 and freeable.get(k):
                for r in readers[k]:
                    if id(r) not in done and id(r) in score:
                        push(r)
        for user in dependents.get(id(best), []):
            waiting[id(user)] -= 1
            if waiting[id(user)] == 0:
                push(user)
    return order


def dfs_schedule(comp: Computation, model: MemoryModel) -> list[Instruction]:
    """XLA's DFSMemoryScheduler: a post-order that first visits the operands with the
    most extra users, then those with the largest cumulative size."""
    deps = dependencies(comp)
    extra: dict[int, int] = {}
    total: dict[int, int] = {}
    for ins in comp.instructions:
        ds = deps[id(ins)]
        extra[id(ins)] = max(0, len(ins.unique_users) - 1) + sum(extra[id(d)] for d in ds)
        total[id(ins)] = model.defined_bytes(ins) + sum(total[id(d)] for d in ds)
    order: list[Instruction] = []
    done: set[int] = set()

    def key(d: Instruction) -> tuple[int, int, str]:
        return (-extra[id(d)], -total[id(d)], d.name)

    assert comp.root is not None
    for start in [comp.root, *reversed(comp.instructions)]:
        if id(start) in done:
            continue
        # Each node's pending operands, reversed so the next one pops off the end.
        stack: list[tuple[Instruction, list[Instruction]]] = [
            (start, sorted(deps[id(start)], key=key, reverse=True))
        ]
        done.add(id(start))
        while stack:
            node, pending = stack[-1]
            if pending:
                d = pending.pop()
                if id(d) not in done:
                    done.add(id(d))
                    stack.append((d, sorted(deps[id(d)], key=key, reverse=True)))
            else:
                stack.pop()
                order.append(node)
    return order


def post_order_schedule(comp: Computation, model: MemoryModel) -> list[Instruction]:
    """Operands before users, following the current order."""
    del model
    return comp.post_order()


SCHEDULERS: dict[str, Callable[[Computation, MemoryModel], list[Instruction]]] = {
    "list": list_schedule,
    "dfs": dfs_schedule,
    "post-order": post_order_schedule,
}


def schedule_computation(
    comp: Computation, algorithm: str, peaks: dict[int, int]
) -> tuple[list[Instruction], int]:
    """The chosen order of `comp` and its simulated peak (XLA's DefaultMemoryScheduler
    for `auto`: the best of list, dfs and post-order)."""
    model = MemoryModel.of(comp, peaks)
    names = list(SCHEDULERS) if algorithm == "auto" else [algorithm]
    best: tuple[list[Instruction], int] | None = None
    for name in names:
        order = _parameters_first(SCHEDULERS[name](comp, model))
        peak = model.peak(order)
        if best is None or peak < best[1]:
            best = (order, peak)
    assert best is not None
    return best


def temporaries_peak(module: Module) -> int:
    """Simulated peak bytes of what the entry allocates besides its outputs, in its
    current order (loops and branches counted at their own peaks): one linear pass, for
    estimates made before scheduling and buffer assignment."""
    sequential = {id(c) for c in sequential_computations(module)}
    peaks: dict[int, int] = {}
    for comp in module.computation_post_order():
        if id(comp) not in sequential:
            continue
        model = MemoryModel.of(comp, peaks)
        if comp is module.entry:
            for key in model.live_out:
                model.size[key] = 0
        peaks[id(comp)] = model.peak(comp.post_order())
    return peaks.get(id(module.entry), 0)


def _parameters_first(order: list[Instruction]) -> list[Instruction]:
    params = sorted((i for i in order if i.opcode is O.PARAMETER), key=lambda i: i.parameter_number)
    return params + [i for i in order if i.opcode is not O.PARAMETER]


@dataclass(frozen=True)
class MemorySchedulerPass(Pass):
    """Order each sequential computation to minimize peak memory and mark the module
    scheduled (XLA's HloMemoryScheduler; `algorithm=auto` is DefaultMemoryScheduler)."""

    name: ClassVar[str] = "memory-scheduler"
    summary: ClassVar[str] = "order instructions to minimize peak memory; mark the module scheduled"
    xla: ClassVar[str] = "HloMemoryScheduler (DefaultMemoryScheduler)"
    #: list, dfs, post-order, or auto (the best of the three).
    algorithm: str = "auto"

    def __post_init__(self) -> None:
        if self.algorithm != "auto" and self.algorithm not in SCHEDULERS:
            raise PassError(f"memory-scheduler: algorithm must be auto, {', '.join(SCHEDULERS)}")

    def run(self, module: Module) -> bool:
        sequential = {id(c) for c in sequential_computations(module)}
        peaks: dict[int, int] = {}
        changed = False
        # Callees first, so that a loop's peak is known where the loop runs.
        for comp in module.computation_post_order():
            if id(comp) not in sequential:
                continue
            order, peaks[id(comp)] = schedule_computation(comp, self.algorithm, peaks)
            if order != comp.instructions:
                comp.instructions = order
                changed = True
        if not module.config.is_scheduled:
            module.config.is_scheduled = True
            changed = True
        return changed
