"""Elided constants (`constant({...})`): parsed, printed and drawn, never run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlotool.cli import main
from hlotool.elided import ElidedConstantError, elided_reads
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.printer import print_module
from tests.conftest import CORPUS

AVG_POOL_OPT = CORPUS / "avg_pool" / "module.opt.hlo"

MULTIPLY = """HloModule m

ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] constant({...})
  d = f32[4] constant({...})
  m = f32[4] multiply(p, c)
  ROOT a = f32[4] add(m, d)
}
"""

UNUSED = """HloModule m

ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] constant({...})
  ROOT n = f32[4] negate(p)
}
"""


@pytest.mark.parametrize("target", ["interp", "cpu"])
def test_run_refuses_with_a_positioned_error(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(AVG_POOL_OPT), "--target", target]) == 2
    err = capsys.readouterr().err
    line = next(n for n, text in enumerate(AVG_POOL_OPT.read_text().splitlines(), 1)
                if "constant({...})" in text)
    assert err.startswith(f"{AVG_POOL_OPT}:{line}:3: error: cannot run: constant constant.2 ")
    assert "--xla_dump_large_constants" in err and "before_optimizations" in err
    assert "StableHLO" in err and "^~~" in err


def test_print_and_graph_keep_the_elision(tmp_path: Path) -> None:
    out = tmp_path / "p.hlo"
    assert main(["print", str(AVG_POOL_OPT), "-o", str(out)]) == 0
    assert out.read_text().count("constant({...})") == 1
    dot = tmp_path / "g.dot"
    assert main(["graph", str(AVG_POOL_OPT), "-o", str(dot)]) == 0
    assert dot.stat().st_size > 0


def test_interpreter_and_cpu_refuse_through_the_api() -> None:
    from hlotool.targets.cpu import compile_module

    module = parse_hlo(MULTIPLY)
    assert [i.name for i in elided_reads(module)] == ["c", "d"]
    x = np.ones(4, np.float32)
    with pytest.raises(ElidedConstantError, match="constant c "):
        Evaluator(module).run([x])
    with pytest.raises(ElidedConstantError, match="2 constants are elided"):
        compile_module(parse_hlo(MULTIPLY), cache=False, autotune=False).run([x])


def test_an_unread_elided_constant_does_not_block_running(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    path = tmp_path / "unused.hlo"
    path.write_text(UNUSED)
    assert main(["run", str(path), "--target", "interp", "--format", "json"]) == 0


def test_passes_do_not_take_elided_values_for_zeros(tmp_path: Path) -> None:
    """x * {...} must not become 0, nor two elided constants one (they may differ)."""
    path, out = tmp_path / "m.hlo", tmp_path / "o.hlo"
    path.write_text(MULTIPLY)
    assert main(["opt", str(path), "--pipeline", "default", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.count("constant({...})") == 2
    assert "multiply" in text or "fusion" in text
    assert print_module(parse_hlo(text)).count("constant({...})") == 2
