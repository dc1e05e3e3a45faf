"""Helpers for the TPU target tests: build, compile and simulate small modules."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from hlotool.frontend import parse_hlo
from hlotool.targets.tpu import TpuTarget, get_chip, prepare
from hlotool.targets.tpu.compiler import compile_program
from hlotool.targets.tpu.program import Program
from hlotool.targets.tpu.report import summary
from hlotool.targets.tpu.simulate import Simulation


def dot_module(m: int, k: int, n: int, *, dtype: str = "f32", out: str = "f32",
               precision: str | None = None, batch: int = 0) -> str:
    """An HLO module computing one [batch,]M x K @ [batch,]K x N dot."""
    prec = f", operand_precision={{{precision},{precision}}}" if precision else ""
    if batch:
        dims = (f"lhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, rhs_batch_dims={{0}}, "
                f"rhs_contracting_dims={{1}}")
        a, b, o = f"[{batch},{m},{k}]{{2,1,0}}", f"[{batch},{k},{n}]{{2,1,0}}", \
            f"[{batch},{m},{n}]{{2,1,0}}"
    else:
        dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
        a, b, o = f"[{m},{k}]{{1,0}}", f"[{k},{n}]{{1,0}}", f"[{m},{n}]{{1,0}}"
    return (f"HloModule dot\n\nENTRY e {{\n  a = {dtype}{a} parameter(0)\n"
            f"  b = {dtype}{b} parameter(1)\n"
            f"  ROOT d = {out}{o} dot(a, b), {dims}{prec}\n}}\n")


def program_of(text: str, chip: str = "v5e", dataflow: str | None = None,
               **overrides: Any) -> tuple[Any, Program]:
    module = prepare(parse_hlo(text))
    return module, compile_program(module, get_chip(chip, dataflow, **overrides))


def static_report(text: str, chip: str = "v5e", dataflow: str | None = None,
                  **overrides: Any) -> dict[str, Any]:
    """The report of a module whose kernels each run once (no values computed)."""
    _, program = program_of(text, chip, dataflow, **overrides)
    trace = list(range(len(program.kernels)))
    return summary(Simulation(program, trace, None))


def simulate_text(text: str, args: list[Any], chip: str = "v5e",
                  dataflow: str | None = None) -> tuple[Any, dict[str, Any]]:
    """(result, report) of running a module on the simulated chip."""
    module = prepare(parse_hlo(text))
    ex = TpuTarget(get_chip(chip, dataflow)).compile(module)
    result = ex.run(args)
    return result, ex.report()


@functools.cache
def prepared_case(path: Path) -> Any:
    """A corpus text after the tpu pipeline (cached: simulating does not modify it)."""
    return prepare(parse_hlo(path.read_text()))
