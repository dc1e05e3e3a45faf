"""The simulator counts every kernel execution: loop bodies once per executed trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.frontend import parse_hlo
from hlotool.targets.tpu import TpuTarget, prepare

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_loop_bodies_count_once_per_trip() -> None:
    module = prepare(parse_hlo((EXAMPLES / "while_loop.hlo").read_text()))
    args = values_io.entry_arguments(module, values_io.load_npz(EXAMPLES / "while_loop.inputs.npz"))
    ex = TpuTarget("v5e").compile(module)
    result = ex.run(args)
    trips = int(np.asarray(result[1]))
    assert trips > 1
    report = ex.report()
    runs = sorted({r["executions"] for r in report["instructions"]})
    assert runs[-1] == trips + 1  # the condition runs once more than the body
    assert trips in runs
    total = sum(ex.program.kernels[i].cycles for i in ex.last.trace)
    assert report["cycles"] == pytest.approx(total, rel=1e-12)
    want = values_io.load_npz(EXAMPLES / "while_loop.expected.npz")
    assert all(d.ok for d in values_io.compare_outputs(values_io.output_arrays(result), want,
                                                       1e-5, 1e-6))


def test_get_target_gives_the_simulated_tpu() -> None:
    from hlotool.targets.base import get_target

    target = get_target("tpu")
    assert target.name == "tpu"
    module = prepare(parse_hlo((EXAMPLES / "softmax.hlo").read_text()))
    args = values_io.entry_arguments(module, values_io.load_npz(EXAMPLES / "softmax.inputs.npz"))
    ex = target.compile(module)
    out = values_io.output_arrays(ex.run(args))
    want = values_io.load_npz(EXAMPLES / "softmax.expected.npz")
    assert all(d.ok for d in values_io.compare_outputs(out, want, 1e-5, 1e-6))
    assert ex.stats.native == len(ex.program.kernels)
