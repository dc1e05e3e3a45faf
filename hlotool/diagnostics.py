"""The one error type for bad input, and how it is shown (`FILE:LINE:COL: error: ...`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class HloError(Exception):
    """Bad input: a syntax error, a semantic error or an unsupported construct.

    `line`/`column` are 1-based; 0 means "no position" (e.g. an empty file is reported
    at 1:1 by the caller). `expected` lists what would have been accepted there.
    """

    message: str
    line: int = 0
    column: int = 0
    expected: tuple[str, ...] = ()
    #: Length of the offending text (for a wider caret), 1 when unknown.
    width: int = 1

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        where = f"{self.line}:{self.column}: " if self.line else ""
        return f"{where}{self.message}"

    def at(self, token: object) -> HloError:
        """Give the error the position of a lexer token if it has none yet."""
        if not self.line and token is not None:
            self.line = getattr(token, "line", 0) or 0
            self.column = getattr(token, "column", 0) or 0
            self.width = max(1, len(str(token)))
        return self

    def render(self, source: str, filename: str) -> str:
        """The full report: location, message, source line, caret, expectations."""
        line = self.line or 1
        column = self.column or 1
        out = [f"{filename}:{line}:{column}: error: {self.message}"]
        lines = source.splitlines()
        if 0 < line <= len(lines):
            text = lines[line - 1]
            shown = _printable(text)
            out.append(shown)
            caret_col = min(column - 1, len(shown))
            width = max(1, min(self.width, len(shown) - caret_col))
            out.append(" " * caret_col + "^" + "~" * (width - 1))
        if self.expected:
            exp = sorted(set(self.expected))
            if len(exp) > 12:
                exp = [*exp[:12], "..."]
            out.append("expected one of: " + ", ".join(exp))
        return "\n".join(out)


def error_at(token: object, message: str, expected: tuple[str, ...] = ()) -> HloError:
    """An HloError positioned at a lexer token (anything with .line/.column)."""
    return HloError(message, expected=expected).at(token)


def _printable(text: str) -> str:
    """The source line with control characters shown as `?` (binary input)."""
    return "".join(c if c.isprintable() or c == "\t" else "?" for c in text)[:400]
