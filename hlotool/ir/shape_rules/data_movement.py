"""Data movement: bitcast, broadcast, concatenate, reshape, slices, gather, scatter, pad,
reverse, transpose and dimension sizes."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from hlotool.ir.shape_rules.context import ShapeContext, ShapeError
from hlotool.ir.shape_rules.shape_util import (
    _INT32_MAX,
    P,
    _arity,
    _attr,
    _compat,
    _dyn_flags,
    _expect_array,
    _fail,
    _higher,
    _higher_precision,
    _hs,
    _is_bounded_dyn,
    _is_dyn,
    _is_scalar,
    _is_unbounded,
    _join,
    _keep,
    _mk,
    _norm_dyn,
    _not_inferable,
    _one_dim,
    _program,
    _reshape_like,
    _same_et_ignoring_fp,
    _tname,
    _verify_reducer,
)
from hlotool.ir.types import UNBOUNDED, Layout, Shape


def bitcast(ctx: ShapeContext) -> Shape:
    """A bitcast reinterprets the buffer: the result must be declared and hold as many
    bytes as the operand."""
    _arity(ctx, 1)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    operand, out = ctx.operands[0], ctx.declared
    if operand.is_array and out.is_array and not operand.is_dynamic and not out.is_dynamic:
        if operand.byte_size != out.byte_size:
            raise _fail(
                f"Bitcast cannot have different shape sizes of output ({out.byte_size}) and "
                f"operand ({operand.byte_size}) ({_hs(out)}) ({_hs(operand)})"
            )
    return out


def broadcast(ctx: ShapeContext) -> Shape:
    """HLO broadcast: `dimensions[i]` is the result dimension operand dimension i maps to
    (strictly increasing, equal sizes). Without a declared shape, XLA's parser infers
    `dimensions ++ operand dims` (it treats `dimensions` as prepended sizes); we match."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    _expect_array(operand, "operand of broadcast")
    dims = tuple(ctx.attrs.get("dimensions") or ())
    out = ctx.declared
    if out is None:
        for size in dims:
            if size < 0:
                raise _fail(f"Broadcast with negative dimension size {size}.")
        dyn = [False] * len(dims) + _dyn_flags(operand)
        return _mk(operand.element_type, (*dims, *operand.dimensions), dyn)
    if not out.is_array or out.element_type is not operand.element_type:
        raise _fail(
            f"Broadcast changes the element type: {_hs(operand)} -> {_hs(out)}"
        )
    if len(dims) != operand.rank:
        raise _fail(
            f"Broadcast HLO has invalid number of dimensions: {len(dims)} != {operand.rank} "
            f"(operand {_hs(operand)})"
        )
    for i, d in enumerate(dims):
        if not 0 <= d < out.rank:
            raise _fail(
                f"Broadcast dimension {d} of operand dimension {i} is out of range for "
                f"result {_hs(out)}"
            )
        if out.dimensions[d] != operand.dimensions[i]:
            raise _fail(
                f"Broadcast operand dimension {i} (size {operand.dimensions[i]}) does not "
                f"match result dimension {d} (size {out.dimensions[d]}): "
                f"{_hs(operand)} -> {_hs(out)}"
            )
        if i and dims[i - 1] >= d:
            raise _fail(
                f"Broadcast dimensions should be ordered, got: {{{_join(dims, ',')}}}"
            )
    return out


def _merge_dim(dim: int, left: int, right: int, lb: int, rb: int) -> tuple[int, int]:
    """InferMostSpecificDimAndBound (sizes and bounds; UNBOUNDED = unknown)."""
    size = bound = UNBOUNDED
    if lb != UNBOUNDED or rb != UNBOUNDED:
        if lb != UNBOUNDED and rb != UNBOUNDED and lb != rb:
            raise _fail(f"Mismatched bound sizes {lb} and {rb} in dimension {dim}")
        bound = lb if lb != UNBOUNDED else rb
    if left != UNBOUNDED or right != UNBOUNDED:
        if left != UNBOUNDED and right != UNBOUNDED and left != right:
            raise _fail(f"Mismatched dimension sizes {left} and {right} in dimension {dim}")
        size = left if left != UNBOUNDED else right
        if bound != UNBOUNDED and size != bound:
            raise _fail(f"Mismatched dimension size {size} and bound {bound} in dimension {dim}")
    return size, bound


def concatenate(ctx: ShapeContext) -> Shape:
    """InferConcatOpShape."""
    shapes = list(ctx.operands)
    if not shapes:
        raise _fail("Concatenate expects at least one argument.")
    dimension = _one_dim(ctx)
    if not 0 <= dimension < (shapes[0].rank if shapes[0].is_array else 0):
        raise _fail(f"Concatenate dimension out of bounds: {dimension}.")
    first = shapes[0]
    et = first.element_type
    for s in shapes:
        _expect_array(s, "operand of concatenation")
        if s is first:
            continue
        if s.rank != first.rank:
            raise _fail(
                f"Cannot concatenate arrays with different ranks: {first.rank} ({_hs(first)}) "
                f"vs {s.rank} ({_hs(s)})."
            )
        if not _same_et_ignoring_fp(first, s):
            raise _fail(
                "Cannot concatenate arrays with different element types: "
                f"{_tname(first.element_type)} vs {_tname(s.element_type)}."
            )
        for d in range(first.rank):
            a, b = first.dimensions[d], s.dimensions[d]
            if d != dimension and a != b and a != UNBOUNDED and b != UNBOUNDED:
                raise _fail(
                    "Cannot concatenate arrays that differ in dimensions other than the one "
                    f"being concatenated. Dimension {d} in both shapes must be equal (or "
                    f"compatible): {_hs(first)} vs {_hs(s)}."
                )
        et = _higher_precision(s.element_type, et)
    rank = first.rank
    sizes = [UNBOUNDED] * rank
    bounds = [UNBOUNDED] * rank
    sizes[dimension] = 0
    for s in shapes:
        for d in range(rank):
            size = s.dimensions[d]
            bound = size if _is_bounded_dyn(s, d) else UNBOUNDED
            if d == dimension:
                left, lb = sizes[d], bounds[d]
                new_size = left + size if left != UNBOUNDED and size != UNBOUNDED else UNBOUNDED
                new_bound = UNBOUNDED
                if lb != UNBOUNDED or bound != UNBOUNDED:
                    lbs = lb if lb != UNBOUNDED else left
                    rbs = bound if bound != UNBOUNDED else size
                    if lbs != UNBOUNDED and rbs != UNBOUNDED:
                        new_bound = lbs + rbs
                sizes[d], bounds[d] = new_size, new_bound
            else:
                sizes[d], bounds[d] = _merge_dim(d, sizes[d], size, bounds[d], bound)
    # A bounded result dimension is written as its bound with the dynamic marker.
    dims = [bounds[d] if bounds[d] != UNBOUNDED else sizes[d] for d in range(rank)]
    dyn = [bounds[d] != UNBOUNDED for d in range(rank)]
    return _mk(et, dims, dyn)


def dynamic_reshape(ctx: ShapeContext) -> Shape:
    if ctx.declared is None:
        raise _not_inferable(ctx)
    if not ctx.operands:
        raise _fail("dynamic-reshape expects at least one operand")
    operand, out = ctx.operands[0], ctx.declared
    _expect_array(operand, "operand of dynamic reshape")
    if not out.is_array or out.element_type is not operand.element_type:
        raise _fail(
            f"DynamicReshape changes the element type: {_hs(operand)} -> {_hs(out)}"
        )
    for size in ctx.operands[1:]:
        if size.element_type is not P.S32 or size.rank != 0:
            raise _fail(f"DynamicReshape's dim size has to be scalar S32, got ({_hs(size)}): ")
    if out.rank + 1 != len(ctx.operands):
        raise _fail(
            f"DynamicReshape of {_hs(out)} needs {out.rank} dimension size operands, got "
            f"{len(ctx.operands) - 1}"
        )
    if UNBOUNDED not in operand.dimensions and UNBOUNDED not in out.dimensions:
        if operand.element_count != out.element_count:
            raise _fail(
                "Reshape operation has mismatched element counts: from="
                f"{operand.element_count} ({_hs(operand)}) to={out.element_count} ({_hs(out)})."
            )
    return out


def _check_index_operands(kind: str, operand: Shape, indices: Sequence[Shape]) -> None:
    """The index checks shared by dynamic-slice and dynamic-update-slice."""
    if indices and indices[0].is_array and indices[0].rank == 1:
        if len(indices) != 1:
            raise _fail(f"{kind} should have exactly 1 index operand, has {len(indices)}.")
        idx = indices[0]
        if not idx.element_type.is_integral:
            raise _fail(f"{kind} start indices must be of integral type.")
        if operand.rank != idx.dimensions[0]:
            raise _fail(
                f"{kind} start number of dimensions {idx.dimensions[0]} ({_hs(idx)}) must match "
                f"rank {operand.rank} of slice input ({_hs(operand)})."
            )
        return
    if operand.rank != len(indices):
        raise _fail(
            f"{kind} start number of dimensions {len(indices)} must match rank {operand.rank} "
            f"of slice input ({_hs(operand)})."
        )
    if indices:
        first = indices[0]
        if not _is_scalar(first):
            raise _fail(f"{kind} indices must be scalar, not {_hs(first)}.")
        if not first.element_type.is_integral:
            raise _fail(f"{kind} start indices must be of integral type.")
        for idx in indices:
            if not _compat(first, idx):
                raise _fail(
                    f"{kind} start indices must all have the same shape, got mismatching "
                    f"indices with shapes {_hs(first)} and {_hs(idx)}."
                )


def dynamic_slice(ctx: ShapeContext) -> Shape:
    """InferDynamicSliceShape: result dims are `dynamic_slice_sizes`."""
    if len(ctx.operands) < 2:
        raise _fail("dynamic-slice expects an operand and start indices")
    operand, indices = ctx.operands[0], list(ctx.operands[1:])
    _expect_array(operand, "operand of dynamic slice")
    _check_index_operands("Dynamic slice", operand, indices)
    sizes = tuple(_attr(ctx, "dynamic_slice_sizes"))
    if len(sizes) != operand.rank:
        raise _fail(
            "Dynamic slice index count does not match argument rank: "
            f"{len(sizes)} vs {operand.rank}."
        )
    for d, size in enumerate(sizes):
        if size < 0:
            raise _fail(f"Negative size index to dynamic slice: {size}.")
        if not _is_unbounded(operand, d) and size > operand.dimensions[d]:
            raise _fail(
                f"Slice dim size {size} greater than dynamic slice dimension: "
                f"{operand.dimensions[d]}."
            )
    dyn = [
        _is_dyn(operand, d) and sizes[d] > 1 and sizes[d] == operand.dimensions[d]
        for d in range(operand.rank)
    ]
    return _mk(operand.element_type, sizes, dyn)


def dynamic_update_slice(ctx: ShapeContext) -> Shape:
    """InferDynamicUpdateSliceShape: the operand's shape."""
    if len(ctx.operands) < 2:
        raise _fail("dynamic-update-slice expects an operand, an update and start indices")
    operand, update, indices = ctx.operands[0], ctx.operands[1], list(ctx.operands[2:])
    if not operand.is_array:
        raise _fail(
            "Expected array or buffer argument for operand of dynamic update slice, but got "
            f"{_hs(operand)}."
        )
    _expect_array(update, "update of dynamic update slice")
    _check_index_operands("Dynamic update slice", operand, indices)
    if update.rank != operand.rank:
        raise _fail(
            "Dynamic update slice update rank does not match argument rank: "
            f"{update.rank} vs {operand.rank}."
        )
    if not _same_et_ignoring_fp(operand, update):
        raise _fail(
            "Dynamic update slice update element type does not match argument. "
            f"operand.element_type: {_tname(operand.element_type)} vs update.element_type: "
            f"{_tname(update.element_type)}."
        )
    for d in range(operand.rank):
        u, o = update.dimensions[d], operand.dimensions[d]
        if u != UNBOUNDED and u < 0:
            raise _fail(f"Size index {u} to dynamic update slice must be >= 0.")
        if o != UNBOUNDED and u > o:
            raise _fail(f"Update dim size {u} greater than dynamic slice dimension: {o}.")
    dyn = [
        _is_dyn(operand, d)
        or (_is_dyn(update, d) and update.dimensions[d] == operand.dimensions[d])
        for d in range(operand.rank)
    ]
    return _reshape_like(operand, dyn=dyn)


def _validate_gather_dnums(
    operand: Shape, indices_dims: Sequence[int], attrs: dict[str, Any]
) -> None:
    """ValidateGatherDimensionNumbers."""
    offset_dims = attrs["offset_dims"]
    collapsed = attrs["collapsed_slice_dims"]
    start_index_map = attrs["start_index_map"]
    operand_batching = attrs["operand_batching_dims"]
    indices_batching = attrs["start_indices_batching_dims"]
    index_vector_dim = attrs["index_vector_dim"]
    if list(offset_dims) != sorted(offset_dims):
        raise _fail(
            f"Output window dimensions in gather op must be ascending; got: {_join(offset_dims)}."
        )
    if len(set(offset_dims)) != len(offset_dims):
        raise _fail(
            f"Output window dimensions in gather op must not repeat; got: {_join(offset_dims)}."
        )
    output_rank = len(offset_dims) + len(indices_dims) - 1
    for i, d in enumerate(offset_dims):
        if not 0 <= d < output_rank:
            raise _fail(
                f"Offset dimension {i} in gather op is out of bounds; got {d}, but should have "
                f"been in [0,{output_rank})."
            )
    bound = indices_dims[index_vector_dim]
    if bound != UNBOUNDED and len(start_index_map) != bound:
        raise _fail(
            f"Gather op has {len(start_index_map)} elements in start_index_map and the bound "
            f"of dimension index_vector_dim={index_vector_dim} of start_indices is {bound}. "
            "These two numbers must be equal."
        )
    for i, d in enumerate(start_index_map):
        if not 0 <= d < operand.rank:
            raise _fail(f"Invalid start_index_map; domain is [0, {operand.rank}), got: {i}->{d}.")
    if len(set(start_index_map)) != len(start_index_map):
        raise _fail(
            "Repeated dimensions are not allowed in start_index_map; got: "
            f"{_join(start_index_map)}."
        )
    for d in collapsed:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid collapsed_slice_dims set in gather op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    if list(collapsed) != sorted(collapsed):
        raise _fail(f"collapsed_slice_dims in gather op must be sorted; got: {_join(collapsed)}")
    if len(set(collapsed)) != len(collapsed):
        raise _fail(
            "Repeated dimensions not allowed in collapsed_slice_dims in gather op; got: "
            f"{_join(collapsed)}."
        )
    if len(operand_batching) != len(indices_batching):
        raise _fail(
            "operand_batching_dims and start_indices_batching_dims in gather op must be of the "
            f"same size; got: {len(operand_batching)} and {len(indices_batching)}."
        )
    for d in operand_batching:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid operand_batching_dims set in gather op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    if list(operand_batching) != sorted(operand_batching):
        raise _fail(
            f"operand_batching_dims in gather op must be sorted; got: {_join(operand_batching)}"
        )
    if len(set(operand_batching)) != len(operand_batching):
        raise _fail(
            "Repeated dimensions not allowed in operand_batching_dims in gather op; got: "
            f"{_join(operand_batching)}."
        )
    for i, d in enumerate(indices_batching):
        if not 0 <= d < len(indices_dims):
            raise _fail(
                f"Invalid start_indices_batching_dims; domain is [0, {len(indices_dims)}), got: "
                f"{i}->{d}."
            )
    if len(set(indices_batching)) != len(indices_batching):
        raise _fail(
            "Repeated dimensions are not allowed in start_indices_batching_dims; got: "
            f"{_join(indices_batching)}."
        )


def gather(ctx: ShapeContext) -> Shape:
    """InferGatherShape (with batching dims)."""
    _arity(ctx, 2)
    operand, indices = ctx.operands
    _expect_array(operand, "input tensor operand of gather op")
    _expect_array(indices, "gather indices operand of gather op")
    dn = {
        "offset_dims": tuple(_attr(ctx, "offset_dims")),
        "collapsed_slice_dims": tuple(_attr(ctx, "collapsed_slice_dims")),
        "start_index_map": tuple(_attr(ctx, "start_index_map")),
        "operand_batching_dims": tuple(ctx.attrs.get("operand_batching_dims") or ()),
        "start_indices_batching_dims": tuple(ctx.attrs.get("start_indices_batching_dims") or ()),
        "index_vector_dim": _attr(ctx, "index_vector_dim"),
    }
    slice_sizes = tuple(_attr(ctx, "slice_sizes"))
    if not indices.element_type.is_integral:
        raise _fail(f"Gather indices parameter must be an integral tensor; got {_hs(indices)}.")
    ivd = dn["index_vector_dim"]
    if indices.rank < ivd or ivd < 0:
        raise _fail(
            "Gather index leaf dimension must be within [0, rank(start_indices) + 1). "
            f"rank(start_indices) is {indices.rank} and gather index leaf dimension is {ivd}."
        )
    expanded = list(indices.dimensions)
    expanded_dyn = _dyn_flags(indices)
    if len(expanded) == ivd:
        expanded.append(1)
        expanded_dyn.append(False)
    _validate_gather_dnums(operand, expanded, dn)
    offset_dims = dn["offset_dims"]
    collapsed = dn["collapsed_slice_dims"]
    batching = dn["operand_batching_dims"]
    if len(slice_sizes) != operand.rank:
        raise _fail(
            "Gather op must have one slice size for every input dimension; got: "
            f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.rank}."
        )
    if len(slice_sizes) != len(offset_dims) + len(collapsed) + len(batching):
        raise _fail(
            "All components of the offset index in a gather op must either be a offset "
            "dimension or explicitly collapsed or explicitly batched; got "
            f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes={_join(offset_dims, ',')}, "
            f"collapsed_slice_dims={_join(collapsed, ',')}, "
            f"operand_batching_dims={_join(batching, ',')}."
        )
    for i, size in enumerate(slice_sizes):
        if _is_unbounded(operand, i):
            continue
        if size < 0 or size > operand.dimensions[i]:
            raise _fail(
                f"Slice size at index {i} in gather op is out of range, must be within "
                f"[0, {operand.dimensions[i] + 1}), got {size}."
            )
    for i, d in enumerate(collapsed):
        if slice_sizes[d] > 1:
            raise _fail(
                "Gather op can only collapse slice dims with bound 1 or 0, but bound is "
                f"{slice_sizes[d]} for index {d} at position {i}."
            )
    for i, d in enumerate(batching):
        if slice_sizes[d] > 1:
            raise _fail(
                "Gather op can only have operand_batching_dims with bound 1 or 0, but bound is "
                f"{slice_sizes[d]} for index {d} at position {i}."
            )
    result_rank = len(offset_dims) + len(expanded) - 1
    skipped = set(collapsed) | set(batching)
    offset_set = set(offset_dims)
    dims: list[int] = []
    dyn: list[bool] = []
    offset_seen = 0
    gather_seen = 0
    for i in range(result_rank):
        if i in offset_set:
            while offset_seen in skipped:
                offset_seen += 1
            is_dyn = False
            if slice_sizes[offset_seen] == operand.dimensions[offset_seen]:
                is_dyn = _is_dyn(operand, offset_seen)
            dims.append(slice_sizes[offset_seen])
            dyn.append(is_dyn)
            offset_seen += 1
        else:
            if gather_seen == ivd:
                gather_seen += 1
            dims.append(expanded[gather_seen])
            dyn.append(expanded_dyn[gather_seen])
            gather_seen += 1
    return _mk(operand.element_type, dims, dyn)


def _validate_scatter_dnums(
    operand: Shape, indices_dims: Sequence[int], updates: Shape, dn: dict[str, Any]
) -> None:
    """ValidateScatterDimensionNumbers."""
    uwd = dn["update_window_dims"]
    iwd = dn["inserted_window_dims"]
    s2o = dn["scatter_dims_to_operand_dims"]
    ibd = dn["input_batching_dims"]
    sibd = dn["scatter_indices_batching_dims"]
    ivd = dn["index_vector_dim"]
    if list(uwd) != sorted(uwd):
        raise _fail(f"update_window_dims in scatter op must be sorted; got: {_join(uwd)}.")
    if len(set(uwd)) != len(uwd):
        raise _fail(f"update_window_dims in scatter op must not repeat; got: {_join(uwd)}.")
    for d in uwd:
        if not 0 <= d < updates.rank:
            raise _fail(
                "Invalid update_window_dims set in scatter op; valid range is "
                f"[0, {updates.rank}). got: {d}."
            )
    if list(iwd) != sorted(iwd):
        raise _fail(f"inserted_window_dims in scatter op must be sorted; got: {_join(iwd)}.")
    if len(set(iwd)) != len(iwd):
        raise _fail(f"inserted_window_dims in scatter op must not repeat; got: {_join(iwd)}.")
    for d in iwd:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid inserted_window_dims set in scatter op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    window_size = len(uwd) + len(iwd) + len(ibd)
    if window_size != operand.rank:
        raise _fail(
            f"Scatter op has window of size {window_size}; doesn't match operand of rank "
            f"{operand.rank}."
        )
    bound = indices_dims[ivd]
    if bound != UNBOUNDED and len(s2o) != bound:
        raise _fail(
            f"Scatter op has {len(s2o)} elements in scatter_dims_to_operand_dims and the bound "
            f"of dimension index_vector_dim={ivd} of scatter_indices is {bound}. These two "
            "numbers must be equal."
        )
    for i, d in enumerate(s2o):
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid scatter_dims_to_operand_dims mapping; domain is "
                f"[0, {operand.rank}), got: {i}->{d}."
            )
    if len(set(s2o)) != len(s2o):
        raise _fail(
            f"Repeated dimensions not allowed in scatter_dims_to_operand_dims; got: {_join(s2o)}."
        )
    if len(ibd) != len(sibd):
        raise _fail(
            "input_batching_dims and scatter_indices_batching_dims in scatter op must be of the "
            f"same size; got: {len(ibd)} and {len(sibd)}."
        )
    if list(ibd) != sorted(ibd):
        raise _fail(f"input_batching_dims in scatter op must be sorted; got: {_join(ibd)}.")
    if len(set(ibd)) != len(ibd):
        raise _fail(f"input_batching_dims in scatter op must not repeat; got: {_join(ibd)}.")
    for d in ibd:
        if not 0 <= d < operand.rank:
            raise _fail(
                "Invalid input_batching_dims set in scatter op; valid range is "
                f"[0, {operand.rank}), got: {d}."
            )
    for d in sibd:
        if not 0 <= d < len(indices_dims):
            raise _fail(
                "Invalid scatter_indices_batching_dims set in scatter op; valid range is "
                f"[0, {len(indices_dims)}), got: {d}."
            )
    if len(set(sibd)) != len(sibd):
        raise _fail(
            f"scatter_indices_batching_dims in scatter op must not repeat; got: {_join(sibd)}."
        )


def scatter(ctx: ShapeContext) -> Shape:
    """InferScatterShape: N operands, indices, N updates; result = operand(s)."""
    args = list(ctx.operands)
    n = len(args) // 2
    if n * 2 + 1 != len(args):
        raise _fail(f"Invalid argument count of scatter op: Expected {n * 2 + 1}, saw {len(args)}")
    indices = args[n]
    _expect_array(indices, "scatter indices of scatter op")
    if not indices.element_type.is_integral:
        raise _fail(f"Scatter indices parameter must be an integral tensor; got {_hs(indices)}.")
    dn = {
        "update_window_dims": tuple(_attr(ctx, "update_window_dims")),
        "inserted_window_dims": tuple(_attr(ctx, "inserted_window_dims")),
        "scatter_dims_to_operand_dims": tuple(_attr(ctx, "scatter_dims_to_operand_dims")),
        "input_batching_dims": tuple(ctx.attrs.get("input_batching_dims") or ()),
        "scatter_indices_batching_dims": tuple(
            ctx.attrs.get("scatter_indices_batching_dims") or ()
        ),
        "index_vector_dim": _attr(ctx, "index_vector_dim"),
    }
    ivd = dn["index_vector_dim"]
    if indices.rank < ivd or ivd < 0:
        raise _fail(
            "Scatter index leaf dimension must be within [0, rank(scatter_indices) + 1). "
            f"rank(scatter_indices) is {indices.rank} and scatter index leaf dimension is {ivd}."
        )
    expanded = list(indices.dimensions)
    if len(expanded) == ivd:
        expanded.append(1)
    operands, updates = args[:n], args[n + 1 :]
    uwd = dn["update_window_dims"]
    for i in range(n):
        operand, update = operands[i], updates[i]
        _expect_array(operand, f"operand {i} of scatter op")
        _expect_array(update, f"updates {i} of scatter op")
        max_sizes = [
            operand.dimensions[d]
            for d in range(operand.rank)
            if d not in dn["inserted_window_dims"] and d not in dn["input_batching_dims"]
        ]
        expected_rank = len(expanded) - 1 + len(uwd)
        if update.rank != expected_rank:
            raise _fail(f"Updates tensor must be of rank {expected_rank}; got {update.rank}.")
        _validate_scatter_dnums(operand, expanded, update, dn)
        for j, d in enumerate(uwd):
            if j < len(max_sizes) and update.dimensions[d] > max_sizes[j]:
                raise _fail(
                    "Bounds of the window dimensions of updates must not exceed the bounds of "
                    f"the corresponding dimensions of operand. For dimension {d}, updates bound "
                    f"is {update.dimensions[d]}, operand bound is {max_sizes[j]}."
                )
        seen = 0
        for d in range(update.rank):
            if d in uwd:
                continue
            if seen == ivd:
                seen += 1
            u, e = update.dimensions[d], expanded[seen]
            if u != e and u != UNBOUNDED and e != UNBOUNDED:
                raise _fail(
                    "Bounds of the scatter dimensions of updates must be same as the bounds of "
                    "the corresponding dimensions of scatter indices. For scatter dimension "
                    f"{d}, updates bound is {u}, scatter_indices bound is {e}."
                )
            seen += 1
    _verify_reducer(
        _program(ctx, "to_apply"),
        [Shape.scalar(o.element_type) for o in operands],
        [u.element_type for u in updates],
        n,
    )
    return _keep(operands[0] if n == 1 else Shape.tuple_of(operands))


def _padding_text(padding: Sequence[Any]) -> str:
    return "x".join(
        f"{p.low}_{p.high}_{p.interior}" if p.interior else f"{p.low}_{p.high}" for p in padding
    )


def pad(ctx: ShapeContext) -> Shape:
    """InferPadShape: out = lo + hi + d + max(d-1, 0) * interior, never negative."""
    _arity(ctx, 2)
    operand, value = ctx.operands
    padding = tuple(_attr(ctx, "padding"))
    if not operand.is_array:
        raise _fail("Pad operation does not support tuple-shape operands.")
    if not _is_scalar(value):
        raise _fail("Pad operation does not support non-scalar padding values.")
    if operand.rank != len(padding):
        raise _fail(
            "The rank of the operand and the padding configuration do not match: "
            f"{_hs(operand)} vs {_padding_text(padding) or '{}'}."
        )
    if not _same_et_ignoring_fp(operand, value):
        raise _fail("The element types of the operands to Pad do not match.")
    if any(p.interior < 0 for p in padding):
        raise _fail(f"Interior padding cannot be negative: {_padding_text(padding)}")
    dims: list[int] = []
    for i, p in enumerate(padding):
        d = operand.dimensions[i]
        if d == UNBOUNDED:
            dims.append(UNBOUNDED)
            continue
        size = d + p.low + p.high + max(d - 1, 0) * p.interior
        if size < 0:
            raise _fail(f"Padding result in negative size for dimension {i}")
        dims.append(size)
    return _mk(_higher(operand, value), dims, _dyn_flags(operand))


def reshape(ctx: ShapeContext) -> Shape:
    """The text declares the result; element type and element count must match."""
    _arity(ctx, 1)
    if ctx.declared is None:
        raise _not_inferable(ctx)
    operand, out = ctx.operands[0], ctx.declared
    _expect_array(operand, "reshape")
    if not out.is_array or out.element_type is not operand.element_type:
        raise _fail(
            f"Reshape: element type mismatch ({operand.element_type.value} vs "
            f"{out.element_type.value}): {_hs(operand)} -> {_hs(out)}"
        )
    if UNBOUNDED in out.dimensions and UNBOUNDED not in operand.dimensions:
        raise _fail(f"Reshaping with unbounded result shape is not supported: {_hs(out)}")
    if UNBOUNDED not in operand.dimensions and operand.element_count != out.element_count:
        raise _fail(
            f"Reshape: element count mismatch ({operand.element_count} vs {out.element_count}): "
            f"{_hs(operand)} -> {_hs(out)}"
        )
    inferred_dimension = ctx.attrs.get("inferred_dimension")
    if inferred_dimension is not None and inferred_dimension != -1:
        if not 0 <= inferred_dimension < out.rank:
            raise _fail(
                f"Reshape inferred_dimension {inferred_dimension} is out of range for {_hs(out)}"
            )
    return out


def reverse(ctx: ShapeContext) -> Shape:
    """InferReverseShape."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    dims = tuple(_attr(ctx, "dimensions"))
    _expect_array(operand, "operand of reverse")
    if len(set(dims)) != len(dims):
        raise _fail("a dimension number is duplicated in reverse")
    for d in dims:
        if not 0 <= d < operand.rank:
            raise _fail(
                f"One of the reverse dimensions ({d}) is out-of-bounds in shape {_hs(operand)}."
            )
    return _keep(operand)


def slice_(ctx: ShapeContext) -> Shape:
    """InferSliceShape: out dim = ceil((limit - start) / stride)."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    ranges = tuple(_attr(ctx, "slice"))
    starts = [r.start for r in ranges]
    limits = [r.limit for r in ranges]
    strides = [r.stride for r in ranges]

    def error(message: str) -> ShapeError:
        return _fail(
            f"{message} in slice operation; argument shape: {_hs(operand)}; starts: "
            f"{{{_join(starts, ',')}}}; limits: {{{_join(limits, ',')}}}; strides: "
            f"{{{_join(strides, ',')}}}."
        )

    _expect_array(operand, "operand of slice")
    if len(ranges) != operand.rank:
        raise _fail(
            f"Slice index count does not match argument rank: {len(ranges)} vs {operand.rank}."
        )
    sizes: list[int] = []
    for d, (start, limit, stride) in enumerate(zip(starts, limits, strides, strict=True)):
        if start < 0:
            raise _fail(f"Negative start index to slice: {start}.")
        size = operand.dimensions[d]
        if not _is_unbounded(operand, d) and limit > size:
            raise error(
                f"limit index ({limit}) must be less than or equal to dimension size ({size})"
            )
        if start > limit:
            raise error(
                f"limit index ({limit}) must be greater or equal to start index ({start}) in "
                "slice with positive stride"
            )
        if stride <= 0:
            raise _fail(f"Stride ({stride}) must be positive.")
        sizes.append((limit - start + stride - 1) // stride)
    dyn = [sizes[d] != 1 and _is_bounded_dyn(operand, d) for d in range(operand.rank)]
    return _mk(operand.element_type, sizes, dyn)


def transpose(ctx: ShapeContext) -> Shape:
    """InferTransposeShape: ShapeUtil::PermuteDimensions permutes dims and the layout."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    perm = tuple(_attr(ctx, "dimensions"))
    _expect_array(operand, "transpose")
    if len(perm) != operand.rank or sorted(perm) != list(range(operand.rank)):
        raise _fail(
            f"Transpose dimensions [{_join(perm, ',')}] are not a permutation of the operand "
            f"dimensions (operand shape is {_hs(operand)})."
        )
    dims = tuple(operand.dimensions[p] for p in perm)
    dyn = _dyn_flags(operand)
    new_dyn = _norm_dyn(dims, [dyn[p] for p in perm])
    if operand.layout is not None and len(operand.layout.minor_to_major) == operand.rank:
        inverse = [0] * len(perm)
        for i, p in enumerate(perm):
            inverse[p] = i
        layout = dataclasses.replace(
            operand.layout,
            minor_to_major=tuple(inverse[m] for m in operand.layout.minor_to_major),
            split_configs=(),
        )
    else:
        layout = Layout.default_for_rank(len(dims))
    return Shape(operand.element_type, dims, layout, new_dyn)


def get_dimension_size(ctx: ShapeContext) -> Shape:
    """InferGetDimensionSizeShape: s32[]."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    dim = _one_dim(ctx)
    if not operand.is_array or not 0 <= dim < operand.rank:
        raise _fail(f"GetDimensionSize dimension out of bounds: {dim}.")
    if operand.dimensions[dim] > _INT32_MAX:
        raise _fail(
            f"GetDimensionSize's input shape is {_hs(operand)}, the {dim}th dimension exceeds "
            "the INT_MAX limit."
        )
    return Shape.scalar(P.S32)


def set_dimension_size(ctx: ShapeContext) -> Shape:
    """InferSetDimensionSizeShape: the operand with that dimension marked dynamic."""
    _arity(ctx, 2)
    operand, value = ctx.operands
    dim = _one_dim(ctx)
    if not operand.is_array or not 0 <= dim < operand.rank:
        raise _fail(f"SetDimensionSize dimension out of bounds: {dim}.")
    if not value.is_array or value.rank != 0 or value.element_type is not P.S32:
        raise _fail(f"SetDimensionSize's value has to be S32 scalar, got {_hs(value)}")
    if operand.dimensions[dim] > _INT32_MAX:
        raise _fail(
            f"SetDimensionSize's input shape is {_hs(operand)}, the {dim}th dimension exceeds "
            "the INT_MAX limit."
        )
    dyn = _dyn_flags(operand)
    dyn[dim] = True
    return _reshape_like(operand, dyn=dyn)
