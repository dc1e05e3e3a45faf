"""sort-simplifier: golden cases (tests/passes/data/sort-simplifier.hlo)."""

from __future__ import annotations

import pytest

from tests.passes.golden import GoldenCase, case_params, run_case


@pytest.mark.parametrize("case", case_params("sort-simplifier"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)
