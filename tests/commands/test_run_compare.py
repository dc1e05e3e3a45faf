"""`run --expect` as a new user tries it: which inputs it uses, honest relative errors,
tables that fit 80 columns when piped, errors as JSON with --format json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.cli import main

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_expect_finds_the_sibling_inputs(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", str(EXAMPLES / "mlp_forward.hlo"), "--target", "interp", "--expect",
                 str(EXAMPLES / "mlp_forward.expected.npz"), "--rtol", "1e-4", "--atol", "1e-5"])
    captured = capsys.readouterr()
    assert code == 0
    assert f"using inputs {EXAMPLES / 'mlp_forward.inputs.npz'}" in captured.err
    assert "match" in captured.out and "MISMATCH" not in captured.out


def test_expect_npz_finds_inputs_npz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(EXAMPLES / "softmax.expected.npz", tmp_path / "expected.npz")
    shutil.copy(EXAMPLES / "softmax.inputs.npz", tmp_path / "inputs.npz")
    code = main(["run", str(EXAMPLES / "softmax.hlo"), "--target", "interp", "--expect",
                 str(tmp_path / "expected.npz"), "--rtol", "1e-4", "--atol", "1e-5"])
    assert code == 0 and f"using inputs {tmp_path / 'inputs.npz'}" in capsys.readouterr().err


def test_expect_without_inputs_refuses_with_a_hint(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(EXAMPLES / "mlp_forward.expected.npz", tmp_path / "exp.npz")
    code = main(["run", str(EXAMPLES / "mlp_forward.hlo"), "--expect", str(tmp_path / "exp.npz")])
    err = capsys.readouterr().err
    assert code == 2
    assert "pass --inputs IN.npz" in err and "--seed" in err


def test_expect_of_a_seeded_random_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.npz"
    hlo = str(EXAMPLES / "softmax.hlo")
    assert main(["run", hlo, "--target", "interp", "--seed", "3", "--output", str(out)]) == 0
    assert main(["run", hlo, "--target", "interp", "--seed", "3", "--expect", str(out)]) == 0
    assert "random inputs (--seed 3)" in capsys.readouterr().err


def test_relative_error_is_scaled_by_the_tolerance() -> None:
    want = np.array([0.0, 1e-9, 2.0, -4.0], np.float32)
    got = np.array([1e-7, 0.0, 2.0 + 2e-5, -4.0], np.float32)
    (d,) = values_io.compare_outputs({"out0": got}, {"out0": want}, rtol=1e-5, atol=1e-6)
    # |got-want| / (|want| + atol/rtol): finite near zero, <= rtol for every passing element
    err = np.abs(got.astype(np.float64) - want)
    rel = err / (np.abs(want.astype(np.float64)) + 0.1)
    assert d.ok and d.max_rel == pytest.approx(rel.max()) and d.max_rel <= 1e-5
    assert d.worst_index == (2,)
    (bad,) = values_io.compare_outputs({"out0": got * 1.01}, {"out0": want}, 1e-5, 1e-6)
    assert not bad.ok and bad.max_rel > 1e-5 and bad.max_rel < 1


def test_infinite_error_prints_as_inf(capsys: pytest.CaptureFixture[str]) -> None:
    want = np.array([1.0, 2.0], np.float32)
    got = np.array([np.inf, 2.0], np.float32)
    (d,) = values_io.compare_outputs({"out0": got}, {"out0": want}, 1e-5, 1e-6)
    assert not d.ok and d.max_rel == np.inf
    row = d.as_json()
    assert row["max_rel"] == "inf" and json.loads(json.dumps(row))["max_abs"] == "inf"
    from hlotool.report import print_comparison

    print_comparison([row], "expected")
    out = capsys.readouterr().out
    assert "inf" in out and "e+308" not in out and "MISMATCH" in out


def test_tables_fit_80_columns_when_piped(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["run", str(EXAMPLES / "mlp_forward.hlo"), "--target", "interp", "--inputs",
                 str(EXAMPLES / "mlp_forward.inputs.npz"), "--expect",
                 str(EXAMPLES / "mlp_forward.expected.npz"), "--rtol", "1e-9", "--atol",
                 "0"]) == 1
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80
    header = next(line for line in out.splitlines() if "output" in line and "status" in line)
    assert "max rel" in header and header.rstrip().endswith("┃")
    assert "MISMATCH" in out and "elements" in out


def test_json_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  ROOT x = f32[] parameter(0) is\n}\n")
    assert main(["parse", str(bad), "--format", "json"]) == 2
    captured = capsys.readouterr()
    error = json.loads(captured.out)["error"]
    assert error["kind"] == "bad input" and error["line"] >= 3 and error["file"] == str(bad)
    assert "error:" in captured.err


def test_bisect_says_what_it_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bisect", str(EXAMPLES / "softmax.hlo"), "--pipeline", "default"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "no bad pass among 13 passes (checked the verifier and numerics" in out
    assert "1 seeded input set (--seed 0), rtol=1e-05 atol=1e-06" in out


def test_compiled_kernels_are_named_after_their_instructions(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", "off")  # a cached compile has no LLVM text
    assert main(["compile", str(EXAMPLES / "softmax.opt.hlo"), "--emit", "llvm"]) == 0
    out = capsys.readouterr().out
    import re

    names = set(re.findall(r"^define void @(k\d+_[\w.]+)\(", out, re.M))
    assert names and all(re.fullmatch(r"k\d+_[A-Za-z_][\w.]*", n) for n in names)
    assert any("fusion" in n for n in names)


def test_compile_shows_the_kernels_run_runs(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`compile` runs the cpu pipeline first, as `run` does: a JAX dump before XLA's
    passes shows its fused kernels, not one kernel per unfused instruction."""
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", "off")
    assert main(["compile", str(EXAMPLES / "softmax.hlo"), "--emit", "llvm"]) == 0
    captured = capsys.readouterr()
    import re

    names = re.findall(r"^define void @(k\d+_[\w.]+)\(", captured.out, re.M)
    assert any("fusion" in n for n in names), names
    count = int(re.search(r"hlotool: (\d+) kernels", captured.err).group(1))
    from hlotool.commands.opt import apply_passes
    from hlotool.frontend import parse_hlo
    from hlotool.targets.cpu import CpuTarget

    module = parse_hlo((EXAMPLES / "softmax.hlo").read_text())
    apply_passes(module, "cpu", None, verify_each=False)
    assert count == len(CpuTarget(cache=False, autotune=False).compile(module).thunks)
