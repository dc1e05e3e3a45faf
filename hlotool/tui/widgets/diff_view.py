"""The diff of one step against the step before it."""

from __future__ import annotations

from rich.text import Text

from hlotool.tui.render import DiffLine, render_side_by_side, render_unified
from hlotool.tui.widgets.line_view import LineView


class DiffView(LineView):
    """A unified or side-by-side diff, per computation, highlighted."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._unified: list[DiffLine] = []
        self._rows: list[tuple[DiffLine, DiffLine]] = []
        self._message = ""
        self.side_by_side = False

    def show_diff(self, unified: list[DiffLine], rows: list[tuple[DiffLine, DiffLine]],
                  message: str = "") -> None:
        """Show a diff (both layouts are kept so `d` switches without recomputing)."""
        self._unified, self._rows, self._message = unified, rows, message
        self._redraw(cursor=0)

    def show_message(self, message: str) -> None:
        """Show a line of text instead of a diff."""
        self.show_diff([], [], message)

    def toggle_layout(self) -> None:
        """Switch between unified and side by side."""
        self.side_by_side = not self.side_by_side
        self._redraw()

    def on_resize(self) -> None:
        if self.side_by_side:
            self._redraw()

    def _redraw(self, cursor: int | None = None) -> None:
        head = [Text(self._message, style="dim", end="")] if self._message else []
        if self.side_by_side:
            body = render_side_by_side(self._rows, self.scrollable_content_region.width)
        else:
            body = render_unified(self._unified)
        self.set_lines(head + body, cursor=cursor)
