"""Fixtures for the graph tests: the `hlotool graph` command and small modules."""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest

from hlotool.cli import main
from hlotool.frontend import parse_hlo
from hlotool.graph import Node
from hlotool.ir import Module

#: Tests that lay graphs out need Graphviz's `dot` (CI installs it).
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")


@pytest.fixture
def hlotool() -> Callable[..., int]:
    """Run `hlotool ARGS...` in-process."""
    return lambda *args: main([str(a) for a in args])


def chain_text(length: int) -> str:
    """HLO text of p0 -> negate.1 -> negate.2 -> ... -> negate.N (ROOT)."""
    lines = ["HloModule chain", "", "ENTRY main {", "  p0 = f32[4] parameter(0)",
             "  negate.1 = f32[4] negate(p0)"]
    for i in range(2, length + 1):
        root = "ROOT " if i == length else ""
        lines.append(f"  {root}negate.{i} = f32[4] negate(negate.{i - 1})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def chain_module(length: int) -> Module:
    return parse_hlo(chain_text(length))


def name_of(node: Node) -> str:
    """The name of the instruction a node stands for (its label otherwise)."""
    return node.instruction.name if node.instruction is not None else node.label
