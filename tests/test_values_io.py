"""Reading values: damaged npz files and sidecars are clean input errors naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from hlotool import values_io
from hlotool.cli import main
from hlotool.diagnostics import HloError

SOFTMAX = str(Path(__file__).parent.parent / "examples" / "softmax.hlo")


def _good(tmp_path: Path) -> Path:
    path = tmp_path / "in.npz"
    values_io.save_npz(path, {"arg0": np.ones((4, 6, 10), np.float32)})
    return path


@pytest.mark.parametrize("damage", ["empty", "truncated", "npy", "text", "missing"])
def test_a_bad_inputs_file_is_exit_2_naming_it(tmp_path: Path, damage: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    good = _good(tmp_path)
    path = tmp_path / ("in.npy" if damage == "npy" else "bad.npz")
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "truncated":
        path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif damage == "npy":
        np.save(path, np.ones((4, 6, 10), np.float32))
    elif damage == "text":
        path.write_text("arg0 = 1\n")
    assert main(["run", SOFTMAX, "--target", "interp", "--inputs", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"cannot read {path}" in err and "internal error" not in err
    if damage == "npy":
        assert "np.savez" in err


@pytest.mark.parametrize("sidecar", ['[1, 2]', '{"arg0": 3}', '{"arg0": "nonsense"}',
                                     '{"arg0": "float64"}', "not json", '{"arg0": "V4"}',
                                     '{"arg0": "object"}'])
def test_a_malformed_sidecar_is_an_input_error(tmp_path: Path, sidecar: str) -> None:
    path = _good(tmp_path)
    side = tmp_path / "in.dtypes.json"
    side.write_text(sidecar)
    with pytest.raises(HloError, match=r"in\.dtypes\.json"):
        values_io.load_npz(path)


def test_a_good_sidecar_restores_bf16(tmp_path: Path) -> None:
    path = tmp_path / "in.npz"
    np.savez(path, arg0=np.array([0x3F80, 0x4000], np.uint16))
    (tmp_path / "in.dtypes.json").write_text(json.dumps({"arg0": "bfloat16", "gone": "int8"}))
    got = values_io.load_npz(path)["arg0"]
    assert got.dtype == ml_dtypes.bfloat16 and got.astype(np.float32).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("text", ["ROOT é", "reduceé", "x\u00e9 = f32[] parameter(0)"])
def test_a_non_ascii_letter_is_a_positioned_error(tmp_path: Path, text: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    src = Path(SOFTMAX).read_text()
    bad = tmp_path / "bad.hlo"
    if text.startswith("ROOT"):
        bad.write_text(src.replace("ROOT ", text, 1))
    elif text == "reduceé":
        bad.write_text(src.replace("reduce", text, 1))
    else:
        bad.write_text(f"HloModule m\nENTRY e {{\n  ROOT {text}\n}}\n")
    for command in ("parse", "print", "debug"):
        assert main([command, str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"{bad}:") and "unexpected character 'é'" in err


def _one_ulp_up(values: np.ndarray) -> np.ndarray:
    """Each value's next representable neighbour away from zero, in its own type."""
    bits = values.view(np.uint16 if values.dtype.itemsize == 2 else np.uint32)
    return (bits + 1).view(values.dtype)


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16])
def test_narrow_floats_default_to_two_ulps(dtype: type) -> None:
    want = np.array([0.1, 1.0, 1.99, -3.5, 100.0], dtype)
    got = _one_ulp_up(want)
    assert all(d.ok for d in values_io.compare_outputs({"out0": got}, {"out0": want}, None, None))
    assert not values_io.compare_outputs({"out0": got}, {"out0": want}, 1e-5, 1e-6)[0].ok
    powers = np.array([1.0, -4.0, 2.0], dtype)  # an ulp is eps * |value| at a binade's bottom
    five_off = powers
    for _ in range(5):
        five_off = _one_ulp_up(five_off)
    diff = values_io.compare_outputs({"out0": five_off}, {"out0": powers}, None, None)[0]
    assert not diff.ok and diff.mismatched == 3


def test_f32_and_integer_defaults_are_unchanged() -> None:
    want = np.array([0.1, 1.0, -3.5], np.float32)
    assert values_io.default_tolerance(want.dtype) == (1e-5, 1e-6)
    assert not values_io.compare_outputs({"o": want * np.float32(1.0001)}, {"o": want},
                                         None, None)[0].ok
    ints = np.array([1, 2], ml_dtypes.int4)
    assert values_io.default_tolerance(ints.dtype) == (1e-5, 1e-6)
    assert not values_io.compare_outputs({"o": np.array([1, 3], ml_dtypes.int4)}, {"o": ints},
                                         None, None)[0].ok


def test_run_expect_on_a_bf16_module_takes_one_ulp(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    hlo = tmp_path / "m.hlo"
    hlo.write_text("HloModule m\nENTRY e {\n  a = bf16[5] parameter(0)\n"
                   "  ROOT r = bf16[5] add(a, a)\n}\n")
    x = np.array([0.1, 1.0, 1.99, -3.5, 100.0], ml_dtypes.bfloat16)
    values_io.save_npz(tmp_path / "in.npz", {"arg0": x})
    values_io.save_npz(tmp_path / "exp.npz", {"out0": _one_ulp_up(x + x)})
    base = ["run", str(hlo), "--target", "interp", "--inputs", str(tmp_path / "in.npz"),
            "--expect", str(tmp_path / "exp.npz")]
    assert main(base) == 0
    assert main([*base, "--rtol", "1e-5"]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_bf16_inputs_saved_by_plain_savez_are_read_as_their_bits(tmp_path: Path) -> None:
    """np.savez stores a bfloat16 array as raw 2-byte records (`|V2`) without a sidecar:
    a bf16 parameter reads those bits as bfloat16; a parameter of another width does
    not take them."""
    hlo = tmp_path / "m.hlo"
    hlo.write_text("HloModule m\nENTRY e {\n  a = bf16[3] parameter(0)\n"
                   "  ROOT r = bf16[3] add(a, a)\n}\n")
    x = np.array([0.5, -2.0, 3.0], ml_dtypes.bfloat16)
    np.savez(tmp_path / "in.npz", arg0=x)
    assert np.load(tmp_path / "in.npz")["arg0"].dtype.kind == "V"
    out = tmp_path / "out.npz"
    assert main(["run", str(hlo), "--target", "interp", "--inputs", str(tmp_path / "in.npz"),
                 "--output", str(out)]) == 0
    got = values_io.load_npz(out)["out0"]
    assert got.dtype == ml_dtypes.bfloat16 and got.astype(np.float32).tolist() == [1.0, -4.0, 6.0]
    hlo.write_text("HloModule m\nENTRY e {\n  a = f32[3] parameter(0)\n"
                   "  ROOT r = f32[3] add(a, a)\n}\n")
    assert main(["run", str(hlo), "--target", "interp", "--inputs",
                 str(tmp_path / "in.npz")]) == 2
