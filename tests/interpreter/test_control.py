"""Control-flow kernels: call, fusion, while, conditional and async wrappers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator, Unsupported


def run(text: str, *args: Any, **kwargs: Any) -> Any:
    return Evaluator(parse_hlo(text), **kwargs).run([np.asarray(a) for a in args])


WHILE = """HloModule m
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  two = f32[] constant(2)
  x2 = f32[] multiply(x, two)
  ROOT t = (s32[], f32[]) tuple(i2, x2)
}
ENTRY e {
  i0 = s32[] parameter(0)
  x0 = f32[] parameter(1)
  t = (s32[], f32[]) tuple(i0, x0)
  ROOT w = (s32[], f32[]) while(t), condition=cond, body=body
}"""


def test_while_runs_until_the_condition_fails() -> None:
    i, x = run(WHILE, np.int32(0), np.float32(1.5))
    assert i == 5
    assert x == 48.0
    i, x = run(WHILE, np.int32(7), np.float32(1.5))
    assert i == 7
    assert x == 1.5


def test_while_iteration_guard() -> None:
    with pytest.raises(Unsupported, match="did not finish"):
        run(WHILE, np.int32(0), np.float32(1), max_while_iterations=3)


CONDITIONAL_INDEX = """HloModule m
b0 {
  p = f32[] parameter(0)
  ROOT r = f32[] negate(p)
}
b1 {
  p = f32[] parameter(0)
  ROOT r = f32[] add(p, p)
}
b2 {
  p = s32[] parameter(0)
  ROOT r = f32[] convert(p)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  n = s32[] parameter(2)
  ROOT c = f32[] conditional(i, x, x, n), branch_computations={b0, b1, b2}
}"""


@pytest.mark.parametrize(
    ("index", "expected"), [(0, -3.0), (1, 6.0), (2, 7.0), (3, 7.0), (-1, 7.0), (2**31 - 1, 7.0)]
)
def test_conditional_index_out_of_range_takes_the_last_branch(index: int, expected: float) -> None:
    assert run(CONDITIONAL_INDEX, np.int32(index), np.float32(3), np.int32(7)) == expected


def test_conditional_with_predicate() -> None:
    text = """HloModule m
t {
  p = f32[2] parameter(0)
  ROOT r = f32[2] negate(p)
}
f {
  p = s32[] parameter(0)
  ROOT r = f32[2] broadcast(f32[] convert(p)), dimensions={}
}
ENTRY e {
  c = pred[] parameter(0)
  x = f32[2] parameter(1)
  n = s32[] parameter(2)
  ROOT r = f32[2] conditional(c, x, n), true_computation=t, false_computation=f
}"""
    np.testing.assert_array_equal(
        run(text, np.bool_(True), np.float32([1, 2]), np.int32(4)), [-1, -2]
    )
    np.testing.assert_array_equal(
        run(text, np.bool_(False), np.float32([1, 2]), np.int32(4)), [4, 4]
    )


def test_call_and_fusion_run_their_computations() -> None:
    text = """HloModule m
sq {
  p = f32[3] parameter(0)
  ROOT r = f32[3] multiply(p, p)
}
fused {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[3] subtract(a, b)
}
ENTRY e {
  x = f32[3] parameter(0)
  c = f32[3] call(x), to_apply=sq
  ROOT f = f32[3] fusion(c, x), kind=kLoop, calls=fused
}"""
    np.testing.assert_array_equal(run(text, np.float32([1, 2, 3])), [0, 2, 6])


def test_async_start_update_done() -> None:
    text = """HloModule m
wrapped {
  p = f32[2] parameter(0)
  ROOT r = f32[2] exponential(p)
}
ENTRY e {
  x = f32[2] parameter(0)
  s = ((f32[2]), f32[2], s32[]) async-start(x), calls=wrapped
  u = ((f32[2]), f32[2], s32[]) async-update(s)
  ROOT d = f32[2] async-done(u)
}"""
    np.testing.assert_allclose(run(text, np.float32([0, 1])), [1, np.e], rtol=1e-6)
