"""HLO (after the `tpu` pipeline) -> a TPU program: one kernel per working instruction.

Every fusion (and every unfused working instruction) becomes a sequential grid of blocks.
The block sizes are chosen by the cost model: each candidate is costed as

    first fetch + (steps - 1) x max(compute, DMA) + compute + last write-back
    + steps x per-step overhead (+ the MXU's first weight load and fill/drain)

with inputs double-buffered in VMEM (2 x every block, padded to tiles, plus an f32
accumulator when the contraction is split), and the cheapest candidate that fits VMEM wins.
MXU kernels tile the main contraction's M, N and K (grid order batch, i, j, k; the
reduction axis last so the output block stays resident; an operand block is re-fetched
only when its index changes); vector kernels split their largest array along its leading
axis. On megacore chips the parallel axes are split over the two TensorCores, which share
HBM bandwidth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlotool.analysis.cost import instruction_cost
from hlotool.analysis.liveness import sequential_computations
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.targets.tpu import ici, layout, units
from hlotool.targets.tpu.chips import Chip
from hlotool.targets.tpu.mxu import tpu_matmul
from hlotool.targets.tpu.program import Candidate, Kernel, Op, Program
from hlotool.targets.tpu.simulate import uses_mxu_numerics, uses_vpu_numerics

O = Opcode
#: Ops whose addresses depend on data: their kernels are not split into blocks.
_UNSPLIT = frozenset({O.DYNAMIC_SLICE, O.DYNAMIC_UPDATE_SLICE, O.GATHER, O.SCATTER, O.SORT,
                      O.TOPK, O.CUSTOM_CALL, O.CHOLESKY, O.TRIANGULAR_SOLVE, O.FFT,
                      O.RNG_BIT_GENERATOR, O.RNG, O.SELECT_AND_SCATTER, O.REVERSE})


def compile_program(module: Module, chip: Chip) -> Program:
    """The TPU program of a module that has been through the `tpu` pipeline."""
    program = Program(module.name, chip)
    for comp in sequential_computations(module):
        for ins in comp.instructions:
            if ins.opcode in units.FREE:
                continue
            program.index[id(ins)] = len(program.kernels)
            program.kernels.append(plan_kernel(ins, chip))
    return program


def body_of(ins: Instruction) -> list[Instruction]:
    """The instructions a kernel computes (fusion bodies flattened, nested ones too)."""
    if ins.opcode is not O.FUSION:
        return [ins]
    out: list[Instruction] = []
    for inner in ins.attrs["calls"].instructions:
        out.extend(body_of(inner) if inner.opcode is O.FUSION else [inner])
    return out


@dataclass(slots=True)
class _Io:
    """A kernel's HBM traffic before blocking."""

    in_padded: int
    out_padded: int
    logical: int
    vpu: float
    xlu: float
    scalar: float


def plan_kernel(ins: Instruction, chip: Chip) -> Kernel:
    """The kernel of one instruction: its body, block choice and cost."""
    name = f"%{ins.name}"
    opcode = ins.opcode.value + (f"({ins.attrs.get('kind')})" if ins.opcode is O.FUSION else "")
    if ins.opcode in units.CONTROL:
        lat = chip.cycles(chip.dma_latency_s)
        op = Op("control", ins.opcode.value, name, "predicate/index read back to the scalar "
                "core; the bodies run as their own kernels", cycles=lat)
        return Kernel(name, opcode, "control", (), (), {}, "", [], [op], 0, True, 1, cycles=lat,
                      scalar_cycles=lat)
    collective = ici.plan(ins, chip)
    if collective is not None:
        return collective
    works = [units.classify(b, chip) for b in body_of(ins)]
    operands = list(dict.fromkeys(ins.operands))
    in_layouts = [layout.of_shape(o.shape) for o in operands]
    out_layouts = layout.of_shape(ins.shape)
    io = _Io(
        in_padded=sum(t.padded_bytes for ts in in_layouts for t in ts),
        out_padded=sum(t.padded_bytes for t in out_layouts),
        logical=sum(t.logical_bytes for ts in in_layouts for t in ts)
        + sum(t.logical_bytes for t in out_layouts),
        vpu=sum(w.cycles for w in works if w.unit == "vpu"),
        xlu=sum(w.cycles for w in works if w.unit == "xlu"),
        scalar=sum(w.cycles for w in works if w.unit == "scalar"),
    )
    gemms = [w for w in works if w.gemm is not None]
    kernel = _plan_mxu(ins, chip, gemms, io) if gemms else _plan_vector(ins, chip, works, io)
    kernel.name, kernel.opcode = name, opcode
    kernel.ops = _dma_ops(operands, in_layouts, "dma.in") + _body_ops(works, chip) + \
        _dma_ops([ins], [out_layouts], "dma.out")
    cost = instruction_cost(ins)
    int8 = sum(2.0 * _macs(w) for w in gemms if w.gemm and w.gemm.int8)
    kernel.flops = cost.flops - int8 + int8 / chip.int8_speedup
    kernel.roofline_bytes = cost.bytes_accessed
    kernel.logical_bytes = io.logical
    kernel.array_logical_bytes = io.logical
    kernel.array_padded_bytes = io.in_padded + io.out_padded
    kernel.vpu_cycles, kernel.xlu_cycles, kernel.scalar_cycles = io.vpu, io.xlu, io.scalar
    return kernel


def _macs(w: units.UnitWork) -> int:
    g = w.gemm
    return g.batch * g.m * g.n * g.k if g else 0


def _sizes(full: int, base: int) -> list[int]:
    """Block sizes base, 2 base, 4 base, ... below `full`, then `full` itself."""
    out = []
    s = base
    while s < full:
        out.append(s)
        s *= 2
    out.append(full)
    return out


def _up(n: int, m: int) -> int:
    return -(-max(n, 1) // m) * m


@dataclass(frozen=True, slots=True)
class _Timing:
    cycles: float
    compute: float
    overhead: float
    exposed_dma: float
    bound: str
    cores: int


def _pipeline(chip: Chip, steps: int, parallel: int, compute: float, bytes_total: float,
              first_bytes: float, last_bytes: float, exposed: float) -> _Timing:
    """Time of a double-buffered grid: `steps` steps, `parallel` of them independent
    (split over megacore), `compute` and `bytes_total` over all steps."""
    cores = max(1, min(chip.cores, parallel))
    frac = math.ceil(parallel / cores) / parallel
    steps_core = max(1, math.ceil(steps * frac))
    bpc = chip.bytes_per_cycle / cores
    lat = chip.cycles(chip.dma_latency_s)
    c = compute * frac / steps_core
    d = bytes_total * frac / steps_core / bpc + lat
    first = first_bytes / bpc + lat
    last = last_bytes / bpc + lat
    ovh = steps_core * chip.cycles(chip.step_overhead_s)
    total = first + (steps_core - 1) * max(c, d) + c + last + ovh + exposed
    bound = "compute" if c >= d else "dma"
    if ovh > steps_core * max(c, d):
        bound = "overhead"
    return _Timing(total, steps_core * c, ovh, total - steps_core * c - ovh - exposed, bound, cores)


def _plan_mxu(ins: Instruction, chip: Chip, gemms: list[units.UnitWork], io: _Io) -> Kernel:
    main = max(gemms, key=_macs)
    g = main.gemm
    assert g is not None
    others = sum(tpu_matmul(w.gemm.batch, w.gemm.m, w.gemm.n, w.gemm.k, chip, w.gemm.passes,
                            w.gemm.int8).stream for w in gemms if w is not main and w.gemm)
    mp, np_, kp = _up(g.m, 8), _up(g.n, 128), _up(g.k, 128)
    lhs_pad = g.batch * mp * kp * g.lhs_bytes
    rhs_pad = g.batch * kp * np_ * g.rhs_bytes
    other_in = max(0, io.in_padded - lhs_pad - rhs_pad)
    if chip.scalesim:
        space = [(mp, np_, kp)]
    else:
        space = [(bm, bn, bk) for bm in _sizes(mp, 128) for bn in _sizes(np_, 128)
                 for bk in _sizes(kp, 128)]
    scored: list[_Scored] = []
    for bm, bn, bk in space:
        ni, nj, nk = math.ceil(mp / bm), math.ceil(np_ / bn), math.ceil(kp / bk)
        par = g.batch * ni * nj
        steps = par * nk
        blk = tpu_matmul(1, min(bm, g.m), min(bn, g.n), min(bk, g.k), chip, g.passes, g.int8)
        mxu = steps * blk.stream + others
        # In HBM an operand pads its minor dim to 128 lanes and its second-minor to 8.
        lhs_blk = min(bm, mp) * min(bk, _up(g.k, 128)) * g.lhs_bytes
        rhs_blk = min(bk, _up(g.k, 8)) * min(bn, np_) * g.rhs_bytes
        lhs_total = (g.batch * ni if nk == 1 else steps) * lhs_blk
        rhs_total = (g.batch if nk == 1 and nj == 1 else steps) * rhs_blk
        total = lhs_total + rhs_total + other_in + io.out_padded
        vmem = (2 * (lhs_blk + rhs_blk) + 2 * math.ceil(io.out_padded / par)
                + (bm * bn * 4 if nk > 1 else 0) + 2 * math.ceil(other_in / par))
        compute = max(mxu, io.vpu + io.xlu + io.scalar)
        t = _pipeline(chip, steps, par, compute, total, lhs_blk + rhs_blk + other_in / par,
                      io.out_padded / par, blk.exposed)
        cand = Candidate({"bm": bm, "bn": bn, "bk": bk}, t.cycles, vmem, t.bound)
        scored.append(_Scored(cand, t, (g.batch, ni, nj, nk), mxu, blk.exposed,
                              total - io.out_padded))
    best = _choose(scored, chip)
    kernel = _kernel("mxu", ("parallel", "parallel", "parallel", "arbitrary"), scored, best,
                     _why(scored, best, chip), chip)
    kernel.mxu_cycles = best.mxu / best.timing.cores
    kernel.fill_drain_cycles = best.fill_drain
    kernel.hbm_write_bytes = io.out_padded
    kernel.useful_macs = sum(_macs(w) for w in gemms)
    kernel.padded_macs = sum(tpu_matmul(w.gemm.batch, w.gemm.m, w.gemm.n, w.gemm.k, chip)
                             .padded_macs for w in gemms if w.gemm)
    return kernel


def _plan_vector(ins: Instruction, chip: Chip, works: list[units.UnitWork], io: _Io) -> Kernel:
    arrays = [leaf for o in (*ins.operands, ins) for leaf in o.shape.leaves() if leaf.is_array]
    big = max(arrays, key=lambda s: layout.padded_bytes(s), default=None)
    splittable = big is not None and big.rank >= 1 and not any(
        w.instruction.opcode in _UNSPLIT or w.estimated for w in works)
    parallel = not any(w.instruction.opcode is O.REDUCE
                       and 0 in (w.instruction.attrs.get("dimensions") or ()) for w in works)
    tiles = _leading_tiles(big.dimensions) if splittable and big is not None else 1
    compute = io.vpu + io.xlu + io.scalar
    kind = "scalar" if io.scalar > io.vpu + io.xlu else (
        "copy" if ins.opcode is O.COPY else "vector")
    scored: list[_Scored] = []
    for n in _sizes(tiles, 1) if tiles > 1 else [1]:
        vmem = 2 * math.ceil((io.in_padded + io.out_padded) / n)
        t = _pipeline(chip, n, n if parallel else 1, compute, io.in_padded + io.out_padded,
                      io.in_padded / n, io.out_padded / n, 0.0)
        cand = Candidate({"blocks": n}, t.cycles, vmem, t.bound)
        scored.append(_Scored(cand, t, (n,), 0.0, 0.0, io.in_padded))
    best = _choose(scored, chip)
    why = _why(scored, best, chip) if len(scored) > 1 else (
        "one block: data-dependent addressing" if not splittable and big is not None
        and big.rank >= 1 else "one block")
    kernel = _kernel(kind, ("parallel" if parallel else "arbitrary",), scored, best, why, chip)
    kernel.hbm_write_bytes = io.out_padded
    return kernel


@dataclass(frozen=True, slots=True)
class _Scored:
    """A candidate block with what the kernel would be if it were chosen."""

    candidate: Candidate
    timing: _Timing
    grid: tuple[int, ...]
    mxu: float
    fill_drain: float
    read_bytes: float

    @property
    def cycles(self) -> float:
        return self.candidate.cycles

    @property
    def vmem(self) -> int:
        return self.candidate.vmem_bytes


def _kernel(kind: str, semantics: tuple[str, ...], scored: list[_Scored], best: _Scored,
            why: str, chip: Chip) -> Kernel:
    """The kernel of the chosen candidate (its body and byte counts are filled in later)."""
    ranked = sorted(scored, key=lambda s: (s.vmem > chip.vmem_bytes, s.cycles))
    t = best.timing
    return Kernel("", "", kind, best.grid, semantics, best.candidate.block, why,
                  [s.candidate for s in ranked][:5], [], best.vmem,
                  best.vmem <= chip.vmem_bytes, t.cores, cycles=best.cycles,
                  exposed_dma_cycles=t.exposed_dma, overhead_cycles=t.overhead,
                  hbm_read_bytes=int(best.read_bytes))


def _leading_tiles(dims: tuple[int, ...]) -> int:
    """How many (8,128)-aligned blocks an array splits into along its leading axes."""
    if len(dims) >= 2:
        return max(1, math.prod(dims[:-2]) * math.ceil(dims[-2] / 8))
    return max(1, math.ceil(dims[0] / 1024)) if dims else 1


def _choose(scored: list[_Scored], chip: Chip) -> _Scored:
    """The cheapest candidate that fits VMEM (else the one needing the least VMEM)."""
    fits = [s for s in scored if s.vmem <= chip.vmem_bytes]
    if fits:
        return min(fits, key=lambda s: (s.cycles, s.vmem))
    return min(scored, key=lambda s: s.vmem)


def _why(scored: list[_Scored], best: _Scored, chip: Chip) -> str:
    """Which block was chosen among how many candidates, and why."""
    fits = [s for s in scored if s.vmem <= chip.vmem_bytes]
    text = (f"block {_text(best)} chosen from {len(scored)} candidates ({len(fits)} fit VMEM): "
            f"{best.cycles:.0f} cycles, {best.candidate.bound}-bound")
    rest = sorted((s for s in fits if s is not best), key=lambda s: s.cycles)
    if rest:
        r = rest[0]
        text += (f"; next best {_text(r)}: {r.cycles:.0f} cycles "
                 f"(+{(r.cycles / best.cycles - 1) * 100:.1f}%, {r.candidate.bound}-bound)")
    too_big = len(scored) - len(fits)
    if too_big:
        text += f"; {too_big} larger blocks exceed VMEM"
    if not fits:
        text += "; nothing fits VMEM, the smallest block is used"
    return text


def _text(s: _Scored) -> str:
    return " ".join(f"{k}={v}" for k, v in s.candidate.block.items())


def _dma_ops(sources: list[Instruction], layouts: list[list[layout.TiledLayout]],
             unit: str) -> list[Op]:
    ops = []
    for src, ts in zip(sources, layouts, strict=True):
        leaves = [(i, s) for i, s in zip(src.shape.leaf_indices(), src.shape.leaves(),
                                          strict=True) if s.is_array]
        for (index, leaf), t in zip(leaves, ts, strict=True):
            arrow = "hbm->vmem" if unit == "dma.in" else "vmem->hbm"
            if not t.dims:
                arrow = "hbm->smem"
            at = "{" + ",".join(map(str, index)) + "}" if src.shape.is_tuple else ""
            ops.append(Op(unit, arrow, f"%{src.name}{at}", t.text(leaf.element_type.value),
                          bytes=t.padded_bytes))
    return ops


def _body_ops(works: list[units.UnitWork], chip: Chip) -> list[Op]:
    ops = []
    for w in works:
        if w.unit == "free":
            continue
        name = f"%{w.instruction.name}"
        if w.gemm is not None:
            g = w.gemm
            cost = tpu_matmul(g.batch, g.m, g.n, g.k, chip, g.passes, g.int8)
            values = "tpu-mxu" if uses_mxu_numerics(w.instruction) else "interpreter"
            ops.append(Op("mxu", "matmul", name,
                          f"{g.batch}x [{g.m},{g.k}]x[{g.k},{g.n}] passes={g.passes} "
                          f"folds={cost.folds}", cycles=cost.stream, values=values))
            continue
        values = "tpu-vpu" if uses_vpu_numerics(w.instruction) else "interpreter"
        ops.append(Op(w.unit, w.what, name, w.detail, cycles=w.cycles, values=values,
                      estimated=w.estimated))
    return ops
