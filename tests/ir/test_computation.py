"""Computation's deferred edits: removals and positioned insertions land where the
plain list operations would put them, and many edits cost one sweep of the list."""

from __future__ import annotations

import random

import pytest

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape

SCALAR = Shape.array(PrimitiveType.F32, ())


def _ins(name: str) -> Instruction:
    return Instruction(name, Opcode.CONSTANT, SCALAR)


def _computation(n: int) -> Computation:
    comp = Computation("c")
    for k in range(n):
        comp.add_instruction(_ins(f"i{k}"))
    return comp


def test_random_edits_match_list_operations() -> None:
    """Interleaved inserts before/after, removals and reads agree with a plain list."""
    rng = random.Random(0)
    for trial in range(30):
        comp = _computation(20)
        model = list(comp.instructions)
        fresh = 0
        for _ in range(60):
            op = rng.choice(["before", "after", "remove", "add", "read"])
            if op == "read":
                assert comp.instructions == model
                continue
            if op == "add":
                fresh += 1
                model.append(comp.add_instruction(_ins(f"n{trial}.{fresh}")))
                continue
            if not model:
                continue
            anchor = rng.choice(model)
            if op == "remove":
                comp.remove_instruction(anchor)
                model.remove(anchor)
                assert anchor.parent is None
                continue
            fresh += 1
            new = _ins(f"n{trial}.{fresh}")
            if op == "before":
                comp.insert_before(new, anchor)
                model.insert(model.index(anchor), new)
            else:
                comp.insert_after(new, anchor)
                model.insert(model.index(anchor) + 1, new)
            assert new.parent is comp
            assert len(comp) == len(model)
        assert comp.instructions == model


def test_removed_instruction_can_come_back() -> None:
    comp = _computation(3)
    a, b, c = comp.instructions
    comp.remove_instruction(b)
    comp.add_instruction(b)
    assert comp.instructions == [a, c, b]
    comp.detach(a)
    comp.insert_after(a, b)
    assert comp.instructions == [c, b, a]


def test_insert_rejects_a_foreign_anchor_and_a_duplicate() -> None:
    comp, other = _computation(2), _computation(1)
    with pytest.raises(ValueError):
        comp.insert_before(_ins("x"), other.instructions[0])
    with pytest.raises(ValueError):
        comp.insert_before(comp.instructions[1], comp.instructions[0])


def test_many_edits_cost_one_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Removing and inserting around every other instruction of a big computation
    rebuilds the list once, when it is next read, not once per edit."""
    comp = _computation(4000)
    sweeps = []
    apply = Computation._apply_edits
    monkeypatch.setattr(Computation, "_apply_edits",
                        lambda self: (sweeps.append(1), apply(self))[1])
    originals = list(comp.instructions)
    for k, ins in enumerate(originals):
        if k % 2:
            comp.remove_instruction(ins)
        else:
            comp.insert_before(_ins(f"b{k}"), ins)
            comp.insert_after(_ins(f"a{k}"), ins)
    assert not sweeps
    assert len(comp) == 3 * 2000
    names = [i.name for i in comp.instructions]
    assert len(sweeps) == 1
    assert names[:6] == ["b0", "i0", "a0", "b2", "i2", "a2"]
    comp.instructions  # noqa: B018 (a read with nothing pending sweeps nothing)
    assert len(sweeps) == 1


def test_single_operand_edits_and_only_user() -> None:
    comp = _computation(3)
    a, b, c = comp.instructions
    user = Instruction("u", Opcode.ADD, SCALAR)
    user.set_operands([a, b])
    user.append_operand(c)
    assert user.operands == (a, b, c) and c.users == [user]
    user.remove_operand(1)
    assert user.operands == (a, c) and not b.users and a.users == [user]
    assert a.used_only_by(user) and not b.used_only_by(user)
    other = Instruction("v", Opcode.NEGATE, SCALAR)
    other.set_operands([a])
    assert not a.used_only_by(user)
    assert a.unique_users == [user, other]
