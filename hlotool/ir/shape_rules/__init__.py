"""Shape rules: one function per opcode family, named by the opcode table (`opcodes.OPS`).

A rule takes a ShapeContext and returns the result shape XLA infers, or raises ShapeError
with a message in XLA's words. For opcodes whose result cannot be inferred (convert,
reshape, custom-call, ...) the rule checks the declared shape against the operands and
returns it. The verifier compares a rule's answer with the declared shape (layouts
ignored); the parser uses it to fill in omitted result shapes.

The rules live in one module per op family (`elementwise`, `data_movement`, `reduction`,
`contraction`, `control`, `collectives`, `leaves`; helpers in `shape_util`); this package
re-exports them for the table, which stays the one place an op is defined.

The reference is XLA's `ShapeInference` (xla/service/shape_inference.cc) together with
the checks of its `ShapeVerifier` / `InstructionVerifier` (xla/service/hlo_verifier.cc),
as shipped in jaxlib 0.10.2. Behaviours checked against that jaxlib are recorded in
tests/ir/test_shape_rules.py. Notable points:

* Inferred shapes keep XLA's layouts: ops whose inference copies an operand shape
  (unary/binary elementwise, select, clamp, reverse, fft, ...) keep that operand's
  layout, transpose permutes it, everything built from scratch (reduce, dot, gather,
  pad, concatenate, ...) gets the default descending layout.
* Elementwise unary/binary ops (and compare) may not broadcast implicitly: XLA's
  inference accepts `add(f32[2,3], f32[])`, its verifier rejects it; so do we. Select
  (scalar pred) and clamp (scalar bounds) may.
* Mixed floating-point precisions are accepted where inference accepts them (the
  result takes the higher precision type), as XLA does with mixed precision allowed.
* Dynamic dimensions: `Shape.dynamic[i]` marks a bounded `<=N` dimension; unbounded
  `?` dimensions have size UNBOUNDED and never carry the flag in results built here.
"""

from __future__ import annotations

from hlotool.ir.shape_rules.collectives import (
    all_gather,
    all_gather_start,
    all_reduce,
    all_reduce_done,
    all_to_all,
    collective_broadcast,
    collective_reduce,
    collective_permute,
    collective_permute_start,
    custom_call,
    infeed,
    outfeed,
    ragged_all_to_all,
    recv,
    recv_done,
    reduce_scatter,
    send,
    send_done,
    tuple_element_1,
)
from hlotool.ir.shape_rules.context import ProgramShape, ShapeContext, ShapeError
from hlotool.ir.shape_rules.contraction import (
    batch_norm,
    cholesky,
    convolution,
    dot,
    fft,
    ragged_dot,
    scaled_dot,
    triangular_solve,
)
from hlotool.ir.shape_rules.control import (
    add_dependency,
    async_done,
    async_start,
    call,
    conditional,
    copy_done,
    copy_start,
    fusion,
    get_tuple_element,
    token,
    tuple_,
    while_,
)
from hlotool.ir.shape_rules.data_movement import (
    bitcast,
    broadcast,
    concatenate,
    dynamic_reshape,
    dynamic_slice,
    dynamic_update_slice,
    gather,
    get_dimension_size,
    pad,
    reshape,
    reverse,
    scatter,
    set_dimension_size,
    slice_,
    transpose,
)
from hlotool.ir.shape_rules.elementwise import (
    bitcast_convert,
    clamp,
    compare,
    convert,
    elementwise_binary,
    elementwise_unary,
    same_as_operand,
    select,
    stochastic_convert,
)
from hlotool.ir.shape_rules.leaves import (
    declared,
    iota,
    rng,
    rng_bit_generator,
    rng_get_and_update_state,
    u32_scalar,
)
from hlotool.ir.shape_rules.reduction import (
    map_,
    reduce,
    reduce_window,
    scan,
    select_and_scatter,
    sort,
    topk,
)

__all__ = [
    "ProgramShape",
    "ShapeContext",
    "ShapeError",
    "add_dependency",
    "all_gather",
    "all_gather_start",
    "all_reduce",
    "all_reduce_done",
    "all_to_all",
    "async_done",
    "async_start",
    "batch_norm",
    "bitcast",
    "bitcast_convert",
    "broadcast",
    "call",
    "cholesky",
    "clamp",
    "collective_broadcast",
    "collective_reduce",
    "collective_permute",
    "collective_permute_start",
    "compare",
    "concatenate",
    "conditional",
    "convert",
    "convolution",
    "copy_done",
    "copy_start",
    "custom_call",
    "declared",
    "dot",
    "dynamic_reshape",
    "dynamic_slice",
    "dynamic_update_slice",
    "elementwise_binary",
    "elementwise_unary",
    "fft",
    "fusion",
    "gather",
    "get_dimension_size",
    "get_tuple_element",
    "infeed",
    "iota",
    "map_",
    "outfeed",
    "pad",
    "ragged_all_to_all",
    "ragged_dot",
    "recv",
    "recv_done",
    "reduce",
    "reduce_scatter",
    "reduce_window",
    "reshape",
    "reverse",
    "rng",
    "rng_bit_generator",
    "rng_get_and_update_state",
    "same_as_operand",
    "scaled_dot",
    "scan",
    "scatter",
    "select",
    "select_and_scatter",
    "send",
    "send_done",
    "set_dimension_size",
    "slice_",
    "sort",
    "stochastic_convert",
    "token",
    "topk",
    "transpose",
    "triangular_solve",
    "tuple_",
    "tuple_element_1",
    "u32_scalar",
    "while_",
]
