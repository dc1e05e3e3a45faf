"""Cost analysis in the spirit of XLA's HloCostAnalysis: flops, transcendental
operations and bytes accessed per instruction.

Counting conventions follow XLA's:

- an elementwise op costs one flop per output element, or one transcendental for
  exponentials, logarithms, trigonometry, powers and roots;
- a dot costs 2 flops per multiply-add (output elements x contracted elements), a
  convolution likewise per kernel tap;
- a reduce applies its reducer (input - output elements) times, a reduce-window once per
  window element, a sort n log2 n times per sorted row, a scatter once per update;
- bytes accessed are the operand bytes read plus the result bytes written; slices and
  gathers read only what they return, a dynamic-update-slice only the updated region;
  bitcasts, tuples, get-tuple-element, parameters and constants move nothing;
- a fusion costs what its fused instructions compute, and reads its operands and writes
  its result once; a loop costs its body and condition times its trip count (known from
  `known_trip_count` in the backend config, else counted once), a conditional its
  most expensive branch, a call its callee.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from hlotool.analysis.liveness import array_bytes, control_flow_callees, sequential_computations
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import ELEMENTWISE, TRANSCENDENTAL, Opcode

O = Opcode

#: Ops that move no data and compute nothing.
FREE = frozenset(
    {
        O.PARAMETER,
        O.CONSTANT,
        O.GET_TUPLE_ELEMENT,
        O.TUPLE,
        O.BITCAST,
        O.AFTER_ALL,
        O.ADD_DEPENDENCY,
        O.OPT_BARRIER,
        O.DOMAIN,
        O.PARTITION_ID,
        O.REPLICA_ID,
    }
)
#: Ops that read only as many operand-0 bytes as they produce.
READS_OUTPUT_SIZE = frozenset({O.SLICE, O.DYNAMIC_SLICE, O.GATHER})
#: Elementwise-like ops that count one flop per element.
PER_ELEMENT = (ELEMENTWISE - TRANSCENDENTAL) | {
    O.CONVERT,
    O.STOCHASTIC_CONVERT,
    O.BITCAST_CONVERT,
    O.MAP,
}


@dataclass(frozen=True)
class Cost:
    """Flops, transcendental operations and bytes accessed."""

    flops: float = 0.0
    transcendentals: float = 0.0
    bytes_accessed: float = 0.0
    #: Bytes one device sends to the others (collectives; ring algorithms).
    bytes_sent: float = 0.0

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.flops + other.flops,
            self.transcendentals + other.transcendentals,
            self.bytes_accessed + other.bytes_accessed,
            self.bytes_sent + other.bytes_sent,
        )

    def scaled(self, k: float) -> Cost:
        return Cost(self.flops * k, self.transcendentals * k, self.bytes_accessed * k,
                    self.bytes_sent * k)

    def compute_only(self) -> Cost:
        return Cost(self.flops, self.transcendentals, 0.0)

    def as_json(self) -> dict[str, float]:
        return {
            "flops": self.flops,
            "transcendentals": self.transcendentals,
            "bytes_accessed": self.bytes_accessed,
            "bytes_sent": self.bytes_sent,
        }


@dataclass(frozen=True)
class Row:
    """One instruction's cost (for a loop: all its iterations)."""

    computation: str
    name: str
    opcode: str
    cost: Cost
    #: Loop trip count used (1 when unknown), for loops only.
    trips: int = 0

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "computation": self.computation,
            "name": self.name,
            "opcode": self.opcode,
            **self.cost.as_json(),
        }
        if self.trips:
            out["trip_count"] = self.trips
        return out


@dataclass
class CostAnalysis:
    """Per-instruction costs of the scheduled computations and the module total."""

    rows: list[Row] = field(default_factory=list)
    total: Cost = Cost()

    def as_json(self) -> dict[str, object]:
        return {"instructions": [r.as_json() for r in self.rows], "total": self.total.as_json()}

    def to_json(self) -> str:
        return json.dumps(self.as_json(), indent=1)


def analyze(module: Module) -> CostAnalysis:
    """Costs of every instruction of the entry and of the loops and branches it runs;
    the total is the entry's (loops counted with their trip counts)."""
    analysis = CostAnalysis()
    for comp in sequential_computations(module):
        for ins in comp.instructions:
            if ins.opcode in FREE:
                continue
            analysis.rows.append(
                Row(
                    comp.name,
                    ins.name,
                    _opcode_label(ins),
                    instruction_cost(ins),
                    trip_count(ins) if ins.opcode is O.WHILE else 0,
                )
            )
    analysis.total = computation_cost(module.entry)
    return analysis


@dataclass(frozen=True)
class KernelCount:
    """How many kernels a module launches per run (loop bodies counted once)."""

    #: Top-level fusions plus unfused compute instructions.
    kernels: int
    #: Top-level fusions (of any kind).
    fusions: int


#: Instructions that launch no kernel: plumbing, control flow, and free views.
NO_KERNEL = FREE | {O.WHILE, O.CONDITIONAL, O.CALL}


def count_kernels(module: Module) -> KernelCount:
    """Fusions plus unfused compute ops in the entry and the loops and branches it runs
    (what the fusion bench compares with XLA:CPU's optimized module)."""
    kernels = fusions = 0
    for comp in sequential_computations(module):
        for ins in comp.instructions:
            if ins.opcode is O.FUSION:
                fusions += 1
            if ins.opcode not in NO_KERNEL:
                kernels += 1
    return KernelCount(kernels, fusions)


def _opcode_label(ins: Instruction) -> str:
    if ins.opcode is O.FUSION:
        return f"fusion:{ins.attrs.get('kind', '')}"
    return ins.opcode.value


def computation_cost(comp: Computation) -> Cost:
    """The cost of running a computation once."""
    total = Cost()
    for ins in comp.instructions:
        total = total + instruction_cost(ins)
    return total


def instruction_cost(ins: Instruction) -> Cost:
    """The cost of executing `ins` once (its loops with their trip counts)."""
    op = ins.opcode
    if op in FREE:
        return Cost()
    if op is O.FUSION:
        inner = computation_cost(ins.attrs["calls"]).compute_only()
        return inner + Cost(bytes_accessed=_io_bytes(ins))
    if op is O.WHILE:
        body = sum((computation_cost(c) for c in control_flow_callees(ins)), Cost())
        return body.scaled(trip_count(ins))
    if op is O.CONDITIONAL:
        branches = [computation_cost(c) for c in ins.called_computations]
        return max(
            branches, key=lambda c: (c.flops + c.transcendentals, c.bytes_accessed), default=Cost()
        )
    if op is O.CALL:
        return computation_cost(ins.attrs["to_apply"])
    return Cost(_flops(ins), _transcendentals(ins), _bytes(ins), bytes_sent(ins))


#: What fraction of its data a member of a group of g sends, by collective (ring
#: all-reduce: reduce-scatter then all-gather; the others one pass around the ring).
_SENT: dict[O, Callable[[int], float]] = {
    O.ALL_REDUCE: lambda g: 2 * (g - 1) / g, O.ALL_REDUCE_START: lambda g: 2 * (g - 1) / g,
    O.ALL_GATHER: lambda g: (g - 1) / g, O.ALL_GATHER_START: lambda g: (g - 1) / g,
    O.REDUCE_SCATTER: lambda g: (g - 1) / g, O.ALL_TO_ALL: lambda g: (g - 1) / g,
    O.COLLECTIVE_PERMUTE: lambda g: 1.0, O.COLLECTIVE_PERMUTE_START: lambda g: 1.0,
    O.COLLECTIVE_BROADCAST: lambda g: 1.0,
}


def bytes_sent(ins: Instruction) -> float:
    """Bytes one device of `ins`'s group sends (0 for everything but collectives):
    all-reduce 2(g-1)/g of its operand, all-gather (g-1)/g of its result, reduce-scatter
    and all-to-all (g-1)/g of their operands, permutes and broadcasts their operand."""
    share = _SENT.get(ins.opcode)
    if share is None:
        return 0.0
    from hlotool.spmd.groups import participants

    cfg = ins.parent.parent.config if ins.parent is not None and ins.parent.parent else None
    replicas, partitions = (cfg.replica_count, cfg.num_partitions) if cfg else (1, 1)
    g = len(participants(ins, (0, 0), replicas, partitions))
    if ins.opcode in (O.COLLECTIVE_PERMUTE, O.COLLECTIVE_PERMUTE_START):
        g = 2 if ins.attrs.get("source_target_pairs") else 1
    if g <= 1:
        return 0.0
    data = ins.shape if ins.opcode in (O.ALL_GATHER, O.ALL_GATHER_START) else None
    size = array_bytes(data) if data is not None and data.is_array else sum(
        array_bytes(o.shape) for o in ins.operands if o.shape.is_array)
    return share(g) * size


def trip_count(loop: Instruction) -> int:
    """`known_trip_count` from the loop's backend config (XLA's
    WhileLoopTripCountAnnotator), else 1."""
    try:
        config = json.loads(loop.backend_config) if loop.backend_config else {}
        return max(1, int(config["known_trip_count"]["n"]))
    except (ValueError, KeyError, TypeError):
        return 1


def _elements(ins: Instruction) -> int:
    return sum(leaf.element_count for leaf in ins.shape.leaves() if leaf.is_array)


def _reducer_flops(ins: Instruction, key: str = "to_apply") -> float:
    comp = ins.attrs.get(key)
    return max(1.0, computation_cost(comp).flops) if comp is not None else 1.0


def _flops(ins: Instruction) -> float:
    op = ins.opcode
    if op in PER_ELEMENT:
        return float(_elements(ins))
    if op is O.DOT:
        lhs = ins.operand(0).shape
        contracted = math.prod(
            lhs.dimensions[d] for d in ins.attrs.get("lhs_contracting_dims") or ()
        )
        return 2.0 * _elements(ins) * contracted
    if op is O.CONVOLUTION:
        return 2.0 * _elements(ins) * _taps(ins)
    if op is O.REDUCE:
        n = ins.operand_count // 2
        inputs = sum(o.shape.element_count for o in ins.operands[:n])
        return max(0, inputs - _elements(ins)) / max(1, n) * _reducer_flops(ins)
    if op is O.REDUCE_WINDOW:
        window = math.prod(d.size for d in ins.attrs["window"].dimensions)
        return float(_elements(ins) * window) * _reducer_flops(ins)
    if op in (O.SORT, O.TOPK):
        return _sort_flops(ins)
    if op is O.SCATTER:
        return float(ins.operand(ins.operand_count - 1).shape.element_count) * _reducer_flops(ins)
    if op is O.SELECT_AND_SCATTER:
        window = math.prod(d.size for d in ins.attrs["window"].dimensions)
        source = ins.operand(1).shape.element_count
        return float(source * window) * _reducer_flops(ins, "select") + source * _reducer_flops(
            ins, "scatter"
        )
    return _linalg_flops(ins)


def _taps(conv: Instruction) -> int:
    labels = conv.attrs["dim_labels"]
    kernel = conv.operand(1).shape.dimensions
    spatial = math.prod(kernel[d] for d in labels.kernel_spatial_dimensions)
    return spatial * kernel[labels.kernel_input_feature_dimension]


def _sort_flops(ins: Instruction) -> float:
    operand = ins.operand(0).shape
    if not operand.dimensions:
        return 0.0
    dim = (ins.attrs.get("dimensions") or (operand.rank - 1,))[0]
    n = operand.dimensions[dim]
    rows = operand.element_count // max(1, n)
    comparator = _reducer_flops(ins) if ins.opcode is O.SORT else 1.0
    return rows * n * math.log2(max(2, n)) * comparator


def _linalg_flops(ins: Instruction) -> float:
    op = ins.opcode
    if op not in (O.FFT, O.CHOLESKY, O.TRIANGULAR_SOLVE):
        return 0.0
    shape = ins.operand(0).shape
    if op is O.FFT:
        n = math.prod(ins.attrs["fft_length"])
        batches = _elements(ins) // max(1, n)
        return 5.0 * batches * n * math.log2(max(2, n))
    if op is O.CHOLESKY and shape.rank >= 2:
        n = shape.dimensions[-1]
        return shape.element_count // (n * n) * n**3 / 3.0
    if op is O.TRIANGULAR_SOLVE and shape.rank >= 2:
        a = shape.dimensions[-1]
        return float(ins.operand(1).shape.element_count * a)
    return 0.0


def _transcendentals(ins: Instruction) -> float:
    return float(_elements(ins)) if ins.opcode in TRANSCENDENTAL else 0.0


def _io_bytes(ins: Instruction) -> int:
    return sum(array_bytes(o.shape) for o in dict.fromkeys(ins.operands)) + array_bytes(ins.shape)


def _bytes(ins: Instruction) -> float:
    op = ins.opcode
    if op in READS_OUTPUT_SIZE:
        rest = sum(array_bytes(o.shape) for o in ins.operands[1:])
        return 2.0 * array_bytes(ins.shape) + rest
    if op is O.DYNAMIC_UPDATE_SLICE:
        update = array_bytes(ins.operand(1).shape)
        return 2.0 * update + sum(array_bytes(o.shape) for o in ins.operands[2:])
    return float(_io_bytes(ins))
