"""Every corpus module runs on the CPU target and matches XLA's expected outputs."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from hlotool import values_io
from hlotool.frontend import parse_hlo
from hlotool.targets.base import ExecutionStats
from hlotool.targets.cpu import compile_module
from tests.conftest import hlo_texts, runnable, tolerance

#: Modules with elided constants (`constant({...})`): no executor can reproduce them.
TEXTS = hlo_texts()


@functools.cache
def run_case(path: Path) -> tuple[list[dict[str, object]], ExecutionStats]:
    """Mismatching outputs (as JSON) and the run's counters, computed once per module."""
    case = path.parent
    module = parse_hlo(path.read_text())
    args = values_io.entry_arguments(module, values_io.load_npz(case / "inputs.npz"))
    ex = compile_module(module)
    out = values_io.output_arrays(ex.run(args))
    rtol, atol = tolerance(case)
    diffs = values_io.compare_outputs(out, values_io.load_npz(case / "expected.npz"), rtol, atol)
    return [d.as_json() for d in diffs if not d.ok], ex.stats


@pytest.mark.parametrize(("path"), [p for _, p in TEXTS if runnable(p)],
                         ids=[i for i, p in TEXTS if runnable(p)])
def test_corpus_module(path: Path) -> None:
    bad, _ = run_case(path)
    assert not bad, bad


def test_native_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    """Report how many instruction executions ran natively; keep the fraction above a floor."""
    totals = {"module.hlo": [0, 0], "module.opt.hlo": [0, 0]}
    lines = []
    for ident, path in TEXTS:
        if not runnable(path):
            continue
        _, s = run_case(path)
        totals[path.name][0] += s.native
        totals[path.name][1] += s.fallback
        lines.append(f"{ident}: {s.native} native, {s.fallback} fallback {s.fallback_by_opcode}")
    with capsys.disabled():
        for name, (n, f) in totals.items():
            print(f"\ncpu native coverage {name}: {n}/{n + f} = {n / (n + f):.1%}")
    for name, (n, f) in totals.items():
        assert n / (n + f) > (0.98 if name == "module.hlo" else 0.96), "\n".join(lines)
