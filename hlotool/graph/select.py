"""Keeping big drawings readable and fast: a neighbourhood of one instruction, and
`--max-nodes` elision that keeps the part nearest the ROOT.

Both work on the built `Graph` (hops are counted in drawn edges, so merged constants and
get-tuple-elements cost nothing) and both mark the nodes on the cut with a dashed border
and add a note node that says what was left out and how to see it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from hlotool.graph.model import Cluster, Graph, Node, NodeKind
from hlotool.graph.style import NOTE

#: Past this many users a node's users are not explored (XLA's kMaxUsersToRender).
MAX_USERS_TO_EXPLORE = 16


def _adjacency(graph: Graph) -> tuple[dict[Node, list[Node]], dict[Node, list[Node]]]:
    """(operands, users) of every node, over all kinds of edges."""
    ins: dict[Node, list[Node]] = {n: [] for n in graph.nodes}
    outs: dict[Node, list[Node]] = {n: [] for n in graph.nodes}
    for e in graph.edges:
        ins[e.dst].append(e.src)
        outs[e.src].append(e.dst)
    return ins, outs


def neighborhood(graph: Graph, seeds: list[Node], radius: int, focus: str) -> int:
    """Keep the nodes within `radius` hops of `seeds`; returns how many were dropped."""
    operands, users = _adjacency(graph)
    dist: dict[Node, int] = {s: 0 for s in seeds}
    queue = deque(seeds)
    while queue:
        node = queue.popleft()
        d = dist[node]
        if d == radius:
            continue
        nexts = list(operands[node])
        if len(users[node]) <= MAX_USERS_TO_EXPLORE:
            nexts += users[node]
        for other in nexts:
            if other not in dist and other.kind is NodeKind.INSTRUCTION:
                dist[other] = d + 1
                queue.append(other)
    for s in seeds:
        s.highlight = len(seeds) == 1
    dropped = _apply(graph, set(dist), operands, users)
    total = dropped + len(dist)
    _add_note(graph, f"Neighbourhood of {focus}, radius {radius}: {len(dist)} of {total} "
                     "nodes. Dashed nodes have operands or users outside; widen with "
                     "--radius.")
    return dropped


def elide(graph: Graph, max_nodes: int) -> int:
    """Keep at most `max_nodes` instruction nodes, nearest the ROOT first (walking from
    users to operands); a fusion cluster is kept whole or not at all. Returns how many
    nodes were left out."""
    nodes = graph.instruction_nodes()
    if max_nodes <= 0 or len(nodes) <= max_nodes:
        return 0
    operands, users = _adjacency(graph)
    units = _units(nodes)
    kept: set[Node] = set()
    for node in _root_first(graph, operands):
        unit = units[_unit_key(node)]
        if node in kept or len(kept) + len(unit) > max_nodes:
            continue
        kept.update(unit)
        if len(kept) >= max_nodes:
            break
    dropped = _apply(graph, kept, operands, users)
    _add_note(graph, f"{dropped} of {len(nodes)} nodes not shown (--max-nodes {max_nodes}): "
                     "this is the part nearest the ROOT, and dashed nodes have more "
                     "operands above. To see the rest use --max-nodes 0 (everything), "
                     "--neighborhood NAME --radius N, --computation C or "
                     "--collapse-fusions; --overview maps the computations.")
    return dropped


def _root_first(graph: Graph, operands: dict[Node, list[Node]]) -> Iterable[Node]:
    """Instruction nodes breadth-first from the ROOT towards the parameters, then the
    rest (dead code, side effects) from the end of the schedule backwards."""
    seen: set[Node] = set()
    starts = [n for n in graph.nodes if n.kind is NodeKind.ROOT]
    starts += list(reversed(graph.instruction_nodes()))
    for start in starts:
        if start in seen:
            continue
        seen.add(start)
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if node.kind is NodeKind.INSTRUCTION:
                yield node
            for op in operands[node]:
                if op not in seen:
                    seen.add(op)
                    queue.append(op)


def _unit_key(node: Node) -> Node | Cluster:
    """The outermost fusion cluster around `node`, or the node itself."""
    key: Node | Cluster = node
    cluster = node.cluster
    while cluster is not None and cluster.is_fusion:
        key = cluster
        cluster = cluster.parent
    return key


def _units(nodes: list[Node]) -> dict[Node | Cluster, list[Node]]:
    units: dict[Node | Cluster, list[Node]] = {}
    for n in nodes:
        units.setdefault(_unit_key(n), []).append(n)
    return units


def _apply(graph: Graph, kept: set[Node], operands: dict[Node, list[Node]],
           users: dict[Node, list[Node]]) -> int:
    """Prune to `kept` (plus the ROOT tag and notes when their node stays); mark the
    boundary. Returns the number of instruction nodes dropped."""
    before = len(graph.instruction_nodes())
    for node in graph.nodes:
        if _stays_with(node, kept, operands):
            kept.add(node)
    for node in kept:
        if node.kind is NodeKind.INSTRUCTION and not node.highlight:
            outside = [m for m in (*operands[node], *users[node]) if m not in kept]
            node.deemphasized = bool(outside)
    graph.keep(kept)
    return before - len(graph.instruction_nodes())


def _stays_with(node: Node, kept: set[Node], operands: dict[Node, list[Node]]) -> bool:
    """Notes and legends always stay; the ROOT tag stays with the root's node."""
    if node.kind in (NodeKind.NOTE, NodeKind.LEGEND):
        return True
    return node.kind is NodeKind.ROOT and any(op in kept for op in operands[node])


def _add_note(graph: Graph, text: str) -> None:
    graph.add_node(Node(f"note{len(graph.nodes)}", NodeKind.NOTE, label=text, tooltip=text,
                        style=NOTE, shape="note"))
