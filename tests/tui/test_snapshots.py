"""Snapshot tests of the debugger's screens at fixed terminal sizes.

Regenerate with `pytest tests/tui/test_snapshots.py --snapshot-update` after a deliberate
change, and look at the report before committing the new SVGs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot

from .conftest import AppFactory, broken_pipeline, simple

Snap = Callable[..., bool]


def settle_after(*keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A run_before that waits for planning, presses keys one at a time, and waits for
    the workers each key starts."""

    async def run(pilot: Pilot[Any]) -> None:
        for key in ("", *keys):
            if key:
                await pilot.press(key)
            for _ in range(3):
                await pilot.pause()
                await pilot.app.workers.wait_for_complete()
        # Results the workers posted last may still resize columns: let the message
        # queue and the layout settle before the screenshot (a busy machine is slower).
        for _ in range(3):
            await pilot.pause(0.05)
            await pilot.app.workers.wait_for_complete()

    return run


class TestStepScreen:
    """The main screen."""

    def test_start(self, snap_compare: Snap, make_app: AppFactory) -> None:
        assert snap_compare(make_app(), terminal_size=(120, 40), run_before=settle_after())

    def test_unified_diff(self, snap_compare: Snap, make_app: AppFactory) -> None:
        assert snap_compare(make_app(), terminal_size=(120, 40),
                            run_before=settle_after("n", "n"))

    def test_side_by_side_diff(self, snap_compare: Snap, make_app: AppFactory) -> None:
        assert snap_compare(make_app(), terminal_size=(120, 40),
                            run_before=settle_after("n", "n", "d"))

    def test_hide_unchanged_after_undo(self, snap_compare: Snap, make_app: AppFactory) -> None:
        assert snap_compare(make_app(), terminal_size=(120, 40),
                            run_before=settle_after("n", "n", "n", "n", "u", "h"))

    def test_small_terminal(self, snap_compare: Snap, make_app: AppFactory) -> None:
        assert snap_compare(make_app(), terminal_size=(80, 24),
                            run_before=settle_after("n"))


class TestPanes:
    """The IR and graph tabs."""

    def test_ir(self, snap_compare: Snap, make_app: AppFactory) -> None:
        assert snap_compare(make_app(), terminal_size=(120, 40),
                            run_before=settle_after("n", "2", "down", "down", "down", "right"))

    def test_graph(self, snap_compare: Snap, make_app: AppFactory) -> None:
        keys = ("2", *["down"] * 7, "3")
        assert snap_compare(make_app(), terminal_size=(120, 40), run_before=settle_after(*keys))


class TestDebugging:
    """Numerics and bisect."""

    def test_bisect(self, snap_compare: Snap, make_app: AppFactory) -> None:
        app = make_app(module=simple(), pipeline=broken_pipeline())
        assert snap_compare(app, terminal_size=(120, 40),
                            run_before=settle_after("n", "n", "n", "n", "v", "b"))


class TestHelp:
    """The help screen."""

    def test_help(self, snap_compare: Snap, make_app: AppFactory) -> None:
        assert snap_compare(make_app(), terminal_size=(100, 40),
                            run_before=settle_after("question_mark"))


class TestNewUser:
    """What a new user saw go wrong: long pass names at 80 columns, the graph diff."""

    def test_long_pass_names_at_80_columns(self, snap_compare: Snap, make_app: AppFactory
                                           ) -> None:
        from hlotool.passes.pipeline import Pipeline, Step
        from hlotool.passes.registry import make_pass, parse_pass_list

        spec = "algebraic-simplify{max-iterations=3,dot-strength-reduction=false}"
        passes = (*parse_pass_list(spec), make_pass("dce"), make_pass("cse"))
        app = make_app(module=simple(), pipeline=Pipeline("long", tuple(Step(p) for p in passes)))
        assert snap_compare(app, terminal_size=(80, 24), run_before=settle_after("n", "n"))

    def test_graph_diff_in_the_graph_tab(self, snap_compare: Snap, make_app: AppFactory) -> None:
        app = make_app(module=simple(), pipeline=broken_pipeline())
        assert snap_compare(app, terminal_size=(120, 40),
                            run_before=settle_after("n", "n", "n", "G"))

    def test_graph_tab_before_a_selection(self, snap_compare: Snap, make_app: AppFactory
                                          ) -> None:
        assert snap_compare(make_app(), terminal_size=(120, 40), run_before=settle_after("3"))
