"""What every command shares: reading the input file, exit codes, usage errors."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hlotool.ir.module import Module

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad command-line usage (exit 2, one line, no source position)."""


class Source:
    """An input file's name and text (kept for error reports). A portable artifact or
    jax.export blob is read as its StableHLO text at once; an HloProto (`.pb`, `.pbtxt`)
    is held as its bytes until `read_proto` turns it into HLO text."""

    def __init__(self, path: str) -> None:
        self.name = "<stdin>" if path == "-" else path
        #: The proto message read (HloModuleProto, HloProto, HloSnapshot), None for text.
        self.proto_kind: str | None = None
        #: A snapshot's arguments (`arg0, ...`), the inputs of its run.
        self.arguments: dict[str, Any] | None = None
        #: "mlirbc" or "jax-export" when the file is a binary artifact (then `text` is its
        #: StableHLO text).
        self.artifact: str | None = None
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)  # text-only when a test replaces it
            data = stream.read() if stream is not None else sys.stdin.read().encode()
        else:
            try:
                data = Path(path).read_bytes()
            except OSError as exc:
                raise UsageError(f"cannot read {path}: {exc.strerror}") from None
        from hlotool.frontend import binary_kind
        from hlotool.hloproto import is_proto

        #: The language `text` was parsed as ("hlo" or "stablehlo"), once `load` did.
        self.language: str | None = None
        self._proto: bytes | None = None
        self.artifact = binary_kind(data)
        if self.artifact:
            self.text = _artifact_text(self.name, data)
            return
        self._proto = data if is_proto(data, path) else None
        binary = b"\0" in data[:4096]
        self.text = "" if binary else data.decode("utf-8", errors="replace")

    @property
    def identity(self) -> str:
        """The language and text the module was parsed from: what `load`'s module is a
        function of (with hlotool's code), so a cache may key on it instead of printing
        the module, while nothing has changed the module since."""
        if self.language is None:
            raise RuntimeError(f"{self.name} has not been parsed")
        return f"{self.language}\n{self.text}"

    def read_proto(self) -> None:
        """An HloProto's module as HLO text (errors in it then point into that text)."""
        if self._proto is None:
            return
        from hlotool.hloproto.reader import NotAProto, read

        try:
            proto = read(self._proto, "" if self.name == "<stdin>" else self.name)
        except NotAProto as exc:
            raise UsageError(f"{self.name} is a binary file, but {exc.message}") from None
        self._proto = None
        self.proto_kind, self.text, self.arguments = proto.kind, proto.text, proto.arguments
        self.name = f"{self.name} ({proto.kind} as HLO text)"


def _artifact_text(path: str, data: bytes) -> str:
    """The StableHLO text of a portable artifact (bad bytecode: exit 2 with the offset)."""
    from hlotool.bytecode import BytecodeError
    from hlotool.frontend import read_source

    try:
        return read_source(data)
    except BytecodeError as exc:
        raise UsageError(f"{path}: {exc.message}") from None


def add_input(p: argparse.ArgumentParser) -> None:
    """The FILE argument and --input-format, as every command takes them."""
    p.add_argument("file", metavar="FILE", help="HLO (.hlo) or StableHLO (.mlir) text, a "
                   "StableHLO portable artifact (.mlirbc), a jax.export blob, an HloProto (.pb, "
                   ".pbtxt) or an --xla_dump_to folder; - for stdin")
    p.add_argument("--input-format", choices=("hlo", "stablehlo"),
                   help="the input's language (default: by suffix and first token)")
    p.add_argument("--module", metavar="NAME|ID",
                   help="FILE is an --xla_dump_to folder: the module to read (hlotool ls DIR)")
    p.add_argument("--stage", choices=("before", "after", "snapshot"),
                   help="FILE is a dump folder: before or after XLA's passes (default "
                   "before), or an HloSnapshot of a run (its arguments are the inputs)")


def add_timeout(p: argparse.ArgumentParser, what: str) -> None:
    """`--timeout SECONDS`: hlotool.interrupt ends the whole command after that long."""
    p.add_argument("--timeout", type=_seconds, metavar="SECONDS",
                   help=f"stop {what} after SECONDS; exit 124")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"needs a positive number of seconds, got {text}")
    return value


def load(args: argparse.Namespace, verify: bool = True, path: str | None = None) -> Module:
    """Parse (and verify) the command's input; errors carry the source for reporting."""
    from hlotool.frontend import language, parse_text

    src = Source(dump_file(args, path or args.file))
    args._source = src
    src.read_proto()
    filename = src.name if src.name != "<stdin>" else ""
    src.language = language(src.text, filename, getattr(args, "input_format", None))
    module = parse_text(src.text, filename, src.language)
    if verify:
        from hlotool.verifier import verify as run_verifier

        run_verifier(module)
    if getattr(args, "_hard_exit", False):  # the process ends with the command
        from hlotool.collector import settle

        settle()
    return module


def dump_file(args: argparse.Namespace, path: str) -> str:
    """`path` itself, or for a dump folder the file --module/--stage choose in it."""
    if path == "-" or not Path(path).is_dir():
        return path
    from hlotool.diagnostics import HloError
    from hlotool.dumps import select

    try:
        return str(select(Path(path), getattr(args, "module", None),
                          getattr(args, "stage", None)).path)
    except HloError as exc:
        raise UsageError(exc.message) from None


def stage_file(args: argparse.Namespace, folder: str, stage: str) -> str | None:
    """The --module's file of `stage` in dump folder `folder`, None when it has none."""
    from hlotool.diagnostics import HloError
    from hlotool.dumps import select

    try:
        return str(select(Path(folder), getattr(args, "module", None), stage).path)
    except HloError:
        return None


def write_text(output: str | None, text: str) -> None:
    """Write to a file, or to standard output when no file (or `-`) is given."""
    if output and output != "-":
        from hlotool.safe_io import atomic_write

        atomic_write(output, text)
    else:
        sys.stdout.write(text)


def status(message: str) -> contextlib.AbstractContextManager[object]:
    """A spinner with `message` on standard error while a step runs, when that is a
    terminal (elsewhere rich draws nothing and its first status costs ~15 ms)."""
    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(message)
