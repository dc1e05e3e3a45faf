"""StableHLO syntax tree -> IR: functions become computations, regions become called
computations, each op becomes HLO instructions through the converter table `CONVERTERS`
(filled by `ops`, `control`, `dynamic` and `chlo`).

Naming follows XLA: instruction and computation names are `<base>.<n>`, unique in the
module, with the HLO opcode (or the function name) as the base; parameters are named by
their `loc("name")` when they have one, else `Arg_<i>`. Computations are added to the
module when they are finished, so callees precede callers.

Regions that XLA runs as separate computations with parameters of their own (while
condition and body, case/if branches) receive the outer values they read through their
tuple parameter (`Captures`); reducer-like regions may only read outer constants, which
are copied in.

Shape refinement (`refine=True`, used by `specialize`): the entry's parameter shapes are
given, `?` dimensions of every later result are inferred from the operands with the shape
rules, small integer tensors are folded (`refine`) so that the dynamic ops'
shape operands are known, and those ops become their static forms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lark import Token

from hlotool.diagnostics import HloError, error_at
from hlotool.stablehlo.ast import (
    DictAttr,
    FileAst,
    FuncAst,
    Group,
    LocAttr,
    ModuleAst,
    OpAst,
    RegionAst,
    StringAttr,
    ValueRef,
    WordAttr,
)
from hlotool.stablehlo.attrs import attr_text, get_int, to_shape
from hlotool.stablehlo.pretty import RETURN_LIKE
from hlotool.stablehlo.refine import fold
from hlotool.ir.attributes import BufferDonor, IoAlias, Metadata, Sharding
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.literal import Literal
from hlotool.ir.module import Module
from hlotool.ir.opcodes import ELEMENTWISE, OPS, Opcode
from hlotool.ir.shape_rules import ShapeContext, ShapeError
from hlotool.ir.types import UNBOUNDED, Shape, shape_to_text

#: Op name -> converter; the op table modules register into it when imported.
Converter = Callable[["OpCtx"], list[Instruction]]
CONVERTERS: dict[str, Converter] = {}

_NAME_BAD = re.compile(r"[^A-Za-z0-9_.\-]")


def hlo_name(text: str) -> str:
    """A valid HLO identifier for a symbol or a base name."""
    name = _NAME_BAD.sub("_", text).strip(".") or "x"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "_" + name
    return re.sub(r"^_+", "_", name) if name.startswith("__") else name


class Names:
    """Module-wide unique `<base>.<n>` names (XLA's NameUniquer style)."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.next: dict[str, int] = {}

    def fresh(self, base: str) -> str:
        base = hlo_name(base)
        n = self.next.get(base, 1)
        while f"{base}.{n}" in self.used:
            n += 1
        self.next[base] = n + 1
        name = f"{base}.{n}"
        self.used.add(name)
        return name


# -- scopes ---------------------------------------------------------------------------------


class Scope:
    """SSA names visible in one region; outer values come in through `capture`."""

    def __init__(
        self,
        lw: ModuleLowering,
        comp: Computation,
        parent: Scope | None,
        capture: Callable[[Instruction], Instruction] | None = None,
    ) -> None:
        self.lw = lw
        self.comp = comp
        self.parent = parent
        self.capture = capture
        self.values: dict[str, list[Instruction]] = {}
        self.imported: dict[int, Instruction] = {}

    def define(self, name: str, values: list[Instruction], tok: Token) -> None:
        if name in self.values:
            raise error_at(tok, f"value {name} is defined twice")
        self.values[name] = values

    def lookup(self, ref: ValueRef) -> Instruction:
        group = self.values.get(ref.name)
        if group is None:
            return self._from_outside(ref)
        index = ref.index or 0
        if ref.index is None and len(group) != 1:
            raise error_at(
                ref.tok,
                f"{ref.name} has {len(group)} results; use {ref.name}#0 .. "
                f"{ref.name}#{len(group) - 1}",
            )
        if not 0 <= index < len(group):
            raise error_at(
                ref.tok,
                f"{ref.name} has {len(group)} result"
                f"{'s' if len(group) != 1 else ''}; #{index} does not exist",
            )
        return group[index]

    def _from_outside(self, ref: ValueRef) -> Instruction:
        if self.parent is None:
            raise error_at(ref.tok, f"value {ref.name} is not defined before this use")
        outer = self.parent.lookup(ref)
        seen = self.imported.get(id(outer))
        if seen is not None:
            return seen
        if outer.opcode is Opcode.CONSTANT and outer.literal is not None:
            inner = self.lw.emit(self.comp, Opcode.CONSTANT, outer.shape, [], literal=outer.literal)
            self.lw.copy_known(outer, inner)
        elif self.capture is not None:
            inner = self.capture(outer)
        else:
            raise error_at(
                ref.tok,
                f"{ref.name} is defined outside this region; only constants "
                "can be used from an enclosing scope here",
            )
        self.imported[id(outer)] = inner
        return inner


@dataclass
class Captures:
    """Outer values a packed region (while, case branch) reads, in first-use order."""

    outer: list[Instruction] = field(default_factory=list)
    #: The tuple parameters whose shape grows with the list (updated by `finish`).
    params: list[tuple[Instruction, list[Shape]]] = field(default_factory=list)

    def index(self, ins: Instruction) -> int:
        for i, o in enumerate(self.outer):
            if o is ins:
                return i
        self.outer.append(ins)
        return len(self.outer) - 1

    def finish(self) -> None:
        for param, head in self.params:
            param.shape = Shape.tuple_of([*head, *(o.shape for o in self.outer)])


# -- per-op context -------------------------------------------------------------------------


class OpCtx:
    """What a converter sees of one op: its operands as instructions, typed attribute
    access and instruction emission into the current computation."""

    def __init__(self, lw: ModuleLowering, scope: Scope, op: OpAst, operands: list[Instruction]):
        self.lw = lw
        self.scope = scope
        self.op = op
        self.operands = operands
        self.tok = op.tok
        #: Instructions emitted for this op, in order.
        self.emitted: list[Instruction] = []

    @property
    def name(self) -> str:
        return self.op.name

    def emit(
        self,
        opcode: Opcode,
        shape: Shape,
        operands: Sequence[Instruction] = (),
        attrs: dict[str, Any] | None = None,
        **fields: Any,
    ) -> Instruction:
        ins = self.lw.emit(
            self.scope.comp, opcode, shape, operands, attrs, where=self.tok, **fields
        )
        self.emitted.append(ins)
        return ins

    def gtes(self, tup: Instruction) -> list[Instruction]:
        """One get-tuple-element per element of a tuple-shaped instruction."""
        return [
            self.emit(Opcode.GET_TUPLE_ELEMENT, s, [tup], {"index": i})
            for i, s in enumerate(tup.shape.tuple_shapes)
        ]

    def result_shape(self, i: int = 0) -> Shape:
        types = self.op.result_types
        if i >= len(types):
            raise error_at(
                self.tok, f"{self.name} needs its result type{'s' if i else ''} written after ':'"
            )
        return to_shape(types[i], self.tok)

    def result_shapes(self) -> list[Shape]:
        return [to_shape(t, self.tok) for t in self.op.result_types]

    def has(self, key: str) -> bool:
        return key in self.op.attrs

    def attr(self, key: str) -> Any:
        if key not in self.op.attrs:
            raise error_at(self.tok, f"{self.name} needs attribute '{key}'")
        return self.op.attrs[key]

    def get(
        self, key: str, reader: Callable[[Any, str, Token | None], Any], default: Any = None
    ) -> Any:
        """Read attribute `key` with a `attrs.get_*` reader, or the default."""
        if key not in self.op.attrs:
            if default is _REQUIRED:
                raise error_at(self.tok, f"{self.name} needs attribute '{key}'")
            return default
        return reader(self.op.attrs[key], key, self.op.attr_tok(key))

    def need(self, key: str, reader: Callable[[Any, str, Token | None], Any]) -> Any:
        return self.get(key, reader, _REQUIRED)

    def arity(self, n: int, what: str = "operands") -> None:
        if len(self.operands) != n:
            raise error_at(
                self.tok, f"{self.name} expects {n} {what}, but has {len(self.operands)}"
            )

    def known(self, ins: Instruction) -> np.ndarray | None:
        return self.lw.known.get(id(ins))

    def error(self, message: str) -> HloError:
        return error_at(self.tok, f"{self.name}: {message}")


_REQUIRED = object()


# -- the module -----------------------------------------------------------------------------


class ModuleLowering:
    """Lowers one module's functions, on demand from the entry."""

    def __init__(self, file: FileAst, module: ModuleAst, *, refine: bool = False) -> None:
        self.file = file
        self.ast = module
        self.refine = refine
        self.names = Names()
        self.funcs: dict[str, FuncAst] = {}
        for f in module.funcs:
            if f.name in self.funcs:
                raise error_at(f.tok, f"function @{f.name} is defined twice")
            self.funcs[f.name] = f
        self.module = Module(hlo_name(module.name or "module"))
        self.done: dict[Any, Computation] = {}
        self.active: set[str] = set()
        #: Values of small integer instructions known at lowering time (folded constants;
        #: with `refine`, also every static dimension size).
        self.known: dict[int, np.ndarray] = {}

    # -- entry and functions ----------------------------------------------------------------
    def lower(self, entry: str | None, arg_shapes: Sequence[Shape] | None) -> Module:
        func = self.entry_function(entry)
        self.module_config()  # first: the functions' Shardy shardings name its meshes
        comp = self.function(func, list(arg_shapes) if arg_shapes is not None else None, None)
        comp.is_entry = True
        self.entry_aliases(func)
        return self.module

    def entry_function(self, entry: str | None) -> FuncAst:
        if entry is not None:
            func = self.funcs.get(entry)
            if func is None:
                raise HloError(f"no function @{entry} in the module", 1, 1, tuple(self.funcs))
            return func
        if "main" in self.funcs:
            return self.funcs["main"]
        public = [f for f in self.funcs.values() if f.visibility == "public" and f.body]
        if len(public) == 1:
            return public[0]
        with_body = [f for f in self.funcs.values() if f.body is not None]
        if not with_body:
            raise HloError("the module has no function with a body to run", 1, 1)
        return with_body[0]

    def module_config(self) -> None:
        meshes = self.shardy_meshes()
        if meshes:
            self.module.config.frontend_attributes["xla.sdy.meshes"] = meshes
        attrs = self.ast.attrs
        if attrs is None:
            return
        cfg = self.module.config
        replicas, partitions = attrs.get("mhlo.num_replicas"), attrs.get("mhlo.num_partitions")
        if replicas is not None:
            cfg.replica_count = get_int(replicas, "mhlo.num_replicas", self.ast.tok)
        if partitions is not None and not meshes:
            # A module with Shardy meshes is the global program before partitioning (as
            # JAX's HLO of the same jit, whose header names no partitions).
            cfg.num_partitions = get_int(partitions, "mhlo.num_partitions", self.ast.tok)
        fe = attrs.get("mhlo.frontend_attributes")
        if isinstance(fe, DictAttr):
            cfg.frontend_attributes.update(sorted(
                (k, v.value if isinstance(v, StringAttr) else attr_text(v)) for k, v in fe.entries))

    def entry_aliases(self, func: FuncAst) -> None:
        """`tf.aliasing_output = N` and `jax.buffer_donor` argument attributes of the entry
        become the module's input_output_alias and buffer_donor (as XLA does)."""
        aliases, donors = [], []
        several = len(func.results) != 1
        for i, arg in enumerate(func.args):
            attrs = arg.attrs.as_dict() if arg.attrs is not None else {}
            if "tf.aliasing_output" in attrs:
                out = get_int(attrs["tf.aliasing_output"], "tf.aliasing_output", arg.tok)
                aliases.append(IoAlias((out,) if several else (), i, ()))
            elif (
                isinstance(attrs.get("jax.buffer_donor"), WordAttr)
                and attrs["jax.buffer_donor"].word == "true"
            ):
                donors.append(BufferDonor(i, ()))
        self.module.config.input_output_alias = tuple(aliases)
        self.module.config.buffer_donor = tuple(donors)

    def callee(self, name: str, tok: Token) -> FuncAst:
        func = self.funcs.get(name)
        if func is None:
            raise error_at(
                tok, f"function @{name} is not defined in this module", tuple(sorted(self.funcs))
            )
        if func.body is None:
            raise error_at(tok, f"function @{name} is only declared (it has no body)")
        return func

    def function(
        self,
        func: FuncAst,
        param_shapes: list[Shape] | None,
        known_args: list[np.ndarray | None] | None,
    ) -> Computation:
        """The computation of a function (lowered once per parameter shapes/known args)."""
        shapes = param_shapes or [to_shape(a.type, a.tok or func.tok) for a in func.args]
        if len(shapes) != len(func.args):
            raise error_at(
                func.tok,
                f"@{func.name} takes {len(func.args)} arguments, but {len(shapes)} are given",
            )
        key = (func.name, tuple(shapes), _known_key(known_args))
        if key in self.done:
            return self.done[key]
        if func.name in self.active:
            raise error_at(
                func.tok, f"function @{func.name} calls itself (recursion is not supported in HLO)"
            )
        if func.body is None:
            raise error_at(func.tok, f"function @{func.name} has no body")
        self.active.add(func.name)
        comp = Computation(self.names.fresh(func.name), location=_pos(func.tok))
        scope = Scope(self, comp, None)
        for i, (arg, shape) in enumerate(zip(func.args, shapes, strict=True)):
            self.check_type(arg.type, shape, arg.tok or func.tok)
            param = self.emit(
                comp,
                Opcode.PARAMETER,
                shape,
                [],
                name=_arg_name(arg.loc, i),
                parameter_number=i,
                where=arg.tok,
            )
            self.arg_attributes(param, arg.attrs)
            if known_args is not None and known_args[i] is not None:
                self.known[id(param)] = known_args[i]  # type: ignore[assignment]
            scope.define(arg.name or f"%arg{i}", [param], arg.tok or func.tok)
        values = self.body(func.body, scope)
        comp.root = self.root(comp, values, None, func.body.tok or func.tok)
        if not param_shapes:
            self.check_results(func, comp)
        self.active.discard(func.name)
        self.module.add_computation(comp)
        self.done[key] = comp
        return comp

    def check_results(self, func: FuncAst, comp: Computation) -> None:
        assert comp.root is not None
        got = comp.root.shape.tuple_shapes if len(func.results) != 1 else (comp.root.shape,)
        if len(func.results) != len(got):
            raise error_at(
                func.tok,
                f"@{func.name} declares {len(func.results)} results but returns {len(got)}",
            )
        for (t, _), shape in zip(func.results, got, strict=True):
            self.check_type(t, shape, func.tok)

    def shardy_meshes(self) -> str:
        """`{mesh = #sdy.mesh<[...]>, ...}` from the module's sdy.mesh ops ("" if none)."""
        meshes = [f"{op.tok.lstrip('@')} = #sdy.mesh{op.attrs['mesh'].text()}"
                  for op in self.ast.others if op.name == "sdy.mesh" and "mesh" in op.attrs]
        return "{" + ", ".join(meshes) + "}" if meshes else ""

    def arg_attributes(self, param: Instruction, attrs: DictAttr | None) -> None:
        if attrs is None:
            return
        sharding = attrs.get("mhlo.sharding")
        if isinstance(sharding, StringAttr):
            param.sharding = Sharding(sharding.value.strip()[1:-1].strip())
        shardy = attrs.get("sdy.sharding")
        if shardy is not None and param.shape.is_array:
            param.sharding = Sharding(shardy_sharding(self.module, attr_text(shardy),
                                                      param.shape.rank, param.location))

    # -- regions ------------------------------------------------------------------------------
    def body(self, region: RegionAst, scope: Scope) -> list[Instruction]:
        """Lower a block's ops; the terminator's operands are returned."""
        if not region.ops or region.ops[-1].name not in RETURN_LIKE:
            where = region.ops[-1].tok if region.ops else region.tok
            raise error_at(
                where, "a block must end with a return (func.return or stablehlo.return)"
            )
        for op in region.ops[:-1]:
            if op.name in RETURN_LIKE:
                raise error_at(op.tok, f"{op.name} must be the last op of its block")
            self.lower_op(op, scope)
        ret = region.ops[-1]
        values = [scope.lookup(r) for r in ret.operands]
        if ret.operand_types is not None:
            if len(ret.operand_types) != len(values):
                raise error_at(
                    ret.tok,
                    f"{ret.name} lists {len(ret.operand_types)} types for {len(values)} values",
                )
            for t, v in zip(ret.operand_types, values, strict=True):
                self.check_type(t, v.shape, ret.tok)
        return values

    def root(
        self, comp: Computation, values: list[Instruction], as_tuple: bool | None, tok: Token | None
    ) -> Instruction:
        """The computation's root: the value, or a tuple of the values."""
        if as_tuple is False and len(values) != 1:
            raise error_at(tok, f"this region must return exactly one value, not {len(values)}")
        if len(values) == 1 and not as_tuple:
            return values[0]
        return self.emit(comp, Opcode.TUPLE, Shape.tuple_of([v.shape for v in values]), values)

    def region(
        self,
        region: RegionAst,
        parent: Scope,
        base: str,
        arg_shapes: Sequence[Shape],
        *,
        as_tuple: bool | None = None,
    ) -> Computation:
        """A region whose block arguments are the computation's parameters (reducers,
        comparators, map bodies); only constants may come from outside."""
        comp = Computation(self.names.fresh(base), location=_pos(region.tok))
        scope = Scope(self, comp, parent)
        self.block_args(region, arg_shapes)
        for i, (arg, shape) in enumerate(zip(region.args, arg_shapes, strict=True)):
            param = self.emit(
                comp,
                Opcode.PARAMETER,
                shape,
                [],
                name=f"Arg_{i}",
                parameter_number=i,
                where=arg.tok,
            )
            scope.define(arg.name, [param], arg.tok)
        values = self.body(region, scope)
        comp.root = self.root(comp, values, as_tuple, region.tok)
        self.module.add_computation(comp)
        return comp

    def packed_region(
        self,
        region: RegionAst,
        parent: Scope,
        base: str,
        arg_shapes: Sequence[Shape],
        captures: Captures,
        *,
        as_tuple: bool | None,
        passthrough: bool = False,
    ) -> Computation:
        """A region with one tuple parameter: the block arguments, then the outer values
        it reads (while condition/body, case/if branches)."""
        comp = Computation(self.names.fresh(base), location=_pos(region.tok))
        n = len(arg_shapes)
        param = self.emit(
            comp,
            Opcode.PARAMETER,
            Shape.tuple_of(list(arg_shapes)),
            [],
            name="Arg_0",
            parameter_number=0,
            where=region.tok,
        )
        captures.params.append((param, list(arg_shapes)))

        def capture(outer: Instruction) -> Instruction:
            index = n + captures.index(outer)
            return self.emit(comp, Opcode.GET_TUPLE_ELEMENT, outer.shape, [param], {"index": index})

        scope = Scope(self, comp, parent, capture)
        self.block_args(region, arg_shapes)
        for i, (arg, shape) in enumerate(zip(region.args, arg_shapes, strict=True)):
            gte = self.emit(comp, Opcode.GET_TUPLE_ELEMENT, shape, [param], {"index": i})
            scope.define(arg.name, [gte], arg.tok)
        values = self.body(region, scope)
        if passthrough:
            values = values + [scope.imported.get(id(o)) or capture(o) for o in captures.outer]
            as_tuple = True
        comp.root = self.root(comp, values, as_tuple, region.tok)
        self.module.add_computation(comp)
        return comp

    def block_args(self, region: RegionAst, shapes: Sequence[Shape]) -> None:
        if len(region.args) != len(shapes):
            raise error_at(
                region.args[0].tok if region.args else region.tok,
                f"this region takes {len(shapes)} block arguments, but "
                f"{len(region.args)} are declared",
            )
        for arg, shape in zip(region.args, shapes, strict=True):
            self.check_type(arg.type, shape, arg.tok)

    # -- ops ------------------------------------------------------------------------------------
    def lower_op(self, op: OpAst, scope: Scope) -> None:
        conv = CONVERTERS.get(op.name)
        if conv is None:
            raise error_at(op.tok, f"unsupported op '{op.name}'", _suggest(op.name))
        operands = [scope.lookup(r) for r in op.operands]
        if op.operand_types is not None and len(op.operand_types) == len(operands):
            for t, ins in zip(op.operand_types, operands, strict=True):
                self.check_type(t, ins.shape, op.tok)
        ctx = OpCtx(self, scope, op, operands)
        results = conv(ctx)
        self.decorate(ctx.emitted, op)
        self.define_results(op, scope, results)

    def define_results(self, op: OpAst, scope: Scope, results: list[Instruction]) -> None:
        declared = sum(r.count for r in op.results)
        if op.results and declared != len(results):
            raise error_at(
                op.results[0].tok,
                f"{op.name} has {len(results)} result"
                f"{'s' if len(results) != 1 else ''}, but the text names {declared}",
            )
        if op.result_types and len(op.result_types) == len(results):
            for t, ins in zip(op.result_types, results, strict=True):
                self.check_type(t, ins.shape, op.tok)
        i = 0
        for r in op.results:
            scope.define(r.name, results[i : i + r.count], r.tok)
            i += r.count

    def check_type(self, t: Any, shape: Shape, tok: Token | None) -> None:
        """The shape built for a value must match its written type (`?` matches any size)."""
        want = to_shape(t, tok)
        if not _matches(want, shape):
            raise error_at(
                tok, f"type mismatch: the text says {_show(want)}, but the value is {_show(shape)}"
            )

    # -- instructions -------------------------------------------------------------------------
    def emit(
        self,
        comp: Computation,
        opcode: Opcode,
        shape: Shape,
        operands: Sequence[Instruction] = (),
        attrs: dict[str, Any] | None = None,
        *,
        name: str | None = None,
        where: Token | None = None,
        **fields: Any,
    ) -> Instruction:
        """Create an instruction at the end of `comp` (shapes with `?` refined if asked)."""
        attrs = dict(attrs or {})
        if self.refine and shape.is_dynamic and opcode is not Opcode.PARAMETER:
            shape = self.refined(opcode, shape, operands, attrs, where)
        ins = Instruction(
            self.names.fresh(name or opcode.value), opcode, shape, attrs=attrs, **fields
        )
        ins.set_operands(operands)
        if where is not None and getattr(where, "line", None):
            ins.location = (where.line or 0, where.column or 0)
        comp.add_instruction(ins)
        fold(self.known, ins)
        return ins

    def refined(
        self,
        opcode: Opcode,
        declared: Shape,
        operands: Sequence[Instruction],
        attrs: dict[str, Any],
        where: Token | None,
    ) -> Shape:
        """Infer the `?` dimensions of a result from its operands' (static) shapes."""
        shape: Shape | None = None
        same_dims = opcode in ELEMENTWISE or opcode in (Opcode.CONVERT, Opcode.BITCAST_CONVERT)
        if same_dims and declared.is_array:
            same = [o for o in operands if o.shape.is_array and o.shape.rank == declared.rank]
            if same:
                shape = Shape.array(declared.element_type, same[0].shape.dimensions)
        if shape is None:
            ctx = ShapeContext(opcode.value, [o.shape for o in operands], attrs, None)
            try:
                shape = OPS[opcode].shape_rule(ctx)
            except (ShapeError, KeyError, TypeError, ValueError) as exc:
                raise error_at(
                    where,
                    f"cannot infer the dynamic dimensions of {_show(declared)} "
                    f"for {opcode.value}: {exc}",
                ) from None
        if not _matches(declared, shape) or shape.is_dynamic:
            raise error_at(
                where,
                f"the result of {opcode.value} is {_show(shape)}, which does "
                f"not refine {_show(declared)}",
            )
        return shape.with_default_layouts()

    def copy_known(self, src: Instruction, dst: Instruction) -> None:
        if id(src) in self.known:
            self.known[id(dst)] = self.known[id(src)]

    def decorate(self, emitted: list[Instruction], op: OpAst) -> None:
        """Fields from an op's discardable attributes (on its main instruction: the last one
        that is not a get-tuple-element) and its location (on all of them)."""
        if op.loc is not None:
            meta = location_metadata(op.loc, self.file.aliases)
            if meta is not None:
                for ins in emitted:
                    ins.metadata = meta
        main = next(
            (i for i in reversed(emitted) if i.opcode is not Opcode.GET_TUPLE_ELEMENT), None
        )
        if main is None:
            return
        fe = op.attrs.get("mhlo.frontend_attributes")
        if isinstance(fe, DictAttr):
            main.frontend_attributes = {
                **main.frontend_attributes,
                **{
                    k: v.value if isinstance(v, StringAttr) else attr_text(v) for k, v in fe.entries
                },
            }
        sharding = op.attrs.get("mhlo.sharding")
        if isinstance(sharding, StringAttr) and sharding.value.strip().startswith("{"):
            main.sharding = Sharding(sharding.value.strip()[1:-1].strip())


# -- locations ------------------------------------------------------------------------------


def location_metadata(loc: LocAttr, aliases: dict[str, Any]) -> Metadata | None:
    """op_name / source_file / source_line of a location, following `#loc` aliases."""
    return _loc_meta(loc.items, aliases, 0)


def _loc_meta(items: tuple[Any, ...], aliases: dict[str, Any], depth: int) -> Metadata | None:
    if depth > 32 or not items or not isinstance(items[0], Token):
        return None
    first = items[0]
    if first.type == "HASH_ID":
        target = aliases.get(str(first))
        return _loc_meta(target.items, aliases, depth + 1) if isinstance(target, LocAttr) else None
    if first.type == "STRING":
        text = str(first)[1:-1]
        if (
            len(items) >= 3
            and items[1] == ":"
            and isinstance(items[2], Token)
            and items[2].type == "INT"
        ):
            return Metadata(source_file=text, source_line=int(items[2]))
        child = None
        if len(items) > 1 and isinstance(items[1], Group):
            child = _loc_meta(items[1].items, aliases, depth + 1)
        return Metadata(
            op_name=text,
            source_file=child.source_file if child else "",
            source_line=child.source_line if child else 0,
        )
    group = next((x for x in items[1:] if isinstance(x, Group) and x.open in "(["), None)
    if group is None or str(first) not in ("callsite", "fused"):
        return None
    head: list[Any] = []
    for x in group.items:
        if isinstance(x, Token) and (x == "," or (str(first) == "callsite" and x == "at")):
            break
        head.append(x)
    return _loc_meta(tuple(head), aliases, depth + 1)


# -- helpers --------------------------------------------------------------------------------


def _arg_name(loc: LocAttr | None, i: int) -> str:
    """A parameter's base name: its `loc("name")` when it has one (as XLA does), else Arg_i."""
    items = loc.items if loc is not None else ()
    if len(items) == 1 and isinstance(items[0], Token) and items[0].type == "STRING":
        name = str(items[0])[1:-1]
        if name and ":" not in name and "/" not in name:
            return name
    return f"Arg_{i}"


def _matches(want: Shape, got: Shape) -> bool:
    """`got` has the written type `want`, where `?` in `want` (or in `got`) matches any size."""
    if want.is_tuple or got.is_tuple:
        return (
            want.is_tuple
            and got.is_tuple
            and len(want.tuple_shapes) == len(got.tuple_shapes)
            and all(
                _matches(a, b) for a, b in zip(want.tuple_shapes, got.tuple_shapes, strict=True)
            )
        )
    if want.element_type is not got.element_type or want.rank != got.rank:
        return False
    return all(
        a == b or UNBOUNDED in (a, b) or (want.dynamic and want.dynamic[i])
        for i, (a, b) in enumerate(zip(want.dimensions, got.dimensions, strict=True))
    )


def _show(shape: Shape) -> str:
    return shape_to_text(shape.without_layouts())


def _pos(tok: Token | None) -> tuple[int, int]:
    if tok is None or not getattr(tok, "line", None):
        return (0, 0)
    return (tok.line or 0, tok.column or 0)


def _known_key(known: list[np.ndarray | None] | None) -> Any:
    if known is None:
        return None
    return tuple(None if k is None else (k.dtype.str, k.shape, k.tobytes()) for k in known)


def _suggest(name: str) -> tuple[str, ...]:
    import difflib

    return tuple(difflib.get_close_matches(name, list(CONVERTERS), n=4, cutoff=0.6))


def constant(
    lw: ModuleLowering, comp: Computation, value: Any, shape: Shape, where: Token | None = None
) -> Instruction:
    """A constant instruction holding `value` (numpy-convertible) with the given shape."""
    arr = np.asarray(value).astype(shape.element_type.numpy_dtype).reshape(shape.dimensions)
    lit = Literal.from_array(arr, shape.element_type)
    ins = lw.emit(
        comp,
        Opcode.CONSTANT,
        Shape.array(shape.element_type, shape.dimensions),
        [],
        literal=lit,
        where=where,
    )
    return ins


def shardy_sharding(module: Module, text: str, rank: int, where: tuple[int, int]) -> str:
    """A Shardy `#sdy.sharding<@mesh, [...]>` as HloSharding text, by the module's meshes."""
    from hlotool.spmd.shardy import parse_meshes, parse_sharding_per_value

    meshes = parse_meshes(module.config.frontend_attributes.get("xla.sdy.meshes", ""))
    try:
        (placement,) = parse_sharding_per_value(text, meshes, [rank])
    except HloError as exc:
        exc.line, exc.column = where
        raise
    return placement.text()
