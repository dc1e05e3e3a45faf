"""einsum, unary_einsum and torch_index_select (lowered as XLA legalizes them) and the
complex-valued CHLO inverse trig/hyperbolic decompositions: verified HLO of the expected
form, evaluated results, and positioned errors for what stays unsupported."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.diagnostics import HloError
from hlotool.stablehlo import parse_stablehlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.verifier import verify

O = Opcode


def lower(body: str, args: str, result: str) -> Module:
    module = parse_stablehlo(f"func.func public @main({args}) -> {result} {{\n{body}\n}}\n")
    verify(module)
    return module


def ops(module: Module, opcode: Opcode) -> list[Instruction]:
    return [i for c in module.computations for i in c.instructions if i.opcode is opcode]


def run(module: Module, *args: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(Evaluator(module).run(list(args)))


def einsum(config: str, a: str, b: str, out: str) -> Module:
    return lower(
        f'%0 = "stablehlo.einsum"(%a, %b) {{einsum_config = "{config}"}} : '
        f"(tensor<{a}>, tensor<{b}>) -> tensor<{out}>\nreturn %0 : tensor<{out}>",
        f"%a: tensor<{a}>, %b: tensor<{b}>",
        f"tensor<{out}>",
    )


def test_einsum_is_a_dot_general_then_a_transpose() -> None:
    m = einsum("bij,bjk->kbi", "2x3x4xf32", "2x4x5xf32", "5x2x3xf32")
    (dot,) = ops(m, O.DOT)
    assert dot.attrs["lhs_batch_dims"] == (0,) and dot.attrs["rhs_batch_dims"] == (0,)
    assert dot.attrs["lhs_contracting_dims"] == (2,) and dot.attrs["rhs_contracting_dims"] == (1,)
    assert dot.shape.dimensions == (2, 3, 5)
    root = m.entry.root
    assert root is not None and root.opcode is O.TRANSPOSE
    assert root.attrs["dimensions"] == (2, 0, 1)
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(40, dtype=np.float32).reshape(2, 4, 5) - 7
    np.testing.assert_allclose(run(m, a, b), np.einsum("bij,bjk->kbi", a, b))


def test_einsum_in_result_order_needs_no_transpose() -> None:
    m = einsum("ab,bc->ac", "2x3xi32", "3x4xi32", "2x4xi32")
    assert not ops(m, O.TRANSPOSE) and len(ops(m, O.DOT)) == 1
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    b = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(run(m, a, b), a @ b)


def test_einsum_sums_labels_of_one_operand_missing_from_the_result() -> None:
    m = einsum("ab,bc->c", "2x3xf32", "3x4xf32", "4xf32")
    (red,) = ops(m, O.REDUCE)
    assert red.attrs["dimensions"] == (0,)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(run(m, a, b), np.einsum("ab,bc->c", a, b))


def test_einsum_outer_product_and_full_contraction() -> None:
    m = einsum("ab,cd->dcba", "2x2xf32", "2x3xf32", "3x2x2x2xf32")
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(run(m, a, b), np.einsum("ab,cd->dcba", a, b))
    m = einsum("ab,ab->", "2x3xf32", "2x3xf32", "f32")
    c = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(run(m, c, c), np.einsum("ab,ab->", c, c))


@pytest.mark.parametrize("config", ["abc->cab", "abc->b", "abc->", "abc->ca", ",abc->ac"])
def test_unary_einsum_reduces_and_transposes(config: str) -> None:
    out_labels = config.split("->")[1]
    sizes = {"a": 2, "b": 3, "c": 4}
    out = "x".join(str(sizes[c]) for c in out_labels)
    out_type = f"tensor<{out}xi32>" if out else "tensor<i32>"
    m = lower(
        f'%0 = "stablehlo.unary_einsum"(%a) {{einsum_config = "{config}"}} : '
        f"(tensor<2x3x4xi32>) -> {out_type}\nreturn %0 : {out_type}",
        "%a: tensor<2x3x4xi32>",
        out_type,
    )
    assert not ops(m, O.DOT)
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    np.testing.assert_array_equal(run(m, a), np.einsum(config.lstrip(","), a))


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("ab,bc", "needs an explicit '->'"),
        ("...b,bc->c", "'...' is not supported"),
        ("aa,bc->c", "repeated label"),
        ("ab,bc->d", "result label 'd' is in no operand"),
        ("abc,bc->ac", "lhs has rank 2"),
        ("ab,c->ac", "rhs has rank 2"),
    ],
)
def test_einsum_errors_are_positioned(config: str, message: str) -> None:
    with pytest.raises(HloError, match=message) as info:
        einsum(config, "2x3xf32", "3x4xf32", "2x4xf32")
    assert info.value.line == 2


def test_einsum_label_sizes_must_agree() -> None:
    with pytest.raises(HloError, match="label 'b' has size 3 in lhs but 5 in rhs"):
        einsum("ab,bc->ac", "2x3xf32", "5x4xf32", "2x4xf32")


def index_select(operand: str, index: str, dim: int, batch_dims: int, out: str) -> Module:
    return lower(
        f'%0 = "stablehlo.torch_index_select"(%a, %i) {{dim = {dim} : i64, '
        f"batch_dims = {batch_dims} : i64}} : (tensor<{operand}>, tensor<{index}>) -> "
        f"tensor<{out}>\nreturn %0 : tensor<{out}>",
        f"%a: tensor<{operand}>, %i: tensor<{index}>",
        f"tensor<{out}>",
    )


def test_torch_index_select_is_a_gather() -> None:
    m = index_select("3x4xf32", "2x2xi32", 1, 0, "3x2x2xf32")
    (g,) = ops(m, O.GATHER)
    assert g.attrs["offset_dims"] == (0,)
    assert g.attrs["collapsed_slice_dims"] == (1,) and g.attrs["start_index_map"] == (1,)
    assert g.attrs["index_vector_dim"] == 2 and g.attrs["slice_sizes"] == (3, 1)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    i = np.array([[3, 1], [0, 0]], np.int32)
    np.testing.assert_array_equal(run(m, a, i), np.take(a, i, axis=1))


def test_torch_index_select_with_batch_dims_concatenates_iotas() -> None:
    m = index_select("2x3x4xi32", "2x2xi32", 2, 1, "2x3x2xi32")
    assert len(ops(m, O.IOTA)) == 1 and len(ops(m, O.CONCATENATE)) == 1
    (g,) = ops(m, O.GATHER)
    assert g.attrs["start_index_map"] == (0, 2) and g.attrs["offset_dims"] == (1,)
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    i = np.array([[3, 0], [1, 1]], np.int32)
    want = np.stack([np.take(a[b], i[b], axis=1) for b in range(2)])
    np.testing.assert_array_equal(run(m, a, i), want)


def test_torch_index_select_negative_dim_and_bad_dim() -> None:
    m = index_select("3x4xf32", "2xi32", -2, 0, "2x4xf32")
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(run(m, a, np.array([2, 0], np.int32)), a[[2, 0]])
    with pytest.raises(HloError, match="dim 5 is out of range") as info:
        index_select("3x4xf32", "2xi32", 5, 0, "2x4xf32")
    assert info.value.line == 2


# -- complex CHLO inverse trig ------------------------------------------------------------

Z = np.array(
    [0.5 + 0.25j, -0.3 - 1.2j, 2.0 - 0.5j, -3.0 + 4.0j, 0.0, 1e-5 - 2e-5j, 20.0 + 30.0j, 0.9 - 0.1j]
)
NUMPY = {
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
}


@pytest.mark.parametrize("element", ["complex<f32>", "complex<f64>"])
@pytest.mark.parametrize("name", sorted(NUMPY))
def test_complex_chlo_inverse_trig(name: str, element: str) -> None:
    t = f"tensor<8x{element}>"
    m = lower(f"%0 = chlo.{name} %a : {t} -> {t}\nreturn %0 : {t}", f"%a: {t}", t)
    assert ops(m, O.COMPLEX), "the decomposition rebuilds the result from real parts"
    dtype = np.complex64 if element == "complex<f32>" else np.complex128
    z = Z.astype(dtype)
    got = run(m, z)
    assert got.dtype == dtype
    rtol = 2e-6 if dtype == np.complex64 else 1e-13
    np.testing.assert_allclose(got, NUMPY[name](Z).astype(dtype), rtol=rtol, atol=1e-30)


def test_complex_atanh_at_one_is_infinite_like_xla() -> None:
    t = "tensor<2xcomplex<f32>>"
    m = lower(f"%0 = chlo.atanh %a : {t} -> {t}\nreturn %0 : {t}", f"%a: {t}", t)
    got = run(m, np.array([1.0, -1.0], np.complex64))
    np.testing.assert_array_equal(got, np.array([np.inf, -np.inf], np.complex64))
