"""`hlotool passes [NAME]`: list the passes and pipelines, or show one of them."""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from hlotool.commands.common import EXIT_OK, UsageError

if TYPE_CHECKING:
    from rich.table import Table

    from hlotool.passes.base import Pass
    from hlotool.passes.pipelines import Group, PipelineSpec, StepSpec

HELP = "list the passes and pipelines (or show one) with descriptions"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="a pass or pipeline to show in detail")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args: argparse.Namespace) -> int:
    from hlotool.passes.pipelines import SPECS
    from hlotool.passes.registry import all_passes

    passes = all_passes()
    if args.name and args.name not in passes and args.name not in SPECS:
        raise UsageError(
            f"no pass or pipeline called {args.name} "
            f"(pipelines: {', '.join(SPECS)}; `hlotool passes` lists the passes)"
        )
    if args.format == "json":
        print(json.dumps(catalogue(args.name), indent=1))
        return EXIT_OK
    from rich.console import Console

    console = Console(highlight=False)
    if args.name in SPECS:
        console.print(pipeline_table(args.name, SPECS[args.name]))
    elif args.name:
        console.print(pass_table(passes[args.name]))
    else:
        console.print(passes_table(passes))
        console.print(pipelines_table(SPECS))
    return EXIT_OK


def catalogue(name: str | None = None) -> dict[str, Any]:
    """Passes and pipelines as data (all of them, or the one called `name`)."""
    from hlotool.passes.pipelines import SPECS
    from hlotool.passes.registry import all_passes

    passes = {
        n: {"summary": c.summary, "xla": c.xla, "options": c.options()}
        for n, c in all_passes().items()
        if name in (None, n)
    }
    pipelines = {
        n: {"summary": s.summary, "steps": [_step_json(x) for x in s.steps]}
        for n, s in SPECS.items()
        if name in (None, n)
    }
    return {"passes": passes, "pipelines": pipelines}


def _step_json(step: StepSpec | Group) -> dict[str, Any]:
    from hlotool.passes.pipelines import Group

    if isinstance(step, Group):
        return {
            "fixed_point": step.name,
            "reason": step.reason,
            "steps": [_step_json(s) for s in step.steps],
        }
    return {"pass": step[0], "reason": step[1]}


def passes_table(passes: dict[str, type[Pass]]) -> Table:
    from rich.table import Table

    table = Table(title="passes (options: name{key=value,...})", title_justify="left")
    # The names are what users type: never cut; the description wraps instead.
    table.add_column("pass", style="bold", no_wrap=True, min_width=max(map(len, passes)))
    table.add_column("what it does · XLA counterpart · options with their defaults",
                     ratio=1, overflow="fold")
    for name, cls in passes.items():
        text = escape(cls.summary)
        if cls.xla:
            text += f"\n[dim]XLA: {escape(cls.xla)}[/dim]"
        opts = ", ".join(f"{k}={_show(v)}" for k, v in cls.options().items())
        if opts:
            text += f"\n[cyan]{escape(opts)}[/cyan]"
        table.add_row(escape(name), text)
    return table


def pipelines_table(specs: dict[str, PipelineSpec]) -> Table:
    from rich.table import Table

    from hlotool.passes.pipelines import Group

    table = Table(title="pipelines (hlotool passes NAME shows the steps)", title_justify="left")
    table.add_column("pipeline", style="bold", no_wrap=True)
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("what it is", ratio=1, overflow="fold")
    for name, spec in specs.items():
        count = sum(len(s.steps) if isinstance(s, Group) else 1 for s in spec.steps)
        table.add_row(escape(name), str(count), escape(spec.summary))
    return table


def pipeline_table(name: str, spec: PipelineSpec) -> Table:
    """The steps of one pipeline, fixed-point groups indented under their name."""
    from rich.table import Table

    table = Table(title=escape(f"pipeline {name}: {spec.summary}"), title_justify="left")
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("pass", style="bold", no_wrap=True)
    table.add_column("why", ratio=1, overflow="fold")
    for row in _rows(spec.steps, 0, [0]):
        table.add_row(*row)
    return table


def _rows(
    steps: tuple[StepSpec | Group, ...], depth: int, counter: list[int]
) -> list[tuple[str, str, str]]:
    from hlotool.passes.pipelines import Group

    out: list[tuple[str, str, str]] = []
    indent = "  " * depth
    for s in steps:
        if isinstance(s, Group):
            out.append(
                ("", f"{indent}[italic]fixed point: {escape(s.name)}[/italic]", escape(s.reason))
            )
            out.extend(_rows(s.steps, depth + 1, counter))
        else:
            counter[0] += 1
            out.append((str(counter[0]), indent + escape(s[0]), escape(s[1])))
    return out


def pass_table(cls: type[Pass]) -> Table:
    """One pass: summary, XLA counterpart, options and its documentation."""
    from rich.table import Table

    table = Table(title=escape(f"pass {cls.name}"), title_justify="left", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("summary", escape(cls.summary))
    table.add_row("XLA", escape(cls.xla))
    for f in dataclasses.fields(cls):
        table.add_row(f"option {f.name.replace('_', '-')}", escape(f"default {_show(f.default)}"))
    table.add_row("about", escape(inspect.cleandoc(cls.__doc__ or "")))
    return table


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
