"""`hlotool debug DIR`: XLA's after-optimizations module as the step list's last entry,
diffed against the head and checked by the numerics view (docs/debugger.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hlotool import values_io
from hlotool.bisect import run_module
from hlotool.frontend import parse_text
from hlotool.tui.app import DebuggerApp, DebugOptions
from hlotool.tui.session import REFERENCE_LABEL, resolve_pipeline
from hlotool.tui.widgets.diff_view import DiffView
from hlotool.tui.widgets.step_list import StepList

from .test_app import SIZE, press, screen, settle, status

DUMP = Path(__file__).resolve().parents[1] / "data" / "dump_jax"
BEFORE = DUMP / "module_0000.jit__lambda.before_optimizations.txt"
AFTER = DUMP / "module_0000.jit__lambda.cpu_after_optimizations.txt"


def _app(tmp_path: Path) -> DebuggerApp:
    options = DebugOptions(source_name=str(BEFORE), export_dir=tmp_path, show_times=False)
    return DebuggerApp(parse_text(BEFORE.read_text()), resolve_pipeline("default", None),
                       options, parse_text(AFTER.read_text()))


async def test_xla_entry_is_last_and_diffs_against_the_head(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        steps = screen(app).query_one(StepList)
        reference = app.session.reference
        assert reference is not None and reference.spec == REFERENCE_LABEL
        last = steps.coordinate_to_cell_key((steps.row_count - 1, 0)).row_key.value
        assert last == f"n{reference.serial}"
        steps.move_cursor(row=steps.row_count - 1)
        await settle(pilot)
        assert screen(app).selected is reference
        details = str(screen(app).query_one("#details").render())
        assert details.startswith(f"xla {REFERENCE_LABEL}")
        assert reference.parent is app.session.root
        note = screen(app).query_one(DiffView)._message
        assert note.startswith(f"{REFERENCE_LABEL} against step 0 input: ")
        await press(pilot, "n")  # applies at the head; XLA's entry now follows it
        assert app.session.head.depth == 1
        assert app.session.reference_node() is reference
        assert reference.parent is app.session.head


async def test_numerics_view_checks_xla_against_the_input(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        steps = screen(app).query_one(StepList)
        steps.move_cursor(row=steps.row_count - 1)
        await settle(pilot)
        await press(pilot, "v")
        reference = app.session.reference
        assert reference is not None and reference.numeric is not None
        before, after = parse_text(BEFORE.read_text()), parse_text(AFTER.read_text())
        inputs = values_io.random_arguments(before, 0)
        want, got = run_module(before, inputs)["out0"], run_module(after, inputs)["out0"]
        err = float(np.max(np.abs(got.astype(np.float64) - want)))
        assert reference.numeric.ok is bool(np.allclose(got, want, rtol=1e-5, atol=1e-6))
        assert reference.numeric.max_abs == err
        assert f"{REFERENCE_LABEL}: ok" in status(app)


async def test_without_a_dump_there_is_no_xla_entry(tmp_path: Path) -> None:
    app = DebuggerApp(parse_text(BEFORE.read_text()), resolve_pipeline("default", None),
                      DebugOptions(export_dir=tmp_path, show_times=False))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.reference_node() is None
        steps = screen(app).query_one(StepList)
        assert all(not n.label for n in steps._node_of_key.values())


async def test_export_and_graph_diff_of_the_xla_entry(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        steps = screen(app).query_one(StepList)
        steps.move_cursor(row=steps.row_count - 1)
        await settle(pilot)
        await press(pilot, "e")
        written = list(tmp_path.glob("*.hlo"))
        assert len(written) == 1 and "XLA" in written[0].name
        assert parse_text(written[0].read_text()).instruction_count == \
            parse_text(AFTER.read_text()).instruction_count
        await press(pilot, "G")
        assert status(app).startswith("graph diff of XLA: after optimizations against "
                                      "step 0 input")
