"""while-loop-simplifier: golden cases (tests/passes/data/while-loop-simplifier.hlo)."""

from __future__ import annotations

import pytest

from tests.passes.golden import GoldenCase, case_params, run_case


@pytest.mark.parametrize("case", case_params("while-loop-simplifier"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)
