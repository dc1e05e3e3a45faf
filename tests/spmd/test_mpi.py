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
    ("conv_in_feature", 4, "module.hlo", "interp"),
    ("scan_sharded", 4, "module.hlo", "interp"),
    ("embedding", 4, "module.hlo", "cpu"),
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


PAIRS = '_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3}}"'
P2P = f"""HloModule p2p, num_partitions=4

ENTRY e {{
  x = f32[3] parameter(0), sharding={{devices=[4]<=[4]}}
  tok = token[] after-all()
  r = (f32[3], u32[], token[]) recv(tok), channel_id=5, frontend_attributes={{{PAIRS}}}
  s = (f32[3], u32[], token[]) send(x, tok), channel_id=5, frontend_attributes={{{PAIRS}}}
  rd = (f32[3], token[]) recv-done(r), channel_id=5
  sd = token[] send-done(s), channel_id=5
  v = f32[3] get-tuple-element(rd), index=0
  ROOT o = f32[3] add(v, x), sharding={{devices=[4]<=[4]}}
}}
"""


@pytest.mark.parametrize("distributed", [False, True])
def test_send_recv_between_ranks_by_their_pairs(distributed: bool, tmp_path: Path) -> None:
    """Each partition sends its piece to the next (XLA's decomposed collective-permute);
    partition 0 receives nothing (zeros)."""
    module, inputs, out = tmp_path / "p2p.hlo", tmp_path / "in.npz", tmp_path / "out.npz"
    module.write_text(P2P)
    x = np.arange(12, dtype=np.float32)
    values_io.save_npz(str(inputs), {"arg0": x})
    args = ["run", str(module), "--target", "interp", "--inputs", str(inputs),
            "--output", str(out)]
    if distributed:
        done = subprocess.run([str(BIN / "mpiexec"), "-n", "4", str(BIN / "hlotool"), *args,
                               "--distributed", "mpi"], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
    else:
        assert main(args) == 0
    pieces = x.reshape(4, 3)
    want = pieces + np.concatenate([np.zeros((1, 3), np.float32), pieces[:-1]])
    np.testing.assert_array_equal(values_io.load_npz(out)["out0"], want.reshape(-1))


def test_send_without_pairs_across_ranks_is_a_clear_error(tmp_path: Path) -> None:
    module = tmp_path / "p2p.hlo"
    module.write_text(P2P.replace(f", frontend_attributes={{{PAIRS}}}", ""))
    done = subprocess.run([str(BIN / "mpiexec"), "-n", "4", str(BIN / "hlotool"), "run",
                           str(module), "--target", "interp", "--distributed", "mpi"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "_xla_send_recv_source_target_pairs" in done.stderr
