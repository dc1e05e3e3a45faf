"""The help screen: every key of every part of the debugger, from the bindings."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

INTRO = (
    "Step through a pass pipeline. The left list holds the input (◆), the passes applied "
    "so far (● changed, ○ unchanged, ◀ the head) and the passes still to come (·). "
    "Undo keeps what you undid: redo brings it back, and applying another pass from the "
    "command palette (ctrl+p) starts a branch (⑂)."
)


def _key(binding: Binding) -> str:
    names = {"question_mark": "?", "slash": "/", "space": "space"}
    return names.get(binding.key, binding.key)


def binding_table() -> Table:
    """Every binding of the app, the step screen and the IR view."""
    from hlotool.tui.app import DebuggerApp
    from hlotool.tui.screens.step import StepScreen
    from hlotool.tui.widgets.ir_view import IRView

    table = Table(box=None, show_header=True, header_style="bold", expand=True)
    table.add_column("key", style="bold cyan", no_wrap=True)
    table.add_column("where", style="dim", no_wrap=True)
    table.add_column("what")
    groups = [("anywhere", DebuggerApp.BINDINGS), ("steps", StepScreen.BINDINGS),
              ("IR view", IRView.BINDINGS)]
    for where, bindings in groups:
        for b in bindings:
            if isinstance(b, Binding):
                table.add_row(_key(b), where, b.tooltip or b.description)
    table.add_row("ctrl+p", "anywhere", "Command palette: apply any pass to the head")
    return table


class HelpScreen(ModalScreen[None]):
    """Keys and what the marks mean."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help.close", tooltip="Close the help"),
        Binding("question_mark", "dismiss", "Close", show=False, id="help.close_key",
                tooltip="Close the help"),
        Binding("q", "dismiss", "Close", show=False, id="help.close_q",
                tooltip="Close the help"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Text(INTRO), id="help-intro")
            yield Static(binding_table(), id="help-keys")

    def on_mount(self) -> None:
        self.query_one("#help-box").border_title = "hlotool debug · help (esc closes)"
