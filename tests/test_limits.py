"""Limits before allocation: memory estimates, lazy refusals, nesting depths, bad dims."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from bench.reliability_probes import call_chain, nested_tuple
from hlotool import values_io
from hlotool.cli import main
from hlotool.frontend import parse_hlo
from hlotool.limits import MAX_CALL_DEPTH, MAX_SHAPE_DEPTH, estimate_run_bytes, parse_size


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_parse_size() -> None:
    assert parse_size("8G") == 8 << 30 and parse_size("512m") == 512 << 20
    assert parse_size("1.5GiB") == 3 << 29 and parse_size("1000") == 1000
    with pytest.raises(ValueError):
        parse_size("lots")


def test_a_huge_splat_stays_lazy_and_run_refuses_it(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "splat.mlir", (
        "func.func @main() -> tensor<100000x100000xf32> {\n"
        "  %0 = stablehlo.constant dense<0.0> : tensor<100000x100000xf32>\n"
        "  return %0 : tensor<100000x100000xf32>\n}\n"))
    tracemalloc.start()
    assert main(["parse", path]) == 0
    assert main(["print", path, "-o", str(tmp_path / "p.mlir")]) == 0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 64 << 20
    assert "stablehlo.constant dense<0.000000e+00> : tensor<100000x100000xf32>" in \
        (tmp_path / "p.mlir").read_text()
    capsys.readouterr()
    assert main(["run", path, "--target", "interp"]) == 2
    assert "needs about" in capsys.readouterr().err
    assert main(["print", path, "--format", "hlo"]) == 2
    assert "constant.1: a splat of 10000000000 elements" in capsys.readouterr().err


def test_a_huge_dense_constant_is_refused_before_allocation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "dense.mlir", (
        "func.func @main() -> tensor<100000x100000xf32> {\n"
        "  %0 = stablehlo.constant dense<\"0x00000000000000\"> : tensor<100000x100000xf32>\n"
        "  return %0 : tensor<100000x100000xf32>\n}\n"))
    assert main(["parse", path]) == 2
    assert f"{path}:2:27: error: the constant needs 37.3 GiB" in capsys.readouterr().err


def test_run_refuses_a_module_above_max_memory(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "big.hlo", "HloModule b\nENTRY e {\n  a = f32[100000,100000] "
                  "parameter(0)\n  ROOT n = f32[100000,100000] negate(a)\n}\n")
    assert main(["run", path, "--target", "interp"]) == 2
    assert "needs about 74.5 GiB" in capsys.readouterr().err
    assert main(["run", path, "--max-memory", "lots"]) == 2
    assert "--max-memory: not a size" in capsys.readouterr().err


def test_the_estimate_counts_parameters_outputs_and_temporaries() -> None:
    m = parse_hlo("HloModule m\nENTRY e {\n  a = f32[1000] parameter(0)\n"
                  "  b = f32[1000] exponential(a)\n  ROOT c = f32[1000] negate(b)\n}\n")
    assert 8000 <= estimate_run_bytes(m) <= 12000


def test_the_estimate_counts_every_device_and_a_constant_root_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = "HloModule m{}\nENTRY e {{\n  a = f32[1024] parameter(0)\n  ROOT n = f32[1024] negate(a)\n}}\n"
    single = estimate_run_bytes(parse_hlo(one.format("")))
    many = estimate_run_bytes(parse_hlo(one.format(", replica_count=65536")))
    assert many >= 65536 * single
    # A fuzz mutant: a tiny module on 65536 devices grew past 13 GB under --max-memory 256M.
    path = _write(tmp_path, "devices.hlo", one.format(", replica_count=65536"))
    assert main(["run", path, "--target", "cpu", "--max-memory", "256M"]) == 2
    assert "on 65536 devices needs about" in capsys.readouterr().err
    constant = parse_hlo("HloModule c\nENTRY e {\n  ROOT k = f32[1000] constant({...})\n}\n")
    assert estimate_run_bytes(constant) == 4000


def test_max_memory_lets_a_small_module_run(tmp_path: Path) -> None:
    softmax = str(Path(__file__).parent.parent / "examples" / "softmax.hlo")
    assert main(["run", softmax, "--target", "interp", "--max-memory", "64M"]) == 0
    assert main(["run", softmax, "--target", "interp", "--max-memory", "1k"]) == 2


def test_a_3000_deep_call_chain_parses_prints_and_runs(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "calls.hlo", call_chain(3000))
    inputs = tmp_path / "in.npz"
    values_io.save_npz(inputs, {"arg0": np.array(2.5, np.float32)})
    out = tmp_path / "out.npz"
    assert main(["print", path, "-o", str(tmp_path / "p.hlo")]) == 0
    assert main(["run", path, "--target", "interp", "--inputs", str(inputs),
                 "--output", str(out)]) == 0
    assert values_io.load_npz(out)["out0"] == np.float32(-2.5)


def test_calls_deeper_than_the_limit_are_a_positioned_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "calls.hlo", call_chain(MAX_CALL_DEPTH + 1))
    assert main(["parse", path]) == 2
    err = capsys.readouterr().err
    assert f"computations call each other more than {MAX_CALL_DEPTH} deep" in err
    assert err.startswith(f"{path}:")


def test_deep_tuple_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["print", _write(tmp_path, "t400.hlo", nested_tuple(400)), "-o",
                 str(tmp_path / "o.hlo")]) == 0
    assert (tmp_path / "o.hlo").read_text().count("(") >= 400
    path = _write(tmp_path, "t.hlo", nested_tuple(MAX_SHAPE_DEPTH + 1))
    assert main(["parse", path]) == 2
    assert f"{path}:3:8: error: a: tuple shapes nest more than" in capsys.readouterr().err


@pytest.mark.parametrize("dims", ["-2", "4,-3"])
def test_negative_dimensions_are_refused(tmp_path: Path, dims: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "n.hlo", f"HloModule n\nENTRY e {{\n  ROOT a = f32[{dims}] "
                  "parameter(0)\n}\n")
    assert main(["parse", path]) == 2
    assert f"{path}:3:8: error: a: shape f32[{dims}]" in capsys.readouterr().err


@pytest.mark.parametrize("type_", ["f32", "bf16", "f16", "s8", "u32", "c64", "pred"])
def test_random_inputs_are_made_in_their_own_type(type_: str) -> None:
    m = parse_hlo(f"HloModule r\nENTRY e {{\n  ROOT a = {type_}[500,500] parameter(0)\n}}\n")
    want = m.entry.parameters[0].shape.element_type.numpy_dtype
    tracemalloc.start()
    (value,) = values_io.random_arguments(m, seed=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert value.dtype == want and value.shape == (500, 500)
    assert peak <= 2 * 250_000 * max(want.itemsize, 4) + (1 << 16)
    if type_ == "pred":
        assert 0.4 < value.mean() < 0.6
    elif type_ not in ("s8", "u32"):
        floats = np.asarray(value, np.complex128 if type_ == "c64" else np.float64)
        assert abs(floats.real.std() - 1) < 0.05


@pytest.mark.parametrize(("body", "where"), [
    ("a = f32[-1] parameter(0)\n  ROOT c = f32[-1] concatenate(a, a), dimensions={0}", "3:3"),
    ("a = f32[4] parameter(0)\n  ROOT r = f32[-1,2] reshape(a)", "4:8"),
    ("a = f32[?] parameter(0)\n  ROOT b = f32[?,3] broadcast(a), dimensions={0}", "3:3"),
])
def test_unknown_dims_never_reach_the_interpreter(tmp_path: Path, body: str, where: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The probes that crashed concatenate, reshape and broadcast: positioned errors."""
    path = _write(tmp_path, "d.hlo", f"HloModule d\nENTRY e {{\n  {body}\n}}\n")
    assert main(["run", path, "--target", "interp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{where}: error:") and "internal error" not in err


def test_run_refuses_unbounded_hlo_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "q.hlo", "HloModule q\nENTRY e {\n  a = f32[?] parameter(0)\n"
                  "  ROOT c = f32[?,3] broadcast(a), dimensions={0}\n}\n")
    assert main(["run", path, "--target", "interp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:3:3: error: a: shape f32[?]{{0}} has an unbounded dimension")


def test_unbounded_stablehlo_runs_specialized_to_its_inputs(tmp_path: Path) -> None:
    path = _write(tmp_path, "q.mlir", (
        "func.func @main(%a: tensor<?xf32>, %b: tensor<4xf32>) -> tensor<?xf32> {\n"
        "  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<?xf32>, tensor<4xf32>) "
        "-> tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n"))
    inputs, out = tmp_path / "in.npz", tmp_path / "out.npz"
    a, b = np.arange(3, dtype=np.float32), np.ones(4, np.float32)
    values_io.save_npz(inputs, {"arg0": a, "arg1": b})
    assert main(["run", path, "--target", "interp", "--inputs", str(inputs),
                 "--output", str(out)]) == 0
    np.testing.assert_array_equal(values_io.load_npz(out)["out0"], np.concatenate([a, b]))


def test_large_hlo_constants_parse_at_numpy_speed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long literal of plain numbers is read whole (one lexer token, converted by numpy),
    never element by element (bench/limits_probe.py times it)."""
    from hlotool.ir import literal

    def per_element(*args: object) -> float:
        raise AssertionError("element-by-element path taken")

    monkeypatch.setattr(literal, "_token_to_double", per_element)
    rng = np.random.default_rng(0)
    values = rng.standard_normal((400, 500)).astype(np.float32)
    rows = ",".join("{" + ",".join(repr(float(v)) for v in row) + "}" for row in values)
    text = f"HloModule c\nENTRY e {{\n  ROOT c = f32[400,500] constant({{{rows}}})\n}}\n"
    got = parse_hlo(text).entry.root.literal.array  # type: ignore[union-attr]
    np.testing.assert_array_equal(got, values)


def test_liveness_follows_calls_deeper_than_64() -> None:
    """`memory` used to stop at 64 nested calls with an internal error."""
    from hlotool.analysis.liveness import Timeline

    timeline = Timeline.of(parse_hlo(call_chain(100)))
    assert len(timeline.order) == 2 * 101  # two instructions in each of 101 computations
