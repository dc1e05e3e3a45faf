"""A scrolling view of many lines of rich text, drawn with Textual's Line API.

Only the visible lines are rendered, and rendered strips are kept in an LRU cache
(toolong's LogLines), so a 15k-instruction module scrolls as fast as a small one.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

#: Rendered strips kept per view.
CACHE_SIZE = 2048


class LineView(ScrollView, can_focus=True):
    """Lines of text with a line cursor."""

    COMPONENT_CLASSES = {"line-view--cursor"}
    DEFAULT_CSS = """
    LineView { background: $surface; }
    LineView > .line-view--cursor { background: $primary 30%; }
    """
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="line.up", tooltip="Line up"),
        Binding("down", "cursor(1)", "Down", show=False, id="line.down", tooltip="Line down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="line.pageup",
                tooltip="Page up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="line.pagedown",
                tooltip="Page down"),
        Binding("home", "jump(0)", "Top", show=False, id="line.home", tooltip="First line"),
        Binding("end", "jump(-1)", "Bottom", show=False, id="line.end", tooltip="Last line"),
    ]

    cursor: reactive[int] = reactive(0)

    @dataclass
    class CursorMoved(Message):
        """The cursor moved to `line`."""

        view: LineView
        line: int

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._lines: list[Text] = []
        self._cache: LRUCache[tuple[int, int, int, bool], Strip] = LRUCache(CACHE_SIZE)

    @property
    def line_count(self) -> int:
        """How many lines the view holds."""
        return len(self._lines)

    def set_lines(self, lines: list[Text], cursor: int | None = None) -> None:
        """Replace the text (keeping the cursor where possible)."""
        self._lines = lines
        self._cache.clear()
        width = max((line.cell_len for line in lines), default=0)
        self.virtual_size = Size(width + 2, len(lines))
        self.set_reactive(LineView.cursor, max(0, min(self.cursor if cursor is None else cursor,
                                                      len(lines) - 1)))
        self._scroll_cursor_into_view()
        self.refresh()

    def line_text(self, index: int) -> str:
        """The plain text of one line ("" past the end)."""
        return self._lines[index].plain if 0 <= index < len(self._lines) else ""

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = y + scroll_y
        width = self.size.width
        if index >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        key = (index, scroll_x, width, index == self.cursor)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_text(index, scroll_x, width)
            self._cache[key] = strip
        return strip

    def _render_text(self, index: int, scroll_x: int, width: int) -> Strip:
        text = self.decorate(index, self._lines[index])
        segments = [s for s in text.render(self.app.console) if s.text != "\n"]
        strip = Strip(segments).crop(scroll_x, scroll_x + width).extend_cell_length(width)
        strip = strip.apply_style(self.rich_style)
        if index == self.cursor:
            style = self.get_component_rich_style("line-view--cursor")
            strip = Strip(Segment.apply_style(strip, post_style=style))
        return strip

    def decorate(self, index: int, text: Text) -> Text:
        """A hook for subclasses to mark up a line before it is drawn."""
        return text

    def watch_cursor(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self.refresh()
        self.post_message(self.CursorMoved(self, new))

    def invalidate(self) -> None:
        """Forget rendered strips (after a change in decoration)."""
        self._cache.clear()
        self.refresh()

    def _scroll_cursor_into_view(self) -> None:
        height = max(1, self.scrollable_content_region.height)
        top = round(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def move_to(self, line: int) -> None:
        """Put the cursor on `line` (clamped)."""
        if self._lines:
            self.cursor = max(0, min(line, len(self._lines) - 1))

    def action_cursor(self, delta: int) -> None:
        """Move the cursor by `delta` lines."""
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        """Move the cursor by a page."""
        self.move_to(self.cursor + direction * max(1, self.size.height - 1))

    def action_jump(self, line: int) -> None:
        """Move to the first (0) or last (-1) line."""
        self.move_to(line if line >= 0 else len(self._lines) - 1)

    def on_click(self, event: object) -> None:
        y = getattr(event, "y", None)
        if isinstance(y, int):
            self.move_to(y + round(self.scroll_offset.y))
            self.focus()
