"""Parse -> print -> parse over every corpus module: printing is a fixed point, the
re-parsed module is structurally equal, and compiled dumps print byte for byte as XLA."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.ir.structure import structurally_equal
from hlotool.ir.printer import SHORT, print_module
from hlotool.verifier import verify
from tests.conftest import CASES, hlo_texts

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
    payload = tmp_path / "texts.json"
    payload.write_text(json.dumps(texts))
    code = (
        "import json, sys, jaxlib._hlo as h\n"
        "bad = []\n"
        "for i, t in enumerate(json.load(open(sys.argv[1]))):\n"
        "    try: h.hlo_module_from_text(t)\n"
        "    except Exception as e: bad.append((i, str(e)[:200]))\n"
        "print(json.dumps(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(payload)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == []
