"""Where an op's result lives given where its operands live, for the ops the SPMD
partitioner runs in parallel beyond elementwise ops and dots: reshapes, convolutions,
dynamic slices, gathers and scatters. Each rule returns None when its pattern does not
apply (the partitioner then gathers whole operands)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlotool.ir.attributes import Window, WindowDimension
from hlotool.ir.instruction import Instruction
from hlotool.spmd.placement import Placement


def _pick(p: Placement, dims: list[int]) -> Placement:
    """The placement of dims `dims` of `p` (in that order)."""
    return Placement(tuple(p.tiles[d] for d in dims), tuple(tuple(c[d] for d in dims)
                                                            for c in p.coords))


def reshape(src: Placement, before: tuple[int, ...], after: tuple[int, ...]) -> Placement | None:
    """A reshape keeps a tiled dim's tiles when the dims before it hold as many elements
    on both sides and it stays whole (same size), is merged with unsharded minor dims, or
    is split with the tiles dividing the new major dim."""
    tiles = [1] * len(after)
    mapping: dict[int, int] = {}
    for d, t in enumerate(src.tiles):
        if t == 1:
            continue
        outer = math.prod(before[:d])
        e = next((e for e in range(len(after)) if math.prod(after[:e]) == outer
                  and after[e] != 1), None)
        if e is None or e in mapping.values():
            return None
        if after[e] > before[d]:  # merged with minor dims: they must be whole
            d2 = d + 1
            while math.prod(before[d:d2]) < after[e]:
                d2 += 1
            if math.prod(before[d:d2]) != after[e] or any(src.tiles[k] > 1
                                                           for k in range(d + 1, d2)):
                return None
        elif after[e] < before[d] and (before[d] % after[e] or after[e] % t):
            return None
        tiles[e] = t
        mapping[d] = e
    coords = tuple(tuple(c[d] if (d := _source(mapping, e)) is not None else 0
                         for e in range(len(after))) for c in src.coords)
    return Placement(tuple(tiles), coords)


def _source(mapping: dict[int, int], e: int) -> int | None:
    return next((d for d, x in mapping.items() if x == e), None)


@dataclass(frozen=True, slots=True)
class Contraction:
    """A dot-like result: its placement, and each device's part of what it sums over
    (an all-reduce over the devices that differ only there completes it)."""

    placement: Placement
    split: tuple[tuple[int, ...], ...]
    partial: bool


def convolution(ins: Instruction, lhs: Placement, rhs: Placement) -> Contraction | None:
    """A convolution split over the batch (input batch dim), the output features (kernel
    output-feature dim) and the input features (both operands' feature dims, then an
    all-reduce); spatial dims and grouped convolutions stay whole."""
    dn = ins.attrs["dim_labels"]
    if ins.attrs.get("feature_group_count", 1) != 1 or ins.attrs.get("batch_group_count", 1) != 1:
        return None
    if any(lhs.tiles[d] > 1 for d in dn.input_spatial_dimensions) or any(
            rhs.tiles[d] > 1 for d in dn.kernel_spatial_dimensions):
        return None
    li, ki = dn.input_feature_dimension, dn.kernel_input_feature_dimension
    if lhs.tiles[li] != rhs.tiles[ki] or any(a[li] != b[ki] for a, b in
                                             zip(lhs.coords, rhs.coords, strict=True)):
        return None
    rank = ins.shape.rank
    tiles = [1] * rank
    tiles[dn.output_batch_dimension] = lhs.tiles[dn.input_batch_dimension]
    tiles[dn.output_feature_dimension] = rhs.tiles[dn.kernel_output_feature_dimension]
    coords = []
    for a, b in zip(lhs.coords, rhs.coords, strict=True):
        c = [0] * rank
        c[dn.output_batch_dimension] = a[dn.input_batch_dimension]
        c[dn.output_feature_dimension] = b[dn.kernel_output_feature_dimension]
        coords.append(tuple(c))
    return Contraction(Placement(tuple(tiles), tuple(coords)),
                       tuple((a[li],) for a in lhs.coords), lhs.tiles[li] > 1)


@dataclass(frozen=True, slots=True)
class Halo:
    """A convolution split along one input spatial dim: the rows each device takes from
    its neighbours below (`low`) and above (`high`), and its window without that padding."""

    input_dim: int
    low: int
    high: int
    window: Window
    placement: Placement


def halo(ins: Instruction, lhs: Placement, rhs: Placement,
         operand: tuple[int, ...]) -> Halo | None:
    """Stride-1, undilated, size-keeping ("same") windows along the one split spatial dim
    of the input, the kernel whole, the features unsplit."""
    dn = ins.attrs["dim_labels"]
    window = ins.attrs.get("window")
    if window is None or not rhs.is_replicated or lhs.tiles[dn.input_feature_dimension] > 1:
        return None
    if ins.attrs.get("feature_group_count", 1) != 1 or ins.attrs.get("batch_group_count", 1) != 1:
        return None
    split = [j for j, d in enumerate(dn.input_spatial_dimensions) if lhs.tiles[d] > 1]
    if len(split) != 1:
        return None
    j = split[0]
    dim = dn.input_spatial_dimensions[j]
    w = window.dimensions[j]
    local = operand[dim] // lhs.tiles[dim]
    if (w.stride != 1 or w.window_dilation != 1 or w.base_dilation != 1 or w.window_reversal
            or w.padding_low + w.padding_high != w.size - 1 or w.padding_low < 0
            or w.padding_high < 0 or max(w.padding_low, w.padding_high) > local):
        return None
    dims = list(window.dimensions)
    dims[j] = WindowDimension(size=w.size)
    rank = ins.shape.rank
    out_dim = dn.output_spatial_dimensions[j]
    tiles = [1] * rank
    tiles[dn.output_batch_dimension] = lhs.tiles[dn.input_batch_dimension]
    tiles[out_dim] = lhs.tiles[dim]
    coords = []
    for c in lhs.coords:
        o = [0] * rank
        o[dn.output_batch_dimension] = c[dn.input_batch_dimension]
        o[out_dim] = c[dim]
        coords.append(tuple(o))
    return Halo(dim, w.padding_low, w.padding_high, Window(tuple(dims)),
                Placement(tuple(tiles), tuple(coords)))


def dynamic_slice(src: Placement, operand: tuple[int, ...],
                  sizes: tuple[int, ...]) -> Placement | None:
    """A dynamic slice that takes whole tiled dims keeps their tiles."""
    if any(t > 1 and s != n for t, s, n in zip(src.tiles, sizes, operand, strict=True)):
        return None
    return src


@dataclass(frozen=True, slots=True)
class GatherPlan:
    """A gather's result placement; `masked`: the operand dims split over devices whose
    indices each device rebases to its own tile (out-of-tile rows become zeros, and an
    all-reduce over `split` sums the devices' rows)."""

    placement: Placement
    masked: tuple[int, ...]
    split: tuple[tuple[int, ...], ...]


def gather(ins: Instruction, operand: Placement, indices: Placement) -> GatherPlan | None:
    """Index-parallel (indices split along their batch dims), operand passthrough (the
    operand split along dims the gather takes whole), and trivially sliced operand dims
    (split along an indexed dim of slice size 1, as an embedding table is)."""
    a = ins.attrs
    op_shape = ins.operand(0).shape.dimensions
    ivd = a["index_vector_dim"]
    sizes = a["slice_sizes"]
    batching = set(a.get("operand_batching_dims") or ())
    collapsed = set(a["collapsed_slice_dims"])
    index_map = list(a["start_index_map"])
    if indices.tiles[ivd:ivd + 1] not in ((), (1,)):
        return None
    if any(operand.tiles[d] > 1 for d in batching) or any(
            indices.tiles[d] > 1 for d in a.get("start_indices_batching_dims") or ()):
        return None
    masked = []
    for d, t in enumerate(operand.tiles):
        if t == 1:
            continue
        if d in index_map:
            if sizes[d] != 1 or d not in collapsed:
                return None
            masked.append(d)
        elif sizes[d] != op_shape[d]:
            return None
    offset_dims = list(a["offset_dims"])
    window = [d for d in range(len(op_shape)) if d not in collapsed and d not in batching]
    batch_out = [d for d in range(ins.shape.rank) if d not in offset_dims]
    batch_in = [d for d in range(indices.tiles.__len__()) if d != ivd]
    tiles = [1] * ins.shape.rank
    for o, i in zip(batch_out, batch_in, strict=True):
        tiles[o] = indices.tiles[i]
    for o, w in zip(offset_dims, window, strict=True):
        tiles[o] = operand.tiles[w]
    coords = []
    for oc, ic in zip(operand.coords, indices.coords, strict=True):
        c = [0] * ins.shape.rank
        for o, i in zip(batch_out, batch_in, strict=True):
            c[o] = ic[i]
        for o, w in zip(offset_dims, window, strict=True):
            c[o] = oc[w]
        coords.append(tuple(c))
    split = tuple(tuple(c[d] for d in masked) for c in operand.coords)
    return GatherPlan(Placement(tuple(tiles), tuple(coords)), tuple(masked), split)


def scatter(ins: Instruction, operand: Placement) -> Placement | None:
    """Operand passthrough: the operand split along dims the updates cover whole. Returns
    where the updates must then be (split alike along the matching window dims); the
    indices are taken whole."""
    a = ins.attrs
    if ins.operand_count != 3 or operand.is_replicated:
        return None
    op_shape = ins.operand(0).shape.dimensions
    up_shape = ins.operand(2).shape.dimensions
    inserted = set(a["inserted_window_dims"]) | set(a.get("input_batching_dims") or ())
    window_op = [d for d in range(len(op_shape)) if d not in inserted]
    pairs = dict(zip(window_op, a["update_window_dims"], strict=True))
    index_map = set(a["scatter_dims_to_operand_dims"])
    for d, t in enumerate(operand.tiles):
        if t > 1 and (d in index_map or d not in pairs or up_shape[pairs[d]] != op_shape[d]):
            return None
    tiles = [1] * len(up_shape)
    for d, u in pairs.items():
        tiles[u] = operand.tiles[d]
    coords = []
    for oc in operand.coords:
        c = [0] * len(up_shape)
        for d, u in pairs.items():
            c[u] = oc[d]
        coords.append(tuple(c))
    return Placement(tuple(tiles), tuple(coords))


def dot_operands(ins: Instruction, out: Placement) -> tuple[Placement, Placement]:
    """Where a dot's operands must be for its result to land as `out` (backward
    propagation): batch and free dims tiled as the result's, contractions whole."""
    a = ins.attrs
    lb, lk = list(a.get("lhs_batch_dims", ())), list(a.get("lhs_contracting_dims", ()))
    rb, rk = list(a.get("rhs_batch_dims", ())), list(a.get("rhs_contracting_dims", ()))
    lrank, rrank = ins.operand(0).shape.rank, ins.operand(1).shape.rank
    lfree = [d for d in range(lrank) if d not in lb + lk]
    rfree = [d for d in range(rrank) if d not in rb + rk]
    nb = len(lb)

    def side(rank: int, batch: list[int], free: list[int], start: int) -> Placement:
        source = {d: i for i, d in enumerate(batch)}
        source.update({d: start + i for i, d in enumerate(free)})
        tiles = tuple(out.tiles[source[d]] if d in source else 1 for d in range(rank))
        coords = tuple(tuple(c[source[d]] if d in source else 0 for d in range(rank))
                       for c in out.coords)
        return Placement(tiles, coords)

    return (side(lrank, lb, lfree, nb), side(rrank, rb, rfree, nb + len(lfree)))


def scatter_updates_by_indices(ins: Instruction, indices: Placement) -> Placement | None:
    """Index-parallel scatter: where the updates must be for indices split along their
    batch dims (the matching update scatter dims split alike, window dims whole)."""
    a = ins.attrs
    ivd = a["index_vector_dim"]
    if ins.operand_count != 3 or indices.tiles[ivd:ivd + 1] not in ((), (1,)):
        return None
    if any(indices.tiles[d] > 1 for d in a.get("scatter_indices_batching_dims") or ()):
        return None
    rank = ins.operand(2).shape.rank
    scatter_dims = [d for d in range(rank) if d not in a["update_window_dims"]]
    batch = [d for d in range(len(indices.tiles)) if d != ivd]
    tiles = [1] * rank
    for u, i in zip(scatter_dims, batch, strict=True):
        tiles[u] = indices.tiles[i]
    coords = []
    for c in indices.coords:
        out = [0] * rank
        for u, i in zip(scatter_dims, batch, strict=True):
            out[u] = c[i]
        coords.append(tuple(out))
    return Placement(tuple(tiles), tuple(coords))
