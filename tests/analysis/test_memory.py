"""The memory report: summary numbers agree with the assignment, and the SVG chart is
well-formed XML with one rectangle per temporary buffer and the peak marked."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hlotool.analysis.memory import human_bytes, live_at, summary, svg_chart
from hlotool.frontend import parse_hlo
from hlotool.passes.buffer_assignment import assign_buffers
from hlotool.passes.pipelines import get_pipeline
from tests.conftest import CASE_IDS, CASES

SVG = "{http://www.w3.org/2000/svg}"


def test_summary_matches_the_assignment() -> None:
    a = assign_buffers(
        parse_hlo((Path(__file__).parents[1] / "data/corpus/softmax/module.hlo").read_text())
    )
    s = summary(a)
    assert s["peak_bytes"] == a.peak_bytes
    assert s["lower_bound_bytes"] == max(a.live_bytes())
    buffers = s["buffers"]
    assert isinstance(buffers, list) and len(buffers) == len(a.buffers)
    assert sum(b.size for b in live_at(a, a.peak_time)) == a.lower_bound_bytes


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.name in ("mlp_train_step", "scan", "gelu")],
    ids=["mlp_train_step", "scan", "gelu"],
)
def test_chart_is_valid_svg_with_the_peak_marked(case: Path) -> None:
    module = parse_hlo((case / "module.hlo").read_text())
    get_pipeline("cpu").run(module)
    a = assign_buffers(module)
    root = ET.fromstring(svg_chart(a))
    assert root.tag == f"{SVG}svg"
    rects = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(rects) == len(a.arena_buffers())
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert f"peak (arena) {human_bytes(a.peak_bytes)}" in texts


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_every_corpus_chart_parses(case: Path) -> None:
    a = assign_buffers(parse_hlo((case / "module.hlo").read_text()))
    ET.fromstring(svg_chart(a))


def test_human_bytes() -> None:
    assert human_bytes(512) == "512 B"
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(3 * 1024 * 1024) == "3.0 MiB"
