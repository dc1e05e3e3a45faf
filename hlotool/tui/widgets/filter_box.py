"""The step list's filter box: focusable only after `f`, so that Tab never lands in it
and turns the next key into a filter."""

from __future__ import annotations

from textual.events import Blur
from textual.widgets import Input


class FilterBox(Input):
    """An input that takes the focus only when asked to (`open`)."""

    can_focus = False

    def open(self) -> None:
        """Take the focus to type a filter."""
        self.can_focus = True
        self.app.set_focus(self)  # now, not later: the next keys typed go to the box

    def on_blur(self, event: Blur) -> None:
        """Leave the focus chain again (Tab skips the box)."""
        self.can_focus = False
