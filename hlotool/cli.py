"""The `hlotool` command (../shared/docs/cli.md). Heavy modules are imported by the
commands that need them, so that `hlotool --help` and `hlotool parse` start fast.

Exit status: 0 ok, 1 outputs differ from --expect (or a check failed), 2 bad usage or
bad input (errors as `FILE:LINE:COL: error: ...` with the source line and a caret).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hlotool.ir.module import Module

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT = 0, 1, 2


class _Source:
    """An input file's name and text (for error reports)."""

    def __init__(self, path: str) -> None:
        self.name = "<stdin>" if path == "-" else path
        if path == "-":
            self.text = sys.stdin.read()
        else:
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                raise _UsageError(f"cannot read {path}: {exc.strerror}") from None
            self.text = data.decode("utf-8", errors="replace")


class _UsageError(Exception):
    pass


def _load(args: argparse.Namespace, verify: bool = True) -> tuple[Module, _Source]:
    from hlotool.diagnostics import HloError
    from hlotool.frontend import parse_text

    src = _Source(args.file)
    args._source = src
    fmt = getattr(args, "input_format", None)
    module = parse_text(src.text, src.name if src.name != "<stdin>" else "", fmt)
    if verify:
        from hlotool.verifier import verify as run_verifier

        try:
            run_verifier(module)
        except HloError:
            raise
    return module, src


# -- commands ---------------------------------------------------------------------------------
def cmd_parse(args: argparse.Namespace) -> int:
    module, _ = _load(args)
    summary = _summary(module)
    if args.format == "json":
        print(json.dumps(summary, indent=1))
    else:
        entry = summary["entry"]
        print(f"{summary['name']}: {summary['computations']} computations, "
              f"{summary['instructions']} instructions; entry {entry['name']} "
              f"({', '.join(entry['parameters'])}) -> {entry['result']}")
    return EXIT_OK


def _summary(module: Module) -> dict[str, Any]:
    from collections import Counter

    from hlotool.ir.shape_text import shape_to_text

    entry = module.entry
    ops = Counter(i.opcode.value for c in module.computations for i in c.instructions)
    return {
        "name": module.name,
        "computations": len(module.computations),
        "instructions": module.instruction_count,
        "entry": {
            "name": entry.name,
            "parameters": [shape_to_text(p.shape) for p in entry.parameters],
            "result": shape_to_text(entry.root_shape),
        },
        "opcodes": dict(sorted(ops.items())),
    }


def cmd_print(args: argparse.Namespace) -> int:
    module, _ = _load(args)
    if args.format == "stablehlo":
        try:
            from hlotool.stablehlo_printer import print_stablehlo
        except ImportError:
            raise _UsageError("printing as StableHLO is not supported yet") from None
        text = print_stablehlo(module)
    else:
        from hlotool.printer import print_module

        text = print_module(module)
    _write_text(args.output, text)
    return EXIT_OK


def _write_text(output: str | None, text: str) -> None:
    if output and output != "-":
        Path(output).write_text(text)
    else:
        sys.stdout.write(text)


def cmd_run(args: argparse.Namespace) -> int:
    import numpy as np

    from hlotool import values_io

    module, _ = _load(args)
    target = _resolve_target(args.target)
    if args.inputs:
        inputs = values_io.entry_arguments(module, values_io.load_npz(args.inputs))
    else:
        inputs = values_io.random_arguments(module, args.seed)
    from hlotool.interpreter.core import Evaluator

    with np.errstate(all="ignore"):
        result = Evaluator(module).run(inputs)
    outputs = values_io.output_arrays(result)
    if args.output:
        values_io.save_npz(args.output, outputs)
    report: dict[str, Any] = {"target": target}
    status = EXIT_OK
    if args.expect:
        want = values_io.load_npz(args.expect)
        diffs = values_io.compare_outputs(outputs, want, args.rtol, args.atol)
        report["comparison"] = [d.as_json() for d in diffs]
        report["ok"] = all(d.ok for d in diffs)
        if not report["ok"]:
            status = EXIT_MISMATCH
    if args.reference == "xla":
        from hlotool.reference import run_xla

        ref = values_io.output_arrays(run_xla(args._source.text, inputs, args._source.name))
        diffs = values_io.compare_outputs(outputs, ref, args.rtol, args.atol)
        report["reference"] = [d.as_json() for d in diffs]
        if not all(d.ok for d in diffs):
            status = EXIT_MISMATCH
    if args.format == "json":
        report["outputs"] = {k: _array_summary(v) for k, v in outputs.items()}
        print(json.dumps(report, default=str))
    else:
        from hlotool.report import print_comparison, print_outputs

        if not args.output:
            print_outputs(outputs)
        for key in ("comparison", "reference"):
            if key in report:
                print_comparison(report[key], "expected" if key == "comparison" else "XLA:CPU")
    return status


def _resolve_target(target: str) -> str:
    if target in ("interp", "auto", "cpu"):
        # The CPU code generator comes with issue [5 of 7]; until then `cpu` (the default)
        # runs on the reference interpreter, and says so.
        if target == "cpu":
            print("hlotool: note: the cpu target is not built yet; running on the interpreter",
                  file=sys.stderr)
        return "interp"
    raise _UsageError(f"target {target} is not available yet (have: interp)")


def _array_summary(a: Any) -> dict[str, Any]:
    import numpy as np

    a = np.asarray(a)
    out: dict[str, Any] = {"shape": list(a.shape), "dtype": str(a.dtype)}
    if a.size and a.dtype.kind in "biuf" or a.dtype.name in ("bfloat16",):
        f = a.astype(np.float64)
        out.update(min=float(np.nanmin(f)) if f.size else None,
                   max=float(np.nanmax(f)) if f.size else None,
                   mean=float(np.nanmean(f)) if f.size else None)
    return out


# -- argument parsing -------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hlotool",
        description="Parse, print and run XLA HLO and StableHLO modules.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(name: str, fn: Callable[[argparse.Namespace], int], help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=fn)
        sp.add_argument("file", metavar="FILE", help="HLO (.hlo) or StableHLO (.mlir) text; - for stdin")
        sp.add_argument("--input-format", choices=("hlo", "stablehlo"),
                        help="the input's language (default: by suffix and first token)")
        return sp

    sp = add("parse", cmd_parse, "parse and verify a module; print a one-line summary")
    sp.add_argument("--format", choices=("text", "json"), default="text")

    sp = add("print", cmd_print, "print a module in canonical text")
    sp.add_argument("--format", choices=("hlo", "stablehlo"), default="hlo")
    sp.add_argument("-o", "--output", help="write here instead of standard output")

    sp = add("run", cmd_run, "run the entry computation on a target")
    sp.add_argument("--target", default="cpu", choices=("interp", "cpu", "gpu", "tpu"))
    sp.add_argument("--inputs", help="npz with arg0, arg1, ... (default: random with --seed)")
    sp.add_argument("--output", help="write out0, out1, ... to this npz")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--expect", help="npz of expected outputs; exit 1 when they differ")
    sp.add_argument("--rtol", type=float, default=1e-5)
    sp.add_argument("--atol", type=float, default=1e-6)
    sp.add_argument("--reference", choices=("xla",), help="also run on XLA:CPU (needs jax) and compare")
    sp.add_argument("--format", choices=("text", "json"), default="text")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except _UsageError as exc:
        print(f"hlotool: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # every failure becomes a message, never a traceback
        return _report(exc, args)


def _report(exc: Exception, args: argparse.Namespace) -> int:
    from hlotool.diagnostics import HloError

    if isinstance(exc, HloError):
        src: _Source | None = getattr(args, "_source", None)
        if src is not None and exc.line:
            print(exc.render(src.text, src.name), file=sys.stderr)
        else:
            name = src.name if src is not None else getattr(args, "file", "hlotool")
            print(f"{name}: error: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, KeyboardInterrupt):
        return 130
    if os.environ.get("HLOTOOL_DEBUG"):
        raise exc
    print(f"hlotool: internal error: {type(exc).__name__}: {exc}\n"
          "(this is a bug in hlotool; rerun with HLOTOOL_DEBUG=1 for the traceback)",
          file=sys.stderr)
    return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
