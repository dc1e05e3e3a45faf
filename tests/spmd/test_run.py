"""Sharded JAX modules (tests/data/sharded, made by make_cases.py with 4 and 8 host
devices) run on every device in one process, to JAX's own outputs, on interp and cpu."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.cli import main
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.interpreter.devices import SingleDevice
from hlotool.spmd.run import run_sharded

SHARDED = Path(__file__).parents[1] / "data" / "sharded"
CASES = sorted(p.name for p in SHARDED.iterdir() if (p / "case.json").exists())


@pytest.mark.parametrize("target", ["interp", "cpu"])
@pytest.mark.parametrize("case", CASES)
def test_xla_partitioned_module_matches_jax(case: str, target: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = SHARDED / case
    tol = json.loads((folder / "case.json").read_text())["tolerance"]
    out = tmp_path / "out.npz"
    status = main(["run", str(folder / "module.opt.hlo"), "--target", target,
                   "--inputs", str(folder / "inputs.npz"), "--output", str(out),
                   "--expect", str(folder / "expected.npz"),
                   "--rtol", str(tol["rtol"]), "--atol", str(tol["atol"])])
    assert status == 0, capsys.readouterr()
    got, want = values_io.load_npz(out), values_io.load_npz(folder / "expected.npz")
    assert sorted(got) == sorted(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=tol["rtol"], atol=tol["atol"])


def test_collectives_exactly() -> None:
    """psum, all_gather, psum_scatter, ppermute, all_to_all and pmax against numpy."""
    folder = SHARDED / "shard_map_collectives"
    x = values_io.load_npz(folder / "inputs.npz")["arg0"]
    result = run_sharded(parse_hlo((folder / "module.opt.hlo").read_text()), {"arg0": x})
    psum, gathered, scattered, permuted, swapped, pmax = result.outputs
    xs = x.reshape(4, 4, 8)
    np.testing.assert_allclose(psum, xs[0] + xs[1] + xs[2] + xs[3], rtol=1e-6)
    np.testing.assert_array_equal(gathered, x)
    for d in range(4):
        np.testing.assert_allclose(scattered[d], (xs[0] + xs[1] + xs[2] + xs[3])[d:d + 1],
                                   rtol=1e-6)
        np.testing.assert_array_equal(permuted[d], xs[(d - 1) % 4])
        np.testing.assert_array_equal(swapped[d], xs[:, d])
    np.testing.assert_array_equal(pmax, np.max(xs * np.arange(4, dtype=np.float32)[:, None, None], axis=0))


def test_one_device_alone_is_a_clear_error() -> None:
    module = parse_hlo((SHARDED / "tp_mlp" / "module.opt.hlo").read_text())
    args = values_io.entry_arguments(module, {
        f"arg{i}": np.zeros(p.shape.dimensions, np.float32)
        for i, p in enumerate(module.entry.parameters)})
    with pytest.raises(SingleDevice, match="between 4 devices"):
        Evaluator(module).run(args)


def test_device_count_must_match_the_module(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", str(SHARDED / "dp_mlp" / "module.opt.hlo"), "--devices", "2"])
    assert status == 2
    assert "written for 4 device(s)" in capsys.readouterr().err


def test_random_global_inputs_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(SHARDED / "tp_mlp" / "module.opt.hlo"), "--target", "interp",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["devices"] == 4 and report["outputs"]["out0"]["shape"] == [16, 8]


def test_shard_map_modules_run_partitioned(capsys: pytest.CaptureFixture[str]) -> None:
    """A shard_map dumped before XLA's passes is partitioned on the way (its regions are
    per-device code) and gives JAX's global outputs."""
    folder = SHARDED / "shard_map_collectives"
    assert main(["run", str(folder / "module.hlo"), "--target", "interp", "--inputs",
                 str(folder / "inputs.npz"), "--expect", str(folder / "expected_global.npz"),
                 "--atol", "1e-5"]) == 0
    assert "partitioned by the spmd pipeline" in capsys.readouterr().err


@pytest.mark.parametrize("case", CASES)
def test_stablehlo_with_shardy_runs_partitioned(case: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """JAX's StableHLO of the same jits (sdy.mesh, sdy.sharding argument attributes,
    sdy.manual_computation for shard_map) partitioned by the spmd pipeline."""
    folder = SHARDED / case
    status = main(["run", str(folder / "module.stablehlo.mlir"), "--target", "interp",
                   "--pipeline", "spmd", "--inputs", str(folder / "inputs.npz"),
                   "--expect", str(folder / "expected_global.npz"), "--atol", "1e-5",
                   "--format", "json"])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert status == 0 and report["ok"], report
    assert report["devices"] == json.loads((folder / "case.json").read_text())["devices"]
