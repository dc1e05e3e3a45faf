"""Module -> `Graph`: which instructions get a node, which edges join them, which
computations become clusters.

What merges into its users, as in XLA's dumper:
- constants and broadcasts of scalar constants become `operand i = ...` lines;
- get-tuple-elements are skipped: the edge starts at the tuple's producer and the user
  says "tuple-element i of x";
- a fused computation's parameters disappear: the edge starts at the fusion's operand
  and goes straight to the parameter's users inside the cluster;
- an expanded fusion is its cluster; edges leave from the fused root;
- a tuple parameter used only by get-tuple-elements (a while body's state) is merged
  into them;
- trivial reducers ("return p0 + p1") are text in the caller's node.
"""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.graph import labels
from hlotool.graph.model import Cluster, Edge, EdgeKind, Graph, Node, NodeKind
from hlotool.graph.style import BROWN, FOCUS_FUSION_CLUSTER, is_effective_scalar, is_small
from hlotool.ir import Computation, Instruction, Module, Opcode
from hlotool.ir.types import shape_to_text

#: A tuple parameter with more users than this, all get-tuple-elements, is merged.
MIN_USERS_TO_MERGE_TUPLE = 3


class GraphError(ValueError):
    """A name on the command line that is not in the module, and the like."""


@dataclass(frozen=True, slots=True)
class GraphOptions:
    """What `hlotool graph` draws."""

    #: Draw this computation instead of the entry.
    computation: str | None = None
    #: Draw each fusion as one node instead of a cluster.
    collapse_fusions: bool = False
    #: Draw only the instructions within `radius` edges of this one.
    neighborhood: str | None = None
    radius: int = 3
    #: Leave out nodes beyond this many (0: draw everything).
    max_nodes: int = 1500


class Builder:
    """Builds the topology of one computation's drawing (labels come later)."""

    def __init__(self, top: Computation, collapse_fusions: bool = False, title: str = "") -> None:
        self.top = top
        self.collapse = collapse_fusions
        self.graph = Graph(title or top.name)
        self._subcomputations: dict[Computation, Cluster] = {}
        self._links: list[tuple[Cluster, Instruction]] = []
        self._count = 0

    def build(self) -> Graph:
        """Nodes and clusters first, then every edge, then the ROOT tag."""
        self._add_computation(self.top, None)
        for node in self.graph.instruction_nodes():
            self._add_operand_edges(node)
        self._add_subcomputation_edges()
        self._add_root_tag()
        return self.graph

    # -- what is drawn ------------------------------------------------------------------
    def is_merged(self, ins: Instruction) -> bool:
        """True when `ins` gets no node of its own."""
        if ins.opcode is Opcode.FUSION and not self.collapse:
            return True
        if ins.parent is not None and ins.parent.root is ins:
            return False
        if ins.opcode in (Opcode.CONSTANT, Opcode.GET_TUPLE_ELEMENT):
            return True
        if ins.opcode is Opcode.PARAMETER:
            return self.is_fused_parameter(ins) or _is_state_tuple(ins)
        return _is_scalar_broadcast(ins)

    def is_fused_parameter(self, ins: Instruction) -> bool:
        """A parameter of a fusion drawn as a cluster (not of the drawn computation)."""
        comp = ins.parent
        return (ins.opcode is Opcode.PARAMETER and comp is not None and comp is not self.top
                and comp.fusion_instruction is not None)

    def source(self, ins: Instruction) -> Node | None:
        """The node an edge from `ins` starts at (None: the value is drawn inline)."""
        node_of = self.graph.node_of
        while ins not in node_of:
            nxt = self._producer(ins)
            if nxt is None:
                return None
            ins = nxt
        return node_of[ins]

    def _producer(self, ins: Instruction) -> Instruction | None:
        """One step towards the drawn node that stands for a merged instruction."""
        if ins.opcode is Opcode.GET_TUPLE_ELEMENT:
            return ins.operand(0)
        if ins.opcode is Opcode.FUSION and not self.collapse:
            return ins.called_computations[0].root
        if self.is_fused_parameter(ins):
            return self._fusion_operand(ins)
        return None

    def _fusion_operand(self, param: Instruction) -> Instruction:
        assert param.parent is not None
        assert param.parent.fusion_instruction is not None
        return param.parent.fusion_instruction.operand(param.parameter_number)

    # -- nodes and clusters ----------------------------------------------------------------
    def _new_id(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def _add_computation(self, comp: Computation, cluster: Cluster | None) -> None:
        fused = comp.fusion_instruction is not None
        for ins in comp.instructions:
            reducers = []
            for sub in ins.called_computations:
                name = labels.trivial_reducer(sub) if ins.opcode is not Opcode.FUSION else None
                if name is None:
                    self._add_called(sub, ins, cluster)
                else:
                    reducers.append(name)
            if self.is_merged(ins):
                continue
            node = self.graph.add_node(Node(self._new_id("n"), NodeKind.INSTRUCTION, ins,
                                            cluster, fused=fused))
            node.subcomputations = _reducer_lines(reducers)
            if ins.opcode is Opcode.FUSION:
                node.fused_count = len(ins.called_computations[0].instructions)

    def _add_called(self, sub: Computation, caller: Instruction, parent: Cluster | None) -> None:
        if caller.opcode is Opcode.FUSION:
            if not self.collapse:
                self._add_cluster(sub, caller, parent, is_fusion=True)
            return
        cluster = self._subcomputations.get(sub)
        if cluster is None:
            cluster = self._add_cluster(sub, caller, parent, is_fusion=False)
            self._subcomputations[sub] = cluster
        self._links.append((cluster, caller))

    def _add_cluster(self, sub: Computation, caller: Instruction, parent: Cluster | None,
                     is_fusion: bool) -> Cluster:
        cluster = Cluster(self._new_id("cluster_"), sub, caller, parent, is_fusion)
        self.graph.clusters.append(cluster)
        self._add_computation(sub, cluster)
        return cluster

    # -- edges ---------------------------------------------------------------------------
    def edge_operands(self, ins: Instruction) -> list[Instruction]:
        """The values flowing into `ins`'s node (a drawn fused parameter's is the fusion
        operand it is bound to)."""
        if self.is_fused_parameter(ins):
            return [self._fusion_operand(ins)]
        return list(ins.operands)

    def _add_operand_edges(self, node: Node) -> None:
        ins = node.instruction
        assert ins is not None
        operands = self.edge_operands(ins)
        numbered = len(operands) > 1
        for i, op in enumerate(operands):
            text = self.inline_text(op)
            if text is not None:
                which = f"operand {i}" if numbered else "operand"
                node.inlined.append(f"<b>{which}</b> = {labels.esc(text)}")
            src = self.source(op)
            if src is not None:
                self.graph.edges.append(Edge(src, node, operand=i if numbered else None,
                                             small=_small(src)))
        for pred in ins.control_predecessors:
            src = self.source(pred)
            if src is not None:
                self.graph.edges.append(Edge(src, node, EdgeKind.CONTROL))

    def inline_text(self, op: Instruction) -> str | None:
        """The `operand i = ...` text for an operand merged into its user, if any."""
        while self.is_fused_parameter(op) and op not in self.graph.node_of:
            op = self._fusion_operand(op)
        if op in self.graph.node_of:
            return None
        if op.opcode is Opcode.CONSTANT:
            return labels.constant_text(op, op.shape)
        if _is_scalar_broadcast(op):
            return labels.constant_text(op.operand(0), op.shape)
        if op.opcode is Opcode.GET_TUPLE_ELEMENT:
            return (f"tuple-element {op.attrs.get('index')} of {op.operand(0).name} "
                    f"{shape_to_text(op.shape)}")
        return None

    def _add_subcomputation_edges(self) -> None:
        for cluster, caller in self._links:
            src = self.source(cluster.computation.root) if cluster.computation.root else None
            dst = self.graph.node_of.get(caller)
            if src is not None and dst is not None:
                self.graph.edges.append(Edge(src, dst, EdgeKind.SUBCOMPUTATION, ltail=cluster,
                                             small=_small(src), dashed=True))

    def _add_root_tag(self) -> None:
        root = self.top.root
        src = self.source(root) if root is not None else None
        if src is None:
            return
        tag = self.graph.add_node(Node(self._new_id("n"), NodeKind.ROOT, label="ROOT",
                                       tooltip=" ", style=BROWN, shape="circle"))
        self.graph.edges.append(Edge(src, tag, small=_small(src)))


def _small(node: Node) -> bool:
    return node.instruction is None or is_small(node.instruction.shape)


def _reducer_lines(names: list[str]) -> list[str]:
    if len(names) == 1:
        return [f"Subcomputation: <b>{labels.esc(names[0])}</b>"]
    return [f"Subcomputation {i}: <b>{labels.esc(n)}</b>" for i, n in enumerate(names)]


def _is_state_tuple(ins: Instruction) -> bool:
    """A non-fused tuple parameter read only through get-tuple-elements."""
    users = ins.unique_users
    return (ins.shape.is_tuple and ins.parent is not None
            and ins.parent.fusion_instruction is None
            and len(users) > MIN_USERS_TO_MERGE_TUPLE
            and all(u.opcode is Opcode.GET_TUPLE_ELEMENT for u in users))


def _is_scalar_broadcast(ins: Instruction) -> bool:
    """A broadcast of a one-element constant is as good as a constant. XLA inlines these
    only inside fusions; we inline them everywhere, because before fusion one such
    broadcast is often shared by every layer of a deep network and would pull edges
    across the whole drawing."""
    comp = ins.parent
    return (ins.opcode is Opcode.BROADCAST and comp is not None and comp.root is not ins
            and ins.operand(0).opcode is Opcode.CONSTANT
            and is_effective_scalar(ins.operand(0).shape))


def find_computation(module: Module, name: str) -> Computation:
    """The computation called `name` (with or without a leading `%`)."""
    want = name.removeprefix("%")
    for comp in module.computations:
        if comp.name == want:
            return comp
    raise KeyError(name)


def find_instruction(module: Module, name: str) -> Instruction:
    """The instruction called `name` in any computation."""
    want = name.removeprefix("%")
    for comp in module.computations:
        for ins in comp.instructions:
            if ins.name == want:
                return ins
    raise KeyError(name)


def require_instruction(module: Module, name: str) -> Instruction:
    """The instruction called `name` (GraphError when there is none)."""
    try:
        return find_instruction(module, name)
    except KeyError:
        raise GraphError(f"no instruction named {name!r} in {module.name}") from None


def pick_computation(module: Module, name: str | None,
                     focus: Instruction | None = None) -> Computation:
    """The named computation, else the one around the focus, else the entry."""
    if name:
        try:
            return find_computation(module, name)
        except KeyError:
            names = ", ".join(c.name for c in module.computations[:8])
            more = ", ..." if len(module.computations) > 8 else ""
            raise GraphError(f"no computation named {name!r} (there are {names}{more})") from None
    return drawing_root(focus) if focus is not None else module.entry


def focus_nodes(builder: Builder, focus: Instruction) -> list[Node]:
    """The nodes a neighbourhood starts from: the focus's node, or all of a fusion's
    cluster (which is then drawn in red), or the node its value is drawn at."""
    graph = builder.graph
    if focus in graph.node_of:
        return [graph.node_of[focus]]
    clusters = [c for c in graph.clusters if c.is_fusion and c.caller is focus]
    if clusters:
        clusters[0].style = FOCUS_FUSION_CLUSTER
        return [n for n in graph.nodes if _inside(n.cluster, clusters[0])]
    src = builder.source(focus)
    if src is not None:
        return [src]
    return [graph.node_of[u] for u in focus.unique_users if u in graph.node_of]


def _inside(cluster: Cluster | None, outer: Cluster) -> bool:
    while cluster is not None:
        if cluster is outer:
            return True
        cluster = cluster.parent
    return False


def drawing_root(ins: Instruction) -> Computation:
    """The computation to draw around `ins`: its own, or the one holding its fusion."""
    comp = ins.parent
    assert comp is not None
    while comp.fusion_instruction is not None and comp.fusion_instruction.parent is not None:
        comp = comp.fusion_instruction.parent
    return comp
