"""The step list: the input, the passes applied on the way to the head, then the passes
the plan has not applied yet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.events import Resize
from textual.message import Message
from textual.widgets import DataTable

from hlotool.ir.opcodes import Category
from hlotool.tui.session import Node

if TYPE_CHECKING:
    from hlotool.passes.base import Pass

#: Short names of opcode categories for the Δ column.
CATEGORY_ABBREVIATIONS: dict[Category, str] = {
    Category.ELEMENTWISE: "ew", Category.CONVERSION: "cv", Category.LEAF: "lf",
    Category.DATA_MOVEMENT: "dm", Category.REDUCTION: "rd", Category.CONTRACTION: "dot",
    Category.LINALG: "la", Category.TUPLE: "tp", Category.CONTROL: "ctl",
    Category.CUSTOM: "cc", Category.ASYNC: "as", Category.COMMUNICATION: "com",
    Category.COLLECTIVE: "col",
}


#: The Δ column's width: what `fit_delta` keeps.
DELTA_WIDTH = 14


def fit_delta(delta: dict[Category, int], width: int = DELTA_WIDTH) -> str:
    """The biggest changes by category that fit the Δ column (the details show more)."""
    text = ""
    for limit in (3, 2, 1):
        text = format_delta(delta, limit)
        if len(text) <= width:
            return text
    return text[:width]


def format_delta(delta: dict[Category, int], limit: int = 3) -> str:
    """`ew-3 ctl+1`: the biggest changes by category."""
    items = sorted(delta.items(), key=lambda kv: -abs(kv[1]))[:limit]
    return " ".join(f"{CATEGORY_ABBREVIATIONS.get(k, k.value)}{v:+d}" for k, v in items)


def middle_truncate(text: str, width: int) -> str:
    """`text` cut to `width` characters by an ellipsis in the middle (both ends of a pass
    spec, its name and its last option, stay readable)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    name, brace, options = text.partition("{")
    if name and brace and len(name) + 4 <= width:  # keep the pass name, cut its options
        return name + middle_truncate(brace + options, width - len(name))
    head = width // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def numeric_mark(node: Node) -> Text:
    """✓ / ✗ for a numeric check, ! for a verifier failure, blank when unchecked."""
    if node.verify_error:
        return Text("!", style="bold red")
    if node.numeric is None:
        return Text("")
    return Text("✓", style="green") if node.numeric.ok else Text("✗", style="bold red")


class StepList(DataTable[Text | str]):
    """Numbered steps with changed marks, time, Δ by category and numeric status."""

    @dataclass
    class StepHighlighted(Message):
        """The cursor is on a step: `node` when applied, else the pending `index`."""

        node: Node | None
        pending_index: int

    def __init__(self, *, id: str | None = None, show_times: bool = True) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.show_times = show_times
        self.hide_unchanged = False
        self.filter_text = ""
        self.bad_spec = ""
        self._node_of_key: dict[str, Node] = {}
        self._pending_of: dict[str, int] = {}
        #: The full spec of every row (names are cut to fit; the tooltip has it whole).
        self._spec_of: dict[str, str] = {}
        self._last_width = 0
        self._number_width = 1
        self._delta_used = 1

    #: Column headers: depth, changed mark, pass, time, numerics, Δ by category.
    COLUMNS = ("#", "", "pass", "ms", "✓", "Δ")
    #: Below this width the ms column goes and Δ shows one category.
    NARROW = 56
    #: The narrowest the pass name gets.
    MIN_NAME = 8

    def narrow(self) -> bool:
        """Whether the list is too narrow for the time column."""
        return 0 < self.size.width < self.NARROW

    def shown_columns(self) -> tuple[str, ...]:
        """The columns shown at the current width."""
        return tuple(c for c in self.COLUMNS if not (c == "ms" and self.narrow()))

    def delta_width(self) -> int:
        """The Δ column's width at the current width."""
        return 7 if self.narrow() else DELTA_WIDTH

    def name_width(self) -> int:
        """How many characters of a pass spec fit so that ✓ and Δ stay on screen:
        the width less every other column, their padding and the scroll bar."""
        width = self.size.width or 60
        others = self._number_width + 1 + 1 + self._delta_used + (0 if self.narrow() else 6)
        padding = 2 * len(self.shown_columns())
        return max(self.MIN_NAME, width - others - padding - 2)

    def show(self, path: Sequence[Node], pending: Sequence[Pass], head: Node,
             select: Node | None = None, reference: Node | None = None) -> None:
        """Rebuild the rows, with `reference` (XLA's module) last; put the cursor on
        `select` (else keep it where it was)."""
        keep = self._row_key_at_cursor()
        self.clear(columns=True)
        self._node_of_key.clear()
        self._pending_of.clear()
        self._spec_of.clear()
        self._last_width = self.size.width
        self._number_width = len(str(len(path) + len(pending)))
        deltas = [fit_delta(n.delta(), self.delta_width()) for n in path]
        self._delta_used = max([1, *map(len, deltas)])
        rows: list[tuple[tuple[Text | str, ...], str]] = []
        for node in path:
            if self._visible(node.spec, node.changed or node.parent is None or node is head):
                rows.append(self._node_row(node, head))
        for i, p in enumerate(pending):
            if self._visible(p.spec, not self.hide_unchanged):
                key = f"p{i}"
                self._pending_of[key] = i
                self._spec_of[key] = p.spec
                rows.append((self._cells(str(len(path) + i), Text("·", style="dim"),
                                         Text(middle_truncate(p.spec, self.name_width()),
                                              style="dim"), "", "", ""), key))
        if reference is not None and self._visible(reference.spec, True):
            rows.append(self._node_row(reference, head))
        self._add_sized_columns([cells for cells, _ in rows])
        for cells, key in rows:
            self.add_row(*cells, key=key)
        target = f"n{select.serial}" if select is not None else keep
        self._move_to_key(target)

    def _add_sized_columns(self, rows: Sequence[Sequence[Text | str]]) -> None:
        """The columns, each as wide as its widest cell: sized here rather than when
        the table is next idle, so no frame shows them at their headers' widths."""
        for i, label in enumerate(self.shown_columns()):
            cells = [Text(label), *(row[i] for row in rows)]
            width = max(Text(c).cell_len if isinstance(c, str) else c.cell_len for c in cells)
            self.add_column(label, width=width)

    def _visible(self, spec: str, changed: bool) -> bool:
        if self.hide_unchanged and not changed:
            return False
        return self.filter_text.lower() in spec.lower()

    def _node_row(self, node: Node, head: Node) -> tuple[tuple[Text | str, ...], str]:
        """An applied step's cells and row key."""
        key = f"n{node.serial}"
        self._node_of_key[key] = node
        mark = Text("●", style="yellow") if node.changed else Text("○", style="dim")
        if node.parent is None:
            mark = Text("◆", style="cyan")
        if node.label:
            mark = Text("◇", style="magenta")
        marks = (2 if len(node.children) > 1 else 0) + (2 if node is head else 0)
        self._spec_of[key] = node.spec
        name = Text(middle_truncate(node.spec, self.name_width() - marks),
                    style="bold" if node is head else "")
        if node.spec == self.bad_spec and node.parent is not None:
            name.stylize("red")
        if len(node.children) > 1:
            name.append(f" ⑂{len(node.children)}", style="magenta")
        if node is head:
            name.append(" ◀", style="bold cyan")
        ms = f"{node.seconds * 1e3:.1f}" if self.show_times and node.result is not None else ""
        number = "xla" if node.label else str(node.depth)
        return self._cells(number, mark, name, ms, numeric_mark(node),
                           fit_delta(node.delta(), self.delta_width())), key

    def _cells(self, *cells: Text | str) -> tuple[Text | str, ...]:
        """A row's cells for the columns shown (no ms when narrow)."""
        return tuple(c for c, name in zip(cells, self.COLUMNS, strict=True)
                     if name in self.shown_columns())

    def _row_key_at_cursor(self) -> str | None:
        if not self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:
            return None

    def _move_to_key(self, key: str | None) -> None:
        if key is None or not self.row_count:
            return
        try:
            row = self.get_row_index(key)
        except Exception:
            return
        self.move_cursor(row=row, animate=False)

    def node_at_cursor(self) -> Node | None:
        """The applied step under the cursor."""
        key = self._row_key_at_cursor()
        return self._node_of_key.get(key) if key else None

    def spec_at_cursor(self) -> str:
        """The full pass spec of the row under the cursor ("" when none)."""
        key = self._row_key_at_cursor()
        return self._spec_of.get(key, "") if key else ""

    @dataclass
    class WidthChanged(Message):
        """The list got wider or narrower: pass names must be cut again."""

    def on_resize(self, event: Resize) -> None:
        if event.size.width != self._last_width:
            self.post_message(self.WidthChanged())

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        key = event.row_key.value or ""
        self.tooltip = self._spec_of.get(key) or None
        self.post_message(self.StepHighlighted(self._node_of_key.get(key),
                                               self._pending_of.get(key, -1)))
