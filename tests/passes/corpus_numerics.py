"""Corpus numerics for pass tests: run passes on a corpus module, with the verifier and
XLA's changed-report check after every pass, and compare the interpreter's outputs with
the expected ones (module.hlo) or with the unoptimized module's (module.opt.hlo, whose
elided constants are filled with seeded values first: the passes must keep the meaning
whatever the values)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hlotool import values_io
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.module import Module
from hlotool.passes.pipeline import Pipeline, Step, check_change_report, verify_after_each
from hlotool.passes.registry import parse_pass_list
from tests.conftest import tolerance

CONTRACT = [verify_after_each, check_change_report]


def load(case: Path, name: str = "module.hlo") -> tuple[Module, list[Any]]:
    """A corpus module (elided constants filled with seeded values) and its stored inputs."""
    module = parse_hlo((case / name).read_text())
    _fill_elided(module)
    return module, values_io.entry_arguments(module, values_io.load_npz(case / "inputs.npz"))


def _fill_elided(module: Module) -> None:
    """Give every elided constant (`{...}`) seeded values of its shape."""
    from hlotool.elided import is_elided
    from hlotool.ir.literal import Literal

    rng = np.random.default_rng(0)
    for comp in module.computations:
        for ins in comp.instructions:
            if is_elided(ins) and ins.shape.is_array:
                dtype = ins.shape.element_type.numpy_dtype
                values = rng.uniform(0.5, 1.5, ins.shape.dimensions).astype(dtype)
                ins.literal = Literal.from_array(values, ins.shape.element_type)


def outputs(module: Module, args: list[Any]) -> dict[str, np.ndarray]:
    with np.errstate(all="ignore"):
        return values_io.output_arrays(Evaluator(module).run(args))


def check(case: Path, pipeline: Pipeline | str, name: str = "module.hlo") -> Module:
    """Run `pipeline` (or a pass list) on a corpus module; assert the results hold."""
    module, args = load(case, name)
    want = (
        values_io.load_npz(case / "expected.npz") if name == "module.hlo" else outputs(module, args)
    )
    if isinstance(pipeline, str):
        pipeline = Pipeline("passes", tuple(Step(p) for p in parse_pass_list(pipeline)))
    pipeline.run(module, CONTRACT)
    rtol, atol = tolerance(case)
    bad = [
        d for d in values_io.compare_outputs(outputs(module, args), want, rtol, atol) if not d.ok
    ]
    assert not bad, [f"{d.key}: {d.reason}" for d in bad]
    return module
