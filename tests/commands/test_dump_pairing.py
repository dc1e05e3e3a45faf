"""Dump folders paired: `hlotool bisect DIR` checks XLA's after-optimizations module
against the before module first; `hlotool debug DIR` opens it as a reference."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.bisect import run_module
from hlotool.cli import main
from hlotool.commands.common import Source
from hlotool.frontend import parse_text

DATA = Path(__file__).resolve().parents[1] / "data"
JAX = DATA / "dump_jax"
PROTO = DATA / "dump_proto" / "dump"
AFTER = "module_0000.jit__lambda.cpu_after_optimizations.txt"


def _bisect(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str]:
    rc = main(["bisect", *args, "-o", str(tmp_path / "r.hlo"), "--passes", "cse,dce"])
    return rc, capsys.readouterr().out


def test_after_module_agrees_on_the_snapshot_inputs(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    rc, out = _bisect(capsys, tmp_path, str(PROTO), "--module", "jit_mlp")
    assert rc == 0
    first = out.splitlines()[0]
    assert first.startswith("XLA's after-optimizations module "
                            "(module_0000.jit_mlp.cpu_after_optimizations.txt) agrees")
    assert "the inputs of module_0000.jit_mlp.snapshot.-1660986459.pb" in first
    assert "compared with the before module: match" in out
    assert "no bad pass among 2 passes" in out


def test_reported_error_is_the_interpreters(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    """The max abs column is what numpy finds between the two modules' outputs."""
    rc, out = _bisect(capsys, tmp_path, str(PROTO), "--module", "jit_mlp")
    snap = Source(str(next(PROTO.glob("module_0000.*snapshot*.pb"))))
    snap.read_proto()
    before = parse_text((PROTO / "module_0000.jit_mlp.before_optimizations.txt").read_text())
    after = parse_text((PROTO / "module_0000.jit_mlp.cpu_after_optimizations.txt").read_text())
    assert snap.arguments is not None
    inputs = values_io.entry_arguments(before, snap.arguments)
    want, got = run_module(before, inputs), run_module(after, inputs)
    err = float(np.max(np.abs(got["out1"].astype(np.float64) - want["out1"])))
    row = next(line for line in out.splitlines() if "out1" in line)
    assert f"{err:.3g}" in row


def test_disagreeing_after_module_is_said(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    shutil.copytree(JAX, dump)
    after = dump / AFTER
    text = after.read_text()
    assert "add(%reduce_sum.3, %reduce_sum.4)" in text
    after.write_text(text.replace("add(%reduce_sum.3, %reduce_sum.4)",
                                  "maximum(%reduce_sum.3, %reduce_sum.4)"))
    rc, out = _bisect(capsys, tmp_path, str(dump))
    assert rc == 0  # no hlotool pass is bad: bisect's contract
    assert out.splitlines()[0].startswith(f"XLA's after-optimizations module ({AFTER}) "
                                          "DISAGREES with the before module on seeded inputs")
    assert "MISMATCH" in out
    assert "XLA's own optimized module computes different numbers" in out


def test_dump_without_after_module(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    shutil.copytree(JAX, dump)
    for p in dump.glob("*after_optimizations*"):
        p.unlink()
    rc, out = _bisect(capsys, tmp_path, str(dump))
    assert rc == 0
    assert out.startswith("XLA's after-optimizations module: none in the dump")


def test_stage_chooses_one_module(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out = _bisect(capsys, tmp_path, str(JAX), "--stage", "after")
    assert rc == 0
    assert "XLA's after-optimizations" not in out


def test_debug_opens_xla_after_module_as_reference() -> None:
    """`hlotool debug DIR` hands XLA's after module to the debugger; --stage opts out."""
    from argparse import Namespace

    from hlotool.commands.debug import _xla_after
    from hlotool.ir.printer import print_module

    args = Namespace(file=str(PROTO), module="jit_loop", stage=None, input_format=None)
    reference = _xla_after(args)
    assert reference is not None
    want = parse_text((PROTO / "module_0002.jit_loop.cpu_after_optimizations.txt").read_text())
    assert print_module(reference) == print_module(want)
    args.stage = "before"
    assert _xla_after(args) is None


def test_after_module_that_cannot_run(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    """An after module the interpreter cannot run is said; the bisection still runs."""
    dump = tmp_path / "dump"
    shutil.copytree(JAX, dump)
    after = dump / AFTER
    text = after.read_text()
    root = ("ROOT %tanh_reduce_fusion = f32[4]{0} fusion(%ynn_fusion), kind=kLoop, "
            "calls=%fused_computation.1, ")
    assert root in text
    # A custom call no interpreter knows as the root.
    after.write_text(text.replace(root, "ROOT %tanh_reduce_fusion = f32[4]{0} custom-call("
                                  "%ynn_fusion), custom_call_target=\"no_such_target\", "))
    rc, out = _bisect(capsys, tmp_path, str(dump))
    assert rc == 0
    assert out.startswith("XLA's after-optimizations module: not compared")
    assert "no bad pass among 2 passes" in out


def test_unparsable_after_module_is_bad_input(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    """A broken file in the dump is bad input: exit 2 with its position, no traceback."""
    dump = tmp_path / "dump"
    shutil.copytree(JAX, dump)
    after = dump / AFTER
    after.write_text(after.read_text().replace("kind=kLoop", "kind=kNoSuchKind", 1))
    rc = main(["bisect", str(dump), "-o", str(tmp_path / "r.hlo"), "--passes", "cse"])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"{AFTER}:" in err and "Traceback" not in err
