"""The StableHLO syntax: pretty and generic op forms, results, locations, functions,
types and module layouts, each checked through the IR it lowers to."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.stablehlo import parse_stablehlo
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import UNBOUNDED, PrimitiveType
from hlotool.ir.printer import PrintOptions, print_module
from hlotool.verifier import verify

FORMS = Path(__file__).parent / "data" / "forms"
NO_METADATA = PrintOptions(metadata=False)


def lower(text: str) -> Module:
    module = parse_stablehlo(text)
    verify(module)
    return module


def hlo(text: str) -> str:
    return print_module(lower(text), NO_METADATA)


def func(
    body: str, args: str = "%a: tensor<4xf32>, %b: tensor<4xf32>", result: str = "tensor<4xf32>"
) -> str:
    return f"func.func @main({args}) -> {result} {{\n{body}\n}}\n"


# -- pretty and generic forms of the same ops ------------------------------------------------------

PAIRS = {
    "add": ("%0 = stablehlo.add %a, %b : tensor<4xf32>",
            '%0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>'),
    "compare": ("%0 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
                '%0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>, '
                "compare_type = #stablehlo<comparison_type TOTALORDER>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>"),
    "slice": ("%0 = stablehlo.slice %a [1:4:2] : (tensor<4xf32>) -> tensor<2xf32>",
              '%0 = "stablehlo.slice"(%a) <{start_indices = array<i64: 1>, limit_indices = array<i64: 4>, '
              "strides = array<i64: 2>}> : (tensor<4xf32>) -> tensor<2xf32>"),
    "broadcast": ("%0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>",
                  '%0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<1> : tensor<1xi64>} '
                  ": (tensor<4xf32>) -> tensor<2x4xf32>"),
    "dot_general": ("%0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0], precision = [HIGHEST, DEFAULT] "
                    ": (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
                    '%0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<'
                    "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = "
                    "[#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]}> : "
                    "(tensor<4xf32>, tensor<4xf32>) -> tensor<f32>"),
    "reduce": ("%c = stablehlo.constant dense<0.0> : tensor<f32>\n"
               "%0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [0] "
               ": (tensor<4xf32>, tensor<f32>) -> tensor<f32>",
               '%c = "stablehlo.constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>\n'
               '%0 = "stablehlo.reduce"(%a, %c) <{dimensions = array<i64: 0>}> ({\n'
               "^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
               "  %s = stablehlo.add %x, %y : tensor<f32>\n  stablehlo.return %s : tensor<f32>\n"
               "}) : (tensor<4xf32>, tensor<f32>) -> tensor<f32>"),
    "top_k": ("%v, %i = chlo.top_k(%a, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)",
              '%v:2 = "chlo.top_k"(%a) {k = 2 : i64} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)'),
    "custom_call": ('%0 = stablehlo.custom_call @foo(%a) {backend_config = "x", api_version = 2 : i32} '
                    ": (tensor<4xf32>) -> tensor<4xf32>",
                    '%0 = "stablehlo.custom_call"(%a) <{call_target_name = "foo", backend_config = "x", '
                    "api_version = 2 : i32}> : (tensor<4xf32>) -> tensor<4xf32>"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pretty_and_generic_forms_lower_to_the_same_ir(name: str) -> None:
    pretty, generic = PAIRS[name]
    ret = "stablehlo.return %a : tensor<4xf32>"
    assert hlo(func(f"{pretty}\n{ret}")) == hlo(func(f"{generic}\n{ret}"))


@pytest.mark.parametrize("variant", ["ops.pretty", "ops.pretty_debug", "ops.generic_printed"])
def test_every_form_of_the_op_sampler_is_the_same_module(variant: str) -> None:
    base = hlo((FORMS / "ops.generic.mlir").read_text())
    assert hlo((FORMS / f"{variant}.mlir").read_text()) == base


def test_jax_debug_output_in_generic_form_is_the_same_module() -> None:
    debug = print_module(lower((FORMS / "control.debug.mlir").read_text()))
    generic = print_module(lower((FORMS / "control.generic_debug.mlir").read_text()))
    assert debug == generic


# -- results and uses ---------------------------------------------------------------------------


def test_result_groups_and_indexed_uses() -> None:
    text = func(
        "%0:2 = stablehlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<4xf32>\n"
        "%x, %y = stablehlo.optimization_barrier %0#1, %0#0 : tensor<4xf32>, tensor<4xf32>\n"
        "%1 = stablehlo.subtract %x, %y : tensor<4xf32>\n"
        "return %1 : tensor<4xf32>"
    )
    entry = lower(text).entry
    root = entry.root
    assert root is not None and root.opcode is Opcode.SUBTRACT
    x, y = root.operands
    assert x.opcode is y.opcode is Opcode.GET_TUPLE_ELEMENT
    second_tuple = x.operand(0).operand(0)
    assert second_tuple.opcode is Opcode.TUPLE
    first = second_tuple.operands
    assert first[0].attrs["index"] == 1 and first[1].attrs["index"] == 0


# -- locations ----------------------------------------------------------------------------------


def test_location_aliases_defined_after_use_give_metadata() -> None:
    text = (
        '#loc1 = loc("f.py":3:7)\n'
        "module @m {\n"
        '  func.func public @main(%a: tensor<4xf32> loc("x")) -> tensor<4xf32> {\n'
        "    %0 = stablehlo.negate %a : tensor<4xf32> loc(#loc5)\n"
        "    %1 = stablehlo.sine %0 : tensor<4xf32> loc(callsite(#loc5 at #loc1))\n"
        "    return %1 : tensor<4xf32> loc(#loc)\n"
        "  } loc(#loc)\n"
        "} loc(#loc)\n"
        "#loc = loc(unknown)\n"
        '#loc5 = loc("jit(f)/neg"(#loc1))\n'
    )
    entry = lower(text).entry
    neg = next(i for i in entry if i.opcode is Opcode.NEGATE)
    assert neg.metadata is not None
    assert (neg.metadata.op_name, neg.metadata.source_file, neg.metadata.source_line) == (
        "jit(f)/neg",
        "f.py",
        3,
    )
    sine = next(i for i in entry if i.opcode is Opcode.SIN)
    assert sine.metadata is not None and sine.metadata.op_name == "jit(f)/neg"
    assert entry.parameters[0].name.startswith("x.")


def test_locations_on_block_arguments_and_fused_locations_parse() -> None:
    text = func(
        '%c = stablehlo.constant dense<0.0> : tensor<f32> loc(fused["a.py":1:2, "b"])\n'
        "%0 = stablehlo.reduce(%a init: %c) across dimensions = [0] : "
        "(tensor<4xf32>, tensor<f32>) -> tensor<f32>\n"
        ' reducer(%x: tensor<f32> loc("x"), %y: tensor<f32> loc("a.py":1:2 to :9)) {\n'
        "  %s = stablehlo.add %x, %y : tensor<f32>\n  stablehlo.return %s : tensor<f32>\n}\n"
        "return %0 : tensor<f32>",
        result="tensor<f32>",
    )
    assert lower(text).entry.root.opcode is Opcode.REDUCE  # type: ignore[union-attr]


# -- functions and modules ---------------------------------------------------------------------


def test_functions_calls_and_entry_choice() -> None:
    text = (
        "// a comment\n"
        "module @m attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {\n"
        '  func.func private @"<lambda>"(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n'
        "    func.return %x, %x : tensor<4xf32>, tensor<4xf32>\n  }\n"
        "  func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "    return %x : tensor<4xf32>\n  }\n"
        "  func.func private @declared(tensor<4xf32>) -> tensor<4xf32>\n"
        '  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "r"}) {\n'
        '    %0:2 = call @"<lambda>"(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)\n'
        '    %1:2 = func.call @"<lambda>"(%0#1) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)\n'
        "    return %0#0 : tensor<4xf32>\n  }\n}\n"
    )
    module = lower(text)
    assert [c.name for c in module.computations] == ["_lambda_.1", "main.1"]
    assert module.config.replica_count == 2
    calls = [i for i in module.entry if i.opcode is Opcode.CALL]
    assert len(calls) == 2 and calls[0].attrs["to_apply"] is calls[1].attrs["to_apply"]


def test_function_without_results_returns_an_empty_tuple() -> None:
    module = lower("func.func @main(%a: tensor<4xf32>) {\n  return\n}\n")
    assert module.entry.root is not None and module.entry.root.shape.tuple_shapes == ()


def test_generic_module_and_functions() -> None:
    text = (
        '"builtin.module"() <{sym_name = "g"}> ({\n'
        '  "func.func"() <{function_type = (tensor<2xi32>) -> tensor<2xi32>, sym_name = "main"}> ({\n'
        "  ^bb0(%arg0: tensor<2xi32>):\n"
        '    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>\n'
        '    "func.return"(%0) : (tensor<2xi32>) -> ()\n'
        "  }) : () -> ()\n"
        "}) {mhlo.num_partitions = 1 : i32} : () -> ()\n"
    )
    module = lower(text)
    assert module.name == "g" and module.entry.root.opcode is Opcode.ADD  # type: ignore[union-attr]


def test_sdy_meshes_and_sharding_constraints() -> None:
    text = (
        "module @m {\n"
        '  sdy.mesh @mesh = <["x"=1]> {stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}]}}\n'
        '  func.func public @main(%a: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) '
        "-> tensor<4xf32> {\n"
        "    %0 = sdy.sharding_constraint %a <@mesh, [{}]> : tensor<4xf32>\n"
        "    %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{}]>] out_shardings=[<@mesh, [{}]>] "
        'manual_axes={"x"} (%arg1: tensor<4xf32>) {\n'
        "      %2 = stablehlo.negate %arg1 : tensor<4xf32>\n"
        "      sdy.return %2 : tensor<4xf32>\n"
        "    } : (tensor<4xf32>) -> tensor<4xf32>\n"
        "    return %1 : tensor<4xf32>\n  }\n}\n"
    )
    root = lower(text).entry.root
    assert root is not None and root.opcode is Opcode.CALL
    assert root.operand(0).opcode is Opcode.PARAMETER


# -- types -------------------------------------------------------------------------------------


def test_tuples_tokens_and_element_types() -> None:
    text = func(
        "%t = stablehlo.create_token : !stablehlo.token\n"
        "%0 = stablehlo.get_tuple_element %a[1] : (tuple<tensor<2xbf16>, tensor<complex<f64>>>) "
        "-> tensor<complex<f64>>\n"
        "%1 = stablehlo.convert %b : (tensor<3xf8E4M3FN>) -> tensor<3xui16>\n"
        "return %0, %1, %t : tensor<complex<f64>>, tensor<3xui16>, !stablehlo.token",
        args="%a: tuple<tensor<2xbf16>, tensor<complex<f64>>>, %b: tensor<3xf8E4M3FN>",
        result="(tensor<complex<f64>>, tensor<3xui16>, !stablehlo.token)",
    )
    entry = lower(text).entry
    types = [p.shape for p in entry.parameters]
    assert types[0].tuple_shapes[1].element_type is PrimitiveType.C128
    assert types[1].element_type is PrimitiveType.F8E4M3FN
    assert [s.element_type for s in entry.root_shape.tuple_shapes] == [
        PrimitiveType.C128,
        PrimitiveType.U16,
        PrimitiveType.TOKEN,
    ]


def test_unbounded_and_bounded_dimensions() -> None:
    text = func(
        "%0 = stablehlo.negate %a : tensor<?x3xf32>\n"
        "%1 = stablehlo.abs %b : tensor<?xf32, #stablehlo.bounds<8>>\n"
        "return %0, %1 : tensor<?x3xf32>, tensor<?xf32, #stablehlo.bounds<8>>",
        args="%a: tensor<?x3xf32>, %b: tensor<?xf32, #stablehlo.bounds<8>>",
        result="(tensor<?x3xf32>, tensor<?xf32, #stablehlo.bounds<8>>)",
    )
    a, b = (p.shape for p in lower(text).entry.parameters)
    assert a.dimensions == (UNBOUNDED, 3)
    assert b.dimensions == (8,) and b.dynamic == (True,)


def test_quantized_types_parse_and_dequantize() -> None:
    quant = "!quant.uniform<i8<-127:127>:f32, 5.000000e-01:-3>"
    text = func(
        f"%q = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x{quant}>\n"
        f"%0 = stablehlo.uniform_dequantize %q : (tensor<4x{quant}>) -> tensor<4xf32>\n"
        "return %0 : tensor<4xf32>",
        args="%a: tensor<4xf32>",
    )
    ops = [i.opcode for i in lower(text).entry]
    assert Opcode.ROUND_EVEN in ops and Opcode.CLAMP in ops and ops[-1] is Opcode.MULTIPLY


def test_other_dialect_ops_parse_with_their_literal() -> None:
    from hlotool.stablehlo.parser import parse_stablehlo_ast

    file = parse_stablehlo_ast(
        "func.func @t() {\n  %0 = stablehlo.constant dense<1> : tensor<2xi32>\n"
        "  check.expect_eq_const %0, dense<[1, 1]> : tensor<2xi32>\n  func.return\n}\n"
    )
    check = file.modules[0].funcs[0].body.ops[1]  # type: ignore[union-attr]
    assert check.name == "check.expect_eq_const" and check.result_types == []
    assert check.attrs["value"].body == "[1, 1]"
