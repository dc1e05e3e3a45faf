"""Pilot tests: every key of the debugger, undo/redo/branching, bisect in the UI."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TabbedContent

from hlotool.passes.pipeline import Pipeline, Step
from hlotool.passes.registry import make_pass, parse_pass_list
from hlotool.tui.app import DebuggerApp
from hlotool.tui.screens.help import HelpScreen
from hlotool.tui.screens.step import StepScreen
from hlotool.tui.widgets.diff_view import DiffView
from hlotool.tui.widgets.filter_box import FilterBox
from hlotool.tui.widgets.graph_view import GraphView
from hlotool.tui.widgets.ir_view import IRView
from hlotool.tui.widgets.step_list import StepList

from .conftest import AppFactory, broken_pipeline, simple

SIZE = (120, 40)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until workers (and the workers they start) are done. A render superseded by
    a newer one (exclusive workers) ends cancelled: wait for the rest."""
    from textual.worker import WorkerCancelled

    done = 0
    for _ in range(40):
        await pilot.pause()
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        done += 1
        if done == 3:
            break
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
        await press(pilot, "n")  # n applies at the head, wherever the view is
        assert app.session.head.depth == 3
        assert screen(app).selected is app.session.head


async def test_arrows_move_the_view_and_n_still_applies_at_the_head(make_app: AppFactory,
                                                                     ) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "n", "up", "up")
        assert screen(app).selected is app.session.path()[1]
        await press(pilot, "down")
        assert screen(app).selected is app.session.path()[2]
        await press(pilot, "n")
        assert app.session.head.depth == 4 and screen(app).selected is app.session.head


async def test_a_burst_of_keys_is_never_dropped(make_app: AppFactory) -> None:
    passes = [make_pass(name) for name in ("cse", "dce", "algebraic-simplify")] * 20
    app = make_app(module=simple(), pipeline=Pipeline("long", tuple(Step(p) for p in passes)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert len(app.session.plan) == 60
        await pilot.press(*["n"] * 10)  # as fast as a person can type, no pause between
        await settle(pilot)
        assert app.session.head.depth == 10
        await pilot.press(*["n"] * 40)
        await settle(pilot)
        assert app.session.head.depth == 50
        assert screen(app).selected is app.session.head


async def test_a_burst_behind_a_running_pass_queues_in_order(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gate = gate_passes(app)
        await pilot.press(*["n"] * 10)
        await pilot.pause()
        assert "(9 waiting)" in status(app) and app.session.head.depth == 0
        gate.set()
        await settle(pilot)
        plan = [p.spec for p in app.session.plan]
        assert [n.spec for n in app.session.path()[1:]] == plan[:10]


async def test_keys_pressed_while_planning_queue(make_app: AppFactory,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import hlotool.bisect

    planned = threading.Event()
    expand = hlotool.bisect.expand

    def slow_expand(*args: object) -> object:
        assert planned.wait(30)
        return expand(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(hlotool.bisect, "expand", slow_expand)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n", "n", "n")
        await pilot.pause()
        assert "planning" in status(app) and "3 action(s) queued" in status(app)
        planned.set()
        for _ in range(300):  # the three steps run one after another once planned
            await pilot.pause(0.05)
            if app.session.head.depth == 3 and not screen(app)._stepping:
                break
        assert app.session.head.depth == 3


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
        steps = screen(app).query_one(StepList)
        every = steps.row_count
        await press(pilot, "f")
        assert isinstance(app.focused, FilterBox)
        for ch in "dce":
            await pilot.press(ch)
        await settle(pilot)
        names = [str(steps.get_row_at(i)[2]) for i in range(steps.row_count)]
        assert names and all("dce" in n for n in names)
        await press(pilot, "enter")  # enter keeps the filter and goes back to the list
        assert isinstance(app.focused, StepList) and steps.row_count == len(names)
        await press(pilot, "f", "escape")  # escape clears it
        assert isinstance(app.focused, StepList)
        assert screen(app).query_one(FilterBox).value == "" and steps.row_count == every
        assert app.session.head.depth == 0


async def test_tab_never_puts_the_focus_in_the_filter(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        steps = screen(app).query_one(StepList)
        every = steps.row_count
        for _ in range(8):
            await press(pilot, "tab")
            assert not isinstance(app.focused, (FilterBox, Input))
        for _ in range(8):
            await press(pilot, "shift+tab")
            assert not isinstance(app.focused, (FilterBox, Input))
        await press(pilot, "3")
        assert screen(app).query_one(TabbedContent).active == "graph"
        assert screen(app).query_one(FilterBox).value == "" and steps.row_count == every


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


def gate_passes(app: DebuggerApp) -> threading.Event:
    """Make every pass application wait until the returned event is set, so that keys
    pressed meanwhile find the pipeline worker busy."""
    gate = threading.Event()
    session = app.session
    step, apply = session.step, session.apply

    def gated_step() -> object:
        assert gate.wait(30)
        return step()

    def gated_apply(p: object) -> object:
        assert gate.wait(30)
        return apply(p)  # type: ignore[arg-type]

    session.step = gated_step  # type: ignore[method-assign]
    session.apply = gated_apply  # type: ignore[method-assign]
    return gate


async def test_undo_redo_and_apply_queue_behind_a_running_pass(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.session.plan[0].spec
        gate = gate_passes(app)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("u")
        await pilot.pause()
        assert "busy: queued undo (1 waiting)" in status(app)
        await pilot.press("ctrl+r", "u")
        app.apply_pass_by_name("dce")
        await pilot.pause()
        assert "queued apply dce (4 waiting)" in status(app)
        assert app.session.head.depth == 0
        gate.set()
        await settle(pilot)
        # n, u, ctrl+r, u, then dce: the root has the planned pass and a dce branch
        root = app.session.root
        assert app.session.head.spec == "dce" and app.session.head.parent is root
        assert [c.spec for c in root.children] == [first, "dce"]
        assert screen(app).selected is app.session.head
        assert "step 1: dce" in status(app)


async def test_queued_actions_run_in_order(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        plan = [p.spec for p in app.session.plan]
        gate = gate_passes(app)
        await pilot.press("n", "n", "u", "n", "ctrl+r")
        await pilot.pause()
        assert app.session.head.depth == 0
        gate.set()
        await settle(pilot)
        # n n -> 2; u -> 1; n -> 2 again (the redo state); ctrl+r: nothing to redo
        assert [n.spec for n in app.session.path()[1:]] == plan[:2]
        assert "nothing to redo" in status(app)


async def test_queue_dropped_after_a_failing_pass(make_app: AppFactory) -> None:
    from hlotool.tui.session import PassFailed

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gate = gate_passes(app)
        real_step = app.session.step

        def failing() -> object:
            real_step()
            raise PassFailed("pass boom raised RuntimeError: no")

        app.session.step = failing  # type: ignore[method-assign]
        await pilot.press("n", "u", "n")
        await pilot.pause()
        gate.set()
        await settle(pilot)
        assert "boom" in status(app) and "dropped 2 queued action(s)" in status(app)
        assert app.session.head.depth == 1


async def test_graph_diff_export(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "G")
        assert "no previous step" in status(app)
        assert not list(tmp_path.glob("*.svg"))
        await press(pilot, "n", "n")
        node = app.session.head
        await press(pilot, "p", "G")
        step = app.session.path()[1]
        assert screen(app).query_one(TabbedContent).active == "graph"
        shown = screen(app).query_one(GraphView).plain()
        assert f"graph diff of step 1 {step.spec} against step 0 input" in shown
        assert "unchanged" in shown
        name = f"{app.session.root.module.name}.step001-{step.spec.split('{')[0]}.diff.svg"
        path = tmp_path / name
        assert f"SVG written to ./{name}" in status(app)
        assert path.exists() and path.read_text().lstrip().startswith(("<?xml", "<svg"))
        assert node is app.session.head


async def test_graph_diff_matches_hlotool_graph_diff(make_app: AppFactory,
                                                     tmp_path: Path) -> None:
    from hlotool.graph import GraphOptions, draw_diff, to_dot

    app = make_app(module=simple(), pipeline=broken_pipeline())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "n")
        flip = app.session.head
        assert flip.spec == "flip-add"
        assert flip.parent is not None
        dot = to_dot(draw_diff(flip.parent.module, flip.module, GraphOptions()))
        assert "subtract" in dot and "was add" in dot
        await press(pilot, "G")
        shown = screen(app).query_one(GraphView).plain()
        assert "changed (1)" in shown and "(was add add.1)" in shown
        path = tmp_path / "simple.step003-flip-add.diff.svg"
        assert "was add" in path.read_text() and "flip-add against step 2 cse" in status(app)


async def test_graph_tab_shows_the_root_before_any_selection(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "3")
        root = app.session.root.module.entry.root
        assert root is not None
        assert f"neighbourhood of {root.name}" in screen(app).query_one(GraphView).plain()


async def test_long_pass_names_keep_the_columns_on_screen(make_app: AppFactory) -> None:
    spec = "algebraic-simplify{max-iterations=3,dot-strength-reduction=false}"
    passes = tuple(Step(p) for p in (*parse_pass_list(spec), make_pass("dce")))
    app = make_app(module=simple(), pipeline=Pipeline("long-names", passes))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n")
        steps = screen(app).query_one(StepList)
        name = str(steps.get_row_at(1)[2])
        assert "…" in name and name.startswith("algebraic") and len(name) < len(spec)
        assert steps.virtual_size.width <= steps.size.width  # ✓ and Δ are not cut off
        await press(pilot, "up")
        assert steps.tooltip == spec
        details = str(screen(app).query_one("#details").render())
        assert spec in details.replace("\n", "")


async def test_export_every_step(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "n", "p", "E")
        path = app.session.path()
        written = sorted(p.name for p in tmp_path.glob("*.hlo"))
        expected = [f"{n.depth:03d}-{n.spec.split('{')[0]}.hlo" for n in path]
        assert written == expected and written[0] == "000-input.hlo"
        for node in path:
            text = (tmp_path / f"{node.depth:03d}-{node.spec.split('{')[0]}.hlo").read_text()
            assert text == node.text()
        assert f"wrote 4 steps to {Path('.')}" in status(app)


async def test_export_every_step_to_export_dir(make_app: AppFactory, tmp_path: Path) -> None:
    out = tmp_path / "steps"
    app = make_app(module=simple(), pipeline=broken_pipeline(), export_dir=out)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "n", "n", "n", "u", "E")
        assert sorted(p.name for p in out.iterdir()) == [
            "000-input.hlo", "001-algebraic-simplify.hlo", "002-cse.hlo", "003-flip-add.hlo"]
        assert "subtract" in (out / "003-flip-add.hlo").read_text()
        assert not list(tmp_path.glob("*.hlo"))
        assert str(out) in status(app)
