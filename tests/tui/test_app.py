"""Pilot tests: every key of the debugger, undo/redo/branching, bisect in the UI."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

from hlotool.tui.app import DebuggerApp
from hlotool.tui.screens.help import HelpScreen
from hlotool.tui.screens.step import StepScreen
from hlotool.tui.widgets.diff_view import DiffView
from hlotool.tui.widgets.graph_view import GraphView
from hlotool.tui.widgets.ir_view import IRView
from hlotool.tui.widgets.step_list import StepList

from .conftest import AppFactory, broken_pipeline, simple

SIZE = (120, 40)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until workers (and the workers they start) are done."""
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def screen(app: DebuggerApp) -> StepScreen:
    step = app.step_screen()
    assert step is not None
    return step


def status(app: DebuggerApp) -> str:
    return str(screen(app).query_one("#status").render())


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def test_next_and_space_apply_passes(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.plan
        await press(pilot, "n")
        assert app.session.head.depth == 1
        await press(pilot, "space")
        assert app.session.head.depth == 2
        assert screen(app).selected is app.session.head
        assert "step 2" in status(app)


async def test_whole_pipeline_then_done(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        total = len(app.session.plan)
        for _ in range(total + 1):
            await pilot.press("n")
        await settle(pilot)
        assert app.session.head.depth == total
        assert "done" in status(app)


async def test_previous_moves_the_view_not_the_head(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "p")
        assert app.session.head.depth == 2
        assert screen(app).selected is app.session.path()[1]
        await press(pilot, "n")
        assert screen(app).selected is app.session.head
        assert app.session.head.depth == 2


async def test_undo_redo_keys(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "u")
        assert app.session.head.depth == 1
        assert "undid" in status(app)
        await press(pilot, "u", "u")
        assert app.session.head.depth == 0 and "nothing to undo" in status(app)
        await press(pilot, "ctrl+r", "ctrl+r")
        assert app.session.head.depth == 2
        await press(pilot, "ctrl+r")
        assert "nothing to redo" in status(app)


async def test_branching_from_the_palette(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "u")
        first = app.session.head
        app.apply_pass_by_name("dce")
        await settle(pilot)
        assert app.session.head.spec == "dce" and app.session.head.parent is first
        assert len(first.children) == 2
        rows = [str(screen(app).query_one(StepList).get_row_at(1)[2])]
        assert "⑂2" in rows[0]
        await press(pilot, "u", "ctrl+r")
        assert app.session.head.spec == "dce"


async def test_command_palette_lists_passes(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        for ch in "apply pass: cse":
            await pilot.press("space" if ch == " " else ch)
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.head.spec == "cse"
        assert not app.session.head.on_plan


async def test_diff_toggle_and_hide(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        view = screen(app).query_one(DiffView)
        assert view.line_count > 3
        assert any(view.line_text(i).startswith("- ") for i in range(view.line_count))
        await press(pilot, "d")
        assert view.side_by_side and "│" in view.line_text(3)
        await press(pilot, "d")
        assert not view.side_by_side
        steps = screen(app).query_one(StepList)
        await press(pilot, "n", "n")
        shown = steps.row_count
        await press(pilot, "h")
        assert steps.hide_unchanged and steps.row_count < shown
        await press(pilot, "h")
        assert steps.row_count == shown


async def test_filter_box(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "f")
        assert isinstance(app.focused, Input)
        for ch in "dce":
            await pilot.press(ch)
        await settle(pilot)
        steps = screen(app).query_one(StepList)
        names = [str(steps.get_row_at(i)[2]) for i in range(steps.row_count)]
        assert names and all("dce" in n for n in names)
        await press(pilot, "escape")
        assert isinstance(app.focused, StepList)
        assert app.session.head.depth == 0


async def test_tabs_ir_navigation_and_search(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        ir = screen(app).query_one(IRView)
        assert screen(app).query_one(TabbedContent).active == "ir" and app.focused is ir
        line = ir.index.definitions["select_n.1"]
        ir.move_to(line)
        await settle(pilot)
        assert ir.tokens()[0] == "select_n.1"
        await press(pilot, "right")
        assert ir.selected_name() == "ge.1"
        await press(pilot, "D")
        assert ir.index.defined_at(ir.cursor) == "ge.1"
        await press(pilot, "U")
        assert ir.index.defined_at(ir.cursor) == "select_n.1"
        await press(pilot, "left", "down", "up", "pagedown", "pageup", "end", "home")
        assert ir.cursor == 0
        await press(pilot, "slash")
        assert app.focused is screen(app).query_one("#search", Input)
        for ch in "reduce":
            await pilot.press(ch)
        await press(pilot, "enter")
        assert "reduce" in ir.line_text(ir.cursor)
        await press(pilot, "escape")
        assert app.focused is ir
        await press(pilot, "3")
        graph = screen(app).query_one(GraphView)
        assert screen(app).query_one(TabbedContent).active == "graph"
        assert "select_n.1" in graph.plain() and "▼" in graph.plain()
        await press(pilot, "1")
        assert screen(app).query_one(TabbedContent).active == "diff"


async def test_check_and_check_each(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "v")
        assert app.session.head.numeric is not None and app.session.head.numeric.ok
        assert "max abs" in status(app)
        await press(pilot, "c")
        assert app.options.check_each
        await press(pilot, "n")
        assert app.session.head.numeric is not None
        await press(pilot, "c")
        assert not app.options.check_each


async def test_exports(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "e")
        written = list(tmp_path.glob("*.hlo"))
        assert len(written) == 1 and written[0].read_text().startswith("HloModule")
        await press(pilot, "g")
        svgs = list(tmp_path.glob("*.svg"))
        assert svgs or "export failed" in status(app)


async def test_help_and_quit(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await press(pilot, "escape")
        assert isinstance(app.screen, StepScreen)
        await press(pilot, "q")
    assert app.return_code == 0


async def test_bisect_finds_the_broken_pass(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app(module=simple(), pipeline=broken_pipeline())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "n", "n", "b")
        assert "first bad pass: #3 of 4 flip-add" in status(app)
        repro = tmp_path / "simple.reproducer.hlo"
        assert repro.exists() and "flip-add" in repro.read_text()
        assert screen(app).selected is app.session.path()[3]
        await press(pilot, "v")
        assert app.session.path()[3].numeric is not None
        assert not app.session.path()[3].numeric.ok


async def test_bisect_before_stepping(make_app: AppFactory) -> None:
    app = make_app(module=simple(), pipeline=broken_pipeline())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "b")
        assert "flip-add" in status(app)
        assert app.session.head.depth == 0


async def test_small_terminal(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "n", "d", "2", "3", "1")
        assert app.session.head.depth == 1
