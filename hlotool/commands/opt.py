"""`hlotool opt FILE`: run a pass pipeline (or a list of passes) and print the result."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hlotool.commands.common import EXIT_OK, UsageError, add_input, add_timeout, load, write_text
from hlotool.safe_io import check_dump_dir, check_output

if TYPE_CHECKING:
    from hlotool.ir.module import Module
    from hlotool.passes.base import Pass
    from hlotool.passes.pipeline import Instrument, Pipeline, StepResult

HELP = "run a pass pipeline (or a list of passes) and print the optimized module"
#: Pipelines with more steps than this show a progress line on a terminal.
PROGRESS_MIN_STEPS = 8


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_input(p)
    add_timeout(p, "the passes")
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--pipeline", help="a named pipeline: default, cpu, gpu, tpu (default: default)"
    )
    which.add_argument("--passes", help="passes to run in order: a,b{option=value},c")
    p.add_argument(
        "--dump-dir", help="write NNN-<pass>.hlo after every pass that changed the module"
    )
    p.add_argument(
        "-o", "--output", help="write the optimized module here (default: standard output)"
    )
    p.add_argument(
        "--verify-each",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run the verifier after every pass (default: on)",
    )
    p.add_argument(
        "--check-change-report",
        action="store_true",
        help="also check, by fingerprints before and after every pass, that each pass says "
        "truthfully whether it changed the module (XLA checks this in debug builds only)",
    )
    p.add_argument(
        "--time-passes", action="store_true", help="print how long each pass took (standard error)"
    )


def run(args: argparse.Namespace) -> int:
    from hlotool.ir.printer import print_module

    check_output(args.output)
    if args.dump_dir:
        check_dump_dir(args.dump_dir)
    module = load(args)
    instruments: list[Instrument] = []
    if args.dump_dir:
        from hlotool.passes.pipeline import DumpAfterChange

        instruments.append(DumpAfterChange(Path(args.dump_dir)))
    results = apply_passes(
        module,
        args.pipeline,
        args.passes,
        instruments=instruments,
        verify_each=args.verify_each,
        check_report=args.check_change_report,
        progress=sys.stderr.isatty(),
    )
    write_text(args.output, print_module(module))
    if args.time_passes:
        print_timings(results)
    return EXIT_OK


def resolve(pipeline: str | None, passes: str | None) -> Pipeline:
    """The pipeline to run: a named one, or an ad-hoc one from a pass list (the
    `default` pipeline when neither is given). Bad names are UsageErrors."""
    from hlotool.passes.base import PassError
    from hlotool.passes.pipeline import Pipeline, Step
    from hlotool.passes.pipelines import get_pipeline
    from hlotool.passes.registry import parse_pass_list

    if pipeline and passes:
        raise UsageError("give --pipeline or --passes, not both")
    try:
        if passes:
            return Pipeline("passes", tuple(Step(p) for p in parse_pass_list(passes)))
        return get_pipeline(pipeline or "default")
    except PassError as exc:
        raise UsageError(str(exc)) from None


def apply_passes(
    module: Module,
    pipeline: str | None,
    passes: str | None,
    *,
    instruments: Sequence[Instrument] = (),
    verify_each: bool = True,
    check_report: bool = False,
    progress: bool = False,
) -> list[StepResult]:
    """Run a named pipeline or a pass list on `module` in place (what `opt` and
    `run --pipeline/--passes` do); returns one result per pass application. The verifier
    runs after every pass that changed the module, as XLA's HloPassPipeline runs its
    invariant checkers; `check_report` adds the change-report check."""
    from hlotool.passes.pipeline import check_change_report, verify_after_each

    chosen = resolve(pipeline, passes)
    hooks: list[Instrument] = [verify_after_each] if verify_each else []
    if check_report:
        hooks.append(check_change_report)
    hooks.extend(instruments)
    if progress and len(chosen.flat_steps()) >= PROGRESS_MIN_STEPS:
        return _with_progress(chosen, module, hooks)
    return chosen.run(module, hooks)


def _with_progress(pipeline: Pipeline, module: Module, hooks: list[Instrument]) -> list[StepResult]:
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from hlotool.passes.pipeline import without_fingerprint

    columns = (SpinnerColumn(), TextColumn("[bold]{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{pipeline.name}: starting")

        @without_fingerprint
        def show(p: Pass, m: Module, result: StepResult) -> None:
            bar.update(
                task,
                description=f"{pipeline.name}: {result.index + 1} passes, "
                f"last {p.spec} ({m.instruction_count} instructions)",
            )

        return pipeline.run(module, [*hooks, show])


def print_timings(results: Sequence[StepResult]) -> None:
    """A table of pass applications and a total per pass, on standard error."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="pass timings", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("pass")
    table.add_column("changed", justify="center")
    table.add_column("ms", justify="right")
    table.add_column("instructions", justify="right")
    for r in results:
        table.add_row(
            str(r.index + 1),
            r.spec,
            "yes" if r.changed else "",
            f"{r.seconds * 1e3:.1f}",
            f"{r.instructions_before} -> {r.instructions_after}",
        )
    totals: dict[str, float] = {}
    for r in results:
        totals[r.spec] = totals.get(r.spec, 0.0) + r.seconds
    table.add_section()
    for spec, seconds in sorted(totals.items(), key=lambda kv: -kv[1])[:5]:
        table.add_row("", f"total {spec}", "", f"{seconds * 1e3:.1f}", "")
    table.add_row("", "all passes", "", f"{sum(r.seconds for r in results) * 1e3:.1f}", "")
    Console(stderr=True, highlight=False).print(table)
