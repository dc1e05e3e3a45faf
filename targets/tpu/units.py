"""Which TPU unit runs each HLO instruction, and what it costs there.

Every instruction of a kernel body maps to one unit: the MXU (dot, convolution as an
implicit GEMM), the VPU (elementwise math on 8x128 vregs, graded cheap / medium /
expensive as in the Pallas TPU guide; data movement inside VMEM such as slices,
concatenates, pads, broadcasts), the XLU (transposes that move the minor axis, lane
reductions), the scalar unit (gather, scatter: one element per step), or nothing (free
views). Ops with no faithful vector lowering here (sort, custom calls, linear algebra,
FFT, random numbers) are costed by a documented estimate and say so (`estimated`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlotool.analysis.cost import instruction_cost
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.targets.tpu import layout
from hlotool.targets.tpu.chips import Chip
from hlotool.targets.tpu.numerics import passes_for

O = Opcode

MEDIUM = frozenset({O.DIVIDE, O.EXP, O.EXPM1, O.LOG, O.LOG1P, O.LOGISTIC, O.TANH, O.POWER,
                    O.RSQRT, O.SQRT, O.CBRT, O.REMAINDER, O.ERF, O.ATAN2})
EXPENSIVE = frozenset({O.SIN, O.COS, O.TAN, O.ACOS, O.ACOSH, O.ASIN, O.ASINH, O.ATAN, O.ATANH,
                       O.COSH, O.SINH})
FREE = frozenset({O.PARAMETER, O.CONSTANT, O.GET_TUPLE_ELEMENT, O.TUPLE, O.BITCAST,
                  O.AFTER_ALL, O.ADD_DEPENDENCY, O.OPT_BARRIER, O.DOMAIN, O.PARTITION_ID,
                  O.REPLICA_ID})
VECTOR_MOVES = frozenset({O.SLICE, O.CONCATENATE, O.PAD, O.REVERSE, O.DYNAMIC_SLICE,
                          O.DYNAMIC_UPDATE_SLICE, O.COPY, O.BROADCAST, O.IOTA, O.CONVERT,
                          O.BITCAST_CONVERT, O.REDUCE_PRECISION, O.CLAMP, O.SELECT,
                          O.ALL_REDUCE, O.ALL_GATHER, O.ALL_TO_ALL, O.COLLECTIVE_PERMUTE,
                          O.COLLECTIVE_BROADCAST, O.REDUCE_SCATTER})
SCALAR = frozenset({O.GATHER, O.SCATTER})
CONTROL = frozenset({O.WHILE, O.CONDITIONAL, O.CALL})
#: Ops costed by an estimate rather than a TPU lowering.
ESTIMATED = frozenset({O.SORT, O.TOPK, O.CUSTOM_CALL, O.CHOLESKY, O.TRIANGULAR_SOLVE, O.FFT,
                       O.RNG, O.RNG_BIT_GENERATOR, O.RNG_GET_AND_UPDATE_STATE})


@dataclass(frozen=True, slots=True)
class Gemm:
    """A contraction as the MXU sees it: `batch` GEMMs of M x K by K x N."""

    batch: int
    m: int
    n: int
    k: int
    passes: int
    int8: bool
    #: Bytes per element of the operands and result as stored in HBM.
    lhs_bytes: int
    rhs_bytes: int
    out_bytes: int


@dataclass(frozen=True, slots=True)
class UnitWork:
    """One body instruction's work on one unit (whole-array totals)."""

    instruction: Instruction
    unit: str  # mxu, vpu, xlu, scalar, free, control
    what: str
    cycles: float
    detail: str
    gemm: Gemm | None = None
    estimated: bool = False


def gemm_of(ins: Instruction) -> Gemm:
    """The GEMM view of a dot or convolution."""
    lt = ins.operand(0).shape.element_type
    rt = ins.operand(1).shape.element_type
    ot = ins.shape.element_type
    passes = mxu_passes(ins)
    int8 = lt.bits == 8 and rt.bits == 8 and lt.is_integral and rt.is_integral
    sizes = (_bytes(lt), _bytes(rt), _bytes(ot))
    if ins.opcode is O.DOT:
        a, b = ins.operand(0).shape.dimensions, ins.operand(1).shape.dimensions
        lb, lc = ins.attrs.get("lhs_batch_dims") or (), ins.attrs.get("lhs_contracting_dims") or ()
        rb, rc = ins.attrs.get("rhs_batch_dims") or (), ins.attrs.get("rhs_contracting_dims") or ()
        batch = math.prod(a[d] for d in lb)
        k = math.prod(a[d] for d in lc)
        m = math.prod(a[d] for d in range(len(a)) if d not in lb and d not in lc)
        n = math.prod(b[d] for d in range(len(b)) if d not in rb and d not in rc)
        return Gemm(batch, m, n, k, passes, int8, *sizes)
    dn = ins.attrs["dim_labels"]
    kernel = ins.operand(1).shape.dimensions
    out = ins.shape.dimensions
    groups = ins.attrs.get("feature_group_count", 1) * ins.attrs.get("batch_group_count", 1)
    taps = math.prod(kernel[d] for d in dn.kernel_spatial_dimensions)
    k = kernel[dn.kernel_input_feature_dimension] * taps
    n = out[dn.output_feature_dimension] // max(1, groups)
    m = out[dn.output_batch_dimension] * math.prod(out[d] for d in dn.output_spatial_dimensions)
    return Gemm(groups, m, n, k, passes, int8, *sizes)


def _bytes(t: PrimitiveType) -> int:
    return max(1, t.bits // 8)


def mxu_passes(ins: Instruction) -> int:
    """MXU passes: the precision config for f32 operands; one for narrow floats and
    8-bit integers; wider integers and f64 are emulated, costed as 6 bf16 passes."""
    types = [o.shape.element_type for o in ins.operands[:2]]
    if any(t in (PrimitiveType.F64, PrimitiveType.C64, PrimitiveType.C128) for t in types):
        return 6
    if any(t.is_integral and t.bits > 8 for t in types):
        return 6
    if all(t.bits <= 16 for t in types):
        return 1
    return passes_for(ins.attrs.get("operand_precision"), ins.attrs.get("algorithm"))


def classify(ins: Instruction, chip: Chip) -> UnitWork:
    """The unit and cycles of one instruction (for all its elements, on one core)."""
    op = ins.opcode
    if op in FREE or (op is O.RESHAPE and _keeps_minor(ins)):
        return UnitWork(ins, "free", op.value, 0.0, "a view: no data moves")
    if op in (O.DOT, O.CONVOLUTION):
        return UnitWork(ins, "mxu", "matmul", 0.0, "", gemm=gemm_of(ins))
    if op in CONTROL:
        return UnitWork(ins, "control", op.value, 0.0, "scalar unit; bodies are kernels")
    out_vregs = layout.vregs(ins.shape)
    if op in ELEMENTWISE:
        cls, cost = _class(op, chip)
        return UnitWork(ins, "vpu", op.value, out_vregs * cost, f"{out_vregs} vregs x {cls}")
    if op is O.RESHAPE:
        return UnitWork(ins, "xlu", "relayout", out_vregs * chip.xlu_transpose,
                        f"{out_vregs} vregs: the minor dims change")
    if op in (O.TRANSPOSE, O.COPY) and _moves_lanes(ins):
        return UnitWork(ins, "xlu", "transpose", out_vregs * chip.xlu_transpose,
                        f"{out_vregs} vregs: the lane (minor) axis moves")
    if op is O.TRANSPOSE:
        return UnitWork(ins, "vpu", "permute", out_vregs * chip.vpu_cheap,
                        f"{out_vregs} vregs: sublane/leading axes only")
    if op is O.REDUCE:
        return _reduce(ins, chip)
    if op in VECTOR_MOVES:
        return UnitWork(ins, "vpu", op.value, out_vregs * chip.vpu_cheap,
                        f"{out_vregs} vregs x cheap")
    if op is O.REDUCE_WINDOW:
        window = math.prod(d.size for d in ins.attrs["window"].dimensions)
        return UnitWork(ins, "vpu", "reduce-window", out_vregs * window * chip.vpu_cheap,
                        f"{out_vregs} vregs x {window} taps")
    if op is O.SELECT_AND_SCATTER:
        window = math.prod(d.size for d in ins.attrs["window"].dimensions)
        v = layout.vregs(ins.operand(0).shape)
        return UnitWork(ins, "vpu", "select-and-scatter", 2 * v * window * chip.vpu_cheap,
                        f"{v} vregs x {window} taps x (select, scatter)")
    if op is O.MAP:
        return UnitWork(ins, "vpu", "map", out_vregs * chip.vpu_medium, f"{out_vregs} vregs")
    if op in SCALAR:
        n = _scalar_elements(ins)
        return UnitWork(ins, "scalar", op.value, n * chip.scalar_per_element,
                        f"{n} elements one at a time")
    return _estimate(ins, chip)


def _class(op: Opcode, chip: Chip) -> tuple[str, float]:
    if op in EXPENSIVE:
        return "expensive", chip.vpu_expensive
    if op in MEDIUM:
        return "medium", chip.vpu_medium
    return "cheap", chip.vpu_cheap


def _minor(shape: Shape) -> int:
    """The logical dimension that is physically minor (lanes)."""
    layout_ = shape.layout
    return layout_.minor_to_major[0] if layout_ and layout_.minor_to_major else shape.rank - 1


def _moves_lanes(ins: Instruction) -> bool:
    """Whether a transpose or layout-changing copy puts another axis on the lanes."""
    src, out = ins.operand(0).shape, ins.shape
    if src.rank < 2:
        return False
    if ins.opcode is O.COPY:
        return _minor(src) != _minor(out)
    perm = ins.attrs.get("dimensions") or tuple(range(out.rank))
    return perm[_minor(out)] != _minor(src)


def _keeps_minor(ins: Instruction) -> bool:
    """A reshape that keeps the minor dimension and tiles of the second-minor."""
    a, b = ins.operand(0).shape.dimensions, ins.shape.dimensions
    if not a or not b:
        return True
    if a[-1] != b[-1]:
        return False
    second = (a[-2] if len(a) > 1 else 1), (b[-2] if len(b) > 1 else 1)
    return second[0] == second[1] or (second[0] % 8 == 0 and second[1] % 8 == 0)


def _reduce(ins: Instruction, chip: Chip) -> UnitWork:
    n = ins.operand_count // 2
    src = ins.operand(0).shape
    in_vregs = sum(layout.vregs(o.shape) for o in ins.operands[:n])
    dims = ins.attrs.get("dimensions") or ()
    vpu = in_vregs * chip.vpu_cheap
    if src.rank and src.rank - 1 in dims:
        out_elems = max(1, ins.shape.leaves()[0].element_count) * n
        xlu = math.ceil(out_elems / chip.sublanes) * chip.xlu_lane_reduce
        return UnitWork(ins, "xlu", "lane-reduce", vpu + xlu,
                        f"{in_vregs} vregs combined on the VPU, "
                        f"{math.ceil(out_elems / chip.sublanes)} lane reductions on the XLU")
    return UnitWork(ins, "vpu", "reduce", vpu, f"{in_vregs} vregs combined (sublane/major axes)")


def _scalar_elements(ins: Instruction) -> int:
    if ins.opcode is O.SCATTER:
        return ins.operand(ins.operand_count - 1).shape.element_count
    return max(1, sum(s.element_count for s in ins.shape.leaves() if s.is_array))


def _estimate(ins: Instruction, chip: Chip) -> UnitWork:
    """Ops without a TPU lowering here: VPU work from their flop count (at least one
    pass over their output), flagged as an estimate."""
    cost = instruction_cost(ins)
    vregs = layout.vregs(ins.shape) + sum(layout.vregs(o.shape) for o in ins.operands)
    work = max(float(vregs), (cost.flops + cost.transcendentals) / chip.vreg_elements)
    if ins.opcode in (O.SORT, O.TOPK):
        src = ins.operand(0).shape
        dim = (ins.attrs.get("dimensions") or (max(0, src.rank - 1),))[0] if src.rank else 0
        n = src.dimensions[dim] if src.rank else 1
        stages = math.ceil(math.log2(max(2, n)))
        work = max(work, float(vregs) * stages * (stages + 1) / 2)
        return UnitWork(ins, "vpu", "bitonic-sort", work * chip.vpu_cheap,
                        f"{vregs} vregs x {stages * (stages + 1) // 2} compare-exchange stages",
                        estimated=True)
    return UnitWork(ins, "vpu", ins.opcode.value, work * chip.vpu_cheap,
                    "estimated from its flops at one vreg op per cycle", estimated=True)
