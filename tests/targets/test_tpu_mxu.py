"""MXU timing: the scalesim preset reproduces SCALE-Sim 3.0.0's compute cycles, and the
TPU mode's weight overlap saves what the closed form says."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hlotool.targets.tpu import get_chip
from hlotool.targets.tpu.mxu import scalesim_cost, tpu_matmul
from tests.targets.tpu_support import dot_module, simulate_text, static_report

#: SCALE-Sim 3.0.0 runs (128x128 array, CALC mode): M, N, K, dataflow, compute cycles,
#: overall utilization % (docs: the SCALE-Sim measurements this target is checked against).
SCALESIM_RUNS = [
    (128, 128, 128, "ws", 509, 25.15), (128, 128, 128, "os", 381, 33.60),
    (128, 128, 128, "is", 509, 25.15), (512, 512, 512, "ws", 14303, 57.27),
    (512, 512, 512, "os", 12255, 66.85), (512, 512, 512, "is", 14303, 57.27),
    (1024, 1024, 4096, "ws", 359935, 72.83), (1024, 1024, 4096, "os", 278399, 94.16),
    (1024, 1024, 4096, "is", 359935, 72.83), (256, 4096, 1024, "ws", 163327, 40.13),
    (256, 4096, 1024, "os", 81791, 80.13), (256, 4096, 1024, "is", 71647, 91.47),
]


def closed_form(m: int, n: int, k: int, dataflow: str, r: int = 128, c: int = 128) -> int:
    """SCALE-Sim's fold formulas, written out independently of the simulator."""
    per_fold = {"ws": (math.ceil(k / r) * math.ceil(n / c), 2 * r + c + m - 2),
                "is": (math.ceil(k / r) * math.ceil(m / c), 2 * r + c + n - 2),
                "os": (math.ceil(m / r) * math.ceil(n / c), r + c + k - 2)}[dataflow]
    return per_fold[0] * per_fold[1] - 1


@pytest.mark.parametrize(("m", "n", "k", "dataflow", "cycles", "util"), SCALESIM_RUNS)
def test_scalesim_preset_reproduces_scalesim(m: int, n: int, k: int, dataflow: str,
                                              cycles: int, util: float) -> None:
    report = static_report(dot_module(m, k, n), "scalesim", dataflow)
    assert report["cycles"] == pytest.approx(cycles, rel=0.01)
    assert report["mxu_utilization"] * 100 == pytest.approx(util, abs=0.5)
    assert report["padding_efficiency"]["mxu"] == 1.0


def test_scalesim_preset_runs_end_to_end() -> None:
    a = np.ones((128, 128), np.float32)
    for dataflow, cycles in (("ws", 509), ("os", 381), ("is", 509)):
        out, report = simulate_text(dot_module(128, 128, 128), [a, a], "scalesim", dataflow)
        assert report["cycles"] == cycles
        assert np.all(out == 128.0)


RAGGED = (1, 7, 127, 128, 129, 300, 1000)


@pytest.mark.parametrize("dataflow", ["ws", "os", "is"])
def test_scalesim_ragged_shapes_follow_the_closed_form(dataflow: str) -> None:
    chip = get_chip("scalesim", dataflow)
    for m, n, k in itertools.product(RAGGED, repeat=3):
        got = scalesim_cost(1, m, n, k, chip).cycles
        assert got == pytest.approx(closed_form(m, n, k, dataflow), rel=0.01), (m, n, k)


@pytest.mark.parametrize(("m", "n", "k"), [(129, 300, 1000), (7, 127, 129), (300, 1000, 7),
                                           (1000, 129, 300)])
@pytest.mark.parametrize("dataflow", ["ws", "os", "is"])
def test_scalesim_ragged_modules_end_to_end(m: int, n: int, k: int, dataflow: str) -> None:
    report = static_report(dot_module(m, k, n), "scalesim", dataflow)
    want = closed_form(m, n, k, dataflow)
    assert report["cycles"] == pytest.approx(want, rel=0.01)
    assert report["mxu_utilization"] == pytest.approx(m * n * k / (want * 128 * 128), rel=0.01)


#: TPU-mode cycles with one 128x128 MXU (docs: first load + folds x max(M, R) + fill/drain).
TPU_MODE = [((128, 128, 128), 510, 1.00), ((512, 512, 512), 8574, 0.60),
            ((1024, 1024, 4096), 262526, 0.73), ((256, 4096, 1024), 65918, 0.40)]


@pytest.mark.parametrize(("shape", "cycles", "ratio"), TPU_MODE)
def test_weight_overlap_saves_what_the_model_says(shape: tuple[int, int, int], cycles: int,
                                                   ratio: float) -> None:
    m, n, k = shape
    one = get_chip("v5e", mxus_per_core=1)
    got = tpu_matmul(1, m, n, k, one).cycles
    assert got == cycles
    assert got / closed_form(m, n, k, "ws") == pytest.approx(ratio, abs=0.005)


def test_four_mxus_split_the_folds() -> None:
    chip = get_chip("v5e")
    one = get_chip("v5e", mxus_per_core=1)
    four = tpu_matmul(1, 512, 512, 512, chip).stream
    assert four == tpu_matmul(1, 512, 512, 512, one).stream / 4
    # One weight tile but many rows: the rows are split between the MXUs.
    assert tpu_matmul(1, 4096, 128, 128, chip).stream == 1024


def test_passes_and_int8_rate() -> None:
    chip = get_chip("v5e")
    base = tpu_matmul(1, 256, 256, 256, chip).stream
    assert tpu_matmul(1, 256, 256, 256, chip, passes=6).stream == 6 * base
    assert tpu_matmul(1, 256, 256, 256, chip, int8=True).stream == base / 2
    assert tpu_matmul(1, 256, 256, 256, get_chip("v4"), int8=True).stream == base
