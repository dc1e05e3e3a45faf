"""Buffer assignment: reuse of dead buffers, in-place updates, loop-state and declared
aliasing, the arena packing, and a checked assignment for every corpus module."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.ir.module import Module
from hlotool.passes.buffer_assignment import (
    ALIGNMENT,
    Buffer,
    BufferAssignment,
    assign_buffers,
    pack_arena,
)
from hlotool.passes.registry import make_pass
from tests.conftest import CASE_IDS, CASES
from tests.passes import corpus_numerics

KIB4 = 4096  # bytes of an f32[1024]


def _assign(text: str, *passes: str) -> tuple[Module, BufferAssignment]:
    module = parse_hlo(text)
    for spec in passes:
        make_pass(spec).run(module)
    a = assign_buffers(module)
    a.check()
    return module, a


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_corpus_assignment_checks(case: Path) -> None:
    module = corpus_numerics.check(case, "copy-insertion,memory-scheduler,buffer-assignment")
    a = assign_buffers(module)
    assert a.lower_bound_bytes <= a.peak_bytes
    for b in a.of_kind("temp"):
        assert b.offset % ALIGNMENT == 0 and b.start <= b.end


def test_elementwise_chain_updates_one_buffer_in_place() -> None:
    module, a = _assign("""
HloModule m
ENTRY main {
  p = f32[1024]{0} parameter(0)
  x1 = f32[1024]{0} exponential(p)
  x2 = f32[1024]{0} exponential(x1)
  x3 = f32[1024]{0} exponential(x2)
  ROOT s = f32[4]{0} slice(x3), slice={[0:4]}
}""")
    entry = module.entry
    assert a.buffer_of(entry.instruction("x1")) is a.buffer_of(entry.instruction("x3"))
    assert a.peak_bytes == KIB4


def test_dead_buffers_are_reused_when_not_in_place() -> None:
    _, a = _assign("""
HloModule m
ENTRY main {
  p = f32[1024]{0} parameter(0)
  r1 = f32[1024]{0} reverse(p), dimensions={0}
  r2 = f32[1024]{0} reverse(r1), dimensions={0}
  r3 = f32[1024]{0} reverse(r2), dimensions={0}
  ROOT s = f32[4]{0} slice(r3), slice={[0:4]}
}""")
    temps = a.of_kind("temp")
    assert len(temps) == 3
    # r1 and r2 overlap in time; r3 reuses r1's bytes.
    assert a.peak_bytes == 2 * KIB4
    assert a.lower_bound_bytes == 2 * KIB4


def test_while_state_is_one_buffer_per_element() -> None:
    module, a = _assign(
        (Path(__file__).parents[1] / "data/corpus/while_loop/module.hlo").read_text(),
        "copy-insertion",
        "dce",
        "memory-scheduler",
    )
    entry = module.entry
    loop = next(i for i in entry.instructions if i.opcode.value == "while")
    body = loop.attrs["body"]
    assert a.buffer_of(loop, (0,)) is a.buffer_of(loop.operand(0), (0,))
    assert a.buffer_of(loop, (0,)) is a.buffer_of(body.parameter(0), (0,))
    assert body.root is not None and a.buffer_of(body.root, (0,)) is a.buffer_of(loop, (0,))


def test_dynamic_update_slice_updates_its_operand_in_place() -> None:
    module, a = _assign("""
HloModule m
ENTRY main {
  p = f32[1024]{0} parameter(0)
  u = f32[8]{0} parameter(1)
  i = s32[] parameter(2)
  base = f32[1024]{0} negate(p)
  d = f32[1024]{0} dynamic-update-slice(base, u, i)
  ROOT s = f32[4]{0} slice(d), slice={[0:4]}
}""")
    entry = module.entry
    assert a.buffer_of(entry.instruction("d")) is a.buffer_of(entry.instruction("base"))


def test_declared_output_to_operand_aliasing_is_honoured() -> None:
    module, a = _assign("""
HloModule m
fused {
  p0 = f32[1024]{0} parameter(0)
  ROOT r = f32[1024]{0} reverse(p0), dimensions={0}
}
ENTRY main {
  p = f32[1024]{0} parameter(0)
  n = f32[1024]{0} negate(p)
  f = f32[1024]{0} fusion(n), kind=kLoop, output_to_operand_aliasing={{}: (0, {})}, calls=fused
  ROOT s = f32[4]{0} slice(f), slice={[0:4]}
}""")
    entry = module.entry
    assert a.buffer_of(entry.instruction("f")) is a.buffer_of(entry.instruction("n"))


def test_input_output_alias_writes_the_output_into_the_parameter() -> None:
    module, a = _assign(
        """
HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY main {
  p = f32[256]{0} parameter(0)
  q = f32[256]{0} parameter(1)
  e = f32[256]{0} exponential(p)
  late = f32[256]{0} add(p, q)
  ROOT t = (f32[256]{0}, f32[256]{0}) tuple(e, late)
}""",
        "copy-insertion",
        "memory-scheduler",
    )
    entry = module.entry
    out = a.buffer_of(entry.root, (0,)) if entry.root is not None else None
    assert out is a.buffer_of(entry.parameter(0))
    assert out is not None and out.kind == "parameter" and out.live_out


def test_outputs_parameters_and_constants_stay_out_of_the_arena() -> None:
    _, a = _assign("""
HloModule m
ENTRY main {
  p = f32[1024]{0} parameter(0)
  c = f32[2]{0} constant({1, 2})
  n = f32[1024]{0} negate(p)
  ROOT t = (f32[1024]{0}, f32[2]{0}) tuple(n, c)
}""")
    assert a.peak_bytes == 0
    assert {b.kind for b in a.buffers} == {"parameter", "constant", "output"}


def test_temps_borrow_an_output_they_die_before() -> None:
    module, a = _assign("""
HloModule m
ENTRY main {
  p = f32[1024]{0} parameter(0)
  t = f32[1024]{0} reverse(p), dimensions={0}
  s = f32[4]{0} slice(t), slice={[0:4]}
  big = f32[1024]{0} negate(p)
  ROOT out = (f32[4]{0}, f32[1024]{0}) tuple(s, big)
}""")
    temp = a.buffer_of(module.entry.instruction("t"))
    output = a.buffer_of(module.entry.instruction("big"))
    assert temp.home == output.id and temp.end < output.start
    assert a.peak_bytes == 0


def test_best_fit_packing_fills_gaps() -> None:
    ins = parse_hlo("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}").entry.root
    assert ins is not None
    temps = [
        Buffer(0, ins, (), 128, "temp", 0, 1),
        Buffer(1, ins, (), 64, "temp", 0, 5),
        Buffer(2, ins, (), 128, "temp", 2, 5),
        Buffer(3, ins, (), 64, "temp", 3, 4),
    ]
    assert pack_arena(temps) == 256
    assert temps[2].offset == 0  # reuses the first buffer's bytes after it dies


def _best_fit_by_scan(placed: list[Buffer], b: Buffer) -> int:
    """The best-fit rule written out: the smallest gap (lowest on ties) between the
    bytes of the placed buffers live during `b`'s range, else past all of them."""
    busy = sorted((p.offset, p.offset + p.size) for p in placed
                  if p.start <= b.end and b.start <= p.end)
    best: tuple[int, int] | None = None
    cursor = 0
    for lo, hi in busy:
        if lo - cursor >= b.size and (best is None or lo - cursor < best[0]):
            best = (lo - cursor, cursor)
        cursor = max(cursor, hi)
    return best[1] if best is not None else cursor


def test_best_fit_queries_match_the_rule_written_out() -> None:
    """The columnar best fit against a scan of every placed buffer, on random live
    ranges from one step to the whole timeline and random sizes."""
    import random

    from hlotool.passes.buffer_assignment import _Placed

    ins = parse_hlo("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}").entry.root
    assert ins is not None
    rng = random.Random(1)
    placed, buffers = _Placed(), []
    for n in range(600):
        start = rng.randrange(20000)
        end = start + rng.choice([0, 3, 70, 300, 5000, 19000])
        b = Buffer(n, ins, (), rng.choice([64, 128, 192, 4096]), "temp", start, end)
        b.offset = placed.best_fit(b)
        assert b.offset == _best_fit_by_scan(buffers, b)
        placed.add(b)
        buffers.append(b)
