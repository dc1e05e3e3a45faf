"""`Graph` -> DOT text -> SVG or PNG (through Graphviz's `dot` program).

DOT output needs nothing installed; SVG and PNG need the `dot` binary, and say so
clearly (`GraphvizMissing`) when it is not on PATH.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from hlotool.graph import style as S
from hlotool.graph.labels import esc
from hlotool.graph.model import Cluster, Edge, EdgeKind, Graph, Node, NodeKind
from hlotool.safe_io import atomic_write

#: Output formats by file suffix.
FORMATS = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot"}
NOTE_WIDTH = 70


class GraphvizMissing(RuntimeError):
    """The `dot` program is needed but not installed."""


class RenderError(RuntimeError):
    """`dot` ran but failed."""


def quote(text: str) -> str:
    """A DOT double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(attrs: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in attrs.items())


def _plain(attrs: dict[str, str]) -> dict[str, str]:
    return {k: quote(v) for k, v in attrs.items()}


#: Past this many nodes, dot's crossing minimization and network simplex get a small
#: iteration budget: a 700-node training step otherwise takes dot 20 s of CPU.
BIG_GRAPH_NODES = 150
FAST_LAYOUT = {"mclimit": "0.2", "nslimit": "2", "nslimit1": "2", "remincross": "false"}


def to_dot(graph: Graph) -> str:
    """The whole drawing as DOT text."""
    big = len(graph.nodes) > BIG_GRAPH_NODES
    layout = f", {_attrs(_plain(FAST_LAYOUT))}" if big else ""
    out = ["digraph G {",
           f"graph [{_attrs(_plain(S.GRAPH_ATTRS))}{layout}, "
           f"label=<<b>{esc(graph.title)}</b>>];",
           f"node [{_attrs(_plain(S.NODE_ATTRS))}];",
           f"edge [{_attrs(_plain(S.EDGE_ATTRS))}];"]
    children: dict[Cluster | None, list[Cluster]] = {}
    for c in graph.clusters:
        children.setdefault(c.parent, []).append(c)
    members: dict[Cluster | None, list[Node]] = {}
    for n in graph.nodes:
        members.setdefault(n.cluster, []).append(n)
    _emit_scope(None, children, members, out, "")
    out.extend(_edge(e) for e in graph.edges)
    out.append("}")
    return "\n".join(out) + "\n"


def _emit_scope(cluster: Cluster | None, children: dict[Cluster | None, list[Cluster]],
                members: dict[Cluster | None, list[Node]], out: list[str], indent: str) -> None:
    for child in children.get(cluster, []):
        st = child.style or S.FUSION_CLUSTER
        out.append(f"{indent}subgraph {child.id} {{")
        inner = indent + "  "
        out.append(f'{inner}graph [label=<{child.label}>, style="{st.style}", '
                   f'fillcolor="{st.fill}", color="{st.stroke}", fontsize="11", labeljust="l", '
                   f"tooltip={quote(child.tooltip or child.computation.name)}];")
        _emit_scope(child, children, members, out, inner)
        out.append(f"{indent}}}")
    out.extend(indent + _node(n) for n in members.get(cluster, []))


def _node(node: Node) -> str:
    st = node.style or S.WHITE
    label = _note_label(node.label) if node.kind is NodeKind.NOTE else node.label
    attrs = {
        "label": f"<{label}>",
        "shape": node.shape,
        "style": quote(st.style),
        "fillcolor": quote(st.fill),
        "color": quote(st.stroke),
        "fontcolor": quote(st.font),
        "tooltip": quote(node.tooltip or " "),
    }
    if st.penwidth != 1.0:
        attrs["penwidth"] = str(st.penwidth)
    if node.kind is NodeKind.ROOT:
        attrs["fontsize"] = "9"
    return f"{node.id} [{_attrs(attrs)}];"


def _note_label(text: str) -> str:
    lines = textwrap.wrap(text, NOTE_WIDTH)
    return "<br/>".join(esc(line) for line in lines) + '<br align="left"/>'


def _edge(edge: Edge) -> str:
    attrs: dict[str, str] = {"arrowhead": "empty" if edge.small else "normal"}
    src, dst = edge.src, edge.dst
    names = [n.instruction.name if n.instruction is not None else n.label for n in (src, dst)]
    attrs["tooltip"] = quote(f"{names[0]} -> {names[1]}")
    if edge.kind is EdgeKind.CONTROL:
        attrs.update(style='"dotted"', color='"gray"', label='"ctrl"')
    elif edge.operand is not None:
        attrs.update(headlabel=quote(str(edge.operand)), labeldistance='"1.6"')
    if edge.dashed:
        attrs["style"] = '"dashed"'
    if edge.ltail is not None:
        attrs["ltail"] = quote(edge.ltail.id)
    if edge.colour:
        attrs.update(color=quote(edge.colour), penwidth='"1.6"')
    return f"{src.id} -> {dst.id} [{_attrs(attrs)}];"


def output_format(path: str | Path) -> str:
    """`svg`, `png` or `dot`, from the file suffix (ValueError for anything else)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"cannot tell the output format from {str(path)!r}: "
                         "use a name ending in .svg, .png or .dot")
    return FORMATS[suffix]


def render(dot: str, fmt: str) -> bytes:
    """Lay out and draw DOT text with Graphviz's `dot` (DOT passes straight through)."""
    if fmt == "dot":
        return dot.encode()
    import subprocess

    import graphviz

    try:
        return graphviz.Source(dot, engine="dot").pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise GraphvizMissing(
            f"writing .{fmt} needs Graphviz's `dot` program, which is not on PATH; install "
            "Graphviz (apt-get install graphviz, brew install graphviz) or write DOT text "
            "with -o OUT.dot") from None
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()
        raise RenderError("dot failed: " + (detail[-1] if detail else str(exc))) from None


def write(graph: Graph, path: str | Path) -> str:
    """Write the drawing to `path` in the format its suffix names; returns the format."""
    fmt = output_format(path)
    data = render(to_dot(graph), fmt)
    atomic_write(path, data)
    return fmt
