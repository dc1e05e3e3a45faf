"""The visual language of `hlotool graph`, as data.

Colours follow XLA's `hlo_graph_dumper` (Material colours): one `Style` per opcode
`Category`, a short table of opcodes where XLA's palette disagrees with the category,
and the context rules XLA applies on top (scalars and fused data movement fade to
white, parameters are orange by size). Diff colours are a second palette.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hlotool.ir import Category, Instruction, Opcode, Shape


@dataclass(frozen=True, slots=True)
class Style:
    """How one node is painted."""

    fill: str
    stroke: str
    font: str = "black"
    #: Graphviz `style` (`filled`, `filled,dashed`, ...).
    style: str = "filled"
    penwidth: float = 1.0


# -- the palette (fill, stroke, text) ----------------------------------------------------
BLUE = Style("#bbdefb", "#8aacc8")
BROWN = Style("#bcaaa4", "#8c7b75")
DARK_BLUE = Style("#1565c0", "#003c8f", "white")
DARK_GREEN = Style("#2e7d32", "#005005", "white")
DARK_ORANGE = Style("#ffb74d", "#c88719")
DARK_RED = Style("#b71c1c", "#7f0000", "white", penwidth=2.0)
GRAY = Style("#cfd8dc", "#9ea7aa")
GREEN = Style("#c8e6c9", "#97b498")
ORANGE = Style("#ffe0b2", "#cbae82")
PURPLE = Style("#e1bee7", "#af8eb5")
RED = Style("#ffcdd2", "#cb9ca1")
WHITE = Style("white", "black")
YELLOW = Style("#fff9c4", "#cbc693")
#: Nodes with some operands or users left out of the picture.
DASHED = Style("white", "#757575", "#757575", "filled,dashed")
#: The `--max-nodes` note.
NOTE = Style("#fffde7", "#f9a825", "#5d4037", "filled")

#: Node colour by opcode category.
CATEGORY_STYLES: dict[Category, Style] = {
    Category.ELEMENTWISE: YELLOW,
    Category.CONVERSION: YELLOW,
    Category.LEAF: YELLOW,
    Category.DATA_MOVEMENT: GREEN,
    Category.REDUCTION: PURPLE,
    Category.CONTRACTION: DARK_BLUE,
    Category.LINALG: DARK_BLUE,
    Category.TUPLE: WHITE,
    Category.CONTROL: DARK_GREEN,
    Category.CUSTOM: DARK_GREEN,
    Category.ASYNC: GRAY,
    Category.COMMUNICATION: BROWN,
    Category.COLLECTIVE: BROWN,
}

#: Where XLA's palette departs from the opcode table's categories.
OPCODE_STYLES: dict[Opcode, Style] = {
    # Essentially free: they move no data.
    **dict.fromkeys(
        (Opcode.BITCAST, Opcode.CONSTANT, Opcode.AFTER_ALL, Opcode.ADD_DEPENDENCY,
         Opcode.OPT_BARRIER), WHITE),
    # Structural: drawn grey so the expensive ops stand out.
    **dict.fromkeys(
        (Opcode.FUSION, Opcode.MAP, Opcode.DOMAIN, Opcode.GET_DIMENSION_SIZE,
         Opcode.SET_DIMENSION_SIZE), GRAY),
    # Scatter and batch-norm are reductions in XLA's eyes.
    **dict.fromkeys(
        (Opcode.SCATTER, Opcode.BATCH_NORM_TRAINING, Opcode.BATCH_NORM_INFERENCE,
         Opcode.BATCH_NORM_GRAD), PURPLE),
    **dict.fromkeys((Opcode.SORT, Opcode.SLICE), YELLOW),
    **dict.fromkeys((Opcode.PARTITION_ID, Opcode.REPLICA_ID), BROWN),
    **dict.fromkeys((Opcode.COPY_START, Opcode.COPY_DONE), GREEN),
    Opcode.REDUCE_PRECISION: RED,
}  # fmt: skip

#: Data-movement ops that stay coloured inside fusions (they are not free there).
COSTLY_WHEN_FUSED = frozenset({Opcode.COPY, Opcode.DYNAMIC_UPDATE_SLICE, Opcode.COPY_START,
                               Opcode.COPY_DONE})
#: Async wrappers take the colour of the instruction they wrap.
ASYNC_WRAPPERS = frozenset({Opcode.ASYNC_START, Opcode.ASYNC_UPDATE, Opcode.ASYNC_DONE})

#: Below this many elements an array is "small" (light orange, hollow arrowheads).
SMALL_ELEMENTS = 4096

#: Node shape by opcode (everything else is a box).
OPCODE_SHAPES: dict[Opcode, str] = {Opcode.WHILE: "ellipse"}

#: Graph-wide attributes.
FONT = "Helvetica,Arial,sans-serif"
GRAPH_ATTRS: dict[str, str] = {
    "rankdir": "TB", "compound": "true", "labelloc": "t", "fontname": FONT,
    "fontsize": "14", "nodesep": "0.25", "ranksep": "0.35", "tooltip": " ",
}  # fmt: skip
NODE_ATTRS: dict[str, str] = {"shape": "rect", "fontname": FONT, "fontsize": "11",
                              "margin": "0.08,0.04", "height": "0.3"}
EDGE_ATTRS: dict[str, str] = {"fontname": FONT, "fontsize": "9", "color": "#546e7a",
                              "arrowsize": "0.7", "fontcolor": "#455a64"}


@dataclass(frozen=True, slots=True)
class ClusterStyle:
    """How a computation cluster is painted."""

    fill: str
    stroke: str
    style: str = "rounded,filled,bold"


FUSION_CLUSTER = ClusterStyle("#f5f5f5", "#c2c2c2")
FOCUS_FUSION_CLUSTER = ClusterStyle("#ffcdd2", "#b71c1c")
SUBCOMPUTATION_CLUSTER = ClusterStyle("white", "black", "rounded")


class DiffStatus(enum.Enum):
    """What happened to a node between two modules."""

    UNCHANGED = "unchanged"
    ADDED = "added"
    REMOVED = "removed"
    FUSED_INTO = "fused into"
    CHANGED = "changed"


#: Diff colours: changes are saturated, unchanged nodes fade back.
DIFF_STYLES: dict[DiffStatus, Style] = {
    DiffStatus.UNCHANGED: Style("white", "#9e9e9e", "#424242"),
    DiffStatus.ADDED: Style("#a5d6a7", "#1b5e20", penwidth=2.0),
    DiffStatus.REMOVED: Style("#ef9a9a", "#b71c1c", style="filled,dashed", penwidth=2.0),
    DiffStatus.FUSED_INTO: Style("#bbdefb", "#0d47a1", penwidth=2.5),
    DiffStatus.CHANGED: Style("#ffe0b2", "#e65100", penwidth=2.0),
}
#: Edge colours of a diff: edges touching added or removed nodes take their colour.
DIFF_EDGE_COLOURS: dict[DiffStatus, str] = {
    DiffStatus.ADDED: "#2e7d32",
    DiffStatus.REMOVED: "#c62828",
}
#: A fusion that took in instructions that were outside fusions before.
DIFF_FUSION_CLUSTER = ClusterStyle("#e3f2fd", "#1565c0")
#: The box that gathers the removed instructions of a diff.
DIFF_REMOVED_CLUSTER = ClusterStyle("#fff5f5", "#c62828", "dashed,filled")


def is_effective_scalar(shape: Shape) -> bool:
    """An array with exactly one element (`f32[]`, `f32[1,1]`)."""
    return shape.is_array and all(d == 1 for d in shape.dimensions)


def is_small(shape: Shape) -> bool:
    """Fewer than SMALL_ELEMENTS elements in all leaves; tokens count as small."""
    return sum(s.element_count for s in shape.leaves() if s.is_array) < SMALL_ELEMENTS


def instruction_style(ins: Instruction, fused: bool) -> Style:
    """The colour of an instruction's node; `fused` when it is drawn inside a fusion."""
    op = ins.opcode
    wrapped = _async_wrapped(ins)
    if wrapped is not None:
        return instruction_style(wrapped, fused)
    if op is Opcode.PARAMETER:
        return ORANGE if is_small(ins.shape) else DARK_ORANGE
    base = OPCODE_STYLES.get(op) or CATEGORY_STYLES[ins.spec.category]
    if base is YELLOW and is_effective_scalar(ins.shape):
        # De-emphasise scalar elementwise ops: they are generally uninteresting.
        return WHITE
    if base is GREEN and op not in COSTLY_WHEN_FUSED:
        return WHITE if _free_data_movement(ins, fused) else GREEN
    if op is Opcode.DYNAMIC_UPDATE_SLICE and is_effective_scalar(ins.shape):
        return WHITE
    return base


def _async_wrapped(ins: Instruction) -> Instruction | None:
    """The root of the computation an async-start/update/done wraps, if known."""
    if ins.opcode not in ASYNC_WRAPPERS:
        return None
    called = ins.called_computations
    if not called and ins.operand_count and ins.operand(0).opcode in ASYNC_WRAPPERS:
        return _async_wrapped(ins.operand(0))
    root = called[0].root if called else None
    return root if root is not None and root.opcode not in ASYNC_WRAPPERS else None


def _free_data_movement(ins: Instruction, fused: bool) -> bool:
    """Scalar data movement, and data movement inside fusions, costs nothing."""
    if ins.opcode is Opcode.BROADCAST:
        return fused and is_effective_scalar(ins.operand(0).shape)
    return fused or is_effective_scalar(ins.shape)


def node_shape(ins: Instruction) -> str:
    """Graphviz shape of an instruction's node (while loops are ellipses)."""
    return OPCODE_SHAPES.get(ins.opcode, "rect")
