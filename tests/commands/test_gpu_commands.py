"""`hlotool run --target gpu` and `hlotool compile --target gpu --emit llvm|ptx|cubin`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.cli import main

CASE = Path(__file__).parents[1] / "data" / "corpus" / "layernorm"


@pytest.fixture(autouse=True)
def _no_device(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Answer the driver probe with 'no GPU' and keep its cache out of the user's."""
    monkeypatch.setenv("HLOTOOL_GPU_EMULATE", "1")
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path / "cache"))
    from hlotool.targets.gpu import driver

    driver.probe.cache_clear()


def test_run_emulated_matches_xla(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.npz"
    rc = main(["run", str(CASE / "module.hlo"), "--target", "gpu", "--inputs",
               str(CASE / "inputs.npz"), "--output", str(out), "--expect",
               str(CASE / "expected.npz"), "--rtol", "1e-4", "--atol", "1e-5"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "no GPU" in err and "emulator" in err and len(err.strip().splitlines()) == 1
    got = values_io.load_npz(out)
    want = values_io.load_npz(CASE / "expected.npz")
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-5)


def test_gpu_emulate_flag_needs_no_notice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(CASE / "module.hlo"), "--target", "gpu", "--gpu-emulate",
                 "--inputs", str(CASE / "inputs.npz"), "--format", "json"]) == 0
    assert "no GPU" not in capsys.readouterr().err


@pytest.mark.parametrize(("emit", "markers"), [
    ("llvm", ["define ptx_kernel void", "nvptx64-nvidia-cuda", "llvm.nvvm.read.ptx.sreg.tid.x"]),
    ("ptx", [".version 7.8", ".target sm_80", ".visible .entry", "ptxas:"]),
])
def test_compile_text(tmp_path: Path, emit: str, markers: list[str],
                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"k.{emit}"
    assert main(["compile", str(CASE / "module.opt.hlo"), "--target", "gpu", "--emit", emit,
                 "--arch", "sm_80", "-o", str(out)]) == 0
    text = out.read_text()
    for m in markers:
        assert m in text, m
    assert "kernel " in text and "registers" in text
    assert "GPU kernels" in capsys.readouterr().err


def test_compile_cubin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "k.cubin"
    assert main(["compile", str(CASE / "module.hlo"), "--target", "gpu", "--emit", "cubin",
                 "-o", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x7fELF"
    assert "registers" in capsys.readouterr().err


def test_compile_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", str(CASE / "module.hlo"), "--target", "gpu", "--emit", "cubin"]) == 2
    assert "-o FILE" in capsys.readouterr().err
    assert main(["compile", str(CASE / "module.hlo"), "--target", "cpu", "--emit", "ptx"]) == 2
    assert "--target gpu" in capsys.readouterr().err
