"""`hlotool graph FILE --overview`: the module as a map of its computations.

One box per computation that is not a fusion body (the entry, while bodies and
conditions, branches, called computations, reducers and comparators), with its
instruction count and how many fusions it holds (their bodies are folded into that
count, not drawn). Edges go from caller to callee, labelled with the calling opcode and
how many instructions make that call. Each box's tooltip names the command that draws
it (`--computation NAME`). The drawing has as many nodes as the module has such
computations, so Graphviz lays out a 100k-instruction module's map in a second.
"""

from __future__ import annotations

from collections import Counter

from hlotool.graph.render import quote
from hlotool.ir import Computation, Instruction, Module
from hlotool.ir.opcodes import Opcode

#: What a computation is, by the opcode that calls it (others: reducers, comparators...).
_ROLE = {
    Opcode.WHILE: "loop",
    Opcode.CONDITIONAL: "branch",
    Opcode.CALL: "call",
}


def overview_dot(module: Module, source: str = "FILE") -> tuple[str, int]:
    """DOT text of the computation map of `module`, and how many boxes it has."""
    shown = [c for c in module.computations if not c.is_fusion_computation]
    calls: Counter[tuple[int, int, str]] = Counter()
    roles: dict[int, str] = {}
    callers: set[int] = set()
    for comp in shown:
        for ins in _with_fused(comp):
            for callee in ins.called_computations:
                if not callee.is_fusion_computation:
                    calls[(id(comp), id(callee), ins.opcode.value)] += 1
                    roles.setdefault(id(callee), _ROLE.get(ins.opcode, "applied"))
                    callers.add(id(comp))
    # Leaf computations alike in role and body (the many copies of `add` that JAX makes
    # for reductions) share one box.
    box_of: dict[int, str] = {}
    groups: dict[object, list[Computation]] = {}
    for comp in shown:
        leaf = id(comp) not in callers and not comp.is_entry
        key = (roles.get(id(comp)), _body_key(comp)) if leaf else id(comp)
        groups.setdefault(key, []).append(comp)
    lines = ["digraph overview {", "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=9];']
    for n, members in enumerate(groups.values()):
        for comp in members:
            box_of[id(comp)] = f"c{n}"
        lines.append(f"  c{n} [{_box(members, roles.get(id(members[0])), source)}];")
    edges: Counter[tuple[str, str, str]] = Counter()
    for (caller, callee, opcode), n in calls.items():
        edges[(box_of[caller], box_of[callee], opcode)] += n
    for (src, dst, opcode), n in sorted(edges.items()):
        label = opcode if n == 1 else f"{opcode} ×{n}"
        lines.append(f"  {src} -> {dst} [label={quote(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n", len(groups)


def _body_key(comp: Computation) -> tuple[object, ...]:
    index = {id(i): n for n, i in enumerate(comp.instructions)}
    return tuple((i.opcode, i.shape, tuple(index.get(id(o), -1) for o in i.operands))
                 for i in comp.instructions)


def _with_fused(comp: Computation) -> list[Instruction]:
    """The instructions of `comp` and of the fusion bodies inside it (a reduce in a
    fusion calls its reducer on behalf of `comp`)."""
    out: list[Instruction] = []
    stack = [comp]
    while stack:
        for ins in stack.pop().instructions:
            out.append(ins)
            if ins.opcode is Opcode.FUSION:
                stack.append(ins.attrs["calls"])
    return out


def _box(members: list[Computation], role: str | None, source: str) -> str:
    comp = members[0]
    fusions = [i for i in comp.instructions if i.opcode is Opcode.FUSION]
    fused = sum(len(i.attrs["calls"].instructions) for i in fusions)
    kind = "ENTRY" if comp.is_entry else (role or "uncalled")
    name = comp.name if len(members) == 1 else f"{comp.name} and {len(members) - 1} alike"
    text = f"{name}\n{kind}: {len(comp.instructions)} instructions"
    if fusions:
        text += f"\n{len(fusions)} fusions ({fused} fused instructions)"
    colour = {"ENTRY": "#f4d6a0", "loop": "#c6dbef", "branch": "#d9f0d3",
              "call": "#e5d8f0"}.get(kind, "#eeeeee")
    tooltip = f"hlotool graph {source} --computation {comp.name}"
    return f"label={quote(text)}, fillcolor={quote(colour)}, tooltip={quote(tooltip)}"
