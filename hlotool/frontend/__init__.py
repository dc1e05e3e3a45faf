"""Front ends: HLO text and StableHLO text, both producing the same IR."""

from __future__ import annotations

from pathlib import Path

from hlotool.collector import paused
from hlotool.diagnostics import HloError
from hlotool.ir.module import Module


def parse_hlo(text: str) -> Module:
    """Parse and lower HLO text (no verification beyond what XLA's parser checks)."""
    from hlotool.hlo.lexer import FUSE
    from hlotool.hlo.lowering import lower_module
    from hlotool.hlo.parser import parse_hlo_ast

    with paused():
        try:
            return lower_module(parse_hlo_ast(text))
        except HloError:
            if not FUSE.on:
                raise
        # An invalid text: report its first error exactly as the unfused tokens (one
        # SIMPLE_HEAD, SIMPLE_ATTR, ... at a time) meet it.
        FUSE.on = False
        try:
            return lower_module(parse_hlo_ast(text))
        finally:
            FUSE.on = True


def is_stablehlo_text(text: str, filename: str = "") -> bool:
    """MLIR text when the file ends in .mlir or its first token is `module`/`func.func`."""
    if filename.endswith(".mlir"):
        return True
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        return stripped.startswith(("module", "func.func", "#loc", "#"))
    return False


def language(text: str, filename: str = "", fmt: str | None = None) -> str:
    """"hlo" or "stablehlo": `fmt` when given, else by the cli.md rule."""
    if fmt:
        return fmt
    return "stablehlo" if is_stablehlo_text(text, filename) else "hlo"


def parse_text(text: str, filename: str = "", fmt: str | None = None) -> Module:
    """Parse HLO or StableHLO text, chosen by `fmt` or by the cli.md rule."""
    if language(text, filename, fmt) == "stablehlo":
        try:
            from hlotool.stablehlo import parse_stablehlo
        except ImportError:
            raise HloError("StableHLO input is not supported yet", 1, 1) from None
        with paused():
            return parse_stablehlo(text)
    return parse_hlo(text)


def load_module(path: str | Path, fmt: str | None = None) -> tuple[Module, str]:
    """Read and parse a file (text, a portable artifact or a jax.export blob); returns the
    module and its source text (an artifact's StableHLO text)."""
    data = Path(path).read_bytes()
    text = read_source(data)
    return parse_text(text, str(path), fmt), text


def read_source(data: bytes) -> str:
    """A file's text: StableHLO text for a portable artifact or jax.export blob (raises
    BytecodeError, an HloError, when the bytecode is malformed)."""
    if binary_kind(data):
        from hlotool.bytecode import artifact_text

        return artifact_text(data)
    return data.decode("utf-8", errors="replace")


def binary_kind(data: bytes) -> str | None:
    """"mlirbc" or "jax-export" for the binary inputs hlotool reads, else None (text, or
    binary it does not read)."""
    if data[:4] != b"ML\xefR" and b"\0" not in data[:4096]:
        return None
    from hlotool.bytecode import artifact_kind

    return artifact_kind(data)
