"""Syntax tree -> IR: resolve names, type attributes by the opcode table, build literals,
infer omitted shapes, and reject what XLA's parser rejects, each error at its token."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lark import Token

from hlotool.diagnostics import HloError, error_at
from hlotool.hlo.ast import (
    AttrAst,
    BraceAst,
    ComputationAst,
    InlineBodyAst,
    InstrAst,
    IntList,
    KvsAst,
    ModuleAst,
    OperandRef,
    SliceAst,
)
from hlotool.hlo.lexer import LINE_ATTR, LinesToken, operand_names
from hlotool.hlo.parser import _SHAPES as _SHAPE_CACHE
from hlotool.syntax.strings import c_unescape
from hlotool.ir.attributes import (
    BufferDonor,
    ConvDimensionNumbers,
    DomainAttr,
    IoAlias,
    LiteralAttr,
    Metadata,
    ModuleConfig,
    OperandAlias,
    PadDimension,
    ReplicaGroups,
    ResultAccuracy,
    Sharding,
    SliceRange,
    StackFrameTables,
    Window,
    WindowDimension,
)
from hlotool.ir.computation import Computation
from hlotool.ir.compare_order import type_from_order
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import LiteralError, literal_from_ast
from hlotool.ir.module import EntryLayout, Module
from hlotool.ir.opcodes import BY_NAME, GENERIC_ATTRIBUTES, OPS, AttrKind, AttrSpec, Opcode
from hlotool.ir.shape_rules import ShapeContext, ShapeError
from hlotool.ir.types import PRIMITIVE_TYPE_NAMES, PrimitiveType, Shape


_PLACEHOLDER = Shape.token()
#: Opcodes the fast path leaves to the syntax tree.
_SLOW_OPCODES = frozenset({Opcode.CONDITIONAL})
_MISSING = object()
#: The opcodes _check_operand_count_rules looks at.
_COUNT_RULE_OPCODES = frozenset({Opcode.REDUCE, Opcode.REDUCE_WINDOW, Opcode.SCATTER,
                                 Opcode.CONDITIONAL, Opcode.BROADCAST})
#: What slow lines learned, by text: shapes, scalar literals (immutable), and typed
#: attribute values by (attribute spec, value text) (immutable values only).
_LITERALS: dict[tuple[str, str], Any] = {}
_ATTR_VALUES: dict[tuple[Any, str], Any] = {}
_UNCACHED_KINDS = frozenset({AttrKind.COMPUTATION, AttrKind.COMPUTATIONS})
_LINE_ATTR_FIND = LINE_ATTR.finditer
_REQUIRED = {op: any(a.required for a in spec.attrs) or op is Opcode.CONDITIONAL
             for op, spec in OPS.items()}


def lower_module(ast: ModuleAst) -> Module:
    """Build the IR module for a parsed HLO text."""
    return _Lowering().lower(ast)


class _Lowering:
    def __init__(self) -> None:
        self.computations: dict[str, Computation] = {}
        self.later_names: set[str] = set()
        self.module = Module("")
        self.inline_count = 0

    # -- module ---------------------------------------------------------------------------
    def lower(self, ast: ModuleAst) -> Module:
        m = self.module
        entries = [c for c in ast.computations if c.is_entry]
        if len(entries) > 1:
            raise error_at(entries[1].name, "expects only one ENTRY computation")
        entry_ast = entries[0] if entries else ast.computations[-1]
        m.name = str(ast.name) if ast.name is not None else f"module_{entry_ast.name}"
        self.later_names = {str(c.name) for c in ast.computations}
        for comp_ast in ast.computations:
            comp = self.computation(comp_ast)
            comp.is_entry = comp_ast is entry_ast
        self.header(ast.header)
        if ast.stack_frames is not None:
            m.stack_frames = _stack_frames(ast.stack_frames)
        return m

    def header(self, attrs: list[AttrAst]) -> None:
        cfg = self.module.config
        seen: set[str] = set()
        for a in attrs:
            key = a.name
            if key in seen:
                raise error_at(a.key, f"attribute {key} already exists")
            seen.add(key)
            handler = _HEADER.get(key)
            if handler is None:
                raise error_at(a.key, f"unknown module attribute {key}", tuple(sorted(_HEADER)))
            handler(self, cfg, a)

    # -- computations ---------------------------------------------------------------------
    def computation(self, ast: ComputationAst) -> Computation:
        name = str(ast.name)
        if name in self.computations:
            raise error_at(ast.name, f"computation {name} already exists")
        comp = self.body(name, ast.instructions, ast.name)
        if ast.result_shape is not None and comp.root is not None:
            if not ast.result_shape.compatible(comp.root.shape):
                raise error_at(
                    ast.name,
                    f"computation {name}: signature result {ast.result_shape} does not match "
                    f"its root's shape {comp.root.shape}",
                )
        comp.execution_thread = ast.execution_thread
        if ast.thread_key is not None and ast.thread_key != "execution_thread=":
            raise error_at(ast.thread_key, f"unknown computation attribute {ast.thread_key[:-1]}",
                           ("execution_thread",))
        self.module.add_computation(comp)
        self.computations[name] = comp
        return comp

    def body(self, name: str, items: list[Any], where: Token) -> Computation:
        comp = Computation(name, location=(where.line or 0, where.column or 0))
        scope: dict[str, Instruction] = {}
        params: dict[int, Instruction] = {}
        root: Instruction | None = None
        root_tok: Any = None
        for item in items:
            if type(item) is LinesToken:
                fast = self.fast_line
                for line in item.lines:
                    ins = fast(line, comp, scope, params)
                    if line[0].group(1) is not None:
                        if root is not None:
                            from hlotool.hlo.parser import materialize_line

                            raise error_at(materialize_line(line).name, "one computation should "
                                           f"have only one ROOT ({root_tok} is already the root "
                                           f"of {name})")
                        root, root_tok = ins, ins.name
                continue
            ins_ast: InstrAst = item
            ins = self.instruction(ins_ast, comp, scope, params)
            if ins_ast.is_root:
                if root is not None:
                    raise error_at(ins_ast.name, f"one computation should have only one ROOT "
                                   f"({root_tok} is already the root of {name})")
                root, root_tok = ins, ins_ast.name
        if not comp.instructions:
            raise error_at(where, f"computation {name} has no instructions")
        comp.root = root if root is not None else comp.instructions[-1]
        for n in range(len(params)):
            if n not in params:
                last = max(params)
                raise error_at(
                    _param_token(_expand(items), last) or where,
                    f"computation {name}: parameter numbers must be 0..{len(params) - 1} "
                    f"without gaps, but there is parameter({last}) and no parameter({n})",
                )
        return comp

    def fast_line(self, line: tuple[Any, int, int], comp: Computation,
                  scope: dict[str, Instruction], params: dict[int, Instruction]) -> Instruction:
        """One line of a SIMPLE_LINES token, lowered straight from its text. Whatever is
        unusual (an error included) goes through the syntax tree instead, which then
        reports it at its token."""
        m, lineno, line_start = line
        _root, pname, name, shape_text, op, body, attrs_text = m.group(1, 2, 3, 4, 5, 6, 7)
        opcode = BY_NAME.get(op)
        if opcode is None or opcode in _SLOW_OPCODES:
            return self.slow_line(line, comp, scope, params)
        if pname is not None:
            name = pname
        if name in scope or name in PRIMITIVE_TYPE_NAMES or name.startswith("__"):
            return self.slow_line(line, comp, scope, params)
        shape = _SHAPE_CACHE.get(shape_text)
        if shape is None:
            return self.slow_line(line, comp, scope, params)
        spec = OPS[opcode]
        pnum = -1
        literal = None
        if opcode is Opcode.PARAMETER:
            pnum = int(body)
            if pnum in params:
                return self.slow_line(line, comp, scope, params)
            operands: list[Instruction] = []
        elif opcode is Opcode.CONSTANT:
            literal = _LITERALS.get((shape_text, body))
            if literal is None:
                return self.slow_line(line, comp, scope, params)
            operands = []
        else:
            if body:
                try:
                    operands = [scope[n.strip().lstrip("%")] for n in body.split(",")]
                except KeyError:
                    return self.slow_line(line, comp, scope, params)
            else:
                operands = []
            n_ops = len(operands)
            if (n_ops != spec.arity) if spec.arity is not None else (n_ops < spec.min_operands):
                return self.slow_line(line, comp, scope, params)
        ins = Instruction(name, opcode, shape)
        if attrs_text:
            attrs = ins.attrs
            blobs: set[str] = set()
            for a in _LINE_ATTR_FIND(attrs_text):
                key, value, bkey, blob = a.groups()
                if key is None:
                    if bkey in blobs:
                        return self.slow_line(line, comp, scope, params)
                    blobs.add(bkey)
                    if bkey == "metadata":
                        md = _MD_CACHE.get(blob)
                        if md is None:
                            return self.slow_line(line, comp, scope, params)
                        ins.metadata = md
                    else:
                        ins.backend_config = blob
                    continue
                if key in attrs:
                    return self.slow_line(line, comp, scope, params)
                v = _ATTR_VALUES.get((opcode, key, value), _MISSING)
                if v is _MISSING:
                    aspec = spec.attr(key)
                    if aspec is None or aspec.kind is not AttrKind.COMPUTATION or (
                        key in GENERIC_ATTRIBUTES
                    ):
                        return self.slow_line(line, comp, scope, params)
                    if value[0] == "%":
                        value = value[1:]
                    elif not (value[0].isalpha() or value[0] == "_"):
                        return self.slow_line(line, comp, scope, params)
                    v = self.computations.get(value)
                    if v is None:
                        return self.slow_line(line, comp, scope, params)
                attrs[key] = v
        if _REQUIRED[opcode]:
            for aspec in spec.attrs:
                if aspec.required and aspec.key not in ins.attrs and opcode is not Opcode.BROADCAST:
                    return self.slow_line(line, comp, scope, params)
        if opcode in _COUNT_RULE_OPCODES:
            try:
                _check_operand_count_rules(ins, operands, None)  # type: ignore[arg-type]
            except Exception:
                return self.slow_line(line, comp, scope, params)
        if operands:
            ins._operands = operands
            for o in operands:
                o.users.append(ins)
        if pnum >= 0:
            ins.parameter_number = pnum
            params[pnum] = ins
        elif literal is not None:
            ins.literal = literal
        scope[name] = ins
        ins.location = (lineno, m.start(2 if pname is not None else 3) - line_start + 1)
        if opcode is Opcode.FUSION:
            ins.attrs["calls"].fusion_instruction = ins
        ins.parent = comp
        comp.instructions.append(ins)
        return ins

    def slow_line(self, line: tuple[Any, int, int], comp: Computation,
                  scope: dict[str, Instruction], params: dict[int, Instruction]) -> Instruction:
        """fast_line's fallback: lower the line's full syntax tree, and remember what it
        learned (shape, literal, attribute values) for the next fast line."""
        from hlotool.hlo.parser import materialize_line

        ast = materialize_line(line)
        ins = self.instruction(ast, comp, scope, params)
        m = line[0]
        if ins.opcode is Opcode.CONSTANT and ins.literal is not None and len(_LITERALS) < 4096:
            _LITERALS[(m.group(4), m.group(6))] = ins.literal
        if m.group(7) and len(_ATTR_VALUES) < 8192 and BY_NAME.get(m.group(5)) is ins.opcode:
            spec = OPS[ins.opcode]
            for a in LINE_ATTR.finditer(m.group(7)):
                key, value = a.group(1), a.group(2)
                if key is None or key in GENERIC_ATTRIBUTES or key not in ins.attrs:
                    continue
                aspec = spec.attr(key)
                if aspec is not None and aspec.kind not in _UNCACHED_KINDS:
                    _ATTR_VALUES[(ins.opcode, key, value)] = ins.attrs[key]
        return ins

    # -- instructions ---------------------------------------------------------------------
    def instruction(
        self,
        ast: InstrAst,
        comp: Computation,
        scope: dict[str, Instruction],
        params: dict[int, Instruction],
    ) -> Instruction:
        opcode_tok = ast.opcode
        opcode = BY_NAME.get(str(opcode_tok))
        if opcode is None:
            sugar = _async_sugar(str(opcode_tok))
            if sugar is None:
                raise error_at(opcode_tok, f"unknown opcode '{opcode_tok}'",
                               _opcode_suggestions(opcode_tok))
            return self.async_sugar(ast, comp, scope, params, *sugar)
        spec = OPS[opcode]
        name_tok = ast.name
        if ast.operand_list is not None:
            operands = self.plain_operands(ast, scope)
        else:
            operands = [self.operand(op, comp, scope, params) for op in ast.operands]
        if spec.arity is not None and len(operands) != spec.arity and opcode not in (
            Opcode.PARAMETER, Opcode.CONSTANT
        ):
            raise error_at(opcode_tok, f"{opcode.value} expects {spec.arity} operand"
                           f"{'s' if spec.arity != 1 else ''}, but has {len(operands)}")
        if spec.arity is None and len(operands) < spec.min_operands:
            raise error_at(opcode_tok, f"{opcode.value} expects at least {spec.min_operands} "
                           f"operand{'s' if spec.min_operands != 1 else ''}, but has {len(operands)}")
        ins = Instruction(name="", opcode=opcode, shape=_PLACEHOLDER)
        self.attributes(ins, ast, scope)
        if opcode is Opcode.COMPARE and "order" in ins.attrs and operands:
            ctype = type_from_order(ins.attrs.pop("order"), operands[0].shape.element_type)
            if ctype is not None:
                ins.attrs.setdefault("type", ctype)
            self.module.config.compare_spelling = "order"
        _check_operand_count_rules(ins, operands, opcode_tok)
        if opcode is Opcode.PARAMETER:
            n = int(ast.payload)
            if n in params:
                raise error_at(ast.payload, f"Duplicate parameter number {n}")
            if n < 0:
                raise error_at(ast.payload, "parameter number must be >= 0")
            ins.parameter_number = n
            params[n] = ins
        shape = ast.shape
        if shape is None:
            if not spec.shape_optional:
                raise error_at(opcode_tok, f"{opcode.value} needs its result shape written "
                               f"before the opcode")
            shape = self.infer(ins, operands, opcode_tok)
        ins.shape = shape
        if opcode is Opcode.CONSTANT:
            try:
                ins.literal = literal_from_ast(shape, ast.payload)
            except LiteralError as exc:
                raise error_at(exc.token or opcode_tok, str(exc.args[0])) from None
        ins.set_operands(operands)
        ins.name = self.define(name_tok, ins, scope, opcode)
        where = name_tok if name_tok is not None else opcode_tok
        ins.location = (where.line or 0, where.column or 0)
        if opcode is Opcode.FUSION:
            ins.attrs["calls"].fusion_instruction = ins
        comp.add_instruction(ins)
        return ins

    def async_sugar(self, ast: InstrAst, comp: Computation, scope: dict[str, Instruction],
                    params: dict[int, Instruction], kind: Opcode, wrapped: Opcode) -> Instruction:
        """`X-start/-update/-done`: an async op wrapping one X instruction (XLA's sugar)."""
        tok = ast.opcode
        operands = (self.plain_operands(ast, scope) if ast.operand_list is not None else
                    [self.operand(op, comp, scope, params) for op in ast.operands])
        ins = Instruction(name="", opcode=kind, shape=_PLACEHOLDER, async_wrapped=wrapped.value)
        own = [a for a in ast.attrs if a.name in GENERIC_ATTRIBUTES
               or (kind is Opcode.ASYNC_START and a.name == "async_execution_thread")]
        theirs = [a for a in ast.attrs if a not in own]
        if kind is Opcode.ASYNC_START:
            if ast.shape is None or not ast.shape.is_tuple or len(ast.shape.tuple_shapes) < 2:
                raise error_at(tok, f"{tok} needs its shape written: ((operands...), result, "
                               f"context...)")
            ins.attrs["calls"] = self.wrapped_computation(
                ast, wrapped, [o.shape for o in operands], ast.shape.tuple_shapes[1], theirs)
        else:
            if theirs:
                raise error_at(theirs[0].key, f"{tok} takes no attributes of {wrapped.value}; "
                               f"they belong on {wrapped.value}-start")
            if len(operands) != 1 or operands[0].async_wrapped != wrapped.value:
                raise error_at(tok, f"{tok} takes one operand, a {wrapped.value}-start or "
                               f"{wrapped.value}-update")
            ins.attrs["calls"] = operands[0].attrs["calls"]
        self.attributes(ins, InstrAst(ast.name, None, tok, [], attrs=own), scope)
        ins.shape = ast.shape if ast.shape is not None else self.infer(ins, operands, tok)
        ins.set_operands(operands)
        ins.name = self.define(ast.name, ins, scope, kind)
        where = ast.name if ast.name is not None else tok
        ins.location = (where.line or 0, where.column or 0)
        comp.add_instruction(ins)
        return ins

    def wrapped_computation(self, ast: InstrAst, wrapped: Opcode, operand_shapes: list[Shape],
                            result: Shape, attrs: list[AttrAst]) -> Computation:
        """The one-instruction computation an async sugar op calls (never printed)."""
        base = f"{ast.name or wrapped.value}.wrapped"
        name, n = base, 0
        while name in self.computations or name in self.later_names:
            n += 1
            name = f"{base}.{n}"
        comp = Computation(name, async_sugar=True)
        params = []
        for i, shape in enumerate(operand_shapes):
            p = Instruction(f"param_{i}", Opcode.PARAMETER, shape, parameter_number=i)
            comp.add_instruction(p)
            params.append(p)
        inner = Instruction(wrapped.value, wrapped, result)
        self.attributes(inner, InstrAst(ast.name, None, ast.opcode, [], attrs=attrs), {})
        inner.set_operands(params)
        comp.add_instruction(inner)
        comp.root = inner
        self.module.add_computation(comp)
        self.computations[name] = comp
        return comp

    def define(self, tok: Token | None, ins: Instruction, scope: dict[str, Instruction],
               opcode: Opcode) -> str:
        if tok is None:
            return self.fresh(f"{opcode.value}.anon", scope, ins)
        name = str(tok)
        if name in PRIMITIVE_TYPE_NAMES:
            raise error_at(tok, f"illegal instruction name {name}: it is an element type name "
                           f"(suggest {name}_)")
        if name.startswith("__") and not name.startswith("__xla_"):
            raise error_at(tok, f"illegal instruction name {name}: names must not start with __")
        if name in scope:
            raise error_at(tok, f"instruction {name} already exists in this computation")
        scope[name] = ins
        return name

    def fresh(self, base: str, scope: dict[str, Instruction], ins: Instruction) -> str:
        name, n = base, 0
        while name in scope:
            n += 1
            name = f"{base}.{n}"
        scope[name] = ins
        return name

    def plain_operands(self, ast: InstrAst, scope: dict[str, Instruction]) -> list[Instruction]:
        """Operands given as plain names (one OPERAND_LIST token)."""
        out = []
        for i, name in enumerate(ast.operands):
            ins = scope.get(name)  # type: ignore[arg-type]
            if ins is None:
                assert ast.operand_list is not None
                return [self.operand(t, None, scope, {})  # type: ignore[arg-type]
                        for t in operand_names(ast.operand_list)]
            out.append(ins)
        return out

    def operand(self, op: OperandRef | InstrAst, comp: Computation,
                scope: dict[str, Instruction], params: dict[int, Instruction]) -> Instruction:
        if isinstance(op, Token):
            op = OperandRef(None, op)
        elif isinstance(op, InstrAst):
            if op.attrs:
                raise error_at(op.opcode, "nested instructions cannot have attributes")
            return self.instruction(op, comp, scope, params)
        ins = scope.get(str(op.name))
        if ins is None:
            raise error_at(op.name, f"instruction {op.name} is not defined before this use"
                           if str(op.name) not in self.later_names else
                           f"'{op.name}' is a computation, not an instruction")
        if op.shape is not None and not op.shape.compatible(ins.shape):
            raise error_at(op.name, f"the shape {op.shape} written for operand {op.name} does "
                           f"not match its definition {ins.shape}")
        return ins

    def infer(self, ins: Instruction, operands: list[Instruction], tok: Token) -> Shape:
        ctx = ShapeContext(ins.opcode.value, [o.shape for o in operands], ins.attrs, None)
        try:
            return OPS[ins.opcode].shape_rule(ctx)
        except ShapeError as exc:
            raise error_at(tok, str(exc)) from None

    # -- attributes -----------------------------------------------------------------------
    def attributes(self, ins: Instruction, ast: InstrAst, scope: dict[str, Instruction]) -> None:
        spec = OPS[ins.opcode]
        if not ast.attrs and not _REQUIRED[ins.opcode]:
            return
        seen: set[str] = set()
        for a in ast.attrs:
            key = a.name
            if key in seen:
                raise error_at(a.key, f"attribute {key} already exists")
            seen.add(key)
            if key in GENERIC_ATTRIBUTES:
                self.generic_attribute(ins, a, scope)
                continue
            aspec = spec.attr(key)
            if aspec is None:
                allowed = [x.key for x in spec.attrs] + list(GENERIC_ATTRIBUTES)
                raise error_at(a.key, f"unknown attribute {key} for {ins.opcode.value}",
                               tuple(allowed))
            ins.attrs[key] = self.typed(aspec, a)
        for aspec in spec.attrs:
            if aspec.required and aspec.key not in ins.attrs:
                if ins.opcode is Opcode.BROADCAST:
                    continue
                raise error_at(ast.opcode, f"attribute {aspec.key} is expected but not seen "
                               f"for {ins.opcode.value}")
        if ins.opcode is Opcode.CONDITIONAL:
            _check_conditional_attrs(ins, ast.opcode)

    def typed(self, spec: AttrSpec, a: AttrAst) -> Any:
        a.value = _as_brace(a.value)
        if a.form == "literal" and spec.kind is AttrKind.LITERAL:
            shape, lit = a.value
            try:
                value = literal_from_ast(shape, lit)
            except LiteralError as exc:
                raise error_at(exc.token or a.key, str(exc.args[0])) from None
            return LiteralAttr(shape, value.to_text())
        if a.form == "aliasing" and spec.kind is AttrKind.ALIASING:
            return tuple(OperandAlias(o, int(n), i) for o, n, i in a.value)
        if a.form == "replica_groups" and spec.kind is AttrKind.REPLICA_GROUPS:
            v = a.value
            if isinstance(v, (BraceAst, IntList)):
                return ReplicaGroups(groups=_ints_list(_as_brace(v), a.key))
            return ReplicaGroups(iota_text=v[1])
        if a.form == "raw" and spec.kind is AttrKind.RAW:
            return _normalize_blob(str(a.value))
        if a.form == "raw" and spec.kind is AttrKind.DOMAIN:
            return _domain(str(a.value), a.key)
        if a.form != "generic":
            raise error_at(a.key, f"attribute {a.name} does not take this kind of value")
        if spec.kind is AttrKind.ENUM:
            return _enum(a.value, a.key, spec)
        conv = _CONVERTERS.get(spec.kind)
        if conv is None:
            raise error_at(a.key, f"attribute {a.name} does not take this kind of value")
        if spec.kind in (AttrKind.COMPUTATION, AttrKind.COMPUTATIONS):
            return conv(self, a.value, a.key)
        return conv(a.value, a.key)

    def generic_attribute(self, ins: Instruction, a: AttrAst, scope: dict[str, Instruction]) -> None:
        key, v = a.name, _as_brace(a.value)
        if key == "sharding":
            ins.sharding = Sharding(_normalize_blob(str(v))[1:-1].strip())
        elif key == "frontend_attributes":
            ins.frontend_attributes = _fe_attrs(v)
        elif key == "backend_config":
            ins.backend_config = str(v) if v.type == "BLOB" else c_unescape(str(v)[1:-1], v)
        elif key == "origin":
            ins.origin = _normalize_blob(str(v))[1:-1].strip()
        elif key == "metadata":
            ins.metadata = _metadata_blob(v) if isinstance(v, Token) else _metadata(v, a.key)
        elif key == "statistics":
            ins.statistics = _kvs_text(v, a.key)
        elif key == "result_accuracy":
            if not OPS[ins.opcode].accepts_result_accuracy:
                raise error_at(a.key, f"{ins.opcode.value} does not accept result_accuracy")
            ins.result_accuracy = _result_accuracy(v, a.key)
        elif key == "control-predecessors":
            if not isinstance(v, BraceAst):
                raise error_at(a.key, "control-predecessors takes {name, ...}")
            for item in v.items:
                pred = scope.get(str(item)) if isinstance(item, Token) else None
                if pred is None:
                    raise error_at(item if isinstance(item, Token) else a.key,
                                   f"control predecessor {item} is not defined before this use")
                ins.add_control_predecessor(pred)

    # -- called computations ---------------------------------------------------------------
    def computation_ref(self, v: Any, key: Token) -> Computation:
        if isinstance(v, InlineBodyAst):
            return self.inline(v, key)
        if isinstance(v, Token) and v.type in ("NAME", "PCT_NAME", "CONSTANT", "PARAMETER"):
            comp = self.computations.get(str(v))
            if comp is None:
                if str(v) in self.later_names:
                    raise error_at(v, f"computation {v} is used before it is defined "
                                   f"(callees must come before their callers)")
                raise error_at(v, f"computation {v} does not exist")
            return comp
        raise error_at(key, f"attribute {key[:-1]} takes a computation name")

    def computation_list(self, v: Any, key: Token) -> tuple[Computation, ...]:
        if not isinstance(v, BraceAst):
            raise error_at(key, f"attribute {key[:-1]} takes {{computation, ...}}")
        return tuple(self.computation_ref(item, key) for item in v.items)

    def inline(self, body: InlineBodyAst, key: Token) -> Computation:
        name = "_"
        while name in self.computations or name in self.later_names:
            self.inline_count += 1
            name = f"_.{self.inline_count}"
        comp = self.body(name, body.instructions, key)
        self.module.add_computation(comp)
        self.computations[name] = comp
        return comp


# -- attribute value converters -------------------------------------------------------------
def _tok(v: Any, key: Token, types: tuple[str, ...], what: str) -> Token:
    if isinstance(v, Token) and v.type in types:
        return v
    raise error_at(v if isinstance(v, Token) else key, f"attribute {key[:-1]} expects {what}")


def _bool(v: Any, key: Token) -> bool:
    t = _tok(v, key, ("NAME",), "true or false")
    if t not in ("true", "false"):
        raise error_at(t, f"attribute {key[:-1]} expects true or false, got '{t}'")
    return t == "true"


def _int_value(v: Any, key: Token) -> int:
    return int(_tok(v, key, ("INT",), "an integer"))


def _float(v: Any, key: Token) -> float:
    t = _tok(v, key, ("INT", "DECIMAL", "NAME"), "a number")
    if t.type == "NAME" and t != "inf":
        raise error_at(t, f"attribute {key[:-1]} expects a number, got '{t}'")
    return float(t)


def _string(v: Any, key: Token) -> str:
    t = _tok(v, key, ("STRING",), "a string")
    return c_unescape(str(t)[1:-1], t)


def _ident(v: Any, key: Token) -> str:
    return str(_tok(v, key, ("NAME",), "an identifier"))


def _enum(v: Any, key: Token, spec: AttrSpec) -> str:
    t = _tok(v, key, ("NAME",), "one of " + ", ".join(spec.choices))
    text = str(t).lower() if spec.fold_case else str(t)
    for choice in spec.choices:
        if text == (choice.lower() if spec.fold_case else choice):
            return choice
    raise error_at(t, f"unknown value '{t}' for attribute {key[:-1]}", spec.choices)


def _as_brace(v: Any) -> Any:
    """An empty `{}` lexes as an empty integer list; elsewhere it is an empty brace."""
    return BraceAst([]) if isinstance(v, IntList) and not v else v


def _ints(v: Any, key: Token) -> tuple[int, ...]:
    if isinstance(v, IntList):
        return tuple(v)
    if not isinstance(v, BraceAst):
        raise error_at(v if isinstance(v, Token) else key, f"attribute {key[:-1]} expects {{int, ...}}")
    return tuple(_int_value(x, key) for x in v.items)


def _ints_list(v: Any, key: Token) -> tuple[tuple[int, ...], ...]:
    if not isinstance(v, BraceAst):
        raise error_at(key, f"attribute {key[:-1]} expects {{{{int, ...}}, ...}}")
    return tuple(_ints(_as_brace(x), key) for x in v.items)


def _bools(v: Any, key: Token) -> tuple[bool, ...]:
    if isinstance(v, BraceAst):
        return tuple(_bool(x, key) for x in v.items)
    return (_bool(v, key),)


def _shape(v: Any, key: Token) -> Shape:
    if not isinstance(v, Shape):
        raise error_at(key, f"attribute {key[:-1]} expects a shape")
    return v


def _shapes(v: Any, key: Token) -> tuple[Shape, ...]:
    if not isinstance(v, BraceAst):
        raise error_at(key, f"attribute {key[:-1]} expects {{shape, ...}}")
    return tuple(_shape(x, key) for x in v.items)


def _precision(v: Any, key: Token) -> tuple[str, ...]:
    if not isinstance(v, BraceAst):
        raise error_at(key, "operand_precision expects {default, high, highest, ...}")
    out = []
    for x in v.items:
        t = _tok(x, key, ("NAME",), "default, high or highest")
        if t.lower() not in ("default", "high", "highest"):
            raise error_at(t, f"unknown precision '{t}'", ("default", "high", "highest"))
        out.append(t.lower())
    return tuple(out)


_WINDOW_KEYS = ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal")


def _window(v: Any, key: Token) -> Window:
    if not isinstance(v, BraceAst) or len(v.items) > 1 or (v.items and not isinstance(v.items[0], KvsAst)):
        raise error_at(key, "window expects {size=... stride=... pad=... lhs_dilate=... "
                       "rhs_dilate=... rhs_reversal=...} (space separated)")
    fields: dict[str, list[Any]] = {}
    for k, val in (v.items[0].pairs if v.items else []):
        name = str(k)[:-1]
        if name not in _WINDOW_KEYS:
            raise error_at(k, f"unknown window attribute {name}", _WINDOW_KEYS)
        if name in fields:
            raise error_at(k, f"window attribute {name} already exists")
        if name == "pad":
            fields[name] = [(p.low, p.high) for p in _padding(val, k)]
        else:
            t = _tok(val, k, ("INT", "DXD"), "NxM... integers")
            fields[name] = [int(x) for x in str(t).split("x")]
    if not fields:
        return Window()
    if "size" not in fields:
        raise error_at(key, "window requires size=")
    rank = len(fields["size"])
    for name, vals in fields.items():
        if len(vals) != rank:
            raise error_at(key, f"window {name} has {len(vals)} dimensions but size has {rank}")
    dims = []
    for i in range(rank):
        pad = fields.get("pad", [(0, 0)] * rank)[i]
        dims.append(WindowDimension(
            size=fields["size"][i],
            stride=fields.get("stride", [1] * rank)[i],
            padding_low=pad[0],
            padding_high=pad[1],
            window_dilation=fields.get("rhs_dilate", [1] * rank)[i],
            base_dilation=fields.get("lhs_dilate", [1] * rank)[i],
            window_reversal=bool(fields.get("rhs_reversal", [0] * rank)[i]),
        ))
    return Window(tuple(dims))


def _padding(v: Any, key: Token) -> tuple[PadDimension, ...]:
    t = _tok(v, key, ("PAD",), "low_high[_interior] per dimension, joined with x")
    dims = []
    for part in re.findall(r"-?\d+_-?\d+(?:_\d+)?", str(t)):
        nums = [int(x) for x in re.findall(r"-?\d+", part)]
        dims.append(PadDimension(*nums))
    return tuple(dims)


def _dim_labels(v: Any, key: Token) -> ConvDimensionNumbers:
    t = _tok(v, key, ("DIM_LABELS",), "dimension labels like b01f_01io->b01f")
    lhs, rest = str(t).split("_", 1)
    rhs, out = rest.split("->")
    if not (len(lhs) == len(rhs) == len(out)):
        raise error_at(t, "convolution dimension labels must all have the same rank")

    def locate(labels: str, a: str, b: str) -> tuple[int, int, tuple[int, ...]]:
        if labels.count(a) != 1 or labels.count(b) != 1:
            raise error_at(t, f"'{labels}' must contain exactly one '{a}' and one '{b}'")
        spatial = [c for c in labels if c.isdigit()]
        n = len(labels) - 2
        if sorted(spatial) != [str(i) for i in range(n)] and n <= 10:
            raise error_at(t, f"'{labels}' must name spatial dimensions 0..{n - 1} once each")
        pos = tuple(labels.index(str(i)) for i in range(n))
        return labels.index(a), labels.index(b), pos

    ib, if_, isp = locate(lhs, "b", "f")
    ki, ko, ksp = locate(rhs, "i", "o")
    ob, of, osp = locate(out, "b", "f")
    return ConvDimensionNumbers(ib, if_, isp, ki, ko, ksp, ob, of, osp)


def _slice(v: Any, key: Token) -> tuple[SliceRange, ...]:
    if not isinstance(v, BraceAst) or not all(isinstance(x, SliceAst) for x in v.items):
        raise error_at(key, "slice expects {[start:limit], [start:limit:stride], ...}")
    return tuple(
        SliceRange(int(s.start), int(s.limit), int(s.stride) if s.stride is not None else 1)
        for s in v.items
    )


def _raw(v: Any, key: Token) -> str:
    return _normalize_blob(str(v))


_CONVERTERS: dict[AttrKind, Callable[..., Any]] = {
    AttrKind.BOOL: _bool,
    AttrKind.INT: _int_value,
    AttrKind.FLOAT: _float,
    AttrKind.STRING: _string,
    AttrKind.IDENT: _ident,
    AttrKind.INTS: _ints,
    AttrKind.INTS_LIST: _ints_list,
    AttrKind.BOOLS: _bools,
    AttrKind.COMPUTATION: _Lowering.computation_ref,
    AttrKind.COMPUTATIONS: _Lowering.computation_list,
    AttrKind.WINDOW: _window,
    AttrKind.DIM_LABELS: _dim_labels,
    AttrKind.SLICE: _slice,
    AttrKind.PADDING: _padding,
    AttrKind.SHAPE: _shape,
    AttrKind.SHAPES: _shapes,
    AttrKind.PRECISION: _precision,
    AttrKind.RAW: _raw,
}


# -- generic attributes ---------------------------------------------------------------------
_METADATA_STR = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name")
_METADATA_INT = ("source_line", "source_end_line", "source_column", "source_end_column",
                 "stack_frame_id")  # fmt: skip


def _metadata(v: Any, key: Token) -> Metadata:
    if not isinstance(v, BraceAst):
        raise error_at(key, "metadata expects {op_type=\"...\" op_name=\"...\" ...}")
    fields: dict[str, Any] = {}
    for item in v.items:
        if not isinstance(item, KvsAst):
            raise error_at(key, "metadata expects key=value pairs")
        for k, val in item.pairs:
            name = str(k)[:-1]
            if name in fields:
                raise error_at(k, f"metadata field {name} already exists")
            if name in _METADATA_STR:
                fields[name] = _string(val, k)
            elif name in _METADATA_INT:
                fields[name] = _int_value(val, k)
            elif name == "profile_type":
                fields[name] = _ints(val, k)
            else:
                raise error_at(k, f"unknown metadata field {name}",
                               (*_METADATA_STR, *_METADATA_INT, "profile_type"))
    return Metadata(**fields)


_MD_FIELD = re.compile(r'[ \t\r\n]*,?[ \t\r\n]*([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"'
                       r"|-?\d+|\{[^{}]*\})")
_MD_END = re.compile(r"[ \t\r\n]*\}")


_MD_CACHE: dict[str, Metadata] = {}


def _metadata_blob(tok: Token) -> Metadata:
    """metadata={...} read from its raw text (one token), remembered by text."""
    md = _MD_CACHE.get(tok)
    if md is None:
        md = _parse_metadata_blob(tok)
        if len(_MD_CACHE) < 8192:
            _MD_CACHE[str(tok)] = md
    return md


def _parse_metadata_blob(tok: Token) -> Metadata:
    """metadata={...} with a regex per field."""
    text = str(tok)
    fields: dict[str, Any] = {}
    pos = 1
    while True:
        m = _MD_FIELD.match(text, pos)
        if m is None:
            if _MD_END.fullmatch(text, pos):
                return Metadata(**fields)
            raise _blob_error(tok, pos, "metadata expects key=value fields such as "
                              'op_name="..." source_line=3')
        name, raw = m.group(1), m.group(2)
        if name in fields:
            raise _blob_error(tok, m.start(1), f"metadata field {name} already exists")
        if name in _METADATA_STR and raw[0] == '"':
            fields[name] = c_unescape(raw[1:-1], tok)
        elif name in _METADATA_INT and raw[0] != '"' and raw[0] != "{":
            fields[name] = int(raw)
        elif name == "profile_type" and raw[0] == "{":
            body = raw[1:-1].strip()
            fields[name] = tuple(int(x) for x in body.split(",")) if body else ()
        elif name in _METADATA_STR or name in _METADATA_INT or name == "profile_type":
            raise _blob_error(tok, m.start(2), f"metadata field {name} has the wrong kind of value")
        else:
            err = _blob_error(tok, m.start(1), f"unknown metadata field {name}")
            err.expected = (*_METADATA_STR, *_METADATA_INT, "profile_type")
            raise err
        pos = m.end()


def _blob_error(tok: Token, offset: int, message: str) -> HloError:
    """An error at a character offset inside a raw blob token."""
    text = str(tok)
    nl = text.count("\n", 0, offset)
    if nl:
        line, col = tok.line + nl, offset - text.rfind("\n", 0, offset)
    else:
        line, col = tok.line, tok.column + offset
    return HloError(message, line, col)


def _fe_attrs(items: list[tuple[Token, Token]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, val in items:
        name = str(k)[:-1]
        if name in out:
            raise error_at(k, f"frontend attribute {name} already exists")
        out[name] = str(val) if val.type == "BLOB" else c_unescape(str(val)[1:-1], val)
    return dict(sorted(out.items()))


def _kvs_text(v: Any, key: Token) -> str:
    """Canonical `k=v,k2=v2` text of a brace of key=value items."""
    if not isinstance(v, BraceAst):
        raise error_at(key, f"{key[:-1]} expects {{key=value, ...}}")
    parts = []
    for item in v.items:
        if not isinstance(item, KvsAst):
            raise error_at(key, f"{key[:-1]} expects key=value items")
        for k, val in item.pairs:
            if not isinstance(val, Token):
                raise error_at(k, f"{k[:-1]} expects a number")
            parts.append(f"{k}{val}")
    return ",".join(parts)


def _result_accuracy(v: Any, key: Token) -> ResultAccuracy:
    if not isinstance(v, BraceAst) or len(v.items) != 1 or not isinstance(v.items[0], KvsAst):
        raise error_at(key, "result_accuracy expects {mode=...} or {tolerance={...}}")
    pairs = v.items[0].pairs
    k, val = pairs[0]
    if len(pairs) != 1:
        raise error_at(pairs[1][0], "result_accuracy takes one of mode= or tolerance=")
    if k == "mode=":
        mode = _ident(val, k).lower()
        if mode not in ("default", "highest"):
            raise error_at(val, f"unknown result accuracy mode '{val}'", ("default", "highest"))
        return ResultAccuracy(mode=mode)
    if k == "tolerance=":
        fields = {"atol": 0.0, "rtol": 0.0, "ulps": 0}
        if not isinstance(val, BraceAst):
            raise error_at(k, "tolerance expects {atol=...,rtol=...,ulps=...}")
        for item in val.items:
            for kk, vv in item.pairs if isinstance(item, KvsAst) else []:
                name = str(kk)[:-1]
                if name not in fields:
                    raise error_at(kk, f"unknown tolerance field {name}", ("atol", "rtol", "ulps"))
                fields[name] = _int_value(vv, kk) if name == "ulps" else _float(vv, kk)
        return ResultAccuracy(atol=float(fields["atol"]), rtol=float(fields["rtol"]),
                              ulps=int(fields["ulps"]), is_tolerance=True)
    raise error_at(k, f"unknown result_accuracy field {k[:-1]}", ("mode", "tolerance"))


_WS = re.compile(r"\s+")
_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_STRING_OR_REST = re.compile(r'("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|([^"\']+)', re.S)


def _normalize_blob(text: str) -> str:
    """Canonical spelling of a brace blob whose content we keep as text: comments
    dropped and whitespace runs collapsed outside strings (a fixed point)."""
    parts = []
    for m in _STRING_OR_REST.finditer(text):
        if m.group(1) is not None:
            parts.append(m.group(1))
        else:
            parts.append(_WS.sub(" ", _COMMENT.sub(" ", m.group(2))))
    out = "".join(parts)
    out = re.sub(r"\{ ", "{", out)
    return re.sub(r" \}", "}", out)


def _domain(text: str, key: Token) -> DomainAttr:
    body = _normalize_blob(text)
    m = re.fullmatch(r'\{kind="([^"]*)"(?:, ?entry=(\{.*?\}))?(?:, ?exit=(\{.*\}))?\}', body)
    if m is None:
        raise error_at(key, 'domain expects {kind="...", entry={...}, exit={...}}')
    entry = Sharding(m.group(2)[1:-1]) if m.group(2) else None
    exit_ = Sharding(m.group(3)[1:-1]) if m.group(3) else None
    return DomainAttr(m.group(1), entry, exit_)


# -- header attributes ------------------------------------------------------------------------
def _h_bool(field: str) -> Callable[[_Lowering, ModuleConfig, AttrAst], None]:
    def handler(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
        setattr(cfg, field, _bool(a.value, a.key))

    return handler


def _h_int(field: str) -> Callable[[_Lowering, ModuleConfig, AttrAst], None]:
    def handler(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
        setattr(cfg, field, _int_value(a.value, a.key))

    return handler


def _h_bools(field: str) -> Callable[[_Lowering, ModuleConfig, AttrAst], None]:
    def handler(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
        setattr(cfg, field, _bools(a.value, a.key))

    return handler


def _h_entry_layout(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
    params, result = a.value
    lw.module.entry_computation_layout = EntryLayout(tuple(params), result)


def _h_io_alias(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
    out = []
    for item in a.value:
        out_index, param, param_index, *kind = item
        k = str(kind[0]) if kind and kind[0] is not None else "may-alias"
        if k not in ("may-alias", "must-alias"):
            raise error_at(kind[0], f"unknown alias kind '{k}'", ("may-alias", "must-alias"))
        out.append(IoAlias(out_index, int(param), param_index, k))
    cfg.input_output_alias = tuple(out)


def _h_donor(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
    cfg.buffer_donor = tuple(BufferDonor(int(p), idx) for p, idx in a.value)


def _h_fe(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
    cfg.frontend_attributes = _fe_attrs(a.value)


def _h_recovery(lw: _Lowering, cfg: ModuleConfig, a: AttrAst) -> None:
    cfg.origin_recovery_table = _normalize_blob(str(a.value))


_HEADER: dict[str, Callable[[_Lowering, ModuleConfig, AttrAst], None]] = {
    "is_scheduled": _h_bool("is_scheduled"),
    "replica_count": _h_int("replica_count"),
    "num_partitions": _h_int("num_partitions"),
    "input_output_alias": _h_io_alias,
    "buffer_donor": _h_donor,
    "alias_passthrough_params": _h_bool("alias_passthrough_params"),
    "entry_computation_layout": _h_entry_layout,
    "frontend_attributes": _h_fe,
    "allow_spmd_sharding_propagation_to_parameters": _h_bools(
        "allow_spmd_sharding_propagation_to_parameters"
    ),
    "allow_spmd_sharding_propagation_to_output": _h_bools("allow_spmd_sharding_propagation_to_output"),
    "origin_recovery_table": _h_recovery,
}


def _stack_frames(sections: dict[str, list[Any]]) -> StackFrameTables:
    def strings(key: str) -> tuple[str, ...]:
        return tuple(c_unescape(str(s)[1:-1], s) for _, s in sections.get(key, []))

    def records(key: str, fields: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
        out = []
        for index, brace in sections.get(key, []):
            values: dict[str, int] = {}
            for item in brace.items:
                if not isinstance(item, KvsAst):
                    raise error_at(index, f"{key} entries are {{key=int ...}}")
                for k, v in item.pairs:
                    values[str(k)[:-1]] = _int_value(v, k)
            missing = [f for f in fields if f not in values]
            if missing:
                raise error_at(index, f"{key} entry is missing {', '.join(missing)}")
            out.append(tuple(values[f] for f in fields))
        return tuple(out)

    return StackFrameTables(
        strings("FILE_NAMES"),
        strings("FUNCTION_NAMES"),
        records("FILE_LOCATIONS", ("file_name_id", "function_name_id", "line", "end_line",
                                   "column", "end_column")),  # type: ignore[arg-type]
        records("STACK_FRAMES", ("file_location_id", "parent_frame_id")),  # type: ignore[arg-type]
    )


# -- structural checks the parser does ---------------------------------------------------------
def _check_operand_count_rules(ins: Instruction, operands: list[Instruction], tok: Token) -> None:
    op, n = ins.opcode, len(operands)
    if op in (Opcode.REDUCE, Opcode.REDUCE_WINDOW) and n % 2:
        raise error_at(tok, f"{op.value} expects an even number of operands (inputs then "
                       f"init values), but has {n}")
    if op is Opcode.SCATTER and n % 2 == 0:
        raise error_at(tok, f"scatter expects an odd number of operands (operands, indices, "
                       f"updates), but has {n}")
    if op is Opcode.CONDITIONAL:
        branches = ins.attrs.get("branch_computations")
        count = len(branches) if branches is not None else 2
        if n != count + 1:
            raise error_at(tok, f"conditional expects {count + 1} operands (index and one per "
                           f"branch), but has {n}")
    if op is Opcode.BROADCAST and "dimensions" not in ins.attrs and operands and operands[0].shape.rank:
        raise error_at(tok, "attribute dimensions is expected but not seen for broadcast "
                       "(only a scalar operand may omit it)")


def _check_conditional_attrs(ins: Instruction, tok: Token) -> None:
    has_tf = "true_computation" in ins.attrs or "false_computation" in ins.attrs
    has_branches = "branch_computations" in ins.attrs
    if has_tf and has_branches:
        raise error_at(tok, "conditional takes either true_computation/false_computation or "
                       "branch_computations, not both")
    if has_tf and not ("true_computation" in ins.attrs and "false_computation" in ins.attrs):
        raise error_at(tok, "conditional needs both true_computation and false_computation")
    if not has_tf and not has_branches:
        raise error_at(tok, "attribute branch_computations is expected but not seen for conditional")


def _expand(items: list[Any]) -> list[InstrAst]:
    """A body's items with SIMPLE_LINES tokens expanded to syntax trees (error paths)."""
    from hlotool.hlo.parser import materialize_line

    out: list[InstrAst] = []
    for item in items:
        if type(item) is LinesToken:
            out.extend(materialize_line(line) for line in item.lines)
        else:
            out.append(item)
    return out


def _param_token(instrs: list[InstrAst], n: int) -> Token | None:
    for ins in instrs:
        if ins.opcode == "parameter" and ins.payload is not None and int(ins.payload) == n:
            return ins.payload
    return None


_ASYNC_SUFFIXES = {"-start": Opcode.ASYNC_START, "-update": Opcode.ASYNC_UPDATE,
                   "-done": Opcode.ASYNC_DONE}


def _async_sugar(name: str) -> tuple[Opcode, Opcode] | None:
    """(async opcode, wrapped opcode) for `X-start`, `X-update`, `X-done`."""
    for suffix, kind in _ASYNC_SUFFIXES.items():
        if name.endswith(suffix):
            wrapped = BY_NAME.get(name[: -len(suffix)])
            if wrapped is not None and wrapped not in (Opcode.PARAMETER, Opcode.CONSTANT):
                return kind, wrapped
    return None


def _opcode_suggestions(tok: Token) -> tuple[str, ...]:
    """The opcodes nearest `tok` by edit distance (at most a third of its letters
    wrong), nearest first."""
    word = str(tok)
    limit = max(1, len(word) // 3)

    def distance(a: str, b: str) -> int:
        row = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            prev, row[0] = row[0], i
            for j, cb in enumerate(b, 1):
                prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        return row[-1]

    ranked = sorted((distance(word, name), name) for name in BY_NAME)
    return tuple(name for d, name in ranked if d <= limit)[:3]


