"""Contractions and linear algebra: dot, ragged-dot, scaled-dot, convolution, fft,
cholesky, triangular-solve and the batch-norm ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hlotool.ir.shape_rules.context import ShapeContext, ShapeError
from hlotool.ir.shape_rules.shape_util import (
    P,
    _arity,
    _attr,
    _change_et,
    _dyn_flags,
    _expect_array,
    _fail,
    _higher,
    _hs,
    _is_bounded_dyn,
    _is_dyn,
    _join,
    _keep,
    _mk,
    _reshape_like,
    _same_et_ignoring_fp,
    _tname,
    _window_output_shape,
    _window_text,
)
from hlotool.ir.types import UNBOUNDED, PrimitiveType, Shape


def _dot_dnums_text(
    lb: Sequence[int], lc: Sequence[int], rb: Sequence[int], rc: Sequence[int]
) -> str:
    parts = []
    if lb:
        parts.append(f"lhs_batch_dims={{{_join(lb, ',')}}}")
    parts.append(f"lhs_contracting_dims={{{_join(lc, ',')}}}")
    if rb:
        parts.append(f"rhs_batch_dims={{{_join(rb, ',')}}}")
    parts.append(f"rhs_contracting_dims={{{_join(rc, ',')}}}")
    return ", ".join(parts)


def _dot_dnums(ctx: ShapeContext) -> tuple[tuple[int, ...], ...]:
    return (
        tuple(ctx.attrs.get("lhs_batch_dims") or ()),
        tuple(ctx.attrs.get("lhs_contracting_dims") or ()),
        tuple(ctx.attrs.get("rhs_batch_dims") or ()),
        tuple(ctx.attrs.get("rhs_contracting_dims") or ()),
    )


def _check_dot(
    lhs: Shape, rhs: Shape, dnums: tuple[tuple[int, ...], ...], what: str = "dot"
) -> None:
    """ValidateDotDimensionNumbers + CheckDotDimensionConstraints."""
    lb, lc, rb, rc = dnums
    text = _dot_dnums_text(lb, lc, rb, rc)
    in_range = all(0 <= d < lhs.rank for d in (*lc, *lb)) and all(
        0 <= d < rhs.rank for d in (*rc, *rb)
    )
    if not in_range:
        raise _fail(f"A dimension number is out of range in Dot: {text}. {_hs(lhs)} {_hs(rhs)}")
    if len(set(lc) | set(lb)) != len(lc) + len(lb) or len(set(rc) | set(rb)) != len(rc) + len(rb):
        raise _fail(f"A dimension number is not unique in Dot: {text}.")
    sym = "<dot>" if what == "dot" else "<ragged_dot>"

    def fail(addendum: str) -> ShapeError:
        return _fail(
            f"Cannot infer shape for {what} operation: {_hs(lhs)} {sym} {_hs(rhs)}. {addendum}"
        )

    if len(lc) != len(rc):
        raise fail("Must specify the same number of contracting dimensions for lhs and rhs.")
    for a, b in zip(lc, rc, strict=True):
        x, y = lhs.dimensions[a], rhs.dimensions[b]
        if x != y and x != UNBOUNDED and y != UNBOUNDED:
            raise fail("Contracting dimension sizes are not compatible.")
    if len(lb) != len(rb):
        raise fail("Must the same number of batch dimensions for lhs and rhs.")
    for a, b in zip(lb, rb, strict=True):
        x, y = lhs.dimensions[a], rhs.dimensions[b]
        if x != y and x != UNBOUNDED and y != UNBOUNDED:
            raise fail("Batch dimension sizes are not compatible.")


def _dot_result_dims(
    lhs: Shape, rhs: Shape, dnums: tuple[tuple[int, ...], ...], rhs_group: Sequence[int] = ()
) -> tuple[list[int], list[bool]]:
    """GenerateDotResultDimensions: batch dims, lhs free dims, rhs free dims."""
    lb, lc, rb, rc = dnums
    dims: list[int] = []
    dyn: list[bool] = []
    for d in lb:
        dims.append(lhs.dimensions[d])
        dyn.append(_is_dyn(lhs, d))
    for d in range(lhs.rank):
        if d not in lc and d not in lb:
            dims.append(lhs.dimensions[d])
            dyn.append(_is_dyn(lhs, d))
    for d in range(rhs.rank):
        if d not in rc and d not in rb and d not in rhs_group:
            dims.append(rhs.dimensions[d])
            dyn.append(_is_dyn(rhs, d))
    return dims, dyn


def _check_packed_nibble(ctx: ShapeContext, kind: str, lhs: Shape, rhs: Shape) -> None:
    precision = tuple(ctx.attrs.get("operand_precision") or ())
    nibbles = sum(1 for p in precision if str(p).lower() == "packed_nibble")
    if nibbles == 1:
        raise _fail(f"{kind} cannot have a single packed nibble argument")
    if nibbles == 2:
        for side, s in (("LHS", lhs), ("RHS", rhs)):
            if not (s.element_type.is_integral and s.element_type.bits == 8):
                raise _fail(
                    f"Packed nibble precision can only apply to 8 bit integers. {side} is "
                    f"{_hs(s)}."
                )


def _preferred(ctx: ShapeContext, lhs: Shape, rhs: Shape) -> PrimitiveType:
    """The declared element type (XLA's preferred_element_type), else the higher one."""
    if ctx.declared is not None and ctx.declared.is_array:
        return ctx.declared.element_type
    return _higher(lhs, rhs)


def dot(ctx: ShapeContext) -> Shape:
    """InferDotOpShape: result = batch dims, lhs free dims, rhs free dims; element type =
    the declared one if any (preferred element type), else the operands' higher one."""
    _arity(ctx, 2)
    lhs, rhs = ctx.operands
    _expect_array(lhs, "lhs of dot")
    _expect_array(rhs, "rhs of dot")
    dnums = _dot_dnums(ctx)
    _check_dot(lhs, rhs, dnums)
    _check_packed_nibble(ctx, "Dot", lhs, rhs)
    dims, dyn = _dot_result_dims(lhs, rhs, dnums)
    return _mk(_preferred(ctx, lhs, rhs), dims, dyn)


def ragged_dot(ctx: ShapeContext) -> Shape:
    """InferRaggedDotOpShape: exactly one lhs ragged dim; three modes (non-contracting,
    contracting -> leading group dim, batch)."""
    _arity(ctx, 3)
    lhs, rhs, group_sizes = ctx.operands
    _expect_array(lhs, "lhs of ragged dot")
    _expect_array(rhs, "rhs of ragged dot")
    _expect_array(group_sizes, "group_sizes of ragged dot")

    def fail(addendum: str) -> ShapeError:
        return _fail(
            f"Cannot infer shape for ragged dot operation: {_hs(lhs)} <ragged_dot> {_hs(rhs)}. "
            f"{addendum}"
        )

    dnums = _dot_dnums(ctx)
    lb, lc, rb, rc = dnums
    _check_dot(lhs, rhs, dnums, "ragged dot")
    ragged = tuple(ctx.attrs.get("lhs_ragged_dims") or ())
    if len(ragged) != 1:
        raise fail("There must be exactly one ragged dimension in the lhs.")
    rd = ragged[0]
    if not 0 <= rd < lhs.rank:
        raise fail(f"lhs ragged dimension {rd} is out of range [0, {lhs.rank})")
    mode = "batch" if rd in lb else "contracting" if rd in lc else "non-contracting"
    non_contracting = [d for d in range(lhs.rank) if d not in lc and d not in lb]
    if mode == "batch":
        prefix = list(lb[: lb.index(rd)])
    elif mode == "contracting":
        prefix = [*lb, *lc[: lc.index(rd)]]
    else:
        prefix = [*lb, *non_contracting[: non_contracting.index(rd)]]
    expected = [lhs.dimensions[d] for d in prefix]
    if group_sizes.rank == 0:
        raise fail("expected group_sizes to have rank >= 1, got 0")
    if group_sizes.rank != 1:
        if group_sizes.rank != len(expected) + 1:
            raise fail(
                f"expected group_sizes to have rank {len(expected) + 1}, got {group_sizes.rank}"
            )
        if list(group_sizes.dimensions[:-1]) != expected:
            raise fail(
                f"group_sizes is expected to have shape [{_join(expected)}, "
                f"{group_sizes.dimensions[-1]}], got [{_join(group_sizes.dimensions)}]"
            )
    num_groups = group_sizes.dimensions[-1]
    rhs_group = tuple(ctx.attrs.get("rhs_group_dims") or ())
    for g in rhs_group:
        if not 0 <= g < rhs.rank:
            raise fail(f"rhs group dimension {g} is out of range [0, {rhs.rank})")
        if g in rb or g in rc:
            raise fail("rhs group dimension cannot be a batch or contracting dimension")
    if mode in ("batch", "contracting"):
        if rhs_group:
            raise fail(
                "There must be zero group dimensions in the rhs when the ragged dimension is "
                "batch or contracting."
            )
    else:
        if len(rhs_group) != 1:
            raise fail(
                "There must be exactly one group dimension in the rhs when the lhs ragged "
                "dimension is non-contracting."
            )
        size = rhs.dimensions[rhs_group[0]]
        if size != num_groups and UNBOUNDED not in (size, num_groups):
            raise fail(f"rhs group dimension is expected to have size={num_groups}, got {size}")
    dims: list[int] = []
    dyn: list[bool] = []
    if mode == "contracting":
        dims.append(num_groups)
        dyn.append(_is_dyn(group_sizes, group_sizes.rank - 1))
    more_dims, more_dyn = _dot_result_dims(lhs, rhs, dnums, rhs_group)
    return _mk(_preferred(ctx, lhs, rhs), dims + more_dims, dyn + more_dyn)


def scaled_dot(ctx: ShapeContext) -> Shape:
    """scaled-dot(lhs, lhs_scale, rhs, rhs_scale): the dot of lhs and rhs (XLA's inference
    does not constrain the scales beyond being arrays)."""
    _arity(ctx, 4)
    lhs, lhs_scale, rhs, rhs_scale = ctx.operands
    _expect_array(lhs, "lhs of scaled dot")
    _expect_array(lhs_scale, "lhs scale of scaled dot")
    _expect_array(rhs, "rhs of scaled dot")
    _expect_array(rhs_scale, "rhs scale of scaled dot")
    dnums = _dot_dnums(ctx)
    _check_dot(lhs, rhs, dnums)
    dims, dyn = _dot_result_dims(lhs, rhs, dnums)
    return _mk(_preferred(ctx, lhs, rhs), dims, dyn)


def _dim_labels_text(dn: Any) -> str:
    n = len(dn.input_spatial_dimensions)
    rank = n + 2

    def part(a: int, b: int, ca: str, cb: str, spatial: Sequence[int]) -> str:
        chars = ["?"] * max(rank, a + 1, b + 1, *(s + 1 for s in spatial), 0)
        chars[a], chars[b] = ca, cb
        for i, s in enumerate(spatial):
            chars[s] = str(i)
        return "".join(chars)

    try:
        lhs = part(
            dn.input_batch_dimension, dn.input_feature_dimension, "b", "f",
            dn.input_spatial_dimensions,
        )
        rhs = part(
            dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension, "i", "o",
            dn.kernel_spatial_dimensions,
        )
        out = part(
            dn.output_batch_dimension, dn.output_feature_dimension, "b", "f",
            dn.output_spatial_dimensions,
        )
        return f"{lhs}_{rhs}->{out}"
    except (IndexError, ValueError):
        return repr(dn)


def convolution(ctx: ShapeContext) -> Shape:
    """InferConvolveShape: output spatial size = floor((padded dilated input - dilated
    window) / stride) + 1, placed per the output dim labels."""
    _arity(ctx, 2)
    lhs, rhs = ctx.operands
    if rhs.is_tuple:
        if len(rhs.tuple_shapes) != 2:
            raise _fail(
                "rhs of convolution, if a tuple, must have 2 elements for sparsity; got: "
                f"{_hs(rhs)}"
            )
        rhs = rhs.tuple_shapes[0]
    _expect_array(lhs, "lhs of convolution")
    _expect_array(rhs, "rhs of convolution")
    fgc = ctx.attrs.get("feature_group_count") or 1
    bgc = ctx.attrs.get("batch_group_count") or 1
    dn = _attr(ctx, "dim_labels")
    window = ctx.attrs.get("window")
    wdims = tuple(getattr(window, "dimensions", ()))
    labels = _dim_labels_text(dn)
    if fgc <= 0:
        raise _fail(f"feature_group_count must be a positive number, got {fgc}")
    if bgc <= 0:
        raise _fail(f"batch_group_count must be a positive number, got {bgc}")
    if bgc > 1 and fgc > 1:
        raise _fail(
            f"both batch_group_count {bgc} and feature_group_count {fgc} cannot be greater "
            "than 1"
        )
    n = len(dn.input_spatial_dimensions)
    if len(dn.kernel_spatial_dimensions) != n:
        raise _fail(
            "Both arguments to convolution must have same number of dimensions.\n"
            f"Numbers: {labels}"
        )
    if len(dn.output_spatial_dimensions) != n:
        raise _fail(
            "Both input and output of convolution must have same number of dimensions.\n"
            f"Numbers: {labels}"
        )
    if len(wdims) != n:
        raise _fail(
            "Window must have same number of dimensions as dimension numbers.\n"
            f"Window: {_window_text(window)}\nDimension numbers: {labels}."
        )
    rank = n + 2
    if lhs.rank != rank:
        raise _fail(f"The LHS argument to a convolution should have rank {rank}; lhs: {_hs(lhs)}.")
    if rhs.rank != rank:
        raise _fail(f"The RHS argument to a convolution should have rank {rank}; rhs: {_hs(rhs)}.")
    in_dn = [dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions]
    k_dn = [
        dn.kernel_input_feature_dimension,
        dn.kernel_output_feature_dimension,
        *dn.kernel_spatial_dimensions,
    ]
    out_dn = [dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions]
    if not all(0 <= d < rank for d in (*in_dn, *k_dn, *out_dn)):
        raise _fail(f"A dimension number is out of range in convolution: {labels}.")
    expected = list(range(rank))
    if sorted(in_dn) != expected:
        raise _fail(
            f"Input dimensions of convolution must contain each dimension exactly once: {labels}."
        )
    if sorted(k_dn) != expected:
        raise _fail(
            f"Window dimensions of convolution must contain each dimension exactly once: {labels}."
        )
    if sorted(out_dn) != expected:
        raise _fail(
            f"Output dimensions of convolution must contain each dimension exactly once: {labels}."
        )
    input_spatial = [lhs.dimensions[d] for d in dn.input_spatial_dimensions]
    input_features = lhs.dimensions[dn.input_feature_dimension]
    input_batch = lhs.dimensions[dn.input_batch_dimension]
    kernel_spatial = [rhs.dimensions[d] for d in dn.kernel_spatial_dimensions]
    kernel_in = rhs.dimensions[dn.kernel_input_feature_dimension]
    kernel_out = rhs.dimensions[dn.kernel_output_feature_dimension]
    conv = f"<conv>({_hs(lhs)}, {_hs(rhs)})"
    if kernel_out % bgc:
        raise _fail(
            f"Expected output feature dimension size (value {kernel_out}) to be a multiple of "
            f"batch group count {bgc}; got {conv}\nDimension numbers: {{{labels}}}."
        )
    if input_features % fgc or input_features // fgc != kernel_in:
        raise _fail(
            f"Expected LHS feature dimension (value {input_features}) to be a multiple of "
            f"feature_group_count (value {fgc}), and LHS feature dimension / "
            f"feature_group_count = RHS feature dimension (value {kernel_in}); got {conv}\n"
            f"Dimension numbers: {{{labels}}}."
        )
    if kernel_out % fgc:
        raise _fail(
            f"Expected output feature dimension (value {kernel_out}) to be divisible by "
            f"feature_group_count (value {fgc}); got {conv}\nDimension numbers: {{{labels}}}."
        )
    if input_batch % bgc:
        raise _fail(
            f"Expected input batch dimension (value {input_batch}) to be divisible by "
            f"batch_group_count (value {bgc}); got {conv}\nDimension numbers: {{{labels}}}."
        )
    if kernel_spatial != [w.size for w in wdims]:
        raise _fail(
            f"Window dimensions do not match RHS shape:\n\tRHS shape: {_hs(rhs)}\n\t"
            f"Window: {_window_text(window)}\n\tDimension numbers: {{{labels}}}."
        )
    base = _mk(lhs.element_type, input_spatial, [d == UNBOUNDED for d in input_spatial])
    window_out = _window_output_shape(base, window, lhs.element_type)
    dims = [0] * rank
    dims[dn.output_batch_dimension] = input_batch // bgc if input_batch != UNBOUNDED else UNBOUNDED
    dims[dn.output_feature_dimension] = kernel_out
    for i, d in enumerate(dn.output_spatial_dimensions):
        dims[d] = window_out.dimensions[i]
    dyn = [False] * rank
    for i in range(rank):
        if _is_dyn(lhs, i):
            if i == dn.input_batch_dimension:
                dyn[dn.output_batch_dimension] = True
            elif i != dn.input_feature_dimension:
                for j, s in enumerate(dn.input_spatial_dimensions):
                    if i == s:
                        dyn[dn.output_spatial_dimensions[j]] = True
        if _is_dyn(rhs, i):
            if i == dn.kernel_output_feature_dimension:
                raise _fail(
                    "Dynamic output feature dim on convolution kernel is not supported: rhs "
                    f"shape is {_hs(rhs)} "
                )
            if i != dn.kernel_input_feature_dimension:
                for j, s in enumerate(dn.kernel_spatial_dimensions):
                    if i == s:
                        dyn[dn.output_spatial_dimensions[j]] = True
    _check_packed_nibble(ctx, "Convolution", lhs, rhs)
    return _mk(_preferred(ctx, lhs, rhs), dims, dyn)


def fft(ctx: ShapeContext) -> Shape:
    """InferFftShape: FFT/IFFT keep the complex shape; RFFT real -> complex with the last
    dim n/2+1; IRFFT complex -> real with the last dim fft_length[-1]."""
    _arity(ctx, 1)
    operand = ctx.operands[0]
    fft_type = _attr(ctx, "fft_type")
    length = tuple(_attr(ctx, "fft_length"))
    n = len(length)
    if n < 1 or n > 3:
        raise _fail(f"FFT only supports ranks 1-3; got {n}.")
    _expect_array(operand, "operand of fft")
    t = operand.element_type

    def check_rank() -> None:
        if operand.rank < n:
            raise _fail(
                f"FFT of rank {n} requires input of at least same rank; got input of rank "
                f"{operand.rank}"
            )

    rank = operand.rank
    if fft_type in ("FFT", "IFFT"):
        if not t.is_complex:
            raise _fail(f"{fft_type} requires complex input type, found {_tname(t)}.")
        check_rank()
        return _keep(operand)
    if fft_type == "RFFT":
        if t not in (P.F32, P.F64):
            raise _fail(f"RFFT requires F32 or F64 input type, found {_tname(t)}.")
        check_rank()
        for i in range(n):
            d = operand.dimensions[rank - n + i]
            if d != UNBOUNDED and d != length[i]:
                raise _fail(
                    "RFFT requires innermost dimensions match fft_length but dimension "
                    f"{rank - n + i} is {d} and should be {length[i]}."
                )
        result = _change_et(operand, P.C64 if t is P.F32 else P.C128)
        if length[-1] != 0:
            dims = list(result.dimensions)
            dims[-1] = length[-1] // 2 + 1
            dyn = _dyn_flags(result)
            dyn[-1] = _is_bounded_dyn(operand, rank - 1)
            result = _reshape_like(result, dims=dims, dyn=dyn)
        return result
    if fft_type == "IRFFT":
        if not t.is_complex:
            raise _fail(f"IRFFT requires complex input type, found {_tname(t)}.")
        check_rank()
        for i in range(n - 1):
            d = operand.dimensions[rank - n + i]
            if d != length[i]:
                raise _fail(
                    "IRFFT requires all but one innermost dimensions match fft_length, but "
                    f"dimension {rank - n + i} is {d} and should be {length[i]}."
                )
        last = operand.dimensions[rank - 1]
        if (last != 0 or length[-1] != 0) and last != UNBOUNDED and last != length[-1] // 2 + 1:
            raise _fail(
                "IRFFT requires innermost dimension matches fft_length/2+1, but dimension "
                f"{rank - 1} is {last} and should be {length[-1] // 2 + 1}."
            )
        dims = list(operand.dimensions)
        dims[-1] = length[-1]
        dyn = _dyn_flags(operand)
        dyn[-1] = _is_bounded_dyn(operand, rank - 1)
        return _reshape_like(operand, et=t.component_type, dims=dims, dyn=dyn)
    raise _fail(f"Unexpected fft_type: {fft_type}")


def cholesky(ctx: ShapeContext) -> Shape:
    """InferCholeskyShape: floating/complex, rank >= 2, square minor dims."""
    _arity(ctx, 1)
    a = ctx.operands[0]
    if not a.is_array or not (a.element_type.is_float or a.element_type.is_complex):
        raise _fail(
            "Expected element type in shape to be floating or complex for Cholesky; got "
            f"{_tname(a.element_type)}."
        )
    if a.rank < 2:
        raise _fail(f"The 'a' argument to Cholesky must have rank >= 2, got shape {_hs(a)}")
    x, y = a.dimensions[-2], a.dimensions[-1]
    if x != y and UNBOUNDED not in (x, y):
        raise _fail(f"The two minor dimensions of 'a' must have compatible size, got {_hs(a)}.")
    return _keep(a)


_TRANSPOSE_OPTIONS = {"TRANSPOSE_INVALID": 0, "NO_TRANSPOSE": 1, "TRANSPOSE": 2, "ADJOINT": 3}


def triangular_solve(ctx: ShapeContext) -> Shape:
    """InferTriangularSolveShape: result = b. A missing transpose_a is XLA's
    TRANSPOSE_INVALID (XLA prints transpose_a whenever it is valid)."""
    _arity(ctx, 2)
    a, b = ctx.operands
    if (
        not a.is_array
        or not b.is_array
        or not (a.element_type.is_float or a.element_type.is_complex)
        or a.element_type is not b.element_type
    ):
        raise _fail(
            "Expected element types in shape to be floating or complex and identical for "
            f"TriangularSolve; got {_tname(a.element_type)} and {_tname(b.element_type)}."
        )
    if a.rank < 2:
        raise _fail(
            f"The 'a' argument to TriangularSolve must have rank >= 2, got shape {_hs(a)}"
        )
    if b.rank != a.rank:
        raise _fail(
            f"Arguments to triangular solve must have equal rank; got {_hs(b)} and {_hs(a)}."
        )
    x, y = a.dimensions[-2], a.dimensions[-1]
    if x != y and UNBOUNDED not in (x, y):
        raise _fail(f"The two minor dimensions of 'a' must have equal size, got {_hs(a)}.")
    shared = b.dimensions[-2] if ctx.attrs.get("left_side") else b.dimensions[-1]
    if y != shared and UNBOUNDED not in (y, shared):
        raise _fail(
            f"The shared dimension of 'a' and 'b' does not match, got shapes {_hs(a)} and {_hs(b)}"
        )
    if a.dimensions[:-2] != b.dimensions[:-2]:
        raise _fail(
            "The leading batch dimensions of the arguments to triangular solve must be equal; "
            f"got {_hs(b)} and {_hs(a)}."
        )
    transpose_a = ctx.attrs.get("transpose_a") or "TRANSPOSE_INVALID"
    if transpose_a not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        number = _TRANSPOSE_OPTIONS.get(transpose_a, transpose_a)
        raise _fail(f"Invalid transpose option value for triangular solve ({number}).")
    return _keep(b)


def batch_norm(ctx: ShapeContext) -> Shape:
    """batch-norm-training -> (operand, mean[f], var[f]); batch-norm-inference -> operand;
    batch-norm-grad -> (grad_operand, grad_scale[f], grad_offset[f])."""
    op = ctx.opcode
    feature_index = _attr(ctx, "feature_index")
    _attr(ctx, "epsilon")
    if op == "batch-norm-training":
        _arity(ctx, 3)
        operand, scale, offset = ctx.operands
        named = [("offset factor", offset), ("scale factor", scale)]
        rank1 = [("Offset", offset), ("Scale", scale)]
        arrays = [
            (operand, "operand of batch norm training"),
            (offset, "offset input of batch norm training"),
            (scale, "scale input of batch norm training"),
        ]
    elif op == "batch-norm-inference":
        _arity(ctx, 5)
        operand, scale, offset, mean, variance = ctx.operands
        named = [
            ("offset factor", offset), ("scale factor", scale), ("mean", mean),
            ("variance", variance),
        ]
        rank1 = [("Offset", offset), ("Scale", scale)]
        arrays = [(operand, "operand of batch norm inference"),
                  (offset, "offset input of batch norm inference"),
                  (scale, "scale input of batch norm inference")]
    elif op == "batch-norm-grad":
        _arity(ctx, 5)
        operand, scale, mean, variance, grad = ctx.operands
        named = [("mean", mean), ("scale factor", scale), ("variance", variance)]
        rank1 = [("Mean", mean), ("Scale", scale), ("Var", variance)]
        arrays = [
            (operand, "operand of batch norm grad"),
            (scale, "scale input of batch norm grad"),
            (mean, "mean input of batch norm grad"),
            (variance, "var input of batch norm grad"),
            (grad, "output_grad input of batch norm grad"),
        ]
    else:
        raise _fail(f"batch_norm does not know opcode {op}")
    for s, what in arrays:
        _expect_array(s, what)
    for s in ctx.operands:
        _expect_array(s, f"operand of {op}")
    if feature_index >= operand.rank:
        raise _fail(
            f"Expected feature_index of {op} to be smaller than the rank of operand_shape; got "
            f"feature_index {feature_index}, and rank {operand.rank}."
        )
    if feature_index < 0:
        raise _fail(
            f"Expected feature_index of {op} to be a non-negative number, got {feature_index}."
        )
    if op == "batch-norm-grad":
        if operand.rank != grad.rank:
            raise _fail(
                f"Expected operand_shape of {op} to have the same rank as output_grad_shape; "
                f"got rank(oprand_shape) {operand.rank}, and rank(output_grad_shape) "
                f"{grad.rank}."
            )
    elif operand.rank == 0:
        raise _fail(f"Expected the rank of operand to {op} to be at least 1; got 0.")
    for label, s in rank1:
        if s.rank != 1:
            raise _fail(f"{label} input of {op} must have rank 1, but has rank {s.rank}.")
    if not operand.element_type.is_float:
        raise _fail(
            f"The operand to {op} must have a floating point element type, but the shape is "
            f"{_tname(operand.element_type)}."
        )
    if op == "batch-norm-grad" and not grad.element_type.is_float:
        raise _fail(
            f"The output_grad to {op} must have a floating point element type, but the shape "
            f"is {_tname(grad.element_type)}."
        )
    for label, s in ([("output_grad", grad)] if op == "batch-norm-grad" else []) + named:
        if not _same_et_ignoring_fp(s, operand):
            raise _fail(
                f"The inputs should have the same element type for {op}, but the shape of "
                f"{label} is {_tname(s.element_type)} and the shape of operand is "
                f"{_tname(operand.element_type)}."
            )
    features = operand.dimensions[feature_index]
    for label, s in named:
        if s.rank != 1:
            raise _fail(f"The {label} input of {op} must have rank 1, but has rank {s.rank}.")
        size = s.dimensions[0]
        if size != features and UNBOUNDED not in (size, features):
            raise _fail(
                f"The size of {label} should be compatible with feature count, but the size of "
                f"{label} is {size} and the feature count is {features}."
            )
    if op == "batch-norm-grad":
        for i in range(operand.rank):
            x, y = operand.dimensions[i], grad.dimensions[i]
            if x != y and UNBOUNDED not in (x, y):
                raise _fail(
                    "The bounds of operand shape should be compatible with output_grad's, but "
                    f"the bound of operand_shape at dimension {i} is {x} and the bound of "
                    f"output_grad_shape is {y}."
                )
    if op == "batch-norm-inference":
        return _keep(operand)
    feature_shape = _mk(operand.element_type, (features,), (_is_dyn(operand, feature_index),))
    return Shape.tuple_of([_keep(operand), feature_shape, feature_shape])
