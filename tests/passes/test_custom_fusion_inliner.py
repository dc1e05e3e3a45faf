"""custom-fusion-inliner: golden cases (tests/passes/data/custom-fusion-inliner.hlo)."""

from __future__ import annotations

import pytest

from tests.passes.golden import GoldenCase, case_params, run_case


@pytest.mark.parametrize("case", case_params("custom-fusion-inliner"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)
