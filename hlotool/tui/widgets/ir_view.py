"""The module at one step, with go-to-definition, users and search."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message

from hlotool.tui.render import IRIndex, highlight
from hlotool.tui.widgets.line_view import LineView


class IRView(LineView):
    """Printed HLO. The cursor line's names (the defined value first, then operands)
    are its tokens; left/right pick one, `D` jumps to its definition, `U` cycles
    through the users of the line's value."""

    BINDINGS = [
        Binding("left", "token(-1)", "Prev name", show=False, id="ir.token_prev",
                tooltip="Select the previous name on the line"),
        Binding("right", "token(1)", "Next name", show=False, id="ir.token_next",
                tooltip="Select the next name on the line"),
        Binding("D", "definition", "Definition", id="ir.definition",
                tooltip="Go to the definition of the selected operand"),
        Binding("U", "users", "Users", id="ir.users",
                tooltip="Go to the next user of the value on this line"),
    ]

    @dataclass
    class ValueSelected(Message):
        """The instruction on the cursor line is `name` (None when there is none)."""

        name: str | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.index = IRIndex([])
        self.token = 0
        self._user_turn = 0

    def show(self, text: str, index: IRIndex, keep: str | None = None) -> None:
        """Show a module's text; keep the cursor on the value `keep` when it exists."""
        self.index = index
        self.token = 0
        lines = [highlight(line) for line in index.lines]
        target = index.definitions.get(keep) if keep else None
        self.set_lines(lines, cursor=target)

    def tokens(self) -> list[str]:
        """The names on the cursor line."""
        return self.index.tokens.get(self.cursor, [])

    def selected_name(self) -> str | None:
        """The selected token on the cursor line."""
        names = self.tokens()
        return names[min(self.token, len(names) - 1)] if names else None

    def watch_cursor(self, old: int, new: int) -> None:
        self.token = 0
        self._user_turn = 0
        super().watch_cursor(old, new)
        self.post_message(self.ValueSelected(self.index.defined_at(new)))

    def decorate(self, index: int, text: Text) -> Text:
        if index != self.cursor:
            return text
        name = self.selected_name()
        if not name:
            return text
        plain = text.plain
        start = _find_token(plain, name, first=self.token == 0)
        if start < 0:
            return text
        marked = text.copy()
        marked.stylize("reverse", start, start + len(name))
        return marked

    def action_token(self, delta: int) -> None:
        """Select another name on the cursor line."""
        names = self.tokens()
        if names:
            self.token = (self.token + delta) % len(names)
            self.invalidate()

    def action_definition(self) -> None:
        """Jump to where the selected name is defined."""
        name = self.selected_name()
        line = self.index.definitions.get(name) if name else None
        if line is None:
            self.notify("no definition for the name under the cursor", severity="warning")
            return
        self.move_to(line)

    def action_users(self) -> None:
        """Jump to the next user of the value defined on the cursor line."""
        name = self.index.defined_at(self.cursor)
        users = self.index.users.get(name, []) if name else []
        if not users:
            self.notify(f"{name or 'this line'} has no users", severity="warning")
            return
        turn = self._user_turn % len(users)
        self.move_to(users[turn])
        self._user_turn = turn + 1
        self.notify(f"user {turn + 1} of {len(users)} of {name}")

    def search(self, query: str, forward: bool = True) -> bool:
        """Move to the next line containing `query` (case-insensitive, wrapping)."""
        q = query.lower()
        n = self.line_count
        if not q or not n:
            return False
        step = 1 if forward else -1
        for k in range(1, n + 1):
            line = (self.cursor + step * k) % n
            if q in self.line_text(line).lower():
                self.move_to(line)
                return True
        return False


def _find_token(plain: str, name: str, first: bool) -> int:
    """Where `name` appears as a whole name: its definition, or the first operand use."""
    start = plain.find("=") if not first else 0
    while True:
        i = plain.find(name, max(start, 0))
        if i < 0:
            return -1
        before = plain[i - 1] if i else " "
        after = plain[i + len(name)] if i + len(name) < len(plain) else " "
        if not (before.isalnum() or before in "._-") and not (after.isalnum() or after in "._-"):
            return i
        start = i + 1
