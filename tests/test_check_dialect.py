"""`hlotool test`: the StableHLO check dialect files pass, failures and bad input are
reported with their locations and exit statuses (cli.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlotool import commands
from hlotool.check_dialect.compare import ulp_distance
from hlotool.cli import main

CHECKS = sorted((Path(__file__).parent / "stablehlo_checks").glob("*.mlir"))

FAILING = """\
func.func @passes() {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  check.expect_almost_eq_const %a, dense<[1.0, 2.0, 3.00001]> : tensor<3xf32>
  func.return
}

// -----

func.func @fails() {
  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = stablehlo.add %a, %a : tensor<3xi32>
  check.expect_eq_const %b, dense<[2, 5, 6]> : tensor<3xi32>
  func.return
}
"""


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `test` command, whether or not hlotool.commands lists it yet."""
    monkeypatch.setitem(commands.COMMANDS, "test", "test")


@pytest.mark.parametrize("path", CHECKS, ids=lambda p: p.name)
def test_check_files_pass(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["test", str(path)])
    out = capsys.readouterr()
    assert status == 0, out.out + out.err
    passed = out.out.strip().splitlines()[-1]
    assert passed.endswith(" passed, 0 failed") and not passed.startswith("0 ")


def test_every_op_family_is_covered() -> None:
    text = "\n".join(p.read_text() for p in CHECKS)
    for op in ("add", "compare", "select", "convert", "bitcast_convert", "broadcast_in_dim",
               "reshape", "transpose", "slice", "concatenate", "pad", "reverse", "iota",
               "dynamic_slice", "dynamic_update_slice", "reduce", "reduce_window",
               "select_and_scatter", "sort", "dot_general", "convolution", "gather",
               "scatter", "while", "case", "if", "call", "rng_bit_generator", "fft",
               "triangular_solve", "cholesky", "complex", "tuple", "get_tuple_element"):
        assert f"stablehlo.{op}" in text or f"{op} @" in text, op


def test_failing_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(FAILING)
    assert main(["test", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == "1 passed, 1 failed"
    assert f"{path}:12:3: check failed: expect_eq_const:" in out
    assert "index [1]: got 4, expected 5" in out


def test_failure_details_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(FAILING)
    assert main(["test", str(path), "--format", "json"]) == 1
    import json

    lines = capsys.readouterr().out.strip().splitlines()
    report = json.loads(lines[0])
    assert lines[-1] == "1 passed, 1 failed"
    bad = [c for c in report["checks"] if c["status"] == "fail"]
    assert len(bad) == 1
    assert bad[0]["location"] == f"{path}:12:3"
    assert bad[0]["index"] == [1] and bad[0]["max_abs"] == 1.0
    assert "got 4, expected 5" in bad[0]["detail"]


def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.mlir"
    path.write_text("func.func @f() {\n  %a = stablehlo.constant dense<1> : tensor<i32>\n"
                    "  check.expect_eq_const %a,\n")
    assert main(["test", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3:" in err and "Traceback" not in err


def test_type_mismatch_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mismatch.mlir"
    path.write_text("func.func @f() {\n  %a = stablehlo.constant dense<1> : tensor<i32>\n"
                    "  check.expect_eq_const %a, dense<1.0> : tensor<f32>\n  func.return\n}\n")
    assert main(["test", str(path)]) == 2
    assert f"{path}:3:3: error" in capsys.readouterr().err


def test_check_in_loop_fails_on_a_later_iteration(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "loop.mlir"
    path.write_text("""\
func.func @main() {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %i = stablehlo.while(%iv = %zero) : tensor<i32>
  cond {
    %lt = stablehlo.compare LT, %iv, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %big = stablehlo.compare LT, %iv, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
    check.expect_eq_const %big, dense<true> : tensor<i1>
    %next = stablehlo.add %iv, %one : tensor<i32>
    stablehlo.return %next : tensor<i32>
  }
  func.return
}
""")
    assert main(["test", str(path), "--format", "json"]) == 1
    import json

    report = json.loads(capsys.readouterr().out.splitlines()[0])
    assert report["checks"][0]["location"] == f"{path}:11:5"
    assert report["checks"][0]["runs"] == 3 and "run 2 of 3" in report["checks"][0]["detail"]


def test_ulp_distance() -> None:
    one = np.float32(1.0)
    up = np.nextafter(one, np.float32(2))
    got = np.array([one, up, -0.0, np.inf, np.nan, np.inf], np.float32)
    want = np.array([one, one, 0.0, np.inf, np.nan, -np.inf], np.float32)
    assert ulp_distance(got, want).tolist()[:5] == [0, 1, 0, 0, 0]
    assert ulp_distance(got, want)[5] == np.iinfo(np.uint64).max
