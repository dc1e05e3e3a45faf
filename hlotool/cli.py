"""The `hlotool` command (docs/cli.md).

Exit status: 0 ok, 1 outputs differ from --expect (or a check failed), 2 bad usage or
bad input (errors as `FILE:LINE:COL: error: ...` with the source line and a caret).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from hlotool.commands import COMMANDS
from hlotool.commands.common import EXIT_BAD_INPUT, Source, UsageError
from hlotool.safe_io import OutputError


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Options with their defaults (when they have one the help does not already say);
    the examples epilog as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (default in (None, False, argparse.SUPPRESS) or "default" in text
                or not action.option_strings or isinstance(action, argparse._HelpAction)):
            return text
        return f"{text} (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    from hlotool.help_text import SHARED_OPTIONS, epilog

    p = argparse.ArgumentParser(
        prog="hlotool",
        description="Read, run, optimize, draw and compile XLA HLO and StableHLO modules.",
        epilog="`hlotool COMMAND --help` shows a command's options and examples.",
        formatter_class=_HelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"hlotool.commands.{module_name}")
        sp = sub.add_parser(name, help=module.HELP, description=module.HELP,
                            epilog=epilog(name), formatter_class=_HelpFormatter)
        module.add_arguments(sp)
        for action in sp._actions:
            if action.help is None and action.option_strings:
                action.help = SHARED_OPTIONS.get(action.option_strings[-1])
        sp.set_defaults(func=module.run)
    return p


def _version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hlotool")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command line (`sys.argv` when `argv` is None, as the `hlotool` script does:
    then Ctrl-C and --timeout end the process at once, see hlotool.interrupt)."""
    from hlotool.interrupt import run_interruptibly

    args = build_parser().parse_args(argv)
    args._hard_exit = argv is None
    if args.command == "debug":  # the TUI takes its keys, Ctrl-C included, itself
        return _dispatch(args)
    return run_interruptibly(lambda: _dispatch(args), getattr(args, "timeout", None),
                             hard_exit=argv is None)


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return args.func(args)
    except (UsageError, OutputError) as exc:
        if getattr(args, "format", None) == "json":
            _print_json_error("usage", str(exc))
        print(f"hlotool: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except MemoryError:
        print("hlotool: error: out of memory: the input needs more memory than is free "
              "(see --max-memory and docs/reliability.md)", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # every failure becomes a message, never a traceback
        return _report(exc, args)


def _report(exc: Exception, args: argparse.Namespace) -> int:
    from hlotool.diagnostics import HloError

    src: Source | None = getattr(args, "_source", None)
    if getattr(args, "format", None) == "json":
        name = src.name if src is not None else getattr(args, "file", "")
        if isinstance(exc, HloError):
            _print_json_error("bad input", exc.message, name, exc.line, exc.column,
                              list(exc.expected))
        else:
            _print_json_error("internal", f"{type(exc).__name__}: {exc}", name)
    if isinstance(exc, HloError):
        if src is not None and exc.line:
            print(exc.render(src.text, src.name), file=sys.stderr)
        else:
            name = src.name if src is not None else getattr(args, "file", "hlotool")
            print(f"{name}: error: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if os.environ.get("HLOTOOL_DEBUG"):
        raise exc
    print(f"hlotool: internal error: {type(exc).__name__}: {exc}\n"
          "(this is a bug in hlotool; rerun with HLOTOOL_DEBUG=1 to see the traceback)",
          file=sys.stderr)
    return EXIT_BAD_INPUT


def _print_json_error(kind: str, message: str, file: str = "", line: int = 0, column: int = 0,
                      expected: list[str] | None = None) -> None:
    """With --format json, an error is also one JSON object on standard output (the text
    report still goes to standard error)."""
    import json

    error: dict[str, object] = {"kind": kind, "message": message}
    if file:
        error["file"] = str(file)
    if line:
        error.update(line=line, column=column)
    if expected:
        error["expected"] = expected
    print(json.dumps({"error": error}))


if __name__ == "__main__":
    sys.exit(main())
