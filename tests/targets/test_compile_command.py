"""`hlotool compile --emit llvm|asm` on a corpus module."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hlotool.commands import compile as compile_cmd

GELU = Path(__file__).parents[1] / "data" / "corpus" / "gelu" / "module.opt.hlo"


@pytest.mark.parametrize(("emit", "marker"), [("llvm", "define void @k0("), ("asm", "k0:")])
def test_emit(tmp_path: Path, emit: str, marker: str) -> None:
    p = argparse.ArgumentParser()
    compile_cmd.add_arguments(p)
    out = tmp_path / f"out.{emit}"
    assert compile_cmd.run(p.parse_args([str(GELU), "--emit", emit, "-o", str(out)])) == 0
    assert marker in out.read_text()
