"""Native convolution (im2col + BLAS thunk, targets/cpu/kernels/conv.py) against the
interpreter.

Tolerance: both compute f32 in f32 (f64 in f64) as one contraction over (window,
feature); only BLAS's summation order differs, so results agree within
rtol = atol = 1e-4 for f32 (unit-normal inputs, at most a few hundred terms) and 1e-12
for f64, not bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.targets.conftest import run_both

TOL = {"f32": 1e-4, "f64": 1e-12}


def conv_text(labels: str, n: int, c: int, sizes: tuple[int, ...], o: int,
              win: tuple[int, ...], *, t: str = "f32", stride: tuple[int, ...] | None = None,
              pad: tuple[tuple[int, int], ...] | None = None,
              lhs_dilate: tuple[int, ...] | None = None,
              rhs_dilate: tuple[int, ...] | None = None, fg: int = 1, bg: int = 1,
              reversal: bool = False, fused: bool = False) -> tuple[str, tuple, tuple]:
    """An HLO module with one convolution; returns (text, lhs dims, rhs dims)."""
    k = len(sizes)
    stride = stride or (1,) * k
    pad = pad or ((0, 0),) * k
    lhs_dilate = lhs_dilate or (1,) * k
    rhs_dilate = rhs_dilate or (1,) * k
    outs = []
    for i in range(k):
        padded = (sizes[i] - 1) * lhs_dilate[i] + 1 + pad[i][0] + pad[i][1]
        eff = (win[i] - 1) * rhs_dilate[i] + 1
        outs.append((padded - eff) // stride[i] + 1)
    lhs_l, rest = labels.split("_")
    rhs_l, out_l = rest.split("->")
    lhs = tuple(n if ch == "b" else c if ch == "f" else sizes[int(ch)] for ch in lhs_l)
    rhs = tuple(c // fg if ch == "i" else o if ch == "o" else win[int(ch)] for ch in rhs_l)
    out = tuple(n // bg if ch == "b" else o if ch == "f" else outs[int(ch)] for ch in out_l)

    def dims(d: tuple) -> str:
        return f"{t}[{','.join(map(str, d))}]"

    def x(v: tuple) -> str:
        return "x".join(map(str, v))

    w = f"size={x(win)} stride={x(stride)} pad={x(tuple(f'{a}_{b}' for a, b in pad))}"
    w += f" lhs_dilate={x(lhs_dilate)} rhs_dilate={x(rhs_dilate)}"
    if reversal:
        w += f" rhs_reversal={x((1,) * k)}"
    conv = (f"convolution(a, b), window={{{w}}}, dim_labels={labels}, "
            f"feature_group_count={fg}, batch_group_count={bg}")
    if fused:
        text = f"""HloModule m
fc {{
  a = {dims(lhs)} parameter(0)
  b = {dims(rhs)} parameter(1)
  ROOT c = {dims(out)} {conv}
}}
ENTRY e {{
  x = {dims(lhs)} parameter(0)
  y = {dims(rhs)} parameter(1)
  ROOT r = {dims(out)} fusion(x, y), kind=kCustom, calls=fc
}}"""
    else:
        text = f"""HloModule m
ENTRY e {{
  a = {dims(lhs)} parameter(0)
  b = {dims(rhs)} parameter(1)
  ROOT r = {dims(out)} {conv}
}}"""
    return text, lhs, rhs


def check(case: tuple[str, tuple, tuple], t: str = "f32", native: bool = True) -> None:
    text, lhs, rhs = case
    rng = np.random.default_rng(0)
    dtype = {"f32": np.float32, "f64": np.float64, "s32": np.int32}[t]
    a = (rng.standard_normal(lhs) * 4).astype(dtype)
    b = (rng.standard_normal(rhs) * 4).astype(dtype)
    got, want, ex = run_both(text, a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    if native:
        assert ex.stats.fallback == 0 and ex.stats.native == 1
        tol = TOL[t] * 16  # inputs scaled by 4 x 4
        np.testing.assert_allclose(got, want, rtol=TOL[t], atol=tol)
    else:
        assert ex.stats.native == 0
        np.testing.assert_array_equal(got, want)


CASES = {
    "nhwc 3x3 same": dict(labels="b01f_01io->b01f", n=2, c=5, sizes=(7, 6), o=4, win=(3, 3),
                          pad=((1, 1), (1, 1))),
    "nchw strided dilated": dict(labels="bf01_oi01->bf01", n=3, c=4, sizes=(9, 8), o=6,
                                 win=(3, 2), stride=(2, 3), pad=((0, 1), (1, 0)),
                                 rhs_dilate=(2, 1)),
    "lhs dilate negative pad": dict(labels="b01f_01io->b01f", n=2, c=3, sizes=(5, 6), o=2,
                                    win=(2, 3), pad=((-1, 1), (0, -2)), lhs_dilate=(2, 2),
                                    stride=(1, 2)),
    "feature groups": dict(labels="b01f_01io->b01f", n=2, c=8, sizes=(6, 5), o=12, win=(3, 3),
                           pad=((1, 1), (1, 1)), fg=4),
    "depthwise nchw": dict(labels="bf01_oi01->bf01", n=1, c=6, sizes=(5, 5), o=6, win=(3, 3),
                           fg=6, stride=(2, 2)),
    "batch groups": dict(labels="b01f_01io->b01f", n=6, c=3, sizes=(5, 4), o=4, win=(2, 2),
                         bg=2),
    "1-d odd labels": dict(labels="0fb_i0o->f0b", n=3, c=4, sizes=(11,), o=5, win=(4,),
                           stride=(2,), pad=((2, 1),), rhs_dilate=(2,)),
    "3-d": dict(labels="b012f_012io->b012f", n=2, c=3, sizes=(4, 5, 3), o=2, win=(2, 3, 1),
                pad=((1, 0), (1, 1), (0, 0))),
    "1x1 transposed output": dict(labels="b01f_io01->fb01", n=2, c=8, sizes=(4, 4), o=3,
                                  win=(1, 1)),
    "window larger than input": dict(labels="b0f_0io->b0f", n=2, c=2, sizes=(3,), o=2, win=(5,),
                                     pad=((2, 2),)),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_native_conv(name: str, t: str) -> None:
    check(conv_text(**CASES[name], t=t), t)


def test_fused_conv() -> None:
    """XLA:CPU wraps convolutions in kCustom fusions: the whole fusion runs natively."""
    check(conv_text(**CASES["nhwc 3x3 same"], fused=True))


@pytest.mark.parametrize("kind", ["reversal", "s32"])
def test_fallback(kind: str) -> None:
    if kind == "reversal":
        check(conv_text(**CASES["nchw strided dilated"], reversal=True), native=False)
    else:
        check(conv_text(**CASES["nhwc 3x3 same"], t="s32"), "s32", native=False)
