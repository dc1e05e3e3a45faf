"""What both grammars' parsers share: the translation of Lark's exceptions into HloErrors
with readable expectations (the grammar cache is `hlotool.grammar_cache`)."""

from __future__ import annotations

from collections.abc import Mapping

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from hlotool.diagnostics import HloError


def describe_terminals(parser: Lark, terminals: set[str] | frozenset[str],
                       names: Mapping[str, str]) -> tuple[str, ...]:
    """Readable names of terminals (from `names`, else a literal's text), deduplicated."""
    out: set[str] = set()
    for t in terminals:
        if t in names:
            out.add(names[t])
            continue
        try:
            pattern = parser.get_terminal(t).pattern
        except KeyError:
            continue
        out.add(repr(pattern.value) if pattern.type == "str" else t.lower())
    return tuple(sorted(out))


def syntax_error(exc: UnexpectedInput, text: str, parser: Lark, names: Mapping[str, str],
                 at_end: str, hint: str | None = None) -> HloError:
    """An HloError for a Lark syntax error; `hint` (a curated explanation) replaces the
    generic message, `at_end` is the message for running out of input."""
    if isinstance(exc, UnexpectedEOF) or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    ):
        lines = text.splitlines() or [""]
        expected = describe_terminals(parser, getattr(exc, "expected", set()), names)
        return HloError(hint or at_end, len(lines), len(lines[-1]) + 1, expected)
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        return HloError(hint or f"unexpected character {ch!r}", exc.line, exc.column,
                        describe_terminals(parser, exc.allowed or set(), names))
    assert isinstance(exc, UnexpectedToken)
    tok = exc.token
    text_of = str(tok) if len(str(tok)) <= 40 else str(tok)[:37] + "..."
    kind = names.get(tok.type, "").removeprefix("a ").removeprefix("an ")
    shown = f"{kind} {text_of!r}" if kind and not kind.startswith("'") else repr(text_of)
    return HloError(hint or f"unexpected {shown}", tok.line, tok.column,
                    describe_terminals(parser, exc.expected, names), max(1, len(str(tok))))
