"""Outputs: checked before the run, written whole under exactly the name given."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.cli import main
from hlotool.safe_io import OutputError, atomic_write, check_dump_dir, check_output

EXAMPLES = Path(__file__).parent.parent / "examples"
SOFTMAX = str(EXAMPLES / "softmax.hlo")


def test_the_name_given_is_the_name_written(tmp_path: Path) -> None:
    out = tmp_path / "result.bin"
    assert main(["run", SOFTMAX, "--target", "interp", "--output", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.bin"]
    assert sorted(values_io.load_npz(out)) == ["out0", "out1", "out2"]


@pytest.mark.parametrize("command", [
    ["run", SOFTMAX, "--target", "interp", "--output"],
    ["print", SOFTMAX, "-o"],
    ["opt", SOFTMAX, "-o"],
    ["memory", SOFTMAX, "-o"],
    ["graph", SOFTMAX, "-o"],
    ["bisect", SOFTMAX, "-o"],
])
@pytest.mark.parametrize("where", ["directory", "missing folder"])
def test_bad_output_paths_fail_before_the_run(tmp_path: Path, command: list[str], where: str,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotool.commands import common

    def no_load(*_: object, **__: object) -> None:
        raise AssertionError("the input was read before the output was checked")

    monkeypatch.setattr(common, "Source", no_load)
    target = tmp_path if where == "directory" else tmp_path / "nowhere" / "x.out"
    assert main([*command, str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"hlotool: error: cannot write {target}")
    assert ("is a directory" if where == "directory" else "does not exist") in err


def test_a_dump_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    with pytest.raises(OutputError, match="it is a file"):
        check_dump_dir(tmp_path / "f")
    assert check_dump_dir(tmp_path / "a" / "b").is_dir()
    check_output("-")


def test_an_interrupted_npz_write_keeps_the_old_file(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.npz"
    values_io.save_npz(out, {"out0": np.arange(3, dtype=np.float32)})
    real = np.savez

    def interrupted(file: object, **arrays: np.ndarray) -> None:
        real(file, **arrays)
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        values_io.save_npz(out, {"out0": np.zeros(1000, np.float32)})
    np.testing.assert_array_equal(values_io.load_npz(out)["out0"], [0, 1, 2])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz"]


def test_a_bf16_output_writes_its_sidecar_with_it(tmp_path: Path) -> None:
    import ml_dtypes

    out = tmp_path / "o.npz"
    values_io.save_npz(out, {"out0": np.ones(4, ml_dtypes.bfloat16)})
    assert values_io.load_npz(out)["out0"].dtype == ml_dtypes.bfloat16
    values_io.save_npz(out, {"out0": np.ones(4, np.float32)})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.npz"]


def test_a_killed_writer_leaves_the_old_file(tmp_path: Path) -> None:
    """SIGKILL in the middle of a large write: the old file is whole, the temporary is
    the only debris."""
    out = tmp_path / "big.bin"
    atomic_write(out, b"old")
    script = (f"from hlotool.safe_io import atomic_files\nimport time\n"
              f"with atomic_files({str(out)!r}) as (f,):\n"
              f"    f.write(b'x' * 1000000); f.flush(); print('writing', flush=True)\n"
              f"    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert out.read_bytes() == b"old"


def test_a_device_is_written_in_place_and_a_symlink_through(tmp_path: Path) -> None:
    atomic_write("/dev/null", b"discarded")
    assert not Path("/dev/null").is_file()
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink() and real.read_text() == "new"
