"""Ctrl-C and --timeout stop a run promptly, native kernels included."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hlotool.interrupt import run_interruptibly

ENDLESS = Path(__file__).parent / "data" / "reliability" / "endless_while.hlo"


def _busy() -> int:
    while True:
        time.sleep(0.01)


def test_ctrl_c_interrupts_a_busy_worker() -> None:
    threading.Timer(0.2, signal.raise_signal, (signal.SIGINT,)).start()
    assert run_interruptibly(_busy, None, hard_exit=False) == 130


def test_a_timeout_stops_a_busy_worker() -> None:
    started = time.monotonic()
    assert run_interruptibly(_busy, 0.3, hard_exit=False) == 124
    assert time.monotonic() - started >= 0.3


def test_errors_and_statuses_pass_through() -> None:
    assert run_interruptibly(lambda: 3, 5.0, hard_exit=False) == 3

    def fail() -> int:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_interruptibly(fail, None, hard_exit=False)


def _start(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    env = dict(os.environ, HLOTOOL_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.Popen([sys.executable, "-m", "hlotool.cli", "run", str(ENDLESS),
                             "--target", "cpu", *extra], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_ctrl_c_stops_an_endless_native_while_loop(tmp_path: Path) -> None:
    """The while loop is one compiled function that never returns; SIGINT still ends the
    process with 130 (bench/reliability_probes.py measures how soon)."""
    proc = _start(tmp_path)
    deadline = time.monotonic() + 60
    # Compiled code is stored in the cache just before it runs: wait for that, then a bit.
    while not list((tmp_path / "cache").rglob("*.entry")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    assert proc.poll() is None
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip().endswith("hlotool: interrupted")


def test_timeout_stops_an_endless_native_while_loop(tmp_path: Path) -> None:
    started = time.monotonic()
    proc = _start(tmp_path, "--timeout", "4")
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 124
    assert "timed out after 4 s" in err
    assert time.monotonic() - started >= 4


def test_the_endless_loop_is_one_native_function() -> None:
    """What the two tests above interrupt is compiled code, not the interpreter."""
    from hlotool.targets.cpu import compile_module
    from hlotool.targets.cpu.kernels.control import ControlThunk

    from hlotool.commands.opt import apply_passes
    from hlotool.frontend import parse_hlo

    module = parse_hlo(ENDLESS.read_text())
    apply_passes(module, "cpu", None, verify_each=False)
    ex = compile_module(module, cache=False, autotune=False)
    assert [type(t) for t in ex.thunks.values()] == [ControlThunk]


@pytest.mark.parametrize("command", ["run", "opt", "test", "compile", "bisect"])
def test_long_commands_take_a_timeout(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from hlotool.cli import build_parser, main

    assert build_parser().parse_args([command, "m.hlo", "--timeout", "2.5"]).timeout == 2.5
    with pytest.raises(SystemExit) as exc:
        main([command, "m.hlo", "--timeout", "0"])
    assert exc.value.code == 2
    assert "--timeout: needs a positive number of seconds, got 0" in capsys.readouterr().err
