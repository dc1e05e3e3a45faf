"""The jax.export wrapper read without jax's generated code, against jax's own deserializer."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.bytecode.jax_export import read_jax_export
from hlotool.cli import main

DATA = Path(__file__).parents[1] / "data" / "artifacts"
BLOBS = sorted(p.name for p in DATA.glob("*.jaxexport"))


@pytest.mark.parametrize("name", BLOBS)
def test_fields_match_jaxs_deserializer(name: str) -> None:
    from jax import export

    data = (DATA / name).read_bytes()
    ours = read_jax_export(data)
    theirs = export.deserialize(bytearray(data))
    assert ours.function_name == theirs.fun_name
    assert ours.platforms == tuple(theirs.platforms)
    assert ours.calling_convention_version == theirs.calling_convention_version
    assert ours.nr_devices == theirs.nr_devices
    assert ours.mlir_module == theirs.mlir_module_serialized
    assert ours.module_kept_var_idx == tuple(theirs.module_kept_var_idx)
    for mine, aval in zip(ours.in_avals + ours.out_avals, theirs.in_avals + theirs.out_avals,
                          strict=True):
        assert mine.shape == tuple(str(d) for d in aval.shape)
        assert mine.dtype.replace("i1", "bool") in (str(aval.dtype), _short(str(aval.dtype)))
    assert ours.ordered_effects == tuple(str(e) for e in theirs.ordered_effects)


def _short(dtype: str) -> str:
    return {"float32": "f32", "int32": "i32", "int8": "i8", "float64": "f64"}.get(dtype, dtype)


def test_info_shows_the_signature_and_symbols(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(DATA / "poly.jaxexport"), "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert '"shape_symbols": [\n    "b"\n  ]' in out
    assert "f32[b, 16]" in out and '"platforms": [\n    "cpu"' in out


def test_info_of_text_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.mlir"
    src.write_text("module {}\n")
    assert main(["info", str(src)]) == 2
    assert "expected MLIR bytecode" in capsys.readouterr().err
