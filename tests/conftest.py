"""Shared fixtures: the corpus of real JAX modules copied into tests/data/corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "data" / "corpus"
CASES = sorted(p for p in CORPUS.iterdir() if (p / "case.json").exists())
CASE_IDS = [p.name for p in CASES]


def hlo_texts() -> list[tuple[str, Path]]:
    """(id, path) of every module.hlo and module.opt.hlo in the corpus."""
    out = []
    for case in CASES:
        for name in ("module.hlo", "module.opt.hlo"):
            out.append((f"{case.name}/{name}", case / name))
    return out


#: Text of a constant XLA elided when it printed the module: its values are not in the file.
ELIDED_CONSTANT = "constant({...})"


def runnable(path: Path) -> bool:
    """Whether a corpus text carries all its data (no elided constants), so that running
    it can reproduce the case's expected outputs. tests/test_corpus.py pins which do not."""
    return ELIDED_CONSTANT not in path.read_text()


def tolerance(case: Path) -> tuple[float, float]:
    tol = json.loads((case / "case.json").read_text()).get("tolerance", {})
    return float(tol.get("rtol", 1e-5)), float(tol.get("atol", 1e-6))


@pytest.fixture(scope="session")
def corpus() -> Path:
    return CORPUS
