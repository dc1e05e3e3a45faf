"""cholesky, triangular-solve and batch-norm ops (hand-derived values; XLA:CPU's NaN result
for a matrix that is not positive definite was recorded with jax 0.10.2)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator


def run(text: str, *args: np.ndarray) -> object:
    return Evaluator(parse_hlo(text)).run(list(args))


def cholesky(lower: bool, shape: str = "f32[2,2]") -> str:
    return f"""HloModule m
ENTRY e {{
  a = {shape} parameter(0)
  ROOT c = {shape} cholesky(a), lower={str(lower).lower()}
}}"""


def test_cholesky_reads_one_triangle() -> None:
    a = np.array([[4, 99], [2, 5]], np.float32)
    np.testing.assert_array_equal(run(cholesky(True), a), [[2, 0], [1, 2]])
    np.testing.assert_array_equal(run(cholesky(False), a.T), [[2, 1], [0, 2]])


def test_cholesky_not_positive_definite_gives_nan_per_matrix() -> None:
    a = np.array([[[4, 0], [2, 5]], [[1, 0], [2, 1]]], np.float32)
    out = run(cholesky(True, "f32[2,2,2]"), a)
    np.testing.assert_array_equal(out[0], [[2, 0], [1, 2]])
    assert np.isnan(out[1]).all()


def test_cholesky_complex_hermitian() -> None:
    a = np.array([[4, 0], [2j, 5]], np.complex64)
    out = run(cholesky(True, "c64[2,2]"), a)
    np.testing.assert_allclose(out, [[2, 0], [1j, 2]], atol=1e-6)


def solve(a_shape: str, b_shape: str, left: bool, lower: bool, unit: bool, transpose: str) -> str:
    return f"""HloModule m
ENTRY e {{
  a = {a_shape} parameter(0)
  b = {b_shape} parameter(1)
  ROOT x = {b_shape} triangular-solve(a, b), left_side={str(left).lower()}, lower={str(lower).lower()}, unit_diagonal={str(unit).lower()}, transpose_a={transpose}
}}"""  # noqa: E501


def test_triangular_solve_hand_derived() -> None:
    a = np.array([[2, 7], [1, 4]], np.float32)  # the 7 is outside the lower triangle
    x = run(solve("f32[2,2]", "f32[2,1]", True, True, False, "NO_TRANSPOSE"), a,
            np.array([[2], [9]], np.float32))
    np.testing.assert_array_equal(x, [[1], [2]])
    x = run(solve("f32[2,2]", "f32[2,1]", True, True, False, "TRANSPOSE"), a,
            np.array([[4], [8]], np.float32))
    np.testing.assert_array_equal(x, [[1], [2]])


@pytest.mark.parametrize(("left", "lower", "unit", "transpose"), list(itertools.product(
    (True, False), (True, False), (True, False), ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"))))
def test_triangular_solve_residual(left: bool, lower: bool, unit: bool, transpose: str) -> None:
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4, 4)) + 1j * rng.standard_normal((3, 4, 4))) + 4 * np.eye(4)
    b_dims = (3, 4, 2) if left else (3, 2, 4)
    b = rng.standard_normal(b_dims) + 1j * rng.standard_normal(b_dims)
    b_shape = "c128[" + ",".join(map(str, b_dims)) + "]"
    x = run(solve("c128[3,4,4]", b_shape, left, lower, unit, transpose), a, b)
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        t[:, range(4), range(4)] = 1
    op = {"NO_TRANSPOSE": t, "TRANSPOSE": np.swapaxes(t, 1, 2),
          "ADJOINT": np.conj(np.swapaxes(t, 1, 2))}[transpose]
    np.testing.assert_allclose(op @ x if left else x @ op, b, atol=1e-10)


def batch_norm(op: str, operands: list[str], result: str, epsilon: float) -> str:
    """`op` on parameters p0, p1, ... of the given shapes."""
    params = "\n".join(f"  p{i} = {shape} parameter({i})" for i, shape in enumerate(operands))
    args = ", ".join(f"p{i}" for i in range(len(operands)))
    return f"""HloModule m
ENTRY e {{
{params}
  ROOT r = {result} {op}({args}), epsilon={epsilon}, feature_index=1
}}"""


def test_batch_norm_training() -> None:
    text = batch_norm("batch-norm-training", ["f32[2,2]", "f32[2]", "f32[2]"],
                      "(f32[2,2], f32[2], f32[2])", 0)
    x = np.array([[1, 2], [3, 6]], np.float32)
    out, mean, var = run(text, x, np.array([1, 2], np.float32), np.array([0, 10], np.float32))
    np.testing.assert_array_equal(mean, [2, 4])
    np.testing.assert_array_equal(var, [1, 4])
    np.testing.assert_array_equal(out, [[-1, 8], [1, 12]])


def test_batch_norm_inference() -> None:
    text = batch_norm("batch-norm-inference",
                      ["f32[1,2]", *["f32[2]"] * 4], "f32[1,2]", 1)
    args = [np.array([[5, 5]], np.float32), np.array([2, 1], np.float32),
            np.array([1, 0], np.float32), np.array([1, 2], np.float32),
            np.array([3, 8], np.float32)]
    np.testing.assert_allclose(run(text, *args), [[5, 1]])


def test_batch_norm_grad() -> None:
    text = batch_norm("batch-norm-grad",
                      ["f32[3,1]", *["f32[1]"] * 3, "f32[3,1]"],
                      "(f32[3,1], f32[1], f32[1])", 3)
    args = [np.array([[0], [3], [6]], np.float32), np.array([3], np.float32),
            np.array([3], np.float32), np.array([6], np.float32),
            np.array([[1], [0], [2]], np.float32)]
    grad_x, grad_scale, grad_offset = run(text, *args)
    np.testing.assert_allclose(grad_x, [[1 / 3], [-1], [2 / 3]], rtol=1e-6)
    np.testing.assert_allclose(grad_scale, [1], rtol=1e-6)
    np.testing.assert_allclose(grad_offset, [3])
