"""Dense literals: splats, nested lists, hex blobs and hex elements, every element type
family, and the constants they lower to."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from hlotool.diagnostics import HloError
from hlotool.stablehlo import parse_stablehlo
from hlotool.ir.opcodes import Opcode


def constant(literal: str, type_: str) -> np.ndarray:
    """The array of `stablehlo.constant <literal> : <type>` after lowering."""
    module = parse_stablehlo(
        f"func.func @main() -> {type_} {{\n"
        f"  %0 = stablehlo.constant {literal} : {type_}\n"
        f"  return %0 : {type_}\n}}\n"
    )
    root = module.entry.root
    assert root is not None and root.opcode is Opcode.CONSTANT and root.literal is not None
    assert root.literal.array is not None
    return root.literal.array


CASES = [
    (
        "dense<1.5> : splat",
        "dense<1.500000e+00>",
        "tensor<2x2xf32>",
        np.full((2, 2), 1.5, np.float32),
    ),
    (
        "nested",
        "dense<[[1, 2, 3], [4, 5, 6]]>",
        "tensor<2x3xi32>",
        np.arange(1, 7, dtype=np.int32).reshape(2, 3),
    ),
    ("scalar", "dense<-7>", "tensor<i64>", np.int64(-7)),
    ("bools", "dense<[true, false]>", "tensor<2xi1>", np.array([True, False])),
    ("hex blob", 'dense<"0x0000803F00000040">', "tensor<2xf32>", np.array([1.0, 2.0], np.float32)),
    ("hex splat blob", 'dense<"0x0000C03F">', "tensor<3xf32>", np.full(3, 1.5, np.float32)),
    (
        "bf16",
        "dense<[1.000000e+00, -2.500000e-01]>",
        "tensor<2xbf16>",
        np.array([1.0, -0.25], ml_dtypes.bfloat16),
    ),
    ("bf16 hex element", "dense<0xFF80>", "tensor<bf16>", np.array(-np.inf, ml_dtypes.bfloat16)),
    (
        "f32 hex elements",
        "dense<[0xFF800000, 0x7F800000, 1.0]>",
        "tensor<3xf32>",
        np.array([-np.inf, np.inf, 1.0], np.float32),
    ),
    ("f16", "dense<[6.550400e+04, 1.0]>", "tensor<2xf16>", np.array([65504.0, 1.0], np.float16)),
    (
        "f8",
        "dense<[4.480000e+02, -2.0]>",
        "tensor<2xf8E4M3FN>",
        np.array([448.0, -2.0], ml_dtypes.float8_e4m3fn),
    ),
    (
        "complex splat",
        "dense<(1.000000e+00,2.000000e+00)>",
        "tensor<2xcomplex<f32>>",
        np.full(2, 1 + 2j, np.complex64),
    ),
    (
        "complex nested",
        "dense<[(1.0,-1.0), (0.5, 2.0)]>",
        "tensor<2xcomplex<f64>>",
        np.array([1 - 1j, 0.5 + 2j], np.complex128),
    ),
    (
        "complex blob",
        'dense<"0x0000803F000000400000404000008040">',
        "tensor<2xcomplex<f32>>",
        np.array([1 + 2j, 3 + 4j], np.complex64),
    ),
    ("ui64 max", "dense<18446744073709551615>", "tensor<ui64>", np.uint64(2**64 - 1)),
    ("i8 wraps", "dense<[255, -128]>", "tensor<2xi8>", np.array([-1, -128], np.int8)),
    ("i8 hex", "dense<0xFF>", "tensor<i8>", np.int8(-1)),
    ("i4", "dense<[-8, 7]>", "tensor<2xi4>", np.array([-8, 7], ml_dtypes.int4)),
    ("i1 blob", 'dense<"0x0100">', "tensor<2xi1>", np.array([True, False])),
    ("empty", "dense<>", "tensor<0x3xf32>", np.zeros((0, 3), np.float32)),
]


@pytest.mark.parametrize(("name", "literal", "type_", "want"), CASES, ids=[c[0] for c in CASES])
def test_dense_literals(name: str, literal: str, type_: str, want: np.ndarray) -> None:
    got = constant(literal, type_)
    assert got.dtype == np.asarray(want).dtype
    assert got.shape == np.shape(want)
    assert np.array_equal(got, want, equal_nan=True)


def test_nan_hex_keeps_its_bits() -> None:
    got = constant("dense<[0x7FC00000, 0xFFC00001]>", "tensor<2xf32>")
    assert got.view(np.uint32).tolist() == [0x7FC00000, 0xFFC00001]
    assert all(math.isnan(x) for x in got)


def test_large_hex_blob() -> None:
    values = np.arange(300, dtype=np.float32)
    blob = "0x" + values.tobytes().hex().upper()
    assert np.array_equal(constant(f'dense<"{blob}">', "tensor<3x100xf32>"), values.reshape(3, 100))


def test_dense_resource_reads_the_dialect_resources_blob() -> None:
    text = (
        "module {\n  func.func @main() -> tensor<2xi32> {\n"
        "    %0 = stablehlo.constant dense_resource<blob1> : tensor<2xi32>\n"
        "    return %0 : tensor<2xi32>\n  }\n}\n"
        "{-#\n  dialect_resources: {\n    builtin: {\n"
        '      blob1: "0x040000000500000007000000"\n    }\n  }\n#-}\n'
    )
    root = parse_stablehlo(text).entry.root
    assert root is not None and root.literal is not None
    assert root.literal.array.tolist() == [5, 7]  # type: ignore[union-attr]


def test_dense_arrays_in_attributes() -> None:
    module = parse_stablehlo(
        "func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {\n"
        '  %0 = "stablehlo.transpose"(%a) <{permutation = array<i64: 1, 0>}> : '
        "(tensor<2x3xf32>) -> tensor<3x2xf32>\n"
        "  return %0 : tensor<3x2xf32>\n}\n"
    )
    assert module.entry.root.attrs["dimensions"] == (1, 0)  # type: ignore[union-attr]


@pytest.mark.parametrize("literal", ["dense<2.5>", 'dense<"0x00002040">'])
def test_splats_stay_lazy_and_print_back_as_splats(literal: str) -> None:
    from hlotool.stablehlo.printer import print_stablehlo

    type_ = "tensor<30000x30000xf32>"
    module = parse_stablehlo(f"func.func @main() -> {type_} {{\n  %0 = stablehlo.constant "
                             f"{literal} : {type_}\n  return %0 : {type_}\n}}\n")
    lit = module.entry.root.literal  # type: ignore[union-attr]
    assert lit is not None and lit.is_lazy_splat and lit.data is not None
    assert lit.data.base is not None and lit.data.base.nbytes == 4
    assert f"stablehlo.constant dense<2.500000e+00> : {type_}" in print_stablehlo(module)
    assert lit.is_lazy_splat


def test_a_huge_splat_in_an_integer_list_attribute_is_refused() -> None:
    with pytest.raises(HloError, match="a list of at most 65536 values"):
        parse_stablehlo(
            "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            '  %0 = "stablehlo.transpose"(%a) {permutation = dense<0> : tensor<100000000xi64>}'
            " : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
