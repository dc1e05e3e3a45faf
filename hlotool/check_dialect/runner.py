"""Run a StableHLO test file: every argument-free function of each `// -----` chunk
(only @main when the chunk has one), then judge what its check ops observed.

A check that runs several times (in a loop body) passes when every run passes; one
that never runs (in a branch not taken) is reported as `not run`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from hlotool.check_dialect.compare import Outcome, compare
from hlotool.check_dialect import parallel  # noqa: F401  (registers interpreter.run_parallel)
from hlotool.check_dialect.ops import COLLECTOR, CheckSpec, Collector, RecordingEvaluator
from hlotool.diagnostics import HloError
from hlotool.stablehlo import lower_stablehlo
from hlotool.stablehlo.ast import FileAst, FuncAst
from hlotool.stablehlo.parser import parse_stablehlo_ast

_SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
#: `check.expect_almost_eq_const %x, dense<...> : T {tolerance = V : f64}` and
#: `... : T, tolerance = V`: the tolerance moved before the `:` that the parser expects.
_TRAILING_TOLERANCE = re.compile(
    r"^(?P<head>[ \t]*check\.expect_almost_eq_const[ \t]+%[^,\n]+,[ \t]*dense<[^<>\n]*>)"
    r"[ \t]*:[ \t]*(?P<type>tensor<[^{}\n]*?>)[ \t]*"
    r"(?:\{[ \t]*tolerance[ \t]*=[ \t]*(?P<a>[-+0-9.eE]+)(?:[ \t]*:[ \t]*f\d+)?[ \t]*\}"
    r"|,[ \t]*tolerance[ \t]*=[ \t]*(?P<b>[-+0-9.eE]+))",
    re.MULTILINE,
)


@dataclass
class CheckResult:
    """The verdict on one check op."""

    spec: CheckSpec
    function: str
    status: str  # "pass", "fail" or "not run"
    outcome: Outcome = field(default_factory=lambda: Outcome(True))
    runs: int = 0
    failing_run: int = 0


@dataclass
class ChunkResult:
    """The verdict on one `// -----` chunk: it passes when everything in it ran and every
    check passed; a refusal (bad input, an unsupported op) or a crash fails it alone."""

    index: int
    line: int
    status: str  # "pass" or "fail"
    reason: str = ""
    #: Refused as bad input or unsupported (an HloError), not a crash or a failed check.
    refused: bool = False


@dataclass
class FileReport:
    """Every check of a file, and the functions that could not be run."""

    results: list[CheckResult] = field(default_factory=list)
    errors: list[HloError] = field(default_factory=list)
    functions: int = 0
    chunks: list[ChunkResult] = field(default_factory=list)

    def chunk_count(self, status: str) -> int:
        return sum(c.status == status for c in self.chunks)

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)


def split_chunks(text: str) -> list[str]:
    """The `// -----` chunks, each padded with newlines so that lines keep their numbers."""
    chunks, start, line = [], 0, 0
    for m in _SPLIT.finditer(text):
        chunks.append("\n" * line + text[start : m.start()])
        line += text.count("\n", start, m.end())
        start = m.end()
    chunks.append("\n" * line + text[start:])
    return chunks


def normalize(text: str) -> str:
    """Rewrite check spellings the StableHLO parser does not take into ones it does."""

    def move(m: re.Match[str]) -> str:
        value = m.group("a") or m.group("b")
        return f"{m.group('head')}, tolerance = {value} : {m.group('type')}"

    return _TRAILING_TOLERANCE.sub(move, text)


def entry_functions(file: FileAst) -> list[FuncAst]:
    """@main when the chunk has one, else every function with a body and no arguments."""
    funcs = [f for m in file.modules for f in m.funcs if f.body is not None]
    main = [f for f in funcs if f.name == "main"]
    return main or [f for f in funcs if not f.args]


_RUN_ARGS = re.compile(r'^// RUN:.*--args="\[(?P<args>.*)\]"', re.MULTILINE)
_ARG = re.compile(r"dense<[^<>]*>\s*:\s*tensor<[^<>]*>")


def run_arguments(text: str) -> list[np.ndarray]:
    """The values a RUN line passes to @main (`--args="[dense<1> : tensor<2xi32>, ...]"`),
    computed by running constants of those literals."""
    m = _RUN_ARGS.search(text)
    if m is None:
        return []
    literals = _ARG.findall(m.group("args"))
    if not literals:
        return []
    body = "".join(f"  %{i} = stablehlo.constant {lit}\n" for i, lit in enumerate(literals))
    types = ", ".join(lit.split(":", 1)[1].strip() for lit in literals)
    names = ", ".join(f"%{i}" for i in range(len(literals)))
    source = f"func.func @main() -> ({types}) {{\n{body}  func.return {names} : {types}\n}}\n"
    values = RecordingEvaluator(lower_stablehlo(parse_stablehlo_ast(source), entry="main")).run([])
    return list(values) if isinstance(values, tuple) else [values]


def run_text(text: str, report: FileReport | None = None) -> FileReport:
    """Run every chunk of a test file, each on its own: a syntax error, a refusal or a
    crash fails that chunk (with its reason) and the others still run. @main takes the
    arguments a RUN line gives with --args."""
    report = report or FileReport()
    args = run_arguments(text)
    for index, chunk in enumerate(split_chunks(text)):
        line = chunk[: len(chunk) - len(chunk.lstrip())].count("\n") + 1
        if not chunk.strip():
            continue
        before = len(report.results)
        try:
            file = parse_stablehlo_ast(normalize(chunk))
        except HloError as exc:
            report.errors.append(exc)
            report.chunks.append(ChunkResult(index, exc.line or line, "fail",
                                             f"refused: {exc.message}", refused=True))
            continue
        reasons: list[str] = []
        refused = False
        for func in entry_functions(file):
            report.functions += 1
            try:
                report.results.extend(run_function(file, func.name,
                                                   args if func.args else []))
            except HloError as exc:
                report.errors.append(exc)
                reasons.append(f"refused: {exc.message}")
                refused = True
            except Exception as exc:  # noqa: BLE001 -- a crash fails its chunk only
                reasons.append(f"crashed: {type(exc).__name__}: {exc}")
        failed = [r for r in report.results[before:] if r.status == "fail"]
        if failed and not reasons:
            reasons.append(f"{len(failed)} check{'s' if len(failed) > 1 else ''} failed")
        report.chunks.append(ChunkResult(index, line, "fail" if reasons else "pass",
                                         reasons[0] if reasons else "", refused=refused))
    return report


def run_function(file: FileAst, name: str,
                 args: list[np.ndarray] | None = None) -> list[CheckResult]:
    """Lower one function with its checks, run it (on `args`), and judge each check."""
    collector = Collector()
    token = COLLECTOR.set(collector)
    try:
        module = lower_stablehlo(file, entry=name)
    finally:
        COLLECTOR.reset(token)
    ev = RecordingEvaluator(module)
    with np.errstate(all="ignore"):
        ev.run(args or [])
    specs = sorted(collector.specs.items(), key=lambda kv: (kv[1].line, kv[1].column))
    return [_judge(spec, ev.observations.get(key, []), ev, name) for key, spec in specs]


def _judge(spec: CheckSpec, runs: list[list[np.ndarray]], ev: RecordingEvaluator,
           function: str) -> CheckResult:
    if not runs:
        return CheckResult(spec, function, "not run")
    for i, values in enumerate(runs):
        outcome = _observe(spec, values, ev)
        if not outcome.ok:
            return CheckResult(spec, function, "fail", outcome, len(runs), i)
    return CheckResult(spec, function, "pass", Outcome(True), len(runs))


def _observe(spec: CheckSpec, values: list[np.ndarray], ev: RecordingEvaluator) -> Outcome:
    if spec.kind != "expect_serialized_eq":
        return compare(spec, values[0], values[1])
    recorded = ev.probes.get(spec.probe_id, [])
    if spec.iteration >= len(recorded):
        return Outcome(False, f"probe '{spec.probe_id}' recorded {len(recorded)} value(s); "
                              f"iteration {spec.iteration} does not exist")
    return compare(spec, values[0], recorded[spec.iteration])
