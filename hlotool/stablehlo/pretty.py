"""Pretty (custom-printed) op forms -> the generic form: operands, attributes under their
generic names, operand and result types.

A pretty op arrives as its name, the loose run of items between the name and the `:`
(values, words, `key = value` pairs, symbols, dicts, ...; see the grammar) and its
signature. `_KEYWORDS` maps each op's keywords to generic attribute names; the few ops
whose items need more than that have a handler in `_HANDLERS`. Attribute values keep
their pretty spelling (`[0, 1]`, `GT`); the accessors in `attrs` accept every
spelling, so the pretty and generic forms of an op lower to the same IR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lark import Token

from hlotool.diagnostics import error_at
from hlotool.stablehlo.ast import (
    ArgAst,
    BlockArg,
    Brackets,
    Comma,
    DenseAttr,
    DictAttr,
    FuncAst,
    FunctionType,
    Group,
    IntAttr,
    KwArg,
    ListAttr,
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
    TupleType,
    TypeAttr,
    ValueRef,
    WordAttr,
)

#: Ops printed without their dialect prefix inside a function body.
_SHORT_NAMES = {"return": "func.return", "call": "func.call"}

#: Terminators: their `: T1, T2` lists operand types and they have no results.
RETURN_LIKE = frozenset({"func.return", "stablehlo.return", "sdy.return"})
#: `: T1, T2` lists the operand types, and the results have the same types.
_PAIRWISE = frozenset({"stablehlo.optimization_barrier"})

#: Pretty keyword -> generic attribute name, per op.
_KEYWORDS: dict[str, dict[str, str]] = {
    "stablehlo.broadcast_in_dim": {"dims": "broadcast_dimensions"},
    "stablehlo.dynamic_broadcast_in_dim": {"dims": "broadcast_dimensions"},
    "stablehlo.broadcast": {"sizes": "broadcast_sizes"},
    "stablehlo.transpose": {"dims": "permutation"},
    "stablehlo.reverse": {"dims": "dimensions"},
    "stablehlo.concatenate": {"dim": "dimension"},
    "stablehlo.get_dimension_size": {"dim": "dimension"},
    "stablehlo.set_dimension_size": {"dim": "dimension"},
    "stablehlo.iota": {"dim": "iota_dimension"},
    "stablehlo.dynamic_iota": {"dim": "iota_dimension"},
    "stablehlo.dynamic_slice": {"sizes": "slice_sizes"},
    "stablehlo.pad": {"low": "edge_padding_low", "high": "edge_padding_high",
                      "interior": "interior_padding"},
    "stablehlo.fft": {"type": "fft_type", "length": "fft_length"},
    "stablehlo.rng": {"distribution": "rng_distribution"},
    "stablehlo.rng_bit_generator": {"algorithm": "rng_algorithm"},
    "stablehlo.cholesky": {"lower": "lower"},
    "stablehlo.dot": {"precision": "precision_config"},
    "stablehlo.einsum": {"config": "einsum_config"},
    "stablehlo.unary_einsum": {"config": "einsum_config"},
    "stablehlo.reduce_precision": {"format": "format"},
    "chlo.top_k": {"k": "k", "is_stable": "is_stable"},
    "stablehlo.dot_general": {"precision": "precision_config", "algorithm": "algorithm",
                              "batching_dims": "batching_dims",
                              "contracting_dims": "contracting_dims"},
    "stablehlo.convolution": {"dim_numbers": "dimension_numbers", "window": "window"},
}  # fmt: skip


@dataclass
class _Items:
    """The classified items of one pretty op."""

    operands: list[ValueRef] = field(default_factory=list)
    words: list[tuple[WordAttr, int]] = field(default_factory=list)
    kwargs: list[KwArg] = field(default_factory=list)
    dicts: list[DictAttr] = field(default_factory=list)
    others: list[Any] = field(default_factory=list)
    slices: list[tuple[ValueRef, SliceSpec]] = field(default_factory=list)


def _classify(items: list[Any], out: _Items) -> _Items:
    for item in items:
        if isinstance(item, ValueRef):
            out.operands.append(item)
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], SliceSpec):
            out.operands.append(item[0])
            out.slices.append(item)
        elif isinstance(item, WordAttr):
            out.words.append((item, len(out.operands)))
        elif isinstance(item, KwArg):
            out.kwargs.append(item)
        elif isinstance(item, DictAttr):
            out.dicts.append(item)
        elif isinstance(item, Paren):
            _classify(list(item.items), out)
        elif not isinstance(item, Comma):
            out.others.append(item)
    return out


def normalize_pretty(name_tok: Token, items: list[Any], sig: Signature | None) -> OpAst:
    """The generic-form OpAst of a pretty op."""
    name = _SHORT_NAMES.get(str(name_tok), str(name_tok))
    op = OpAst(name, name_tok)
    parsed = _classify(items, _Items())
    op.operands = parsed.operands
    for d in parsed.dicts:
        for key, value in d.entries:
            if key in op.attrs:
                raise error_at(name_tok, f"attribute '{key}' is given twice")
            op.attrs[key] = value
    _signature_types(op, sig, len(parsed.operands))
    handler = _HANDLERS.get(name, _plain if name.split(".")[0] in _DIALECTS else _foreign)
    handler(op, parsed)
    for kw in parsed.kwargs:
        _keyword(op, kw)
    return op


def _keyword(op: OpAst, kw: KwArg) -> None:
    table = _KEYWORDS.get(op.name, {})
    key = table.get(kw.key)
    if key is None:
        raise error_at(kw.tok, f"unknown keyword '{kw.key}' for {op.name}", tuple(table))
    if key in op.attrs:
        raise error_at(kw.tok, f"attribute '{key}' is given twice")
    op.attrs[key] = kw.value
    op.attr_toks[key] = kw.tok


def _signature_types(op: OpAst, sig: Signature | None, n_operands: int) -> None:
    if sig is None:
        return
    if sig.paren:
        raise error_at(
            op.tok,
            f"{op.name}: a parenthesised type list must be followed by '->' and the result types",
            ("->",),
        )
    inputs = list(sig.inputs)
    if sig.results is not None:
        op.operand_types, op.result_types = inputs, list(sig.results)
    elif op.name in RETURN_LIKE:
        op.operand_types = inputs
    elif op.name in _PAIRWISE:
        op.operand_types, op.result_types = inputs, list(inputs)
    elif op.name == "stablehlo.select" and len(inputs) == 2:
        op.operand_types, op.result_types = [inputs[0], inputs[1], inputs[1]], [inputs[1]]
    elif op.name == "stablehlo.tuple" and len(inputs) == 1 and isinstance(inputs[0], TupleType):
        op.operand_types, op.result_types = list(inputs[0].types), inputs
    elif len(inputs) == 1:
        op.result_types = inputs
        if op.name != "stablehlo.complex":
            op.operand_types = inputs * n_operands
    elif op.name.split(".")[0] not in _DIALECTS:
        op.operand_types = inputs  # e.g. `check.expect_close %a, %b, ... : T, T`
    else:
        raise error_at(
            op.tok,
            f"{op.name}: expected one type, or '(operand types) -> result types', after ':'",
            ("->",),
        )


# -- per-op handlers ------------------------------------------------------------------------


def _reject_rest(op: OpAst, items: _Items) -> None:
    for word, _ in items.words:
        later = (getattr(word.tok, "line", 0) or 0) > (getattr(op.tok, "line", 0) or 0)
        hint = f" (is the ': type' of {op.name} missing?)" if later else ""
        raise error_at(word.tok, f"unexpected '{word.word}' in {op.name}{hint}")
    for other in items.others:
        raise error_at(
            getattr(other, "tok", None) or op.tok, f"unexpected {_what(other)} in {op.name}"
        )
    for value, _ in items.slices:
        raise error_at(value.tok, f"unexpected '[...]' after {value.name} in {op.name}")


def _what(item: Any) -> str:
    if isinstance(item, Token):
        return f"'{str(item)[:30]}'"
    return {StringAttr: "string", SymbolAttr: "symbol", Group: "'<...>'"}.get(type(item), "item")


def _plain(op: OpAst, items: _Items) -> None:
    _reject_rest(op, items)


#: Dialects whose pretty forms are checked here; ops of others are kept as written.
_DIALECTS = frozenset({"stablehlo", "chlo", "func", "sdy", "mhlo", "return", "call"})


def _foreign(op: OpAst, items: _Items) -> None:
    """Ops of other dialects (e.g. the interpreter tests' `check.expect_eq_const %x,
    dense<...> : T`): a dense literal becomes `value`, typed by the type after ':' (which
    then types the literal, not a result); `key = value` items become attributes."""
    dense = [x for x in items.others if isinstance(x, Token) and x.type == "DENSE"]
    types = op.result_types or op.operand_types or []
    if dense and types:
        op.attrs["value"] = DenseAttr(str(dense[0])[len("dense<") : -1], types[-1], dense[0])
        op.result_types, op.operand_types = [], None
    for kw in items.kwargs:
        op.attrs[kw.key] = kw.value
    items.kwargs = []


def _compare(op: OpAst, items: _Items) -> None:
    words = items.words
    items.words = []
    for word, position in words:
        key = "comparison_direction" if position == 0 else "compare_type"
        if key in op.attrs:
            raise error_at(word.tok, f"unexpected '{word.word}' in {op.name}")
        op.attrs[key] = word
        op.attr_toks[key] = word.tok  # type: ignore[assignment]
    if "comparison_direction" not in op.attrs:
        raise error_at(op.tok, "stablehlo.compare needs a direction (EQ, NE, GE, GT, LE or LT)")
    _reject_rest(op, items)


def _slice(op: OpAst, items: _Items) -> None:
    slices = items.slices
    items.slices = []
    if len(slices) != 1:
        raise error_at(op.tok, "stablehlo.slice expects `%x [start:limit:stride, ...]`")
    spec = slices[0][1]
    for start, limit, _ in spec.entries:
        if limit is None:
            raise error_at(spec.tok, f"slice entry {start} needs a limit (start:limit)")
    op.attrs["start_indices"] = _i64s([e[0] for e in spec.entries], spec.tok)
    op.attrs["limit_indices"] = _i64s([e[1] for e in spec.entries], spec.tok)
    op.attrs["strides"] = _i64s([1 if e[2] is None else e[2] for e in spec.entries], spec.tok)
    _reject_rest(op, items)


def _get_tuple_element(op: OpAst, items: _Items) -> None:
    slices = items.slices
    items.slices = []
    if len(slices) != 1 or len(slices[0][1].entries) != 1 or slices[0][1].entries[0][1] is not None:
        raise error_at(op.tok, "stablehlo.get_tuple_element expects `%t[index]`")
    op.attrs["index"] = IntAttr(slices[0][1].entries[0][0], None, slices[0][1].tok)
    _reject_rest(op, items)


def _callee(key: str, as_string: bool) -> Callable[[OpAst, _Items], None]:
    def handler(op: OpAst, items: _Items) -> None:
        symbols = [x for x in items.others if isinstance(x, SymbolAttr)]
        if len(symbols) != 1:
            raise error_at(op.tok, f"{op.name} expects one @symbol")
        items.others = [x for x in items.others if not isinstance(x, SymbolAttr)]
        sym = symbols[0]
        op.attrs[key] = StringAttr(sym.name, sym.tok) if as_string else sym
        op.attr_toks[key] = sym.tok  # type: ignore[assignment]
        _reject_rest(op, items)

    return handler


def _composite(op: OpAst, items: _Items) -> None:
    names = [x for x in items.others if isinstance(x, StringAttr)]
    if len(names) != 1:
        raise error_at(op.tok, 'stablehlo.composite expects its name as a string ("my.op")')
    items.others = [x for x in items.others if not isinstance(x, StringAttr)]
    op.attrs["name"] = names[0]
    _reject_rest(op, items)


def _constant(op: OpAst, items: _Items) -> None:
    dense = [
        x for x in items.others if isinstance(x, Token) and x.type in ("DENSE", "DENSE_RESOURCE")
    ]
    if len(dense) != 1 or len(op.result_types) != 1:
        raise error_at(op.tok, f"{op.name} expects `dense<...> : type`", ("dense<...>",))
    items.others = [x for x in items.others if x is not dense[0]]
    tok = dense[0]
    if tok.type == "DENSE_RESOURCE":
        op.attrs["value"] = DenseAttr(
            str(tok)[len("dense_resource<") : -1].strip(), op.result_types[0], tok, True
        )
    else:
        op.attrs["value"] = DenseAttr(str(tok)[len("dense<") : -1], op.result_types[0], tok)
    op.attr_toks["value"] = tok
    op.operand_types = []
    _reject_rest(op, items)


def _sharding_constraint(op: OpAst, items: _Items) -> None:
    groups = [x for x in items.others if isinstance(x, Group)]
    items.others = [x for x in items.others if not isinstance(x, Group)]
    if groups:
        op.attrs["sharding"] = groups[0]
    _reject_rest(op, items)


_HANDLERS: dict[str, Callable[[OpAst, _Items], None]] = {
    "stablehlo.compare": _compare,
    "stablehlo.slice": _slice,
    "stablehlo.get_tuple_element": _get_tuple_element,
    "stablehlo.custom_call": _callee("call_target_name", as_string=True),
    "func.call": _callee("callee", as_string=False),
    "stablehlo.composite": _composite,
    "stablehlo.constant": _constant,
    "chlo.constant": _constant,
    "sdy.sharding_constraint": _sharding_constraint,
}


def _i64s(values: list[Any], tok: Token | None) -> Brackets:
    return Brackets((tuple(values),), None, tok)


# -- stablehlo.reduce's two pretty forms ----------------------------------------------------


def reduce_from_pretty(
    kw: Token, inputs: list[tuple[ValueRef, ValueRef]], body: tuple[Any, ...]
) -> OpAst:
    """`stablehlo.reduce(%x init: %c) applies OP across dimensions = [..] : sig` or the form
    with a `reducer(%a0, %b0) (%a1, %b1) {...}` region (block arguments reordered to
    a0, a1, ..., b0, b1, ...)."""
    op = OpAst("stablehlo.reduce", kw)
    op.operands = [x for x, _ in inputs] + [init for _, init in inputs]
    kind = body[0]
    dims, attrs, sig = (
        (body[2], body[3], body[4]) if kind == "applies" else (body[1], body[2], body[3])
    )
    op.attrs["dimensions"] = Brackets((dims,), None, kw)
    if attrs is not None:
        op.attrs.update(attrs.as_dict())
    if sig.results is None or sig.paren:
        raise error_at(
            kw, "stablehlo.reduce needs a functional type `(inputs, inits) -> results`", ("->",)
        )
    op.operand_types, op.result_types = list(sig.inputs), list(sig.results)
    n = len(inputs)
    if kind == "applies":
        op.regions = [
            _applies_region(
                body[1], op.operand_types[n:] if len(op.operand_types) == 2 * n else [], n
            )
        ]
    else:
        pairs: list[tuple[BlockArg, BlockArg]] = body[4]
        if len(pairs) != n:
            raise error_at(kw, f"reducer has {len(pairs)} argument pairs for {n} inputs")
        region: RegionAst = body[5]
        region.args = [a for a, _ in pairs] + [b for _, b in pairs]
        op.regions = [region]
    return op


def _applies_region(op_tok: Token, init_types: list[MlirType], n: int) -> RegionAst:
    if n != 1 or len(init_types) != 1:
        raise error_at(op_tok, "`applies` is only valid for a reduce with one input")
    t = init_types[0]
    a, b = BlockArg("%__lhs", t, op_tok), BlockArg("%__rhs", t, op_tok)
    body = OpAst(
        _SHORT_NAMES.get(str(op_tok), str(op_tok)),
        op_tok,
        [ValueRef(a.name, None, op_tok), ValueRef(b.name, None, op_tok)],
        operand_types=[t, t],
        result_types=[t],
        results=[ResultDef("%__acc", 1, op_tok)],
    )
    ret = OpAst("stablehlo.return", op_tok, [ValueRef("%__acc", None, op_tok)], operand_types=[t])
    return RegionAst([a, b], [body, ret], op_tok)


# -- generic-form functions and modules -----------------------------------------------------


def func_from_generic(op: OpAst) -> FuncAst:
    """`"func.func"() <{sym_name = "f", function_type = (...) -> ...}> ({...}) : () -> ()`."""
    name = op.attrs.get("sym_name")
    ftype = op.attrs.get("function_type")
    if (
        not isinstance(name, StringAttr)
        or not isinstance(ftype, TypeAttr)
        or not isinstance(ftype.type, FunctionType)
    ):
        raise error_at(op.tok, "generic func.func needs sym_name and function_type")
    visibility = op.attrs.get("sym_visibility")
    arg_attrs = _dict_list(op.attrs.get("arg_attrs"), len(ftype.type.inputs))
    res_attrs = _dict_list(op.attrs.get("res_attrs"), len(ftype.type.results))
    body = op.regions[0] if op.regions else None
    args = []
    for i, t in enumerate(ftype.type.inputs):
        block = body.args[i] if body is not None and i < len(body.args) else None
        args.append(
            ArgAst(
                block.name if block else None,
                t,
                arg_attrs[i],
                block.loc if block else None,
                block.tok if block else op.tok,
            )
        )
    if body is not None:
        body.args = []
    return FuncAst(
        name.value,
        name.tok or op.tok,
        visibility.value if isinstance(visibility, StringAttr) else "public",
        args,
        list(zip(ftype.type.results, res_attrs, strict=True)),
        None,
        body,
        op.loc,
    )


def _dict_list(value: Any, n: int) -> list[DictAttr | None]:
    if isinstance(value, ListAttr):
        out = [x if isinstance(x, DictAttr) else None for x in value.items]
        return (out + [None] * n)[:n]
    return [None] * n


def module_from_generic(op: OpAst) -> ModuleAst:
    """`"builtin.module"() ({...}) {attrs} : () -> ()`."""
    name = op.attrs.get("sym_name")
    attrs = DictAttr(tuple((k, v) for k, v in op.attrs.items() if k != "sym_name"))
    module = ModuleAst(name.value if isinstance(name, StringAttr) else None, op.tok, attrs)
    for inner in op.regions[0].ops if op.regions else []:
        if inner.name == "func.func":
            module.funcs.append(func_from_generic(inner))
        else:
            module.others.append(inner)
    return module
