"""`hlotool graph FILE [-o OUT.svg|.png|.dot]`: draw a module with Graphviz, fusions as
clusters; `hlotool graph --diff A B` draws B coloured by what changed since A."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from hlotool.commands.common import EXIT_OK, UsageError, load, status
from hlotool.safe_io import check_output

if TYPE_CHECKING:
    from hlotool.graph import Graph
    from hlotool.ir.module import Module

HELP = "draw the module with Graphviz (fusions as clusters); .svg, .png or .dot by suffix"
#: What dot lays out in seconds even for a training step's crossing edges.
DEFAULT_MAX_NODES = 300


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", nargs="?",
                   help="HLO (.hlo) or StableHLO (.mlir) text; - for stdin")
    p.add_argument("--input-format", choices=("hlo", "stablehlo"),
                   help="the input's language (default: by suffix and first token)")
    p.add_argument("--module", metavar="NAME|ID", help="FILE is a dump folder: the module to draw")
    p.add_argument("--stage", choices=("before", "after"),
                   help="FILE is a dump folder: before or after XLA's passes (default before)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="OUT.svg, OUT.png, OUT.dot, or OUT.html for the interactive page of "
                        "`hlotool view` (default: FILE with .svg)")
    p.add_argument("--computation", metavar="C", help="draw computation C instead of the entry")
    p.add_argument("--neighborhood", metavar="NAME",
                   help="draw only what is within --radius edges of instruction NAME")
    p.add_argument("--radius", type=int, default=3, metavar="N",
                   help="hops around --neighborhood (default 3)")
    p.add_argument("--collapse-fusions", action="store_true",
                   help="draw each fusion as one node instead of a cluster")
    p.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES, metavar="N",
                   help=f"leave out nodes beyond N, keeping those nearest the ROOT "
                        f"(default {DEFAULT_MAX_NODES}; 0: no limit)")
    p.add_argument("--overview", action="store_true",
                   help="draw the map of computations instead (entry, loop bodies, branches, "
                        "reducers; fusions folded in), with sizes: for big modules")
    p.add_argument("--after-pipeline", metavar="NAME",
                   help="run this pass pipeline before drawing")
    p.add_argument("--diff", nargs="+", metavar="A B | DIR",
                   help="draw B, colouring what was added, removed or fused since A; a dump "
                        "folder DIR pairs its module before and after XLA's passes")


def run(args: argparse.Namespace) -> int:
    from hlotool import graph as G

    _check_arguments(args)
    options = G.GraphOptions(computation=args.computation,
                             collapse_fusions=args.collapse_fusions,
                             neighborhood=args.neighborhood, radius=args.radius,
                             max_nodes=args.max_nodes)
    output = args.output or _default_output(args)
    check_output(output, stdout_ok=False)
    if output.endswith(".html"):
        return _write_page(args, output)
    try:
        G.output_format(output)
        if args.overview:
            return _write_overview(args, output)
        if args.diff:
            pair = _diff_pair(args)
            before, after = (load(args, path=p) for p in pair)
            names = (Path(pair[0]).name, Path(pair[1]).name)
            drawing = G.draw_diff(before, after, options, names)
        else:
            drawing = G.draw(_load_module(args), options)
        _write(drawing, output)
    except (G.GraphError, G.GraphvizMissing, G.RenderError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    print(_summary(drawing, output))
    return EXIT_OK


def _write_overview(args: argparse.Namespace, output: str) -> int:
    """`--overview`: the computation map (hlotool.graph.overview)."""
    from hlotool.graph.overview import overview_dot
    from hlotool.graph.render import output_format, render
    from hlotool.safe_io import atomic_write

    module = _load_module(args)
    dot, boxes = overview_dot(module, args.file)
    atomic_write(output, render(dot, output_format(output)))
    print(f"wrote {output}: {boxes} boxes for {len(module.computations)} computations of "
          f"{module.instruction_count} instructions (fusions folded in, alike reducers "
          "merged); draw one with --computation NAME")
    return EXIT_OK


def _write_page(args: argparse.Namespace, output: str) -> int:
    """`-o g.html`: the interactive page of `hlotool view` (B coloured by A with --diff)."""
    from hlotool.commands.view import write_page

    if args.diff:
        before, module = (load(args, path=p) for p in args.diff)
    else:
        before, module = None, _load_module(args)
    write_page(module, output, before)
    print(f"wrote {Path(output).resolve()}: interactive page, {module.instruction_count} "
          "instructions; open it in a browser")
    return EXIT_OK


def _diff_pair(args: argparse.Namespace) -> tuple[str, str]:
    """--diff's two files: A and B, or a dump folder's module before and after XLA."""
    if len(args.diff) == 2:
        return args.diff[0], args.diff[1]
    from hlotool.commands.common import dump_file

    folder = args.diff[0]
    if not Path(folder).is_dir():
        raise UsageError("--diff takes two files A B, or one dump folder DIR")
    stage = args.stage
    try:
        args.stage = "before"
        before = dump_file(args, folder)
        args.stage = "after"
        return before, dump_file(args, folder)
    finally:
        args.stage = stage


def _write(drawing: Graph, output: str) -> None:
    """Write the drawing; a spinner on a terminal while Graphviz lays out a big one."""
    from hlotool import graph as G

    if len(drawing.nodes) < 100:
        G.write(drawing, output)
        return
    with status(f"Graphviz: laying out {len(drawing.nodes)} nodes…"):
        G.write(drawing, output)


def _check_arguments(args: argparse.Namespace) -> None:
    if args.diff and len(args.diff) > 2:
        raise UsageError("--diff takes two files A B, or one dump folder DIR")
    if args.diff and args.file:
        raise UsageError("give either FILE or --diff A B, not both")
    if not args.diff and not args.file:
        raise UsageError("give a FILE to draw (or --diff A B)")
    if args.diff and args.overview:
        raise UsageError("--overview draws one module; give FILE, not --diff")
    if args.diff and args.after_pipeline:
        raise UsageError("--after-pipeline draws one module; with --diff, run `hlotool opt` "
                         "first and diff the two files")
    if args.radius < 0 or args.max_nodes < 0:
        raise UsageError("--radius and --max-nodes must not be negative")


def _default_output(args: argparse.Namespace) -> str:
    """FILE with its last suffix replaced by .svg (B.diff.svg for a diff)."""
    source = args.diff[-1] if args.diff else args.file
    if source == "-":
        raise UsageError("reading standard input: name the output with -o OUT.svg")
    path = Path(source)
    return str(path.with_suffix(".diff.svg" if args.diff else ".svg"))


def _load_module(args: argparse.Namespace) -> Module:
    module = load(args)
    if args.after_pipeline:
        try:
            from hlotool.commands.opt import apply_passes
        except ImportError:
            raise UsageError("--after-pipeline needs the pass pipelines of `hlotool opt`, "
                             "which this build does not have yet") from None
        apply_passes(module, args.after_pipeline, None)
    return module


def _summary(drawing: Graph, output: str) -> str:
    from hlotool.graph import NodeKind

    nodes = len(drawing.instruction_nodes())
    clusters = sum(1 for c in drawing.clusters if c.is_fusion)
    notes = sum(1 for n in drawing.nodes if n.kind is NodeKind.NOTE)
    extra = " (some left out: see the note in the drawing)" if notes else ""
    return f"wrote {output}: {nodes} nodes, {clusters} fusion clusters{extra}"
