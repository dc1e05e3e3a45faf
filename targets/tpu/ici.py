"""Collectives on the simulated TPU's interconnect (ICI): an alpha-beta model on a torus.

The chips of a slice sit on a 2-D (v5e, v6e: 4 links per chip) or 3-D (v4, v5p: 6 links)
torus, `Chip.ici_topology` chips per axis (default: the most balanced slice of the device
count). Device d sits at coordinates x = d mod X, y = (d div X) mod Y, ... Every link
carries `ici_link_bandwidth` bytes/s each way; an axis wraps around (a ring) only where
the slice spans the pod on it - 16 chips on v5e/v6e, a multiple of 4 (whole 4x4x4 cubes
joined by the optical switches) on v4/v5p, as "How to Scale Your Model" describes; a
shorter axis is a line.

A collective runs as phases; in each phase every member sends its flows at once,
routed dimension by dimension along the shorter way round. A phase takes
hop latency x the longest route + the busiest link's bytes / link bandwidth, with all
the collective's groups sharing the links. The algorithms:

- all-gather, reduce-scatter: a bidirectional ring over the group (half the data each
  way, g-1 steps of 1/g of it); all-reduce is a reduce-scatter then an all-gather. A
  group that is a sub-torus spanning several axes runs axis by axis instead, the data cut
  in one part per axis, each part taking the axes in a rotated order so that every axis
  is busy at every stage (2-D/3-D torus algorithms);
- all-to-all: every member sends 1/g of its operand straight to every other member;
- collective-permute: each source sends its operand straight to its target;
- collective-broadcast: the root's operand pipelined along a one-way ring.

Bytes are per device: an all-gather's result, the others' operands.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hlotool.analysis.liveness import array_bytes
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.targets.tpu.chips import Chip
from hlotool.targets.tpu.program import Kernel, Op

O = Opcode

Coord = tuple[int, ...]
#: A directed link: the chip it leaves, the axis, and the direction (+1 or -1).
Link = tuple[Coord, int, int]
#: One transfer of a phase: source device, target device, bytes.
Flow = tuple[int, int, float]

#: The collective an instruction starts (async -start forms cost what the op costs;
#: -done forms are free).
KINDS: dict[Opcode, str] = {
    O.ALL_REDUCE: "all-reduce", O.ALL_REDUCE_START: "all-reduce",
    O.ALL_GATHER: "all-gather", O.ALL_GATHER_START: "all-gather",
    O.REDUCE_SCATTER: "reduce-scatter", O.ALL_TO_ALL: "all-to-all",
    O.COLLECTIVE_PERMUTE: "collective-permute", O.COLLECTIVE_PERMUTE_START: "collective-permute",
    O.COLLECTIVE_BROADCAST: "collective-broadcast",
}
#: Chips per axis of a whole pod, where a 2-D chip's axis wraps around.
POD_AXIS_2D = 16
#: A 3-D chip's axis wraps around in whole cubes of this many chips.
CUBE_AXIS_3D = 4


@dataclass(frozen=True, slots=True)
class Torus:
    """A slice's chips: `dims` per axis (x first), which axes wrap, link speed."""

    dims: tuple[int, ...]
    wrap: tuple[bool, ...]
    link_bandwidth: float
    hop_latency: float

    @property
    def size(self) -> int:
        return math.prod(self.dims)

    def coord(self, device: int) -> Coord:
        out = []
        for n in self.dims:
            out.append(device % n)
            device //= n
        return tuple(out)

    def links_of(self, device: int) -> int:
        """Links into a chip (one per distinct neighbour)."""
        c = self.coord(device)
        count = 0
        for axis, n in enumerate(self.dims):
            if n == 1:
                continue
            if n == 2:
                count += 1
            elif self.wrap[axis]:
                count += 2
            else:
                count += (c[axis] > 0) + (c[axis] < n - 1)
        return count

    def route(self, src: int, dst: int) -> list[Link]:
        """Dimension-ordered shortest route (ties go the + way)."""
        here = list(self.coord(src))
        there = self.coord(dst)
        links: list[Link] = []
        for axis, n in enumerate(self.dims):
            ahead = (there[axis] - here[axis]) % n
            if self.wrap[axis]:
                step = 1 if ahead <= n - ahead else -1
                hops = ahead if step == 1 else n - ahead
            else:
                step = 1 if there[axis] >= here[axis] else -1
                hops = abs(there[axis] - here[axis])
            for _ in range(hops):
                links.append((tuple(here), axis, step))
                here[axis] = (here[axis] + step) % n
        return links


def torus_of(chip: Chip, devices: int) -> Torus:
    """The slice for `devices` chips: `chip.ici_topology`, else the most balanced one."""
    rank = 3 if chip.ici_links >= 6 else 2
    dims = tuple(chip.ici_topology) or balanced_dims(devices, rank)
    if math.prod(dims) < devices:
        raise ValueError(f"ICI topology {'x'.join(map(str, dims))} has {math.prod(dims)} "
                         f"chips, fewer than the module's {devices} devices")
    if rank == 3:
        wrap = tuple(n >= CUBE_AXIS_3D and n % CUBE_AXIS_3D == 0 for n in dims)
    else:
        wrap = tuple(n >= POD_AXIS_2D for n in dims)
    return Torus(dims, wrap, chip.ici_link_bandwidth, chip.ici_hop_latency_s)


def parse_topology(text: str) -> tuple[int, ...]:
    """`4x4x4` -> (4, 4, 4)."""
    try:
        dims = tuple(int(t) for t in text.lower().split("x"))
    except ValueError:
        dims = ()
    if not dims or any(d < 1 for d in dims) or len(dims) > 3:
        raise ValueError(f"{text!r}: expected chips per axis such as 2x4 or 4x4x4")
    return dims


def balanced_dims(devices: int, rank: int) -> tuple[int, ...]:
    """`devices` as `rank` factors as equal as possible, smallest first and unused axes
    last, as Cloud TPU names slices (8 -> 2x4, 4 -> 2x2x1, 16 -> 2x2x4)."""
    dims = [1] * rank
    for p in sorted(_prime_factors(devices), reverse=True):
        dims[dims.index(min(dims))] *= p
    return tuple(sorted(dims, key=lambda d: (d == 1, d)))


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


@dataclass(frozen=True, slots=True)
class IciCost:
    """One collective on the torus."""

    kind: str
    algorithm: str
    group_size: int
    groups: int
    #: Bytes each device contributes (an all-gather's result, the others' operand).
    bytes: float
    phases: int
    #: The busiest directed link's bytes over the whole collective.
    link_bytes: float
    seconds: float
    latency_seconds: float
    #: No algorithm can be faster: the bytes a member must receive over all its links.
    bound_seconds: float

    def as_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}  # type: ignore[attr-defined]


@dataclass(slots=True)
class _Phases:
    """Phases accumulated: time, latency part, link loads, count."""

    torus: Torus
    seconds: float = 0.0
    latency: float = 0.0
    count: int = 0
    loads: dict[Link, float] = field(default_factory=lambda: defaultdict(float))

    def run(self, flows: Iterable[Flow], repeat: int = 1) -> None:
        """`repeat` identical phases of `flows` at once."""
        if repeat <= 0:
            return
        load: dict[Link, float] = defaultdict(float)
        hops = 0
        for src, dst, size in flows:
            if src == dst or size <= 0:
                continue
            path = self.torus.route(src, dst)
            hops = max(hops, len(path))
            for link in path:
                load[link] += size
        if not load:
            return
        busiest = max(load.values())
        lat = self.torus.hop_latency * hops
        self.seconds += repeat * (lat + busiest / self.torus.link_bandwidth)
        self.latency += repeat * lat
        self.count += repeat
        for link, v in load.items():
            self.loads[link] += repeat * v

    def busiest(self) -> float:
        return max(self.loads.values(), default=0.0)


def collective_cost(ins: Instruction, chip: Chip) -> IciCost | None:
    """The ICI cost of a collective (None for anything else, or a chip without ICI)."""
    kind = KINDS.get(ins.opcode)
    if kind is None or chip.ici_link_bandwidth <= 0:
        return None
    cfg = ins.parent.parent.config if ins.parent is not None and ins.parent.parent else None
    replicas, partitions = (cfg.replica_count, cfg.num_partitions) if cfg else (1, 1)
    torus = torus_of(chip, replicas * partitions)
    size = _data_bytes(ins, kind)
    if kind == "collective-permute":
        pairs = _permute_pairs(ins, replicas, partitions)
        return cost_of(kind, [], size, torus, pairs)
    return cost_of(kind, device_groups(ins, replicas, partitions), size, torus)


def _data_bytes(ins: Instruction, kind: str) -> float:
    if kind == "all-gather":
        shape = ins.shape.tuple_shapes[-1] if ins.shape.is_tuple else ins.shape
        return float(array_bytes(shape)) if shape.is_array else 0.0
    return float(sum(array_bytes(o.shape) for o in ins.operands if o.shape.is_array))


def device_groups(ins: Instruction, replicas: int, partitions: int) -> list[tuple[int, ...]]:
    """The collective's groups as flat device ids (replica x partitions + partition)."""
    from hlotool.spmd.groups import NotInGroup, participants

    seen: dict[tuple[int, ...], None] = {}
    for r in range(replicas):
        for p in range(partitions):
            try:
                group = participants(ins, (r, p), replicas, partitions)
            except NotInGroup:
                continue
            seen[tuple(a * partitions + b for a, b in group)] = None
    return list(seen)


def _permute_pairs(ins: Instruction, replicas: int, partitions: int) -> list[tuple[int, int]]:
    """Source -> target pairs of flat device ids, for every replica (or partition)."""
    pairs = ins.attrs.get("source_target_pairs") or ()
    if ins.attrs.get("channel_id") is not None:  # cross-partition, within each replica
        return [(r * partitions + s, r * partitions + t) for r in range(replicas)
                for s, t in pairs]
    return [(s * partitions + p, t * partitions + p) for p in range(partitions)
            for s, t in pairs]


def cost_of(kind: str, groups: Sequence[tuple[int, ...]], size: float, torus: Torus,
            pairs: Sequence[tuple[int, int]] = ()) -> IciCost:
    """The cost of collective `kind` over `groups` (or permute `pairs`) moving `size`
    bytes per device on `torus`."""
    phases = _Phases(torus)
    g = max((len(x) for x in groups), default=2 if pairs else 1)
    if kind == "collective-permute":
        phases.run((s, t, size) for s, t in pairs)
        algorithm = "direct"
    elif g <= 1:
        algorithm = "none"
    elif kind == "all-to-all":
        phases.run((a, b, size / len(x)) for x in groups for a in x for b in x)
        algorithm = "direct"
    elif kind == "collective-broadcast":
        phases.run(((x[i], x[i + 1], size) for x in groups for i in range(len(x) - 1)))
        phases.latency += torus.hop_latency * (g - 2)
        phases.seconds += torus.hop_latency * (g - 2)
        algorithm = "pipelined ring"
    else:
        algorithm = _reduce_family(kind, groups, size, torus, phases)
    devices = {d for x in groups for d in x} | {d for s, t in pairs if s != t for d in (s, t)}
    return IciCost(kind, algorithm, g, len(groups) or len(pairs), size, phases.count,
                   phases.busiest(), phases.seconds, phases.latency,
                   _bound(kind, g, size, torus, devices, bool(pairs)))


def _reduce_family(kind: str, groups: Sequence[tuple[int, ...]], size: float, torus: Torus,
                   phases: _Phases) -> str:
    axes = [_sub_torus_axes(x, torus) for x in groups]
    if all(a is not None and len(a) > 1 for a in axes) and len({len(a) for a in axes}) == 1:
        stages = [("scatter", size)] if kind != "all-gather" else []
        if kind != "reduce-scatter":
            stages.append(("gather", size))
        for what, data in stages:
            _torus_stage(what, groups, axes, data, torus, phases)  # type: ignore[arg-type]
        return f"{len(axes[0])}-D torus"
    ring_steps = len(groups[0]) - 1
    chunk = size / len(groups[0]) / 2
    flows = [f for x in groups for f in _ring_flows(x, chunk)]
    repeat = ring_steps * (2 if kind == "all-reduce" else 1)
    phases.run(flows, repeat)
    return "bidirectional ring"


def _ring_flows(members: Sequence[int], chunk: float) -> list[Flow]:
    """One step of a bidirectional ring: each member sends `chunk` to both ring neighbours."""
    n = len(members)
    return [(members[i], members[(i + step) % n], chunk) for i in range(n) for step in (1, -1)]


def _sub_torus_axes(group: tuple[int, ...], torus: Torus) -> list[int] | None:
    """The axes a group spans when it is every combination of its coordinates on them
    (a sub-torus), else None."""
    coords = [torus.coord(d) for d in group]
    values = [sorted({c[a] for c in coords}) for a in range(len(torus.dims))]
    axes = [a for a, v in enumerate(values) if len(v) > 1]
    if math.prod(len(values[a]) for a in axes) != len(group) or len(set(coords)) != len(group):
        return None
    return axes


def _torus_stage(what: str, groups: Sequence[tuple[int, ...]], axes: list[list[int]],
                 size: float, torus: Torus, phases: _Phases) -> None:
    """Reduce-scatter ("scatter") or all-gather ("gather") axis by axis: one part of the
    data per axis, part p taking the axes rotated by p, all parts at once per stage."""
    d = len(axes[0])
    part = size / d
    for stage in range(d):
        flows: dict[int, list[Flow]] = defaultdict(list)
        steps: dict[int, int] = {}
        for group, group_axes in zip(groups, axes, strict=True):
            coords = {torus.coord(m): m for m in group}
            for p in range(d):
                order = group_axes[p:] + group_axes[:p]
                if what == "gather":
                    order = order[::-1]
                axis = order[stage]
                sizes = [len({c[a] for c in coords}) for a in order]
                done = math.prod(sizes[:stage])
                # Scatter: each member holds part/done and cuts it by the axis size;
                # gather: each member holds part/(the rest) and collects the axis.
                held = part / done if what == "scatter" else part / math.prod(sizes[stage:])
                chunk = (held / sizes[stage] if what == "scatter" else held) / 2
                steps[p] = max(steps.get(p, 0), sizes[stage] - 1)
                for ring in _rings_along(list(coords), axis):
                    flows[p].extend(_ring_flows([coords[c] for c in ring], chunk))
        # The parts use different axes at the same stage: their links are disjoint, so
        # the stage lasts as long as its slowest part.
        best = None
        for p, f in flows.items():
            trial = _Phases(torus)
            trial.run(f, steps[p])
            if best is None or trial.seconds > best.seconds:
                best = trial
            for link, v in trial.loads.items():
                phases.loads[link] += v
        if best is not None:
            phases.seconds += best.seconds
            phases.latency += best.latency
            phases.count += best.count


def _rings_along(coords: list[Coord], axis: int) -> list[list[Coord]]:
    """The group's members in rings along `axis` (same coordinates elsewhere)."""
    rings: dict[Coord, list[Coord]] = defaultdict(list)
    for c in coords:
        rings[c[:axis] + c[axis + 1:]].append(c)
    return [sorted(r, key=lambda c: c[axis]) for r in rings.values()]


def _bound(kind: str, g: int, size: float, torus: Torus, devices: set[int],
           permute: bool) -> float:
    """Seconds no algorithm beats: a member's must-receive bytes over all its links."""
    if not devices:
        return 0.0
    links = max(1, max(torus.links_of(d) for d in devices))
    if permute:
        need = size if len(devices) > 1 else 0.0
    elif kind == "collective-broadcast":
        need = size if g > 1 else 0.0
    else:
        need = (g - 1) / g * size if g > 1 else 0.0
    return need / (links * torus.link_bandwidth)


def report(module: Any, chip: Chip) -> dict[str, Any]:
    """The topology and every collective's ICI cost in `module` (for --report and cost)."""
    cfg = module.config
    devices = cfg.replica_count * cfg.num_partitions
    torus = torus_of(chip, devices)
    rows = []
    for comp in module.computations:
        for ins in comp.instructions:
            cost = collective_cost(ins, chip)
            if cost is not None:
                rows.append({"instruction": ins.name, "computation": comp.name,
                             **cost.as_json()})
    return {"devices": devices, "topology": list(torus.dims), "wraparound": list(torus.wrap),
            "link_bandwidth": torus.link_bandwidth, "hop_latency_s": torus.hop_latency,
            "collectives": rows, "seconds": sum(r["seconds"] for r in rows)}


def plan(ins: Instruction, chip: Chip) -> Kernel | None:
    """The kernel of a collective: its time on the ICI (None for other instructions)."""
    cost = collective_cost(ins, chip)
    if cost is None:
        return None
    name = f"%{ins.name}"
    cycles = chip.cycles(cost.seconds)
    detail = (f"{cost.algorithm}, {cost.groups} group(s) of {cost.group_size}, "
              f"{cost.bytes:,.0f} B per device, busiest link {cost.link_bytes:,.0f} B")
    op = Op("ici", cost.kind, name, detail, cycles=cycles, bytes=int(cost.link_bytes))
    return Kernel(name, ins.opcode.value, "ici", (), (), {}, cost.algorithm, [], [op], 0, True,
                  1, cycles=cycles)


def print_ici(section: dict[str, Any]) -> None:
    """The ICI section of a report as a table: one row per collective."""
    from rich.console import Console
    from rich.table import Table

    dims = "x".join(map(str, section["topology"]))
    axes = ", ".join(f"{n} {'ring' if w else 'line'}"
                     for n, w in zip(section["topology"], section["wraparound"], strict=True))
    table = Table(title=f"ICI: {section['devices']} devices on a {dims} slice (axes: {axes}), "
                        f"{section['link_bandwidth'] / 1e9:g} GB/s per link each way",
                  title_justify="left")
    for col in ("instruction", "kind", "algorithm", "groups", "B/dev", "link B", "us",
                "bound us"):
        text = col in ("instruction", "kind", "algorithm")
        table.add_column(col, justify="left" if text else "right", no_wrap=True,
                         overflow="ellipsis", max_width=18 if col == "instruction" else None)
    for r in section["collectives"]:
        table.add_row(r["instruction"], r["kind"], r["algorithm"],
                      f"{r['groups']}x{r['group_size']}", f"{r['bytes']:,.0f}",
                      f"{r['link_bytes']:,.0f}", f"{r['seconds'] * 1e6:,.3g}",
                      f"{r['bound_seconds'] * 1e6:,.3g}")
    table.add_section()
    table.add_row("total", "", "", "", "", "", f"{section['seconds'] * 1e6:,.3g}", "",
                  style="bold")
    Console(highlight=False).print(table)
