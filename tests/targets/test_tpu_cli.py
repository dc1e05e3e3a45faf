"""`hlotool run --target tpu` (table, --report, --timeline, chips) and
`hlotool compile --target tpu --emit tpu`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hlotool.cli import main
from tests.targets.tpu_support import dot_module

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_run_prints_results_and_the_table(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    report, svg = tmp_path / "r.json", tmp_path / "t.svg"
    code = main(["run", str(EXAMPLES / "mlp_forward.hlo"), "--target", "tpu",
                 "--inputs", str(EXAMPLES / "mlp_forward.inputs.npz"),
                 "--expect", str(EXAMPLES / "mlp_forward.expected.npz"),
                 "--rtol", "2e-2", "--atol", "1e-2", "--report", str(report),
                 "--timeline", str(svg)])
    assert code == 0
    out = capsys.readouterr().out
    assert "simulated TPU v5e" in out and "out0" in out and "roofline" in out
    data = json.loads(report.read_text())
    for key in ("cycles", "seconds", "mxu_utilization", "hbm_bytes", "peak_vmem_bytes",
                "instructions", "busy_cycles", "exposed_dma_cycles", "padding_efficiency",
                "roofline", "numerics"):
        assert key in data
    assert data["seconds"] == pytest.approx(data["cycles"] / data["chip"]["clock_hz"])
    assert sum(r["total_cycles"] for r in data["instructions"]) == pytest.approx(data["cycles"])
    assert all(r["block_choice"] for r in data["instructions"])
    assert len(data["numerics"]["mxu_instructions"]) == 3
    root = ET.fromstring(svg.read_text())
    assert root.tag.endswith("svg") and len(root.findall(".//{*}rect")) >= 3


def test_run_json_has_the_tpu_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / "while_loop.hlo"), "--target", "tpu", "--tpu-chip", "v4",
                 "--format", "json"]) == 0
    last = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert last["target"] == "tpu" and last["tpu"]["cycles"] > 0


@pytest.mark.parametrize(("dataflow", "cycles"), [("ws", 14303), ("os", 12255), ("is", 14303)])
def test_scalesim_chip_and_dataflow(tmp_path: Path, dataflow: str, cycles: int) -> None:
    src, report = tmp_path / "d.hlo", tmp_path / "r.json"
    src.write_text(dot_module(512, 512, 512))
    assert main(["run", str(src), "--target", "tpu", "--tpu-chip", "scalesim",
                 "--tpu-dataflow", dataflow, "--report", str(report)]) == 0
    assert json.loads(report.read_text())["cycles"] == cycles


def test_dataflow_needs_the_scalesim_chip(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "d.hlo"
    src.write_text(dot_module(8, 8, 8))
    assert main(["run", str(src), "--target", "tpu", "--tpu-dataflow", "os"]) == 2
    assert "scalesim" in capsys.readouterr().err


def test_compile_emits_the_tpu_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(EXAMPLES / "softmax.hlo"), "--target", "tpu", "--emit", "tpu",
                 "--tpu-chip", "v6e"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("// TPU program for") and "on v6e" in out
    assert "kernel %" in out and "dma.in" in out and "dma.out" in out and "vmem" in out
    assert "T(8,128)" in out and "lane-reduce" in out


def test_emit_tpu_needs_target_tpu(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(EXAMPLES / "softmax.hlo"), "--emit", "tpu"]) == 2


def test_tpu_precision_sets_the_default_passes(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`--tpu-precision highest` turns DEFAULT dots into 6 bf16 passes (as
    jax_default_matmul_precision does); explicit precisions and algorithms are kept."""
    case = Path(__file__).parents[1] / "data" / "corpus" / "dot_matmul"
    cycles = {}
    for precision in ("default", "highest"):
        report = tmp_path / f"{precision}.json"
        code = main(["run", str(case / "module.hlo"), "--target", "tpu",
                     "--inputs", str(case / "inputs.npz"), "--expect", str(case / "expected.npz"),
                     "--rtol", "2e-2", "--atol", "1e-2", "--tpu-precision", precision,
                     "--report", str(report)])
        # bf16 operands miss XLA:CPU's f32 outputs by more than atol on a few near-zero
        # outputs (docs/tpu.md); 6 passes are f32-accurate.
        assert code == (1 if precision == "default" else 0)
        cycles[precision] = json.loads(report.read_text())["busy_cycles"]["mxu"]
    assert cycles["highest"] == pytest.approx(6 * cycles["default"])
    src = tmp_path / "d.hlo"
    src.write_text(dot_module(8, 8, 8, precision="high"))
    capsys.readouterr()
    assert main(["compile", str(src), "--target", "tpu", "--emit", "tpu",
                 "--tpu-precision", "highest"]) == 0
    assert "passes=3" in capsys.readouterr().out
