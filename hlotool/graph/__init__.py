"""Drawing HLO modules with Graphviz: XLA's visual language (colours by opcode category,
fusions as clusters, constants inlined, get-tuple-elements merged), neighbourhoods,
elision of big graphs, and diffs between two modules.

    graph = draw(module, GraphOptions(collapse_fusions=True))
    write(graph, "out.svg")
"""

from __future__ import annotations

from hlotool.graph.builder import (
    Builder,
    GraphError,
    GraphOptions,
    focus_nodes,
    pick_computation,
    require_instruction,
)
from hlotool.graph.diff import build_diff
from hlotool.graph.labels import decorate
from hlotool.graph.model import Cluster, Edge, EdgeKind, Graph, Node, NodeKind
from hlotool.graph.render import GraphvizMissing, RenderError, output_format, render, to_dot, write
from hlotool.graph.select import elide, neighborhood
from hlotool.graph.style import DiffStatus
from hlotool.ir import Module

__all__ = [
    "Cluster",
    "DiffStatus",
    "Edge",
    "EdgeKind",
    "Graph",
    "GraphError",
    "GraphOptions",
    "GraphvizMissing",
    "Node",
    "NodeKind",
    "RenderError",
    "draw",
    "draw_diff",
    "output_format",
    "render",
    "to_dot",
    "write",
]


def draw(module: Module, options: GraphOptions | None = None) -> Graph:
    """The finished drawing of one computation (the entry unless options say otherwise)."""
    options = options or GraphOptions()
    focus = require_instruction(module, options.neighborhood) if options.neighborhood else None
    top = pick_computation(module, options.computation, focus)
    title = f"{module.name} · {top.name}"
    builder = Builder(top, options.collapse_fusions, title=title)
    graph = builder.build()
    if focus is None and not options.collapse_fusions and 0 < options.max_nodes < len(
            graph.instruction_nodes()):
        # Too big to draw whole: one node per fusion shows more of the module.
        collapsed = Builder(top, True, title=f"{title} (fusions collapsed)").build()
        if len(collapsed.instruction_nodes()) < len(graph.instruction_nodes()):
            graph = collapsed
    if focus is not None:
        seeds = focus_nodes(builder, focus)
        if not seeds:
            raise GraphError(f"{focus.name} is not drawn in computation {top.name}")
        neighborhood(graph, seeds, options.radius, focus.name)
    elide(graph, options.max_nodes)
    decorate(graph)
    return graph


def draw_diff(before: Module, after: Module, options: GraphOptions | None = None,
              names: tuple[str, str] | None = None) -> Graph:
    """`after` drawn with its fusions as clusters, coloured by what changed since
    `before` (see `hlotool.graph.diff`); `names` label the two sides in the title."""
    return build_diff(before, after, options or GraphOptions(), names)
