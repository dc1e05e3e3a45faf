"""TPU chip presets: every number the simulator uses, overridable, with its source.

Values are per chip unless a field says per TensorCore. Peak bf16 FLOP/s is the primary
compute number; the clock is derived from it (peak / (cores x MXUs x rows x cols x 2)), so
cycles and seconds always agree with the published peak. Sources are abbreviated:

- CloudTPU: Cloud TPU system-architecture pages `tpu/docs/v4`, `v5e`, `v5p`, `v6e`
- JAX: `jax/_src/pallas/mosaic/tpu_info.py` in jax 0.10.2 (values per TensorCore)
- Book: "How to Scale Your Model", ch. "How to Think About TPUs" (jax-ml/scaling-book)
- Pallas: the Pallas TPU guides (`docs/pallas/tpu/details.rst`, `pipelining.md`)
- v1paper / v4paper: Jouppi et al., ISCA 2017 / ISCA 2023
- SCALE-Sim: scalesim 3.0.0 (one array, compute cycles in CALC mode)
- assumption: not published; a modelling choice, documented in docs/tpu.md
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

GiB = 1 << 30
MiB = 1 << 20


@dataclass(frozen=True, slots=True)
class Chip:
    """One TPU generation (or the SCALE-Sim reference array)."""

    name: str
    #: TensorCores per chip (2 = megacore: parallel grid axes split over both).
    cores: int
    #: MXUs per TensorCore and the systolic array's rows (depth, R) and columns (C).
    mxus_per_core: int
    mxu_rows: int
    mxu_cols: int
    #: bf16 peak FLOP/s of the whole chip (the primary compute number).
    peak_flops: float
    #: HBM bandwidth in bytes/s (whole chip, shared by its cores) and capacity.
    hbm_bandwidth: float
    hbm_bytes: int
    #: On-core memories per TensorCore.
    vmem_bytes: int
    smem_bytes: int
    cmem_bytes: int
    #: Vector unit: sublanes x lanes of 32-bit, vector registers.
    sublanes: int = 8
    lanes: int = 128
    vregs: int = 32
    #: int8 matmul rate relative to bf16.
    int8_speedup: float = 1.0
    #: Cycles per vreg for the VPU cost classes (cheap, medium, expensive) and XLU work.
    vpu_cheap: float = 1.0
    vpu_medium: float = 8.0
    vpu_expensive: float = 24.0
    #: XLU: cycles per vreg for a lane (minor-axis) reduction and for a transpose.
    xlu_lane_reduce: float = 7.0
    xlu_transpose: float = 2.0
    #: Scalar-unit cycles per element for ops without a vector lowering (gather, scatter).
    scalar_per_element: float = 1.0
    #: Seconds of fixed overhead per grid step and per DMA.
    step_overhead_s: float = 0.35e-6
    dma_latency_s: float = 0.5e-6
    #: ICI per-link one-way bandwidth (bytes/s) and link count (reported only).
    ici_link_bandwidth: float = 0.0
    ici_links: int = 0
    #: ICI torus shape of the slice (chips per axis, x first; empty: chosen from the device
    #: count, see targets/tpu/ici.py) and the latency of one hop.
    ici_topology: tuple[int, ...] = ()
    ici_hop_latency_s: float = 1e-6
    #: SCALE-Sim compatibility: one array, closed-form fold timing, no weight overlap,
    #: stall-free memory (CALC mode); `dataflow` is ws, os or is.
    scalesim: bool = False
    dataflow: str = "ws"
    #: Where each number comes from (field name -> source).
    sources: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @property
    def clock_hz(self) -> float:
        """Clock derived from the peak: peak / (cores x MXUs x R x C x 2)."""
        return self.peak_flops / (self.cores * self.mxus_per_core * self.mxu_rows
                                  * self.mxu_cols * 2)

    @property
    def bytes_per_cycle(self) -> float:
        """HBM bytes per clock cycle for the whole chip."""
        return math.inf if math.isinf(self.hbm_bandwidth) else self.hbm_bandwidth / self.clock_hz

    @property
    def mxu_depth(self) -> int:
        """The K-chunk an MXU pass accumulates over (its row count)."""
        return self.mxu_rows

    @property
    def vreg_elements(self) -> int:
        return self.sublanes * self.lanes

    def cycles(self, seconds: float) -> float:
        return seconds * self.clock_hz

    def with_overrides(self, **values: Any) -> Chip:
        """A copy with some fields replaced (their source becomes "override")."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise KeyError(f"unknown chip field(s) {', '.join(unknown)} "
                           f"(fields: {', '.join(sorted(names - {'sources'}))})")
        sources = dict(self.sources)
        sources.update({k: "override" for k in values})
        return dataclasses.replace(self, **values, sources=MappingProxyType(sources))

    def as_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if f.name != "sources"}
        out = {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in out.items()}
        out["clock_hz"] = self.clock_hz
        out["sources"] = dict(self.sources)
        return out


def _chip(sources: dict[str, str], **values: Any) -> Chip:
    return Chip(**values, sources=MappingProxyType(sources))


_COMMON_SOURCES = {
    "sublanes": "JAX (8 sublanes x 128 lanes, all generations)",
    "lanes": "JAX",
    "vregs": "Book (v4: 32 vregs of 8x128x32-bit)",
    "vpu_cheap": "assumption (Pallas grades add/mul/max/select/compare/cast as cheap)",
    "vpu_medium": "assumption (Pallas grades div/exp/tanh/pow as medium)",
    "vpu_expensive": "assumption (Pallas grades sin/cos as expensive)",
    "xlu_lane_reduce": "assumption (log2(128) rotate+combine steps per vreg)",
    "xlu_transpose": "assumption",
    "scalar_per_element": "assumption",
    "step_overhead_s": "Pallas pipelining guide (~0.35 us per grid step)",
    "dma_latency_s": "assumption (not public)",
    "smem_bytes": "JAX (1 MiB per TC)",
    "ici_topology": "assumption (the most balanced slice of the device count, ici.py)",
    "ici_hop_latency_s": "assumption (not public; about a microsecond per hop)",
}

CHIPS: dict[str, Chip] = {
    "v4": _chip(
        {**_COMMON_SOURCES,
         "cores": "v4paper, CloudTPU (2 TensorCores, megacore)",
         "mxus_per_core": "v4paper, JAX (4 per TC)", "mxu_rows": "v4paper (128x128)",
         "mxu_cols": "v4paper", "peak_flops": "CloudTPU v4 (275 TFLOP/s bf16)",
         "hbm_bandwidth": "CloudTPU v4 (1200 GB/s; JAX: 615 GB/s per TC)",
         "hbm_bytes": "CloudTPU v4 (32 GiB HBM2)", "vmem_bytes": "JAX (16 MiB per TC)",
         "cmem_bytes": "v4paper (128 MiB per chip)", "int8_speedup": "CloudTPU v4 (int8 = bf16)",
         "ici_link_bandwidth": "Book (4.5e10 B/s one-way)", "ici_links": "v4paper (3D torus)"},
        name="v4", cores=2, mxus_per_core=4, mxu_rows=128, mxu_cols=128, peak_flops=275e12,
        hbm_bandwidth=1200e9, hbm_bytes=32 * GiB, vmem_bytes=16 * MiB, smem_bytes=MiB,
        cmem_bytes=128 * MiB, int8_speedup=1.0, ici_link_bandwidth=4.5e10, ici_links=6),
    "v5e": _chip(
        {**_COMMON_SOURCES,
         "cores": "CloudTPU v5e (1 TensorCore)", "mxus_per_core": "CloudTPU v5e, JAX (4)",
         "mxu_rows": "CloudTPU v5e (128x128)", "mxu_cols": "CloudTPU v5e",
         "peak_flops": "CloudTPU v5e (197 TFLOP/s bf16)",
         "hbm_bandwidth": "CloudTPU v5e (819 GB/s; JAX 820)", "hbm_bytes": "CloudTPU v5e (16 GiB)",
         "vmem_bytes": "JAX (128 MiB per TC)", "cmem_bytes": "none listed",
         "int8_speedup": "CloudTPU v5e (394 TOP/s int8)",
         "ici_link_bandwidth": "Book (5e10 B/s one-way)", "ici_links": "CloudTPU v5e (2D torus)"},
        name="v5e", cores=1, mxus_per_core=4, mxu_rows=128, mxu_cols=128, peak_flops=197e12,
        hbm_bandwidth=819e9, hbm_bytes=16 * GiB, vmem_bytes=128 * MiB, smem_bytes=MiB,
        cmem_bytes=0, int8_speedup=2.0, ici_link_bandwidth=5e10, ici_links=4),
    "v5p": _chip(
        {**_COMMON_SOURCES,
         "cores": "CloudTPU v5p (2 TensorCores)", "mxus_per_core": "CloudTPU v5p, JAX (4)",
         "mxu_rows": "CloudTPU v5p (128x128)", "mxu_cols": "CloudTPU v5p",
         "peak_flops": "CloudTPU v5p (459 TFLOP/s bf16)",
         "hbm_bandwidth": "CloudTPU v5p (2765 GB/s; JAX: 2 x 1230 GB/s)",
         "hbm_bytes": "CloudTPU v5p (95 GiB HBM2e)", "vmem_bytes": "JAX (64 MiB per TC)",
         "cmem_bytes": "none listed", "int8_speedup": "CloudTPU v5p (918 TOP/s int8)",
         "ici_link_bandwidth": "Book (1e11 B/s one-way)", "ici_links": "CloudTPU v5p (3D torus)"},
        name="v5p", cores=2, mxus_per_core=4, mxu_rows=128, mxu_cols=128, peak_flops=459e12,
        hbm_bandwidth=2765e9, hbm_bytes=95 * GiB, vmem_bytes=64 * MiB, smem_bytes=MiB,
        cmem_bytes=0, int8_speedup=2.0, ici_link_bandwidth=1e11, ici_links=6),
    "v6e": _chip(
        {**_COMMON_SOURCES,
         "cores": "CloudTPU v6e (1 TensorCore)",
         "mxus_per_core": "CloudTPU v6e, JAX (2 x 256x256; with the peak this implies a "
                          "3.5 GHz clock, so one public figure is imprecise)",
         "mxu_rows": "CloudTPU v6e (256x256)", "mxu_cols": "CloudTPU v6e",
         "peak_flops": "CloudTPU v6e (918 TFLOP/s bf16)",
         "hbm_bandwidth": "CloudTPU v6e (1640 GB/s)", "hbm_bytes": "CloudTPU v6e (32 GB)",
         "vmem_bytes": "JAX (128 MiB per TC)", "cmem_bytes": "none listed",
         "int8_speedup": "CloudTPU v6e (1836 TOP/s int8)",
         "ici_link_bandwidth": "Book (1e11 B/s one-way)", "ici_links": "CloudTPU v6e (2D torus)"},
        name="v6e", cores=1, mxus_per_core=2, mxu_rows=256, mxu_cols=256, peak_flops=918e12,
        hbm_bandwidth=1640e9, hbm_bytes=32 * 10**9, vmem_bytes=128 * MiB, smem_bytes=MiB,
        cmem_bytes=0, int8_speedup=2.0, ici_link_bandwidth=1e11, ici_links=4),
    "scalesim": _chip(
        {**_COMMON_SOURCES,
         "cores": "SCALE-Sim (one array)", "mxus_per_core": "SCALE-Sim (one array)",
         "mxu_rows": "SCALE-Sim tpuv5e_downscale.cfg (128x128)", "mxu_cols": "SCALE-Sim",
         "peak_flops": "assumption (1 GHz clock x 128 x 128 x 2)",
         "hbm_bandwidth": "SCALE-Sim CALC mode (stall-free: unlimited)",
         "vmem_bytes": "assumption (unlimited, so every GEMM is one block)",
         "step_overhead_s": "SCALE-Sim (none)", "dma_latency_s": "SCALE-Sim CALC mode (none)",
         "hbm_bytes": "assumption", "cmem_bytes": "none"},
        name="scalesim", cores=1, mxus_per_core=1, mxu_rows=128, mxu_cols=128,
        peak_flops=128 * 128 * 2 * 1e9, hbm_bandwidth=math.inf, hbm_bytes=1 << 62,
        vmem_bytes=1 << 62, smem_bytes=MiB, cmem_bytes=0, step_overhead_s=0.0,
        dma_latency_s=0.0, scalesim=True),
}

DATAFLOWS = ("ws", "os", "is")


def get_chip(name: str, dataflow: str | None = None, **overrides: Any) -> Chip:
    """The preset `name` with `overrides`; `dataflow` applies to the scalesim preset only."""
    try:
        chip = CHIPS[name]
    except KeyError:
        raise KeyError(f"unknown TPU chip {name!r} (available: {', '.join(CHIPS)})") from None
    if dataflow is not None:
        if dataflow not in DATAFLOWS:
            raise KeyError(f"unknown dataflow {dataflow!r} (available: {', '.join(DATAFLOWS)})")
        if not chip.scalesim and dataflow != "ws":
            raise KeyError(f"chip {name} is weight-stationary; --tpu-dataflow {dataflow} "
                           "needs --tpu-chip scalesim")
        overrides["dataflow"] = dataflow
    return chip.with_overrides(**overrides) if overrides else chip
