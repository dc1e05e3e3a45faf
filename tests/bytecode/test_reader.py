"""Portable artifacts and jax.export blobs of ten models (tests/data/artifacts, made by
generate.py with jax 0.10; tests/data/artifacts_jax012, the same script with jax 0.12)
run to JAX's outputs; malformed bytecode is a positioned error."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlotool.bytecode import BytecodeError, artifact_kind, artifact_text, read_artifact
from hlotool.cli import main

DATA = Path(__file__).parents[1] / "data" / "artifacts"
JAX012 = Path(__file__).parents[1] / "data" / "artifacts_jax012"
FILES = sorted(f"{d.name}/{p.name}" for d in (DATA, JAX012) for p in d.iterdir()
               if p.suffix in (".mlirbc", ".jaxexport"))
MODELS = sorted({p.name.split(".")[0] for p in DATA.glob("*.jaxexport")})


def test_there_are_ten_models_at_several_versions() -> None:
    assert len(MODELS) >= 10
    versions = {read_artifact((DATA.parent / f).read_bytes()).version for f in FILES}
    assert {(0, 10, 0), (0, 14, 0), (1, 0, 0), (1, 9, 0), (1, 15, 0), (1, 18, 0),
            (1, 20, 0)} <= versions


@pytest.mark.parametrize("name", FILES)
def test_artifact_runs_to_jaxs_outputs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA.parent / name
    model = path.name.split(".")[0]
    code = main(["run", str(path), "--inputs", str(path.parent / f"{model}.in.npz"),
                 "--expect", str(path.parent / f"{model}.out.npz"), "--rtol", "1e-5",
                 "--atol", "1e-5"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "MISMATCH" not in out


def test_kinds_are_told_by_their_bytes() -> None:
    assert artifact_kind((DATA / "mlp.mlirbc").read_bytes()) == "mlirbc"
    assert artifact_kind((DATA / "mlp.jaxexport").read_bytes()) == "jax-export"
    assert artifact_kind(b"module {}") is None


def test_the_blob_and_its_module_give_the_same_text() -> None:
    blob = artifact_text((DATA / "conv.jaxexport").read_bytes())
    assert blob == artifact_text((DATA / "conv.mlirbc").read_bytes())
    assert '"stablehlo.convolution"' in blob


@pytest.mark.parametrize("cut", [3, 10, 40, 200, 500])
def test_truncated_bytecode_names_the_byte(cut: int, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.mlirbc"
    bad.write_bytes(b"ML\xefR" + (DATA / "mlp.mlirbc").read_bytes()[4:cut])
    assert main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "byte " in err and "expected" in err and "Traceback" not in err


def test_a_version_outside_the_range_is_refused(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    data = (DATA / "mlp.mlirbc").read_bytes()
    assert b"StableHLO_v1.15.0" in data
    bad = tmp_path / "future.mlirbc"
    bad.write_bytes(data.replace(b"StableHLO_v1.15.0", b"StableHLO_v9.15.0"))
    assert main(["print", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "9.15.0" in err and "0.9.0 to 1.20.0" in err


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_corrupted_bytes_are_errors_never_crashes(data: st.DataObject) -> None:
    raw = bytearray((DATA / data.draw(st.sampled_from(["sort.mlirbc", "while.0.10.0.mlirbc",
                                                        "poly.jaxexport"]))).read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(4, len(raw) - 1))] = data.draw(st.integers(0, 255))
    try:
        artifact_text(bytes(raw))
    except BytecodeError as exc:
        assert exc.message


@pytest.mark.parametrize("name, edits", [
    ("sort.mlirbc", [(347, 168), (676, 125)]),
    ("while.0.10.0.mlirbc", [(613, 48)]),
])
def test_a_corrupt_count_is_refused_before_anything_is_allocated(
        name: str, edits: list[tuple[int, int]]) -> None:
    """Counts of blocks and values larger than the bytes left are errors at once (these
    corruptions made the reader build lists of billions of entries)."""
    raw = bytearray((DATA / name).read_bytes())
    for at, value in edits:
        raw[at] = value
    with pytest.raises(BytecodeError, match="bytes left can hold"):
        artifact_text(bytes(raw))
