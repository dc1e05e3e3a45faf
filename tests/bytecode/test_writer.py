"""Artifacts hlotool writes: jaxlib's own StableHLO deserializer accepts them at every
target version, XLA runs them to JAX's outputs, and text -> artifact -> text is a fixed point."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlotool.bytecode import artifact_text, parse_version, read_artifact
from hlotool.bytecode.from_stablehlo import from_stablehlo
from hlotool.bytecode.reader import read_bytecode
from hlotool.bytecode.writer import write_bytecode
from hlotool.cli import main

DATA = Path(__file__).parents[1] / "data" / "artifacts"
EXAMPLES = Path(__file__).parents[2] / "examples"
MODELS = sorted(p.stem for p in DATA.glob("*.jaxexport"))
#: Targets across the bytecode formats StableHLO uses: 0 (0.9), 1 (0.10), 3 (0.12),
#: 4 (0.14) and 6 (0.15 on).
TARGETS = ("0.9.0", "0.10.0", "0.12.0", "0.14.0", "0.15.0", "1.0.0", "1.9.0", "1.15.0")


def _jaxlib_text(data: bytes) -> str:
    """The StableHLO text jaxlib's deserializer makes of an artifact."""
    from jax._src.interpreters import mlir
    from jaxlib.mlir.dialects import stablehlo

    with mlir.make_ir_context() as ctx:
        return str(stablehlo.deserialize_portable_artifact(ctx, data))


def _xla_outputs(text: str, model: str) -> list[np.ndarray]:
    import jax

    from hlotool.reference import compile_xla

    inputs = np.load(DATA / f"{model}.in.npz")
    exe = compile_xla(text, is_stablehlo=True)
    args = [jax.device_put(inputs[f"arg{i}"]) for i in range(len(inputs.files))]
    return [np.asarray(o) for o in exe.execute(args)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("model", MODELS)
def test_written_artifact_is_a_fixed_point_that_jaxlib_reads(model: str, target: str) -> None:
    text = artifact_text((DATA / f"{model}.mlirbc").read_bytes())
    written = write_bytecode(from_stablehlo(text, parse_version(target)))
    assert read_artifact(written).version == parse_version(target)
    assert artifact_text(written) == text
    assert "func.func" in _jaxlib_text(written)


@pytest.mark.parametrize("model", MODELS)
def test_xla_runs_the_written_artifact_to_jaxs_outputs(model: str) -> None:
    text = artifact_text((DATA / f"{model}.mlirbc").read_bytes())
    if model == "poly":
        return  # shape-polymorphic: XLA compiles it only once refined (the CLI test runs it)
    outs = _xla_outputs(_jaxlib_text(write_bytecode(from_stablehlo(text, (1, 9, 0)))), model)
    want = np.load(DATA / f"{model}.out.npz")
    assert len(outs) == len(want.files)
    for i, got in enumerate(outs):
        np.testing.assert_allclose(got, want[f"out{i}"], rtol=1e-5, atol=1e-5)


def test_bytecode_round_trips_byte_for_byte_through_the_reader() -> None:
    for path in sorted(DATA.glob("*.1.9.0.mlirbc")):
        data = path.read_bytes()
        again = write_bytecode(read_bytecode(data))
        assert artifact_text(again) == artifact_text(data)
        assert write_bytecode(read_bytecode(again)) == again


def test_print_writes_an_artifact_that_runs(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "poly.mlirbc"
    assert main(["print", str(DATA / "poly.jaxexport"), "--format", "artifact",
                 "--target-version", "1.0.0", "-o", str(out)]) == 0
    assert read_artifact(out.read_bytes()).version == (1, 0, 0)
    assert main(["run", str(out), "--inputs", str(DATA / "poly.in.npz"), "--expect",
                 str(DATA / "poly.out.npz"), "--rtol", "1e-5", "--atol", "1e-5"]) == 0
    assert "func.func" in _jaxlib_text(out.read_bytes())


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.hlo")))
def test_hlo_examples_become_artifacts_jaxlib_reads(example: str, tmp_path: Path) -> None:
    out = tmp_path / "e.mlirbc"
    assert main(["print", str(EXAMPLES / example), "--format", "artifact",
                 "--target-version", "1.5.0", "-o", str(out)]) == 0
    assert "func.func" in _jaxlib_text(out.read_bytes())


def test_refusals_name_the_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.mlirbc"
    assert main(["print", str(DATA / "mlp.mlirbc"), "--format", "artifact",
                 "--target-version", "2.0.0", "-o", str(out)]) == 2
    assert "2.0.0" in capsys.readouterr().err and not out.exists()
    text = artifact_text((DATA / "mlp.mlirbc").read_bytes()).replace(
        '"stablehlo.tanh"(%11)',
        '"stablehlo.tanh"(%11) {result_accuracy = #stablehlo.result_accuracy<atol = 1.0, '
        'rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}')
    assert "TOLERANCE" in text
    src = tmp_path / "acc.mlir"
    src.write_text(text)
    assert main(["print", str(src), "--format", "artifact", "--target-version", "1.5.0",
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "result_accuracy" in err and "1.5.0" in err
    assert main(["print", str(DATA / "mlp.mlirbc"), "--format", "artifact"]) == 2
    assert "-o" in capsys.readouterr().err
