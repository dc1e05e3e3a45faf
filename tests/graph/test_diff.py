"""Graph diffs: matching, statuses and colours."""

from __future__ import annotations

from collections import Counter

from hlotool.frontend import parse_hlo
from hlotool.graph import DiffStatus, EdgeKind, Graph, GraphOptions, NodeKind, draw_diff, to_dot
from hlotool.graph.diff import match
from hlotool.graph.style import DIFF_EDGE_COLOURS, DIFF_FUSION_CLUSTER, DIFF_STYLES
from tests.conftest import CORPUS
from tests.graph.conftest import name_of

BEFORE = """HloModule before

ENTRY main {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  add.1 = f32[8] add(p0, p1)
  exponential.1 = f32[8] exponential(add.1)
  c = f32[] constant(32)
  b = f32[8] broadcast(c), dimensions={}
  divide.1 = f32[8] divide(exponential.1, b)
  negate.1 = f32[8] negate(p1)
  ROOT multiply.1 = f32[8] multiply(divide.1, negate.1)
}
"""

AFTER = """HloModule after

fused_computation (param_0: f32[8], param_1: f32[8]) -> f32[8] {
  param_0 = f32[8] parameter(0)
  param_1 = f32[8] parameter(1)
  add.1 = f32[8] add(param_0, param_1)
  ROOT exponential.2 = f32[8] exponential(add.1)
}

ENTRY main {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  fusion.1 = f32[8] fusion(p0, p1), kind=kLoop, calls=fused_computation
  c = f32[] constant(0.03125)
  b = f32[8] broadcast(c), dimensions={}
  multiply.2 = f32[8] multiply(fusion.1, b)
  sqrt.1 = f32[8] sqrt(p0)
  ROOT multiply.1 = f32[8] multiply(multiply.2, sqrt.1)
}
"""


def _statuses(graph: Graph) -> dict[str, DiffStatus]:
    return {n.instruction.name: n.diff for n in graph.nodes
            if n.instruction is not None and n.diff is not None}


def test_hand_made_pair() -> None:
    graph = draw_diff(parse_hlo(BEFORE), parse_hlo(AFTER))
    assert _statuses(graph) == {
        "p0": DiffStatus.UNCHANGED,
        "p1": DiffStatus.UNCHANGED,
        "add.1": DiffStatus.FUSED_INTO,  # matched by name
        "exponential.2": DiffStatus.FUSED_INTO,  # matched by structure
        "sqrt.1": DiffStatus.ADDED,
        "negate.1": DiffStatus.REMOVED,
        "multiply.2": DiffStatus.CHANGED,  # a rewrite of divide.1
        "multiply.1": DiffStatus.UNCHANGED,
    }
    nodes = {n.instruction.name: n for n in graph.nodes if n.instruction is not None}
    assert "was exponential.1" in nodes["exponential.2"].label
    assert "fused into fusion.1" in nodes["exponential.2"].tooltip
    assert "was divide divide.1" in nodes["multiply.2"].label
    cluster, removed = graph.clusters
    assert cluster.caller.name == "fusion.1"
    assert cluster.style is DIFF_FUSION_CLUSTER
    # the removed instructions are drawn together, in their own box
    assert removed.label == "<b>removed</b> (1)" and nodes["negate.1"].cluster is removed


def test_removed_nodes_are_wired_in_red() -> None:
    graph = draw_diff(parse_hlo(BEFORE), parse_hlo(AFTER))
    red = DIFF_EDGE_COLOURS[DiffStatus.REMOVED]
    removed = {(name_of(e.src), name_of(e.dst)) for e in graph.edges if e.colour == red}
    assert removed == {("p1", "negate.1"), ("negate.1", "multiply.1")}
    green = DIFF_EDGE_COLOURS[DiffStatus.ADDED]
    assert any(e.colour == green and name_of(e.dst) == "sqrt.1" for e in graph.edges)


def test_colours_reach_the_dot_text() -> None:
    dot = to_dot(draw_diff(parse_hlo(BEFORE), parse_hlo(AFTER)))
    for status in (DiffStatus.ADDED, DiffStatus.REMOVED, DiffStatus.FUSED_INTO,
                   DiffStatus.CHANGED):
        assert f'fillcolor="{DIFF_STYLES[status].fill}"' in dot
    assert 'style="filled,dashed"' in dot  # removed nodes
    assert "<b>diff</b>" in dot  # the legend


def test_legend_counts() -> None:
    graph = draw_diff(parse_hlo(BEFORE), parse_hlo(AFTER))
    (legend,) = [n for n in graph.nodes if n.kind is NodeKind.LEGEND]
    assert ">added</td><td>1<" in legend.label
    assert ">removed</td><td>1<" in legend.label
    assert ">fused into</td><td>2<" in legend.label
    assert ">changed</td><td>1<" in legend.label


def test_corpus_pair_attention() -> None:
    case = CORPUS / "attention_causal"
    before = parse_hlo((case / "module.hlo").read_text())
    after = parse_hlo((case / "module.opt.hlo").read_text())
    graph = draw_diff(before, after)
    counts = Counter(n.diff for n in graph.nodes if n.diff is not None)
    assert counts[DiffStatus.FUSED_INTO] >= 15
    assert counts[DiffStatus.REMOVED] >= 10
    assert counts[DiffStatus.UNCHANGED] >= 5  # the five parameters
    # every dot of the compiled module is one of the six einsums/matmuls, fused
    dots = [n for n in graph.nodes if n.instruction is not None
            and n.instruction.opcode.value == "dot" and n.diff is not DiffStatus.REMOVED]
    assert len(dots) == 6
    assert all(n.diff is DiffStatus.FUSED_INTO for n in dots)
    # B's fusions are the clusters, and each with a fused-into node is outlined
    fusions = [c for c in after.computations if c.fusion_instruction is not None]
    *clusters, removed = graph.clusters
    assert len(clusters) == len(fusions) and removed.id == "cluster_removed"
    assert all(n.cluster is removed for n in graph.nodes if n.diff is DiffStatus.REMOVED)
    for c in clusters:
        if any(n.cluster is c and n.diff is DiffStatus.FUSED_INTO for n in graph.nodes):
            assert c.style is DIFF_FUSION_CLUSTER
    assert all(e.kind is not EdgeKind.SUBCOMPUTATION or e.ltail is not None
               for e in graph.edges)


def test_identical_modules_are_unchanged() -> None:
    text = (CORPUS / "softmax" / "module.opt.hlo").read_text()
    graph = draw_diff(parse_hlo(text), parse_hlo(text))
    assert {n.diff for n in graph.nodes if n.diff is not None} == {DiffStatus.UNCHANGED}


def test_match_prefers_names() -> None:
    before, after = parse_hlo(BEFORE), parse_hlo(AFTER)
    a_of = match(before.entry.instructions, list(after.entry.instructions))
    names = {b.name: a.name for b, a in a_of.items()}
    assert names["p0"] == "p0"
    assert names["multiply.1"] == "multiply.1"


CSE_BEFORE = """HloModule before

add_f32 (a: f32[], b: f32[]) -> f32[] {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,64] parameter(0)
  negate.1 = f32[8,64] negate(x)
  negate.2 = f32[8,64] negate(x)
  multiply.1 = f32[8,64] multiply(negate.1, negate.2)
  zero = f32[] constant(0)
  ROOT sum.1 = f32[8] reduce(multiply.1, zero), dimensions={1}, to_apply=add_f32
}
"""

CSE_AFTER = """HloModule after

add_f32 (a: f32[], b: f32[]) -> f32[] {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,64] parameter(0)
  neg = f32[8,64] negate(x)
  square = f32[8,64] multiply(neg, neg)
  zero = f32[] constant(0)
  partial = f32[8,2] reduce-window(square, zero), window={size=1x32 stride=1x32}, to_apply=add_f32
  ROOT total = f32[8] reduce(partial, zero), dimensions={1}, to_apply=add_f32
}
"""


def test_cse_and_split_reductions_are_looked_through() -> None:
    graph = draw_diff(parse_hlo(CSE_BEFORE), parse_hlo(CSE_AFTER))
    nodes = {n.instruction.name: n for n in graph.nodes if n.instruction is not None}
    assert nodes["square"].diff is DiffStatus.UNCHANGED  # reads one negate for two
    assert nodes["square"].diff_note == "was multiply.1"
    assert nodes["total"].diff is DiffStatus.UNCHANGED  # through the reduce-window
    assert nodes["partial"].diff is DiffStatus.ADDED
    removed = [n for n in graph.nodes if n.diff is DiffStatus.REMOVED]
    assert len(removed) == 1
    assert removed[0].diff_note.startswith("duplicate of negate.")


def test_diff_neighbourhood_and_title() -> None:
    graph = draw_diff(parse_hlo(BEFORE), parse_hlo(AFTER),
                      GraphOptions(neighborhood="multiply.1", radius=1), ("a.hlo", "b.hlo"))
    names = {n.instruction.name for n in graph.nodes if n.instruction is not None}
    assert names == {"multiply.1", "multiply.2", "sqrt.1", "negate.1"}
    assert graph.title == "diff a.hlo → b.hlo · main"


def test_while_clusters_are_titled_by_role() -> None:
    from pathlib import Path

    from hlotool.frontend import load_module
    from hlotool.graph import draw, to_dot

    module = load_module(Path(__file__).parents[2] / "examples" / "while_loop.hlo")[0]
    dot = to_dot(draw(module))
    assert "condition of <b>while.5</b>" in dot and "body of <b>while.5</b>" in dot
    assert "Subcomputation for" not in dot
