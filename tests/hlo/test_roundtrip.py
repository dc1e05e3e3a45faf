"""Parse -> print -> parse over every corpus module: printing is a fixed point, the
re-parsed module is structurally equal, and compiled dumps print byte for byte as XLA."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.ir.structure import structurally_equal
from hlotool.ir.printer import SHORT, print_module
from hlotool.verifier import verify
from tests.conftest import CASES, hlo_texts
from tests.xla_parser import xla_reads

TEXTS = hlo_texts()


@pytest.mark.parametrize("path", [p for _, p in TEXTS], ids=[i for i, _ in TEXTS])
def test_print_is_a_fixed_point(path: Path) -> None:
    module = parse_hlo(path.read_text())
    verify(module)
    once = print_module(module)
    again = parse_hlo(once)
    verify(again)
    assert structurally_equal(module, again)
    assert print_module(again) == once


@pytest.mark.parametrize("path", [p for i, p in TEXTS if i.endswith("opt.hlo")],
                         ids=[i for i, _ in TEXTS if i.endswith("opt.hlo")])
def test_compiled_dump_prints_byte_for_byte(path: Path) -> None:
    text = path.read_text()
    assert print_module(parse_hlo(text)) == text


def test_short_form_reparses() -> None:
    path = next(p for i, p in TEXTS if i.startswith("while_loop/module.opt"))
    module = parse_hlo(path.read_text())
    short = print_module(module, SHORT)
    assert "%" not in short.split("\n", 1)[1]
    assert "metadata=" not in short
    assert print_module(parse_hlo(short), SHORT) == short


def test_xla_parser_accepts_everything_we_print(tmp_path: Path) -> None:
    """XLA's own parser (jaxlib) re-reads every module we print, from HLO and from
    StableHLO input (one child process: XLA's parser aborts the process on some inputs)."""
    pytest.importorskip("jaxlib")
    from hlotool.stablehlo import parse_stablehlo

    texts = [print_module(parse_hlo(p.read_text())) for _, p in TEXTS]
    texts += [print_module(parse_stablehlo((case / "module.stablehlo.mlir").read_text()))
              for case in CASES]
    rejected = [(i, why) for i, (ok, why) in enumerate(xla_reads(texts, tmp_path)) if not ok]
    assert rejected == []
