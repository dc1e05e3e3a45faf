"""The debugger app: loads nothing itself; it is given a parsed module and a pipeline,
and shows the step screen. `COMMANDS` adds every registered pass to the command
palette, so any pass can be applied at any state (a new branch after an undo)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from hlotool.tui.screens.step import StepScreen
from hlotool.tui.session import Session

if TYPE_CHECKING:
    from hlotool.ir.module import Module
    from hlotool.passes.base import Pass
    from hlotool.passes.pipeline import Pipeline


@dataclass
class DebugOptions:
    """What `hlotool debug` was asked for."""

    #: Shown in the step list's title.
    source_name: str = "module"
    #: Where `e`, `E`, `g`, `G` and `b` write files.
    export_dir: Path = field(default_factory=Path.cwd)
    rtol: float | None = None
    atol: float | None = None
    seed: int = 0
    #: Run the numeric check after every step.
    check_each: bool = False
    #: Show pass times (snapshot tests turn them off: times vary).
    show_times: bool = True
    #: `q` ends the process as soon as the terminal is restored (the command line sets
    #: it): Textual's orderly shutdown unmounts every widget and waits on busy workers,
    #: which takes seconds after a long session on a big module.
    exit_process: bool = False


class PassCommands(Provider):
    """Command palette entries: apply any registered pass to the head."""

    def _passes(self) -> list[tuple[str, str]]:
        from hlotool.passes.registry import all_passes

        return [(name, cls.summary) for name, cls in all_passes().items()]

    async def discover(self) -> Hits:
        for name, summary in self._passes():
            yield DiscoveryHit(f"apply pass: {name}", partial(self._apply, name), help=summary)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, summary in self._passes():
            text = f"apply pass: {name}"
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self._apply, name), help=summary)

    def _apply(self, name: str) -> None:
        app = self.app
        if isinstance(app, DebuggerApp):
            app.apply_pass_by_name(name)


class DebuggerApp(App[None]):
    """`hlotool debug`: step through a pass pipeline."""

    CSS_PATH = "hlotool.tcss"
    TITLE = "hlotool debug"
    COMMANDS = App.COMMANDS | {PassCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave the debugger"),
        Binding("question_mark", "help", "Help", id="app.help", tooltip="Show every key"),
    ]

    def __init__(self, module: Module, pipeline: Pipeline, options: DebugOptions | None = None,
                 reference: Module | None = None) -> None:
        """`reference`: XLA's after-optimizations module, the step list's last entry."""
        super().__init__()
        self.options = options or DebugOptions()
        self.pipeline = pipeline
        self.session = Session(module, rtol=self.options.rtol, atol=self.options.atol,
                               seed=self.options.seed, reference=reference,
                               settle=self.options.exit_process)

    def on_mount(self) -> None:
        self.push_screen(StepScreen())

    async def action_quit(self) -> None:
        """Leave; with `exit_process`, at once (workers cancelled, terminal restored)."""
        driver = self._driver
        if self.options.exit_process and driver is not None and not self.is_headless:
            from hlotool.interrupt import exit_now

            self.workers.cancel_all()
            driver.stop_application_mode()
            driver.close()
            exit_now(0)
        self.exit()

    def action_help(self) -> None:
        """Show the help screen."""
        from hlotool.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def apply_pass_by_name(self, name: str) -> None:
        """Apply a registered pass (from the command palette) to the head."""
        from hlotool.passes.registry import make_pass

        self.apply_pass(make_pass(name))

    def apply_pass(self, p: Pass) -> None:
        """Apply `p` to the head, in a worker."""
        screen = self.step_screen()
        if screen is not None:
            screen.apply_pass(p)

    def step_screen(self) -> StepScreen | None:
        """The step screen, wherever it is on the stack."""
        for screen in self.screen_stack:
            if isinstance(screen, StepScreen):
                return screen
        return None
