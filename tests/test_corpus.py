"""What the tests' copy of the corpus holds, pinned so that the corpus-wide tests'
choices are visible: every case has its three texts and data, and the only text whose
data is not all in the file is XLA's compiled avg_pool, which elides a 24-element
constant as `{...}` (so no tool can reproduce its outputs from the text)."""

from __future__ import annotations

from tests.conftest import CASES, hlo_texts, runnable


def test_every_case_is_complete() -> None:
    assert len(CASES) == 75
    for case in CASES:
        for name in ("module.hlo", "module.opt.hlo", "module.stablehlo.mlir", "inputs.npz",
                     "expected.npz", "case.json"):
            assert (case / name).exists(), case / name


def test_only_compiled_avg_pool_elides_constants() -> None:
    assert [i for i, p in hlo_texts() if not runnable(p)] == ["avg_pool/module.opt.hlo"]
