"""Instruction, multi-output and horizontal fusion and the fusion wrapper: golden
before/after cases, rule checks, and every corpus module run through each pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import PassError
from hlotool.passes.instruction_fusion import emission_count, is_expensive
from hlotool.passes.registry import make_pass
from tests.conftest import CASE_IDS, CASES
from tests.passes import corpus_numerics
from tests.passes.golden import GoldenCase, case_params, run_case

O = Opcode
FUSION_PASSES = ("instruction-fusion", "multi-output-fusion", "horizontal-fusion", "fusion-wrapper")


@pytest.mark.parametrize("case", [p for n in FUSION_PASSES for p in case_params(n)])
def test_golden(case: GoldenCase) -> None:
    run_case(case)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize(
    "passes",
    [
        "instruction-fusion",
        "instruction-fusion{target=gpu,may-duplicate=false}",
        "instruction-fusion,multi-output-fusion",
        "instruction-fusion{target=gpu},horizontal-fusion",
        "instruction-fusion,fusion-wrapper",
    ],
)
def test_corpus_numerics(case: Path, passes: str) -> None:
    corpus_numerics.check(case, passes)


def _fuse(text: str, passes: str = "instruction-fusion") -> Module:
    module = parse_hlo(text)
    for spec in passes.split(";"):
        make_pass(spec).run(module)
    return module


CHAIN = """
HloModule m
ENTRY main {
  p0 = f32[8]{0} parameter(0)
  p1 = f32[8]{0} parameter(1)
  a = f32[8]{0} add(p0, p1)
  ROOT e = f32[8]{0} exponential(a)
}
"""


def test_fused_computation_is_placed_before_its_caller_and_knows_it() -> None:
    module = _fuse(CHAIN)
    fusion = module.entry.root
    assert fusion is not None and fusion.opcode is O.FUSION
    body = fusion.attrs["calls"]
    assert body.fusion_instruction is fusion
    assert module.computations.index(body) < module.computations.index(module.entry)
    assert body.name.startswith("fused_computation")
    assert all(
        p.name == f"param_{p.parameter_number}" or p.name.startswith(f"param_{p.parameter_number}.")
        for p in body.parameters
    )


def test_unknown_target_is_a_pass_error() -> None:
    with pytest.raises(PassError, match="target"):
        make_pass("instruction-fusion", {"target": "xpu"})


def test_expensive_rules_follow_xla_cpu() -> None:
    module = parse_hlo("""
HloModule m
ENTRY main {
  p = f32[4]{0} parameter(0)
  i = s32[4]{0} parameter(1)
  e = f32[4]{0} exponential(p)
  n = f32[4]{0} negate(p)
  two = s32[] constant(2)
  b = s32[4]{0} broadcast(two), dimensions={}
  d = s32[4]{0} divide(i, b)
  f = f32[4]{0} divide(p, p)
  ROOT t = (f32[4]{0}, f32[4]{0}, s32[4]{0}, f32[4]{0}) tuple(e, n, d, f)
}""")
    entry = module.entry
    assert is_expensive(entry.instruction("e"))
    assert not is_expensive(entry.instruction("n"))
    assert not is_expensive(entry.instruction("d"))  # integer division by a constant
    assert is_expensive(entry.instruction("f"))


def test_emission_count_sees_differently_indexed_users() -> None:
    module = parse_hlo("""
HloModule m
fused {
  p = f32[8]{0} parameter(0)
  a = f32[4]{0} slice(p), slice={[0:4]}
  b = f32[4]{0} slice(p), slice={[4:8]}
  ROOT s = f32[4]{0} add(a, b)
}
ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT f = f32[4]{0} fusion(x), kind=kLoop, calls=fused
}""")
    body = module.computation("fused")
    assert emission_count(body, body.parameter(0)) == 2


def test_dot_operands_stay_parameters_of_an_output_fusion() -> None:
    module = _fuse("""
HloModule m
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  w = f32[8,16]{1,0} parameter(1)
  nx = f32[4,8]{1,0} negate(x)
  d = f32[4,16]{1,0} dot(nx, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[4,16]{1,0} negate(d)
}""")
    (output,) = [i for i in module.entry.instructions if i.opcode is O.FUSION]
    assert output.attrs["kind"] == "kOutput"
    assert module.entry.instruction("nx").opcode is O.NEGATE
    dot = next(i for i in output.attrs["calls"].instructions if i.opcode is O.DOT)
    assert all(o.opcode is O.PARAMETER for o in dot.operands)


def test_custom_fusions_are_left_alone() -> None:
    text = (Path(__file__).parents[1] / "data/corpus/mlp_forward/module.opt.hlo").read_text()
    module = _fuse(text)
    custom = [i for i in module.entry.instructions if i.attrs.get("kind") == "kCustom"]
    assert len(custom) == 3
    assert all(len(i.attrs["calls"].instructions) == 3 for i in custom)


def test_multi_output_fusion_never_creates_a_cycle() -> None:
    module = _fuse(
        """
HloModule m
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[4,8]{1,0} parameter(0)
  zero = f32[] constant(0)
  r1 = f32[4]{0} reduce(p, zero), dimensions={1}, to_apply=add_f32
  b = f32[4,8]{1,0} broadcast(r1), dimensions={0}
  q = f32[4,8]{1,0} subtract(p, b)
  r2 = f32[4]{0} reduce(q, zero), dimensions={1}, to_apply=add_f32
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(r1, r2)
}""",
        "instruction-fusion;multi-output-fusion",
    )
    from hlotool.verifier import verify

    verify(module)
    # r1 feeds the other reduction's fusion, so they cannot share a kernel.
    assert module.entry.instruction("r1").opcode is O.REDUCE
    assert sum(1 for i in module.entry.instructions if i.opcode is O.FUSION) == 1


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_incremental_facts_match_a_fresh_walk(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The facts a growing fusion keeps (`FusionFacts.grown`, the emission memo) equal
    those computed from scratch after every growth step."""
    steps = _check_facts(monkeypatch)
    module = parse_hlo((case / "module.hlo").read_text())
    for name in ("algebraic-simplify", "layout-assignment", "instruction-fusion"):
        make_pass(name).run(module)
    assert steps["grown"] == steps["checked"]


def test_a_constant_divisor_makes_its_division_cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    """An integer remainder by a broadcast parameter is expensive until the constant
    behind the broadcast is fused in; the fusion's count of expensive nodes follows."""
    steps = _check_facts(monkeypatch)
    _fuse("""
HloModule m
ENTRY main {
  x = s32[64]{0} parameter(0)
  c = s32[] constant(7)
  b = s32[64]{0} broadcast(c), dimensions={}
  r = s32[64]{0} remainder(x, b)
  ROOT n = s32[64]{0} negate(r)
}""")
    assert steps["cheaper"] == 1 and steps["grown"] == steps["checked"]


def _check_facts(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Wrap FusionFacts so that each update and emission count is checked against
    `_body_facts` and `_whole_body_counts`; returns the counts of checks done."""
    from hlotool.passes import instruction_fusion as F

    steps = {"grown": 0, "checked": 0, "cheaper": 0}
    grown, count = F.FusionFacts.grown, F.FusionFacts.emission_count

    def checked_grown(self: F.FusionFacts, fusion: object, created: list, cheaper: int) -> None:
        grown(self, fusion, created, cheaper)
        steps["cheaper"] += cheaper
        body = fusion.attrs["calls"]  # type: ignore[attr-defined]
        if id(body) not in self.known:  # nothing was asked about it yet
            return
        steps["grown"] += 1
        kept, fresh = self.known[id(body)], F._body_facts(fusion, body)  # type: ignore[arg-type]
        assert (kept.growable, kept.dots, kept.reduces, kept.expensive_nodes, kept.params) == \
            (fresh.growable, fresh.dots, fresh.reduces, fresh.expensive_nodes, fresh.params)
        steps["checked"] += 1

    def checked_count(self: F.FusionFacts, fusion: object, number: int) -> int:
        got = count(self, fusion, number)
        facts = self.of(fusion)  # type: ignore[arg-type]
        assert got == _whole_body_counts(facts.body).get(id(facts.params[number]), 0)
        return got

    monkeypatch.setattr(F.FusionFacts, "grown", checked_grown)
    monkeypatch.setattr(F.FusionFacts, "emission_count", checked_count)
    return steps


def _whole_body_counts(body: object) -> dict[int, int]:
    """Every instruction's emission count by one walk over the whole body from the root
    (the pass's former algorithm, kept as the reference)."""
    root = body.root  # type: ignore[attr-defined]
    counts: dict[int, int] = {}
    indexing: dict[int, set[int]] = {id(root): {id(root)}}
    for ins in reversed(body.instructions):  # type: ignore[attr-defined]
        users = indexing.get(id(ins), set())
        counts[id(ins)] = 1 if ins is root else sum(counts[u] for u in users)
        for op in ins.operands:
            target = indexing.setdefault(id(op), set())
            if ins.opcode is O.TRANSPOSE or op.shape.dimensions == ins.shape.dimensions:
                target.update(users)
            else:
                target.add(id(ins))
    return counts
