"""`hlotool graph --overview`: one box per non-fusion computation, alike reducers
merged, fusions folded into their caller's counts, calls as labelled edges."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.graph.overview import overview_dot

LOOP = """
HloModule loop

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

add.2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  e = f32[4] exponential(p)
  ROOT r = f32[] reduce(e, z), dimensions={0}, to_apply=add.2
}

body {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  x = f32[4] get-tuple-element(t), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[4] negate(x)
  ROOT out = (s32[], f32[4]) tuple(j, y)
}

cond {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  z = f32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  y = f32[4] get-tuple-element(w), index=1
  r1 = f32[] reduce(y, z), dimensions={0}, to_apply=add
  r2 = f32[] fusion(y), kind=kLoop, calls=fused
  ROOT s = f32[] add(r1, r2)
}
"""


def _boxes(dot: str) -> dict[str, str]:
    return dict(re.findall(r'^  (c\d+) \[label="([^"]*)"', dot, re.M))


def test_boxes_edges_and_merged_reducers() -> None:
    dot, count = overview_dot(parse_hlo(LOOP), "loop.hlo")
    boxes = _boxes(dot)
    by_name = {label.split("\\n")[0]: box for box, label in boxes.items()}
    assert set(by_name) == {"main", "body", "cond", "add and 1 alike"}
    assert count == 4
    assert "ENTRY: 9 instructions\\n1 fusions (4 fused instructions)" in boxes[by_name["main"]]
    assert "loop: 7 instructions" in boxes[by_name["body"]]
    edges = set(re.findall(r'^  (c\d+) -> (c\d+) \[label="([^"]*)"\]', dot, re.M))
    main, add = by_name["main"], by_name["add and 1 alike"]
    # One reduce in the entry, one in the fusion body: both count for the entry.
    assert (main, add, "reduce ×2") in edges
    assert (main, by_name["body"], "while") in edges
    assert (main, by_name["cond"], "while") in edges
    assert len(edges) == 3
    assert "--computation body" in dot


def test_the_command_writes_the_overview(hlotool: Callable[..., int], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "loop.hlo"
    src.write_text(LOOP)
    out = tmp_path / "map.dot"
    assert hlotool("graph", src, "--overview", "-o", out) == 0
    assert "4 boxes for 6 computations of" in capsys.readouterr().out
    assert len(_boxes(out.read_text())) == 4
    assert hlotool("graph", "--diff", src, src, "--overview", "-o", out) == 2
