"""StableHLO's own interpreter suite (tests/data/stablehlo_interpret, from openxla/stablehlo):
under the spec's semantics every chunk passes, except the collectives (ops across
replicas or partitions, and `interpreter.run_parallel`), which another feature covers."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.check_dialect.runner import run_text, split_chunks
from hlotool.semantics import using

DATA = Path(__file__).resolve().parent / "data" / "stablehlo_interpret"
#: Ops that need several replicas or partitions, or host transfers.
COLLECTIVE = ("all_gather", "all_reduce", "all_to_all", "collective_broadcast",
              "collective_permute", "reduce_scatter", "replica_id", "partition_id", "infeed",
              "outfeed", "stablehlo.send", "stablehlo.recv", "interpreter.run_parallel")
FILES = sorted(DATA.glob("*.mlir"))


def _collective(chunk: str) -> bool:
    return any(op in chunk for op in COLLECTIVE)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_chunk_passes(path: Path) -> None:
    text = path.read_text()
    chunks = [c for c in split_chunks(text) if c.strip()]
    with using("stablehlo"):
        report = run_text(text)
    assert len(report.chunks) == len(chunks)
    bad = [(c.line, c.reason) for c, text in zip(report.chunks, chunks, strict=True)
           if c.status != "pass" and not _collective(text)]
    assert not bad, bad


def test_the_suite_is_whole() -> None:
    chunks = [c for p in FILES for c in split_chunks(p.read_text()) if c.strip()]
    assert (len(FILES), len(chunks), sum(not _collective(c) for c in chunks)) == (101, 509, 471)
