"""--semantics xla-cpu (run's default) and stablehlo (test's default)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlotool.cli import main

MODULE = """HloModule m

ENTRY e {
  x = f32[3] parameter(0)
  c = f32[3] ceil(x)
  y = f64[2] parameter(1)
  r = f64[2] reduce-precision(y), exponent_bits=5, mantissa_bits=0
  ROOT t = (f32[3], f64[2]) tuple(c, r)
}
"""
X = np.array([1e-40, -1e-40, 0.5], np.float32)
Y = np.array([0x7FFFFFFFFFFFFFFF, 0xFFF8000000000000], np.uint64).view(np.float64)


def _run(tmp_path: Path, *flags: str) -> tuple[np.ndarray, np.ndarray]:
    src, inputs, out = tmp_path / "m.hlo", tmp_path / "in.npz", tmp_path / "out.npz"
    src.write_text(MODULE)
    np.savez(inputs, arg0=X, arg1=Y)
    assert main(["run", str(src), "--inputs", str(inputs), "--output", str(out), *flags]) == 0
    got = np.load(out)
    return got["out0"], got["out1"]


@pytest.mark.parametrize("target", ["interp", "cpu"])
def test_xla_cpu_flushes_denormals_and_keeps_nan(tmp_path: Path, target: str) -> None:
    ceil, rp = _run(tmp_path, "--target", target)
    # XLA:CPU reads 1e-40 as +0 and -1e-40 as -0 (jaxlib 0.10 gives the same).
    assert ceil.tolist() == [0.0, 0.0, 1.0] and np.signbit(ceil[1])
    assert np.isnan(rp).all()


def test_stablehlo_keeps_denormals_and_gives_inf(tmp_path: Path) -> None:
    ceil, rp = _run(tmp_path, "--target", "interp", "--semantics", "stablehlo")
    assert ceil.tolist() == [1.0, -0.0, 1.0]
    assert rp.tolist() == [np.inf, -np.inf]


def test_stablehlo_semantics_needs_the_interpreter(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.hlo"
    src.write_text(MODULE)
    assert main(["run", str(src), "--semantics", "stablehlo"]) == 2
    assert "--target interp" in capsys.readouterr().err


def test_test_command_defaults_to_the_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.mlir"
    path.write_text("""func.func @main() {
  %x = stablehlo.constant dense<1.0e-40> : tensor<f32>
  %c = stablehlo.ceil %x : tensor<f32>
  check.expect_eq_const %c, dense<1.0> : tensor<f32>
  func.return
}
""")
    assert main(["test", str(path)]) == 0
    assert main(["test", str(path), "--semantics", "xla-cpu"]) == 1
    assert capsys.readouterr().out.strip().splitlines()[-1] == "0 passed, 1 failed"
