"""Golden before/after tests for passes, in the spirit of xDSL's filecheck tests.

A data file `tests/passes/data/<pass>.hlo` holds cases separated by `// -----` lines::

    // CASE add-zero: x + 0 -> x
    // PASSES: algebraic-simplify            (optional; default: the file's pass)
    HloModule before
    ...
    // AFTER                                 (or `// AFTER unchanged`)
    HloModule after
    ...

Each case runs the passes with the verifier and the changed-report check after each
pass, compares the result with AFTER structurally (names ignored, instruction order
kept), and runs both modules on the same seeded inputs through the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.module import Module
from hlotool.ir.structure import fingerprint
from hlotool.passes.pipeline import check_change_report, run_pass, verify_after_each
from hlotool.passes.registry import parse_pass_list
from hlotool.ir.printer import SHORT, print_module
from hlotool.values_io import compare_outputs, output_arrays, random_arguments
from hlotool.verifier import verify

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class GoldenCase:
    """One before/after pair of a data file."""

    title: str
    passes: str
    before: str
    after: str | None

    @property
    def id(self) -> str:
        return self.title.split(":")[0].strip()


def load_cases(pass_name: str) -> list[GoldenCase]:
    """The cases of `data/<pass_name>.hlo`."""
    text = (DATA / f"{pass_name}.hlo").read_text()
    return [_case(chunk, pass_name) for chunk in text.split("\n// -----\n") if chunk.strip()]


def _case(chunk: str, pass_name: str) -> GoldenCase:
    title, passes = "", pass_name
    before: list[str] = []
    after: list[str] | None = None
    for line in chunk.strip("\n").splitlines():
        if line.startswith("// CASE "):
            title = line.removeprefix("// CASE ").strip()
        elif line.startswith("// PASSES: "):
            passes = line.removeprefix("// PASSES: ").strip()
        elif line.startswith("// AFTER"):
            after = None if "unchanged" in line else []
            if after is None:
                return GoldenCase(title, passes, "\n".join(before), None)
        elif after is not None:
            after.append(line)
        else:
            before.append(line)
    assert after is not None, f"case {title!r} has no // AFTER section"
    return GoldenCase(title, passes, "\n".join(before), "\n".join(after))


def apply_passes(module: Module, passes: str) -> bool:
    """Run a pass list with the contract instruments; returns whether anything changed."""
    changed = False
    for p in parse_pass_list(passes):
        changed |= run_pass(p, module, [verify_after_each, check_change_report])
    return changed


def run_case(case: GoldenCase, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Check one golden case: structure, verifier, change report and numerics."""
    module = parse_hlo(case.before)
    verify(module)
    reference = parse_hlo(case.before)
    changed = apply_passes(module, case.passes)
    got = print_module(module, SHORT)
    if case.after is None:
        assert not changed, f"expected no change, got:\n{got}"
    else:
        want = parse_hlo(case.after)
        verify(want)
        assert fingerprint(module) == fingerprint(want), (
            f"{case.title}\n--- got:\n{got}\n--- want:\n{print_module(want, SHORT)}")
    assert_same_numerics(reference, module, rtol, atol)


def assert_same_numerics(before: Module, after: Module, rtol: float = 1e-5,
                         atol: float = 1e-6, seed: int = 0) -> None:
    """Both modules give the same outputs on the same seeded random inputs."""
    args = random_arguments(before, seed)
    want = output_arrays(Evaluator(before).run(args))
    got = output_arrays(Evaluator(after).run(args))
    bad = [d for d in compare_outputs(got, want, rtol, atol) if not d.ok]
    assert not bad, [f"{d.key}: {d.reason}" for d in bad]


def case_params(pass_name: str) -> list[object]:
    """pytest parameters (with ids) for the cases of one pass."""
    import pytest

    return [pytest.param(c, id=c.id) for c in load_cases(pass_name)]
