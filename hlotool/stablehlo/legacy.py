"""Deprecated StableHLO ops lowered the way XLA legalizes them.

* `stablehlo.einsum` / `stablehlo.unary_einsum`: XLA rewrites unary_einsum into an einsum
  with a scalar one (`UnaryEinsumToEinsum`) and einsum into dot_general
  (`EinsumToDotGeneral`): labels found in both operands and in the result become batch
  dimensions, labels found in both but not in the result are contracted, and the
  dot_general result (batch, lhs free, rhs free) is transposed into the result's label
  order. Labels found in one operand only and missing from the result are summed away
  with a `reduce` first (dot_general cannot drop them).
* `stablehlo.torch_index_select`: a `gather`, as XLA's `TorchIndexSelect` builds it (batch
  dimensions are indexed with iotas concatenated onto the indices).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hlotool.diagnostics import error_at
from hlotool.stablehlo.attrs import get_int, get_string
from hlotool.stablehlo.lowering import CONVERTERS, OpCtx, _pos, constant
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape

O = Opcode
P = PrimitiveType
Results = list[Instruction]


def _adder(ctx: OpCtx, et: PrimitiveType) -> Computation:
    lw = ctx.lw
    comp = Computation(lw.names.fresh("einsum_sum"), location=_pos(ctx.tok))
    scalar = Shape.scalar(et)
    params = [
        lw.emit(comp, O.PARAMETER, scalar, [], name=f"Arg_{i}", parameter_number=i, where=ctx.tok)
        for i in range(2)
    ]
    opcode = O.OR if et == P.PRED else O.ADD
    comp.root = lw.emit(comp, opcode, scalar, params, where=ctx.tok)
    lw.module.add_computation(comp)
    return comp


def _zero(ctx: OpCtx, et: PrimitiveType) -> Instruction:
    return constant(
        ctx.lw, ctx.scope.comp, np.zeros((), et.numpy_dtype), Shape.scalar(et), ctx.tok
    )


def _parse_config(ctx: OpCtx, config: str, n_inputs: int) -> tuple[list[str], str]:
    tok = ctx.op.attr_tok("einsum_config") or ctx.tok
    text = config.replace(" ", "")
    if "->" not in text:
        raise error_at(tok, f"einsum_config {config!r} needs an explicit '->' result")
    inputs, result = text.split("->", 1)
    labels = inputs.split(",")
    if n_inputs == 1 and len(labels) == 2 and labels[0] == "":
        labels = labels[1:]
    if len(labels) != n_inputs:
        raise error_at(
            tok, f"einsum_config {config!r} names {len(labels)} operands, but the op has {n_inputs}"
        )
    for part in [*labels, result]:
        if "." in part:
            raise error_at(tok, "einsum_config with '...' is not supported")
        if not all(c.isalpha() for c in part):
            raise error_at(tok, f"einsum_config {config!r}: labels must be letters")
        if len(set(part)) != len(part):
            raise error_at(tok, f"einsum_config {config!r}: repeated label in {part!r}")
    for c in result:
        if not any(c in lab for lab in labels):
            raise error_at(tok, f"einsum_config {config!r}: result label {c!r} is in no operand")
    return labels, result


def _check_rank(ctx: OpCtx, x: Instruction, labels: str, which: str) -> None:
    if x.shape.rank != len(labels):
        raise ctx.error(f"{which} has rank {x.shape.rank}, but einsum_config gives it {labels!r}")


def _sum_away(ctx: OpCtx, x: Instruction, labels: str, keep: set[str]) -> tuple[Instruction, str]:
    """Reduce-sum the dimensions of `x` whose labels are not in `keep`."""
    drop = [i for i, c in enumerate(labels) if c not in keep]
    if not drop:
        return x, labels
    et = x.shape.element_type
    dims = [d for i, d in enumerate(x.shape.dimensions) if i not in drop]
    out = ctx.emit(
        O.REDUCE,
        Shape.array(et, dims),
        [x, _zero(ctx, et)],
        {"dimensions": tuple(drop), "to_apply": _adder(ctx, et)},
    )
    return out, "".join(c for i, c in enumerate(labels) if i not in drop)


def _transpose_to(ctx: OpCtx, x: Instruction, labels: str, result: str) -> Instruction:
    if labels == result:
        return x
    perm = tuple(labels.index(c) for c in result)
    dims = [x.shape.dimensions[p] for p in perm]
    return ctx.emit(O.TRANSPOSE, Shape.array(x.shape.element_type, dims), [x], {"dimensions": perm})


def _einsum2(
    ctx: OpCtx, lhs: Instruction, rhs: Instruction, ll: str, rl: str, result: str
) -> Instruction:
    out_shape = ctx.result_shape()
    lhs, ll = _sum_away(ctx, lhs, ll, set(rl) | set(result))
    rhs, rl = _sum_away(ctx, rhs, rl, set(ll) | set(result))
    for c in ll:
        if c in rl:
            a, b = lhs.shape.dimensions[ll.index(c)], rhs.shape.dimensions[rl.index(c)]
            if a != b:
                raise ctx.error(f"einsum label {c!r} has size {a} in lhs but {b} in rhs")
    batch = [c for c in ll if c in rl and c in result]
    contract = [c for c in ll if c in rl and c not in result]
    lhs_free = [c for c in ll if c not in rl]
    rhs_free = [c for c in rl if c not in ll]
    sizes = {c: lhs.shape.dimensions[i] for i, c in enumerate(ll)}
    sizes.update({c: rhs.shape.dimensions[i] for i, c in enumerate(rl)})
    dot_labels = "".join(batch + lhs_free + rhs_free)
    attrs: dict[str, Any] = {
        "lhs_batch_dims": tuple(ll.index(c) for c in batch),
        "lhs_contracting_dims": tuple(ll.index(c) for c in contract),
        "rhs_batch_dims": tuple(rl.index(c) for c in batch),
        "rhs_contracting_dims": tuple(rl.index(c) for c in contract),
    }
    et = out_shape.element_type
    dot = ctx.emit(O.DOT, Shape.array(et, [sizes[c] for c in dot_labels]), [lhs, rhs], attrs)
    return _transpose_to(ctx, dot, dot_labels, result)


def _einsum(ctx: OpCtx) -> Results:
    ctx.arity(2)
    labels, result = _parse_config(ctx, ctx.need("einsum_config", get_string), 2)
    lhs, rhs = ctx.operands
    _check_rank(ctx, lhs, labels[0], "lhs")
    _check_rank(ctx, rhs, labels[1], "rhs")
    return [_einsum2(ctx, lhs, rhs, labels[0], labels[1], result)]


def _unary_einsum(ctx: OpCtx) -> Results:
    ctx.arity(1)
    labels, result = _parse_config(ctx, ctx.need("einsum_config", get_string), 1)
    x = ctx.operands[0]
    _check_rank(ctx, x, labels[0], "operand")
    x, xl = _sum_away(ctx, x, labels[0], set(result))
    out = _transpose_to(ctx, x, xl, result)
    want = ctx.result_shape().element_type
    if out.shape.element_type != want:
        out = ctx.emit(O.CONVERT, Shape.array(want, out.shape.dimensions), [out])
    return [out]


def _torch_index_select(ctx: OpCtx) -> Results:
    ctx.arity(2)
    x, index = ctx.operands
    rank = x.shape.rank
    dim = ctx.need("dim", get_int)
    batch_dims = ctx.need("batch_dims", get_int)
    if dim < 0:
        dim += rank
    if batch_dims < 0:
        batch_dims += index.shape.rank
    if not 0 <= dim < rank:
        raise ctx.error(f"dim {dim} is out of range for an operand of rank {rank}")
    if not 0 <= batch_dims <= min(dim, index.shape.rank):
        raise ctx.error(f"batch_dims {batch_dims} must lie in [0, min(dim, index rank)]")
    idims: Sequence[int] = index.shape.dimensions
    for i in range(batch_dims):
        if idims[i] != x.shape.dimensions[i]:
            raise ctx.error(f"batch dimension {i} differs between operand and index")
    index_vector_dim = len(idims)
    if batch_dims > 0:
        it = index.shape.element_type
        col = Shape.array(it, [*idims, 1])
        parts = [
            ctx.emit(O.IOTA, col, [], {"iota_dimension": b}) for b in range(batch_dims)
        ]
        parts.append(ctx.emit(O.RESHAPE, col, [index]))
        index = ctx.emit(
            O.CONCATENATE,
            Shape.array(it, [*idims, batch_dims + 1]),
            parts,
            {"dimensions": (index_vector_dim,)},
        )
    slice_sizes = list(x.shape.dimensions)
    offset_dims: list[int] = []
    collapsed: list[int] = []
    start_index_map: list[int] = []
    for i in range(rank):
        if i < batch_dims or i == dim:
            slice_sizes[i] = min(slice_sizes[i], 1)
            collapsed.append(i)
            start_index_map.append(i)
        elif i < dim:
            offset_dims.append(i)
        else:
            offset_dims.append(i + index_vector_dim - (1 + batch_dims))
    attrs: dict[str, Any] = {
        "offset_dims": tuple(offset_dims),
        "collapsed_slice_dims": tuple(collapsed),
        "start_index_map": tuple(start_index_map),
        "operand_batching_dims": (),
        "start_indices_batching_dims": (),
        "index_vector_dim": index_vector_dim,
        "slice_sizes": tuple(slice_sizes),
        "indices_are_sorted": False,
    }
    return [ctx.emit(O.GATHER, ctx.result_shape(), [x, index], attrs)]


CONVERTERS["stablehlo.einsum"] = _einsum
CONVERTERS["stablehlo.unary_einsum"] = _unary_einsum
CONVERTERS["stablehlo.torch_index_select"] = _torch_index_select
