"""Runs across processes: `mpiexec -n N hlotool run --distributed mpi` (2 and 4 local
ranks) gives JAX's outputs, equal bit for bit to the in-process run of every device."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.cli import main

pytest.importorskip("mpi4py")
SHARDED = Path(__file__).parents[1] / "data" / "sharded"
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(("case", "ranks", "file", "target"), [
    ("shard_map_2", 2, "module.opt.hlo", "interp"),
    ("shard_map_collectives", 4, "module.opt.hlo", "interp"),
    ("tp_mlp", 4, "module.opt.hlo", "cpu"),
    ("attention_heads", 4, "module.hlo", "cpu"),  # partitioned by hlotool on every rank
])
def test_mpi_ranks_equal_the_in_process_run(case: str, ranks: int, file: str, target: str,
                                            tmp_path: Path) -> None:
    folder = SHARDED / case
    expected = "expected.npz" if file == "module.opt.hlo" else "expected_global.npz"
    common = ["run", str(folder / file), "--target", target, "--pipeline", "spmd",
              "--inputs", str(folder / "inputs.npz"), "--expect", str(folder / expected),
              "--atol", "1e-5"]
    mpi_out, local_out = tmp_path / "mpi.npz", tmp_path / "local.npz"
    done = subprocess.run(
        [str(BIN / "mpiexec"), "-n", str(ranks), str(BIN / "hlotool"), *common,
         "--distributed", "mpi", "--output", str(mpi_out)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert main([*common, "--output", str(local_out)]) == 0
    got, want = values_io.load_npz(mpi_out), values_io.load_npz(local_out)
    assert sorted(got) == sorted(want)
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])


def test_rank_count_must_match(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "mpiexec"), "-n", "2", str(BIN / "hlotool"), "run",
         str(SHARDED / "tp_mlp" / "module.opt.hlo"), "--target", "interp",
         "--distributed", "mpi"], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "mpiexec -n 4" in done.stderr
