"""Graph diffs: module B drawn with its fusions as clusters, every node coloured by what
happened to it since module A.

- **added** (green): in B, with nothing in A it corresponds to;
- **removed** (red, dashed): in A, with nothing in B; drawn with red edges to the B
  nodes its neighbours became;
- **fused into** (blue, thick outline): an A instruction that now lives inside a fusion
  of B (the cluster it sits in is outlined blue too);
- **changed** (orange): rewritten (another opcode reading the same values, as when a
  divide by 32 becomes a multiply by 0.03125), or same name with a new shape;
- unchanged nodes fade to white so the changes stand out.

Instructions are matched by name first (HLO names are unique in a module). Passes
rename what they clone, so the rest is matched by structure, in one sweep over B in
dataflow order: same opcode and size and operands that already match. The sweep looks
through what passes add or drop around a value (fusion and call boundaries, bitcasts,
reshapes and copies, folded broadcast chains, XLA:CPU's reduce-window before a
reduce); constants compare by value; identical instructions count as one on each side
(B is CSE'd, and fusion duplicates cheap ops into several clusters). Failing that, an
instruction is paired as a rewrite with the only unmatched one of its size that reads
the same values. Between sweeps, a unique (opcode, shape, name stem) or (opcode, shape)
among what is still unmatched anchors the next sweep.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable

from hlotool.graph import labels, select
from hlotool.graph.builder import (
    Builder,
    GraphError,
    GraphOptions,
    focus_nodes,
    pick_computation,
    require_instruction,
)
from hlotool.graph.model import Cluster, Edge, EdgeKind, Graph, Node, NodeKind
from hlotool.graph.style import (
    DIFF_EDGE_COLOURS,
    DIFF_FUSION_CLUSTER,
    DIFF_REMOVED_CLUSTER,
    DIFF_STYLES,
    DiffStatus,
)
from hlotool.ir import Computation, Instruction, Module, Opcode

#: Rounds of structural matching (each round can anchor the next).
MAX_ROUNDS = 8

Key = Hashable
#: How an operand is known: ("constant", its bytes), ("match", id of A's value), or
#: None while it has no match.
OperandKey = tuple[str, Hashable] | None


def build_diff(before: Module, after: Module, options: GraphOptions,
               names: tuple[str, str] | None = None) -> Graph:
    """The finished diff drawing (see the module docstring)."""
    focus = require_instruction(after, options.neighborhood) if options.neighborhood else None
    b_top = pick_computation(after, options.computation, focus)
    a_top = _counterpart(before, b_top)
    a_graph = Builder(a_top, options.collapse_fusions).build()
    a_name, b_name = names or (before.name, after.name)
    b_builder = Builder(b_top, options.collapse_fusions,
                        title=f"diff {a_name} → {b_name} · {b_top.name}")
    graph = b_builder.build()
    matcher = _Matcher(_reachable(a_top), _reachable(b_top))
    a_of = matcher.run()
    counts = _mark_after(graph, a_of, options.collapse_fusions)
    counts[DiffStatus.REMOVED] = _add_removed(graph, b_builder, a_graph, a_of, matcher.rep)
    graph.add_node(Node("legend", NodeKind.LEGEND, label=legend(counts), shape="plaintext",
                        tooltip="diff colours"))
    if focus is not None:
        seeds = focus_nodes(b_builder, focus)
        if not seeds:
            raise GraphError(f"{focus.name} is not drawn in computation {b_top.name}")
        select.neighborhood(graph, seeds, options.radius, focus.name)
    select.elide(graph, options.max_nodes)
    labels.decorate(graph)
    _colour_edges(graph)
    return graph


def _counterpart(module: Module, comp: Computation) -> Computation:
    """The computation of `module` to compare `comp` with: same name, else the entry."""
    for c in module.computations:
        if c.name == comp.name:
            return c
    return module.entry


def _reachable(top: Computation) -> list[Instruction]:
    """Every instruction of `top` and of the computations it calls, callers last."""
    out: list[Instruction] = []
    seen: set[Computation] = set()

    def visit(comp: Computation) -> None:
        seen.add(comp)
        for ins in comp.instructions:
            for sub in ins.called_computations:
                if sub not in seen and labels.trivial_reducer(sub) is None:
                    visit(sub)
            out.append(ins)

    visit(top)
    return out


# -- matching --------------------------------------------------------------------------------
#: Ops that only relayout or rename a value: operands are compared through them.
TRANSPARENT = frozenset({Opcode.BITCAST, Opcode.RESHAPE, Opcode.COPY})
#: Opcodes that passes turn into one another; they match as one.
SAME_OPCODE: dict[Opcode, Opcode] = {Opcode.BITCAST: Opcode.RESHAPE}
#: Never paired as a rewrite: they are looked through, or known by their operand.
NOT_REWRITES = TRANSPARENT | {Opcode.BROADCAST}

Mapping = Callable[[Instruction], Instruction | None]


def match(before: list[Instruction], after: list[Instruction]) -> dict[Instruction, Instruction]:
    """For each instruction of `after`, the instruction of `before` it stands for."""
    return _Matcher(before, after).run()


class _Resolver:
    """Looks through what passes add or remove around a value: fusion and call
    boundaries (a parameter is its caller's operand, a caller is its root), layout-only
    ops and folded broadcasts."""

    def __init__(self, instrs: list[Instruction]) -> None:
        callers: dict[Computation, list[Instruction]] = defaultdict(list)
        for ins in instrs:
            if ins.opcode is Opcode.CALL:
                callers[ins.called_computations[0]].append(ins)
        #: Computations inlined by a single `call`.
        self.call_of = {c: users[0] for c, users in callers.items() if len(users) == 1}

    def effective(self, ins: Instruction) -> Instruction:
        """The instruction that really produces the value `ins` stands for."""
        while True:
            nxt = self._step(ins)
            if nxt is None:
                return ins
            ins = nxt

    def _step(self, ins: Instruction) -> Instruction | None:
        comp = ins.parent
        if ins.opcode is Opcode.PARAMETER and comp is not None:
            caller = comp.fusion_instruction or self.call_of.get(comp)
            return caller.operand(ins.parameter_number) if caller is not None else None
        if ins.opcode in (Opcode.FUSION, Opcode.CALL):
            return ins.called_computations[0].root
        if ins.opcode in TRANSPARENT:
            return ins.operand(0)
        if ins.opcode is Opcode.BROADCAST:
            # Simplifiers fold chains of broadcasts into one and broadcast constants
            # late: a broadcast of a broadcast (or of a constant) is its operand.
            inner = self.effective(ins.operand(0))
            if inner.opcode in (Opcode.BROADCAST, Opcode.CONSTANT):
                return inner
        return None

    def operands(self, ins: Instruction) -> list[Instruction]:
        """The effective operands. XLA:CPU splits a row reduction into a reduce-window
        and a reduce, so a reduce reads through a reduce-window."""
        out = [self.effective(op) for op in ins.operands]
        if ins.opcode is Opcode.REDUCE:
            out = [self.effective(op.operand(0)) if op.opcode is Opcode.REDUCE_WINDOW else op
                   for op in out]
        return out


class _Matcher:
    """Matches B's instructions to A's, cheapest evidence first."""

    def __init__(self, before: list[Instruction], after: list[Instruction]) -> None:
        self.before = [a for a in before if _matchable(a)]
        self.after = [b for b in after if _matchable(b)]
        self.a_resolver = _Resolver(before)
        self.b_resolver = _Resolver(after)
        self.parameters = (_top_parameters(before), _top_parameters(after))
        self.a_of: dict[Instruction, Instruction] = {}
        #: One representative per set of identical instructions, on each side: B is
        #: often common-subexpression eliminated (one value stands for several of A),
        #: and fusion duplicates (several copies stand for one value of A).
        self.rep = _representatives(self.before, self.a_resolver, self._signature)
        self.b_rep = _representatives(self.after, self.b_resolver, self._signature)

    def _a_value(self, a: Instruction) -> Instruction:
        return self.rep.get(a, a)

    def _b_value(self, b: Instruction) -> Instruction | None:
        a = self.a_of.get(b)
        return None if a is None else self.rep.get(a, a)

    def run(self) -> dict[Instruction, Instruction]:
        self._by_name()
        self._parameters()
        for _ in range(MAX_ROUNDS):
            found = self._sweep()
            found += self._unique(_stem_key) + self._unique(_shape_key)
            if not found:
                break
        return self.a_of

    def _by_name(self) -> None:
        by_name = {a.name: a for a in self.before}
        for b in self.after:
            a = by_name.get(b.name)
            if a is not None and a.opcode is b.opcode:
                self.a_of[b] = a

    def _parameters(self) -> None:
        """Parameters of the two top computations match by number."""
        a_params, b_params = self.parameters
        for n, b in b_params.items():
            if b not in self.a_of and n in a_params:
                self.a_of[b] = a_params[n]

    def _sweep(self) -> int:
        """One pass over B in dataflow order: match each instruction whose operands all
        match, to an A instruction with the same signature (a fusion may duplicate one
        A instruction into several B ones), or else to the one A instruction of its size
        that reads the same matched values (a rewrite: divide by 32 -> multiply by
        0.03125)."""
        exact = _index(self.before, lambda a: self._signature(a, self.a_resolver, self._a_value))
        rewrites = _index(self.before,
                          lambda a: self._rewrite_key(a, self.a_resolver, self._a_value))
        taken = set(self.a_of.values())
        found = 0
        for b in self.after:
            if b in self.a_of:
                continue
            a = self._candidate(b, exact, rewrites, taken)
            if a is not None:
                self.a_of[b] = a
                taken.add(a)
                found += 1
        return found

    def _candidate(self, b: Instruction, exact: dict[Key, list[Instruction]],
                   rewrites: dict[Key, list[Instruction]], taken: set[Instruction]
                   ) -> Instruction | None:
        twin = self.b_rep.get(b, b)
        if twin in self.a_of:
            return self.a_of[twin]
        sig = self._signature(b, self.b_resolver, self._b_value)
        same = exact.get(sig, []) if sig is not None else []
        if same:
            fresh = [a for a in same if a not in taken]
            return (fresh or same)[0]
        key = self._rewrite_key(b, self.b_resolver, self._b_value)
        alike = rewrites.get(key, []) if key is not None else []
        if len(alike) == 1 and alike[0] not in taken:
            return alike[0]
        return None

    @staticmethod
    def _operand_keys(ins: Instruction, resolver: _Resolver, mapped: Mapping
                      ) -> list[OperandKey]:
        keys: list[OperandKey] = []
        for op in resolver.operands(ins):
            if op.opcode is Opcode.CONSTANT and op.literal is not None:
                keys.append(("constant", op.literal.fingerprint()))
            else:
                target = mapped(op)
                keys.append(None if target is None else ("match", id(target)))
        return keys

    def _signature(self, ins: Instruction, resolver: _Resolver, mapped: Mapping) -> Key:
        """Opcode, size and matched operands; None while some operand is unmatched."""
        keys = self._operand_keys(ins, resolver, mapped)
        if not keys or None in keys:
            return None
        # A broadcast is known by what it broadcasts; its shape is free to change.
        sizes = None if ins.opcode is Opcode.BROADCAST else _sizes(ins)
        return (_opcode(ins), sizes, tuple(keys))

    def _rewrite_key(self, ins: Instruction, resolver: _Resolver, mapped: Mapping) -> Key:
        """Size, arity and the matched values read, whatever the opcode and constants."""
        if ins.opcode in NOT_REWRITES:
            return None
        keys = self._operand_keys(ins, resolver, mapped)
        if None in keys:
            return None
        read = frozenset(k for k in keys if k is not None and k[0] == "match")
        return (_sizes(ins), ins.operand_count, read) if read else None

    def _unique(self, key: Callable[[Instruction], Key]) -> int:
        """Match pairs that are the only unmatched instructions with the same key."""
        taken = set(self.a_of.values())
        a_groups = _index([a for a in self.before if a not in taken], key)
        b_groups = _index([b for b in self.after if b not in self.a_of], key)
        found = 0
        for k, bs in b_groups.items():
            alike = a_groups.get(k, [])
            if len(bs) == 1 and len(alike) == 1 and alike[0].opcode is not Opcode.CONSTANT:
                self.a_of[bs[0]] = alike[0]
                found += 1
        return found


Signature = Callable[[Instruction, _Resolver, Mapping], Key]


def _representatives(instrs: list[Instruction], resolver: _Resolver,
                     signature: Signature) -> dict[Instruction, Instruction]:
    """Each instruction's first identical instruction (same opcode, size and operands,
    compared through earlier representatives); side effects are never merged."""
    rep: dict[Instruction, Instruction] = {}
    first: dict[Key, Instruction] = {}
    for ins in instrs:
        sig = signature(ins, resolver, lambda x: rep.get(x, x))
        if sig is not None and not ins.spec.side_effecting:
            rep[ins] = first.setdefault(sig, ins)
    return rep


def _top_parameters(instrs: list[Instruction]) -> dict[int, Instruction]:
    top = instrs[-1].parent if instrs else None
    return {i.parameter_number: i for i in instrs
            if i.opcode is Opcode.PARAMETER and i.parent is top}


def _index(instrs: Iterable[Instruction], key: Callable[[Instruction], Key]
           ) -> dict[Key, list[Instruction]]:
    """Instructions grouped by key (None keys left out)."""
    out: dict[Key, list[Instruction]] = defaultdict(list)
    for i in instrs:
        k = key(i)
        if k is not None:
            out[k].append(i)
    return out


def _opcode(ins: Instruction) -> Opcode:
    return SAME_OPCODE.get(ins.opcode, ins.opcode)


def _dims(ins: Instruction) -> Key:
    return tuple((s.element_type, s.dimensions) for s in ins.shape.leaves())


def _sizes(ins: Instruction) -> Key:
    """Element types and counts: reshapes and bitcasts may change the dimensions."""
    return tuple((s.element_type, s.element_count) for s in ins.shape.leaves())


def _stem_key(ins: Instruction) -> Key:
    return (_opcode(ins), _sizes(ins), ins.name.rsplit(".", 1)[0])


def _shape_key(ins: Instruction) -> Key:
    return (_opcode(ins), _dims(ins))


def _matchable(ins: Instruction) -> bool:
    """Instructions worth a match (parameters of fused or called computations stand
    for their caller's operand, and fusions for their root)."""
    comp = ins.parent
    inner_param = (ins.opcode is Opcode.PARAMETER and comp is not None
                   and not comp.is_entry)
    return not inner_param and ins.opcode is not Opcode.FUSION


# -- colouring -------------------------------------------------------------------------------
def enclosing_fusion(ins: Instruction) -> Instruction | None:
    """The fusion instruction whose computation holds `ins`, if any."""
    comp = ins.parent
    return comp.fusion_instruction if comp is not None else None


def status(b: Instruction, a: Instruction | None) -> tuple[DiffStatus, str]:
    """What happened to `b` (matched to `a`, or not), with a short reason."""
    if a is None:
        return DiffStatus.ADDED, "added"
    if _opcode(a) is not _opcode(b):
        return DiffStatus.CHANGED, f"was {a.opcode.value} {a.name}"
    b_fusion, a_fusion = enclosing_fusion(b), enclosing_fusion(a)
    if b_fusion is not None and (a_fusion is None or a_fusion.name != b_fusion.name):
        return DiffStatus.FUSED_INTO, "fused" if a.name == b.name else f"was {a.name}"
    if a.name == b.name and _dims(a) != _dims(b):
        return DiffStatus.CHANGED, "shape changed"
    return DiffStatus.UNCHANGED, "" if a.name == b.name else f"was {a.name}"


def _mark_after(graph: Graph, a_of: dict[Instruction, Instruction],
                collapsed: bool) -> dict[DiffStatus, int]:
    counts: dict[DiffStatus, int] = dict.fromkeys(DiffStatus, 0)
    for node in graph.instruction_nodes():
        b = node.instruction
        assert b is not None
        if collapsed and b.opcode is Opcode.FUSION:
            node.diff, node.diff_note = _collapsed_status(b, a_of)
        else:
            node.diff, node.diff_note = status(b, a_of.get(b))
        counts[node.diff] += 1
        if node.diff is DiffStatus.FUSED_INTO and node.cluster is not None:
            _outline(node.cluster)
    return counts


def _collapsed_status(fusion: Instruction, a_of: dict[Instruction, Instruction]
                      ) -> tuple[DiffStatus, str]:
    """A fusion drawn as one node: how many unfused A instructions it took in."""
    inner = fusion.called_computations[0].instructions
    took = [i for i in inner if i in a_of and enclosing_fusion(a_of[i]) is None]
    if took:
        return DiffStatus.FUSED_INTO, f"fuses {len(took)} instructions that were unfused"
    return DiffStatus.ADDED, "added"


def _outline(cluster: Cluster) -> None:
    cluster.style = DIFF_FUSION_CLUSTER
    cluster.tooltip = f"{cluster.caller.name}: took in instructions that were outside fusions"


def _add_removed(graph: Graph, b_builder: Builder, a_graph: Graph,
                 a_of: dict[Instruction, Instruction],
                 rep: dict[Instruction, Instruction]) -> int:
    """Copy A's unmatched nodes into the drawing, with red edges to their neighbours."""
    matched = set(a_of.values())
    b_of: dict[Instruction, Instruction] = {}
    for b, a in a_of.items():
        b_of.setdefault(a, b)
    copies: dict[Node, Node] = {}
    group: Cluster | None = None
    for a_node in a_graph.instruction_nodes():
        ins = a_node.instruction
        assert ins is not None
        if ins in matched or _is_inner_parameter(ins, a_graph):
            continue
        if group is None:  # removed nodes are drawn together, not among B's
            assert ins.parent is not None
            group = Cluster("cluster_removed", ins.parent, ins, None, False,
                            style=DIFF_REMOVED_CLUSTER,
                            tooltip="instructions of the first module with no counterpart")
            graph.clusters.append(group)
        copy = graph.add_node(Node(f"removed{len(copies) + 1}", NodeKind.INSTRUCTION, ins,
                                   cluster=group,
                                   inlined=a_node.inlined,
                                   subcomputations=a_node.subcomputations,
                                   fused_count=a_node.fused_count, diff=DiffStatus.REMOVED,
                                   diff_note=_removed_note(ins, rep, matched)))
        copies[a_node] = copy
    for e in a_graph.edges:
        if e.src not in copies and e.dst not in copies:
            continue
        src = copies.get(e.src) or _b_node(e.src, b_builder, b_of)
        dst = copies.get(e.dst) or _b_node(e.dst, b_builder, b_of)
        if src is not None and dst is not None and e.kind is not EdgeKind.SUBCOMPUTATION:
            graph.edges.append(Edge(src, dst, e.kind, operand=e.operand, small=e.small,
                                    colour=DIFF_EDGE_COLOURS[DiffStatus.REMOVED], dashed=True))
    if group is not None:
        group.label = f"<b>removed</b> ({len(copies)})"
    return len(copies)


def _removed_note(a: Instruction, rep: dict[Instruction, Instruction],
                  matched: set[Instruction]) -> str:
    """"removed", or "duplicate of x" when an identical instruction lives on."""
    twin = rep.get(a, a)
    return f"duplicate of {twin.name}" if twin is not a and twin in matched else "removed"


def _is_inner_parameter(ins: Instruction, graph: Graph) -> bool:
    """A parameter of a called computation: plumbing, not worth a "removed" node."""
    return ins.opcode is Opcode.PARAMETER and graph.node_of[ins].cluster is not None


def _b_node(a_node: Node, b_builder: Builder, b_of: dict[Instruction, Instruction]) -> Node | None:
    """The node of B drawn for the instruction that A's node became."""
    a = a_node.instruction
    b = b_of.get(a) if a is not None else None
    if b is None:
        return None
    if b in b_builder.graph.node_of:
        return b_builder.graph.node_of[b]
    return b_builder.source(b)


def _colour_edges(graph: Graph) -> None:
    """Edges into or out of added nodes are green."""
    colour = DIFF_EDGE_COLOURS[DiffStatus.ADDED]
    for e in graph.edges:
        if not e.colour and DiffStatus.ADDED in (e.src.diff, e.dst.diff):
            e.colour = colour


def legend(counts: dict[DiffStatus, int]) -> str:
    """An HTML table: one swatch and count per diff status."""
    rows = ['<table border="0" cellborder="1" cellspacing="2" cellpadding="4">',
            '<tr><td colspan="2"><b>diff</b></td></tr>']
    for st in (DiffStatus.ADDED, DiffStatus.REMOVED, DiffStatus.FUSED_INTO,
               DiffStatus.CHANGED, DiffStatus.UNCHANGED):
        style = DIFF_STYLES[st]
        rows.append(f'<tr><td bgcolor="{style.fill}" color="{style.stroke}">{st.value}</td>'
                    f"<td>{counts.get(st, 0)}</td></tr>")
    rows.append("</table>")
    return "".join(rows)
