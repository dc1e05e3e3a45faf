"""Memory report: buffer lifetimes over the schedule, the peak, and an SVG chart.

The chart is a Gantt-like picture of the temp arena that buffer assignment packs: time
(schedule position) runs left to right, arena offset bottom to top, and each temporary
buffer is a rectangle over its live range at its offset. A line traces the bytes live
at each step, a dashed line marks the arena size (the peak), and a marker the step
where the most bytes are live. Hovering a rectangle names its value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from hlotool.ir.opcodes import OPS, Category
from hlotool.passes.buffer_assignment import KINDS, Buffer, BufferAssignment

#: Rectangle colours by the defining instruction's category (like the graph view).
COLOURS: dict[Category, str] = {
    Category.ELEMENTWISE: "#8fbcdb",
    Category.CONVERSION: "#a6cee3",
    Category.DATA_MOVEMENT: "#b2df8a",
    Category.REDUCTION: "#fdbf6f",
    Category.CONTRACTION: "#fb9a99",
    Category.LINALG: "#e78ac3",
    Category.CONTROL: "#cab2d6",
    Category.CUSTOM: "#ffff99",
    Category.TUPLE: "#d9d9d9",
    Category.LEAF: "#d9d9d9",
}
#: Maps a time or a byte count to a picture coordinate.
Scale = Callable[[float], float]

FUSION_COLOURS = {
    "kLoop": "#8fbcdb",
    "kInput": "#fdbf6f",
    "kOutput": "#fb9a99",
    "kCustom": "#ffff99",
}


def human_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def summary(a: BufferAssignment) -> dict[str, object]:
    """The numbers of a report (JSON-friendly)."""
    peak_ins = a.timeline.order[a.peak_time] if a.timeline.order else None
    return {
        "module": a.module.name,
        "peak_bytes": a.peak_bytes,
        "lower_bound_bytes": a.lower_bound_bytes,
        "peak_time": a.peak_time,
        "peak_instruction": peak_ins.name if peak_ins is not None else None,
        "schedule_length": len(a.timeline.order),
        **{f"{kind}_bytes": a.bytes_of(kind) for kind in KINDS},
        "buffers": [buffer_json(b) for b in a.buffers],
    }


def buffer_json(b: Buffer) -> dict[str, object]:
    return {
        "name": b.name,
        "instruction": b.instruction.name,
        "index": list(b.index),
        "kind": b.kind,
        "size": b.size,
        "offset": b.offset,
        "start": b.start,
        "end": b.end,
        "home": b.home,
        "values": [f"{i.name}{list(x) if x else ''}" for i, x in b.values],
    }


def live_at(a: BufferAssignment, t: int) -> list[Buffer]:
    """Arena temps live at step `t`, largest first."""
    return sorted((b for b in a.arena_buffers() if b.live_at(t)), key=lambda b: -b.size)


def colour(b: Buffer) -> str:
    ins = b.instruction
    if ins.opcode.value == "fusion":
        return FUSION_COLOURS.get(str(ins.attrs.get("kind")), "#8fbcdb")
    return COLOURS.get(OPS[ins.opcode].category, "#cccccc")


@dataclass(frozen=True)
class ChartGeometry:
    """Where the plot sits in the picture."""

    width: int = 1000
    height: int = 560
    left: int = 90
    right: int = 30
    top: int = 56
    bottom: int = 96

    @property
    def plot_width(self) -> int:
        return self.width - self.left - self.right

    @property
    def plot_height(self) -> int:
        return self.height - self.top - self.bottom


def svg_chart(a: BufferAssignment, g: ChartGeometry = ChartGeometry()) -> str:
    """The arena over time as a standalone SVG document."""
    steps = max(1, len(a.timeline.order))
    scale_y = max(a.peak_bytes, a.lower_bound_bytes, 1)

    def x(t: float) -> float:
        return g.left + g.plot_width * t / steps

    def y(v: float) -> float:
        return g.top + g.plot_height * (1 - v / scale_y)

    extra = 16 * (len(_legend_lines(a)) - 1)  # the footer wraps; the picture grows
    g = dataclasses.replace(g, height=g.height + extra, bottom=g.bottom + extra)
    parts = [_header(a, g), _axes(a, g, steps, scale_y, x, y)]
    for b in sorted(a.arena_buffers(), key=lambda b: b.offset):
        parts.append(_rect(b, x, y))
    parts.append(_live_line(a, x, y))
    parts.append(_peak_marks(a, g, x, y))
    parts.append(_legend(a, g))
    parts.append("</svg>\n")
    return "\n".join(p for p in parts if p)


def _header(a: BufferAssignment, g: ChartGeometry) -> str:
    title = f"{a.module.name}: temp arena {human_bytes(a.peak_bytes)}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{g.width}" height="{g.height}" '
        f'viewBox="0 0 {g.width} {g.height}" font-family="sans-serif" font-size="12">\n'
        f"<title>{escape(title)}</title>\n"
        f'<rect x="0" y="0" width="{g.width}" height="{g.height}" fill="white"/>\n'
        f'<text x="{g.left}" y="24" font-size="16" font-weight="bold">{escape(title)}</text>\n'
        f'<text x="{g.left}" y="42" fill="#555">buffer lifetimes over the schedule; '
        f"height is the offset in the arena</text>"
    )


def _axes(
    a: BufferAssignment, g: ChartGeometry, steps: int, scale_y: int, x: Scale, y: Scale
) -> str:
    out = [
        f'<rect x="{g.left}" y="{g.top}" width="{g.plot_width}" height="{g.plot_height}" '
        'fill="#fafafa" stroke="#888"/>'
    ]
    for k in range(5):
        v = scale_y * k / 4
        tick = f"{y(v):.1f}"
        out.append(f'<line x1="{g.left - 4}" y1="{tick}" x2="{g.left}" y2="{tick}" stroke="#888"/>')
        out.append(
            f'<text x="{g.left - 8}" y="{y(v) + 4:.1f}" text-anchor="end">'
            f"{escape(human_bytes(v))}</text>"
        )
    for k in range(6):
        t = round((steps - 1) * k / 5) if steps > 1 else 0
        out.append(
            f'<text x="{x(t + 0.5):.1f}" y="{g.top + g.plot_height + 16}" '
            f'text-anchor="middle">{t}</text>'
        )
    out.append(
        f'<text x="{g.left + g.plot_width / 2:.1f}" y="{g.top + g.plot_height + 34}" '
        'text-anchor="middle" fill="#555">schedule position</text>'
    )
    return "\n".join(out)


def _rect(b: Buffer, x: Scale, y: Scale) -> str:
    left, right = x(b.start), x(b.end + 1)
    top, bottom = y(b.offset + b.size), y(b.offset)
    tip = f"{b.name}: {human_bytes(b.size)} at offset {b.offset}, live {b.start}-{b.end}"
    if len(b.values) > 1:
        tip += " (also " + ", ".join(i.name for i, _ in b.values[1:6]) + ")"
    return (
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{max(right - left, 0.5):.1f}" '
        f'height="{max(bottom - top, 0.5):.1f}" fill={quoteattr(colour(b))} stroke="#333" '
        f'stroke-width="0.5"><title>{escape(tip)}</title></rect>'
    )


def _live_line(a: BufferAssignment, x: Scale, y: Scale) -> str:
    live = a.live_bytes()
    points = []
    for t, v in enumerate(live):
        points.append(f"{x(t):.1f},{y(v):.1f}")
        points.append(f"{x(t + 1):.1f},{y(v):.1f}")
    return (
        f'<polyline points="{" ".join(points)}" fill="none" stroke="#1f4e79" '
        'stroke-width="1.5"><title>bytes live at each step</title></polyline>'
    )


def _peak_marks(a: BufferAssignment, g: ChartGeometry, x: Scale, y: Scale) -> str:
    peak_y = y(a.peak_bytes)
    t = a.peak_time
    name = a.timeline.order[t].name if a.timeline.order else "-"
    most_live = f"most live: {human_bytes(a.lower_bound_bytes)} at step {t} ({name})"
    right = g.left + g.plot_width
    return "\n".join(
        [
            f'<line x1="{g.left}" y1="{peak_y:.1f}" x2="{right}" y2="{peak_y:.1f}" '
            'stroke="#c00" stroke-dasharray="6,4"/>',
            f'<text x="{right - 4}" y="{peak_y - 4:.1f}" text-anchor="end" fill="#c00">'
            f"peak (arena) {escape(human_bytes(a.peak_bytes))}</text>",
            f'<line x1="{x(t + 0.5):.1f}" y1="{g.top}" x2="{x(t + 0.5):.1f}" '
            f'y2="{g.top + g.plot_height}" stroke="#c00" stroke-width="0.8"/>',
            f'<circle cx="{x(t + 0.5):.1f}" cy="{y(a.lower_bound_bytes):.1f}" r="4" fill="#c00">'
            f"<title>{escape(most_live)}</title></circle>",
        ]
    )


def _legend_lines(a: BufferAssignment, width: int = 140) -> list[str]:
    """The footer's summary, wrapped to fit the picture's width."""
    import textwrap

    items = [f"{kind}s {human_bytes(a.bytes_of(kind))}" for kind in KINDS[1:]]
    arena = a.arena_buffers()
    borrowed = len(a.of_kind("temp")) - len(arena)
    text = (
        f"most live {human_bytes(a.lower_bound_bytes)} at step {a.peak_time}; "
        f"{len(arena)} temps of {human_bytes(sum(b.size for b in arena))} packed into "
        f"{human_bytes(a.peak_bytes)}"
        + (f", {borrowed} more in output buffers" if borrowed else "")
        + "; "
        + "; ".join(items)
    )
    return textwrap.wrap(text, width)


def _legend(a: BufferAssignment, g: ChartGeometry) -> str:
    lines = _legend_lines(a)
    y0 = g.height - 34 - 16 * (len(lines) - 1)
    texts = [f'<text x="{g.left}" y="{y0 + 16 * i}" fill="#333">{escape(line)}</text>'
             for i, line in enumerate(lines)]
    y0 += 16 * (len(lines) - 1)
    swatches = []
    for n, (label, fill) in enumerate(
        (
            ("loop fusion", "#8fbcdb"),
            ("input fusion / reduce", "#fdbf6f"),
            ("output fusion / dot", "#fb9a99"),
            ("data movement", "#b2df8a"),
        )
    ):
        sx = g.left + n * 170
        swatches.append(
            f'<rect x="{sx}" y="{y0 + 10}" width="12" height="12" fill="{fill}" stroke="#333"/>'
            f'<text x="{sx + 16}" y="{y0 + 20}">{escape(label)}</text>'
        )
    return "\n".join(texts + swatches)
