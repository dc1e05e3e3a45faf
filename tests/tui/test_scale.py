"""The debugger on a big module: it opens before the plan is known, shows planning
progress, steps in a worker, and quits while work is still running."""

from __future__ import annotations

from hlotool.frontend import parse_hlo
from hlotool.passes.pipelines import get_pipeline
from tests.scale_programs import deep_module

from .conftest import AppFactory
from .test_app import SIZE, screen, settle, status


async def test_a_big_module_opens_plans_in_a_worker_and_steps(make_app: AppFactory) -> None:
    app = make_app(module=parse_hlo(deep_module(150)), pipeline=get_pipeline("cpu"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen(app).query_one("#steps") is not None
        await settle(pilot)
        assert len(app.session.plan) > 20
        assert "pass applications planned" in status(app)
        await pilot.press("n")
        await settle(pilot)
        assert app.session.head.depth == 1


async def test_q_leaves_while_the_plan_is_being_made(make_app: AppFactory) -> None:
    app = make_app(module=parse_hlo(deep_module(150)), pipeline=get_pipeline("cpu"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
