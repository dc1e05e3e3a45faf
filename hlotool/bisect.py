"""Find the first pass after which a module goes wrong, and write a reproducer.

"Wrong" means the verifier rejects the module, the interpreter cannot run it, or its
outputs on fixed seeded inputs differ from the original module's beyond tolerance.
Passes are cheap and interpretation is not, so the passes run once, in order, keeping a
snapshot after each; then a binary search over the snapshots interprets only about
log2(n) of them (LLVM's opt-bisect-limit, automated, with numerics as the predicate).

Shared by `hlotool bisect` and the debugger's `b` key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hlotool.ir.module import Module
    from hlotool.passes.base import Pass
    from hlotool.passes.pipeline import Pipeline, StepResult

#: Called with a one-line progress message (the TUI shows it; the CLI ignores it).
Progress = Callable[[str], None]


@dataclass(frozen=True)
class NumericResult:
    """How one module's outputs compare with the original's on the seeded inputs."""

    ok: bool
    max_abs: float = 0.0
    max_rel: float = 0.0
    #: Why it is not ok (or why it could not be checked), one line.
    detail: str = ""

    @property
    def summary(self) -> str:
        """`max abs 1.2e-07 rel 3.4e-06`, with the problem when there is one."""
        text = f"max abs {self.max_abs:.3g} rel {self.max_rel:.3g}"
        return text if self.ok else f"{text}: {self.detail}" if self.detail else text


class Oracle:
    """Runs modules on fixed seeded inputs and compares them with a reference module.

    The reference outputs are computed once, on first use. When the interpreter cannot
    run the reference, `available` is False and only the verifier is checked."""

    def __init__(self, reference: Module, *, seed: int = 0, rtol: float | None = None,
                 atol: float | None = None) -> None:
        self.reference = reference
        self.seed = seed
        self.rtol = rtol
        self.atol = atol
        self._inputs: list[Any] | None = None
        self._want: dict[str, Any] | None = None
        self.unavailable_reason = ""

    @property
    def available(self) -> bool:
        """Whether numeric checks can run (the reference itself interprets)."""
        self._prepare()
        return self._want is not None

    def _prepare(self) -> None:
        if self._inputs is not None:
            return
        from hlotool import values_io

        self._inputs = values_io.random_arguments(self.reference, self.seed)
        try:
            self._want = run_module(self.reference, self._inputs)
        except Exception as exc:
            self.unavailable_reason = f"the interpreter cannot run the input: {_one_line(exc)}"

    def check(self, module: Module) -> NumericResult:
        """Compare `module`'s outputs with the reference's."""
        from hlotool import values_io

        self._prepare()
        if self._want is None or self._inputs is None:
            return NumericResult(True, detail=self.unavailable_reason)
        try:
            got = run_module(module, self._inputs)
        except Exception as exc:
            return NumericResult(False, detail=f"the interpreter failed: {_one_line(exc)}")
        diffs = values_io.compare_outputs(got, self._want, self.rtol, self.atol)
        bad = [d for d in diffs if not d.ok]
        max_abs = max((d.max_abs for d in diffs), default=0.0)
        max_rel = max((d.max_rel for d in diffs), default=0.0)
        detail = "; ".join(f"{d.key}: {d.reason}" for d in bad[:3])
        return NumericResult(not bad, max_abs, max_rel, detail)


def run_module(module: Module, inputs: Sequence[Any]) -> dict[str, Any]:
    """The module's outputs (out0, out1, ...) on `inputs`, from the interpreter."""
    import numpy as np

    from hlotool import values_io
    from hlotool.interpreter.core import Evaluator

    with np.errstate(all="ignore"):
        return values_io.output_arrays(Evaluator(module).run(list(inputs)))


def verify_error(module: Module) -> str:
    """The verifier's complaint about `module`, or "" when it verifies."""
    from hlotool.diagnostics import HloError
    from hlotool.verifier import verify

    try:
        verify(module)
    except HloError as exc:
        return exc.message
    return ""


def check_module(module: Module, oracle: Oracle | None) -> str:
    """Why `module` is bad ("" when it is fine): verifier first, then numerics."""
    problem = verify_error(module)
    if problem:
        return f"the verifier rejects it: {problem}"
    if oracle is None:
        return ""
    result = oracle.check(module)
    return "" if result.ok else f"outputs differ: {result.detail}"


#: Passes that took at least this long while planning keep their result (`keep`).
SLOW_STEP_SECONDS = 0.3


def expand(pipeline: Pipeline, module: Module,
           progress: Callable[[int, Pass], None] | None = None,
           keep: dict[int, tuple[str, Module, StepResult]] | None = None) -> list[Pass]:
    """The pass applications `pipeline` makes on `module` (fixed-point groups unrolled
    as they actually iterate), found by running it on a clone. A pass that raises ends
    the list (it is included, so bisecting reaches it). `progress(count, pass)` is
    called after each application. With `keep`, each application that took at least
    SLOW_STEP_SECONDS leaves (fingerprint before, a copy of the module after, its
    result) under its index, for the debugger to take instead of running it again."""
    from hlotool.ir.structure import clone_module, fingerprint

    applied: list[Pass] = []
    work = clone_module(module)
    names = {id(s.pass_): s.pass_ for s in pipeline.flat_steps()}
    before = [fingerprint(work)] if keep is not None else []

    def record(p: Pass, m: Module, result: StepResult) -> None:
        if keep is not None:
            if result.seconds >= SLOW_STEP_SECONDS:
                keep[len(applied)] = (before[-1], clone_module(m), result)
            before.append(result.fingerprint)
        applied.append(names.get(id(p), p))
        if progress is not None:
            progress(len(applied), p)

    try:
        pipeline.run(work, [record])
    except Exception:
        failed = _failing_pass(pipeline, applied)
        if failed is not None:
            applied.append(failed)
    return applied


def _failing_pass(pipeline: Pipeline, applied: list[Pass]) -> Pass | None:
    """The pass that raised: the flat step after the last one recorded (a best guess
    inside fixed-point groups, exact for straight pipelines)."""
    flat = [s.pass_ for s in pipeline.flat_steps()]
    if not applied:
        return flat[0] if flat else None
    last = applied[-1]
    for i, p in enumerate(flat):
        if p is last and i + 1 < len(flat):
            return flat[i + 1]
    return None


@dataclass
class BisectResult:
    """The outcome of a bisection."""

    found: bool
    #: 0-based index into the pass list of the first bad pass (-1 when none).
    index: int = -1
    pass_spec: str = ""
    reason: str = ""
    #: The module just before the bad pass (the reproducer's input).
    before: Module | None = None
    total: int = 0
    #: How many modules were checked (verifier + interpreter runs).
    checks: int = 0
    #: Set when numerics could not be checked (only the verifier was).
    note: str = ""
    specs: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """One line for the terminal."""
        if not self.found:
            return f"no bad pass among {self.total} ({self.checks} checks)"
        return (f"first bad pass: #{self.index + 1} of {self.total} {self.pass_spec}: "
                f"{self.reason}")

    def reproducer(self) -> str:
        """The module before the bad pass, headed by comments saying how to reproduce."""
        from hlotool.ir.printer import print_module

        if not self.found or self.before is None:
            return ""
        header = [
            "// hlotool bisect reproducer",
            f"// first bad pass: #{self.index + 1} of {self.total}: {self.pass_spec}",
            f"// problem: {self.reason}",
            f"// reproduce: hlotool opt THIS_FILE --passes '{self.pass_spec}' -o after.hlo",
            "//            then compare `hlotool run` of this file and of after.hlo",
        ]
        return "\n".join(header) + "\n" + print_module(self.before)


def bisect(module: Module, passes: Sequence[Pass], *, rtol: float | None = None, atol: float | None = None,
           seed: int = 0, progress: Progress | None = None) -> BisectResult:
    """Binary search for the first pass in `passes` after which `module` (left
    unchanged) fails the verifier, stops interpreting, or diverges numerically."""
    from hlotool.ir.structure import clone_module

    say = progress or (lambda _msg: None)
    oracle = Oracle(module, seed=seed, rtol=rtol, atol=atol)
    snapshots, crash = _snapshots(module, passes, say)
    specs = [p.spec for p in passes]
    note = "" if oracle.available else oracle.unavailable_reason
    checks = 0

    def bad(i: int) -> str:
        nonlocal checks
        checks += 1
        say(f"checking after pass #{i} {specs[i - 1]}")
        return check_module(snapshots[i], oracle)

    last = len(snapshots) - 1
    first, reason = _search(bad, last)
    if first is None and crash:
        first, reason = last + 1, crash
    if first is None:
        return BisectResult(False, total=len(passes), checks=checks, note=note, specs=specs)
    return BisectResult(True, first - 1, specs[first - 1], reason,
                        clone_module(snapshots[first - 1]), len(passes), checks, note, specs)


def _snapshots(module: Module, passes: Sequence[Pass],
               say: Progress) -> tuple[list[Module], str]:
    """Clones of the module before any pass and after each; stops at a pass that raises
    and returns its error."""
    from hlotool.ir.structure import clone_module

    snapshots = [clone_module(module)]
    work = clone_module(module)
    for i, p in enumerate(passes):
        say(f"applying pass #{i + 1} of {len(passes)} {p.spec}")
        try:
            p.run(work)
        except Exception as exc:
            return snapshots, f"the pass raised {type(exc).__name__}: {_one_line(exc)}"
        snapshots.append(clone_module(work))
    return snapshots, ""


def _search(bad: Callable[[int], str], last: int) -> tuple[int | None, str]:
    """The least i in 1..last with bad(i) non-empty, assuming badness persists."""
    if last < 1:
        return None, ""
    reason = bad(last)
    if not reason:
        return None, ""
    lo, hi = 1, last
    while lo < hi:
        mid = (lo + hi) // 2
        why = bad(mid)
        if why:
            hi, reason = mid, why
        else:
            lo = mid + 1
    return hi, reason


def write_reproducer(result: BisectResult, path: str | Path) -> Path:
    """Write the reproducer of a bisection that found a bad pass; returns the path."""
    from hlotool.safe_io import atomic_write

    out = Path(path)
    atomic_write(out, result.reproducer())
    return out


def _one_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return str(text).splitlines()[0][:200]
