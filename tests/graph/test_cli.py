"""`hlotool graph`: output formats, Graphviz missing, options and errors."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.graph.style import DIFF_STYLES, DiffStatus
from tests.conftest import CORPUS
from tests.graph.conftest import chain_text, needs_dot

SVG = "{http://www.w3.org/2000/svg}"
ATTENTION = CORPUS / "attention_causal"

Hlotool = Callable[..., int]


def _svg(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return root


def _clusters(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"]


def _text(root: ET.Element) -> str:
    return " ".join(t.text or "" for t in root.iter(f"{SVG}text"))


@needs_dot
def test_svg_is_valid_with_one_cluster_per_fusion(hlotool: Hlotool, tmp_path: Path) -> None:
    src = ATTENTION / "module.opt.hlo"
    out = tmp_path / "a.svg"
    assert hlotool("graph", src, "-o", out) == 0
    root = _svg(out)
    fusions = [c for c in parse_hlo(src.read_text()).computations if c.fusion_instruction]
    assert len(_clusters(root)) == len(fusions) == 14
    assert "select_reduce_fusion" in _text(root)


@needs_dot
def test_collapsed_fusions_have_no_clusters(hlotool: Hlotool, tmp_path: Path) -> None:
    out = tmp_path / "a.svg"
    assert hlotool("graph", ATTENTION / "module.opt.hlo", "--collapse-fusions", "-o", out) == 0
    assert _clusters(_svg(out)) == []


@needs_dot
def test_png_and_default_output_name(hlotool: Hlotool, tmp_path: Path) -> None:
    src = tmp_path / "module.opt.hlo"
    shutil.copy(ATTENTION / "module.opt.hlo", src)
    assert hlotool("graph", src) == 0
    _svg(tmp_path / "module.opt.svg")
    assert hlotool("graph", src, "-o", tmp_path / "m.png") == 0
    assert (tmp_path / "m.png").read_bytes().startswith(b"\x89PNG")


def test_dot_output_needs_no_graphviz(hlotool: Hlotool, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    out = tmp_path / "a.dot"
    assert hlotool("graph", ATTENTION / "module.opt.hlo", "-o", out) == 0
    text = out.read_text()
    assert text.startswith("digraph G {")
    assert text.count("subgraph cluster_") == 14
    assert hlotool("graph", ATTENTION / "module.opt.hlo", "-o", tmp_path / "a.svg") == 2
    err = capsys.readouterr().err
    assert "Graphviz's `dot` program" in err
    assert "-o OUT.dot" in err
    assert "Traceback" not in err
    assert not (tmp_path / "a.svg").exists()


@needs_dot
def test_max_nodes_note_in_the_svg(hlotool: Hlotool, tmp_path: Path) -> None:
    src = tmp_path / "chain.hlo"
    src.write_text(chain_text(40))
    assert hlotool("graph", src, "--max-nodes", "5", "-o", tmp_path / "c.svg") == 0
    text = _text(_svg(tmp_path / "c.svg"))
    assert "36 of 41 nodes not shown" in text
    assert "--max-nodes 0" in text


@needs_dot
def test_neighbourhood_from_the_command_line(hlotool: Hlotool, tmp_path: Path) -> None:
    src = tmp_path / "chain.hlo"
    src.write_text(chain_text(20))
    out = tmp_path / "n.svg"
    assert hlotool("graph", src, "--neighborhood", "negate.10", "--radius", "1", "-o", out) == 0
    root = _svg(out)
    titles = {t.text for g in root.iter(f"{SVG}g") if g.get("class") == "node"
              for t in g.iter(f"{SVG}title")}
    assert len(titles) == 4  # three instructions and the note
    assert "negate.9" in _text(root)
    assert "negate.8" not in _text(root)
    assert 'stroke-dasharray' in out.read_text()


@needs_dot
def test_diff_from_the_command_line(hlotool: Hlotool, tmp_path: Path) -> None:
    a, b = tmp_path / "module.hlo", tmp_path / "module.opt.hlo"
    shutil.copy(ATTENTION / "module.hlo", a)
    shutil.copy(ATTENTION / "module.opt.hlo", b)
    assert hlotool("graph", "--diff", a, b) == 0
    out = tmp_path / "module.opt.diff.svg"
    svg = out.read_text()
    _svg(out)
    for status in (DiffStatus.ADDED, DiffStatus.REMOVED, DiffStatus.FUSED_INTO):
        assert f'fill="{DIFF_STYLES[status].fill}"' in svg


def test_usage_errors(hlotool: Hlotool, tmp_path: Path,
                      capsys: pytest.CaptureFixture[str]) -> None:
    src = ATTENTION / "module.opt.hlo"
    cases = [
        (("graph", src, "-o", tmp_path / "a.pdf"), "cannot tell the output format"),
        (("graph", src, "--computation", "nope", "-o", tmp_path / "a.dot"),
         "no computation named 'nope'"),
        (("graph", src, "--neighborhood", "nope", "-o", tmp_path / "a.dot"),
         "no instruction named 'nope'"),
        (("graph", src, "--diff", src, src), "not both"),
        (("graph",), "give a FILE"),
        (("graph", "-", "--diff", src, src), "not both"),
    ]
    for args, message in cases:
        assert hlotool(*args) == 2, args
        err = capsys.readouterr().err
        assert message in err
        assert "Traceback" not in err


def test_after_pipeline_draws_the_optimized_module(hlotool: Hlotool, tmp_path: Path) -> None:
    before, after = tmp_path / "before.dot", tmp_path / "after.dot"
    assert hlotool("graph", ATTENTION / "module.hlo", "-o", before) == 0
    assert hlotool("graph", ATTENTION / "module.hlo", "--after-pipeline", "cpu", "-o", after) == 0
    assert "kLoop" not in before.read_text()
    assert "kLoop" in after.read_text()


def test_after_pipeline_with_an_unknown_pipeline(hlotool: Hlotool, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert hlotool("graph", ATTENTION / "module.hlo", "--after-pipeline", "nope", "-o",
                   tmp_path / "a.dot") == 2
    assert "nope" in capsys.readouterr().err


def test_parse_errors_are_reported_with_a_position(hlotool: Hlotool, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "bad.hlo"
    src.write_text("HloModule m\n\nENTRY main {\n  ROOT x = f32[] bogus()\n}\n")
    assert hlotool("graph", src, "-o", tmp_path / "a.dot") == 2
    assert "bad.hlo:4:" in capsys.readouterr().err
