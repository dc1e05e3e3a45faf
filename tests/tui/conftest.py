"""Shared fixtures of the debugger tests: small modules, a test-only broken pass, and an
app factory with deterministic output (no pass times, files under tmp_path)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hlotool.frontend import load_module, parse_text
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import Pass
from hlotool.passes.pipeline import Pipeline, Step
from hlotool.passes.registry import make_pass
from hlotool.tui.app import DebuggerApp, DebugOptions
from hlotool.tui.session import resolve_pipeline
from tests.broken_passes import FlipAddPass

ATTENTION = Path(__file__).parents[1] / "data" / "corpus" / "attention_causal" / "module.hlo"

SIMPLE = """HloModule simple

ENTRY main {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[4]{0} parameter(1)
  add.1 = f32[4]{0} add(p0, p1)
  dead.1 = f32[4]{0} multiply(p0, p0)
  ROOT mul.1 = f32[4]{0} multiply(add.1, p1)
}
"""


def attention() -> Module:
    """The causal attention module of the corpus."""
    return load_module(ATTENTION)[0]


def simple() -> Module:
    """A four-instruction module with one dead instruction."""
    return parse_text(SIMPLE)


def broken_pipeline() -> Pipeline:
    """A pipeline whose third pass miscompiles."""
    passes = [make_pass("algebraic-simplify"), make_pass("cse"), FlipAddPass(),
              make_pass("dce")]
    return Pipeline("broken", tuple(Step(p) for p in passes))


AppFactory = Callable[..., DebuggerApp]


@pytest.fixture
def make_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppFactory:
    """Build a debugger app: `make_app(module=None, pipeline=None, **options)`. It runs
    in tmp_path and exports there, so the paths it shows are the same every run."""
    monkeypatch.chdir(tmp_path)

    def build(module: Module | None = None, pipeline: Pipeline | None = None,
              **options: object) -> DebuggerApp:
        opts = DebugOptions(source_name="attention_causal/module.hlo", export_dir=Path("."),
                            show_times=False)
        for key, value in options.items():
            setattr(opts, key, value)
        return DebuggerApp(module or attention(), pipeline or resolve_pipeline("default", None),
                           opts)

    return build


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run `async def` tests with asyncio.run (no async plugin is installed)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
    return True
