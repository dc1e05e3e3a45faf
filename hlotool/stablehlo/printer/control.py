"""The op table, part 2: control flow (calls, fusions, while, case/if), custom calls,
collectives and host transfers.

While and case/if bodies are printed inline as regions; called computations become private
functions (`ModulePrinter.function`). Custom calls keep what XLA needs to run them:
typed-FFI configs as `mhlo.backend_config` dictionaries (as JAX writes them), layouts as
`operand_layouts`/`result_layouts`, and aliasing as `output_operand_aliases`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.attributes import ReplicaGroups
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Layout, Shape
from hlotool.stablehlo.printer.asm import Newline, Part, Value
from hlotool.stablehlo.printer.block import (
    Block,
    Entry,
    Ref,
    TupleRef,
    commas,
    handles,
    result_shapes,
)
from hlotool.stablehlo.printer.ops import functional, generic, key_of, pretty, region
from hlotool.stablehlo.printer.text import (
    dense_i64,
    function_type,
    ints,
    quote,
    value_type,
)

O = Opcode

# -- control flow ---------------------------------------------------------------------------


def _call_to(b: Block, ins: Instruction, comp: Computation, extra: Sequence[str] = ()) -> Ref:
    symbol = b.printer.function(comp)
    values = b.operands(ins)
    head: list[Part] = [f"{b.call_op} ", symbol, "(", *commas(values), ")"]
    return pretty(b, ins, head, functional(values, ins), extra)


@handles(O.CALL)
def _call(b: Block, ins: Instruction) -> Ref:
    comp = ins.attrs["to_apply"]
    fe = ins.frontend_attributes
    if ins.attrs.get("is_composite") and "composite.name" in fe:
        return _composite(b, ins, comp)
    return _call_to(b, ins, comp)


def _composite(b: Block, ins: Instruction, comp: Computation) -> Ref:
    fe = ins.frontend_attributes
    symbol = b.printer.function(comp)
    values = b.operands(ins)
    attrs: list[Entry] = [f"composite_attributes = {fe.get('composite.attributes') or '{}'}",
                          ["decomposition = ", symbol]]  # fmt: skip
    version = int(fe.get("composite.version", "0") or 0)
    if version:
        attrs.append(f"version = {version} : i32")
    rest = {k: v for k, v in fe.items() if not k.startswith("composite.")}
    saved, ins.frontend_attributes = ins.frontend_attributes, rest
    try:
        head: list[Part] = [f"stablehlo.composite {quote(fe['composite.name'])} ", *commas(values)]
        return pretty(b, ins, head, functional(values, ins), attrs)
    finally:
        ins.frontend_attributes = saved


@handles(O.FUSION)
def _fusion(b: Block, ins: Instruction) -> Ref:
    return _call_to(b, ins, ins.attrs["calls"])


@handles(O.ASYNC_START)
def _async_start(b: Block, ins: Instruction) -> Ref:
    """The wrapped computation runs as a call; the start is (operands, result)."""
    comp = ins.attrs["calls"]
    symbol = b.printer.function(comp)
    values = b.operands(ins)
    assert comp.root is not None
    shapes = result_shapes(comp.root.shape)
    sig = function_type([v.type for v in values], [value_type(s) for s in shapes])
    refs = b.emit([f"{b.call_op} ", symbol, "(", *commas(values), ") : " + sig], shapes)
    result: Ref = TupleRef(list(refs), comp.root.shape) if comp.root.shape.is_tuple else refs[0]
    operands = TupleRef([b.ref(o) for o in ins.operands], ins.shape.tuple_shapes[0])
    return TupleRef([operands, result], ins.shape)


@handles(O.WHILE)
def _while(b: Block, ins: Instruction) -> Ref:
    """The loop state is flattened to its leaves: StableHLO has no tuple operands here."""
    inits = [b.value(r) for r in b.leaves(b.ref(ins.operand(0)))]
    regions = []
    for comp in (ins.attrs["condition"], ins.attrs["body"]):
        child = b.child(comp, header=False, flat=True)
        child.bind_leaves(comp.parameters[:1], "iterArg")
        regions.append(child.convert())
    head: list[Part] = ["stablehlo.while("]
    for i, (arg, init) in enumerate(zip(regions[0].args, inits, strict=True)):
        head += [", " if i else "", arg, " = ", init]
    types = ", ".join(v.type for v in inits)
    parts: list[Part] = [*head, ") : " + types, *b.attr_dict(ins, prefix=" attributes "),
                         Newline(), "cond ", regions[0], " do ", regions[1]]  # fmt: skip
    return b.emit_leaves(ins, parts)


@handles(O.CONDITIONAL)
def _conditional(b: Block, ins: Instruction) -> Ref:
    """`stablehlo.if` (pred) or `stablehlo.case` (index), with one result per leaf; each
    branch reads the value its HLO parameter stands for (the matching operand) from this
    block."""
    a = ins.attrs
    if "branch_computations" in a:
        name, comps = "stablehlo.case", list(a["branch_computations"])
    else:
        name, comps = "stablehlo.if", [a["true_computation"], a["false_computation"]]
    index = b.operand(ins, 0)
    regions: list[Part] = []
    for i, comp in enumerate(comps):
        child = b.child(comp, header=False, flat=True)
        for param in comp.parameters:
            child.refs[id(param)] = b.ref(ins.operand(i + 1))
        regions += [", " if i else "", child.convert()]
    results = [value_type(s) for s in ins.shape.leaves()]
    sig = function_type([index.type], results)
    parts: list[Part] = [f'"{name}"(', index, ") (", *regions, ")", *b.attr_dict(ins),
                         " : " + sig]  # fmt: skip
    return b.emit_leaves(ins, parts)


@handles(O.OPT_BARRIER)
def _opt_barrier(b: Block, ins: Instruction) -> Ref:
    state = b.ref(ins.operand(0))
    values = [b.value(r) for r in (b.flatten(state) if ins.shape.is_tuple else [state])]
    head: list[Part] = ["stablehlo.optimization_barrier"]
    head += [" ", *commas(values)] if values else ["()"]
    return pretty(b, ins, head, ", ".join(v.type for v in values))


# -- custom calls ---------------------------------------------------------------------------

_API_VERSIONS = {"API_VERSION_ORIGINAL": 1, "API_VERSION_STATUS_RETURNING": 2,
                 "API_VERSION_STATUS_RETURNING_UNIFIED": 3, "API_VERSION_TYPED_FFI": 4}  # fmt: skip
#: Targets the StableHLO front end gives dynamic-shape ops it cannot make static.
_DYNAMIC_OPS = frozenset({
    "stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_iota", "stablehlo.dynamic_reshape",
    "stablehlo.dynamic_pad", "stablehlo.real_dynamic_slice", "stablehlo.dynamic_gather",
    "stablehlo.dynamic_conv",
})  # fmt: skip


#: Sharding annotations: the operand itself on one device (as the front end reads them).
_IDENTITY_TARGETS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})


def _is_identity(ins: Instruction) -> bool:
    return ins.operand_count == 1 and ins.operand(0).shape.compatible(ins.shape)


@handles(O.CUSTOM_CALL)
def _custom_call(b: Block, ins: Instruction) -> Ref:
    target = ins.attrs["custom_call_target"]
    if target in _IDENTITY_TARGETS and _is_identity(ins):
        return b.ref(ins.operand(0))
    values = b.operands(ins)
    config = ins.backend_config
    if target in _DYNAMIC_OPS and (not config or config.startswith("{")):
        return _dynamic_op(b, ins, target, values)
    attrs: list[Entry] = [*_backend_config(ins)]
    if ins.attrs.get("custom_call_has_side_effect"):
        attrs.append("has_side_effect = true")
    called = [*([ins.attrs["to_apply"]] if "to_apply" in ins.attrs else []),
              *ins.attrs.get("called_computations", ())]  # fmt: skip
    if called:
        entry: list[Part] = ["called_computations = ["]
        for i, comp in enumerate(called):
            entry += [", " if i else "", b.printer.function(comp)]
        attrs.append([*entry, "]"])
    attrs += _layouts(ins)
    aliases = ins.attrs.get("output_to_operand_aliasing")
    if aliases:
        attrs.append("output_operand_aliases = [" + ", ".join(
            f"#stablehlo.output_operand_alias<output_tuple_indices = {ints(a.output_index)}, "
            f"operand_index = {a.operand_number}, operand_tuple_indices = "
            f"{ints(a.operand_index)}>" for a in aliases) + "]")  # fmt: skip
    head: list[Part] = [f"stablehlo.custom_call @{_symbol_text(target)}(", *commas(values), ")"]
    shapes = result_shapes(ins.shape)
    sig = function_type([v.type for v in values], [value_type(s) for s in shapes])
    return b.emit_for(ins, [*head, *b.attr_dict(ins, attrs), " : " + sig])


def _symbol_text(name: str) -> str:
    ok = name and (name[0].isalpha() or name[0] == "_")
    ok = ok and all(ch.isalnum() or ch in "_$." for ch in name)
    return name if ok else quote(name)


def _backend_config(ins: Instruction) -> list[str]:
    """Typed-FFI dictionaries go to `mhlo.backend_config` as JAX writes them; other
    configs are strings, with `api_version` when it is not the original one."""
    version = _API_VERSIONS[ins.attrs.get("api_version") or "API_VERSION_ORIGINAL"]
    config = ins.backend_config
    if version == 4 and (not config or config.startswith("{")):
        return ['backend_config = ""', f"mhlo.backend_config = {config or '{}'}"]
    out = [f"backend_config = {quote(config)}"] if config or version != 1 else []
    if version != 1:
        out.append(f"api_version = {version} : i32")
    return out


def _layouts(ins: Instruction) -> list[str]:
    constraints = ins.attrs.get("operand_layout_constraints")
    results = result_shapes(ins.shape)
    if constraints is None or any(not s.is_array for s in results):
        return []

    def layout(shape: Shape) -> str:
        m2m = (shape.layout or Layout.default_for_rank(shape.rank)).minor_to_major
        return _index_dense(m2m)

    return [f"operand_layouts = [{', '.join(layout(s) for s in constraints)}]",
            f"result_layouts = [{', '.join(layout(s) for s in results)}]"]  # fmt: skip


def _index_dense(values: Sequence[int]) -> str:
    n = len(values)
    if n == 0:
        return "dense<> : tensor<0xindex>"
    body = str(values[0]) if n == 1 else ints(values)
    return f"dense<{body}> : tensor<{n}xindex>"


def _dynamic_op(b: Block, ins: Instruction, name: str, values: list[Value]) -> Ref:
    """A dynamic-shape op the front end kept as a custom call, printed as that op."""
    parts: list[Part] = [f'"{name}"(', *commas(values), ")"]
    if ins.backend_config and ins.backend_config != "{}":
        parts.append(" " + ins.backend_config)
    parts.append(" : " + functional(values, ins))
    return b.emit_for(ins, parts)


# -- collectives and host transfers ---------------------------------------------------------


_IOTA_GROUPS = re.compile(r"\[(\d+),(\d+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?")


def _groups(rg: ReplicaGroups | None) -> list[list[int]]:
    """Explicit groups; iota groups `[G,S]<=[dims]T(perm)` are expanded."""
    if rg is None:
        return []
    if not rg.iota_text:
        return [list(g) for g in rg.groups]
    m = _IOTA_GROUPS.fullmatch(rg.iota_text.replace(" ", ""))
    if m is None:
        raise HloError(f"replica groups {rg.iota_text} have no StableHLO form")
    dims = [int(x) for x in m.group(3).split(",")]
    ids = np.arange(int(np.prod(dims))).reshape(dims)
    if m.group(4):
        ids = ids.transpose([int(x) for x in m.group(4).split(",")])
    return ids.reshape(int(m.group(1)), int(m.group(2))).tolist()


def _collective_props(ins: Instruction, *, global_ids: bool = True) -> list[str]:
    groups = _groups(ins.attrs.get("replica_groups"))
    width = max((len(g) for g in groups), default=0)
    padded = [g + [-1] * (width - len(g)) for g in groups]
    props = [f"replica_groups = {dense_i64(padded, width)}"]
    channel = ins.attrs.get("channel_id")
    if channel:
        props.append(f"channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>")
    if global_ids and ins.attrs.get("use_global_device_ids"):
        props.append("use_global_device_ids")
    return props


@handles(O.ALL_REDUCE, O.ALL_REDUCE_START)
def _all_reduce(b: Block, ins: Instruction) -> Ref:
    body = region(b, ins.attrs["to_apply"])
    return generic(b, ins, "stablehlo.all_reduce", b.operands(ins), _collective_props(ins), [body])


@handles(O.REDUCE_SCATTER)
def _reduce_scatter(b: Block, ins: Instruction) -> Ref:
    props = [*_collective_props(ins), f"scatter_dimension = {ins.attrs['dimensions'][0]} : i64"]
    body = region(b, ins.attrs["to_apply"])
    return generic(b, ins, "stablehlo.reduce_scatter", b.operands(ins), props, [body])


@handles(O.ALL_GATHER)
def _all_gather(b: Block, ins: Instruction) -> Ref:
    props = [*_collective_props(ins), f"all_gather_dim = {ins.attrs['dimensions'][0]} : i64"]
    return generic(b, ins, "stablehlo.all_gather", b.operands(ins), props)


@handles(O.ALL_GATHER_START)
def _all_gather_start(b: Block, ins: Instruction) -> Ref:
    """(operands, results): the gather happens at the start."""
    values = b.operands(ins)
    props = [*_collective_props(ins), f"all_gather_dim = {ins.attrs['dimensions'][0]} : i64"]
    shapes = result_shapes(ins.shape.tuple_shapes[1])
    parts: list[Part] = ['"stablehlo.all_gather"(', *commas(values), ")",
                         " <{" + ", ".join(sorted(props, key=key_of)) + "}>",
                         " : " + function_type([v.type for v in values],
                                               [value_type(s) for s in shapes])]  # fmt: skip
    refs = b.emit(parts, shapes)
    result: Ref = TupleRef(list(refs), ins.shape.tuple_shapes[1]) if len(shapes) > 1 else refs[0]
    operands = [b.ref(o) for o in ins.operands]
    first: Ref = operands[0]
    if len(operands) != 1:
        first = TupleRef(operands, ins.shape.tuple_shapes[0])
    return TupleRef([first, result], ins.shape)


@handles(O.ALL_TO_ALL)
def _all_to_all(b: Block, ins: Instruction) -> Ref:
    dims = ins.attrs.get("dimensions")
    if not dims:
        raise HloError(f"all-to-all {ins.name} without dimensions has no StableHLO form")
    groups = _groups(ins.attrs.get("replica_groups"))
    count = len(groups[0]) if groups else 1
    props = [*_collective_props(ins, global_ids=False), f"concat_dimension = {dims[0]} : i64",
             f"split_count = {count} : i64", f"split_dimension = {dims[0]} : i64"]  # fmt: skip
    return generic(b, ins, "stablehlo.all_to_all", b.operands(ins), props)


@handles(O.COLLECTIVE_BROADCAST)
def _collective_broadcast(b: Block, ins: Instruction) -> Ref:
    props = _collective_props(ins, global_ids=False)
    return generic(b, ins, "stablehlo.collective_broadcast", b.operands(ins), props)


def _permute_props(ins: Instruction) -> list[str]:
    pairs = [list(p) for p in ins.attrs["source_target_pairs"]]
    props = [f"source_target_pairs = {dense_i64(pairs, 2)}"]
    channel = ins.attrs.get("channel_id")
    if channel:
        props.append(f"channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 1>")
    return props


@handles(O.COLLECTIVE_PERMUTE)
def _collective_permute(b: Block, ins: Instruction) -> Ref:
    return generic(b, ins, "stablehlo.collective_permute", b.operands(ins), _permute_props(ins))


@handles(O.COLLECTIVE_PERMUTE_START)
def _collective_permute_start(b: Block, ins: Instruction) -> Ref:
    (x,) = b.operands(ins)
    shape = ins.shape.tuple_shapes[1]
    parts: list[Part] = ['"stablehlo.collective_permute"(', x, ")",
                         " <{" + ", ".join(sorted(_permute_props(ins), key=key_of)) + "}>",
                         " : " + function_type([x.type], [value_type(shape)])]  # fmt: skip
    (result,) = b.emit(parts, [shape])
    return TupleRef([b.ref(ins.operand(0)), result], ins.shape)


@handles(O.INFEED)
def _infeed(b: Block, ins: Instruction) -> Ref:
    (token,) = b.operands(ins)
    data = ins.shape.tuple_shapes[0]
    data_shapes = result_shapes(data)
    shapes = [*data_shapes, ins.shape.tuple_shapes[1]]
    config = f"infeed_config = {quote(ins.attrs.get('infeed_config', ''))}"
    sig = function_type([token.type], [value_type(s) for s in shapes])
    parts: list[Part] = ['"stablehlo.infeed"(', token, ") <{" + config + "}>",
                         *b.attr_dict(ins), " : " + sig]  # fmt: skip
    refs = b.emit(parts, shapes)
    values: Ref = TupleRef(list(refs[:-1]), data) if data.is_tuple else refs[0]
    return TupleRef([values, refs[-1]], ins.shape)


@handles(O.OUTFEED)
def _outfeed(b: Block, ins: Instruction) -> Ref:
    data = b.ref(ins.operand(0))
    values = [b.value(r) for r in (b.flatten(data) if data.shape.is_tuple else [data])]
    token = b.operand(ins, 1)
    config = f"outfeed_config = {quote(ins.attrs.get('outfeed_config', ''))}"
    return generic(b, ins, "stablehlo.outfeed", [*values, token], [config])

