"""An HloModuleProto written as the HLO text XLA prints for it (`HloModule::ToString`),
for the text front end to lower: the proto's instruction fields become the attributes the
ops table declares, ids become names, and shapes and literals are printed by the IR.

Instructions are written in the module's schedule order when it has one (as XLA prints a
scheduled module), else in the proto's order (operands first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hlotool.diagnostics import HloError
from hlotool.hloproto import values
from hlotool.ir.printer import window_text
from hlotool.ir.types import PrimitiveType, shape_to_text
from hlotool.syntax.strings import quote

_TO_APPLY = {"call", "map", "reduce", "reduce-window", "scatter", "sort", "all-reduce",
             "all-reduce-start", "reduce-scatter", "scan", "collective-reduce"}
_DIMENSIONS = {"broadcast", "concatenate", "reduce", "reverse", "transpose", "sort", "map",
               "get-dimension-size", "set-dimension-size", "scan", "all-gather",
               "all-gather-start", "all-to-all", "reduce-scatter"}
_COLLECTIVES = {"all-gather", "all-gather-start", "all-reduce", "all-reduce-start",
                "all-to-all", "ragged-all-to-all", "collective-broadcast", "collective-reduce",
                "collective-permute", "collective-permute-start", "reduce-scatter"}
_CHANNELS = _COLLECTIVES | {"send", "recv", "send-done", "recv-done"}
_SHARDING_TYPES = {1: "maximal", 4: "manual", 5: "unknown", 6: "unreduced", 0: "replicated"}
_LAST_TILE_TYPES = {0: "replicated", 4: "manual", 6: "unreduced"}


def module_text(m: Any) -> str:
    """The HLO text of an HloModuleProto."""
    comp_names = {c.id: c.name for c in m.computations}
    order = {s.key: list(s.value.instruction_ids) for s in m.schedule.sequences}
    entry_id = m.entry_computation_id or next(
        (c.id for c in m.computations if c.name == m.entry_computation_name), None)
    shapes = {i.id: i.shape for c in m.computations for i in c.instructions}
    parts = [_header(m, bool(order))]
    frames = _stack_frames(m.stack_frame_index)
    if frames:
        parts.append(frames)
    for c in _post_order(m):
        parts.append(_computation(c, c.id == entry_id, comp_names, shapes, order.get(c.id)))
    return "\n\n".join(parts) + "\n"


def _post_order(m: Any) -> list[Any]:
    """Computations callees first, as XLA prints them (MakeComputationPostOrder): from each
    computation nothing calls, in the module's order, depth first through the called
    computations of its instructions in creation (id) order."""
    by_id = {c.id: c for c in m.computations}
    called = {cid for c in m.computations for i in c.instructions
              for cid in i.called_computation_ids}
    out: list[Any] = []
    seen: set[int] = set()

    def visit(c: Any) -> None:
        seen.add(c.id)
        for ins in sorted(c.instructions, key=lambda i: i.id):
            for cid in ins.called_computation_ids:
                if cid in by_id and cid not in seen:
                    visit(by_id[cid])
        out.append(c)

    for c in m.computations:
        if c.id not in called and c.id not in seen:
            visit(c)
    out.extend(c for c in m.computations if c.id not in seen)
    return out


def _header(m: Any, scheduled: bool) -> str:
    items = [f"HloModule {m.name or 'module'}"]
    if scheduled:
        items.append("is_scheduled=true")
    aliases = [f"{_index(a.output_shape_index)}: ({a.parameter_number}, "
               f"{_index(a.parameter_shape_index)}, "
               f"{'must-alias' if a.kind == 2 else 'may-alias'})"
               for a in m.input_output_alias.entries]
    if aliases:
        items.append("input_output_alias={ " + ", ".join(aliases) + " }")
    donors = [f"({d.parameter_number}, {_index(d.parameter_shape_index)})"
              for d in m.buffer_donor.entries]
    if donors:
        items.append("buffer_donor={ " + ", ".join(donors) + " }")
    ps = m.host_program_shape
    if ps.HasField("result"):
        params = ", ".join(_shape(p) for p in ps.parameters)
        items.append(f"entry_computation_layout={{({params})->{_shape(ps.result)}}}")
    da = m.device_assignment
    if da.replica_count > 1:
        items.append(f"replica_count={da.replica_count}")
    if da.computation_count > 1:
        items.append(f"num_partitions={da.computation_count}")
    if m.frontend_attributes.map:
        items.append("frontend_attributes=" + _frontend(m.frontend_attributes))
    return ", ".join(items)


def _stack_frames(sf: Any) -> str:
    """The stack frame sections; XLA's text writes a frame's parent one above the
    proto's number (the proto's 0, no parent, is 1)."""
    if not (sf.file_names or sf.function_names or sf.file_locations or sf.stack_frames):
        return ""
    locations = "".join(
        f"{i} {{file_name_id={f.file_name_id} function_name_id={f.function_name_id} "
        f"line={f.line} end_line={f.end_line} column={f.column} end_column={f.end_column}}}\n"
        for i, f in enumerate(sf.file_locations, 1))
    return "\n".join([
        "FileNames\n" + "".join(f"{i} {quote(s)}\n" for i, s in enumerate(sf.file_names, 1)),
        "FunctionNames\n" + "".join(f"{i} {quote(s)}\n"
                                    for i, s in enumerate(sf.function_names, 1)),
        "FileLocations\n" + locations,
        "StackFrames\n" + "".join(f"{i} {{file_location_id={s.file_location_id} "
                                  f"parent_frame_id={s.parent_frame_id + 1}}}\n"
                                  for i, s in enumerate(sf.stack_frames, 1)),
    ])


def _computation(c: Any, is_entry: bool, comp_names: dict[int, str],
                 shapes: dict[int, Any], schedule: list[int] | None) -> str:
    if not c.instructions:
        raise HloError(f"computation {c.name} (id {c.id}) of the HloProto has no instructions")
    names = {i.id: i.name for i in c.instructions}
    by_id = {i.id: i for i in c.instructions}
    instructions = list(c.instructions)
    if schedule and set(schedule) == set(by_id):
        instructions = [by_id[i] for i in schedule]
    lines = [("ENTRY " if is_entry else "") + f"%{c.name} {{"]
    for ins in instructions:
        lines.append("  " + _instruction(ins, ins.id == c.root_id, names, comp_names, shapes))
    tail = "}"
    if c.execution_thread and c.execution_thread != "main":
        tail += f", execution_thread={quote(c.execution_thread)}"
    lines.append(tail)
    return "\n".join(lines)


def _instruction(ins: Any, is_root: bool, names: dict[int, str], comp_names: dict[int, str],
                 shapes: dict[int, Any]) -> str:
    def name(i: int) -> str:
        if i not in names:
            raise HloError(f"instruction {ins.name} of the HloProto uses operand id {i}, which "
                           "is no instruction of its computation")
        return "%" + names[i]

    op = ins.opcode
    if op == "parameter":
        args = str(ins.parameter_number)
    elif op == "constant":
        args = values.literal(ins.literal).to_text()
    else:
        args = ", ".join(name(i) for i in ins.operand_ids)
    called = []
    for cid in ins.called_computation_ids:
        if cid not in comp_names:
            raise HloError(f"instruction {ins.name} of the HloProto calls computation id {cid}, "
                           "which the module does not have")
        called.append("%" + comp_names[cid])
    operand_types = [values.element_type(shapes[i]) for i in ins.operand_ids if i in shapes]
    attrs = _opcode_attributes(ins, op, called, operand_types)
    attrs += _generic_attributes(ins, name)
    head = f"{'ROOT ' if is_root else ''}%{ins.name} = {_shape(ins.shape)} {op}({args})"
    return head + "".join(", " + a for a in attrs)


def _opcode_attributes(ins: Any, op: str, called: list[str],
                       operand_types: list[PrimitiveType]) -> list[str]:
    out: list[str] = []
    out += _called(op, called, operand_types)
    if op in _DIMENSIONS and (ins.dimensions or op in ("broadcast", "transpose", "reduce")):
        out.append(f"dimensions={_index(ins.dimensions)}")
    for field_op, writer in _WRITERS:
        if op in field_op:
            out += writer(ins)
    if op in _CHANNELS and ins.channel_id > 0:
        out.append(f"channel_id={ins.channel_id}")
    if op in _COLLECTIVES:
        out += _collective(ins, op)
    if op in ("send", "recv", "send-done", "recv-done") and ins.is_host_transfer:
        out.append("is_host_transfer=true")
    if op == "compare":
        out += _compare(ins, operand_types)
    return out


def _called(op: str, called: list[str], operand_types: list[PrimitiveType]) -> list[str]:
    if not called:
        return []
    if op == "fusion" or op.startswith("async-"):
        return [f"calls={called[0]}"]
    if op == "while":
        return [f"condition={called[1]}", f"body={called[0]}"]
    if op == "select-and-scatter":
        return [f"select={called[0]}", f"scatter={called[1]}"]
    if op == "conditional":
        if operand_types and operand_types[0] is PrimitiveType.PRED and len(called) == 2:
            return [f"true_computation={called[0]}", f"false_computation={called[1]}"]
        return ["branch_computations={" + ", ".join(called) + "}"]
    if op == "custom-call":
        return ["called_computations={" + ", ".join(called) + "}"]
    return [f"to_apply={called[0]}"]


def _compare(ins: Any, operand_types: list[PrimitiveType]) -> list[str]:
    out = [f"direction={ins.comparison_direction}"]
    t = operand_types[0] if operand_types else None
    default = ("FLOAT" if t is not None and (t.is_float or t.is_complex) else
               "SIGNED" if t is not None and t.is_signed_int else "UNSIGNED")
    if ins.comparison_type and ins.comparison_type != default:
        out.append(f"type={ins.comparison_type}")
    return out


def _collective(ins: Any, op: str) -> list[str]:
    out = []
    groups = _replica_groups(ins)
    if groups is not None:
        out.append(f"replica_groups={groups}")
    if ins.constrain_layout:
        out.append("constrain_layout=true")
    if ins.use_global_device_ids:
        out.append("use_global_device_ids=true")
    if ins.source_target_pairs:
        out.append("source_target_pairs={" + ",".join(
            f"{{{p.source},{p.target}}}" for p in ins.source_target_pairs) + "}")
    return out


def _replica_groups(ins: Any) -> str | None:
    """replica_groups= in whichever form the proto holds: a list, an iota list (in
    collective_device_list or in its own field) or mesh axes."""
    if ins.HasField("mesh_axes_replica_group_list"):
        return _mesh_groups(ins.mesh_axes_replica_group_list)
    dl = ins.collective_device_list
    if ins.HasField("iota_collective_device_list"):
        return _iota_groups(ins.iota_collective_device_list)
    if dl.HasField("iota_replica_group_list"):
        return _iota_groups(dl.iota_replica_group_list)
    groups = list(dl.replica_groups) or list(ins.replica_groups)
    if not groups and ins.opcode in ("collective-permute", "collective-permute-start"):
        return None
    return "{" + ",".join(_index(g.replica_ids) for g in groups) + "}"


def _iota_groups(iota: Any) -> str:
    text = (f"[{iota.num_replica_groups},{iota.num_devices_per_group}]"
            f"<=[{','.join(map(str, iota.iota_reshape_dims))}]")
    perm = list(iota.iota_transpose_perm)
    if perm and perm != list(range(len(perm))):
        text += f"T({','.join(map(str, perm))})"
    return text


def _mesh_groups(g: Any) -> str:
    """`mesh['x'=2,'y'=2], device_ids=(...) {'x'}` (a sub-axis is `'x':(pre)size`)."""
    axes = list(g.mesh.axes)
    text = "mesh[" + ",".join(f"'{a.name}'={a.size}" for a in axes) + "]"
    if g.mesh.device_ids:
        text += ", device_ids=(" + ",".join(map(str, g.mesh.device_ids)) + ")"
    refs = []
    for ref in g.axes:
        name = axes[ref.mesh_axis_index].name if ref.mesh_axis_index < len(axes) else "?"
        sub = (f":({ref.sub_axis_info.pre_size}){ref.sub_axis_info.size}"
               if ref.HasField("sub_axis_info") else "")
        refs.append(f"'{name}'{sub}")
    return text + " {" + ",".join(refs) + "}"


# -- the fields of particular opcodes ---------------------------------------------------------
def _window_attrs(ins: Any) -> list[str]:
    return [f"window={window_text(ins.window)}"] if ins.HasField("window") else []


def _dim_labels(d: Any) -> str:
    def labels(rank: int, batch: int, feature: int, spatial: list[int], b: str, f: str) -> str:
        chars = ["?"] * rank
        chars[batch], chars[feature] = b, f
        for i, s in enumerate(spatial):
            chars[s] = str(i)
        return "".join(chars)

    n = len(d.input_spatial_dimensions) + 2
    lhs = labels(n, d.input_batch_dimension, d.input_feature_dimension,
                 list(d.input_spatial_dimensions), "b", "f")
    rhs = labels(n, d.kernel_input_feature_dimension, d.kernel_output_feature_dimension,
                 list(d.kernel_spatial_dimensions), "i", "o")
    out = labels(n, d.output_batch_dimension, d.output_feature_dimension,
                 list(d.output_spatial_dimensions), "b", "f")
    return f"{lhs}_{rhs}->{out}"


def _conv(ins: Any) -> list[str]:
    out = _window_attrs(ins)
    if ins.HasField("convolution_dimension_numbers"):
        out.append(f"dim_labels={_dim_labels(ins.convolution_dimension_numbers)}")
    if ins.feature_group_count > 1:
        out.append(f"feature_group_count={ins.feature_group_count}")
    if ins.batch_group_count > 1:
        out.append(f"batch_group_count={ins.batch_group_count}")
    return out + _precision(ins)


def _precision(ins: Any) -> list[str]:
    pc = ins.precision_config
    out = []
    names = [pc.DESCRIPTOR.fields_by_name["operand_precision"].enum_type
             .values_by_number[p].name.lower() for p in pc.operand_precision]
    if any(n != "default" for n in names):
        out.append("operand_precision={" + ",".join(names) + "}")
    if pc.algorithm:
        name = pc.DESCRIPTOR.fields_by_name["algorithm"].enum_type.values_by_number[
            pc.algorithm].name
        out.append(f"algorithm={name.removeprefix('ALG_').lower()}")
    return out


def _conv_kind(ins: Any) -> str:
    return _enum_name(ins, "conv_kind").removeprefix("CONVOLUTION_KIND_").lower()


def _dot(ins: Any) -> list[str]:
    d = ins.dot_dimension_numbers
    if ins.opcode == "ragged-dot":
        r = ins.ragged_dot_dimension_numbers
        d = r.dot_dimension_numbers
    out = []
    for key, dims in (("lhs_batch_dims", d.lhs_batch_dimensions),
                      ("lhs_contracting_dims", d.lhs_contracting_dimensions),
                      ("rhs_batch_dims", d.rhs_batch_dimensions),
                      ("rhs_contracting_dims", d.rhs_contracting_dimensions)):
        if dims:
            out.append(f"{key}={_index(dims)}")
    if ins.opcode == "ragged-dot":
        out += [f"lhs_ragged_dims={_index(r.lhs_ragged_dimensions)}",
                f"rhs_group_dims={_index(r.rhs_group_dimensions)}"]
    return out + _precision(ins)


def _gather(ins: Any) -> list[str]:
    g = ins.gather_dimension_numbers
    out = [f"offset_dims={_index(g.offset_dims)}",
           f"collapsed_slice_dims={_index(g.collapsed_slice_dims)}",
           f"start_index_map={_index(g.start_index_map)}"]
    if g.operand_batching_dims:
        out.append(f"operand_batching_dims={_index(g.operand_batching_dims)}")
    if g.start_indices_batching_dims:
        out.append(f"start_indices_batching_dims={_index(g.start_indices_batching_dims)}")
    out += [f"index_vector_dim={g.index_vector_dim}",
            f"slice_sizes={_index(ins.gather_slice_sizes)}"]
    return out + _sorted_unique(ins)


def _scatter(ins: Any) -> list[str]:
    s = ins.scatter_dimension_numbers
    out = [f"update_window_dims={_index(s.update_window_dims)}",
           f"inserted_window_dims={_index(s.inserted_window_dims)}",
           f"scatter_dims_to_operand_dims={_index(s.scatter_dims_to_operand_dims)}"]
    if s.input_batching_dims:
        out.append(f"input_batching_dims={_index(s.input_batching_dims)}")
    if s.scatter_indices_batching_dims:
        out.append(f"scatter_indices_batching_dims={_index(s.scatter_indices_batching_dims)}")
    return out + [f"index_vector_dim={s.index_vector_dim}"] + _sorted_unique(ins)


def _sorted_unique(ins: Any) -> list[str]:
    out = []
    if ins.indices_are_sorted:
        out.append("indices_are_sorted=true")
    if ins.unique_indices:
        out.append("unique_indices=true")
    return out


def _custom_call(ins: Any) -> list[str]:
    out = [f"custom_call_target={quote(ins.custom_call_target)}"] + _conv(ins)
    if ins.padding_type:
        out.append(f"padding_type={_enum_name(ins, 'padding_type')}")
    if ins.constrain_layout:
        out.append("operand_layout_constraints={" + ", ".join(
            _shape(s) for s in ins.operand_shapes_with_layout) + "}")
    if ins.custom_call_has_side_effect:
        out.append("custom_call_has_side_effect=true")
    if ins.HasField("literal"):
        lit = values.literal(ins.literal)
        out.append(f"literal={shape_to_text(lit.shape)} {lit.to_text()}")
    if ins.custom_call_schedule:
        out.append(f"schedule={_enum_name(ins, 'custom_call_schedule')}")
    if ins.custom_call_api_version > 1:
        out.append(f"api_version={_enum_name(ins, 'custom_call_api_version')}")
    return out


def _aliasing(ins: Any) -> list[str]:
    if not ins.output_operand_aliasing:
        return []
    return ["output_to_operand_aliasing={" + ", ".join(
        f"{_index(a.output_shape_index)}: ({a.operand_index}, {_index(a.operand_shape_index)})"
        for a in ins.output_operand_aliasing) + "}"]


def _enum_name(msg: Any, field: str) -> str:
    return msg.DESCRIPTOR.fields_by_name[field].enum_type.values_by_number[
        getattr(msg, field)].name


def _slice(ins: Any) -> list[str]:
    return ["slice={" + ", ".join(
        f"[{s.start}:{s.limit}" + (f":{s.stride}" if s.stride != 1 else "") + "]"
        for s in ins.slice_dimensions) + "}"]


def _pad(ins: Any) -> list[str]:
    dims = list(ins.padding_config.dimensions)
    interior = any(d.interior_padding for d in dims)
    text = "x".join(f"{d.edge_padding_low}_{d.edge_padding_high}"
                    + (f"_{d.interior_padding}" if interior else "") for d in dims)
    return [f"padding={text}"]


def _triangular(ins: Any) -> list[str]:
    o = ins.triangular_solve_options
    return [f"left_side={_bool(o.left_side)}", f"lower={_bool(o.lower)}",
            f"unit_diagonal={_bool(o.unit_diagonal)}",
            f"transpose_a={_enum_name(o, 'transpose_a')}"]


def _domain(ins: Any) -> list[str]:
    entry, exit_ = (_sharding(s) for s in (ins.domain_entry_sharding, ins.domain_exit_sharding))
    return [f'domain={{kind="sharding", entry={entry}, exit={exit_}}}']


_WRITERS: tuple[tuple[frozenset[str], Callable[[Any], list[str]]], ...] = tuple(
    (frozenset(ops.split()), writer) for ops, writer in (
        ("get-tuple-element", lambda i: [f"index={i.tuple_index}"]),
        ("iota", lambda i: [f"iota_dimension={i.dimensions[0] if i.dimensions else 0}"]),
        ("reshape", lambda i: [f"inferred_dimension={i.dimensions[0]}"] if i.dimensions else []),
        ("parameter", lambda i: ["parameter_replication={" + ",".join(
            _bool(b) for b in i.parameter_replication.replicated_at_leaf_buffers) + "}"]
         if i.parameter_replication.replicated_at_leaf_buffers else []),
        ("fusion", lambda i: [f"kind={i.fusion_kind}"] + _aliasing(i)),
        ("slice", _slice),
        ("dynamic-slice", lambda i: [f"dynamic_slice_sizes={_index(i.dynamic_slice_sizes)}"]),
        ("pad", _pad),
        ("reduce-precision", lambda i: [f"exponent_bits={i.exponent_bits}",
                                        f"mantissa_bits={i.mantissa_bits}"]),
        ("rng", lambda i: [f"distribution={_enum_name(i, 'distribution').lower()}"]),
        ("rng-bit-generator", lambda i: [f"algorithm={_enum_name(i, 'rng_algorithm').lower()}"]),
        ("rng-get-and-update-state", lambda i: [f"delta={i.delta}"]),
        ("batch-norm-training batch-norm-inference batch-norm-grad",
         lambda i: [f"epsilon={i.epsilon!r}", f"feature_index={i.feature_index}"]),
        ("dot ragged-dot scaled-dot", _dot),
        ("convolution", lambda i: _conv(i) + ([f"convolution_kind={_conv_kind(i)}"]
                                              if i.conv_kind else [])),
        ("scan", lambda i: [f"num_carries={i.num_carries}"]
         + (["is_reverse=true"] if i.is_reverse else [])
         + ([f"is_associative={_bool(i.is_associative == 1)}"] if i.is_associative else [])),
        ("reduce-window select-and-scatter", _window_attrs),
        ("fft", lambda i: [f"fft_type={_enum_name(i, 'fft_type')}",
                           f"fft_length={_index(i.fft_length)}"]),
        ("gather", _gather),
        ("scatter", _scatter),
        ("sort", lambda i: ["is_stable=true"] if i.is_stable else []),
        ("topk", lambda i: [f"k={i.k}", f"largest={_bool(i.largest)}"]
         + (["is_stable=true"] if i.is_stable else [])),
        ("cholesky", lambda i: [f"lower={_bool(i.cholesky_options.lower)}"]),
        ("triangular-solve", _triangular),
        ("custom-call", lambda i: _custom_call(i) + _aliasing(i)),
        ("infeed", lambda i: [f"infeed_config={quote(i.infeed_config.decode(errors='replace'))}"]
         if i.infeed_config else []),
        ("outfeed", lambda i: ([f"outfeed_shape={_shape(i.outfeed_shape)}"]
                               if i.HasField("outfeed_shape") else [])
         + ([f"outfeed_config={quote(i.outfeed_config.decode(errors='replace'))}"]
            if i.outfeed_config else [])),
        ("copy-start", lambda i: [f"cross_program_prefetch_index={i.cross_program_prefetch_index}"]
         if i.HasField("cross_program_prefetch_index") else []),
        ("async-start async-update async-done",
         lambda i: [f"async_execution_thread={quote(i.async_execution_thread)}"]
         if i.async_execution_thread and i.async_execution_thread != "main" else []),
        ("call", lambda i: ["is_composite=true"] if i.is_composite else []),
        ("domain", _domain),
    ))


# -- what any instruction may carry ------------------------------------------------------------
def _generic_attributes(ins: Any, name: Callable[[int], str]) -> list[str]:
    out = []
    if ins.HasField("sharding"):
        out.append(f"sharding={_sharding(ins.sharding)}")
    if ins.frontend_attributes.map:
        out.append("frontend_attributes=" + _frontend(ins.frontend_attributes))
    if ins.control_predecessor_ids:
        out.append("control-predecessors={" + ", ".join(
            name(i) for i in ins.control_predecessor_ids) + "}")
    if ins.HasField("result_accuracy"):
        ra = ins.result_accuracy
        if ra.HasField("tolerance"):
            t = ra.tolerance
            out.append(f"result_accuracy={{tolerance={{atol={t.atol!r},rtol={t.rtol!r},"
                       f"ulps={t.ulps}}}}}")
        elif ra.mode:
            out.append("result_accuracy={mode=highest}")
    md = _metadata(ins.metadata)
    if md:
        out.append(f"metadata={{{md}}}")
    if ins.backend_config:
        out.append("backend_config=" + quote(ins.backend_config.decode(errors="replace")))
    return out


def _metadata(md: Any) -> str:
    parts = []
    for key in ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name"):
        if getattr(md, key):
            parts.append(f"{key}={quote(getattr(md, key))}")
    for key in ("source_line", "source_end_line", "source_column", "source_end_column",
                "stack_frame_id"):
        if getattr(md, key):
            parts.append(f"{key}={getattr(md, key)}")
    return " ".join(parts)


def _sharding(s: Any) -> str:
    """HloSharding::ToString of an OpSharding."""
    if s.type == 2:
        return "{" + ", ".join(_sharding(t) for t in s.tuple_shardings) + "}"
    if s.type == 1:
        return f"{{maximal device={s.tile_assignment_devices[0]}}}"
    if s.type != 3:
        return "{" + _SHARDING_TYPES.get(s.type, "replicated") + _shard_group(s) + "}"
    dims = ",".join(map(str, s.tile_assignment_dimensions))
    if s.iota_reshape_dims:
        devices = f"<=[{','.join(map(str, s.iota_reshape_dims))}]"
        perm = list(s.iota_transpose_perm)
        if perm and perm != list(range(len(perm))):
            devices += f"T({','.join(map(str, perm))})"
    else:
        devices = ",".join(map(str, s.tile_assignment_devices))
    text = f"devices=[{dims}]{devices}"
    if s.replicate_on_last_tile_dim:
        text += " last_tile_dim_replicate"
    if s.last_tile_dims:
        text += " last_tile_dims={" + ", ".join(
            _LAST_TILE_TYPES.get(t, "replicated") for t in s.last_tile_dims) + "}"
    return "{" + text + _shard_group(s) + "}"


def _shard_group(s: Any) -> str:
    if not s.is_shard_group:
        return ""
    return f" shard_{'like' if s.shard_group_type == 1 else 'as'} {s.shard_group_id}"


def _frontend(fa: Any) -> str:
    return "{" + ",".join(f"{e.key}={quote(e.value)}"
                          for e in sorted(fa.map, key=lambda e: e.key)) + "}"


def _shape(p: Any) -> str:
    return shape_to_text(values.shape(p))


def _index(xs: Any) -> str:
    return "{" + ",".join(str(x) for x in xs) + "}"


def _bool(b: bool) -> str:
    return "true" if b else "false"
