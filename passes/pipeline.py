"""The pass manager: ordered steps and fixed-point groups, with instruments called
after every pass (verify, time, dump after change, fingerprint cross-check).

One hook serves every consumer (xDSL's PassPipeline callback): `hlotool opt`, the
test suite's verify-each, and the debugger's step list.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hlotool.collector import paused
from hlotool.passes.base import Pass

from hlotool.ir.module import Module
from hlotool.ir.structure import fingerprint
from hlotool.safe_io import atomic_write, check_dump_dir


@dataclass(frozen=True)
class Step:
    """One pass in a pipeline, with the one-line reason it is there."""

    pass_: Pass
    reason: str = ""


@dataclass(frozen=True)
class FixedPoint:
    """Run the steps in order until none changes the module (at most `max_iterations`)."""

    name: str
    steps: tuple[Step | FixedPoint, ...]
    max_iterations: int = 10
    reason: str = ""


@dataclass
class StepResult:
    """What one pass application did."""

    index: int
    spec: str
    changed: bool
    reported: bool
    seconds: float
    instructions_before: int
    instructions_after: int
    #: The module's fingerprint after the pass ("" when run without instruments).
    fingerprint: str


Instrument = Callable[[Pass, Module, StepResult], None]


def without_fingerprint(instrument: Instrument) -> Instrument:
    """Mark an instrument that needs only the pass's own change report: a pipeline whose
    instruments are all marked hashes nothing (two fingerprints per pass on a big module
    are most of a pipeline's overhead)."""
    instrument.reads_fingerprint = False  # type: ignore[attr-defined]
    return instrument


def _needs_fingerprint(instruments: Sequence[Instrument]) -> bool:
    return any(getattr(i, "reads_fingerprint", True) for i in instruments)


@dataclass
class Pipeline:
    """A named list of steps."""

    name: str
    steps: tuple[Step | FixedPoint, ...]
    summary: str = ""

    def flat_steps(self) -> list[Step]:
        """Every step once, fixed-point groups expanded (for listing)."""
        return _flatten(self.steps)

    def run(self, module: Module, instruments: Sequence[Instrument] = ()) -> list[StepResult]:
        """Apply the pipeline in place; returns one result per pass application."""
        runner = _Runner(list(instruments))
        with paused():
            runner.steps(self.steps, module)
        return runner.results


def _flatten(steps: Sequence[Step | FixedPoint]) -> list[Step]:
    out: list[Step] = []
    for s in steps:
        out.extend(_flatten(s.steps) if isinstance(s, FixedPoint) else [s])
    return out


@dataclass
class _Runner:
    instruments: list[Instrument]
    results: list[StepResult] = field(default_factory=list)

    def steps(self, steps: Sequence[Step | FixedPoint], module: Module) -> bool:
        changed = False
        for s in steps:
            if isinstance(s, FixedPoint):
                for _ in range(s.max_iterations):
                    if not self.steps(s.steps, module):
                        break
                    changed = True
            else:
                changed |= self.one(s.pass_, module)
        return changed

    def one(self, p: Pass, module: Module) -> bool:
        # The fingerprint after one pass is the one before the next: instruments only read.
        last = self.results[-1].fingerprint if self.results else None
        return run_pass(p, module, self.instruments, self.results, before=last)


def run_pass(p: Pass, module: Module, instruments: Sequence[Instrument] = (),
             results: list[StepResult] | None = None, before: str | None = None) -> bool:
    """Apply one pass with instruments; returns whether the module changed. With
    instruments that read fingerprints (the change-report check, the debugger, dumps)
    that is decided by fingerprint, which is what counts; otherwise by the pass's own
    report (passes are tested to report truthfully), which spares hashing the module
    twice per pass.
    `before` is the module's fingerprint when the caller knows it."""
    count_before = module.instruction_count
    hashing = _needs_fingerprint(instruments)
    if not hashing:
        before = ""
    elif before is None or before == "":
        before = fingerprint(module)
    t0 = time.perf_counter()
    with paused():
        reported = bool(p.run(module))
    seconds = time.perf_counter() - t0
    after = fingerprint(module) if hashing else ""
    index = len(results) if results is not None else 0
    changed = after != before if hashing else reported
    result = StepResult(index, p.spec, changed, reported, seconds, count_before,
                        module.instruction_count, after)
    if results is not None:
        results.append(result)
    for instrument in instruments:
        instrument(p, module, result)
    return result.changed


# -- instruments ---------------------------------------------------------------------------
class PassContractError(Exception):
    """A pass broke the module (verifier) or misreported whether it changed it."""


@without_fingerprint
def verify_after_each(p: Pass, module: Module, result: StepResult) -> None:
    """Run the verifier after a pass that changed the module (by fingerprint or by its
    own report); raise PassContractError naming the pass. An unchanged module is the one
    already checked, so, as XLA's HloPassPipeline does with its invariant checkers, it
    is not verified again."""
    from hlotool.diagnostics import HloError
    from hlotool.verifier import verify

    if not result.changed and not result.reported:
        return
    try:
        verify(module)
    except HloError as exc:
        raise PassContractError(f"after pass {p.spec}: the module does not verify: "
                                f"{exc.message}") from None


def check_change_report(p: Pass, module: Module, result: StepResult) -> None:
    """XLA's VerifyPassChangedReport: a pass that changed the module must say so, and a
    pass that says it changed the module must have changed it."""
    if result.changed != result.reported:
        raise PassContractError(
            f"pass {p.spec} reported changed={result.reported} but the module "
            f"{'changed' if result.changed else 'did not change'}"
        )


@dataclass
class DumpAfterChange:
    """Write the module after every pass that changed it: NNN-<pass>.hlo in `directory`."""

    directory: Path
    count: int = 0

    def __post_init__(self) -> None:
        check_dump_dir(self.directory)

    def __call__(self, p: Pass, module: Module, result: StepResult) -> None:
        if not result.changed:
            return
        from hlotool.ir.printer import print_module

        self.count += 1
        path = self.directory / f"{self.count:03d}-{p.name}.hlo"
        atomic_write(path, print_module(module))
