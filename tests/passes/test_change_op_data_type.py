"""change-op-data-type: golden cases (tests/passes/data/change-op-data-type.hlo)."""

from __future__ import annotations

import pytest

from tests.passes.golden import GoldenCase, case_params, run_case


@pytest.mark.parametrize("case", case_params("change-op-data-type"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)
