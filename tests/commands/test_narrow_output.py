"""Output piped or at 80 columns: names users type and totals are never cut."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlotool.cli import main
from hlotool.passes.registry import all_passes

EXAMPLES = Path(__file__).parents[2] / "examples"
CORPUS = Path(__file__).parents[1] / "data" / "corpus"


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def test_passes_shows_every_name_whole(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["passes"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80 and "…" not in out
    first_column = {line.split("│")[1].strip() for line in out.splitlines()
                    if line.startswith("│") and line.split("│")[1].strip()}
    assert set(all_passes()) <= first_column


def test_pipeline_steps_are_whole(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["passes", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "…" not in out and "while-loop-invariant-code-motion" in out


def test_cost_totals_are_whole(capsys: pytest.CaptureFixture[str]) -> None:
    from hlotool.analysis.cost import analyze
    from hlotool.frontend import load_module

    path = EXAMPLES / "attention_causal.opt.hlo"
    assert main(["cost", str(path)]) == 0
    out = capsys.readouterr().out
    total = next(line for line in out.splitlines() if line.startswith("│ total"))
    flops = analyze(load_module(path)[0]).total.flops
    assert f"{flops:,.0f}" in total and "…" not in total
    assert max(map(len, out.splitlines())) <= 80


def test_memory_chart_footer_fits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chart = tmp_path / "chart.svg"
    assert main(["memory", str(CORPUS / "attention_causal" / "module.hlo"), "-o", str(chart)]) == 0
    svg = chart.read_text()
    width, height = map(int, re.search(r'width="(\d+)" height="(\d+)"', svg).groups())
    footer = [t for t in re.findall(r'<text x="90" y="(\d+)" fill="#333">([^<]*)</text>', svg)]
    assert len(footer) >= 2  # the summary wraps instead of running off the right edge
    assert all(len(text) <= 140 and int(y) < height for y, text in footer)
    assert width == 1000
