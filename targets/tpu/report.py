"""The simulator's report: JSON (`--report`), a rich table, and an SVG timeline."""

from __future__ import annotations

import math
from typing import Any

from hlotool.targets.tpu.program import Kernel
from hlotool.targets.tpu.simulate import Simulation


def summary(sim: Simulation) -> dict[str, Any]:
    """Cycles, seconds, units busy, utilization, bytes, VMEM, roofline, per instruction."""
    prog, chip = sim.program, sim.program.chip
    rows = []
    tot: dict[str, float] = {k: 0.0 for k in (
        "cycles", "mxu", "vpu", "xlu", "scalar", "dma", "ovh", "fill", "read", "write",
        "flops", "rbytes", "useful", "padded", "alog", "apad")}
    for idx, n in sorted(sim.counts.items()):
        k = prog.kernels[idx]
        for key, v in (("cycles", k.cycles), ("mxu", k.mxu_cycles), ("vpu", k.vpu_cycles),
                       ("xlu", k.xlu_cycles), ("scalar", k.scalar_cycles),
                       ("dma", k.exposed_dma_cycles), ("ovh", k.overhead_cycles),
                       ("fill", k.fill_drain_cycles), ("read", k.hbm_read_bytes),
                       ("write", k.hbm_write_bytes), ("flops", k.flops),
                       ("rbytes", k.roofline_bytes), ("useful", k.useful_macs),
                       ("padded", k.padded_macs), ("alog", k.array_logical_bytes),
                       ("apad", k.array_padded_bytes)):
            tot[key] += v * n
        rows.append({**k.as_json(), "executions": n, "total_cycles": k.cycles * n})
    cycles = tot["cycles"]
    for r in rows:
        r["share"] = r["total_cycles"] / cycles if cycles else 0.0
    rows.sort(key=lambda r: -r["total_cycles"])
    peak = chip.peak_flops
    bw = chip.hbm_bandwidth
    t_compute = tot["flops"] / peak
    t_memory = 0.0 if math.isinf(bw) else tot["rbytes"] / bw
    seconds = cycles / chip.clock_hz
    roof = max(t_compute, t_memory)
    macs_per_cycle = chip.cores * chip.mxus_per_core * chip.mxu_rows * chip.mxu_cols
    executed = {prog.kernels[i].name for i in sim.counts}
    values: dict[str, list[str]] = {"tpu-mxu": [], "tpu-vpu": [], "interpreter": [],
                                    "estimated": []}
    for i in sorted(sim.counts):
        for op in prog.kernels[i].ops:
            if op.unit.startswith("dma") or op.unit == "control":
                continue
            values[op.values].append(op.instruction)
            if op.estimated:
                values["estimated"].append(op.instruction)
    return {
        "module": prog.module,
        "chip": chip.as_json(),
        "cycles": cycles,
        "seconds": seconds,
        "kernel_executions": len(sim.trace),
        "kernels": len(executed),
        "busy_cycles": {"mxu": tot["mxu"], "vpu": tot["vpu"], "xlu": tot["xlu"],
                        "scalar": tot["scalar"]},
        "exposed_dma_cycles": tot["dma"],
        "step_overhead_cycles": tot["ovh"],
        "fill_drain_cycles": tot["fill"],
        "mxu_utilization": tot["useful"] / (cycles * macs_per_cycle) if cycles else 0.0,
        "padding_efficiency": {
            "mxu": tot["useful"] / tot["padded"] if tot["padded"] else 1.0,
            "arrays": tot["alog"] / tot["apad"] if tot["apad"] else 1.0,
        },
        "hbm_bytes": int(tot["read"] + tot["write"]),
        "hbm_read_bytes": int(tot["read"]),
        "hbm_write_bytes": int(tot["write"]),
        "hbm_logical_bytes": int(tot["rbytes"]),
        "peak_vmem_bytes": max((prog.kernels[i].vmem_bytes for i in sim.counts), default=0),
        "roofline": {
            "flops": tot["flops"],
            "bytes": tot["rbytes"],
            "arithmetic_intensity": tot["flops"] / tot["rbytes"] if tot["rbytes"] else None,
            "ridge_point": None if math.isinf(bw) else peak / bw,
            "compute_seconds": t_compute,
            "memory_seconds": t_memory,
            "bound": "compute" if t_compute >= t_memory else "memory",
            "bound_seconds": roof,
            "fraction_of_roofline": roof / seconds if seconds else 1.0,
        },
        "numerics": {
            "mxu_instructions": values["tpu-mxu"],
            "vpu_instructions": values["tpu-vpu"],
            "interpreter_instructions": values["interpreter"],
            "estimated_cost_instructions": values["estimated"],
            "note": "mxu: bf16 operand passes with f32 accumulation in MXU-depth chunks; "
                    "vpu: f32 numpy math, narrow types rounded back per op; interpreter: "
                    "the reference interpreter (XLA:CPU semantics)",
        },
        "instructions": rows,
    }


def print_table(report: dict[str, Any], limit: int = 15) -> None:
    """The report as a rich table of the costliest kernels plus a summary line."""
    from rich.console import Console
    from rich.table import Table

    chip = report["chip"]
    title = (f"simulated TPU {chip['name']}: {report['cycles']:,.0f} cycles = "
             f"{report['seconds'] * 1e6:,.2f} us, MXU utilization "
             f"{report['mxu_utilization'] * 100:.1f}%")
    table = Table(title=title)
    for col, justify in (("kernel", "left"), ("runs", "right"), ("cycles", "right"),
                         ("share", "right"), ("bound", "left"), ("block", "left")):
        table.add_column(col, justify=justify, no_wrap=True,  # type: ignore[arg-type]
                         overflow="ellipsis", max_width=24 if col == "kernel" else None,
                         min_width=None if col == "kernel" else len(col))
    for r in report["instructions"][:limit]:
        bound = r["candidates"][0]["bound"] if r["candidates"] else r["kind"]
        table.add_row(r["name"], str(r["executions"]), f"{r['total_cycles']:,.0f}",
                      f"{r['share'] * 100:.1f}%", bound, _block(r["block"]))
    console = Console()
    console.print(table)
    busy = report["busy_cycles"]
    console.print(f"  busy cycles: MXU {busy['mxu']:,.0f}, VPU {busy['vpu']:,.0f}, XLU "
                  f"{busy['xlu']:,.0f}, scalar {busy['scalar']:,.0f}; exposed DMA "
                  f"{report['exposed_dma_cycles']:,.0f}; per-kernel detail in --report")
    rest = len(report["instructions"]) - limit
    roof = report["roofline"]
    console.print(
        (f"  ... {rest} more kernels\n" if rest > 0 else "")
        + f"  HBM {report['hbm_bytes']:,} B moved (logical {report['hbm_logical_bytes']:,}), "
        f"peak VMEM {report['peak_vmem_bytes']:,} B, padding efficiency MXU "
        f"{report['padding_efficiency']['mxu'] * 100:.1f}% / arrays "
        f"{report['padding_efficiency']['arrays'] * 100:.1f}%\n"
        f"  roofline: {roof['bound']}-bound, {roof['fraction_of_roofline'] * 100:.1f}% of "
        f"the bound ({roof['bound_seconds'] * 1e6:,.3f} us)")


def _block(block: dict[str, int]) -> str:
    """A block choice in a few characters: `bmxbnxbk` or `N blocks`."""
    if "bm" in block:
        return f"{block['bm']}x{block['bn']}x{block['bk']}"
    return f"{block['blocks']} blk" if block else ""


_ROWS = (("kernel", "#9e9e9e"), ("mxu", "#e53935"), ("vpu/xlu", "#1e88e5"),
         ("dma (exposed)", "#43a047"), ("overhead", "#fdd835"))
_KIND_COLOURS = {"mxu": "#ef9a9a", "vector": "#90caf9", "copy": "#a5d6a7", "scalar": "#ce93d8",
                 "control": "#ffe082"}


def timeline_svg(sim: Simulation, max_kernels: int = 3000) -> str:
    """A timeline: one lane per unit, one segment per kernel execution (inside a kernel
    the units' busy time is drawn from its start; steps are aggregated)."""
    prog = sim.program
    total = sum(prog.kernels[i].cycles for i in sim.trace) or 1.0
    width, left, lane, top = 1200.0, 110.0, 26.0, 30.0
    scale = (width - left - 10) / total
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
             f'height="{top + lane * len(_ROWS) + 40:.0f}" font-family="sans-serif" '
             f'font-size="11">',
             f'<text x="{left}" y="18">{_esc(prog.module)} on {_esc(prog.chip.name)}: '
             f'{total:,.0f} cycles ({total / prog.chip.clock_hz * 1e6:,.2f} us)</text>']
    for r, (label, _) in enumerate(_ROWS):
        y = top + r * lane
        parts.append(f'<text x="4" y="{y + 16}">{label}</text>')
    t = 0.0
    drawn = 0
    for i in sim.trace:
        k = prog.kernels[i]
        if drawn < max_kernels:
            _kernel_rects(parts, k, left + t * scale, scale, top, lane)
            drawn += 1
        t += k.cycles
    if drawn < len(sim.trace):
        parts.append(f'<text x="{left}" y="{top + lane * len(_ROWS) + 30}">first {drawn} of '
                     f'{len(sim.trace)} kernel executions drawn</text>')
    axis_y = top + lane * len(_ROWS) + 12
    parts.append(f'<line x1="{left}" y1="{axis_y}" x2="{width - 10}" y2="{axis_y}" '
                 'stroke="black"/>')
    for f in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = left + f * (width - left - 10)
        parts.append(f'<text x="{x:.1f}" y="{axis_y + 12}" text-anchor="middle">'
                     f'{f * total:,.0f}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _kernel_rects(parts: list[str], k: Kernel, x: float, scale: float, top: float,
                  lane: float) -> None:
    title = f"{k.name} ({k.opcode}): {k.cycles:,.0f} cycles"
    spans = [k.cycles, k.mxu_cycles, k.vpu_cycles + k.xlu_cycles + k.scalar_cycles,
             k.exposed_dma_cycles, k.overhead_cycles]
    for r, length in enumerate(spans):
        if length <= 0:
            continue
        colour = _KIND_COLOURS.get(k.kind, "#bdbdbd") if r == 0 else _ROWS[r][1]
        y = top + r * lane + 3
        parts.append(f'<rect x="{x:.2f}" y="{y:.1f}" width="{max(0.5, length * scale):.2f}" '
                     f'height="{lane - 6:.1f}" fill="{colour}" stroke="white" '
                     f'stroke-width="0.3"><title>{_esc(title)}</title></rect>')


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
