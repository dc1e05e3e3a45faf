"""Every corpus module runs on the simulated TPU and matches XLA's outputs within the
case's tolerance raised to bf16 matmul levels (2e-2, 1e-2) (`python bench/tpu.py --corpus`
measures how long each takes to simulate: no timing assertions here).

Four cases have f32 dots/convolutions whose DEFAULT-precision (bf16 operand) error on
standard-normal data exceeds that floor on a few near-zero outputs, as an exact
bf16-input oracle does too. For them the test asserts what is true: within a bf16-level
tolerance at DEFAULT, and within the floor once every dot/convolution asks for HIGHEST.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from hlotool import values_io
from hlotool.frontend import parse_hlo
from hlotool.targets.tpu import TpuTarget, prepare
from hlotool.targets.tpu.target import set_default_precision
from tests.conftest import CASES, CORPUS, runnable, tolerance
from tests.targets.tpu_support import prepared_case

#: DEFAULT precision rounds matmul inputs to bf16; XLA:CPU computed in f32.
FLOOR = (2e-2, 1e-2)
#: Cases whose bf16-rounded matmuls miss FLOOR on a few outputs (K = 18..32, N(0,1) data).
BF16_SENSITIVE = {"conv2d_nchw_dilated", "conv_grad", "dot_batched", "dot_matmul"}
#: What bf16 operands allow there: |error| ~ sqrt(K) x 2^-8 x |a||b|.
BF16_TOL = (2e-2, 6e-2)
PATHS = [c / "module.hlo" for c in CASES if runnable(c / "module.hlo")]


def _run(module: object, path: Path) -> tuple[dict, Any]:
    args = values_io.entry_arguments(module, values_io.load_npz(path.parent / "inputs.npz"))
    ex = TpuTarget("v5e").compile(module)
    return values_io.output_arrays(ex.run(args)), ex


def _diffs(outputs: dict, path: Path, tol: tuple[float, float]) -> list:
    rtol, atol = (max(a, b) for a, b in zip(tolerance(path.parent), tol, strict=True))
    want = values_io.load_npz(path.parent / "expected.npz")
    return [d for d in values_io.compare_outputs(outputs, want, rtol, atol) if not d.ok]


@pytest.mark.parametrize("path", PATHS, ids=[p.parent.name for p in PATHS])
def test_corpus_case_on_tpu(path: Path) -> None:
    outputs, ex = _run(prepared_case(path), path)
    sensitive = path.parent.name in BF16_SENSITIVE
    bad = _diffs(outputs, path, BF16_TOL if sensitive else FLOOR)
    assert not bad, [d.as_json() for d in bad]
    report = ex.report()
    assert report["cycles"] > 0 and np.isfinite(report["seconds"])
    assert report["peak_vmem_bytes"] <= ex.program.chip.vmem_bytes


@pytest.mark.parametrize("name", sorted(BF16_SENSITIVE))
def test_bf16_sensitive_cases_are_exactly_the_matmul_rounding(name: str) -> None:
    path = CORPUS / name / "module.hlo"
    outputs, _ = _run(prepared_case(path), path)
    assert _diffs(outputs, path, FLOOR), "no longer needs the bf16 tolerance"
    module = prepare(parse_hlo(path.read_text()))
    assert set_default_precision(module, "highest")  # --tpu-precision highest
    outputs, _ = _run(module, path)
    assert not _diffs(outputs, path, FLOOR)


def test_dot_matmul_error_equals_an_exact_bf16_oracle() -> None:
    """The worst output of dot_matmul's first dot: simulated and oracle errors agree."""
    case = CORPUS / "dot_matmul"
    inputs = np.load(case / "inputs.npz")
    a, b = (inputs[k].astype(ml_dtypes.bfloat16).astype(np.float64) for k in ("arg0", "arg1"))
    want = np.load(case / "expected.npz")["out0"]
    outputs, _ = _run(prepared_case(case / "module.hlo"), case / "module.hlo")
    got = outputs["out0"].astype(np.float64)
    oracle = a @ b
    assert np.max(np.abs(got - oracle)) < 1e-5 * np.max(np.abs(a) @ np.abs(b))
    assert np.max(np.abs(got - want)) == pytest.approx(np.max(np.abs(oracle - want)), rel=1e-3)
