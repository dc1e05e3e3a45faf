"""`hlotool view` and `graph -o g.html`: one self-contained interactive page of a module.

Python lays every computation out ahead (layers by longest path from the parameters,
order within a layer by the operands' positions), and embeds the module as JSON; the
page's own JS (page.js, no network) places the boxes of the levels the user expanded,
draws only what is in view, and handles pan/zoom, search, expand/collapse of fusions,
calls and loop bodies, selection with operands and users, and the side panel (cost and
bytes per op, diff status with --diff-from).
"""

from __future__ import annotations

import json
from html import escape
from importlib import resources
from typing import Any

from hlotool.ir import Computation, Instruction, Module

#: How much of an instruction's printed text the hover and the panel show.
TEXT_LIMIT = 600


def build_page(module: Module, *, diff_from: Module | None = None, title: str = "") -> str:
    """The page's HTML (scripts and styles inline)."""
    model = page_model(module, diff_from)
    data = json.dumps(model, separators=(",", ":")).replace("</", "<\\/")
    asset = resources.files("hlotool.graph")
    script = (asset / "page.js").read_text()
    style = (asset / "page.css").read_text()
    name = escape(title or module.name)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<title>{name} · hlotool view</title>\n<style>\n{style}</style></head>\n"
            f"<body>\n<script id=\"model\" type=\"application/json\">{data}</script>\n"
            f"<script>\n{script}</script>\n</body></html>\n")


def page_model(module: Module, diff_from: Module | None = None) -> dict[str, Any]:
    """The module as the page reads it: computations with laid-out nodes."""
    from hlotool.analysis.cost import instruction_cost

    diff = _diff_statuses(diff_from, module) if diff_from is not None else {}
    comps = {}
    for comp in module.computations:
        comps[comp.name] = _computation(comp, instruction_cost, diff)
    counts: dict[str, int] = {}
    for status in diff.values():
        counts[status[0]] = counts.get(status[0], 0) + 1
    return {"module": module.name, "entry": module.entry.name, "computations": comps,
            "instructions": module.instruction_count, "diff": counts if diff_from else None,
            "diffFrom": diff_from.name if diff_from is not None else ""}


def _computation(comp: Computation, cost: Any, diff: dict[int, tuple[str, str]]
                 ) -> dict[str, Any]:
    from hlotool.graph.style import instruction_style
    from hlotool.ir.types import shape_to_text
    from hlotool.ir.printer import print_instruction

    order = comp.post_order()
    index = {id(ins): i for i, ins in enumerate(order)}
    layers, positions = layout(order, index)
    nodes = []
    for i, ins in enumerate(order):
        c = cost(ins)
        st = instruction_style(ins, comp.is_fusion_computation)
        text = print_instruction(ins)
        node: dict[str, Any] = {
            "n": ins.name, "o": ins.opcode.value, "s": shape_to_text(ins.shape)[:120],
            "t": text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + " …",
            "a": [index[id(o)] for o in ins.operands if id(o) in index],
            "L": layers[i], "P": positions[i], "fill": st.fill, "font": st.font,
            "f": c.flops + c.transcendentals, "b": c.bytes_accessed,
            "m": ins.shape.byte_size,
        }
        if ins.metadata is not None and ins.metadata.op_name:
            node["op"] = ins.metadata.op_name
        called = [sub.name for sub in ins.called_computations]
        if called:
            node["c"] = called
        if ins is comp.root:
            node["root"] = 1
        if id(ins) in diff:
            node["d"], node["dn"] = diff[id(ins)]
        nodes.append(node)
    return {"name": comp.name, "nodes": nodes, "fusion": comp.is_fusion_computation}


def layout(order: list[Instruction], index: dict[int, int]) -> tuple[list[int], list[int]]:
    """Layer (longest path from a source) and position within the layer of each
    instruction, ordered by the mean position of its operands (one sweep down)."""
    layers = [0] * len(order)
    for i, ins in enumerate(order):
        ops = [index[id(o)] for o in ins.operands if id(o) in index]
        layers[i] = 1 + max((layers[j] for j in ops), default=-1)
    by_layer: dict[int, list[int]] = {}
    for i, layer in enumerate(layers):
        by_layer.setdefault(layer, []).append(i)
    positions = [0] * len(order)
    for layer in sorted(by_layer):
        members = by_layer[layer]

        def key(i: int) -> float:
            ops = [positions[index[id(o)]] for o in order[i].operands if id(o) in index]
            return sum(ops) / len(ops) if ops else float(i)

        for p, i in enumerate(sorted(members, key=key)):
            positions[i] = p
    return layers, positions


def _diff_statuses(before: Module, after: Module) -> dict[int, tuple[str, str]]:
    """For every instruction of `after` (by id): its diff status and why."""
    from hlotool.graph.diff import match, status

    a_all = [i for c in before.computations for i in c.instructions]
    b_all = [i for c in after.computations for i in c.instructions]
    a_of = match(a_all, b_all)
    out = {}
    for b in b_all:
        st, note = status(b, a_of.get(b))
        out[id(b)] = (st.value, note)
    return out
