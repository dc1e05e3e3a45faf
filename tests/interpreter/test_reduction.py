"""reduce, reduce-window, select-and-scatter and scan.

Values marked "XLA" were recorded from XLA:CPU (jaxlib 0.10.2, through jax.lax) and are
compared exactly: they pin the evaluation order (32-element tree reduction, 16-element
chunked prefix scans, sequential folds) that decides the rounding.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator

bf16 = ml_dtypes.bfloat16


def run(text: str, *args: Any) -> Any:
    return Evaluator(parse_hlo(text)).run([np.asarray(a) for a in args])


def binary_region(t: str, op: str, name: str = "r") -> str:
    return f"""{name} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT o = {t}[] {op}(a, b)
}}"""


def reduce_module(t: str, shape: str, out: str, dims: str, op: str = "add", init: str = "0") -> str:
    return f"""HloModule m
{binary_region(t, op)}
ENTRY e {{
  x = {t}{shape} parameter(0)
  z = {t}[] constant({init})
  ROOT o = {t}{out} reduce(x, z), dimensions={{{dims}}}, to_apply=r
}}"""


def window_module(
    t: str, shape: str, out: str, window: str, op: str = "add", init: str = "0"
) -> str:
    return f"""HloModule m
{binary_region(t, op)}
ENTRY e {{
  x = {t}{shape} parameter(0)
  z = {t}[] constant({init})
  ROOT o = {t}{out} reduce-window(x, z), window={{{window}}}, to_apply=r
}}"""


X3 = (np.sin(np.arange(120) * 1.3) * 2.5).astype(np.float32).reshape(4, 5, 6)


@pytest.mark.parametrize(
    ("dims", "out", "expected"),
    [
        ("0,1,2", "[]", [1.9709891080856323]),
        (
            "0,2",
            "[5]",
            [
                2.128976345062256,
                -1.016162633895874,
                -2.238630533218384,
                0.774590253829956,
                2.3222179412841797,
            ],
        ),
    ],
)
def test_f32_sum_folds_sequentially_like_xla(dims: str, out: str, expected: list[float]) -> None:
    got = run(reduce_module("f32", "[4,5,6]", out, dims), X3)
    np.testing.assert_array_equal(np.reshape(got, -1), np.float32(expected))


def test_bf16_sum_uses_xla_tree_reduction() -> None:
    # XLA: windows of 32 summed in bf16, then the 32 partial sums; a sequential sum would
    # stall at 1024 and an f32 accumulation would give 2112.
    x = (np.arange(1000) % 7 * 0.37 + 1).astype(bf16)
    assert float(run(reduce_module("bf16", "[1000]", "[]", "0"), x)) == 2080.0
    y = (np.arange(2000) % 11 * 0.13 - 0.5).astype(bf16).reshape(40, 50)
    assert float(run(reduce_module("bf16", "[40,50]", "[]", "0,1"), y)) == 318.0
    rows = run(reduce_module("bf16", "[40,50]", "[40]", "1"), y)
    np.testing.assert_array_equal(
        rows[:6].astype(np.float32), [5.5625, 8.75, 6.3125, 8.125, 7.125, 7.5]
    )


def test_max_reduce_propagates_nan_and_orders_signed_zeros() -> None:
    x = np.array([[-0.0, 0.0, -1.0], [-0.0, -0.0, -3.0], [1.0, np.nan, 2.0]], np.float32)
    got = run(reduce_module("f32", "[3,3]", "[3]", "1", "maximum", "-inf"), x)
    assert got[0] == 0
    assert not np.signbit(got[0])
    assert got[1] == 0
    assert np.signbit(got[1])
    assert np.isnan(got[2])
    low = run(reduce_module("f32", "[3,3]", "[3]", "1", "minimum", "inf"), x)
    np.testing.assert_array_equal(low[:2], [-1.0, -3.0])


def test_integer_and_pred_reductions() -> None:
    x = np.array([[2**31 - 1, 1, 5], [-4, 7, 7]], np.int32)
    np.testing.assert_array_equal(
        run(reduce_module("s32", "[2,3]", "[3]", "0"), x), [2**31 - 5, 8, 12]
    )
    np.testing.assert_array_equal(
        run(reduce_module("s32", "[2,3]", "[2]", "1", "maximum", "-7"), x), [2**31 - 1, 7]
    )
    p = np.array([[True, False], [False, False]])
    np.testing.assert_array_equal(
        run(reduce_module("pred", "[2,2]", "[2]", "1", "or", "false"), p), [True, False]
    )


def test_reduce_of_an_empty_dimension_gives_the_init_value() -> None:
    got = run(reduce_module("f32", "[3,0]", "[3]", "1", init="2.5"), np.zeros((3, 0), np.float32))
    np.testing.assert_array_equal(got, [2.5, 2.5, 2.5])


ARGMAX = """HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  isnan = pred[] compare(av, av), direction=NE
  pick_a = pred[] or(gt, isnan)
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take_a = pred[] or(pick_a, tie)
  v = f32[] select(take_a, av, bv)
  i = s32[] select(take_a, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[3,COLS] parameter(0)
  idx = s32[3,COLS] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[3], s32[3]) reduce(x, idx, ninf, zero), dimensions={1}, to_apply=argmax
}"""


@pytest.mark.parametrize("n", [5, 1000])
def test_variadic_argmax_reduce(n: int) -> None:
    x = np.zeros((3, n), np.float32)
    x[0, n // 2] = 4
    x[0, n - 1] = 4
    x[1, 3] = np.nan
    x[2] = -1
    values, index = run(ARGMAX.replace("COLS", str(n)), x)
    np.testing.assert_array_equal(index, [n // 2, 3, 0])
    assert values[0] == 4
    assert np.isnan(values[1])
    assert values[2] == -1


def test_reducer_with_a_conversion_runs_on_arrays() -> None:
    text = """HloModule m
r {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  h = bf16[] convert(s)
  ROOT o = f32[] convert(h)
}
ENTRY e {
  x = f32[4,3] parameter(0)
  z = f32[] constant(0)
  ROOT o = f32[3] reduce(x, z), dimensions={0}, to_apply=r
}"""
    # Each step rounds to bf16: 256 + 1 = 257 rounds (to even) back to 256.
    x = np.array([[256, 1, 1], [1, 256, 1], [1, 2, 1], [0.5, 0.5, 0.5]], np.float32)
    np.testing.assert_array_equal(run(text, x), [256, 258, 3.5])


X4 = (np.cos(np.arange(40) * 0.7) * 1.7).astype(np.float32).reshape(2, 20)
CUMSUM_XLA = [
    1.7000000476837158,
    3.0002317428588867,
    3.2891759872436523,
    2.4309375286102295,
    0.8291594982147217,
    -0.7628169059753418,
    -1.5962603092193604,
    -1.2791893482208252,
    0.03927266597747803,
    1.7390323877334595,
    3.0206661224365234,
    3.2814016342163086,
    2.398611068725586,
    0.7874842882156372,
    -0.7942403554916382,
    -1.6026531457901,
    -1.2575448751449585,
    0.07877457141876221,
    1.7778133153915405,
    3.0404868125915527,
    0.23245327174663544,
    -0.6746401786804199,
    -2.2946600914001465,
    -3.8656859397888184,
    -4.648839473724365,
    -4.275791645050049,
    -2.921992301940918,
    -1.2241547107696533,
    0.01920163631439209,
    0.22330689430236816,
    -0.7078328728675842,
    -2.3362879753112793,
    -3.8961706161499023,
    -4.653843879699707,
    -4.2529616355896,
    -2.882065534591675,
    -1.1859092712402344,
    0.037778377532958984,
    0.21347784996032715,
    -0.7414448261260986,
]


def test_cumulative_sum_matches_xla_chunked_scan() -> None:
    got = run(window_module("f32", "[2,20]", "[2,20]", "size=1x20 pad=0_0x19_0"), X4)
    np.testing.assert_array_equal(got.reshape(-1), np.float32(CUMSUM_XLA))


def test_bf16_cumulative_sum_matches_xla() -> None:
    x = (np.arange(40) * 0.37 + 1).astype(bf16)
    got = run(window_module("bf16", "[40]", "[40]", "size=40 pad=39_0"), x).astype(np.float32)
    # XLA: 16-element chunks scanned in bf16, then the chunk totals carried in.
    np.testing.assert_array_equal(got[15:20], [60.5, 67.5, 74.5, 82.5, 90.5])
    np.testing.assert_array_equal(got[-3:], [298.0, 314.0, 328.0])


@pytest.mark.parametrize("n", [7, 300])
def test_reverse_and_integer_scans(n: int) -> None:
    x = np.arange(n, dtype=np.int32) % 5 - 2
    rev = run(window_module("s32", f"[{n}]", f"[{n}]", f"size={n} pad=0_{n - 1}"), x)
    np.testing.assert_array_equal(rev, np.cumsum(x[::-1])[::-1])
    mx = run(
        window_module("s32", f"[{n}]", f"[{n}]", f"size={n} pad={n - 1}_0", "maximum", "-100"), x
    )
    np.testing.assert_array_equal(mx, np.maximum.accumulate(x))


def test_reduce_window_with_padding_strides_and_dilations() -> None:
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    got = run(
        window_module(
            "f32",
            "[3,4]",
            "[5,2]",
            "size=2x2 stride=1x2 pad=1_0x1_1 lhs_dilate=2x1 rhs_dilate=1x2",
            "maximum",
            "-inf",
        ),
        x,
    )
    np.testing.assert_array_equal(got, [[2, 4], [2, 4], [6, 8], [6, 8], [10, 12]])  # XLA
    got = run(
        window_module("f32", "[3,4]", "[2,4]", "size=2x3 stride=2x1 pad=0_1x2_0", init="1"), x
    )
    np.testing.assert_array_equal(got, [[7, 15, 25, 31], [10, 20, 31, 34]])  # XLA


def test_variadic_reduce_window() -> None:
    text = """HloModule m
r {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  ge = pred[] compare(av, bv), direction=GE
  v = f32[] select(ge, av, bv)
  i = s32[] select(ge, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[6] parameter(0)
  idx = s32[6] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  m1 = s32[] constant(-1)
  ROOT w = (f32[3], s32[3]) reduce-window(x, idx, ninf, m1), window={size=2 stride=2}, to_apply=r
}"""
    values, index = run(text, np.float32([1, 3, 3, 2, 0, 9]))
    np.testing.assert_array_equal(values, [3, 3, 9])
    np.testing.assert_array_equal(index, [1, 2, 5])


SELECT_AND_SCATTER = """HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[2,5] parameter(0)
  s = f32[2,S] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[2,5] select-and-scatter(x, s, z), window={WINDOW}, select=ge, scatter=add
}"""
SAS_X = np.array([[1, 5, 3, 5, 2], [7, 0, 7, 1, 1]], np.float32)


def test_select_and_scatter_first_maximum_wins() -> None:
    text = SELECT_AND_SCATTER.replace("S]", "4]").replace("WINDOW", "size=1x2")
    got = run(text, SAS_X, np.float32([[1, 2, 3, 4], [5, 6, 7, 8]]))
    np.testing.assert_array_equal(got, [[0, 3, 0, 7, 0], [5, 0, 13, 8, 0]])  # XLA


def test_select_and_scatter_skips_padding() -> None:
    text = SELECT_AND_SCATTER.replace("S]", "3]").replace(
        "WINDOW", "size=1x3 stride=1x2 pad=0_0x1_1"
    )
    got = run(text, SAS_X, np.float32([[1, 2, 3], [4, 5, 6]]))
    np.testing.assert_array_equal(got, [[0, 3, 0, 3, 0], [4, 0, 5, 6, 0]])  # XLA


def test_scan_carries_state_and_stacks_outputs() -> None:
    text = """HloModule m
body {
  x = f32[2] parameter(0)
  c = f32[2] parameter(1)
  s = f32[2] add(x, c)
  ROOT t = (f32[2], f32[2]) tuple(s, s)
}
ENTRY e {
  xs = f32[3,2] parameter(0)
  c0 = f32[2] parameter(1)
  ROOT r = (f32[3,2], f32[2]) scan(xs, c0), dimensions={0}, num_carries=1, to_apply=body
}"""
    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    out, carry = run(text, xs, np.float32([10, 20]))
    np.testing.assert_array_equal(out, [[10, 21], [12, 24], [16, 29]])
    np.testing.assert_array_equal(carry, [16, 29])
    reverse = text.replace("to_apply=body", "is_reverse=true, to_apply=body")
    out, carry = run(reverse, xs, np.float32([10, 20]))
    np.testing.assert_array_equal(out, [[16, 29], [16, 28], [14, 25]])
    np.testing.assert_array_equal(carry, [16, 29])
