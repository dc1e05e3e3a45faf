"""MHLO ops in StableHLO text (TensorFlow's `stage='stablehlo'`) and `custom_call @mhlo.*`
(PyTorch/XLA's export): each becomes its HLO opcode, and evaluates as numpy does."""

from __future__ import annotations

import math

import numpy as np

from hlotool.stablehlo import parse_stablehlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.verifier import verify

O = Opcode
T = "tensor<5xf32>"
X = np.array([-1.5, -0.2, 0.0, 0.4, 2.0], np.float32)


def lower(body: str) -> Module:
    module = parse_stablehlo(f"func.func public @main(%x: {T}) -> {T} {{\n{body}\n}}\n")
    verify(module)
    return module


def opcodes(module: Module) -> set[Opcode]:
    return {i.opcode for c in module.computations for i in c.instructions}


def run(module: Module) -> np.ndarray:
    return np.asarray(Evaluator(module).run([X]))


def test_mhlo_erf_and_copy_are_their_hlo_ops() -> None:
    module = lower(f"%0 = mhlo.copy %x : {T}\n%1 = mhlo.erf %0 : {T}\nreturn %1 : {T}")
    assert {O.COPY, O.ERF} <= opcodes(module)
    want = np.array([math.erf(float(v)) for v in X], np.float32)
    np.testing.assert_allclose(run(module), want, rtol=1e-6, atol=1e-7)


def test_mhlo_hyperbolic_ops_are_not_decomposed() -> None:
    module = lower(f"%0 = mhlo.sinh %x : {T}\n%1 = mhlo.cosh %0 : {T}\nreturn %1 : {T}")
    assert {O.SINH, O.COSH} <= opcodes(module)
    np.testing.assert_allclose(run(module), np.cosh(np.sinh(X)), rtol=1e-6)


def test_other_mhlo_ops_read_as_stablehlo() -> None:
    module = lower(f"%0 = mhlo.add %x, %x : {T}\n%1 = mhlo.tanh %0 : {T}\nreturn %1 : {T}")
    np.testing.assert_allclose(run(module), np.tanh(X + X), rtol=1e-6)


def test_custom_call_to_an_mhlo_op_is_that_op() -> None:
    module = lower(f"%0 = stablehlo.custom_call @mhlo.erf(%x) {{mhlo.attributes = {{}}, "
                   f"mhlo.version = 1 : i64}} : ({T}) -> {T}\nreturn %0 : {T}")
    assert O.ERF in opcodes(module) and O.CUSTOM_CALL not in opcodes(module)
    want = np.array([math.erf(float(v)) for v in X], np.float32)
    np.testing.assert_allclose(run(module), want, rtol=1e-6, atol=1e-7)


def test_custom_call_to_mhlo_topk_takes_its_attributes() -> None:
    module = parse_stablehlo(
        f"func.func public @main(%x: {T}) -> (tensor<2xf32>, tensor<2xi32>) {{\n"
        f"%0:2 = stablehlo.custom_call @mhlo.topk(%x) {{mhlo.attributes = {{k = 2 : i64, "
        f"largest = true}}, mhlo.version = 1 : i64}} : ({T}) -> (tensor<2xf32>, tensor<2xi32>)\n"
        f"return %0#0, %0#1 : tensor<2xf32>, tensor<2xi32>\n}}\n")
    verify(module)
    values, indices = Evaluator(module).run([X])
    np.testing.assert_array_equal(np.asarray(values), np.sort(X)[::-1][:2])
    np.testing.assert_array_equal(np.asarray(indices), np.argsort(-X)[:2])
