"""`hlotool test FILE.mlir`: run a StableHLO test file's argument-free functions and
report each `check.*` op (exit 0 all pass, 1 a check failed, 2 bad input)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from hlotool.commands.common import EXIT_BAD_INPUT, EXIT_MISMATCH, EXIT_OK, Source, add_timeout

if TYPE_CHECKING:
    from hlotool.check_dialect.runner import CheckResult, FileReport

HELP = "run a StableHLO test file and report its check.* ops"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="StableHLO text with check ops; - for stdin")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_timeout(p, "the whole test file")
    p.add_argument("--semantics", choices=("stablehlo", "xla-cpu"), default="stablehlo",
                   help="numerics: the StableHLO spec's (default; denormals kept) or XLA:CPU's")


def run(args: argparse.Namespace) -> int:
    from hlotool.check_dialect import run_text
    from hlotool.semantics import using

    src = Source(args.file)
    args._source = src
    with using(args.semantics):
        report = run_text(src.text)
    for error in report.errors:
        print(_render(error, src), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(_as_json(report, src.name), default=str))
    else:
        _print_table(report, src.name)
        for r in report.results:
            if r.status == "fail":
                print(f"{location(r, src.name)}: check failed: {r.spec.kind}: {detail(r)}")
    for c in report.chunks:
        if c.status == "fail":
            print(f"{src.name}:{c.line}: chunk {c.index + 1} failed: {c.reason}")
    checks = [report.count(k) for k in ("pass", "fail", "not run")]
    print(f"({checks[0]} checks passed, {checks[1]} failed"
          + (f", {checks[2]} not run (in code that did not execute))" if checks[2] else ")"))
    passed, failed = report.chunk_count("pass"), report.chunk_count("fail")
    print(f"{passed} passed, {failed} failed")
    if report.chunks and all(c.refused for c in report.chunks):
        return EXIT_BAD_INPUT
    return EXIT_MISMATCH if failed else EXIT_OK


def _render(error: Any, src: Source) -> str:
    return error.render(src.text, src.name) if error.line else f"{src.name}: error: {error.message}"


def location(result: CheckResult, name: str) -> str:
    """FILE:LINE:COL of a check op."""
    return f"{name}:{result.spec.line}:{result.spec.column}"


def detail(result: CheckResult) -> str:
    """A one-line account of a failure (empty for other results)."""
    o = result.outcome
    if result.status != "fail":
        return ""
    parts = [o.message]
    if o.index or o.got is not None:
        parts.append(f"first at index {list(o.index)}: got {_fmt(o.got)}, expected {_fmt(o.want)}")
    if o.max_abs is not None:
        parts.append(f"max abs error {o.max_abs:.6g}")
    if result.runs > 1:
        parts.append(f"run {result.failing_run + 1} of {result.runs}")
    return "; ".join(parts)


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if type(x).__module__.startswith("ml_dtypes"):
        return repr(float(x))
    return repr(x.item()) if hasattr(x, "item") else repr(x)


def _print_table(report: FileReport, name: str) -> None:
    from rich.console import Console
    from rich.table import Table

    if not report.results:
        return
    rows = [[location(r, name), r.spec.kind, r.status, detail(r)] for r in report.results]
    table = Table(title=f"checks in {name}", title_justify="left")
    for i, col in enumerate(("location", "check", "result")):
        table.add_column(col, no_wrap=True, min_width=max(len(col), *(len(r[i]) for r in rows)))
    table.add_column("detail", ratio=1, overflow="fold")
    style = {"pass": "green", "fail": "bold red", "not run": "yellow"}
    for row in rows:
        table.add_row(row[0], row[1], f"[{style[row[2]]}]{row[2]}[/]", row[3])
    Console(highlight=False).print(table)


def _as_json(report: FileReport, name: str) -> dict[str, Any]:
    checks = [
        {"location": location(r, name), "check": r.spec.kind, "function": r.function,
         "status": r.status, "runs": r.runs, "detail": detail(r),
         "index": list(r.outcome.index), "max_abs": r.outcome.max_abs}
        for r in report.results
    ]
    chunks = [{"chunk": c.index + 1, "line": c.line, "status": c.status, "reason": c.reason}
              for c in report.chunks]
    return {"checks": checks, "chunks": chunks, "passed": report.chunk_count("pass"),
            "failed": report.chunk_count("fail"), "checks_passed": report.count("pass"),
            "checks_failed": report.count("fail"), "not_run": report.count("not run"),
            "errors": [str(e) for e in report.errors]}
