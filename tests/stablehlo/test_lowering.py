"""How StableHLO ops land in the IR: opcodes and typed attributes as the opcode table
says, tuples and get-tuple-elements for multi-result ops, regions as computations (with
the outer values they read), and CHLO decompositions."""

from __future__ import annotations

import pytest

from hlotool.stablehlo import parse_stablehlo
from hlotool.ir.attributes import ConvDimensionNumbers, OperandAlias, SliceRange, WindowDimension
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.verifier import verify

O = Opcode


def lower(body: str, args: str, result: str, extra: str = "") -> Module:
    module = parse_stablehlo(f"func.func public @main({args}) -> {result} {{\n{body}\n}}\n{extra}")
    verify(module)
    return module


def ops(module: Module, opcode: Opcode) -> list[Instruction]:
    return [i for c in module.computations for i in c.instructions if i.opcode is opcode]


def test_broadcast_in_dim_drops_expanding_unit_dimensions_first() -> None:
    m = lower(
        "%0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x5xf32>\n"
        "return %0 : tensor<3x5xf32>",
        "%a: tensor<3x1xf32>",
        "tensor<3x5xf32>",
    )
    (reshape,) = ops(m, O.RESHAPE)
    (broadcast,) = ops(m, O.BROADCAST)
    assert reshape.shape.dimensions == (3,) and broadcast.attrs["dimensions"] == (0,)


def test_compare_keeps_only_non_default_types() -> None:
    m = lower(
        "%0 = stablehlo.compare LT, %a, %a, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
        "%1 = stablehlo.compare GE, %a, %a, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>\n"
        "return %0, %1 : tensor<2xi1>, tensor<2xi1>",
        "%a: tensor<2xf32>",
        "(tensor<2xi1>, tensor<2xi1>)",
    )
    first, second = ops(m, O.COMPARE)
    assert first.attrs == {"direction": "LT"}
    assert second.attrs == {"direction": "GE", "type": "TOTALORDER"}


def test_slice_pad_and_dot_general_attributes() -> None:
    m = lower(
        "%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
        "%0 = stablehlo.slice %a [0:4:2, 1:3] : (tensor<4x3xf32>) -> tensor<2x2xf32>\n"
        "%1 = stablehlo.pad %0, %c, low = [1, 0], high = [0, -1], interior = [1, 0] "
        ": (tensor<2x2xf32>, tensor<f32>) -> tensor<4x1xf32>\n"
        "%2 = stablehlo.dot_general %a, %a, batching_dims = [1] x [1], contracting_dims = [0] x [0] "
        ": (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<3xf32>\n"
        "return %1, %2 : tensor<4x1xf32>, tensor<3xf32>",
        "%a: tensor<4x3xf32>",
        "(tensor<4x1xf32>, tensor<3xf32>)",
    )
    assert ops(m, O.SLICE)[0].attrs["slice"] == (SliceRange(0, 4, 2), SliceRange(1, 3, 1))
    pads = ops(m, O.PAD)[0].attrs["padding"]
    assert [(p.low, p.high, p.interior) for p in pads] == [(1, 0, 1), (0, -1, 0)]
    dot = ops(m, O.DOT)[0]
    assert (dot.attrs["lhs_batch_dims"], dot.attrs["rhs_batch_dims"]) == ((1,), (1,))
    assert (dot.attrs["lhs_contracting_dims"], dot.attrs["rhs_contracting_dims"]) == ((0,), (0,))


def test_convolution_window_and_dimension_numbers() -> None:
    m = lower(
        "%0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
        "window = {stride = [2, 1], pad = [[1, 1], [0, 0]], rhs_dilate = [1, 2]} "
        "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
        ": (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>\n"
        "return %0 : tensor<1x4x4x4xf32>",
        "%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>",
        "tensor<1x4x4x4xf32>",
    )
    conv = ops(m, O.CONVOLUTION)[0]
    assert conv.attrs["dim_labels"] == ConvDimensionNumbers(
        0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2)
    )
    assert conv.attrs["window"].dimensions == (
        WindowDimension(3, 2, 1, 1, 1, 1, False),
        WindowDimension(3, 1, 0, 0, 2, 1, False),
    )


def test_variadic_reduce_gives_a_tuple_and_reorders_reducer_arguments() -> None:
    m = lower(
        "%0:2 = stablehlo.reduce(%a init: %f), (%i init: %n) across dimensions = [0] "
        ": (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)\n"
        " reducer(%x0: tensor<f32>, %y0: tensor<f32>) (%x1: tensor<i32>, %y1: tensor<i32>) {\n"
        "  %s = stablehlo.add %x0, %y0 : tensor<f32>\n  %t = stablehlo.maximum %x1, %y1 : tensor<i32>\n"
        "  stablehlo.return %s, %t : tensor<f32>, tensor<i32>\n}\n"
        "return %0#0, %0#1 : tensor<f32>, tensor<i32>",
        "%a: tensor<4xf32>, %i: tensor<4xi32>, %f: tensor<f32>, %n: tensor<i32>",
        "(tensor<f32>, tensor<i32>)",
    )
    reduce = ops(m, O.REDUCE)[0]
    assert reduce.shape.is_tuple and len(ops(m, O.GET_TUPLE_ELEMENT)) == 2
    body = reduce.attrs["to_apply"]
    assert [p.shape.element_type for p in body.parameters] == [
        PrimitiveType.F32,
        PrimitiveType.S32,
        PrimitiveType.F32,
        PrimitiveType.S32,
    ]


def test_while_passes_outer_values_through_its_state() -> None:
    m = lower(
        "%0 = stablehlo.while(%it = %a) : tensor<i32>\n cond {\n"
        "  %c = stablehlo.compare LT, %it, %limit : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "  stablehlo.return %c : tensor<i1>\n } do {\n"
        "  %n = stablehlo.add %it, %step : tensor<i32>\n  stablehlo.return %n : tensor<i32>\n }\n"
        "return %0 : tensor<i32>",
        "%a: tensor<i32>, %limit: tensor<i32>, %step: tensor<i32>",
        "tensor<i32>",
    )
    loop = ops(m, O.WHILE)[0]
    state = loop.operand(0)
    assert [o.name for o in state.operands] == [p.name for p in m.entry.parameters]
    body = loop.attrs["body"]
    assert (
        len(body.root.operands) == 3 and loop.attrs["condition"].parameters[0].shape == state.shape
    )


def test_case_and_if_become_conditionals_with_tuple_operands() -> None:
    m = lower(
        '%0 = "stablehlo.case"(%i) ({\n  stablehlo.return %a : tensor<2xf32>\n}, {\n'
        "  %n = stablehlo.negate %a : tensor<2xf32>\n  stablehlo.return %n : tensor<2xf32>\n"
        "}) : (tensor<i32>) -> tensor<2xf32>\n"
        '%1 = "stablehlo.if"(%p) ({\n  stablehlo.return %0 : tensor<2xf32>\n}, {\n'
        "  stablehlo.return %a : tensor<2xf32>\n}) : (tensor<i1>) -> tensor<2xf32>\n"
        "return %1 : tensor<2xf32>",
        "%a: tensor<2xf32>, %i: tensor<i32>, %p: tensor<i1>",
        "tensor<2xf32>",
    )
    case, if_ = ops(m, O.CONDITIONAL)
    assert len(case.attrs["branch_computations"]) == 2 and case.operand_count == 3
    assert "true_computation" in if_.attrs and if_.operand(1).opcode is O.TUPLE


def test_sort_normalizes_a_negative_dimension() -> None:
    m = lower(
        '%0 = "stablehlo.sort"(%a) <{dimension = -1 : i64, is_stable = true}> ({\n'
        "^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
        "  %c = stablehlo.compare GT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "  stablehlo.return %c : tensor<i1>\n}) : (tensor<2x3xf32>) -> tensor<2x3xf32>\n"
        "return %0 : tensor<2x3xf32>",
        "%a: tensor<2x3xf32>",
        "tensor<2x3xf32>",
    )
    sort = ops(m, O.SORT)[0]
    assert sort.attrs["dimensions"] == (1,) and sort.attrs["is_stable"] is True


def test_custom_call_attributes() -> None:
    m = lower(
        "%0:2 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, "
        'mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : '
        "tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<"
        "output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = "
        "[dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} "
        ": (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>)\n"
        "return %0#0 : tensor<3x3xf32>",
        "%a: tensor<3x3xf32>",
        "tensor<3x3xf32>",
    )
    call = ops(m, O.CUSTOM_CALL)[0]
    assert call.attrs["custom_call_target"] == "lapack_sgetrf_ffi"
    assert call.attrs["api_version"] == "API_VERSION_TYPED_FFI"
    assert call.backend_config == "{uplo = 76 : ui8}"
    assert call.frontend_attributes == {"num_batch_dims": "0"}
    assert call.attrs["output_to_operand_aliasing"] == (OperandAlias((0,), 0, ()),)
    assert call.shape.tuple_shapes[0].layout.minor_to_major == (0, 1)  # type: ignore[union-attr]
    assert call.attrs["operand_layout_constraints"][0].layout.minor_to_major == (0, 1)
    assert not any(g.frontend_attributes for g in ops(m, O.GET_TUPLE_ELEMENT))


def test_composite_calls_its_decomposition() -> None:
    m = lower(
        '%0 = stablehlo.composite "my.double" %a {composite_attributes = {k = 2 : i64}, '
        "decomposition = @double, version = 3 : i32} : (tensor<2xf32>) -> tensor<2xf32>\n"
        "return %0 : tensor<2xf32>",
        "%a: tensor<2xf32>",
        "tensor<2xf32>",
        "func.func private @double(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.add %x, %x : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
    )
    call = ops(m, O.CALL)[0]
    assert call.attrs["is_composite"] is True
    assert call.frontend_attributes == {
        "composite.attributes": "{k = 2 : i64}",
        "composite.name": "my.double",
        "composite.version": "3",
    }


def test_rng_bit_generator_and_optimization_barrier_use_tuples() -> None:
    m = lower(
        "%s, %o = stablehlo.rng_bit_generator %a, algorithm = THREE_FRY "
        ": (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)\n"
        "%b:2 = stablehlo.optimization_barrier %s, %o : tensor<2xui64>, tensor<3xui32>\n"
        "return %b#1 : tensor<3xui32>",
        "%a: tensor<2xui64>",
        "tensor<3xui32>",
    )
    assert ops(m, O.RNG_BIT_GENERATOR)[0].attrs["algorithm"] == "rng_three_fry"
    assert ops(m, O.OPT_BARRIER)[0].shape.is_tuple


CHLO_UNARY = [
    "erf",
    "erfc",
    "erf_inv",
    "lgamma",
    "digamma",
    "bessel_i1e",
    "sinh",
    "cosh",
    "asin",
    "acos",
    "atan",
    "asinh",
    "acosh",
    "atanh",
    "square",
    "tan",
    "is_inf",
    "is_pos_inf",
    "is_neg_inf",
]


@pytest.mark.parametrize("element", ["f32", "f64", "bf16"])
@pytest.mark.parametrize("name", CHLO_UNARY)
def test_chlo_unary_ops_decompose_into_verified_hlo(name: str, element: str) -> None:
    result = "tensor<3xi1>" if name.startswith("is_") else f"tensor<3x{element}>"
    m = lower(
        f"%0 = chlo.{name} %a : tensor<3x{element}> -> {result}\nreturn %0 : {result}",
        f"%a: tensor<3x{element}>",
        result,
    )
    root = m.entry.root
    assert root is not None and root.shape.dimensions == (3,)
    if element == "bf16" and name in ("erfc", "erf_inv", "lgamma", "digamma", "sinh", "bessel_i1e"):
        assert root.opcode is O.CONVERT


def test_chlo_ops_that_xla_keeps() -> None:
    m = lower(
        "%0 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>\n"
        "%v, %i = chlo.top_k(%a, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)\n"
        "return %0, %v, %i : tensor<4xf32>, tensor<2xf32>, tensor<2xi32>",
        "%a: tensor<4xf32>",
        "(tensor<4xf32>, tensor<2xf32>, tensor<2xi32>)",
    )
    assert ops(m, O.ERF) and ops(m, O.TOPK)[0].attrs == {"k": 2, "largest": True}


def test_chlo_broadcasting_binary_ops() -> None:
    m = lower(
        "%0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>\n"
        "%1 = chlo.broadcast_multiply %a, %c {broadcast_dimensions = array<i64: 0>} "
        ": (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>\n"
        "%2 = chlo.broadcast_compare %1, %0 {comparison_direction = #chlo<comparison_direction LT>} "
        ": (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>\n"
        "return %2 : tensor<2x3xi1>",
        "%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>",
        "tensor<2x3xi1>",
    )
    dims = [b.attrs["dimensions"] for b in ops(m, O.BROADCAST)]
    assert dims == [(1,), (0,)]
    assert ops(m, O.COMPARE)[0].attrs["direction"] == "LT"


def test_chlo_next_after_and_polygamma_verify() -> None:
    m = lower(
        "%0 = chlo.next_after %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>\n"
        "%1 = chlo.polygamma %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>\n"
        "%2 = chlo.zeta %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>\n"
        "return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>",
        "%a: tensor<3xf32>, %b: tensor<3xf32>",
        "(tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)",
    )
    assert len(ops(m, O.BITCAST_CONVERT)) == 4


def test_entry_argument_attributes_become_module_aliasing() -> None:
    m = parse_stablehlo(
        'module @m attributes {mhlo.frontend_attributes = {tag = "x"}, mhlo.num_replicas = 1 : i32} {\n'
        "  func.func public @main(%a: tensor<2xf32> {tf.aliasing_output = 1 : i32}, "
        "%b: tensor<2xf32> {jax.buffer_donor = true}) -> (tensor<2xf32>, tensor<2xf32>) {\n"
        "    return %b, %a : tensor<2xf32>, tensor<2xf32>\n  }\n}\n"
    )
    cfg = m.config
    assert [(a.output_index, a.parameter_number) for a in cfg.input_output_alias] == [((1,), 0)]
    assert [d.parameter_number for d in cfg.buffer_donor] == [1]
    assert cfg.frontend_attributes == {"tag": "x"}


def test_constant_with_attributes_before_its_literal() -> None:
    m = lower(
        '%0 = stablehlo.constant {mhlo.frontend_attributes = {k = "v"}} dense<[1, 2]> '
        ": tensor<2xi32>\nreturn %0 : tensor<2xi32>",
        "",
        "tensor<2xi32>",
    )
    (const,) = ops(m, O.CONSTANT)
    assert const.frontend_attributes == {"k": "v"}
    assert const.literal is not None and const.literal.array.tolist() == [1, 2]  # type: ignore[union-attr]
