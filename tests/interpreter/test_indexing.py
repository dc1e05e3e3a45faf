"""gather / scatter kernels: dimension numbers, clamping, skipping, update order.

Expected values are hand-derived; the XLA:CPU behaviours (clamping, whole-window skip,
in-order application, bf16 rounding per update) were recorded with jax 0.10.2.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator


def run(text: str, *args: np.ndarray) -> object:
    return Evaluator(parse_hlo(text)).run(list(args))


def gather(operand: str, indices: str, result: str, attrs: str) -> str:
    return f"""HloModule m
ENTRY e {{
  x = {operand} parameter(0)
  i = {indices} parameter(1)
  ROOT g = {result} gather(x, i), {attrs}
}}"""


def test_gather_rows_with_implicit_index_vector_dim() -> None:
    text = gather("f32[4,3]", "s32[3]", "f32[3,3]",
                  "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
                  "index_vector_dim=1, slice_sizes={1,3}")  # fmt: skip
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = run(text, x, np.array([2, 0, 3], np.int32))
    np.testing.assert_array_equal(out, x[[2, 0, 3]])


def test_gather_clamps_start_indices_so_the_slice_fits() -> None:
    text = gather("f32[5]", "s32[3,1]", "f32[3,2]",
                  "offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, "
                  "index_vector_dim=1, slice_sizes={2}")  # fmt: skip
    out = run(text, np.arange(5, dtype=np.float32), np.array([[-2], [4], [2]], np.int32))
    np.testing.assert_array_equal(out, [[0, 1], [3, 4], [2, 3]])


def test_gather_index_vector_dim_zero() -> None:
    text = gather("f32[3,4]", "s32[2,3]", "f32[3]",
                  "offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, "
                  "index_vector_dim=0, slice_sizes={1,1}")  # fmt: skip
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = run(text, x, np.array([[0, 1, 2], [3, 0, 1]], np.int32))
    np.testing.assert_array_equal(out, [3, 4, 9])


def test_gather_offset_dims_before_batch_dims() -> None:
    text = gather("f32[3,4]", "s32[2]", "f32[3,2]",
                  "offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, "
                  "index_vector_dim=1, slice_sizes={3,1}")  # fmt: skip
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = run(text, x, np.array([1, 2], np.int32))
    np.testing.assert_array_equal(out, x[:, [1, 2]])


def test_gather_batching_dims() -> None:
    text = gather("f32[2,3,2]", "s32[2,2,1]", "f32[2,2,2]",
                  "offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, "
                  "operand_batching_dims={0}, start_indices_batching_dims={0}, "
                  "index_vector_dim=2, slice_sizes={1,1,2}")  # fmt: skip
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    out = run(text, x, np.array([[[2], [0]], [[1], [7]]], np.int32))
    np.testing.assert_array_equal(out, [[[4, 5], [0, 1]], [[8, 9], [10, 11]]])


def test_gather_batching_dims_out_of_order() -> None:
    """operand batch dims (0, 2) pair with indices dims (1, 0)."""
    text = gather("f32[2,3,4]", "s32[4,2,1]", "f32[4,2]",
                  "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, "
                  "operand_batching_dims={0,2}, start_indices_batching_dims={1,0}, "
                  "index_vector_dim=2, slice_sizes={1,1,1}")  # fmt: skip
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.arange(8, dtype=np.int32).reshape(4, 2, 1) % 3
    expected = [[x[b, idx[a, b, 0], a] for b in range(2)] for a in range(4)]
    np.testing.assert_array_equal(run(text, x, idx), expected)


def scatter(operand: str, indices: str, updates: str, attrs: str, body: str = "add",
            ty: str = "f32") -> str:
    """A scatter whose combiner applies `body` (or returns the update for "set")."""
    rhs = f"ROOT b = {ty}[] parameter(1)" if body == "set" else f"b = {ty}[] parameter(1)"
    root = "" if body == "set" else f"ROOT r = {ty}[] {body}(a, b)"
    return f"""HloModule m
comb {{
  a = {ty}[] parameter(0)
  {rhs}
  {root}
}}
ENTRY e {{
  x = {operand} parameter(0)
  i = {indices} parameter(1)
  u = {updates} parameter(2)
  ROOT s = {operand} scatter(x, i, u), {attrs}, to_apply=comb
}}"""


_POINTS = ("update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
           "index_vector_dim=1")


@pytest.mark.parametrize(("body", "expected"), [("add", [0, 40, 0, 20]), ("set", [0, 30, 0, 20]),
                                                ("maximum", [0, 30, 0, 20]),
                                                ("minimum", [0, 0, 0, 0])])
def test_scatter_duplicates(body: str, expected: list[float]) -> None:
    text = scatter("f32[4]", "s32[3,1]", "f32[3]", _POINTS, body)
    out = run(text, np.zeros(4, np.float32), np.array([[1], [3], [1]], np.int32),
              np.array([10, 20, 30], np.float32))
    np.testing.assert_array_equal(out, expected)


def test_scatter_int_combiners() -> None:
    x = np.array([1, 2, 3, 4], np.int32)
    idx = np.array([[0], [0], [2]], np.int32)
    upd = np.array([6, 3, 5], np.int32)
    for body, expected in [("multiply", [18, 2, 15, 4]), ("xor", [4, 2, 6, 4]),
                           ("or", [7, 2, 7, 4]), ("and", [0, 2, 1, 4])]:
        out = run(scatter("s32[4]", "s32[3,1]", "s32[3]", _POINTS, body, "s32"), x, idx, upd)
        np.testing.assert_array_equal(out, expected, err_msg=body)


def test_scatter_skips_whole_window_when_out_of_bounds() -> None:
    attrs = ("update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, "
             "index_vector_dim=1")
    text = scatter("f32[5]", "s32[4,1]", "f32[4,2]", attrs)
    out = run(text, np.zeros(5, np.float32), np.array([[4], [-1], [3], [1]], np.int32),
              np.ones((4, 2), np.float32))
    np.testing.assert_array_equal(out, [0, 1, 1, 1, 1])


def test_scatter_set_applies_scatter_indices_in_order() -> None:
    """Updates laid out window-major still apply per scatter index: index 1 wins at 1."""
    attrs = ("update_window_dims={0}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, "
             "index_vector_dim=1")
    text = scatter("f32[4]", "s32[2,1]", "f32[2,2]", attrs, "set")
    updates = np.array([[10, 20], [11, 21]], np.float32)  # [window, scatter index]
    out = run(text, np.zeros(4, np.float32), np.array([[0], [1]], np.int32), updates)
    np.testing.assert_array_equal(out, [10, 20, 21, 0])


def test_scatter_general_combiner_runs_in_order() -> None:
    text = f"""HloModule m
comb {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  two = f32[] constant(2)
  m = f32[] multiply(a, two)
  ROOT r = f32[] add(m, b)
}}
ENTRY e {{
  x = f32[3] parameter(0)
  i = s32[4,1] parameter(1)
  u = f32[4] parameter(2)
  ROOT s = f32[3] scatter(x, i, u), {_POINTS}, to_apply=comb
}}"""
    out = run(text, np.full(3, 100, np.float32), np.array([[0], [0], [2], [0]], np.int32),
              np.array([1, 2, 3, 4], np.float32))
    np.testing.assert_array_equal(out, [812, 100, 203])  # recorded from XLA:CPU


def test_scatter_bf16_rounds_after_every_update() -> None:
    text = scatter("bf16[1]", "s32[2,1]", "bf16[2]", _POINTS, "add", "bf16")
    bf16 = ml_dtypes.bfloat16
    out = run(text, np.ones(1, bf16), np.zeros((2, 1), np.int32), np.full(2, 2.0**-8, bf16))
    assert out.dtype == bf16 and float(out[0]) == 1.0


def test_variadic_scatter() -> None:
    text = f"""HloModule m
comb {{
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  s = f32[] add(a0, b0)
  m = s32[] maximum(a1, b1)
  ROOT t = (f32[], s32[]) tuple(s, m)
}}
ENTRY e {{
  x = f32[3] parameter(0)
  y = s32[3] parameter(1)
  i = s32[3,1] parameter(2)
  u = f32[3] parameter(3)
  v = s32[3] parameter(4)
  ROOT s = (f32[3], s32[3]) scatter(x, y, i, u, v), {_POINTS}, to_apply=comb
}}"""
    out = run(text, np.zeros(3, np.float32), np.zeros(3, np.int32),
              np.array([[2], [0], [2]], np.int32), np.array([1, 2, 3], np.float32),
              np.array([5, -1, 4], np.int32))
    np.testing.assert_array_equal(out[0], [2, 0, 4])
    np.testing.assert_array_equal(out[1], [0, 0, 5])


def test_scatter_batching_dims() -> None:
    attrs = ("update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, "
             "input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2")
    text = scatter("f32[2,3,2]", "s32[2,2,1]", "f32[2,2,2]", attrs)
    idx = np.array([[[2], [2]], [[0], [1]]], np.int32)
    upd = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    expected = np.zeros((2, 3, 2), np.float32)
    for b in range(2):
        for j in range(2):
            expected[b, idx[b, j, 0]] += upd[b, j]
    np.testing.assert_array_equal(run(text, np.zeros((2, 3, 2), np.float32), idx, upd), expected)


def test_scatter_empty_updates_leave_operand() -> None:
    text = scatter("f32[3]", "s32[0,1]", "f32[0]", _POINTS)
    x = np.array([1, 2, 3], np.float32)
    out = run(text, x, np.zeros((0, 1), np.int32), np.zeros(0, np.float32))
    np.testing.assert_array_equal(out, x)


def test_scatter_add_flushes_denormals_like_xla() -> None:
    """XLA:CPU reads and writes denormals as zero at every step of a scatter-add."""
    text = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  i = s32[3,1] parameter(1)
  u = f32[3] parameter(2)
  ROOT r = f32[4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}"""
    from hlotool.frontend import parse_hlo
    from hlotool.interpreter.core import Evaluator

    x = np.array([1e-39, 2.0, 0.0, 5.0], np.float32)
    i = np.array([[0], [2], [2]], np.int32)
    u = np.array([1.0, 3e-39, 2e-39], np.float32)
    got = Evaluator(parse_hlo(text)).run([x, i, u])
    np.testing.assert_array_equal(got, np.array([1.0, 2.0, 0.0, 5.0], np.float32))
