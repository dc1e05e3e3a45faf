"""The debugger's model without the UI: stepping, undo, redo, branches, numerics."""

from __future__ import annotations

import pytest

from hlotool.bisect import expand
from hlotool.passes.registry import make_pass
from hlotool.tui.render import IRIndex, neighbourhood, side_by_side, unified
from hlotool.tui.session import Session, fallback_pipeline, resolve_pipeline

from .conftest import FlipAddPass, attention, broken_pipeline, simple


def _session() -> Session:
    module = attention()
    return Session(module, expand(resolve_pipeline("default", None), module))


def test_steps_follow_the_plan() -> None:
    session = _session()
    specs = [p.spec for p in session.plan]
    for spec in specs:
        node = session.step()
        assert node is not None and node.spec == spec
    assert session.step() is None
    assert [n.spec for n in session.path()[1:]] == specs
    assert session.head.module.instruction_count < session.root.module.instruction_count


def test_changed_marks_come_from_fingerprints() -> None:
    session = _session()
    first = session.step()
    assert first is not None and first.changed
    assert first.delta()
    assert first.result is not None and first.result.changed


def test_undo_redo() -> None:
    session = _session()
    a = session.step()
    b = session.step()
    assert session.undo() is a
    assert session.pending()[0].spec == b.spec
    assert session.undo() is session.root
    assert session.undo() is None
    assert session.redo() is a
    assert session.redo() is b
    assert session.redo() is None


def test_step_after_undo_reuses_the_undone_state() -> None:
    session = _session()
    a = session.step()
    session.undo()
    assert session.step() is a


def test_branching() -> None:
    session = _session()
    a = session.step()
    b = session.step()
    session.undo()
    c = session.apply(make_pass("dce"))
    assert c.parent is a and not c.on_plan
    assert session.branches(a) == 2
    assert session.pending()[0].spec == b.spec
    session.undo()
    assert session.redo() is c
    session.undo()
    a.redo_child = b
    assert session.redo() is b


def test_numeric_check_and_bisect() -> None:
    module = simple()
    session = Session(module, expand(broken_pipeline(), module))
    for _ in range(4):
        session.step()
    path = session.path()
    assert session.check(path[2]).ok
    bad = session.check(path[3])
    assert not bad.ok and bad.max_abs > 0
    result = session.bisect()
    assert result.found and result.pass_spec == "flip-add"


def test_bisect_covers_a_branch() -> None:
    module = simple()
    session = Session(module, [make_pass("dce")])
    session.apply(FlipAddPass())
    assert session.bisect().pass_spec == "flip-add"


def test_fallback_pipeline_uses_registered_passes() -> None:
    assert [s.pass_.name for s in fallback_pipeline().flat_steps()][0] == "call-inliner"


def test_diffs_and_index() -> None:
    session = Session(simple(), [make_pass("dce")])
    node = session.step()
    assert node is not None
    before, after = session.root.computation_texts(), node.computation_texts()
    lines = unified(before, after)
    assert lines[0].kind == "#" and any(x.kind == "-" and "dead.1" in x.text for x in lines)
    rows = side_by_side(before, after)
    assert any(left.kind == "-" and right.text == "" for left, right in rows)
    index = IRIndex.build(node.text())
    line = index.definitions["mul.1"]
    assert index.tokens[line] == ["mul.1", "add.1", "p1"]
    assert index.users["add.1"] == [line]
    drawing = "\n".join(t.plain for t in neighbourhood(node.module, "add.1"))
    assert "p0" in drawing and "mul.1" in drawing and "▼" in drawing


def test_repr_stays_short_at_depth() -> None:
    """Workers format their arguments with repr: it must not walk the history tree."""
    from hlotool.passes.registry import make_pass
    from hlotool.tui.session import Session
    from tests.tui.conftest import simple

    session = Session(simple(), [make_pass(n) for n in ("cse", "dce")] * 15)
    while session.step() is not None:
        pass
    assert session.head.depth == 30
    assert repr(session.head) == "Node(#30 dce)"


def test_steps_the_planning_run_kept_give_the_states_running_them_gives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Slow plan steps keep their result while planning (every step here, with the
    threshold at 0); stepping takes them, and gives the states a session that runs
    each pass gives. A kept state is only taken on the state it was made from."""
    import hlotool.bisect as bisect

    monkeypatch.setattr(bisect, "SLOW_STEP_SECONDS", 0.0)
    module = attention()
    pipeline = resolve_pipeline("default", None)
    kept: dict = {}
    plan = expand(pipeline, module, keep=kept)
    assert sorted(kept) == list(range(len(plan)))
    fast, slow = Session(module, plan), Session(module, plan)
    fast.precomputed = dict(kept)
    taken = {id(m) for _, m, _ in kept.values()}
    for _ in plan:
        a, b = fast.step(), slow.step()
        assert a is not None and b is not None and a.spec == b.spec
        assert a.fingerprint == b.fingerprint and id(a.module) in taken
        assert str(a.module) == str(b.module)
    # Off the plan's states (a pass applied first), the kept results are not taken.
    other = Session(module, plan)
    other.precomputed = dict(kept)
    other.apply(make_pass("dce"))
    other.apply(FlipAddPass())
    node = other.step()
    assert node is not None and id(node.module) not in taken
