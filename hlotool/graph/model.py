"""The drawing as data: nodes, edges and clusters, before it becomes DOT text.

The builder fills the topology, the selectors (neighbourhood, `--max-nodes`) and the
differ prune and annotate it, and `labels.decorate` paints what is left.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from hlotool.graph.style import ClusterStyle, DiffStatus, Style
from hlotool.ir import Computation, Instruction


class NodeKind(enum.Enum):
    """What a node stands for."""

    INSTRUCTION = "instruction"
    #: The brown ROOT circle under the drawn computation's root.
    ROOT = "root"
    #: A text box explaining what was left out.
    NOTE = "note"
    #: The colour key of a diff.
    LEGEND = "legend"


class EdgeKind(enum.Enum):
    """What an edge stands for."""

    DATA = "data"
    CONTROL = "control"
    #: From a called computation's root to its caller.
    SUBCOMPUTATION = "subcomputation"


@dataclass(eq=False, slots=True)
class Cluster:
    """A called computation drawn as a box around its instructions."""

    id: str
    computation: Computation
    #: The instruction that calls it (for fusions: the fusion instruction).
    caller: Instruction
    parent: Cluster | None
    is_fusion: bool
    style: ClusterStyle | None = None
    label: str = ""
    #: Extra text for the cluster's tooltip.
    tooltip: str = ""


@dataclass(eq=False, slots=True)
class Node:
    """One box (or circle) of the drawing."""

    id: str
    kind: NodeKind
    instruction: Instruction | None = None
    cluster: Cluster | None = None
    #: Drawn inside a fusion cluster (data movement there is free, so it fades).
    fused: bool = False
    #: `operand i = ...` lines for operands merged into this node (constants, GTEs).
    inlined: list[str] = field(default_factory=list)
    #: `Subcomputation: add` lines for trivial reducers.
    subcomputations: list[str] = field(default_factory=list)
    #: A collapsed fusion: how many instructions it stands for.
    fused_count: int = 0
    #: Focus of a neighbourhood view.
    highlight: bool = False
    #: Some operands or users are not drawn.
    deemphasized: bool = False
    diff: DiffStatus | None = None
    #: Why the diff status was given (tooltip).
    diff_note: str = ""
    label: str = ""
    tooltip: str = ""
    style: Style | None = None
    shape: str = "rect"


@dataclass(eq=False, slots=True)
class Edge:
    """An arrow from a producer's node to a consumer's node."""

    src: Node
    dst: Node
    kind: EdgeKind = EdgeKind.DATA
    #: Operand index shown at the head (None: not shown).
    operand: int | None = None
    #: The producer is small (hollow arrowhead).
    small: bool = True
    #: A subcomputation edge leaves this cluster's border.
    ltail: Cluster | None = None
    colour: str = ""
    dashed: bool = False


@dataclass(eq=False, slots=True)
class Graph:
    """A whole drawing."""

    title: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    #: The node drawn for each instruction that has one.
    node_of: dict[Instruction, Node] = field(default_factory=dict)

    def add_node(self, node: Node) -> Node:
        """Append a node (and index it by its instruction)."""
        self.nodes.append(node)
        if node.instruction is not None:
            self.node_of[node.instruction] = node
        return node

    def instruction_nodes(self) -> list[Node]:
        """The nodes that stand for instructions, in drawing order."""
        return [n for n in self.nodes if n.kind is NodeKind.INSTRUCTION]

    def keep(self, kept: set[Node]) -> None:
        """Drop every node not in `kept` (with its edges) and clusters left empty."""
        self.nodes = [n for n in self.nodes if n in kept]
        self.node_of = {i: n for i, n in self.node_of.items() if n in kept}
        self.edges = [e for e in self.edges if e.src in kept and e.dst in kept]
        used: set[Cluster] = set()
        for n in self.nodes:
            c = n.cluster
            while c is not None and c not in used:
                used.add(c)
                c = c.parent
        self.clusters = [c for c in self.clusters if c in used]
        for e in self.edges:
            if e.ltail is not None and e.ltail not in used:
                e.ltail = None
