"""Layout assignment, transpose folding and copy insertion: golden cases, the rules
they keep, and every corpus module run through each (also XLA's optimized dumps,
whose bitcasts already depend on layouts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Layout
from hlotool.passes.registry import make_pass
from tests.conftest import CASE_IDS, CASES
from tests.passes import corpus_numerics
from tests.passes.golden import GoldenCase, case_params, run_case

O = Opcode
LAYOUT_PASSES = ("layout-assignment", "transpose-folding", "copy-insertion")


@pytest.mark.parametrize("case", [p for n in LAYOUT_PASSES for p in case_params(n)])
def test_golden(case: GoldenCase) -> None:
    run_case(case)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize(
    "passes", ["layout-assignment", "transpose-folding,layout-assignment", "copy-insertion"]
)
def test_corpus_numerics(case: Path, passes: str) -> None:
    corpus_numerics.check(case, passes)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_optimized_dumps_keep_their_meaning(case: Path) -> None:
    corpus_numerics.check(case, "layout-assignment,copy-insertion", "module.opt.hlo")


def test_layout_assignment_is_idempotent_and_row_major() -> None:
    module, _ = corpus_numerics.load(Path(__file__).parents[1] / "data/corpus/transpose")
    make_pass("layout-assignment").run(module)
    assert not make_pass("layout-assignment").run(module)
    for ins in module.entry.instructions:
        if ins.opcode is not O.BITCAST and ins.shape.is_array:
            assert ins.shape.layout == Layout.default_for_rank(ins.shape.rank), ins.name


def test_copy_insertion_leaves_a_donatable_init_alone() -> None:
    module = parse_hlo("""
HloModule m
body {
  s = (f32[4]{0}) parameter(0)
  x = f32[4]{0} get-tuple-element(s), index=0
  y = f32[4]{0} negate(x)
  ROOT r = (f32[4]{0}) tuple(y)
}
cond {
  s = (f32[4]{0}) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  init = (f32[4]{0}) tuple(n)
  ROOT w = (f32[4]{0}) while(init), condition=cond, body=body
}""")
    assert not make_pass("copy-insertion").run(module)


def test_copy_insertion_copies_a_value_read_after_the_update() -> None:
    module = parse_hlo("""
HloModule m
body {
  s = (f32[4]{0}, f32[4]{0}) parameter(0)
  x = f32[4]{0} get-tuple-element(s), index=0
  y = f32[4]{0} negate(x)
  late = f32[4]{0} add(x, x)
  ROOT r = (f32[4]{0}, f32[4]{0}) tuple(y, late)
}
cond {
  s = (f32[4]{0}, f32[4]{0}) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  a = f32[4]{0} negate(p)
  b = f32[4]{0} abs(p)
  init = (f32[4]{0}, f32[4]{0}) tuple(a, b)
  ROOT w = (f32[4]{0}, f32[4]{0}) while(init), condition=cond, body=body
}""")
    assert make_pass("copy-insertion").run(module)
    root = module.computation("body").root
    assert root is not None
    # y overwrites x while `late` (not an operand of y) may still read x: y is copied.
    assert root.operand(0).opcode is O.COPY
