"""Neighbourhoods (--neighborhood/--radius) and elision (--max-nodes)."""

from __future__ import annotations

from collections import deque

import pytest

from hlotool.frontend import parse_hlo
from hlotool.graph import GraphError, GraphOptions, NodeKind, draw
from hlotool.graph.model import Graph, Node
from tests.conftest import CORPUS
from tests.graph.conftest import chain_module, name_of

ATTENTION = CORPUS / "attention_causal" / "module.opt.hlo"


def _by_name(graph: Graph) -> dict[str, Node]:
    return {n.instruction.name: n for n in graph.nodes if n.instruction is not None}


def _notes(graph: Graph) -> list[str]:
    return [n.label for n in graph.nodes if n.kind is NodeKind.NOTE]


def _hops(graph: Graph, start: Node) -> dict[Node, int]:
    """Undirected hop counts over instruction nodes of a full drawing."""
    near: dict[Node, set[Node]] = {n: set() for n in graph.nodes}
    for e in graph.edges:
        near[e.src].add(e.dst)
        near[e.dst].add(e.src)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        n = queue.popleft()
        for m in near[n]:
            if m not in dist and m.kind is NodeKind.INSTRUCTION:
                dist[m] = dist[n] + 1
                queue.append(m)
    return dist


def _neighbours(graph: Graph) -> dict[str, set[str]]:
    near: dict[str, set[str]] = {n: set() for n in _by_name(graph)}
    for e in graph.edges:
        if e.src.instruction is not None and e.dst.instruction is not None:
            near[e.src.instruction.name].add(e.dst.instruction.name)
            near[e.dst.instruction.name].add(e.src.instruction.name)
    return near


def test_neighbourhood_of_a_chain() -> None:
    graph = draw(chain_module(10), GraphOptions(neighborhood="negate.5", radius=2))
    nodes = _by_name(graph)
    assert set(nodes) == {f"negate.{i}" for i in range(3, 8)}
    assert nodes["negate.5"].highlight
    assert nodes["negate.5"].shape == "diamond"
    dashed = {name for name, n in nodes.items() if n.deemphasized}
    assert dashed == {"negate.3", "negate.7"}
    styles = {name: n.style.style for name, n in nodes.items() if n.style is not None}
    assert all("dashed" in styles[name] for name in dashed)
    assert not any("dashed" in styles[name] for name in ("negate.4", "negate.6"))
    assert "radius 2: 5 of" in _notes(graph)[0]


@pytest.mark.parametrize("radius", [0, 1, 2, 4])
def test_neighbourhood_radius_on_a_real_module(radius: int) -> None:
    module = parse_hlo(ATTENTION.read_text())
    full = draw(module, GraphOptions(max_nodes=0))
    focus = _by_name(full)["select_n.5"]
    want = {name_of(n) for n, d in _hops(full, focus).items() if d <= radius}
    graph = draw(module, GraphOptions(neighborhood="select_n.5", radius=radius, max_nodes=0))
    nodes = _by_name(graph)
    assert set(nodes) == want
    near = _neighbours(full)
    for name, node in nodes.items():
        outside = near[name] - set(nodes)
        assert node.deemphasized == (name != "select_n.5" and bool(outside))


def test_neighbourhood_of_a_fusion_is_its_cluster() -> None:
    module = parse_hlo(ATTENTION.read_text())
    graph = draw(module, GraphOptions(neighborhood="select_reduce_fusion", radius=0))
    assert [c.caller.name for c in graph.clusters] == ["select_reduce_fusion"]
    assert graph.clusters[0].style is not None
    assert graph.clusters[0].style.fill == "#ffcdd2"


def test_unknown_focus_is_an_error() -> None:
    with pytest.raises(GraphError, match="no instruction named 'nope'"):
        draw(chain_module(3), GraphOptions(neighborhood="nope"))


def test_max_nodes_keeps_the_part_nearest_the_root() -> None:
    graph = draw(chain_module(50), GraphOptions(max_nodes=10))
    nodes = _by_name(graph)
    assert set(nodes) == {f"negate.{i}" for i in range(41, 51)}
    assert {n for n, node in nodes.items() if node.deemphasized} == {"negate.41"}
    assert any(n.kind is NodeKind.ROOT for n in graph.nodes)
    (note,) = _notes(graph)
    assert note.startswith("41 of 51 nodes not shown (--max-nodes 10)")
    assert "--max-nodes 0" in note
    assert "--neighborhood" in note


def test_max_nodes_keeps_fusions_whole() -> None:
    module = parse_hlo(ATTENTION.read_text())
    full = draw(module, GraphOptions(max_nodes=0))
    size = {c.computation.name: sum(1 for n in full.nodes if n.cluster is c)
            for c in full.clusters}
    graph = draw(module, GraphOptions(max_nodes=20))
    assert 0 < len(graph.instruction_nodes()) <= 20
    for c in graph.clusters:
        assert sum(1 for n in graph.nodes if n.cluster is c) == size[c.computation.name]


def test_no_note_when_everything_fits() -> None:
    assert _notes(draw(chain_module(5), GraphOptions(max_nodes=6))) == []
