"""C-style string escapes, as XLA's lexer reads them and absl::CEscape writes them, and the
brace-balanced blobs (`{...}`) HLO attributes may hold unquoted."""

from __future__ import annotations

import re

from hlotool.diagnostics import error_at

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "?": "?",
           "a": "\a", "b": "\b", "f": "\f", "v": "\v"}  # fmt: skip


def c_unescape(body: str, token: object = None) -> str:
    """Process C escapes in the text between the quotes of a string literal."""
    if "\\" not in body:
        return body

    def repl(m: re.Match[str]) -> str:
        e = m.group(1)
        if e[0] == "x":
            return chr(int(e[1:], 16))
        if e[0] in "01234567":
            return chr(int(e, 8))
        if e in _SIMPLE:
            return _SIMPLE[e]
        raise error_at(token, f"unknown escape sequence '\\{e}' in string")

    return _ESCAPE.sub(repl, body)


_CESCAPE = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}


def c_escape(text: str) -> str:
    """absl::CEscape: named escapes, octal for other non-printable bytes."""
    out = []
    for ch in text:
        if ch in _CESCAPE:
            out.append(_CESCAPE[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return "".join(out)


def quote(text: str) -> str:
    return '"' + c_escape(text) + '"'


def blob_pattern(depth: int = 10) -> str:
    """A regex for brace-balanced text that skips double-quoted strings, `depth` deep."""
    string = r'"(?:[^"\\]|\\.)*"'
    inner = r"\{(?:[^{}\"]|" + string + r")*\}"
    for _ in range(depth - 1):
        inner = r"\{(?:[^{}\"]|" + string + "|" + inner + r")*\}"
    return inner
