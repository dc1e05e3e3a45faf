"""The neighbourhood of the selected instruction, drawn in the terminal."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class GraphView(VerticalScroll):
    """Operands above, the instruction in a double box, users below."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[Text] = []

    def plain(self) -> str:
        """The drawing as plain text."""
        return "\n".join(line.plain for line in self.lines)

    def compose(self) -> ComposeResult:
        yield Static(Text("drawing the ROOT's neighbourhood…", style="dim"), id="graph-body")

    def show_lines(self, lines: list[Text]) -> None:
        """Show pre-rendered lines."""
        self.lines = lines
        self.query_one("#graph-body", Static).update(Group(*lines))
