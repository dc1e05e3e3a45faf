"""Node and cluster text: XLA's abbreviations, as Graphviz HTML-like labels.

- A name that starts with its opcode (`add.42`) is the whole title; otherwise the title
  is `opcode[:fusion kind]` above the name. Parameters are "Parameter N".
- Then trivial reducers ("Subcomputation: add"), the non-default attributes, inlined
  operands ("operand 1 = f32[] 0") and the shape (layout only above rank 1, cut at
  64 characters).
- Tooltips carry the metadata (op_name, op_type, source line) and the HLO text.
"""

from __future__ import annotations

import html
import re
from collections import Counter

from hlotool.graph import style as S
from hlotool.graph.model import Cluster, Graph, Node, NodeKind
from hlotool.ir import AttrKind, Computation, Instruction, Opcode, Shape
from hlotool.ir.types import shape_to_text
from hlotool.ir.printer import PrintOptions, print_attributes, print_instruction

MAX_SHAPE_CHARS = 64
MAX_ATTR_CHARS = 64
#: Device lists are long but worth more room (XLA keeps 128 characters of them).
LONG_ATTRS = {"replica_groups": 128, "source_target_pairs": 128}
#: Attributes shown elsewhere in the drawing (as clusters, edges or in the title).
HIDDEN_ATTRS = {"kind", "control-predecessors", "frontend_attributes", "statistics",
                "origin", "output_to_operand_aliasing"}
MAX_TOOLTIP_CHARS = 400
#: Constants with at most this many elements (and this much text) are printed inline.
INLINE_ELEMENTS = 8
INLINE_CHARS = 64
#: Names XLA gives parameters it makes (`param_0.12`): they say nothing "Parameter N" does not.
FUSED_PARAMETER_NAME = re.compile(r"param_\d+(\.\d+)?$")
#: Opcodes not worth naming in a collapsed fusion's summary.
FREE_OPS = frozenset({Opcode.PARAMETER, Opcode.CONSTANT, Opcode.BITCAST, Opcode.BROADCAST,
                      Opcode.RESHAPE, Opcode.GET_TUPLE_ELEMENT, Opcode.TUPLE})

#: Short HLO text: no `%`, metadata or backend config.
_SHORT = PrintOptions(percent=False, metadata=False, backend_config=False,
                      operand_index_comments=False)


def esc(text: str) -> str:
    """Text made safe for an HTML-like label."""
    return html.escape(text, quote=False)


def truncate(text: str, limit: int) -> str:
    """At most `limit` characters, ending in "..." when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- nodes -----------------------------------------------------------------------------------
def title(ins: Instruction) -> str:
    """The bold first line(s) of an instruction's node."""
    if ins.opcode is Opcode.PARAMETER:
        head = f"<b>Parameter {ins.parameter_number}</b>"
        return head if FUSED_PARAMETER_NAME.match(ins.name) else f"{head}<br/>{esc(ins.name)}"
    if ins.name.startswith(ins.opcode.value):
        return f"<b>{esc(ins.name)}</b>"
    opcode = ins.opcode.value
    if ins.opcode is Opcode.FUSION:
        opcode += f":{ins.attrs.get('kind', '')}"
    return f"<b>{esc(opcode)}</b><br/>{esc(ins.name)}"


def shape_line(ins: Instruction) -> str:
    """The shape, with its layout only when some part has more than one dimension."""
    multidim = any(s.rank > 1 for s in ins.shape.leaves())
    text = shape_to_text(ins.shape, multidim and ins.opcode is not Opcode.TUPLE)
    return esc(truncate(text, MAX_SHAPE_CHARS))


def attribute_lines(ins: Instruction) -> list[str]:
    """Non-default attributes, except called computations and what is drawn elsewhere."""
    spec = ins.spec
    out = []
    for text in print_attributes(ins, _SHORT):
        key = text.split("=", 1)[0]
        attr = spec.attr(key)
        if key in HIDDEN_ATTRS or (
            attr is not None and attr.kind in (AttrKind.COMPUTATION, AttrKind.COMPUTATIONS)
        ):
            continue
        out.append(esc(truncate(text, LONG_ATTRS.get(key, MAX_ATTR_CHARS))))
    return out


def constant_text(constant: Instruction, shape: Shape) -> str:
    """A constant inlined into its user: its value when short, else its name and shape."""
    literal = constant.literal
    if shape.is_array and shape.element_count == 0:
        return f"{{}} ({shape_to_text(constant.shape, False)})"
    if literal is not None and shape.is_array and constant.shape.element_count <= INLINE_ELEMENTS:
        value = literal.to_text()
        if len(value) <= INLINE_CHARS:
            return f"{shape_to_text(shape, False)} {value}"
    name = constant.name if constant.name.startswith("constant") else f"constant {constant.name}"
    return f"{name} {shape_to_text(shape, False)}"


def fusion_summary(fusion: Instruction) -> str:
    """"12 instructions: dot, add, exponential" for a collapsed fusion (with its kind
    first when the title does not show it)."""
    comp = fusion.called_computations[0]
    ops = Counter(i.opcode.value for i in comp.instructions if i.opcode not in FREE_OPS)
    names = ", ".join(op for op, _ in ops.most_common(3))
    more = ", ..." if len(ops) > 3 else ""
    head = f"{len(comp.instructions)} instructions"
    if fusion.name.startswith(fusion.opcode.value):
        # The title is just the name, so say the kind here.
        head = f"{fusion.attrs.get('kind', '')}, {head}"
    return head + (f": {names}{more}" if names else "")


def node_label(node: Node) -> str:
    """The whole HTML-like label of an instruction node."""
    ins = node.instruction
    assert ins is not None
    lines = [title(ins)]
    if node.fused_count:
        lines.append(esc(fusion_summary(ins)))
    lines.extend(node.subcomputations)
    attrs = attribute_lines(ins)
    if attrs:
        lines.append('<font point-size="9">' + "<br/>".join(attrs) + "</font>")
    lines.extend(node.inlined)
    lines.append(shape_line(ins))
    if node.diff_note:
        lines.append(f'<font point-size="9"><i>{esc(node.diff_note)}</i></font>')
    return "<br/>".join(lines)


def tooltip(ins: Instruction) -> str:
    """Metadata first (op_name, op_type, source), then the instruction's HLO text."""
    lines = []
    md = ins.metadata
    if md is not None:
        if md.op_name:
            lines.append(md.op_name)
        if md.op_type:
            lines.append(f"op_type: {md.op_type}")
        if md.source_file and md.source_line:
            lines.append(f"source: {md.source_file}:{md.source_line}")
    lines.append(truncate(print_instruction(ins, _SHORT), MAX_TOOLTIP_CHARS))
    return "\n".join(lines)


def diff_tooltip(node: Node) -> str:
    """"[fused into fusion.3: was add.21]" for a node of a diff."""
    if node.diff is None:
        return ""
    where = ""
    if node.diff is S.DiffStatus.FUSED_INTO and node.cluster is not None:
        where = f" {node.cluster.caller.name}"
    note = f": {node.diff_note}" if node.diff_note else ""
    return f"\n[{node.diff.value}{where}{note}]"


def node_style(node: Node) -> S.Style:
    """Diff status wins, then focus, then de-emphasis, then the opcode's colour."""
    ins = node.instruction
    assert ins is not None
    if node.diff is not None:
        return S.DIFF_STYLES[node.diff]
    if node.highlight:
        return S.DARK_RED
    if node.deemphasized:
        return S.DASHED
    return S.instruction_style(ins, node.fused)


# -- clusters -------------------------------------------------------------------------------
def cluster_label(cluster: Cluster) -> str:
    """"name / kLoop fusion: fused_computation" or "body of while.5 / comp"."""
    caller = cluster.caller
    comp = esc(cluster.computation.name)
    if cluster.is_fusion:
        kind = esc(str(caller.attrs.get("kind", "")))
        return f"<b>{esc(caller.name)}</b><br/>{kind} fusion: {comp}"
    role = computation_role(caller, cluster.computation)
    return f"{esc(role)} of <b>{esc(caller.name)}</b><br/>{comp}"


#: How a cluster is titled by the attribute that calls its computation.
ROLES = {"condition": "condition", "body": "body", "true_computation": "true branch",
         "false_computation": "false branch", "to_apply": "applied computation",
         "calls": "called computation"}


def computation_role(caller: Instruction, comp: Computation) -> str:
    """What `comp` is to `caller`: "condition", "body", "branch 2", ..."""
    for key, value in caller.attrs.items():
        if value is comp:
            return ROLES.get(key, key.replace("_", " "))
        if isinstance(value, (list, tuple)) and any(c is comp for c in value):
            index = next(i for i, c in enumerate(value) if c is comp)
            return f"branch {index}" if key == "branch_computations" else f"{key} {index}"
    return "subcomputation"


def trivial_reducer(comp: Computation) -> str | None:
    """A one-word name for `return p0 OP p1` on scalars ("add", "max", "less-than")."""
    if len(comp.instructions) != 3 or comp.root is None:
        return None
    root = comp.root
    if root.operand_count != 2 or not S.is_effective_scalar(root.shape):
        return None
    params = {p.parameter_number: p for p in comp.parameters}
    if set(params) != {0, 1} or set(root.operands) != set(params.values()):
        return None
    if not all(S.is_effective_scalar(p.shape) for p in params.values()):
        return None
    swapped = root.operand(0) is params[1]
    if root.opcode is Opcode.COMPARE:
        direction = str(root.attrs.get("direction", ""))
        if swapped and direction in ORDERED_DIRECTIONS:
            return None
        return COMPARE_NAMES.get(direction)
    return TRIVIAL_NAMES.get(root.opcode)


TRIVIAL_NAMES: dict[Opcode, str] = {
    Opcode.ADD: "add", Opcode.MULTIPLY: "multiply", Opcode.MINIMUM: "min",
    Opcode.MAXIMUM: "max", Opcode.XOR: "xor", Opcode.AND: "and", Opcode.OR: "or",
}  # fmt: skip
COMPARE_NAMES: dict[str, str] = {
    "LE": "less-or-equal", "GE": "greater-or-equal", "GT": "greater-than",
    "LT": "less-than", "EQ": "equal-to", "NE": "not-equal-to",
}  # fmt: skip
ORDERED_DIRECTIONS = frozenset({"LE", "GE", "GT", "LT"})


# -- the whole graph ------------------------------------------------------------------------
def decorate(graph: Graph) -> None:
    """Fill label, tooltip, style and shape of every instruction node and cluster."""
    for node in graph.nodes:
        if node.kind is not NodeKind.INSTRUCTION:
            continue
        ins = node.instruction
        assert ins is not None
        node.label = node_label(node)
        node.tooltip = tooltip(ins) + diff_tooltip(node)
        node.style = node_style(node)
        node.shape = "diamond" if node.highlight else S.node_shape(ins)
    for cluster in graph.clusters:
        cluster.label = cluster.label or cluster_label(cluster)
        if cluster.style is None:
            cluster.style = S.FUSION_CLUSTER if cluster.is_fusion else S.SUBCOMPUTATION_CLUSTER
