"""Buffer assignment (XLA's BufferAssignment over the module's schedule).

`assign_buffers(module)` decides where every value of a scheduled module lives:

1. Logical values: each array leaf an instruction defines (bitcasts, tuples and
   get-tuple-elements define none; they name their operand's value).
2. Aliasing that execution requires joins values into one buffer: a while loop's init,
   body parameter, body root, condition parameter and result; a call's operands and
   callee parameters, callee root and result; a conditional's branch roots and result;
   declared `output_to_operand_aliasing`; the module's `input_output_alias` (an output
   written into a parameter's buffer).
3. Live ranges over the flattened schedule (`Timeline`): from the first definition to
   the last use; the entry's outputs live to the end.
4. In-place updates: in schedule order, an instruction that may write over an operand
   (`can_share_operand_buffer`: elementwise ops, dynamic-update-slice, loop fusions
   whose parameter reaches the root elementwise) and is that operand's last reader
   takes over the operand's buffer, as XLA's buffer assignment does for a dying operand.
5. Temporary buffers that die before some output is computed borrow that output's
   allocation, as XLA reuses live-out allocations; the others are packed into one arena
   by XLA's GlobalDecreasingSizeBestFitHeap: largest first, each at the best-fitting
   64-byte-aligned offset free for its whole live range. Parameters, constants and
   outputs get allocations of their own.

`peak_bytes` is the arena size: what XLA reports as `temp_size_in_bytes`. The CPU target
allocates one arena of that size, allocates the outputs before the run, and hands each
kernel `arena + offset` (or `output + offset` for a temp whose `home` is an output).
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from hlotool.analysis.liveness import (
    BufferKey,
    ShapeIndex,
    Timeline,
    can_share_operand_buffer,
    leaf_items,
    sequential_computations,
)
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass

O = Opcode

#: XLA:CPU's minimum buffer alignment (cpu_compiler.cc's MinAlign).
ALIGNMENT = 64
#: Allocation kinds, in the order the memory report lists them.
KINDS = ("temp", "output", "parameter", "constant")


def align(n: int, alignment: int = ALIGNMENT) -> int:
    return (n + alignment - 1) // alignment * alignment


@dataclass
class Buffer:
    """Storage shared by one or more logical values."""

    id: int
    #: The defining instruction and shape index of its first value.
    instruction: Instruction
    index: ShapeIndex
    size: int
    #: temp (in the arena), output, parameter or constant.
    kind: str
    #: First and last timeline position at which the buffer holds a live value.
    start: int
    end: int
    #: Offset in the arena (temps); 0 for the other kinds.
    offset: int = 0
    #: Every (instruction, shape index) whose value lives here.
    values: list[tuple[Instruction, ShapeIndex]] = field(default_factory=list)
    #: Also an output of the entry (a parameter or constant returned as is).
    live_out: bool = False
    #: For a temp that lives inside an output's allocation before that output is
    #: computed: the output buffer's id (its `offset` is then within that output);
    #: -1 for temps in the arena.
    home: int = -1

    @property
    def name(self) -> str:
        suffix = "{" + ",".join(map(str, self.index)) + "}" if self.index else ""
        return self.instruction.name + suffix

    def live_at(self, t: int) -> bool:
        return self.start <= t <= self.end

    def overlaps(self, other: Buffer) -> bool:
        """Live at some common time and sharing some byte of the arena."""
        return (
            self.start <= other.end
            and other.start <= self.end
            and self.offset < other.offset + other.size
            and other.offset < self.offset + self.size
        )


@dataclass
class BufferAssignment:
    """Where every value of a scheduled module lives (XLA's BufferAssignment)."""

    module: Module
    timeline: Timeline
    buffers: list[Buffer]
    #: Size of the temp arena (XLA's temp_size_in_bytes).
    peak_bytes: int
    #: Most temp bytes live at one time (no packing can do better).
    lower_bound_bytes: int
    #: Timeline position where `lower_bound_bytes` is reached.
    peak_time: int
    by_value: dict[BufferKey, Buffer] = field(default_factory=dict)

    def buffer_of(self, ins: Instruction, index: ShapeIndex = ()) -> Buffer:
        """The buffer holding leaf `index` of `ins`'s value."""
        return self.by_value[(id(ins), index)]

    def of_kind(self, kind: str) -> list[Buffer]:
        return [b for b in self.buffers if b.kind == kind]

    def bytes_of(self, kind: str) -> int:
        return sum(b.size for b in self.of_kind(kind))

    def arena_buffers(self) -> list[Buffer]:
        """The temps packed into the arena (not those borrowing an output's space)."""
        return [b for b in self.of_kind("temp") if b.home < 0]

    def live_bytes(self) -> list[int]:
        """Arena bytes live at each timeline position."""
        steps = max(1, len(self.timeline.order))
        change = [0] * (steps + 1)
        for b in self.arena_buffers():
            change[b.start] += b.size
            change[b.end + 1] -= b.size
        live, running = [], 0
        for t in range(steps):
            running += change[t]
            live.append(running)
        return live

    def check(self) -> None:
        """Raise ValueError if two temps share bytes while both are live, or a temp
        borrowing an output's space is live once the output is."""
        _check_disjoint(self.arena_buffers(), "the arena")
        homed: dict[int, list[Buffer]] = {}
        for b in self.of_kind("temp"):
            homed.setdefault(b.home, []).append(b)
        for out in self.of_kind("output"):
            residents = homed.get(out.id, [])
            for b in residents:
                if b.end >= out.start or b.offset + b.size > out.size:
                    raise ValueError(f"{b.name} does not fit in output {out.name}'s space")
            _check_disjoint(residents, f"output {out.name}")


def assign_buffers(module: Module) -> BufferAssignment:
    """Assign every value of `module` (in its instruction order, the schedule) to a
    buffer, and pack the temporaries into one arena."""
    builder = _Builder(module, Timeline.of(module))
    builder.values()
    builder.io_aliases()
    builder.ranges()
    builder.share_in_place()
    return builder.finish()


# -- building -------------------------------------------------------------------------------
#: Opcodes that only name their operands' values: they read nothing themselves.
_NAMING = frozenset(
    {O.TUPLE, O.GET_TUPLE_ELEMENT, O.BITCAST, O.OPT_BARRIER, O.DOMAIN, O.ADD_DEPENDENCY}
)


@dataclass
class _Builder:
    module: Module
    timeline: Timeline
    #: Union-find over logical values; `members`, `size`, `start`, `end` per root.
    parent: dict[BufferKey, BufferKey] = field(default_factory=dict)
    members: dict[BufferKey, list[BufferKey]] = field(default_factory=dict)
    size: dict[BufferKey, int] = field(default_factory=dict)
    start: dict[BufferKey, int] = field(default_factory=dict)
    end: dict[BufferKey, int] = field(default_factory=dict)
    #: (id(instruction), index) of every scheduled leaf -> the value it names.
    leaf: dict[BufferKey, BufferKey] = field(default_factory=dict)
    #: id -> instruction, for the instructions that define values.
    owner: dict[int, Instruction] = field(default_factory=dict)

    # -- union-find ---------------------------------------------------------------------
    def find(self, k: BufferKey) -> BufferKey:
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def union(self, a: BufferKey, b: BufferKey) -> BufferKey:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        self.parent[rb] = ra
        self.members[ra].extend(self.members.pop(rb))
        self.size[ra] = max(self.size[ra], self.size.pop(rb))
        if rb in self.start:
            self.start[ra] = min(self.start.get(ra, self.start[rb]), self.start.pop(rb))
            self.end[ra] = max(self.end.get(ra, self.end[rb]), self.end.pop(rb))
        return ra

    # -- 1 and 2: values and required aliasing ------------------------------------------------
    def values(self) -> None:
        sequential = {id(c) for c in sequential_computations(self.module)}
        for comp in self.module.computation_post_order():
            if id(comp) in sequential:
                for ins in comp.instructions:
                    self._instruction(ins)

    def _define(self, ins: Instruction) -> None:
        self.owner[id(ins)] = ins
        for index, leaf in leaf_items(ins.shape):
            key = (id(ins), index)
            self.parent[key] = key
            self.members[key] = [key]
            self.size[key] = leaf.byte_size if leaf.is_array else 0
            self.leaf[key] = key

    def _forward(self, ins: Instruction, source: Instruction, prefix: ShapeIndex = ()) -> None:
        """Leaves of `ins` name the values of `source`'s leaves under `prefix`."""
        for index, _ in leaf_items(ins.shape):
            self.leaf[(id(ins), index)] = self.leaf[(id(source), (*prefix, *index))]

    def _instruction(self, ins: Instruction) -> None:
        op = ins.opcode
        if op is O.TUPLE:
            for i, operand in enumerate(ins.operands):
                for index, _ in leaf_items(operand.shape):
                    self.leaf[(id(ins), (i, *index))] = self.leaf[(id(operand), index)]
        elif op is O.GET_TUPLE_ELEMENT:
            self._forward(ins, ins.operand(0), (ins.attrs["index"],))
        elif op in _NAMING:
            self._forward(ins, ins.operand(0))
        elif op is O.WHILE:
            self._forward(ins, ins.operand(0))
            for comp in (ins.attrs["condition"], ins.attrs["body"]):
                self._join_params(comp, [ins.operand(0)])
            self._join_root(ins.attrs["body"], ins)
        elif op is O.CALL:
            callee: Computation = ins.attrs["to_apply"]
            self._join_params(callee, list(ins.operands))
            assert callee.root is not None
            self._forward(ins, callee.root)
        elif op is O.CONDITIONAL:
            self._define(ins)
            for k, branch in enumerate(ins.called_computations):
                self._join_params(branch, [ins.operand(k + 1)])
                self._join_root(branch, ins)
        else:
            self._define(ins)
            for alias in ins.attrs.get("output_to_operand_aliasing") or ():
                self.union(
                    self.leaf[(id(ins.operand(alias.operand_number)), alias.operand_index)],
                    self.leaf[(id(ins), alias.output_index)],
                )

    def _join_params(self, comp: Computation, operands: list[Instruction]) -> None:
        for p in comp.parameters:
            source = operands[p.parameter_number]
            for index, _ in leaf_items(p.shape):
                self.union(self.leaf[(id(source), index)], self.leaf[(id(p), index)])

    def _join_root(self, comp: Computation, result: Instruction) -> None:
        assert comp.root is not None
        for index, _ in leaf_items(result.shape):
            self.union(self.leaf[(id(result), index)], self.leaf[(id(comp.root), index)])

    def io_aliases(self) -> None:
        """The module's input_output_alias: those outputs are written into (or are)
        the parameter's buffer (copy insertion made that safe)."""
        entry = self.module.entry
        root = entry.root
        assert root is not None
        for alias in self.module.config.input_output_alias:
            param = entry.parameter(alias.parameter_number)
            self.union(
                self.leaf[(id(param), alias.parameter_index)],
                self.leaf[(id(root), alias.output_index)],
            )

    # -- 3: live ranges --------------------------------------------------------------------
    def ranges(self) -> None:
        for t, ins in enumerate(self.timeline.order):
            if id(ins) in self.owner:
                for index, _ in leaf_items(ins.shape):
                    self._touch(self.leaf[(id(ins), index)], t)
            if ins.opcode in _NAMING:
                continue
            for operand in ins.operands:
                for index, _ in leaf_items(operand.shape):
                    self._touch(self.leaf[(id(operand), index)], t)
        for comp in sequential_computations(self.module):
            assert comp.root is not None
            for _, last in self.timeline.spans.get(id(comp), []):
                for index, _ in leaf_items(comp.root.shape):
                    self._touch(self.leaf[(id(comp.root), index)], last)
        for p in self.module.entry.parameters:
            for index, _ in leaf_items(p.shape):
                self._touch(self.leaf[(id(p), index)], 0)
        for key in self._live_out():
            self._touch(key, len(self.timeline.order) - 1)

    def _touch(self, key: BufferKey, t: int) -> None:
        r = self.find(key)
        self.start[r] = min(self.start.get(r, t), t)
        self.end[r] = max(self.end.get(r, t), t)

    def _live_out(self) -> list[BufferKey]:
        root = self.module.entry.root
        assert root is not None
        return [self.leaf[(id(root), index)] for index, _ in leaf_items(root.shape)]

    # -- 4: in-place updates -------------------------------------------------------------------
    def share_in_place(self) -> None:
        """Let an instruction write over an operand it reads last (XLA's buffer sharing
        with a dying operand). Parameters, constants, outputs and buffers joined
        across loops or branches are never taken over."""
        fixed = {
            self.find(k)
            for k in self.parent
            if self.owner[k[0]].opcode in (O.PARAMETER, O.CONSTANT)
        }
        fixed |= {self.find(k) for k in self._live_out()}
        for ins in self.timeline.order:
            if id(ins) not in self.owner or ins.opcode in (O.PARAMETER, O.CONSTANT, O.CONDITIONAL):
                continue
            for index, leaf in leaf_items(ins.shape):
                if leaf.is_array:
                    self._share_one(ins, index, fixed)

    def _share_one(self, ins: Instruction, index: ShapeIndex, fixed: set[BufferKey]) -> None:
        mine = self.find(self.leaf[(id(ins), index)])
        if len(self.members[mine]) > 1:
            return
        last = self.timeline.last(ins)
        for k, operand in enumerate(ins.operands):
            if not operand.shape.is_array or not can_share_operand_buffer(ins, k, index):
                continue
            theirs = self.find(self.leaf[(id(operand), ())])
            if (
                theirs == mine
                or theirs in fixed
                or self.end.get(theirs) != last
                or self.size[theirs] != self.size[mine]
            ):
                continue
            self.union(theirs, mine)
            return

    # -- 5: buffers and the arena ------------------------------------------------------------
    def finish(self) -> BufferAssignment:
        live_out = {self.find(k) for k in self._live_out()}
        entry_params = {id(p) for p in self.module.entry.parameters}
        buffers: list[Buffer] = []
        by_value: dict[BufferKey, Buffer] = {}
        for root, members in self.members.items():
            if not any(self.owner[m[0]].shape.subshape(m[1]).is_array for m in members):
                continue
            buffer = self._buffer(len(buffers), root, members, root in live_out,
                                  entry_params)
            buffers.append(buffer)
            for m in members:
                by_value[m] = buffer
        for leaf_key, value in self.leaf.items():
            if value in by_value:
                by_value.setdefault(leaf_key, by_value[value])
        temps = [b for b in buffers if b.kind == "temp"]
        outputs = [b for b in buffers if b.kind == "output"]
        peak = pack_arena(place_in_outputs(temps, outputs))
        assignment = BufferAssignment(self.module, self.timeline, buffers, peak, 0, 0, by_value)
        live = assignment.live_bytes()
        assignment.lower_bound_bytes = max(live)
        assignment.peak_time = live.index(assignment.lower_bound_bytes)
        return assignment

    def _buffer(self, n: int, root: BufferKey, members: list[BufferKey], live_out: bool,
                entry_params: set[int]) -> Buffer:
        def when(k: BufferKey) -> tuple[int, ShapeIndex]:
            times = self.timeline.times.get(k[0])
            return (times[0] if times else -1, k[1])

        ordered = sorted(members, key=when)
        opcodes = {self.owner[m[0]].opcode for m in members}
        if any(m[0] in entry_params for m in members):
            kind = "parameter"
        elif O.CONSTANT in opcodes:
            kind = "constant"
        else:
            kind = "output" if live_out else "temp"
        size = self.size[root]
        start = self.start.get(root, 0)
        return Buffer(
            n,
            self.owner[ordered[0][0]],
            ordered[0][1],
            align(size) if kind == "temp" else size,
            kind,
            start,
            self.end.get(root, start),
            values=[(self.owner[m[0]], m[1]) for m in ordered],
            live_out=live_out,
        )


def _check_disjoint(buffers: list[Buffer], where: str) -> None:
    """Raise ValueError naming two buffers live at once on a common byte. A sweep over
    time: the buffers live at each moment are kept in offset order, and each new one
    only needs checking against its neighbours there (the rest are disjoint already)."""
    live: list[tuple[int, int, Buffer]] = []
    by_end: list[tuple[int, int, int]] = []
    for b in sorted(buffers, key=lambda b: (b.start, b.offset, b.id)):
        while by_end and by_end[0][0] < b.start:
            _, offset, ident = heapq.heappop(by_end)
            del live[bisect.bisect_left(live, (offset, ident), key=lambda e: e[:2])]
        if b.size <= 0:
            continue
        at = bisect.bisect_left(live, (b.offset, b.id), key=lambda e: e[:2])
        for _, _, other in live[max(0, at - 1):at + 1]:
            if other.overlaps(b):
                raise ValueError(
                    f"buffers {other.name} and {b.name} overlap in {where} while both are live"
                )
        live.insert(at, (b.offset, b.id, b))
        heapq.heappush(by_end, (b.end, b.offset, b.id))


def place_in_outputs(temps: list[Buffer], outputs: list[Buffer]) -> list[Buffer]:
    """Put temps that die before an output is computed into that output's allocation
    (XLA's buffer assigner reuses live-out allocations the same way); returns the
    temps left for the arena. Largest temps first, each into the smallest output
    with room for its whole live range."""
    residents: dict[int, _Placed] = {}
    left: list[Buffer] = []
    by_size = sorted(outputs, key=lambda o: (o.size, o.id))
    sizes = [o.size for o in by_size]
    starts = np.array([o.start for o in by_size], np.int64)
    for b in sorted(temps, key=lambda b: (-b.size, b.start, b.id)):
        # Outputs too small for `b` come first in `by_size`: start past them, and past
        # those computed before `b` dies.
        first = bisect.bisect_left(sizes, b.size)
        for k in (first + np.flatnonzero(starts[first:] > b.end)).tolist():
            out = by_size[k]
            placed = residents.get(out.id)
            offset = placed.best_fit(b) if placed is not None else 0
            if offset + b.size <= out.size:
                b.home, b.offset = out.id, offset
                residents.setdefault(out.id, _Placed()).add(b)
                break
        else:
            left.append(b)
    return left


def pack_arena(temps: list[Buffer]) -> int:
    """Place temps by XLA's GlobalDecreasingSizeBestFitHeap; returns the arena size."""
    placed = _Placed()
    for b in sorted(temps, key=lambda b: (-b.size, b.start, b.id)):
        b.offset = placed.best_fit(b)
        placed.add(b)
    return max((b.offset + b.size for b in temps), default=0)


class _Placed:
    """Placed buffers as columns (start, end, offset, end of bytes), for best-fit queries.

    In a training step most activations are live together, so a new buffer's live
    range meets a share of all placed ones: a query scans every placed buffer, in numpy
    once there are more than `SMALL` (below that, numpy's call overhead is the cost)."""

    SMALL = 32

    def __init__(self) -> None:
        self.count = 0
        self.rows: list[tuple[int, int, int, int]] = []
        self.columns = np.zeros((4, 64), np.int64)

    def add(self, b: Buffer) -> None:
        row = (b.start, b.end, b.offset, b.offset + b.size)
        self.rows.append(row)
        if self.count == self.columns.shape[1]:
            self.columns = np.concatenate([self.columns, np.zeros_like(self.columns)], axis=1)
        self.columns[:, self.count] = row
        self.count += 1

    def best_fit(self, b: Buffer) -> int:
        """The offset for `b`: the smallest gap between the bytes of buffers live during
        its range that holds it (the lowest such gap on ties), else past all of them."""
        if self.count <= self.SMALL:
            busy = sorted((lo, hi) for start, end, lo, hi in self.rows
                          if start <= b.end and b.start <= end)
            best: tuple[int, int] | None = None
            cursor = 0
            for lo, hi in busy:
                if lo - cursor >= b.size and (best is None or lo - cursor < best[0]):
                    best = (lo - cursor, cursor)
                cursor = max(cursor, hi)
            return best[1] if best is not None else cursor
        start, end, lo, hi = self.columns[:, :self.count]
        live = np.flatnonzero((start <= b.end) & (end >= b.start))
        if live.size == 0:
            return 0
        lo, hi = lo[live], hi[live]
        order = np.lexsort((hi, lo))
        lo, hi = lo[order], hi[order]
        reach = np.maximum.accumulate(hi)  # the highest byte in use up to each buffer
        cursor = np.concatenate(([0], reach[:-1]))
        gaps = lo - cursor
        fits = np.flatnonzero(gaps >= b.size)
        if fits.size == 0:
            return int(reach[-1])
        return int(cursor[fits[np.argmin(gaps[fits])]])


@dataclass(frozen=True)
class BufferAssignmentPass(Pass):
    """Assign buffers over the schedule and check the assignment (no two live temps
    share bytes). An analysis: it never changes the module (the CPU target reads
    `assign_buffers` directly)."""

    name: ClassVar[str] = "buffer-assignment"
    summary: ClassVar[str] = "assign buffers over the schedule and check them (analysis only)"
    xla: ClassVar[str] = "BufferAssignment"

    def run(self, module: Module) -> bool:
        assign_buffers(module).check()
        return False
