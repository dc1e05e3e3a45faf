"""The command line as a user runs it: exit codes, outputs, reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.cli import main

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_parse_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(EXAMPLES / "softmax.hlo")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("jit_softmax: 8 computations, 78 instructions; entry main.8")


def test_parse_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(EXAMPLES / "softmax.hlo"), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["opcodes"]["reduce"] == 6
    assert summary["entry"]["parameters"] == ["f32[4,6,10]{2,1,0}"]


def test_print_is_a_fixed_point(tmp_path: Path) -> None:
    once = tmp_path / "once.hlo"
    twice = tmp_path / "twice.hlo"
    assert main(["print", str(EXAMPLES / "while_loop.hlo"), "-o", str(once)]) == 0
    assert main(["print", str(once), "-o", str(twice)]) == 0
    assert once.read_text() == twice.read_text()


def test_run_matches_expected(tmp_path: Path) -> None:
    out = tmp_path / "out.npz"
    code = main(["run", str(EXAMPLES / "mlp_forward.hlo"), "--target", "interp",
                 "--inputs", str(EXAMPLES / "mlp_forward.inputs.npz"), "--output", str(out),
                 "--expect", str(EXAMPLES / "mlp_forward.expected.npz"), "--rtol", "1e-4",
                 "--atol", "1e-5"])
    assert code == 0
    got = values_io.load_npz(out)
    want = values_io.load_npz(EXAMPLES / "mlp_forward.expected.npz")
    np.testing.assert_allclose(got["out0"], want["out0"], rtol=1e-4, atol=1e-5)


def test_run_mismatch_exits_1_with_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    want = values_io.load_npz(EXAMPLES / "softmax.expected.npz")
    want["out1"] = want["out1"] + np.float32(0.5)
    bad = tmp_path / "bad.npz"
    values_io.save_npz(bad, want)
    code = main(["run", str(EXAMPLES / "softmax.hlo"), "--target", "interp",
                 "--inputs", str(EXAMPLES / "softmax.inputs.npz"), "--expect", str(bad),
                 "--format", "json"])
    assert code == 1
    report = json.loads(capsys.readouterr().out)
    rows = {r["key"]: r for r in report["comparison"]}
    assert rows["out0"]["ok"] and not rows["out1"]["ok"]
    assert rows["out1"]["max_abs"] == pytest.approx(0.5, rel=1e-3)
    assert rows["out1"]["mismatched"] == 240


def test_run_random_inputs_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / "softmax.hlo"), "--target", "interp", "--seed", "3",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    out0 = report["outputs"]["out0"]
    assert out0["shape"] == [4, 6, 10] and 0.0 <= out0["min"] <= out0["max"] <= 1.0
    assert out0["mean"] == pytest.approx(0.1, abs=1e-6)  # each softmax row sums to 1


def test_inputs_with_wrong_shape_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "in.npz"
    values_io.save_npz(bad, {"arg0": np.zeros((2, 2), np.float32)})
    assert main(["run", str(EXAMPLES / "softmax.hlo"), "--target", "interp",
                 "--inputs", str(bad)]) == 2
    assert "arg0 has shape [2, 2]" in capsys.readouterr().err


def test_sidecar_round_trips_bfloat16(tmp_path: Path) -> None:
    import ml_dtypes

    a = np.array([1.5, -0.0, np.nan], dtype=ml_dtypes.bfloat16)
    path = tmp_path / "x.npz"
    values_io.save_npz(path, {"out0": a})
    assert json.loads((tmp_path / "x.dtypes.json").read_text()) == {"out0": "bfloat16"}
    back = values_io.load_npz(path)["out0"]
    assert back.dtype == a.dtype and back.view(np.uint16).tolist() == a.view(np.uint16).tolist()


def test_missing_file_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", "/nonexistent/x.hlo"]) == 2
    assert "cannot read /nonexistent/x.hlo" in capsys.readouterr().err


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO((EXAMPLES / "softmax.hlo").read_text()))
    assert main(["parse", "-"]) == 0
    assert "jit_softmax" in capsys.readouterr().out


def test_cli_starts_without_heavy_modules() -> None:
    code = ("import sys, hlotool.cli as c\n"
            "c.build_parser()\n"
            "heavy = [m for m in ('llvmlite', 'textual', 'graphviz', 'jax', 'numpy', 'lark', "
            "'google.protobuf') "
            "if m in sys.modules]\n"
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_reference_xla(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("jax")
    code = main(["run", str(EXAMPLES / "softmax.hlo"), "--target", "interp", "--inputs",
                 str(EXAMPLES / "softmax.inputs.npz"), "--reference", "xla", "--rtol", "1e-4",
                 "--atol", "1e-5", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert all(r["ok"] for r in report["reference"])


def test_unsupported_custom_call_is_named_with_position(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cc.hlo"
    path.write_text('HloModule m\nENTRY e {\n  p = f32[10] parameter(0)\n'
                    '  ROOT c = f32[10] custom-call(p), custom_call_target="my_kernel"\n}\n')
    assert main(["run", str(path), "--target", "interp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:4:8: error: custom-call target 'my_kernel' is not supported")


def test_cpu_target_runs_its_pipeline_and_matches(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(EXAMPLES / "softmax.hlo"), "--inputs",
                 str(EXAMPLES / "softmax.inputs.npz"), "--expect",
                 str(EXAMPLES / "softmax.expected.npz"), "--rtol", "1e-4", "--atol", "1e-5",
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert code == 0 and report["ok"]
    assert report["target"] == "cpu" and report["pipeline"] == "cpu"


@pytest.mark.parametrize("target", ["cpu", "interp"])
def test_run_bench_reports_timing_json(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / "mlp_forward.hlo"), "--target", target, "--bench", "4",
                 "--inputs", str(EXAMPLES / "mlp_forward.inputs.npz"),
                 "--expect", str(EXAMPLES / "mlp_forward.expected.npz"), "--rtol", "1e-4",
                 "--atol", "1e-5", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["ok"] and report["runs"] == 4
    assert report["compile_seconds"] >= 0
    assert 0 < report["run_seconds_min"] <= report["run_seconds_median"] <= report["run_seconds_max"]


def test_run_bench_table_and_bad_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / "softmax.hlo"), "--bench", "2"]) == 0
    out = capsys.readouterr().out
    assert "timing on cpu: 2 runs after one warm-up" in out and "run median" in out
    assert main(["run", str(EXAMPLES / "softmax.hlo"), "--bench", "-1"]) == 2
    assert "--bench needs a number of runs >= 0" in capsys.readouterr().err


def test_binary_input_is_refused_without_echo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A binary file (an HloProto .pb, say) is named, never shown."""
    path = tmp_path / "binary.hlo"
    path.write_bytes("HloModule m\x00\x01ÿþ garbage".encode("latin-1"))
    assert main(["parse", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path} is a binary file" in err and "garbage" not in err and "\x00" not in err

