"""Shared data of the HloProto tests: the real jax dump in tests/data/dump_proto."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "dump_proto"
DUMP = DATA / "dump"
#: (module name, file stem of its dump files, inputs/expected npz prefix)
MODULES = [("jit_mlp", "module_0000.jit_mlp", "mlp"), ("jit_loop", "module_0002.jit_loop", "loop"),
           ("jit_sort_scatter", "module_0004.jit_sort_scatter", "sort_scatter")]
STAGES = {"before": "before_optimizations", "after": "cpu_after_optimizations"}


def dump_files(stem: str, stage: str) -> tuple[Path, Path]:
    """The text and the HloProto XLA dumped for one module and stage."""
    base = DUMP / f"{stem}.{STAGES[stage]}"
    return base.with_name(base.name + ".txt"), base.with_name(base.name + ".hlo.pb")
