"""A hand-tuned lexer for grammar/hlo.lark, plugged into Lark's LALR parser.

It produces exactly the terminals the grammar declares, with XLA's lexing rules, but
does less work per token than Lark's generic contextual lexer:
- it dispatches on the first character instead of trying one big alternation;
- it lexes a plain array shape (`f32[8,64]{1,0}`) as ONE token, ARRAY_SHAPE, and a plain
  integer list (`{0,1}`) as ONE token, INT_LIST, which roughly halves the token count of
  typical HLO;
- where a character sequence means different things in different places (a `{` that
  opens a layout, a raw `{...}` blob, an integer list or a brace; `constant` as keyword
  or name) it asks the parser which terminals it accepts now, as Lark's contextual
  lexer does.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedCharacters
from lark.lexer import Lexer, LexerState
from lark.parsers.lalr_analysis import Shift

_SKIP = re.compile(r"(?:[ \t\r\n]+|/\*.*?\*/|//[^\n]*)*", re.S)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_PCT = re.compile(r"%[A-Za-z_][A-Za-z0-9_.\-]*")
_DIM_LABELS = re.compile(r"[0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}")
_PAD = re.compile(r"-?\d+_-?\d+(?:_\d+)?(?:x-?\d+_-?\d+(?:_\d+)?)*")
_DXD = re.compile(r"\d+(?:x\d+)+")
_DECIMAL = re.compile(r"-?(?:\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)"
                      r"|-?(?:inf|nan(?:\(0x[0-9a-fA-F]+\))?)(?![A-Za-z0-9_.\-])")
_INT = re.compile(r"-?\d+")
_NAN_PAYLOAD = re.compile(r"\(0x[0-9a-fA-F]+\)")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', re.S)
_TYPES = (r"pred|s(?:1|2|4|8|16|32|64)|u(?:1|2|4|8|16|32|64)|f(?:16|32|64)|bf16|c64|c128"
          r"|f8e[0-9a-z]+|f6e[0-9a-z]+|f4e[0-9a-z]+")
_ARRAY_SHAPE = re.compile(
    rf"(?:{_TYPES})\[(?:\d+(?:,\d+)*)?\](?:\{{\d+(?:,\d+)*\}}(?![ \t\r\n]*\{{[ \t\r\n]*[\d:])"
    rf"|(?![ \t\r\n]*[\[{{][ \t\r\n]*[\d:]))"
)
_INT_LIST = re.compile(r"\{[ \t\r\n]*(?:-?\d+(?:[ \t\r\n]*,[ \t\r\n]*-?\d+)*)?[ \t\r\n]*\}")
_LAYOUT_AHEAD = re.compile(r"\{[ \t\r\n]*[\d:]")
#: A literal of plain numbers, commas and braces (read as one LIT_BLOCK token).
_NUMERIC_BLOCK = re.compile(r"\{[-+0-9eE.,{}\s]*")
#: Literals with fewer elements go through the grammar (finer error positions).
_BLOCK_MIN_COMMAS = 256
_BUFFER_AHEAD = re.compile(r"b[ \t\r\n]*\(")
_DEF_AHEAD = re.compile(r"[ \t\r\n]*=")
_OPERAND_LIST = re.compile(
    r"\([ \t\r\n]*(?:%?[A-Za-z_][A-Za-z0-9_.\-]*[ \t\r\n]*"
    r"(?:,[ \t\r\n]*%?[A-Za-z_][A-Za-z0-9_.\-]*[ \t\r\n]*)*)?\)"
)
_SIMPLE_HEAD = re.compile(
    r"(?P<root>ROOT[ \t\r\n]+)?"
    r"(?:%(?P<pname>[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]+)"
    r"=[ \t]*"
    rf"(?P<shape>(?:{_TYPES})\[(?:\d+(?:,\d+)*)?\](?:\{{\d+(?:,\d+)*\}})?)[ \t]+"
    r"(?P<op>[A-Za-z_][A-Za-z0-9_.\-]*)"
    r"\([ \t]*(?P<body>(?:%?[A-Za-z_][A-Za-z0-9_.\-]*[ \t]*"
    r"(?:,[ \t]*%?[A-Za-z_][A-Za-z0-9_.\-]*[ \t]*)*)?"
    r"|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[ \t]*|-(?:inf|nan)[ \t]*)\)"
)
_PARAMS_ARROW = re.compile(
    rf"\([ \t]*(?:[A-Za-z_][A-Za-z0-9_.\-]*:[ \t]*(?:{_TYPES})\[[\d,]*\][ \t]*"
    rf"(?:,[ \t]*[A-Za-z_][A-Za-z0-9_.\-]*:[ \t]*(?:{_TYPES})\[[\d,]*\][ \t]*)*)?\)[ \t]*->"
)
_BLOB_ATTR = re.compile(r",[ \t\r\n]*(metadata|backend_config|sharding|origin|domain|sparsity_config)=\{")
_INT_TEXT = re.compile(r"-?\d+")
_SIMPLE_ATTR = re.compile(
    r",[ \t\r\n]*([A-Za-z_][A-Za-z0-9_.\-]*)=(%?[A-Za-z_][A-Za-z0-9_.\-]*|-?\d+"
    r"|\{[ \t]*(?:-?\d+(?:[ \t]*,[ \t]*-?\d+)*)?[ \t]*\})(?![A-Za-z0-9_.\-\[(>:])"
)
_OPERAND_NAME = re.compile(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)")

_NAME_RE = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_SPECIAL_KEY_RE = ("(?:sharding|frontend_attributes|backend_config|origin|domain|sparsity_config"
                   "|literal|output_to_operand_aliasing|input_output_alias|buffer_donor"
                   "|entry_computation_layout|replica_groups|origin_recovery_table|metadata)=")
_LINE_BLOB = r'\{(?:[^{}"\n]|"(?:[^"\\\n]|\\.)*"|\{(?:[^{}"\n]|"(?:[^"\\\n]|\\.)*")*\})*\}'
_LINE_ATTR = (
    rf",[ \t]*(?:(?!{_SPECIAL_KEY_RE})({_NAME_RE})=(%?{_NAME_RE}|-?\d+"
    r"|\{[ \t]*(?:-?\d+(?:[ \t]*,[ \t]*-?\d+)*)?[ \t]*\})"
    rf"|(metadata|backend_config)=({_LINE_BLOB}))"
)
#: One whole plain instruction line: SIMPLE_HEAD, then simple and blob attributes only,
#: then the end of the line. Groups: root, %name, name, shape, opcode, body, attributes.
_LINE = re.compile(
    rf"(ROOT[ \t]+)?(?:%({_NAME_RE})[ \t]*|({_NAME_RE})[ \t]+)=[ \t]*"
    rf"((?:{_TYPES})\[(?:\d+(?:,\d+)*)?\](?:\{{\d+(?:,\d+)*\}})?)[ \t]+"
    rf"({_NAME_RE})"
    rf"\([ \t]*((?:%?{_NAME_RE}[ \t]*(?:,[ \t]*%?{_NAME_RE}[ \t]*)*)?"
    r"|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[ \t]*|-(?:inf|nan)[ \t]*)\)"
    rf"((?:{_LINE_ATTR})*)[ \t]*(?=\r?\n|$)"
)
#: One attribute of a _LINE: key, simple value | blob key, blob.
LINE_ATTR = re.compile(_LINE_ATTR)
_LINE_GAP = re.compile(r"[ \t\r]*\n[ \t\r\n]*")


class LinesToken(Token):
    """A SIMPLE_LINES token; `lines` holds (match, line number, offset of the line start)
    for each instruction line (see lowering's fast path)."""

    __slots__ = ("lines",)


class _FuseState(threading.local):
    on = True


#: Off while re-parsing a text that failed, so that errors come from the unfused tokens.
FUSE = _FuseState()


def _line_ok(opcode: str, body: str) -> bool:
    if opcode == "parameter":
        body = body.strip()
        return _INT_TEXT.fullmatch(body) is not None and body[0] != "-"
    if opcode == "constant":
        body = body.strip()
        return bool(body) and "," not in body and not body.startswith("%")
    return not body or body[0] not in "-0123456789"


def simple_lines(text: str, pos: int, line: int, line_start: int) -> LinesToken | None:
    """The run of plain instruction lines at pos (one or more), or None."""
    lines = []
    end = pos
    n = len(text)
    while True:
        m = _LINE.match(text, pos)
        if m is None or not _line_ok(m.group(5), m.group(6)):
            break
        lines.append((m, line, line_start))
        end = m.end()
        g = _LINE_GAP.match(text, end)
        if g is None:
            break
        line += text.count("\n", end, g.end())
        pos = g.end()
        line_start = text.rfind("\n", end, pos) + 1
        if pos >= n:
            break
    if not lines:
        return None
    start = lines[0][0].start()
    value = text[start:end]
    t = str.__new__(LinesToken, value)
    t.type = "SIMPLE_LINES"
    t.value = value
    t.start_pos = start
    t.line = lines[0][1]
    t.column = start - lines[0][2] + 1
    t.end_line = None
    t.end_column = None
    t.end_pos = end
    t.lines = lines
    return t

#: Keys (with `=`) whose values have a grammar of their own: key text -> terminal.
SPECIAL_KEYS = {
    "sharding=": "SHARDING_EQ", "frontend_attributes=": "FE_ATTRS_EQ",
    "backend_config=": "BACKEND_CONFIG_EQ", "origin=": "ORIGIN_EQ", "domain=": "DOMAIN_EQ",
    "sparsity_config=": "SPARSITY_EQ", "literal=": "LITERAL_EQ",
    "output_to_operand_aliasing=": "ALIASING_EQ", "input_output_alias=": "IO_ALIAS_EQ",
    "buffer_donor=": "DONOR_EQ", "entry_computation_layout=": "ENTRY_LAYOUT_EQ",
    "replica_groups=": "REPLICA_GROUPS_EQ", "origin_recovery_table=": "RECOVERY_EQ",
    "metadata=": "METADATA_EQ",
}  # fmt: skip
KEYWORDS = {
    "FileNames": "FILE_NAMES", "FunctionNames": "FUNCTION_NAMES",
    "FileLocations": "FILE_LOCATIONS", "StackFrames": "STACK_FRAMES", "ENTRY": "ENTRY",
    "ROOT": "ROOT", "constant": "CONSTANT", "parameter": "PARAMETER", "HloModule": "HLOMODULE",
}  # fmt: skip
PUNCT = {
    ",": "COMMA", "{": "LBRACE", "}": "RBRACE", ":": "COLON", "(": "LPAR", ")": "RPAR",
    "=": "EQUAL", "[": "LSQB", "]": "RSQB", "?": "QMARK", "#": "HASH", "*": "STAR",
    "+": "PLUS", "~": "TILDE",
}  # fmt: skip
ARROW, LESS_EQ = "__ANON_0", "__ANON_1"
#: Opcodes whose parentheses hold a payload, not operands.
_NOT_SIMPLE = frozenset({"constant", "parameter"})


def simple_head(tok: Token) -> tuple[bool, str, int, str, str, int, list[str] | Token]:
    """(is_root, name, its offset, shape text, opcode, its offset, operands) of a
    SIMPLE_HEAD token; operands are names, or the payload token of constant/parameter."""
    m = _SIMPLE_HEAD.match(tok)
    assert m is not None
    name_group = "pname" if m.group("pname") is not None else "name"
    head = (m.group("root") is not None, m.group(name_group), m.start(name_group),
            m.group("shape"), m.group("op"), m.start("op"))
    body = m.group("body")
    if m.group("op") in _NOT_SIMPLE:
        text = body.strip()
        kind = ("INT" if _INT_TEXT.fullmatch(text) else
                "DECIMAL" if text[0] in "-0123456789" else "NAME")
        return (*head, _inner_token(tok, kind, text, m.start("body")))
    names = [n.strip().lstrip("%") for n in body.split(",")] if body.strip() else []
    return (*head, names)


def _simple_ok(m: re.Match[str]) -> bool:
    """A SIMPLE_HEAD match is usable: operands for ordinary opcodes, an integer for
    parameter, a scalar for constant."""
    opcode, body = m.group("op"), m.group("body").strip()
    if opcode == "parameter":
        return _INT_TEXT.fullmatch(body) is not None and body[0] != "-"
    if opcode == "constant":
        return bool(body) and "," not in body and not body.startswith("%")
    return not body or body[0] not in "-0123456789"


def _numeric_block_end(text: str, pos: int) -> int:
    """End of the balanced numeric literal `{...}` at pos, or 0 when it is short or holds
    anything but numbers, commas and braces."""
    m = _NUMERIC_BLOCK.match(text, pos)
    if m is None or text.count(",", pos, m.end()) < _BLOCK_MIN_COMMAS:
        return 0
    depth = 0
    for brace in _BRACE.finditer(text, pos, m.end()):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            return brace.end()
    return 0


_BRACE = re.compile(r"[{}]")
def _scan_blob(text: str, pos: int) -> int:
    """End of the brace-balanced blob starting at text[pos] == '{' (strings skipped), or -1."""
    depth = 0
    n = len(text)
    i = pos
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == '"':
            m = _STRING.match(text, i)
            if m is None:
                return -1
            i = m.end()
            continue
        i += 1
    return -1


def would_shift(states: dict[Any, dict[str, Any]], stack: list[Any], kind: str) -> bool:
    """Whether the parser would shift a token of this kind after the reductions it
    triggers. LALR merges states, so a kind can be a lookahead of the current state and
    still be rejected once the reductions have run."""
    stack = stack[-24:]
    while True:
        action = states[stack[-1]].get(kind)
        if action is None:
            return False
        act, arg = action
        if act is Shift:
            return True
        size = len(arg.expansion)
        if size >= len(stack):
            return True
        if size:
            del stack[-size:]
        stack.append(states[stack[-1]][arg.origin.name][1])


def make_token(kind: str, value: str, pos: int, line: int, col: int) -> Token:
    """A Lark token, made without Lark's slower keyword constructor."""
    t = str.__new__(Token, value)
    t.type = kind
    t.value = value
    t.start_pos = pos
    t.line = line
    t.column = col
    t.end_line = None
    t.end_column = None
    t.end_pos = pos + len(value)
    return t


def simple_attr(tok: Token) -> tuple[Token, Any]:
    """(key token with `=`, value) of a SIMPLE_ATTR token; the value is a NAME, PCT_NAME
    or INT token, or an IntList, as the generic attribute rule would give."""
    from hlotool.hlo.ast import IntList

    m = _SIMPLE_ATTR.match(tok)
    assert m is not None
    key = _inner_token(tok, "KEY_EQ", m.group(1) + "=", m.start(1))
    text = m.group(2)
    at = m.start(2)
    if text[0] == "{":
        return key, IntList.from_token(_inner_token(tok, "INT_LIST", text, at))
    if text[0] == "%":
        return key, _inner_token(tok, "PCT_NAME", text[1:], at)
    kind = "INT" if text[0] == "-" or text[0].isdigit() else KEYWORDS.get(text, "NAME")
    return key, _inner_token(tok, kind, text, at)


def blob_attr(tok: Token) -> tuple[Token, Token]:
    """(special key token, BLOB token) of a BLOB_ATTR token."""
    m = _BLOB_ATTR.match(tok)
    assert m is not None
    key = m.group(1) + "="
    return (_inner_token(tok, SPECIAL_KEYS[key], key, m.start(1)),
            _inner_token(tok, "BLOB", tok[m.end() - 1:], m.end() - 1))


def _inner_token(tok: Token, kind: str, value: str, offset: int) -> Token:
    nl = tok.count("\n", 0, offset)
    if nl:
        line, col = tok.line + nl, offset - tok.rfind("\n", 0, offset)
    else:
        line, col = tok.line, tok.column + offset
    return make_token(kind, value, tok.start_pos + offset, line, col)


def operand_names(tok: Token) -> list[Token]:
    """Name tokens, with their own positions, of the operands in an OPERAND_LIST or
    SIMPLE_HEAD token (only needed to report an error)."""
    text = str(tok)
    start = 0
    if tok.type == "SIMPLE_HEAD":
        m = _SIMPLE_HEAD.match(text)
        assert m is not None
        start = m.start("body")
    return [_inner_token(tok, "NAME", m.group(1), m.start(1))
            for m in _OPERAND_NAME.finditer(text, start)]


class HloLexer(Lexer):
    """The lexer class given to Lark (`lexer=HloLexer`)."""

    __future_interface__ = 2

    def __init__(self, lexer_conf: Any) -> None:
        self.terminals = {t.name for t in lexer_conf.terminals}
        names = {t.pattern.value: t.name for t in lexer_conf.terminals if t.pattern.type == "str"}
        self.arrow = names.get("->", ARROW)
        self.less_eq = names.get("<=", LESS_EQ)
        self.ellipsis = names.get("...", "ELLIPSIS")

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:
        text: str = lexer_state.text if isinstance(lexer_state.text, str) else lexer_state.text.text
        states = parser_state.parse_conf.states
        stack = parser_state.state_stack
        n = len(text)
        pos = 0
        line = 1
        line_start = 0
        while True:
            m = _SKIP.match(text, pos)
            end = m.end()
            if end != pos:
                skipped = text.count("\n", pos, end)
                if skipped:
                    line += skipped
                    line_start = text.rfind("\n", pos, end) + 1
                pos = end
            if pos >= n:
                return
            col = pos - line_start + 1
            c = text[pos]
            accepts = states[stack[-1]]
            if "SIMPLE_LINES" in accepts and (c.isalpha() or c == "%") and FUSE.on:
                lt = simple_lines(text, pos, line, line_start)
                if lt is not None:
                    last_m, line, line_start = lt.lines[-1]
                    pos = last_m.end()
                    yield lt
                    continue
            kind, value = self._token_at(text, pos, c, accepts, line, col)
            if kind in ("SIMPLE_ATTR", "BLOB_ATTR") and not would_shift(states, stack, kind):
                kind, value = "COMMA", ","
            tok = make_token(kind, value, pos, line, col)
            newlines = value.count("\n") if kind in ("BLOB", "STRING", "LIT_BLOCK") else 0
            if newlines:
                line += newlines
                line_start = pos + value.rfind("\n") + 1
            if kind == "PCT_NAME" or (kind == "DEF_NAME" and value[0] == "%"):
                tok = make_token(kind, value[1:], pos, line, col)
            if kind == "DEF_NAME":
                value = text[pos:_DEF_AHEAD.match(text, pos + len(value)).end()]
            if kind in ("OPERAND_LIST", "DEF_NAME", "SIMPLE_HEAD", "SIMPLE_ATTR", "BLOB_ATTR") and (
                newlines == 0
            ):
                newlines = value.count("\n")
                if newlines:
                    line += newlines
                    line_start = pos + value.rfind("\n") + 1
            pos += len(value)
            yield tok

    def _token_at(self, text: str, pos: int, c: str, accepts: dict[str, Any],
                  line: int, col: int) -> tuple[str, str]:
        if (c.isascii() and c.isalpha()) or c == "_":  # names are ASCII: 'é' is an error
            return self._word(text, pos, c, accepts)
        if c == "%":
            if "SIMPLE_HEAD" in accepts:
                m = _SIMPLE_HEAD.match(text, pos)
                if m is not None and _simple_ok(m):
                    return "SIMPLE_HEAD", m.group()
            m = _PCT.match(text, pos)
            if m:
                if "DEF_NAME" in accepts and _DEF_AHEAD.match(text, m.end()):
                    return "DEF_NAME", m.group()
                return "PCT_NAME", m.group()
        elif c.isdigit() or c == "-":
            return self._number(text, pos, c, line, col, accepts)
        elif c == "{":
            return self._brace(text, pos, accepts)
        elif c == '"' or c == "'":
            m = _STRING.match(text, pos)
            if m:
                return "STRING", m.group()
        elif c == "<" and text.startswith("<=", pos):
            return self.less_eq, "<="
        elif c == "." and text.startswith("...", pos):
            return self.ellipsis, "..."
        elif c == "?":
            m = _DIM_LABELS.match(text, pos)
            if m and "DIM_LABELS" in accepts:
                return "DIM_LABELS", m.group()
            return "QMARK", "?"
        elif c == "(" and "PARAMS_ARROW" in accepts:
            m = _PARAMS_ARROW.match(text, pos)
            if m is not None:
                return "PARAMS_ARROW", m.group()
            return "LPAR", "("
        elif c == "(" and "OPERAND_LIST" in accepts:
            m = _OPERAND_LIST.match(text, pos)
            if m is not None:
                return "OPERAND_LIST", m.group()
            return "LPAR", "("
        elif c == "," and "SIMPLE_ATTR" in accepts:
            m = _SIMPLE_ATTR.match(text, pos)
            if m is not None and m.group(1) + "=" not in SPECIAL_KEYS:
                return "SIMPLE_ATTR", m.group()
            m = _BLOB_ATTR.match(text, pos)
            if m is not None:
                end = _scan_blob(text, m.end() - 1)
                if end > 0:
                    return "BLOB_ATTR", text[pos:end]
            return "COMMA", ","
        elif c in PUNCT:
            return PUNCT[c], c
        raise UnexpectedCharacters(text, pos, line, col, allowed=set(accepts) & self.terminals)

    def _word(self, text: str, pos: int, c: str, accepts: dict[str, Any]) -> tuple[str, str]:
        if "SIMPLE_HEAD" in accepts:
            m = _SIMPLE_HEAD.match(text, pos)
            if m is not None and _simple_ok(m):
                return "SIMPLE_HEAD", m.group()
        if c in "bf":
            m = _DIM_LABELS.match(text, pos)
            if m is not None:
                return "DIM_LABELS", m.group()
        if "ARRAY_SHAPE" in accepts:
            m = _ARRAY_SHAPE.match(text, pos)
            if m is not None:
                return "ARRAY_SHAPE", m.group()
        m = _IDENT.match(text, pos)
        assert m is not None
        word = m.group()
        end = m.end()
        nxt = text[end] if end < len(text) else ""
        if nxt == "=":
            key = word + "="
            return SPECIAL_KEYS.get(key, "KEY_EQ"), key
        if nxt == ":":
            return "NAME_COLON", word + ":"
        if "DEF_NAME" in accepts and _DEF_AHEAD.match(text, end):
            return "DEF_NAME", word
        kw = KEYWORDS.get(word)
        if kw is not None and kw in accepts:
            return kw, word
        if word == "b" and "BUFFER_B" in accepts and _BUFFER_AHEAD.match(text, pos):
            return "BUFFER_B", "b"
        if word == "nan" and nxt == "(":
            p = _NAN_PAYLOAD.match(text, end)
            if p is not None:
                return "DECIMAL", word + p.group()
        return "NAME", word

    def _number(self, text: str, pos: int, c: str, line: int, col: int,
                accepts: dict[str, Any]) -> tuple[str, str]:
        if c == "-" and text.startswith("->", pos):
            return self.arrow, "->"
        for kind, pattern in (("DIM_LABELS", _DIM_LABELS), ("PAD", _PAD), ("DXD", _DXD),
                              ("DECIMAL", _DECIMAL), ("INT", _INT)):
            m = pattern.match(text, pos)
            if m is not None:
                return kind, m.group()
        raise UnexpectedCharacters(text, pos, line, col, allowed=set(accepts) & self.terminals)

    def _brace(self, text: str, pos: int, accepts: dict[str, Any]) -> tuple[str, str]:
        if "LIT_BLOCK" in accepts and FUSE.on:
            end = _numeric_block_end(text, pos)
            if end > 0:
                return "LIT_BLOCK", text[pos:end]
        if "BLOB" in accepts and "LBRACE" not in accepts:
            end = _scan_blob(text, pos)
            if end > 0:
                return "BLOB", text[pos:end]
        if "INT_LIST" in accepts:
            m = _INT_LIST.match(text, pos)
            if m is not None:
                return "INT_LIST", m.group()
        if "LAYOUT_LBRACE" in accepts and _LAYOUT_AHEAD.match(text, pos):
            return "LAYOUT_LBRACE", "{"
        return "LBRACE", "{"
