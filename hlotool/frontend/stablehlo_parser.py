"""StableHLO/MLIR text -> syntax tree (`stablehlo_ast`), with Lark's LALR parser and
contextual lexer, the transformer inlined (no parse tree is built).

Pretty-form ops are normalized to the generic form as they are reduced (see
`stablehlo_pretty`), so everything after this module sees one op shape. Syntax errors
become `HloError`s with a position and the expected tokens.
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
from hlotool.frontend.lark_support import syntax_error
from hlotool.frontend.stablehlo_ast import (
    ArgAst,
    BlockArg,
    Brackets,
    BuiltinType,
    Comma,
    ComplexType,
    DenseArrayAttr,
    DenseAttr,
    DialectAttr,
    DialectType,
    DictAttr,
    FileAst,
    FloatAttr,
    FuncAst,
    FunctionType,
    FutureType,
    Group,
    IntAttr,
    KwArg,
    ListAttr,
    LocAttr,
    MlirType,
    ModuleAst,
    OpAst,
    Paren,
    RegionAst,
    ResultDef,
    Signature,
    SliceSpec,
    StringAttr,
    SymbolAttr,
    TensorType,
    TupleType,
    TypeAttr,
    UnitAttr,
    ValueRef,
    WordAttr,
)
from hlotool.frontend.stablehlo_pretty import normalize_pretty, reduce_from_pretty
from hlotool.grammar_cache import cached_lark

GRAMMAR_DIR = Path(str(resources.files("hlotool.grammar")))
_HEADER = "header"


def mlir_unescape(body: str, tok: object = None) -> str:
    """Contents of an MLIR string literal: `\\\\`, `\\"`, `\\n`, `\\t` and `\\XX` hex."""
    if "\\" not in body:
        return body
    out: list[str] = []
    raw = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            raw += ch.encode()
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        simple = {"\\": "\\", '"': '"', "n": "\n", "t": "\t"}
        if nxt in simple:
            raw += simple[nxt].encode()
            i += 2
        elif re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 1 : i + 3]):
            raw.append(int(body[i + 1 : i + 3], 16))
            i += 3
        else:
            raise error_at(tok, f"invalid escape sequence '\\{nxt}' in string")
    out.append(raw.decode("utf-8", errors="replace"))
    return "".join(out)


def _string(tok: Token) -> str:
    if tok.startswith("'"):
        raise error_at(tok, "MLIR strings are written with double quotes")
    return mlir_unescape(str(tok)[1:-1], tok)


def _symbol(tok: Token) -> str:
    """`@name` / `@"quoted"` / `@a::@b` without the `@` and quotes."""
    parts = []
    for part in str(tok).split("::@"):
        part = part.lstrip("@")
        if part.startswith('"'):
            part = mlir_unescape(part[1:-1], tok)
        parts.append(part)
    return "::".join(parts)


def _value_ref(tok: Token) -> ValueRef:
    text = str(tok)
    if "#" in text:
        name, index = text.split("#", 1)
        return ValueRef(name, int(index), tok)
    return ValueRef(text, None, tok)


def _present(items: list[Any]) -> list[Any]:
    return [x for x in items if x is not None]


class _Builder(Transformer[Token, Any]):
    """Inline callbacks of the LALR parser: one per grammar rule or alias."""

    # -- file and module ---------------------------------------------------------------------
    def start(self, c: list[Any]) -> FileAst:
        file = FileAst([])
        loose = ModuleAst(None, None, None)
        for item in c:
            if isinstance(item, tuple) and item[0] == "alias":
                file.aliases[item[1]] = item[2]
            elif isinstance(item, tuple) and item[0] == "type_alias":
                file.type_aliases[item[1]] = item[2]
            elif isinstance(item, tuple) and item[0] == "resources":
                file.resources.update(item[1])
            elif isinstance(item, ModuleAst):
                file.modules.append(item)
            elif isinstance(item, FuncAst):
                loose.funcs.append(item)
            elif isinstance(item, OpAst):
                _add_module_item(loose, item)
        if loose.funcs or loose.others:
            loose.tok = loose.funcs[0].tok if loose.funcs else loose.others[0].tok
            file.modules.append(loose)
        return file

    @v_args(inline=True)
    def attr_alias(self, name: Token, value: Any) -> tuple[str, str, Any]:
        return ("alias", str(name), value)

    @v_args(inline=True)
    def type_alias(self, name: Token, value: MlirType) -> tuple[str, str, MlirType]:
        return ("type_alias", str(name), value)

    @v_args(inline=True)
    def resources(self, tok: Token) -> tuple[str, dict[str, str]]:
        blobs = dict(re.findall(r'([A-Za-z_][\w.$-]*|"[^"]*")\s*:\s*"(0x[0-9a-fA-F]*)"', str(tok)))
        return ("resources", {k.strip('"'): v for k, v in blobs.items()})

    def module_op(self, c: list[Any]) -> ModuleAst:
        module = ModuleAst(None, c[0], None)
        for item in c[1:]:
            if isinstance(item, Token) and item.type == "SYMBOL":
                module.name, module.tok = _symbol(item), item
            elif isinstance(item, DictAttr):
                module.attrs = item
            elif isinstance(item, FuncAst):
                module.funcs.append(item)
            elif isinstance(item, OpAst):
                _add_module_item(module, item)
        return module

    def mesh_op(self, c: list[Any]) -> OpAst:
        return OpAst("sdy.mesh", c[0])

    # -- functions ---------------------------------------------------------------------------
    def func_op(self, c: list[Any]) -> FuncAst:
        visibility = "public"
        func: FuncAst | None = None
        args: list[ArgAst] = []
        for item in c:
            if isinstance(item, Token) and item.type == "VISIBILITY":
                visibility = str(item)
            elif isinstance(item, Token) and item.type == "SYMBOL":
                func = FuncAst(_symbol(item), item, visibility, args, [], None, None)
            elif isinstance(item, ArgAst):
                args.append(item)
            elif func is None:
                continue
            elif isinstance(item, list):
                func.results = item
            elif isinstance(item, DictAttr):
                func.attrs = item
            elif isinstance(item, RegionAst):
                func.body = item
            elif isinstance(item, LocAttr):
                func.loc = item
        assert func is not None
        func.visibility = visibility
        return func

    def named_arg(self, c: list[Any]) -> ArgAst:
        return ArgAst(str(c[0]), c[1], _first(c, DictAttr), _first(c, LocAttr), c[0])

    def bare_arg(self, c: list[Any]) -> ArgAst:
        return ArgAst(None, c[0], _first(c, DictAttr), _first(c, LocAttr), _type_tok(c[0]))

    def single_result(self, c: list[Any]) -> list[tuple[MlirType, DictAttr | None]]:
        return [(c[1], None)]

    def result_list(self, c: list[Any]) -> list[tuple[MlirType, DictAttr | None]]:
        return _present(c[1:])

    def func_result(self, c: list[Any]) -> tuple[MlirType, DictAttr | None]:
        return (c[0], _first(c, DictAttr))

    # -- regions and statements ---------------------------------------------------------
    def region(self, c: list[Any]) -> RegionAst:
        args: list[BlockArg] = []
        ops: list[OpAst] = []
        for item in c:
            if isinstance(item, tuple) and item[0] == _HEADER:
                args = item[1]
            elif isinstance(item, OpAst):
                ops.append(item)
        return RegionAst(args, ops, ops[0].tok if ops else None)

    def block_header(self, c: list[Any]) -> tuple[str, list[BlockArg]]:
        return (_HEADER, [x for x in c[1:] if isinstance(x, BlockArg)])

    def block_arg(self, c: list[Any]) -> BlockArg:
        return BlockArg(str(c[0]), c[1], c[0], _first(c, LocAttr))

    def statement(self, c: list[Any]) -> OpAst:
        results: list[ResultDef] = []
        op: OpAst | None = None
        loc: LocAttr | None = None
        for item in c:
            if isinstance(item, list):
                results = item
            elif isinstance(item, OpAst):
                op = item
            elif isinstance(item, LocAttr):
                loc = item
        assert op is not None
        op.results = results
        op.loc = loc
        return op

    def results(self, c: list[Token]) -> list[ResultDef]:
        out = []
        for tok in c:
            text = str(tok)
            if tok.type == "RESULT_GROUP":
                name, count = text.rsplit(":", 1)
                out.append(ResultDef(name, int(count), tok))
            elif "#" in text:
                raise error_at(tok, f"a result name cannot have a '#' suffix ('{text}')")
            else:
                out.append(ResultDef(text, 1, tok))
        return out

    def generic_op(self, c: list[Any]) -> OpAst:
        name_tok: Token = c[0]
        op = OpAst(_string(name_tok), name_tok)
        for item in c[1:]:
            if isinstance(item, Token) and item.type == "VALUE":
                op.operands.append(_value_ref(item))
            elif isinstance(item, tuple) and item[0] == "props":
                _merge_attrs(op, item[1])
            elif isinstance(item, tuple) and item[0] == "regions":
                op.regions = item[1]
            elif isinstance(item, DictAttr):
                _merge_attrs(op, item.entries)
            elif isinstance(item, FunctionType):
                op.operand_types = list(item.inputs)
                op.result_types = list(item.results)
            elif isinstance(item, tuple) and item[0] == "successors":
                raise error_at(name_tok, "block successors are not supported in StableHLO")
        return op

    def successors(self, c: list[Any]) -> tuple[str]:
        return ("successors",)

    def properties(self, c: list[Any]) -> tuple[str, tuple[tuple[str, Any], ...]]:
        entries = _entries([x for x in c[1:-1] if x is not None])
        return ("props", entries)

    def generic_regions(self, c: list[RegionAst]) -> tuple[str, list[RegionAst]]:
        return ("regions", list(c))

    def pretty_op(self, c: list[Any]) -> OpAst:
        sig = c[-1] if c and isinstance(c[-1], Signature) else None
        items = c[1:-1] if sig is not None else c[1:]
        return normalize_pretty(c[0], list(items), sig)

    @v_args(inline=True)
    def operand_item(self, tok: Token) -> ValueRef:
        return _value_ref(tok)

    def indexed_item(self, c: list[Any]) -> tuple[ValueRef, SliceSpec]:
        entries = tuple(x for x in c[1:] if x is not None)
        return (_value_ref(c[0]), SliceSpec(entries, c[0]))

    @v_args(inline=True)
    def word_item(self, tok: Token) -> WordAttr:
        return WordAttr(str(tok), tok)

    @v_args(inline=True)
    def kw_item(self, key: Token, value: Any) -> KwArg:
        return KwArg(str(key), _kw_value(value), key)

    @v_args(inline=True)
    def string_item(self, tok: Token) -> StringAttr:
        return StringAttr(_string(tok), tok)

    @v_args(inline=True)
    def dense_item(self, tok: Token) -> Token:
        return tok

    @v_args(inline=True)
    def symbol_item(self, tok: Token) -> SymbolAttr:
        return SymbolAttr(_symbol(tok), tok)

    def paren_item(self, c: list[Any]) -> Paren:
        return Paren(tuple(c))

    @v_args(inline=True)
    def dict_item(self, d: DictAttr) -> DictAttr:
        return d

    @v_args(inline=True)
    def angle_item(self, g: Group) -> Group:
        return g

    def comma_item(self, c: list[Any]) -> Comma:
        return Comma()

    def slice_item(self, c: list[Token]) -> tuple[int, int | None, int | None]:
        nums = [int(x) for x in c]
        return (nums[0], nums[1] if len(nums) > 1 else None, nums[2] if len(nums) > 2 else None)

    def kw_brackets(self, c: list[Any]) -> Brackets:
        lists: list[tuple[Any, ...]] = []
        arrow = None
        seen_arrow = False
        for item in c:
            if isinstance(item, Token) and item.type == "ARROW":
                seen_arrow = True
            elif seen_arrow:
                arrow = item
            else:
                lists.append(item)
        return Brackets(tuple(lists), arrow)

    def bracket(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(x for x in c if x is not None)

    def while_op(self, c: list[Any]) -> OpAst:
        op = OpAst("stablehlo.while", c[0])
        args: list[tuple[Token, ValueRef]] = []
        types: list[MlirType] = []
        regions: list[RegionAst] = []
        for item in c:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], ValueRef):
                args.append(item)
            elif isinstance(item, MlirType):
                types.append(item)
            elif isinstance(item, DictAttr):
                _merge_attrs(op, item.entries)
            elif isinstance(item, RegionAst):
                regions.append(item)
        if len(types) != len(args):
            raise error_at(
                op.tok, f"stablehlo.while has {len(args)} operands but {len(types)} types"
            )
        op.operands = [init for _, init in args]
        op.operand_types = list(types)
        op.result_types = list(types)
        for region in regions:
            region.args = [
                BlockArg(str(tok), t, tok) for (tok, _), t in zip(args, types, strict=True)
            ]
        op.regions = regions
        return op

    @v_args(inline=True)
    def while_arg(self, name: Token, init: Token) -> tuple[Token, ValueRef]:
        return (name, _value_ref(init))

    def reduce_op(self, c: list[Any]) -> OpAst:
        inputs = [
            x for x in c if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], ValueRef)
        ]
        return reduce_from_pretty(c[0], inputs, c[-1])

    @v_args(inline=True)
    def reduce_input(self, value: Token, init: Token) -> tuple[ValueRef, ValueRef]:
        return (_value_ref(value), _value_ref(init))

    def reduce_applies(self, c: list[Any]) -> tuple[str, Any, ...]:
        return ("applies", c[0], c[1], _first(c, DictAttr), c[-1])

    def reduce_region(self, c: list[Any]) -> tuple[str, Any, ...]:
        pairs = [
            x for x in c if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], BlockArg)
        ]
        return ("region", c[0], _first(c, DictAttr), _first(c, Signature), pairs, c[-1])

    @v_args(inline=True)
    def reducer_args(self, a: BlockArg, b: BlockArg) -> tuple[BlockArg, BlockArg]:
        return (a, b)

    def manual_op(self, c: list[Any]) -> OpAst:
        op = OpAst("sdy.manual_computation", c[0])
        args: list[BlockArg] = []
        for item in c:
            if isinstance(item, Token) and item.type == "VALUE":
                op.operands.append(_value_ref(item))
            elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                op.attrs[item[0]] = item[1]
            elif isinstance(item, BlockArg):
                args.append(item)
            elif isinstance(item, RegionAst):
                item.args = args
                op.regions = [item]
            elif isinstance(item, Signature):
                op.operand_types = list(item.inputs)
                op.result_types = list(item.results if item.results is not None else ())
        return op

    def manual_kw(self, c: list[Any]) -> tuple[str, Group]:
        return (str(c[0]), Group("[", tuple(_soup_items(c[1:]))))

    # -- types -------------------------------------------------------------------------------
    def signature(self, c: list[Any]) -> Signature:
        kind, inputs, _ = c[0]
        if len(c) > 1:
            return Signature(tuple(inputs), tuple(c[2][1]))
        return Signature(tuple(inputs), None, paren=kind == "paren")

    def type_list(self, c: list[Any]) -> tuple[str, list[MlirType], Any]:
        return ("list", _present(c), None)

    def paren_types(self, c: list[Any]) -> tuple[str, list[MlirType], Any]:
        types = _present(c)
        return ("paren", types, _type_tok(types[0]) if types else None)

    def function_type(self, c: list[Any]) -> FunctionType:
        inputs = [x for x in c[:-2] if x is not None]
        return FunctionType(tuple(inputs), tuple(c[-1][1]))

    def tensor_type(self, c: list[Any]) -> TensorType:
        tok: Token = c[0]
        dims = tuple(-1 if d == "?" else int(d) for d in str(tok)[7:].split("x")[:-1])
        encoding = c[2] if len(c) > 2 else None
        return TensorType(dims, c[1], encoding, tok)

    def tuple_type(self, c: list[Any]) -> TupleType:
        return TupleType(tuple(_present(c)))

    @v_args(inline=True)
    def complex_type(self, element: MlirType) -> ComplexType:
        return ComplexType(element)

    def future_type(self, c: list[Any]) -> FutureType:
        return FutureType(tuple(_present(c)))

    def dialect_type(self, c: list[Any]) -> DialectType:
        return DialectType(str(c[0]), c[1] if len(c) > 1 else None, c[0])

    @v_args(inline=True)
    def builtin_type(self, tok: Token) -> BuiltinType:
        return BuiltinType(str(tok), tok)

    # -- attributes --------------------------------------------------------------------------
    def attr_dict(self, c: list[Any]) -> DictAttr:
        entries = _entries([x for x in c if x is not None])
        return DictAttr(entries)

    def attr_entry(self, c: list[Any]) -> tuple[Token, Any]:
        value = c[1] if len(c) > 1 and c[1] is not None else UnitAttr()
        return (c[0], value)

    def int_attr(self, c: list[Any]) -> IntAttr:
        tok: Token = c[0]
        value = int(str(tok), 16) if tok.type == "HEX" else int(tok)
        return IntAttr(value, c[1] if len(c) > 1 else None, tok)

    def float_attr(self, c: list[Any]) -> FloatAttr:
        return FloatAttr(float(c[0]), str(c[0]), c[1] if len(c) > 1 else None, c[0])

    def string_attr(self, c: list[Any]) -> StringAttr:
        return StringAttr(_string(c[0]), c[0])

    @v_args(inline=True)
    def word_attr(self, tok: Token) -> WordAttr:
        return WordAttr(str(tok), tok)

    @v_args(inline=True)
    def dense_attr(self, tok: Token, type_: MlirType) -> DenseAttr:
        if tok.type == "DENSE_RESOURCE":
            return DenseAttr(str(tok)[len("dense_resource<") : -1].strip(), type_, tok, True)
        return DenseAttr(str(tok)[len("dense<") : -1], type_, tok)

    @v_args(inline=True)
    def array_attr(self, tok: Token) -> DenseArrayAttr:
        return _dense_array(tok)

    def list_attr(self, c: list[Any]) -> ListAttr:
        return ListAttr(tuple(_present(c)))

    @v_args(inline=True)
    def symbol_attr(self, tok: Token) -> SymbolAttr:
        return SymbolAttr(_symbol(tok), tok)

    def dialect_attr(self, c: list[Any]) -> DialectAttr:
        return DialectAttr(str(c[0]), c[1] if len(c) > 1 else None, c[0])

    @v_args(inline=True)
    def type_attr(self, type_: MlirType) -> TypeAttr:
        return TypeAttr(type_)

    # -- soup ----------------------------------------------------------------------------
    def angle(self, c: list[Any]) -> Group:
        return Group("<", tuple(c))

    def soup(self, c: list[Any]) -> Any:
        if len(c) == 1:
            return c[0]
        first = c[0]
        return Group(str(first), tuple(_soup_items(c[1:-1])))

    def location(self, c: list[Any]) -> LocAttr:
        return LocAttr(tuple(c))


def _soup_items(items: list[Any]) -> list[Any]:
    return [x for x in items if x is not None]


def _first(items: list[Any], cls: type) -> Any:
    for x in items:
        if isinstance(x, cls):
            return x
    return None


def _type_tok(t: MlirType) -> Token | None:
    return getattr(t, "tok", None)


def _entries(pairs: list[tuple[Token, Any]]) -> tuple[tuple[str, Any], ...]:
    seen: set[str] = set()
    out = []
    for key_tok, value in pairs:
        key = _string(key_tok) if key_tok.type == "STRING" else str(key_tok)
        if key in seen:
            raise error_at(key_tok, f"duplicate attribute '{key}'")
        seen.add(key)
        out.append((key, value, key_tok))
    return tuple((k, v) for k, v, _ in out)


def _merge_attrs(op: OpAst, entries: tuple[tuple[str, Any], ...]) -> None:
    for key, value in entries:
        if key in op.attrs:
            raise error_at(op.tok, f"attribute '{key}' is given twice")
        op.attrs[key] = value


def _kw_value(value: Any) -> Any:
    """A pretty `key = value` right-hand side as an attribute-like value."""
    if isinstance(value, Token):
        if value.type == "INT":
            return IntAttr(int(value), None, value)
        if value.type == "HEX":
            return IntAttr(int(str(value), 16), None, value)
        if value.type == "DECIMAL":
            return FloatAttr(float(value), str(value), None, value)
        if value.type == "STRING":
            return StringAttr(_string(value), value)
        return WordAttr(str(value), value)
    if isinstance(value, tuple):
        return Brackets((value,))
    return value


_ARRAY_RE = re.compile(r"array<\s*([A-Za-z0-9_]+)\s*(?::(.*))?>", re.S)


def _dense_array(tok: Token) -> DenseArrayAttr:
    m = _ARRAY_RE.fullmatch(str(tok))
    if m is None:
        raise error_at(tok, f"malformed dense array '{tok}'", ("array<i64: 1, 2>",))
    element, body = m.group(1), (m.group(2) or "").strip()
    parts = [p.strip() for p in body.split(",")] if body else []
    values: list[Any] = []
    for p in parts:
        if element == "i1":
            if p not in ("true", "false", "1", "0"):
                raise error_at(tok, f"'{p}' is not a boolean in {tok}")
            values.append(p in ("true", "1"))
        elif element.startswith(("i", "si", "ui")):
            if not re.fullmatch(r"-?\d+", p):
                raise error_at(tok, f"'{p}' is not an integer in {tok}")
            values.append(int(p))
        else:
            try:
                values.append(float(p))
            except ValueError:
                raise error_at(tok, f"'{p}' is not a number in {tok}") from None
    return DenseArrayAttr(element, tuple(values), tok)


def _add_module_item(module: ModuleAst, op: OpAst) -> None:
    """Module-level generic ops: `"func.func"()` becomes a function, others are kept."""
    from hlotool.frontend.stablehlo_pretty import func_from_generic, module_from_generic

    if op.name == "func.func":
        module.funcs.append(func_from_generic(op))
    elif op.name == "builtin.module":
        inner = module_from_generic(op)
        module.funcs.extend(inner.funcs)
        module.others.extend(inner.others)
        if module.name is None:
            module.name, module.tok, module.attrs = inner.name, inner.tok, inner.attrs
    else:
        module.others.append(op)


# -- loading --------------------------------------------------------------------------------


@functools.cache
def stablehlo_parser() -> Lark:
    """The LALR parser with the AST builder inlined (built once, cached on disk)."""
    return cached_lark(
        "stablehlo-grammar",
        (GRAMMAR_DIR / "stablehlo.lark").read_text(),
        parser="lalr",
        lexer="contextual",
        transformer=_Builder(),
        maybe_placeholders=True,
        import_paths=[str(GRAMMAR_DIR)],
    )


def parse_stablehlo_ast(text: str) -> FileAst:
    """Parse StableHLO text to its syntax tree; raise HloError on a syntax error."""
    if not text.strip():
        raise HloError("empty input: expected a StableHLO module", 1, 1, ("module", "func.func"))
    try:
        return stablehlo_parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text) from None
    except RecursionError:
        raise HloError("input nests too deeply", 1, 1) from None


_TERMINAL_NAMES = {
    "NAME": "a name", "VALUE": "a %value", "RESULT_GROUP": "%name:N", "SYMBOL": "@symbol",
    "HASH_ID": "#attribute", "BANG_ID": "!type", "BLOCK_LABEL": "^label", "HEX": "0x...",
    "TENSOR": "tensor<...>", "DENSE": "dense<...>", "DENSE_RESOURCE": "dense_resource<...>",
    "ARRAY": "array<...>", "INT": "an integer", "DECIMAL": "a number", "STRING": "a string",
    "PROPS_OPEN": "'<{'", "PROPS_CLOSE": "'}>'", "ARROW": "'->'", "VISIBILITY": "public/private",
    "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "COMMA": "','", "EQUAL": "'='", "COLON": "':'", "LESSTHAN": "'<'", "MORETHAN": "'>'",
    "QMARK": "'?'", "STAR": "'*'", "$END": "end of input",
    "DIALECT_RESOURCES": "{-# ... #-}",
}  # fmt: skip


def _syntax_error(exc: UnexpectedInput, text: str) -> HloError:
    return syntax_error(exc, text, stablehlo_parser(), _TERMINAL_NAMES,
                        "unexpected end of input (unclosed '{' or missing ':' types?)")

