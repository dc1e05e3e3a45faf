"""The op table, part 2: control flow (calls, composites, while, case, if), custom calls,
collectives and host communication, and the Shardy ops (identity on one device)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from hlotool.diagnostics import error_at
from hlotool.stablehlo.ast import DenseAttr, DictAttr, ListAttr, StringAttr
from hlotool.stablehlo.attrs import (
    attr_text,
    dense_literal,
    field_int,
    field_ints,
    get_bool,
    get_fields,
    get_int,
    get_ints,
    get_string,
    get_symbol,
    to_shape,
)
from hlotool.stablehlo.lowering import CONVERTERS, Captures, OpCtx
from hlotool.stablehlo.ops import (
    O,
    Results,
    op,
    reducer,
    region_ast,
    results_of,
    single_or_tuple,
)
from hlotool.ir.attributes import OperandAlias, ReplicaGroups
from hlotool.ir.instruction import Instruction
from hlotool.ir.types import Layout, PrimitiveType, Shape

# -- control flow ---------------------------------------------------------------------------


@op("func.call")
def _call(ctx: OpCtx) -> Results:
    name = ctx.need("callee", get_symbol)
    return call_function(ctx, name, ctx.operands)


def call_function(
    ctx: OpCtx, name: str, operands: Sequence[Instruction], extra: dict[str, Any] | None = None
) -> Results:
    """A `call` of function @name (specialized to the operands when refining shapes)."""
    where = ctx.op.attr_tok("callee") if ctx.has("callee") else ctx.tok
    func = ctx.lw.callee(name, where)
    if name in ctx.lw.active:
        raise error_at(where, f"@{name} is called recursively (HLO has no recursion)")
    if len(operands) != len(func.args):
        raise ctx.error(f"@{name} takes {len(func.args)} arguments, but {len(operands)} are given")
    if ctx.lw.refine:
        known = [ctx.known(o) for o in operands]
        comp = ctx.lw.function(func, [o.shape for o in operands], known)
    else:
        comp = ctx.lw.function(func, None, None)
    assert comp.root is not None
    attrs = {"to_apply": comp, **(extra or {})}
    ins = ctx.emit(O.CALL, comp.root.shape, operands, attrs)
    results = results_of(ctx, ins) if len(func.results) != 1 else [ins]
    returned = list(comp.root.operands) if len(func.results) != 1 else [comp.root]
    for value, result in zip(returned, results, strict=False):
        ctx.lw.copy_known(value, result)
    return results


@op("stablehlo.composite")
def _composite(ctx: OpCtx) -> Results:
    name = ctx.need("decomposition", get_symbol)
    results = call_function(ctx, name, ctx.operands, {"is_composite": True})
    call = results[0] if results[0].opcode is O.CALL else results[0].operand(0)
    attrs = ctx.op.attrs.get("composite_attributes")
    call.frontend_attributes = {
        **call.frontend_attributes,
        "composite.name": ctx.need("name", get_string),
        "composite.attributes": attr_text(attrs) if attrs is not None else "{}",
        "composite.version": str(ctx.get("version", get_int, 0)),
    }
    return results


@op("stablehlo.while")
def _while(ctx: OpCtx) -> Results:
    inits = list(ctx.operands)
    shapes = [o.shape for o in inits]
    captures = Captures()
    cond_region, body_region = region_ast(ctx, 0), region_ast(ctx, 1)
    cond = ctx.lw.packed_region(
        cond_region, ctx.scope, "while_cond", shapes, captures, as_tuple=False
    )
    body = ctx.lw.packed_region(
        body_region, ctx.scope, "while_body", shapes, captures, as_tuple=True, passthrough=True
    )
    captures.finish()
    operands = inits + captures.outer
    state = ctx.emit(O.TUPLE, Shape.tuple_of([o.shape for o in operands]), operands)
    loop = ctx.emit(O.WHILE, state.shape, [state], {"condition": cond, "body": body})
    return ctx.gtes(loop)[: len(inits)]


def _branches(ctx: OpCtx, base: str) -> tuple[list[Any], list[Instruction]]:
    """Lower each region as a branch computation taking a tuple of the outer values it
    reads; returns the computations and the tuple operands."""
    n_results = len(ctx.op.result_types)
    comps, operands = [], []
    for region in ctx.op.regions:
        captures = Captures()
        comp = ctx.lw.packed_region(region, ctx.scope, base, [], captures, as_tuple=n_results != 1)
        captures.finish()
        comps.append(comp)
        operands.append(
            ctx.emit(O.TUPLE, Shape.tuple_of([o.shape for o in captures.outer]), captures.outer)
        )
    roots = {str(c.root.shape) for c in comps}
    if len(roots) > 1:
        raise ctx.error(f"branches return different shapes: {', '.join(sorted(roots))}")
    return comps, operands


@op("stablehlo.case")
def _case(ctx: OpCtx) -> Results:
    ctx.arity(1)
    if not ctx.op.regions:
        raise ctx.error("expects at least one branch")
    comps, operands = _branches(ctx, "branch")
    shape = comps[0].root.shape
    ins = ctx.emit(
        O.CONDITIONAL, shape, [ctx.operands[0], *operands], {"branch_computations": tuple(comps)}
    )
    return results_of(ctx, ins) if len(ctx.op.result_types) != 1 else [ins]


@op("stablehlo.if")
def _if(ctx: OpCtx) -> Results:
    ctx.arity(1)
    if len(ctx.op.regions) != 2:
        raise ctx.error("expects a true and a false region")
    comps, operands = _branches(ctx, "branch")
    shape = comps[0].root.shape
    ins = ctx.emit(
        O.CONDITIONAL,
        shape,
        [ctx.operands[0], *operands],
        {"true_computation": comps[0], "false_computation": comps[1]},
    )
    return results_of(ctx, ins) if len(ctx.op.result_types) != 1 else [ins]


# -- custom calls ---------------------------------------------------------------------------

_API_VERSIONS = {
    1: "API_VERSION_ORIGINAL",
    2: "API_VERSION_STATUS_RETURNING",
    3: "API_VERSION_STATUS_RETURNING_UNIFIED",
    4: "API_VERSION_TYPED_FFI",
}


def _layout_shape(shape: Shape, v: Any, key: str, ctx: OpCtx) -> Shape:
    m2m = get_ints(v, key, ctx.op.attr_tok(key))
    if sorted(m2m) != list(range(shape.rank)):
        raise error_at(
            ctx.op.attr_tok(key),
            f"{key}: layout {list(m2m)} is not a permutation of 0..{shape.rank - 1}",
        )
    return shape.with_layout(Layout(tuple(m2m)))


def _custom_call_result(ctx: OpCtx) -> Shape:
    shapes = ctx.result_shapes()
    layouts = ctx.op.attrs.get("result_layouts")
    if isinstance(layouts, ListAttr):
        if len(layouts.items) != len(shapes):
            raise error_at(
                ctx.op.attr_tok("result_layouts"), "result_layouts needs one layout per result"
            )
        shapes = [
            _layout_shape(s, v, "result_layouts", ctx)
            for s, v in zip(shapes, layouts.items, strict=True)
        ]
    return single_or_tuple(shapes) if len(shapes) != 0 else Shape.tuple_of([])


def _aliases(ctx: OpCtx) -> tuple[OperandAlias, ...]:
    value = ctx.op.attrs.get("output_operand_aliases")
    if not isinstance(value, ListAttr):
        return ()
    out = []
    for item in value.items:
        f = get_fields(item, "output_operand_aliases", ctx.op.attr_tok("output_operand_aliases"))
        tok = ctx.op.attr_tok("output_operand_aliases")
        out.append(
            OperandAlias(
                field_ints(f, "output_tuple_indices", tok),
                field_int(f, "operand_index", 0, tok),
                field_ints(f, "operand_tuple_indices", tok),
            )
        )
    return tuple(out)


@op("stablehlo.custom_call")
def _custom_call(ctx: OpCtx) -> Results:
    target = ctx.need("call_target_name", get_string)
    special = SPECIAL_TARGETS.get(target)
    if special is not None:
        handled = special(ctx)
        if handled is not None:
            return handled
    attrs: dict[str, Any] = {"custom_call_target": target}
    if ctx.get("has_side_effect", get_bool, False):
        attrs["custom_call_has_side_effect"] = True
    version = ctx.get("api_version", get_int, None)
    backend = ctx.op.attrs.get("backend_config")
    mhlo_backend = ctx.op.attrs.get("mhlo.backend_config")
    config = ""
    if isinstance(backend, StringAttr):
        config = backend.value
    elif isinstance(backend, DictAttr):
        config = attr_text(backend)
    if isinstance(mhlo_backend, DictAttr):
        config = attr_text(mhlo_backend)
        version = 4 if version in (None, 1) else version
    if version is not None:
        if version not in _API_VERSIONS:
            raise error_at(
                ctx.op.attr_tok("api_version"), f"unknown custom_call api_version {version}"
            )
        attrs["api_version"] = _API_VERSIONS[version]
    layouts = ctx.op.attrs.get("operand_layouts")
    if isinstance(layouts, ListAttr):
        if len(layouts.items) != len(ctx.operands):
            raise error_at(
                ctx.op.attr_tok("operand_layouts"), "operand_layouts needs one layout per operand"
            )
        attrs["operand_layout_constraints"] = tuple(
            _layout_shape(o.shape, v, "operand_layouts", ctx)
            for o, v in zip(ctx.operands, layouts.items, strict=True)
        )
    aliases = _aliases(ctx)
    if aliases:
        attrs["output_to_operand_aliasing"] = aliases
    called = ctx.op.attrs.get("called_computations")
    if isinstance(called, ListAttr) and called.items:
        attrs["called_computations"] = tuple(
            ctx.lw.function(
                ctx.lw.callee(get_symbol(c, "called_computations", ctx.tok), ctx.tok), None, None
            )
            for c in called.items
        )
    shape = _custom_call_result(ctx)
    ins = ctx.emit(O.CUSTOM_CALL, shape, ctx.operands, attrs, backend_config=config)
    n = len(ctx.op.result_types)
    return [ins] if n == 1 else (ctx.gtes(ins) if n else [])


def _shape_assertion(ctx: OpCtx) -> Results | None:
    """`@shape_assertion(%pred, %dims...)`: checked now when the predicate is known."""
    if not ctx.operands:
        raise ctx.error("shape_assertion needs a predicate operand")
    pred = ctx.known(ctx.operands[0])
    if pred is None:
        return None
    if not bool(np.all(pred)):
        message = ctx.get("error_message", get_string, "shape assertion failed")
        values = [ctx.known(o) for o in ctx.operands[1:]]
        for i, v in enumerate(values):
            message = message.replace("{" + str(i) + "}", str(v.item()) if v is not None else "?")
        raise ctx.error(message)
    return []


def _identity_call(ctx: OpCtx) -> Results | None:
    """`@Sharding` and friends on one device: the operand itself."""
    if len(ctx.operands) == 1 and ctx.operands[0].shape.compatible(ctx.result_shape()):
        return [ctx.operands[0]]
    return None


SPECIAL_TARGETS: dict[str, Callable[[OpCtx], Results | None]] = {
    "shape_assertion": _shape_assertion,
    "Sharding": _identity_call,
    "SPMDFullToShardShape": _identity_call,
    "SPMDShardToFullShape": _identity_call,
}


# -- collectives and communication ----------------------------------------------------------


def _collective_attrs(ctx: OpCtx) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    groups = ctx.op.attrs.get("replica_groups")
    if isinstance(groups, DenseAttr):
        lit = dense_literal(groups)
        arr = lit.array.reshape(lit.array.shape[0] if lit.array.ndim else 1, -1)  # type: ignore[union-attr]
        attrs["replica_groups"] = ReplicaGroups(
            tuple(tuple(int(x) for x in row if x >= 0) for row in arr)
        )
    if ctx.has("channel_handle"):
        f = ctx.need("channel_handle", get_fields)
        handle = field_int(f, "handle", 0, ctx.op.attr_tok("channel_handle"))
        if handle > 0:
            attrs["channel_id"] = handle
    if ctx.get("use_global_device_ids", get_bool, False):
        attrs["use_global_device_ids"] = True
    return attrs


@op("stablehlo.all_reduce")
def _all_reduce(ctx: OpCtx) -> Results:
    attrs = {**_collective_attrs(ctx), "to_apply": reducer(ctx, 0, "all_reduce_body", 1)}
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.ALL_REDUCE, shape, ctx.operands, attrs))


@op("stablehlo.all_gather")
def _all_gather(ctx: OpCtx) -> Results:
    attrs = {**_collective_attrs(ctx), "dimensions": (ctx.need("all_gather_dim", get_int),)}
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.ALL_GATHER, shape, ctx.operands, attrs))


@op("stablehlo.reduce_scatter")
def _reduce_scatter(ctx: OpCtx) -> Results:
    attrs = {
        **_collective_attrs(ctx),
        "dimensions": (ctx.need("scatter_dimension", get_int),),
        "to_apply": reducer(ctx, 0, "reduce_scatter_body", 1),
    }
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.REDUCE_SCATTER, shape, ctx.operands, attrs))


@op("stablehlo.all_to_all")
def _all_to_all(ctx: OpCtx) -> Results:
    split = ctx.need("split_dimension", get_int)
    concat = ctx.need("concat_dimension", get_int)
    attrs = {**_collective_attrs(ctx), "dimensions": (split,)}
    if concat != split:
        return _all_to_all_moving(ctx, attrs, split, concat)
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.ALL_TO_ALL, shape, ctx.operands, attrs))


def _all_to_all_moving(ctx: OpCtx, attrs: dict[str, Any], split: int,
                       concat: int) -> Results:
    """Split along one dim, concatenate along another, as XLA lowers it: each operand's
    split dim cut into [count, rest] and its count moved to the front, one all-to-all
    over that dim, then the received chunks moved before `concat` and merged into it."""
    count = ctx.need("split_count", get_int)
    moved_operands, back_shapes = [], []
    for x in ctx.operands:
        dims, t = list(x.shape.dimensions), x.shape.element_type
        if count <= 0 or dims[split] % count:
            raise ctx.error(f"split_count {count} does not divide dimension {split} "
                            f"({dims[split]})")
        cut = dims[:split] + [count, dims[split] // count] + dims[split + 1:]
        front = [split] + [d for d in range(len(cut)) if d != split]
        y = ctx.emit(O.RESHAPE, Shape.array(t, tuple(cut)), [x])
        moved_operands.append(ctx.emit(O.TRANSPOSE, Shape.array(t, tuple(cut[d] for d in front)),
                                       [y], {"dimensions": tuple(front)}))
        back_shapes.append(moved_operands[-1].shape)
    shape = single_or_tuple(back_shapes)
    exchanged = ctx.emit(O.ALL_TO_ALL, shape, moved_operands, {**attrs, "dimensions": (0,)})
    parts = [exchanged] if len(moved_operands) == 1 else ctx.gtes(exchanged)
    out = []
    for y, want in zip(parts, ctx.result_shapes(), strict=True):
        rank = y.shape.rank - 1
        back = list(range(1, concat + 1)) + [0] + list(range(concat + 1, rank + 1))
        dims = y.shape.dimensions
        y = ctx.emit(O.TRANSPOSE, Shape.array(y.shape.element_type, tuple(dims[d] for d in back)),
                     [y], {"dimensions": tuple(back)})
        out.append(ctx.emit(O.RESHAPE, want, [y]))
    return out


def _pairs(ctx: OpCtx, key: str) -> tuple[tuple[int, ...], ...]:
    value = ctx.attr(key)
    if not isinstance(value, DenseAttr):
        raise error_at(ctx.op.attr_tok(key), f"{key} should be a dense Nx2 tensor")
    arr = dense_literal(value).array
    return tuple(tuple(int(x) for x in row) for row in np.asarray(arr).reshape(-1, 2))


@op("stablehlo.collective_permute")
def _collective_permute(ctx: OpCtx) -> Results:
    attrs: dict[str, Any] = {"source_target_pairs": _pairs(ctx, "source_target_pairs")}
    channel = _collective_attrs(ctx).get("channel_id")
    if channel is not None:
        attrs["channel_id"] = channel
    return [ctx.emit(O.COLLECTIVE_PERMUTE, ctx.result_shape(), ctx.operands, attrs)]


@op("stablehlo.collective_broadcast")
def _collective_broadcast(ctx: OpCtx) -> Results:
    attrs = {k: v for k, v in _collective_attrs(ctx).items() if k != "use_global_device_ids"}
    shape = single_or_tuple(ctx.result_shapes())
    return results_of(ctx, ctx.emit(O.COLLECTIVE_BROADCAST, shape, ctx.operands, attrs))


def _channel(ctx: OpCtx) -> dict[str, Any]:
    f = ctx.need("channel_handle", get_fields)
    attrs: dict[str, Any] = {"channel_id": field_int(f, "handle", 0, ctx.op.attr_tok(
        "channel_handle"))}
    if ctx.get("is_host_transfer", get_bool, False):
        attrs["is_host_transfer"] = True
    return attrs


@op("stablehlo.send")
def _send(ctx: OpCtx) -> Results:
    """send(data..., token) -> token: XLA's send (data as a tuple when several) and its
    send-done."""
    *data, token = ctx.operands
    value = data[0] if len(data) == 1 else ctx.emit(O.TUPLE, Shape.tuple_of(
        [d.shape for d in data]), data)
    attrs = _channel(ctx)
    shape = Shape.tuple_of([value.shape, Shape.scalar(PrimitiveType.U32), Shape.token()])
    sent = ctx.emit(O.SEND, shape, [value, token], attrs)
    return [ctx.emit(O.SEND_DONE, Shape.token(), [sent], attrs)]


@op("stablehlo.recv")
def _recv(ctx: OpCtx) -> Results:
    """recv(token) -> (data..., token): XLA's recv and recv-done."""
    *shapes, _ = ctx.result_shapes()
    data = shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)
    attrs = _channel(ctx)
    got = ctx.emit(O.RECV, Shape.tuple_of([data, Shape.scalar(PrimitiveType.U32),
                                           Shape.token()]), ctx.operands, attrs)
    done = ctx.emit(O.RECV_DONE, Shape.tuple_of([data, Shape.token()]), [got], attrs)
    value, token = ctx.gtes(done)
    return [value, token] if len(shapes) == 1 else [*ctx.gtes(value), token]


@op("stablehlo.infeed")
def _infeed(ctx: OpCtx) -> Results:
    ctx.arity(1)
    shapes = ctx.result_shapes()
    data = Shape.tuple_of(shapes[:-1])
    ins = ctx.emit(
        O.INFEED,
        Shape.tuple_of([data, Shape.token()]),
        ctx.operands,
        {"infeed_config": ctx.get("infeed_config", get_string, "")},
    )
    values, token = ctx.gtes(ins)
    return [*ctx.gtes(values), token]


@op("stablehlo.outfeed")
def _outfeed(ctx: OpCtx) -> Results:
    *values, token = ctx.operands
    data = ctx.emit(O.TUPLE, Shape.tuple_of([v.shape for v in values]), values)
    attrs = {
        "outfeed_shape": data.shape,
        "outfeed_config": ctx.get("outfeed_config", get_string, ""),
    }
    return [ctx.emit(O.OUTFEED, Shape.token(), [data, token], attrs)]


# -- sharding and other dialects ------------------------------------------------------------


@op("sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier", "sdy.sharding_group")
def _identity(ctx: OpCtx) -> Results:
    return list(ctx.operands)


@op("sdy.manual_computation")
def _manual_computation(ctx: OpCtx) -> Results:
    """A shard_map: its body on each device's pieces. Over one device it is a call; over
    several it lowers as JAX's HLO export writes it: a GlobalToLocalShape custom call
    cutting the operands by `in_shardings`, a call of the body, and a LocalToGlobalShape
    custom call placing its results by `out_shardings` (the spmd partitioner reads them)."""
    region = region_ast(ctx, 0)
    shapes = [o.shape for o in ctx.operands]
    local = [to_shape(a.type, a.tok) for a in region.args]
    several = len(ctx.op.result_types) != 1
    comp = ctx.lw.region(region, ctx.scope, "manual_computation", local, as_tuple=several)
    assert comp.root is not None
    if [str(s) for s in local] == [str(s) for s in shapes]:
        ins = ctx.emit(O.CALL, comp.root.shape, ctx.operands, {"to_apply": comp})
        return ctx.gtes(ins) if several else [ins]
    axes = f"#sdy<manual_axes{{{_group_body(ctx, 'manual_axes')}}}>"
    cut = ctx.emit(O.CUSTOM_CALL, Shape.tuple_of(local), ctx.operands, _shard_map_edge(
        "xla.sdy.GlobalToLocalShape"), frontend_attributes={
            "xla.sdy.in_shardings": _per_value(ctx, "in_shardings"), "xla.sdy.manual_axes": axes})
    body = ctx.emit(O.CALL, comp.root.shape, ctx.gtes(cut), {"to_apply": comp})
    parts = ctx.gtes(body) if several else [body]
    placed = ctx.emit(O.CUSTOM_CALL, Shape.tuple_of(ctx.result_shapes()), parts, _shard_map_edge(
        "xla.sdy.LocalToGlobalShape"), frontend_attributes={
            "xla.sdy.out_shardings": _per_value(ctx, "out_shardings"), "xla.sdy.manual_axes": axes})
    return ctx.gtes(placed)


def _shard_map_edge(target: str) -> dict[str, Any]:
    return {"custom_call_target": target, "custom_call_has_side_effect": True}


def _group_body(ctx: OpCtx, key: str) -> str:
    """The text inside a `key=[...]` (or `{...}`) of a manual computation."""
    value = ctx.op.attrs.get(key)
    if value is None:
        raise ctx.error(f"sdy.manual_computation needs {key}")
    return value.text()[1:-1].strip()


def _per_value(ctx: OpCtx, key: str) -> str:
    return f"#sdy.sharding_per_value<[{_group_body(ctx, key)}]>"


def _unsupported(reason: str) -> Callable[[OpCtx], Results]:
    def convert(ctx: OpCtx) -> Results:
        raise ctx.error(reason)

    return convert


for _name, _reason in {
    "stablehlo.async_start": "async ops are not supported",
    "stablehlo.async_done": "async ops are not supported",
    "stablehlo.cross-replica-sum": "cross-replica-sum is not supported",
    "sdy.mesh": "sdy.mesh is only valid at module level",
}.items():
    CONVERTERS[_name] = _unsupported(_reason)
