"""while-loop-invariant-code-motion: golden cases
(tests/passes/data/while-loop-invariant-code-motion.hlo)."""

from __future__ import annotations

import pytest

from tests.passes.golden import GoldenCase, case_params, run_case


@pytest.mark.parametrize("case", case_params("while-loop-invariant-code-motion"))
def test_golden(case: GoldenCase) -> None:
    run_case(case)
