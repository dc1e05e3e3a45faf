"""`hlotool compile --emit llvm|asm` on a corpus module."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hlotool.commands import compile as compile_cmd

GELU = Path(__file__).parents[1] / "data" / "corpus" / "gelu" / "module.opt.hlo"


@pytest.mark.parametrize(("emit", "marker"), [("llvm", "define void @k0_multiply_multiply_fusion("),
                                             ("asm", "k0_multiply_multiply_fusion:")])
def test_emit(tmp_path: Path, emit: str, marker: str) -> None:
    p = argparse.ArgumentParser()
    compile_cmd.add_arguments(p)
    out = tmp_path / f"out.{emit}"
    assert compile_cmd.run(p.parse_args([str(GELU), "--emit", emit, "-o", str(out)])) == 0
    assert marker in out.read_text()


def test_emit_shows_the_code_also_when_it_is_cached(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk cache keeps object code only: a second compile of the same module, which
    `run` would take from the cache, still prints its IR."""
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path / "cache"))
    p = argparse.ArgumentParser()
    compile_cmd.add_arguments(p)
    for i in range(2):
        out = tmp_path / f"out{i}.ll"
        assert compile_cmd.run(p.parse_args([str(GELU), "--emit", "llvm", "-o", str(out)])) == 0
        assert "define void" in out.read_text()
