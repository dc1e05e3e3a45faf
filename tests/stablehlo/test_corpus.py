"""Every corpus module parses, lowers to IR that verifies, prints as HLO that our HLO
parser reads back to the same text, and the shape-polymorphic one runs once specialized."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.stablehlo import is_dynamic, parse_stablehlo, specialize
from hlotool.ir.types import UNBOUNDED
from hlotool.ir.printer import print_module
from hlotool.verifier import verify

DATA = Path(__file__).parent / "data"
CORPUS = sorted((DATA / "corpus").glob("*.mlir"))
FORMS = sorted((DATA / "forms").glob("*.mlir"))


@pytest.mark.parametrize("path", CORPUS + FORMS, ids=lambda p: p.stem)
def test_parses_verifies_and_prints_a_fixed_point(path: Path) -> None:
    module = parse_stablehlo(path.read_text())
    verify(module)
    text = print_module(module)
    again = parse_hlo(text)
    verify(again)
    assert print_module(again) == text


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_callees_precede_callers(path: Path) -> None:
    module = parse_stablehlo(path.read_text())
    seen: set[int] = set()
    for comp in module.computations:
        for ins in comp.instructions:
            assert all(id(c) in seen for c in ins.called_computations), ins.name
        seen.add(id(comp))
    assert module.computations[-1].is_entry


def test_dynamic_module_keeps_unbounded_dims() -> None:
    module = parse_stablehlo((DATA / "corpus" / "dynamic_shape_poly.mlir").read_text())
    assert is_dynamic(module)
    assert module.entry.parameters[0].shape.dimensions == (UNBOUNDED, 4)
    targets = {i.attrs.get("custom_call_target") for c in module.computations for i in c}
    assert "stablehlo.dynamic_iota" in targets


def test_specialize_makes_every_shape_static() -> None:
    text = (DATA / "corpus" / "dynamic_shape_poly.mlir").read_text()
    module = specialize(text, [(6, 4), (4, 5)])
    verify(module)
    assert not is_dynamic(module)
    for comp in module.computations:
        for ins in comp.instructions:
            assert not ins.shape.is_dynamic, ins.name
            assert ins.opcode.value != "custom-call", ins.name
    assert [s.dimensions for s in module.entry.root.shape.tuple_shapes] == [(5,), (24,), (12,)]


def test_specialize_accepts_a_parsed_module() -> None:
    module = parse_stablehlo((DATA / "corpus" / "dynamic_shape_poly.mlir").read_text())
    assert print_module(specialize(module, [(3, 4), (4, 5)])) == print_module(
        specialize((DATA / "corpus" / "dynamic_shape_poly.mlir").read_text(), [(3, 4), (4, 5)])
    )


def test_shape_assertions_are_checked_when_specializing() -> None:
    from hlotool.diagnostics import HloError

    text = (DATA / "corpus" / "dynamic_shape_poly.mlir").read_text()
    with pytest.raises(HloError, match=r"Expected value >= 1 for dimension variable 'b'\..*'b' = 0"):
        specialize(text, [(0, 4), (4, 5)])


def test_dynamic_case_runs_with_the_expected_results() -> None:
    from hlotool import values_io
    from hlotool.interpreter.core import Evaluator

    case = DATA / "dynamic_shape_poly"
    text = (DATA / "corpus" / "dynamic_shape_poly.mlir").read_text()
    inputs = values_io.load_npz(case / "inputs.npz")
    args = values_io.entry_arguments(parse_stablehlo(text), inputs)
    module = specialize(text, [np.shape(a) for a in args])
    with np.errstate(all="ignore"):
        result = Evaluator(module).run(args)
    got = values_io.output_arrays(result)
    want = values_io.load_npz(case / "expected.npz")
    tol = json.loads((case / "case.json").read_text())["tolerance"]
    diffs = values_io.compare_outputs(got, want, tol["rtol"], tol["atol"])
    assert all(d.ok for d in diffs), [d.as_json() for d in diffs]


def test_specialize_for_values_takes_the_argument_arrays() -> None:
    from hlotool.stablehlo import specialize_for_values

    text = (DATA / "corpus" / "dynamic_shape_poly.mlir").read_text()
    args = [np.zeros((2, 4), np.float32), np.zeros((4, 5), np.float32)]
    module = specialize_for_values(parse_stablehlo(text), args)
    assert [p.shape.dimensions for p in module.entry.parameters] == [(2, 4), (4, 5)]
