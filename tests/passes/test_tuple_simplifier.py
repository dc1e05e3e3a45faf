"""tuple-simplifier: golden cases (tests/passes/data/tuple-simplifier.hlo)."""

from __future__ import annotations

import pytest

from tests.passes.golden import GoldenCase, case_params, run_case


@pytest.mark.parametrize("case", case_params("tuple-simplifier"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)
