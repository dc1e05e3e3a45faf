"""What becomes a node, an edge, a cluster or a line of text (no Graphviz needed)."""

from __future__ import annotations

import pytest

from hlotool.frontend import parse_hlo
from hlotool.graph import EdgeKind, GraphOptions, NodeKind, draw, to_dot
from hlotool.graph.model import Graph, Node
from tests.conftest import CASES
from tests.graph.conftest import name_of

MODULE = """HloModule m

add_f32 (a: f32[], b: f32[]) -> f32[] {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

inner (param_0.2: f32[8]) -> f32[8] {
  param_0.2 = f32[8] parameter(0)
  ROOT exponential.3 = f32[8] exponential(param_0.2)
}

outer (param_0.1: f32[8], param_1.1: f32[]) -> f32[8] {
  param_0.1 = f32[8] parameter(0)
  param_1.1 = f32[] parameter(1)
  c.1 = f32[] constant(2)
  broadcast.1 = f32[8] broadcast(c.1), dimensions={}
  multiply.1 = f32[8] multiply(param_0.1, broadcast.1)
  fusion.inner = f32[8] fusion(multiply.1), kind=kLoop, calls=inner
  broadcast.2 = f32[8] broadcast(param_1.1), dimensions={}
  ROOT add.1 = f32[8] add(fusion.inner, broadcast.2)
}

ENTRY main {
  p = (f32[8], f32[]) parameter(0)
  x = f32[8] get-tuple-element(p), index=0
  y = f32[] get-tuple-element(p), index=1
  zero = f32[] constant(0)
  fusion.outer = f32[8] fusion(x, y), kind=kLoop, calls=outer
  reduce.1 = f32[] reduce(fusion.outer, zero), dimensions={0}, to_apply=add_f32
  after = f32[8] negate(x), control-predecessors={reduce.1}
  ROOT t = (f32[], f32[8]) tuple(reduce.1, after)
}
"""


@pytest.fixture
def graph() -> Graph:
    return draw(parse_hlo(MODULE))


def _node(graph: Graph, name: str) -> Node:
    for n in graph.nodes:
        if n.instruction is not None and n.instruction.name == name:
            return n
    raise KeyError(name)


def _names(graph: Graph) -> set[str]:
    return {n.instruction.name for n in graph.nodes if n.instruction is not None}


def test_merged_instructions_get_no_node(graph: Graph) -> None:
    names = _names(graph)
    # constants, get-tuple-elements, fused parameters, expanded fusions, scalar broadcasts
    for merged in ("zero", "c.1", "x", "y", "param_0.1", "param_1.1", "param_0.2",
                   "fusion.outer", "fusion.inner", "broadcast.1"):
        assert merged not in names
    assert {"p", "multiply.1", "exponential.3", "add.1", "broadcast.2", "reduce.1", "after",
            "t"} <= names


def test_nested_fusion_clusters(graph: Graph) -> None:
    clusters = {c.computation.name: c for c in graph.clusters}
    assert set(clusters) == {"outer", "inner"}  # the trivial reducer is text
    assert clusters["inner"].parent is clusters["outer"]
    assert _node(graph, "exponential.3").cluster is clusters["inner"]
    assert "kLoop" in clusters["outer"].label
    assert "fusion.outer" in clusters["outer"].label


def test_fused_parameters_wire_to_the_fusion_operands(graph: Graph) -> None:
    edges = {(e.src.instruction.name, e.dst.instruction.name)
             for e in graph.edges if e.src.instruction and e.dst.instruction}
    # param_0.1 (bound to gte x of p) -> the tuple parameter p feeds multiply.1
    assert ("p", "multiply.1") in edges
    # param_0.2 of the inner fusion is multiply.1
    assert ("multiply.1", "exponential.3") in edges
    # the outer fusion's value leaves from its root
    assert ("add.1", "reduce.1") in edges


def test_inlined_operands_and_reducers(graph: Graph) -> None:
    mul = _node(graph, "multiply.1")
    assert any("f32[8] 2" in line for line in mul.inlined)
    assert any("tuple-element 0 of p" in line for line in mul.inlined)
    reduce = _node(graph, "reduce.1")
    assert "Subcomputation: <b>add</b>" in reduce.label
    assert any("operand 1</b> = f32[] 0" in line for line in reduce.inlined)


def test_control_edges_and_root_tag(graph: Graph) -> None:
    ctrl = [e for e in graph.edges if e.kind is EdgeKind.CONTROL]
    assert [(name_of(e.src), name_of(e.dst)) for e in ctrl] == [("reduce.1", "after")]
    roots = [n for n in graph.nodes if n.kind is NodeKind.ROOT]
    assert len(roots) == 1
    assert any(e.dst is roots[0] and name_of(e.src) == "t" for e in graph.edges)
    dot = to_dot(graph)
    assert 'style="dotted"' in dot
    assert 'label="ctrl"' in dot


def test_operand_indices_and_arrowheads(graph: Graph) -> None:
    into_add = [e for e in graph.edges if name_of(e.dst) == "add.1"]
    assert {e.operand for e in into_add} == {0, 1}
    assert all(e.small for e in into_add)


def test_labels_follow_xla_abbreviations(graph: Graph) -> None:
    assert _node(graph, "add.1").label.startswith("<b>add.1</b>")
    assert _node(graph, "after").label.startswith("<b>negate</b><br/>after")
    assert _node(graph, "p").label.startswith("<b>Parameter 0</b><br/>p")


def test_tooltips_carry_metadata() -> None:
    text = MODULE.replace("after = f32[8] negate(x)",
                          'after = f32[8] negate(x), metadata={op_name="jit(f)/neg"}')
    graph = draw(parse_hlo(text))
    assert _node(graph, "after").tooltip.startswith("jit(f)/neg")


def test_collapse_fusions(graph: Graph) -> None:
    collapsed = draw(parse_hlo(MODULE), GraphOptions(collapse_fusions=True))
    assert collapsed.clusters == []
    node = _node(collapsed, "fusion.outer")
    assert "kLoop, 8 instructions: multiply" in node.label


def test_draw_another_computation() -> None:
    graph = draw(parse_hlo(MODULE), GraphOptions(computation="outer"))
    names = _names(graph)
    assert "param_0.1" in names
    assert "p" not in names


@pytest.mark.parametrize("case", CASES[::5], ids=lambda p: p.name)
def test_corpus_modules_draw(case) -> None:  # type: ignore[no-untyped-def]
    for name in ("module.hlo", "module.opt.hlo"):
        module = parse_hlo((case / name).read_text())
        dot = to_dot(draw(module))
        assert dot.startswith("digraph G {")
        assert dot.rstrip().endswith("}")
