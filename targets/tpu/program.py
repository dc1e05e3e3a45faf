"""The TPU program: kernels of DMAs, MXU tiles, VPU/XLU ops, with their costs; printable.

A program has one `Kernel` per HLO instruction that does work in a sequential
computation (the entry, loop bodies and conditions, branches). A kernel is a sequential
grid of blocks: per step it DMAs its input blocks HBM -> VMEM (double-buffered), runs its
ops on the MXU / VPU / XLU / scalar unit, and DMAs the output block back. Costs are in
clock cycles of the chip and are for one execution of the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hlotool.targets.tpu.chips import Chip


@dataclass(frozen=True, slots=True)
class Op:
    """One line of a kernel body."""

    unit: str  # dma.in, dma.out, mxu, vpu, xlu, scalar, control
    what: str
    instruction: str
    detail: str
    #: Cycles on its unit over the whole kernel (DMA: bytes moved over the kernel).
    cycles: float = 0.0
    bytes: int = 0
    #: How the value is computed: "tpu-mxu" (bf16 passes), "tpu-vpu" (f32 numpy math),
    #: "interpreter" (the reference interpreter, XLA:CPU semantics).
    values: str = "interpreter"
    estimated: bool = False


@dataclass(frozen=True, slots=True)
class Candidate:
    """One block choice the cost model evaluated."""

    block: dict[str, int]
    cycles: float
    vmem_bytes: int
    bound: str  # compute, dma, overhead


@dataclass(slots=True)
class Kernel:
    """One kernel: its grid, block choice, body and cost."""

    name: str
    opcode: str
    kind: str  # mxu, vector, scalar, control, copy
    grid: tuple[int, ...]
    semantics: tuple[str, ...]
    block: dict[str, int]
    choice: str
    candidates: list[Candidate]
    ops: list[Op]
    vmem_bytes: int
    vmem_ok: bool
    cores_used: int
    #: Cycle totals for one execution.
    cycles: float = 0.0
    mxu_cycles: float = 0.0
    vpu_cycles: float = 0.0
    xlu_cycles: float = 0.0
    scalar_cycles: float = 0.0
    exposed_dma_cycles: float = 0.0
    overhead_cycles: float = 0.0
    fill_drain_cycles: float = 0.0
    #: Bytes HBM -> VMEM and back, padded to tiles and as logical shapes.
    hbm_read_bytes: int = 0
    hbm_write_bytes: int = 0
    logical_bytes: int = 0
    #: Roofline inputs: flops (int8 MXU flops scaled to bf16-equivalents), bytes.
    flops: float = 0.0
    roofline_bytes: float = 0.0
    useful_macs: int = 0
    padded_macs: int = 0
    array_padded_bytes: int = 0
    array_logical_bytes: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "opcode": self.opcode, "kind": self.kind,
            "grid": list(self.grid), "semantics": list(self.semantics),
            "block": self.block, "block_choice": self.choice,
            "candidates": [{"block": c.block, "cycles": c.cycles, "vmem_bytes": c.vmem_bytes,
                            "bound": c.bound} for c in self.candidates],
            "vmem_bytes": self.vmem_bytes, "vmem_ok": self.vmem_ok, "cores_used": self.cores_used,
            "cycles": self.cycles, "mxu_busy_cycles": self.mxu_cycles,
            "vpu_busy_cycles": self.vpu_cycles, "xlu_busy_cycles": self.xlu_cycles,
            "scalar_busy_cycles": self.scalar_cycles,
            "exposed_dma_cycles": self.exposed_dma_cycles,
            "step_overhead_cycles": self.overhead_cycles,
            "fill_drain_cycles": self.fill_drain_cycles,
            "hbm_read_bytes": self.hbm_read_bytes, "hbm_write_bytes": self.hbm_write_bytes,
            "flops": self.flops, "roofline_bytes": self.roofline_bytes,
            "useful_macs": self.useful_macs, "padded_macs": self.padded_macs,
            "modelled": [{"instruction": o.instruction, "unit": o.unit, "op": o.what,
                          "values": o.values, "estimated": o.estimated}
                         for o in self.ops if not o.unit.startswith("dma")],
        }


@dataclass(slots=True)
class Program:
    """All kernels of a module for one chip, keyed by instruction identity."""

    module: str
    chip: Chip
    kernels: list[Kernel] = field(default_factory=list)
    #: id(instruction) -> index into kernels.
    index: dict[int, int] = field(default_factory=dict)

    def text(self) -> str:
        """The printable program (`hlotool compile --emit tpu`)."""
        c = self.chip
        lines = [f"// TPU program for {self.module} on {c.name}: {c.cores} TensorCore(s) x "
                 f"{c.mxus_per_core} MXU {c.mxu_rows}x{c.mxu_cols}, "
                 f"{_mib(c.vmem_bytes)} VMEM, {_bw(c.hbm_bandwidth)} HBM, "
                 f"{c.clock_hz / 1e9:.3g} GHz"
                 + (f", SCALE-Sim {c.dataflow.upper()} compatibility" if c.scalesim else "")]
        for k in self.kernels:
            lines.append("")
            lines.extend(_kernel_text(k, c))
        return "\n".join(lines) + "\n"


def _kernel_text(k: Kernel, chip: Chip) -> list[str]:
    grid = ",".join(map(str, k.grid)) or "1"
    sem = ",".join(k.semantics)
    block = " ".join(f"{n}={v}" for n, v in k.block.items())
    head = f"kernel {k.name} = {k.opcode} [{k.kind}] grid=({grid})"
    if sem:
        head += f" [{sem}]"
    if block:
        head += f" block {block}"
    out = [head]
    if k.choice:
        out.append(f"  // {k.choice}")
    fits = "" if k.vmem_ok else "  DOES NOT FIT"
    out.append(f"  vmem {_kib(k.vmem_bytes)} of {_mib(chip.vmem_bytes)} (double-buffered){fits}"
               + (f"; megacore: {k.cores_used} cores" if k.cores_used > 1 else ""))
    for op in k.ops:
        extra = f"  {op.bytes} B" if op.unit.startswith("dma") else f"  {op.cycles:.0f} cyc"
        tag = "  ~estimate" if op.estimated else ""
        out.append(f"  {op.unit:<8} {op.what:<14} {op.instruction:<28} {op.detail}{extra}{tag}")
    out.append(f"  cycles {k.cycles:.0f}: mxu {k.mxu_cycles:.0f}, vpu {k.vpu_cycles:.0f}, "
               f"xlu {k.xlu_cycles:.0f}, scalar {k.scalar_cycles:.0f}, exposed dma "
               f"{k.exposed_dma_cycles:.0f}, step overhead {k.overhead_cycles:.0f}, "
               f"fill/drain {k.fill_drain_cycles:.0f}")
    return out


def _kib(n: float) -> str:
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.2f} MiB"


def _mib(n: float) -> str:
    return "unlimited" if n >= 1 << 60 else f"{n / (1 << 20):.0f} MiB"


def _bw(b: float) -> str:
    return "unlimited" if b == float("inf") else f"{b / 1e9:.0f} GB/s"
