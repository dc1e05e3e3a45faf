"""constant-folding: golden cases (tests/passes/data/constant-folding.hlo)."""

from __future__ import annotations

import pytest

from hlotool.passes.constant_folding import DEFAULT_MAX_ELEMENTS, ConstantFoldingPass
from tests.passes.golden import GoldenCase, case_params, run_case


@pytest.mark.parametrize("case", case_params("constant-folding"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)


def test_default_limit_is_xlas() -> None:
    assert ConstantFoldingPass().max_elements == DEFAULT_MAX_ELEMENTS == 45_000_000
