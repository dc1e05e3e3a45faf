"""MXU timing: a weight-stationary systolic array, and SCALE-Sim's fold formulas.

TPU mode (weights double-buffered, TPU v1 paper): a GEMM of M x K by K x N on an R x C
array is ceil(K/R) * ceil(N/C) weight tiles ("folds"); each streams the LHS rows through
the array in max(rows, R) cycles (rows padded to 8: one push of 8 rows per 8 cycles) while
the next tile's weights shift in underneath; the first weight load (R cycles) and one
fill/drain (R + C - 2) are exposed. Independent folds spread over the MXUs of a core, and
when there are fewer folds than MXUs the rows are split between MXUs holding the same
weights. Each bf16 pass (HIGH = 3, HIGHEST = 6) streams again; int8 streams at the chip's
int8 speed-up.

SCALE-Sim mode (one array, no weight overlap; verified exactly against scalesim 3.0.0):
WS: ceil(K/R) ceil(N/C) folds of 2R + C + M - 2; IS: ceil(K/R) ceil(M/C) folds of
2R + C + N - 2; OS: ceil(M/R) ceil(N/C) folds of R + C + K - 2; cycles = folds x per-fold - 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlotool.targets.tpu.chips import Chip


@dataclass(frozen=True, slots=True)
class MxuCost:
    """Cycles of one GEMM (or one block of it) on one TensorCore's MXUs."""

    #: Steady-state streaming cycles (what a pipelined block costs).
    stream: float
    #: Exposed once per kernel: the first weight load and one fill/drain.
    exposed: float
    folds: int
    useful_macs: int
    padded_macs: int

    @property
    def cycles(self) -> float:
        return self.stream + self.exposed


def _up(n: int, m: int) -> int:
    return -(-max(n, 1) // m) * m


def tpu_matmul(batch: int, m: int, n: int, k: int, chip: Chip, passes: int = 1,
               int8: bool = False) -> MxuCost:
    """A batch of M x K @ K x N GEMMs on one core, weight-stationary with overlap."""
    if chip.scalesim:
        return scalesim_cost(batch, m, n, k, chip)
    r, c, mxus = chip.mxu_rows, chip.mxu_cols, chip.mxus_per_core
    folds = batch * math.ceil(max(k, 1) / r) * math.ceil(max(n, 1) / c)
    best = math.inf
    for split in range(1, mxus + 1):
        rows = _up(math.ceil(max(m, 1) / split), 8)
        best = min(best, math.ceil(folds * split / mxus) * max(rows, r))
    rate = chip.int8_speedup if int8 else 1.0
    stream = best * passes / rate
    useful = batch * m * n * k
    padded = batch * _up(m, 8) * _up(n, c) * _up(k, r)
    return MxuCost(stream, r + r + c - 2, folds, useful, padded)


def scalesim_cycles(m: int, n: int, k: int, rows: int, cols: int, dataflow: str) -> int:
    """SCALE-Sim 3.0.0's compute cycles for ifmap M x K times filter K x N (CALC mode)."""
    if dataflow == "ws":
        folds, per = math.ceil(k / rows) * math.ceil(n / cols), 2 * rows + cols + m - 2
    elif dataflow == "is":
        folds, per = math.ceil(k / rows) * math.ceil(m / cols), 2 * rows + cols + n - 2
    elif dataflow == "os":
        folds, per = math.ceil(m / rows) * math.ceil(n / cols), rows + cols + k - 2
    else:
        raise ValueError(f"unknown dataflow {dataflow!r}")
    return folds * per - 1


def scalesim_folds(m: int, n: int, k: int, rows: int, cols: int, dataflow: str) -> int:
    if dataflow == "ws":
        return math.ceil(k / rows) * math.ceil(n / cols)
    if dataflow == "is":
        return math.ceil(k / rows) * math.ceil(m / cols)
    return math.ceil(m / rows) * math.ceil(n / cols)


def scalesim_cost(batch: int, m: int, n: int, k: int, chip: Chip) -> MxuCost:
    """SCALE-Sim's cycles for `batch` GEMMs run one after another (nothing exposed apart)."""
    m, n, k = max(m, 1), max(n, 1), max(k, 1)
    r, c = chip.mxu_rows, chip.mxu_cols
    cycles = batch * scalesim_cycles(m, n, k, r, c, chip.dataflow)
    folds = batch * scalesim_folds(m, n, k, r, c, chip.dataflow)
    dims = {"ws": (m, k, n), "is": (n, k, m), "os": (k, m, n)}[chip.dataflow]
    padded = batch * dims[0] * _up(dims[1], r) * _up(dims[2], c)
    return MxuCost(float(cycles), 0.0, folds, batch * m * n * k, padded)
