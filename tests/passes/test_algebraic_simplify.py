"""algebraic-simplify: golden cases (tests/passes/data/algebraic-simplify.hlo) and the
rule table."""

from __future__ import annotations

import pytest

from hlotool.frontend import parse_hlo
from hlotool.passes.algebraic_simplify import (
    AlgebraicSimplifyPass,
    describe_rules,
    rules_algebraic,
)
from tests.passes.golden import (
    GoldenCase,
    apply_passes,
    assert_same_numerics,
    case_params,
    run_case,
)
from tests.passes.random_programs import random_program


@pytest.mark.parametrize("case", case_params("algebraic-simplify"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)


def test_every_rule_is_described() -> None:
    assert len(rules_algebraic) >= 40
    for r in rules_algebraic:
        assert r.opcodes and r.description, r
    assert len(describe_rules()) == len(rules_algebraic)


def test_fusion_computations_are_left_alone() -> None:
    module = parse_hlo("""
HloModule fused
fused {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT nn = f32[4] negate(n)
}
ENTRY e {
  x = f32[4] parameter(0)
  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fused
}
""")
    assert not apply_passes(module, "algebraic-simplify")


def test_options() -> None:
    assert AlgebraicSimplifyPass(dot_strength_reduction=False).spec == (
        "algebraic-simplify{dot-strength-reduction=false}")


@pytest.mark.parametrize("passes", ["algebraic-simplify",
                                    "algebraic-simplify,reshape-mover,cse,algebraic-simplify"])
def test_random_programs_stay_exact(passes: str) -> None:
    """Bit-exact results on 150 seeded random data-movement programs."""
    changed = 0
    for seed in range(150):
        before = parse_hlo(random_program(seed))
        after = parse_hlo(random_program(seed))
        changed += apply_passes(after, passes)
        assert_same_numerics(before, after, rtol=0, atol=0)
    assert changed > 100
