"""Bisecting a pass list: a deliberately broken pass is found, by the library and the CLI."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import pytest

from hlotool.bisect import bisect, expand
from hlotool.commands import bisect as bisect_command
from hlotool.frontend import load_module
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes import registry
from hlotool.passes.base import Pass
from tests.broken_passes import FlipAddPass

CORPUS = Path(__file__).parent / "data" / "corpus"
MODULE = CORPUS / "attention_causal" / "module.hlo"

SIMPLE = """HloModule simple

ENTRY main {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[4]{0} parameter(1)
  add.1 = f32[4]{0} add(p0, p1)
  ROOT mul.1 = f32[4]{0} multiply(add.1, p1)
}
"""


def _passes(*names: str) -> list[Pass]:
    return [FlipAddPass() if n == "flip-add" else registry.make_pass(n) for n in names]


def _module(text: str = SIMPLE) -> Module:
    from hlotool.frontend import parse_text

    return parse_text(text)


def test_finds_the_broken_pass_in_the_middle() -> None:
    module, _ = load_module(MODULE)
    passes = _passes("call-inliner", "algebraic-simplify", "cse", "flip-add", "dce",
                     "instruction-fusion", "dce")
    result = bisect(module, passes)
    assert result.found
    assert result.index == 3
    assert result.pass_spec == "flip-add"
    assert "outputs differ" in result.reason
    assert result.checks <= 4
    text = result.reproducer()
    assert "// first bad pass: #4 of 7: flip-add" in text
    assert _module(text.split("\n", 5)[5]).instruction_count == result.before.instruction_count


def test_no_bad_pass() -> None:
    result = bisect(_module(), _passes("algebraic-simplify", "cse", "dce"))
    assert not result.found
    assert "no bad pass among 3" in result.summary


def test_broken_first_pass() -> None:
    result = bisect(_module(), _passes("flip-add", "dce"))
    assert result.found and result.index == 0


def test_verifier_failure_is_found() -> None:
    @dataclass(frozen=True)
    class BreakShapePass(Pass):
        name = "break-shape"

        def run(self, module: Module) -> bool:
            root = module.entry.root
            assert root is not None
            root.set_operands([root.operand(0)])
            return True

    result = bisect(_module(), [registry.make_pass("dce"), BreakShapePass()])
    assert result.found and result.index == 1
    assert "verifier" in result.reason


def test_raising_pass_is_found() -> None:
    @dataclass(frozen=True)
    class CrashPass(Pass):
        name = "crash"

        def run(self, module: Module) -> bool:
            raise RuntimeError("boom")

    result = bisect(_module(), [registry.make_pass("dce"), CrashPass(), registry.make_pass("cse")])
    assert result.found and result.index == 1
    assert "boom" in result.reason


def test_expand_unrolls_fixed_points() -> None:
    from hlotool.passes.pipelines import get_pipeline

    module, _ = load_module(MODULE)
    pipeline = get_pipeline("default")
    applied = expand(pipeline, module)
    assert len(applied) >= len(pipeline.flat_steps())
    assert applied[0].name == "call-inliner"


@pytest.fixture
def with_flip_add(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `flip-add` nameable in --passes."""
    passes = {**registry.all_passes(), "flip-add": FlipAddPass}
    monkeypatch.setattr(registry, "all_passes", lambda: passes)


def _cli(argv: list[str]) -> int:
    from hlotool.cli import main
    from hlotool.commands import COMMANDS

    if "bisect" in COMMANDS:
        return main(["bisect", *argv])
    parser = argparse.ArgumentParser()
    bisect_command.add_arguments(parser)
    from hlotool.commands.common import UsageError

    try:
        return bisect_command.run(parser.parse_args(argv))
    except UsageError:
        return 2


@pytest.mark.usefixtures("with_flip_add")
def test_cli_finds_the_broken_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "repro.hlo"
    code = _cli([str(MODULE), "--passes", "call-inliner,algebraic-simplify,flip-add,dce",
                 "-o", str(out)])
    assert code == 1
    assert "#3 of 4 flip-add" in capsys.readouterr().out
    assert out.read_text().startswith("// hlotool bisect reproducer")


def test_cli_clean_pipeline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "repro.hlo"
    assert _cli([str(MODULE), "--pipeline", "default", "-o", str(out)]) == 0
    assert "no bad pass" in capsys.readouterr().out
    assert not out.exists()


def test_cli_bad_input() -> None:
    assert _cli([str(MODULE), "--passes", "no-such-pass"]) == 2
