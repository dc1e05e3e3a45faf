"""HLO text -> syntax tree (`hlotool.hlo.ast`), with Lark's LALR parser and contextual lexer.

The transformer runs inline in the parser (no parse tree is built) and builds shapes
directly as IR values. Syntax errors become `HloError`s with a position and the list of
expected tokens, explained through curated examples where one matches.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedInput

from hlotool.diagnostics import HloError, error_at
from hlotool.grammar_cache import cached_lark
from hlotool.syntax.lark_support import syntax_error
from hlotool.syntax.strings import blob_pattern
from hlotool.hlo.lexer import (
    FUSE,
    LINE_ATTR,
    HloLexer,
    blob_attr,
    make_token,
    simple_attr,
    simple_head,
)
from hlotool.hlo.ast import (
    AttrAst,
    BraceAst,
    ComputationAst,
    InlineBodyAst,
    IntList,
    InstrAst,
    KvsAst,
    ModuleAst,
    OperandRef,
    SliceAst,
)
from hlotool.grammar_cache import cached_lark
from hlotool.ir.literal import NumericBlock
from hlotool.ir.types import UNBOUNDED, Layout, PrimitiveType, Shape, SplitConfig, Tile

GRAMMAR_DIR = Path(str(resources.files("hlotool.grammar")))
_TYPES = {t.value: t for t in PrimitiveType if t not in (PrimitiveType.TUPLE, PrimitiveType.BUFFER)}


def _token_value(tok: Token) -> str:
    return str(tok)


def _int(tok: Token) -> int:
    return int(tok)


class _Builder(Transformer[Token, Any]):
    """Inline callbacks of the LALR parser: one per grammar rule or alias."""

    # -- module ---------------------------------------------------------------------------
    @v_args(inline=True)
    def start(self, *items: Any) -> ModuleAst:
        name, header, frames = None, [], None
        comps: list[ComputationAst] = []
        for item in items:
            if isinstance(item, ComputationAst):
                comps.append(item)
            elif isinstance(item, tuple) and item[0] == "header":
                name, header = item[1], item[2]
            elif isinstance(item, tuple) and item[0] == "frames":
                frames = item[1]
        return ModuleAst(name, header, frames, comps)

    @v_args(inline=True)
    def header(self, name: Token, *attrs: AttrAst) -> tuple[str, Token, list[AttrAst]]:
        return ("header", name, list(attrs))

    @v_args(inline=True)
    def stack_frames(self, *items: Any) -> tuple[str, dict[str, list[Any]]]:
        sections: dict[str, list[Any]] = {}
        current: list[Any] = []
        for it in items:
            if isinstance(it, Token) and it.type in (
                "FILE_NAMES", "FUNCTION_NAMES", "FILE_LOCATIONS", "STACK_FRAMES"
            ):  # fmt: skip
                current = sections.setdefault(it.type, [])
            else:
                current.append(it)
        return ("frames", sections)

    @v_args(inline=True)
    def sf_string(self, index: Token, text: Token) -> tuple[Token, Token]:
        return (index, text)

    @v_args(inline=True)
    def sf_brace(self, index: Token, value: BraceAst) -> tuple[Token, BraceAst]:
        return (index, value)

    def io_alias_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "io_alias")

    def donor_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "donor")

    def entry_layout_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "entry_layout")

    def recovery_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "raw")

    def io_aliases(self, c: list[Any]) -> list[Any]:
        return [x for x in c if x is not None]

    donors = io_aliases

    def io_alias(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def donor(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def shape_index(self, c: list[Any]) -> tuple[int, ...]:
        return tuple(c[0])

    def entry_layout(self, c: list[Any]) -> tuple[list[Shape], Shape]:
        shapes = [s for s in c if s is not None]
        return shapes[:-1], shapes[-1]

    # -- computations ----------------------------------------------------------------------
    def computation(self, c: list[Any]) -> ComputationAst:
        i = 0
        is_entry = isinstance(c[0], Token) and c[0].type == "ENTRY"
        if is_entry:
            i = 1
        name = c[i]
        rest = c[i + 1 :]
        result_shape = None
        if rest and isinstance(rest[0], Shape):
            result_shape = rest[0]
            rest = rest[1:]
        elif rest and rest[0] is None:
            rest = rest[1:]
        body = rest[0]
        comp = ComputationAst(is_entry, name, body, result_shape)
        if len(rest) > 2:
            comp.thread_key = rest[1]
            comp.execution_thread = _unquote(rest[2])
        return comp

    def signature(self, c: list[Any]) -> Shape:
        return c[-1]

    def param(self, c: list[Any]) -> None:
        return None

    def body(self, c: list[InstrAst]) -> list[InstrAst]:
        return c

    def instruction(self, c: list[Any]) -> InstrAst:
        i = 0
        is_root = isinstance(c[0], Token) and c[0].type == "ROOT"
        if is_root:
            i = 1
        name = c[i]
        nxt = c[i + 1]
        if isinstance(nxt, Shape):
            ins: InstrAst = c[i + 2]
            ins.shape = nxt
            attrs = c[i + 3 :]
        else:
            ins = nxt
            attrs = c[i + 2 :]
        ins.name = name
        ins.is_root = is_root
        ins.attrs = list(attrs)
        return ins

    def simple_instruction(self, c: list[Any]) -> InstrAst:
        tok: Token = c[0]
        is_root, name, name_at, shape_text, opcode, opcode_at, operands = simple_head(tok)
        shape = _SHAPES.get(shape_text)
        if shape is None:
            shape = _fast_shape(_sub_token(tok, shape_text, tok.index(shape_text, name_at + len(name))))
            if len(_SHAPES) < 4096:
                _SHAPES[shape_text] = shape
        op_tok = _sub_token(tok, opcode, opcode_at)
        if isinstance(operands, Token):
            op_tok.type = opcode.upper()
            return InstrAst(_sub_token(tok, name, name_at), shape, op_tok, [], operands,
                            attrs=c[1:], is_root=is_root)
        ins = InstrAst(_sub_token(tok, name, name_at), shape, op_tok, operands,  # type: ignore[arg-type]
                       attrs=c[1:], is_root=is_root)
        ins.operand_list = tok
        return ins

    def call(self, c: list[Any]) -> InstrAst:
        ops = c[1] if len(c) > 1 and c[1] is not None else []
        return InstrAst(None, None, c[0], ops)

    def fast_call(self, c: list[Any]) -> InstrAst:
        tok: Token = c[1]
        body = tok[1:-1]
        names = [n.strip().lstrip("%") for n in body.split(",")] if body.strip() else []
        ins = InstrAst(None, None, c[0], names)  # type: ignore[arg-type]
        ins.operand_list = tok
        return ins

    def constant_call(self, c: list[Any]) -> InstrAst:
        return InstrAst(None, None, c[0], [], c[1])

    def parameter_call(self, c: list[Any]) -> InstrAst:
        return InstrAst(None, None, c[0], [], c[1])

    def operands(self, c: list[Any]) -> list[Any]:
        return c

    def operand_ref(self, c: list[Any]) -> OperandRef:
        return OperandRef(c[0], c[1])

    def operand_nested(self, c: list[Any]) -> InstrAst:
        ins: InstrAst = c[-1]
        if len(c) == 2:
            ins.shape = c[0]
        return ins

    # -- shapes -------------------------------------------------------------------------------
    def ARRAY_SHAPE(self, tok: Token) -> Shape:
        shape = _SHAPES.get(tok)
        if shape is None:
            shape = _fast_shape(tok)
            if len(_SHAPES) < 4096:
                _SHAPES[str(tok)] = shape
        return shape

    def SIMPLE_LINES(self, tok: Token) -> Token:
        """Check the lines' shapes now, as the unfused SIMPLE_HEADs would be checked."""
        for line in tok.lines:  # type: ignore[attr-defined]
            if line[0].group(4) not in _SHAPES:
                materialize_line(line)
        return tok

    def SIMPLE_ATTR(self, tok: Token) -> AttrAst:
        key, value = simple_attr(tok)
        return AttrAst(key, value)

    def BLOB_ATTR(self, tok: Token) -> AttrAst:
        key, blob = blob_attr(tok)
        return AttrAst(key, blob, "raw")

    def INT_LIST(self, tok: Token) -> IntList:
        return IntList.from_token(tok)

    def array_shape(self, c: list[Any]) -> Shape:
        tok: Token = c[0]
        et = _TYPES.get(tok)
        if et is None:
            raise error_at(tok, f"unknown element type '{tok}'", ("an element type such as f32",))
        dims: list[int] = []
        dynamic: list[bool] = []
        layout: Layout | None = None
        for d in c[1:]:
            if d is None:
                continue
            if isinstance(d, Layout):
                layout = d
            elif isinstance(d, tuple):
                dims.append(d[1])
                dynamic.append(True)
            elif d == "?":
                dims.append(UNBOUNDED)
                dynamic.append(False)
            else:
                dims.append(int(d))
                dynamic.append(False)
        if not et.is_array_type and dims:
            raise error_at(tok, f"{et.value} shapes cannot have dimensions")
        if layout is not None and len(layout.minor_to_major) != len(dims):
            raise error_at(
                tok,
                f"layout {{{','.join(map(str, layout.minor_to_major))}}} has "
                f"{len(layout.minor_to_major)} entries but the shape has rank {len(dims)}",
            )
        if layout is not None and sorted(layout.minor_to_major) != list(range(len(dims))):
            raise error_at(tok, "layout minor_to_major must be a permutation of the dimensions")
        if layout is None and et.is_array_type:
            layout = Layout.default_for_rank(len(dims))
        return Shape(et, tuple(dims), layout, tuple(dynamic) if any(dynamic) else ())

    def tuple_shape(self, c: list[Any]) -> Shape:
        return Shape.tuple_of([s for s in c if s is not None])

    def buffer_shape(self, c: list[Any]) -> Shape:
        return Shape(PrimitiveType.BUFFER, tuple_shapes=(c[1],))

    def bounded_dim(self, c: list[Token]) -> tuple[str, int]:
        return ("<=", int(c[0]))

    def unbounded_dim(self, c: list[Any]) -> str:
        return "?"

    def layout(self, c: list[Any]) -> Layout:
        m2m: list[int] = []
        kw: dict[str, Any] = {}
        for x in c[1:]:
            if x is None:
                continue
            if isinstance(x, Token):
                m2m.append(int(x))
            else:
                key, value = x
                kw[key] = value
        return Layout(tuple(m2m), **kw)

    def named_layout_item(self, c: list[Any]) -> tuple[str, Any]:
        tok: Token = c[0]
        args: list[list[Any]] = c[1:]
        key = str(tok)

        def one_int() -> int:
            if len(args) != 1 or len(args[0]) != 1 or not isinstance(args[0][0], Token):
                raise error_at(tok, f"layout item {key}(...) takes one integer")
            return int(args[0][0])

        if key == "T":
            return ("tiles", tuple(Tile(tuple(-1 if a == "*" else int(a) for a in t)) for t in args))
        if key == "L":
            return ("tail_padding_alignment", one_int())
        if key == "E":
            return ("element_size_in_bits", one_int())
        if key == "S":
            return ("memory_space", one_int())
        if key == "M":
            return ("dynamic_shape_metadata_prefix_bytes", one_int())
        if key == "SC":
            configs = []
            for a in args:
                if not a or not isinstance(a[0], tuple):
                    raise error_at(tok, "split config must look like SC(dim:index,...)")
                configs.append(SplitConfig(a[0][0], (a[0][1], *(int(x) for x in a[1:]))))
            return ("split_configs", tuple(configs))
        if key == "D":
            return ("_dim_level", None)
        if key == "P":
            raise error_at(tok, "Layout has physical shape, but is not for a sparse array")
        raise error_at(
            tok, f"unknown layout item '{key}'", ("T(...)", "L(...)", "E(...)", "S(...)", "SC(...)", "M(...)")
        )

    def layout_args(self, c: list[Any]) -> list[Any]:
        return [x for x in c if x is not None]

    def index_type_item(self, c: list[Token]) -> tuple[str, Any]:
        return ("index_type", _unsigned_type(c[0]))

    def pointer_type_item(self, c: list[Token]) -> tuple[str, Any]:
        return ("pointer_type", _unsigned_type(c[0]))

    def split_arg(self, c: list[Token]) -> tuple[int, int]:
        return (int(c[0]), int(c[1]))

    def star_arg(self, c: list[Any]) -> str:
        return "*"

    def dim_level_arg(self, c: list[Any]) -> str:
        return "D"

    # -- literals -------------------------------------------------------------------------------
    def lit_brace(self, c: list[Any]) -> tuple[str, list[Any]] | NumericBlock:
        if len(c) == 1 and isinstance(c[0], Token) and c[0].type == "LIT_BLOCK":
            return NumericBlock(str(c[0]))
        items = [x.tree() if isinstance(x, NumericBlock) else x for x in c
                 if not (isinstance(x, Token) and x.type == "LAYOUT_LBRACE")]
        return ("{", items)

    def lit_paren(self, c: list[Any]) -> tuple[str, list[Any]]:
        return ("(", [x for x in c if x is not None])

    # -- attributes -------------------------------------------------------------------------
    def attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1])

    def raw_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "raw")

    def fe_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "fe")

    def fe_attrs(self, c: list[Any]) -> list[tuple[Token, Token]]:
        return [x for x in c if x is not None]

    def fe_item(self, c: list[Token]) -> tuple[Token, Token]:
        return (c[0], c[1])

    def literal_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "literal")

    def literal_value(self, c: list[Any]) -> tuple[Shape, Any]:
        return (c[0], c[1])

    def tuple_literal_value(self, c: list[Any]) -> list[Any]:
        return [x for x in c if x is not None]

    def aliasing_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "aliasing")

    def aliasing(self, c: list[Any]) -> list[Any]:
        return [x for x in c if x is not None]

    def alias_item(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def replica_groups_attr(self, c: list[Any]) -> AttrAst:
        return AttrAst(c[0], c[1], "replica_groups")

    def int_seq(self, c: list[Token]) -> list[int]:
        return [int(x) for x in c]

    def iota_groups(self, c: list[Any]) -> tuple[str, str]:
        text = f"[{','.join(map(str, c[0]))}]<=[{','.join(map(str, c[1]))}]"
        if len(c) > 2 and c[2] is not None:
            text += c[2]
        return ("iota", text)

    def iota_transpose(self, c: list[Any]) -> str:
        return f"{c[0]}({','.join(map(str, c[1]))})"

    def mesh_groups(self, c: list[Any]) -> tuple[str, str]:
        sizes = [x for x in c[1:] if isinstance(x, tuple) and x[0] == "size"]
        axes = [x for x in c[1:] if isinstance(x, tuple) and x[0] == "axis"]
        ids = [x for x in c[1:] if isinstance(x, str)]
        text = f"{c[0]}[" + ",".join(s[1] for s in sizes) + "]"
        if ids:
            text += f", device_ids=({ids[0]})"
        text += " {" + ",".join(a[1] for a in axes) + "}"
        return ("mesh", text)

    def mesh_axis_size(self, c: list[Token]) -> tuple[str, str]:
        return ("size", f"{_requote(c[0])}={int(c[1])}")

    def mesh_axis(self, c: list[Any]) -> tuple[str, str]:
        text = _requote(c[0])
        if len(c) > 1:
            text += f":({int(c[1])}){int(c[2])}"
        return ("axis", text)

    def device_ids(self, c: list[Any]) -> str:
        return ",".join(map(str, c[0])) if c and c[0] is not None else ""

    def iota_device_ids(self, c: list[Any]) -> str:
        text = f"[{','.join(map(str, c[0]))}]"
        if len(c) > 1 and c[1] is not None:
            text += c[1]
        return text

    def brace(self, c: list[Any]) -> BraceAst:
        return BraceAst([x for x in c if x is not None])

    def kvs(self, c: list[tuple[Token, Any]]) -> KvsAst:
        return KvsAst(c)

    def kv(self, c: list[Any]) -> tuple[Token, Any]:
        return (c[0], c[1])

    def slice_range(self, c: list[Token]) -> SliceAst:
        return SliceAst(c[0], c[1], c[2] if len(c) > 2 else None)

    def inline_body(self, c: list[InstrAst]) -> InlineBodyAst:
        return InlineBodyAst(c)


_SHAPES: dict[str, Shape] = {}
_FAST_SHAPE = re.compile(r"([a-z0-9]+)\[([\d,]*)\](?:\{([\d,]*)\})?")


def _sub_token(tok: Token, part: str, offset: int) -> Token:
    """A NAME token for the text at `offset` inside a SIMPLE_HEAD token."""
    nl = tok.count("\n", 0, offset)
    if nl:
        line, column = tok.line + nl, offset - tok.rfind("\n", 0, offset)
    else:
        line, column = tok.line, tok.column + offset
    return make_token("NAME", part, tok.start_pos + offset, line, column)


def _fast_shape(tok: Token) -> Shape:
    """Shape of an ARRAY_SHAPE token such as `f32[8,64]{1,0}`."""
    m = _FAST_SHAPE.fullmatch(tok)
    assert m is not None
    et = _TYPES.get(m.group(1))
    if et is None or not et.is_array_type:
        raise error_at(tok, f"unknown element type '{m.group(1)}'", ("an element type such as f32",))
    dims = tuple(int(d) for d in m.group(2).split(",")) if m.group(2) else ()
    if m.group(3) is None:
        return Shape(et, dims, Layout.default_for_rank(len(dims)))
    m2m = tuple(int(d) for d in m.group(3).split(","))
    if sorted(m2m) != list(range(len(dims))):
        raise error_at(tok, f"layout {{{m.group(3)}}} is not a permutation of the "
                       f"{len(dims)} dimensions of {m.group(1)}[{m.group(2)}]")
    return Shape(et, dims, Layout(m2m))


def _unquote(tok: Token) -> str:
    """The contents of a quoted string token with C escapes processed."""
    from hlotool.syntax.strings import c_unescape

    return c_unescape(str(tok)[1:-1], tok)


def _requote(tok: Token) -> str:
    return "'" + _unquote(tok).replace("'", "\\'") + "'"


def _unsigned_type(tok: Token) -> PrimitiveType:
    et = _TYPES.get(str(tok))
    if et is None or not et.is_unsigned_int:
        raise error_at(tok, f"expected an unsigned integer type, got '{tok}'")
    return et


_BUILDER = _Builder()


@functools.cache
def hlo_parser() -> Lark:
    """The LALR parser with the AST builder inlined (built once, cached on disk)."""
    text = (GRAMMAR_DIR / "hlo.lark").read_text().replace("__BLOB__", blob_pattern())
    return cached_lark(
        "hlo-grammar",
        text,
        parser="lalr",
        lexer=HloLexer,
        transformer=_BUILDER,
        maybe_placeholders=True,
        import_paths=[str(GRAMMAR_DIR)],
    )


def parse_hlo_ast(text: str) -> ModuleAst:
    """Parse HLO text to its syntax tree; raise HloError on a syntax error."""
    if not text.strip():
        raise HloError("empty input: expected an HLO module", 1, 1, ("HloModule", "ENTRY"))
    bad = _first_control_char(text)
    if bad is not None:
        line, col, ch = bad
        raise HloError(f"unexpected character {ch!r} (binary input?)", line, col)
    try:
        return hlo_parser().parse(text)
    except UnexpectedInput:
        pass
    except RecursionError:
        raise HloError("input nests too deeply", 1, 1) from None
    # Report the error as the unfused token stream meets it (same state, same expectations).
    # A text the fused lines cannot take but the tokens can (an instruction broken over
    # lines before its attributes) is valid: its unfused tree is the result.
    FUSE.on = False
    try:
        try:
            return hlo_parser().parse(text)
        except UnexpectedInput as exc:
            raise _syntax_error(exc, text) from None
        except RecursionError:
            raise HloError("input nests too deeply", 1, 1) from None
    finally:
        FUSE.on = True


def materialize_line(line: tuple[Any, int, int]) -> InstrAst:
    """The syntax tree of one line of a SIMPLE_LINES token, exactly as the unfused
    tokens (SIMPLE_HEAD, SIMPLE_ATTR, BLOB_ATTR) give it, with every position."""
    m, lineno, line_start = line
    text = m.string
    start, attrs_at = m.start(), m.start(7)
    head = make_token("SIMPLE_HEAD", text[start:attrs_at], start, lineno, start - line_start + 1)
    attrs = []
    for a in LINE_ATTR.finditer(text, attrs_at, m.end(7)):
        at = a.start()
        kind = "SIMPLE_ATTR" if a.group(1) is not None else "BLOB_ATTR"
        tok = make_token(kind, a.group(), at, lineno, at - line_start + 1)
        attrs.append(_BUILDER.SIMPLE_ATTR(tok) if a.group(1) is not None else _BUILDER.BLOB_ATTR(tok))
    return _BUILDER.simple_instruction([head, *attrs])


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _first_control_char(text: str) -> tuple[int, int, str] | None:
    """XLA's lexer accepts only space, tab, CR and LF as whitespace."""
    m = _CONTROL.search(text)
    if m is None:
        return None
    i = m.start()
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return line, col, m.group()


_TERMINAL_NAMES = {
    "NAME": "a name", "PCT_NAME": "a name", "DEF_NAME": "a name", "SIMPLE_HEAD": "a name",
    "INT": "an integer", "DECIMAL": "a number", "STRING": "a string",
    "KEY_EQ": "key=", "SIMPLE_ATTR": "key=", "BLOB_ATTR": "key=", "NAME_COLON": "name:",
    "LAYOUT_LBRACE": "'{'", "INT_LIST": "'{'", "BLOB": "'{'", "ARRAY_SHAPE": "a shape",
    "OPERAND_LIST": "'('", "PARAMS_ARROW": "'('", "$END": "end of input",
    "DXD": "NxM", "PAD": "low_high", "DIM_LABELS": "dimension labels",
    "SIMPLE_LINES": "an instruction", "SIMPLE_LINE": "an instruction",
}  # fmt: skip


def _syntax_error(exc: UnexpectedInput, text: str) -> HloError:
    from hlotool.hlo.errors import explain

    return syntax_error(exc, text, hlo_parser(), _TERMINAL_NAMES,
                        "unexpected end of input (unterminated module?)",
                        explain(exc, hlo_parser().parse))
