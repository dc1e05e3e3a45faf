"""The step list: the input, the passes applied on the way to the head, then the passes
the plan has not applied yet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
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


def format_delta(delta: dict[Category, int], limit: int = 3) -> str:
    """`ew-3 ctl+1`: the biggest changes by category."""
    items = sorted(delta.items(), key=lambda kv: -abs(kv[1]))[:limit]
    return " ".join(f"{CATEGORY_ABBREVIATIONS.get(k, k.value)}{v:+d}" for k, v in items)


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

    #: Column headers: depth, changed mark, pass, time, numerics, Δ by category.
    COLUMNS = ("#", "", "pass", "ms", "✓", "Δ")

    def show(self, path: Sequence[Node], pending: Sequence[Pass], head: Node,
             select: Node | None = None) -> None:
        """Rebuild the rows; put the cursor on `select` (else keep it where it was)."""
        keep = self._row_key_at_cursor()
        self.clear(columns=True)
        self.add_columns(*self.COLUMNS)
        self._node_of_key.clear()
        self._pending_of.clear()
        for node in path:
            if self._visible(node.spec, node.changed or node.parent is None or node is head):
                self._add_node(node, head)
        for i, p in enumerate(pending):
            if self._visible(p.spec, not self.hide_unchanged):
                key = f"p{i}"
                self._pending_of[key] = i
                self.add_row(str(len(path) + i), Text("·", style="dim"),
                             Text(p.spec, style="dim"), "", "", "", key=key)
        target = f"n{select.serial}" if select is not None else keep
        self._move_to_key(target)

    def _visible(self, spec: str, changed: bool) -> bool:
        if self.hide_unchanged and not changed:
            return False
        return self.filter_text.lower() in spec.lower()

    def _add_node(self, node: Node, head: Node) -> None:
        key = f"n{node.serial}"
        self._node_of_key[key] = node
        mark = Text("●", style="yellow") if node.changed else Text("○", style="dim")
        if node.parent is None:
            mark = Text("◆", style="cyan")
        name = Text(node.spec, style="bold" if node is head else "")
        if node.spec == self.bad_spec and node.parent is not None:
            name.stylize("red")
        if len(node.children) > 1:
            name.append(f" ⑂{len(node.children)}", style="magenta")
        if node is head:
            name.append(" ◀", style="bold cyan")
        ms = f"{node.seconds * 1e3:.1f}" if self.show_times and node.parent is not None else ""
        self.add_row(str(node.depth), mark, name, ms, numeric_mark(node),
                     format_delta(node.delta()), key=key)

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

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        key = event.row_key.value or ""
        self.post_message(self.StepHighlighted(self._node_of_key.get(key),
                                               self._pending_of.get(key, -1)))
