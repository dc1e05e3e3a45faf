"""Whiles and conditionals compiled whole (kernels/control.py) against the interpreter.

Every test checks the result bit for bit and that the control instruction ran as one
native call (no body instruction ran on the interpreter).
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.kernels.control import ConditionalPlan, WhilePlan
from tests.targets.conftest import assert_same, run_both

RNG = np.random.default_rng(7)

FORI = """HloModule fori
fused (p: f32[64,64]) -> f32[64,64] {
  p = f32[64,64] parameter(0)
  c = f32[] constant(1.01)
  bc = f32[64,64] broadcast(c), dimensions={}
  m = f32[64,64] multiply(p, bc)
  d = f32[] constant(0.1)
  bd = f32[64,64] broadcast(d), dimensions={}
  a = f32[64,64] add(m, bd)
  ROOT t = f32[64,64] tanh(a)
}
inc (a: s32[], b: s32[]) -> s32[] {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
body (s: (s32[], f32[64,64])) -> (s32[], f32[64,64]) {
  s = (s32[], f32[64,64]) parameter(0)
  one = s32[] constant(1)
  y = f32[64,64] get-tuple-element(s), index=1
  i = s32[] get-tuple-element(s), index=0
  t = f32[64,64] fusion(y), kind=kLoop, calls=fused
  j = s32[] fusion(i, one), kind=kLoop, calls=inc
  ROOT r = (s32[], f32[64,64]) tuple(j, t)
}
cond (s: (s32[], f32[64,64])) -> pred[] {
  s = (s32[], f32[64,64]) parameter(0)
  n = s32[] parameter(1)
  i = s32[] get-tuple-element(s), index=0
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (x: f32[64,64], start: s32[]) -> f32[64,64] {
  x = f32[64,64] parameter(0)
  start = s32[] parameter(1)
  t = (s32[], f32[64,64]) tuple(start, x)
  w = (s32[], f32[64,64]) while(t), condition=cond, body=body
  ROOT y = f32[64,64] get-tuple-element(w), index=1
}"""


def check(text: str, *args: np.ndarray, plans: int = 1) -> None:
    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0 and len(ex.thunks) == plans, ex.stats
    for g, w in zip(_flat(got), _flat(want), strict=True):
        assert_same(g, w)


def _flat(v: object) -> list[np.ndarray]:
    return [x for e in v for x in _flat(e)] if isinstance(v, tuple) else [np.asarray(v)]


def fori(limit: int) -> str:
    """FORI with the trip bound `limit` (the condition's s32 constant)."""
    return FORI.replace("n = s32[] parameter(1)", f"n = s32[] constant({limit})")


@pytest.mark.parametrize("limit", [100, 1, 0, -5])
def test_fori_loop(limit: int) -> None:
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    check(fori(limit), x, np.int32(0))


def test_several_state_arrays() -> None:
    """pred, s32, f32 state; a passthrough leaf, two swapped leaves, a constant leaf."""
    text = """HloModule m
body (s: STATE) -> STATE {
  s = STATE parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[8] get-tuple-element(s), index=1
  b = f32[8] get-tuple-element(s), index=2
  c = f32[8] get-tuple-element(s), index=3
  f = pred[] get-tuple-element(s), index=4
  k = u8[3] get-tuple-element(s), index=5
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ab = f32[8] multiply(a, b)
  cc = f32[8] add(c, ab)
  nf = pred[] not(f)
  ROOT r = STATE tuple(j, b, a, cc, nf, k)
}
cond (s: STATE) -> pred[] {
  s = STATE parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (a: f32[8], b: f32[8], k: u8[3]) -> STATE {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  k = u8[3] parameter(2)
  z = s32[] constant(0)
  c = f32[8] constant({1, 2, 3, 4, 5, 6, 7, 8})
  f = pred[] constant(true)
  t = STATE tuple(z, a, b, c, f, k)
  ROOT w = STATE while(t), condition=cond, body=body
}""".replace("STATE", "(s32[], f32[8], f32[8], f32[8], pred[], u8[3])")
    a, b = (RNG.standard_normal(8).astype(np.float32) for _ in range(2))
    check(text, a, b, np.array([1, 2, 255], np.uint8))


def test_condition_reads_state_pred_and_constant_leaf() -> None:
    """The condition is a state leaf itself; the body sets it from a reduce."""
    text = """HloModule m
sum (a: f32[], b: f32[]) -> f32[] {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
body (s: (pred[], f32[4,5], f32[4], s32[])) -> (pred[], f32[4,5], f32[4], s32[]) {
  s = (pred[], f32[4,5], f32[4], s32[]) parameter(0)
  x = f32[4,5] get-tuple-element(s), index=1
  half = f32[] constant(0.5)
  bh = f32[4,5] broadcast(half), dimensions={}
  y = f32[4,5] multiply(x, bh)
  z = f32[] constant(0)
  r = f32[4] reduce(y, z), dimensions={1}, to_apply=sum
  tot = f32[] reduce(r, z), dimensions={0}, to_apply=sum
  lim = f32[] constant(0.01)
  go = pred[] compare(tot, lim), direction=GT
  seven = s32[] constant(7)
  ROOT t = (pred[], f32[4,5], f32[4], s32[]) tuple(go, y, r, seven)
}
cond (s: (pred[], f32[4,5], f32[4], s32[])) -> pred[] {
  s = (pred[], f32[4,5], f32[4], s32[]) parameter(0)
  ROOT g = pred[] get-tuple-element(s), index=0
}
ENTRY main (x: f32[4,5]) -> (pred[], f32[4,5], f32[4], s32[]) {
  x = f32[4,5] parameter(0)
  t0 = pred[] constant(true)
  r0 = f32[4] constant({0, 0, 0, 0})
  s0 = s32[] constant(0)
  t = (pred[], f32[4,5], f32[4], s32[]) tuple(t0, x, r0, s0)
  ROOT w = (pred[], f32[4,5], f32[4], s32[]) while(t), condition=cond, body=body
}"""
    check(text, np.abs(RNG.standard_normal((4, 5))).astype(np.float32) + 1)


NESTED = """HloModule m
ibody (s: (s32[], f32[16])) -> (s32[], f32[16]) {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[16] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[16] tanh(x)
  ROOT r = (s32[], f32[16]) tuple(j, y)
}
icond (s: (s32[], f32[16])) -> pred[] {
  s = (s32[], f32[16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
step (x: f32[16], k: s32[]) -> f32[16] {
  x = f32[16] parameter(0)
  k = s32[] parameter(1)
  kf = f32[] convert(k)
  b = f32[16] broadcast(kf), dimensions={}
  ROOT a = f32[16] add(x, b)
}
obody (s: (s32[], f32[16])) -> (s32[], f32[16]) {
  s = (s32[], f32[16]) parameter(0)
  k = s32[] get-tuple-element(s), index=0
  x = f32[16] get-tuple-element(s), index=1
  z = s32[] constant(0)
  it = (s32[], f32[16]) tuple(z, x)
  iw = (s32[], f32[16]) while(it), condition=icond, body=ibody
  y = f32[16] get-tuple-element(iw), index=1
  c = f32[16] call(y, k), to_apply=step
  one = s32[] constant(1)
  k1 = s32[] add(k, one)
  ROOT r = (s32[], f32[16]) tuple(k1, c)
}
ocond (s: (s32[], f32[16])) -> pred[] {
  s = (s32[], f32[16]) parameter(0)
  k = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(k, n), direction=LT
}
ENTRY main (x: f32[16]) -> (s32[], f32[16]) {
  x = f32[16] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[16]) tuple(z, x)
  ROOT w = (s32[], f32[16]) while(t), condition=ocond, body=obody
}"""


def test_nested_while_and_call() -> None:
    check(NESTED, RNG.standard_normal(16).astype(np.float32))


def test_nested_plan_is_one_kernel() -> None:
    ex = compile_module(parse_hlo(NESTED))
    kinds = [type(p).__name__ for p in _plans(ex)]
    assert kinds == ["WhilePlan"]


def _plans(ex: object) -> list[object]:
    from hlotool.targets.cpu.codegen import plan_module

    return list(plan_module(ex.module).plans.values())  # type: ignore[attr-defined]


COND = """HloModule m
b0 (p: (f32[6], s32[])) -> (f32[6], s32[]) {
  p = (f32[6], s32[]) parameter(0)
  x = f32[6] get-tuple-element(p), index=0
  y = f32[6] exponential(x)
  k = s32[] get-tuple-element(p), index=1
  ROOT r = (f32[6], s32[]) tuple(y, k)
}
b1 (p: f32[6]) -> (f32[6], s32[]) {
  p = f32[6] parameter(0)
  c = s32[] constant(11)
  ROOT r = (f32[6], s32[]) tuple(p, c)
}
b2 (p: (f32[6], s32[])) -> (f32[6], s32[]) {
  p = (f32[6], s32[]) parameter(0)
  k = s32[] get-tuple-element(p), index=1
  x = f32[6] get-tuple-element(p), index=0
  n = f32[6] negate(x)
  m = s32[] multiply(k, k)
  ROOT r = (f32[6], s32[]) tuple(n, m)
}
ENTRY main (i: s32[], x: f32[6], k: s32[]) -> (f32[6], s32[]) {
  i = s32[] parameter(0)
  x = f32[6] parameter(1)
  k = s32[] parameter(2)
  a = (f32[6], s32[]) tuple(x, k)
  ROOT c = (f32[6], s32[]) conditional(i, a, x, a), branch_computations={b0, b1, b2}
}"""


@pytest.mark.parametrize("index", [0, 1, 2, 3, -1])
def test_conditional_index(index: int) -> None:
    check(COND, np.int32(index), RNG.standard_normal(6).astype(np.float32), np.int32(-9))


PRED_COND = """HloModule m
t (p: f32[5]) -> f32[5] {
  p = f32[5] parameter(0)
  ROOT r = f32[5] sqrt(p)
}
f (p: (f32[5], f32[5])) -> f32[5] {
  p = (f32[5], f32[5]) parameter(0)
  a = f32[5] get-tuple-element(p), index=0
  b = f32[5] get-tuple-element(p), index=1
  ROOT r = f32[5] subtract(a, b)
}
ENTRY main (c: pred[], x: f32[5], y: f32[5]) -> f32[5] {
  c = pred[] parameter(0)
  x = f32[5] parameter(1)
  y = f32[5] parameter(2)
  xy = (f32[5], f32[5]) tuple(x, y)
  ROOT r = f32[5] conditional(c, x, xy), true_computation=t, false_computation=f
}"""


@pytest.mark.parametrize("pred", [True, False])
def test_conditional_pred(pred: bool) -> None:
    x, y = (np.abs(RNG.standard_normal(5)).astype(np.float32) for _ in range(2))
    check(PRED_COND, np.bool_(pred), x, y)


def test_conditional_inside_while() -> None:
    text = """HloModule m
even (x: f32[4]) -> f32[4] {
  x = f32[4] parameter(0)
  two = f32[] constant(2)
  b = f32[4] broadcast(two), dimensions={}
  ROOT r = f32[4] multiply(x, b)
}
odd (x: f32[4]) -> f32[4] {
  x = f32[4] parameter(0)
  ROOT r = f32[4] negate(x)
}
body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  two = s32[] constant(2)
  r = s32[] remainder(i, two)
  y = f32[4] conditional(r, x, x), branch_computations={even, odd}
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(j, y)
}
cond (s: (s32[], f32[4])) -> pred[] {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(9)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (x: f32[4]) -> (s32[], f32[4]) {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[4]) tuple(z, x)
  ROOT w = (s32[], f32[4]) while(t), condition=cond, body=body
}"""
    check(text, RNG.standard_normal(4).astype(np.float32))


def test_while_with_library_call_stays_on_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotool.targets.cpu.kernels import blas

    monkeypatch.setattr(blas, "_REGISTERED", frozenset())  # dots as numpy calls
    text = """HloModule m
body (s: (s32[], f32[4,4])) -> (s32[], f32[4,4]) {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4,4] get-tuple-element(s), index=1
  d = f32[4,4] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4,4]) tuple(j, d)
}
cond (s: (s32[], f32[4,4])) -> pred[] {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (x: f32[4,4]) -> (s32[], f32[4,4]) {
  x = f32[4,4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[4,4]) tuple(z, x)
  ROOT w = (s32[], f32[4,4]) while(t), condition=cond, body=body
}"""
    got, want, ex = run_both(text, RNG.standard_normal((4, 4)).astype(np.float32) * 0.5)
    assert "library call" in ex.skipped["w"] and ex.stats.native > 1
    for g, w in zip(_flat(got), _flat(want), strict=True):
        assert_same(g, w)


def _entry(ex: object, plan_type: type) -> tuple[object, object]:
    """(ctypes entry, plan) of the module's only control plan."""
    (plan,) = [p for p in _plans(ex) if isinstance(p, plan_type)]
    symbol = ex.symbols.get(plan.name, plan.name)  # type: ignore[attr-defined]
    return ex.library.get_function(symbol), plan  # type: ignore[attr-defined]


def _call(fn: object, buffers: list[np.ndarray]) -> None:
    args = (ctypes.c_void_p * len(buffers))(*[b.ctypes.data for b in buffers])
    fn(args)  # type: ignore[operator]


def test_while_in_place() -> None:
    """Output k handed the same buffer as input k (as the arena runtime does)."""
    text = fori(37)
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    _, want, ex = run_both(text, x, np.int32(0))
    fn, plan = _entry(ex, WhilePlan)
    state = [np.zeros((), np.int32), x.copy()]
    _call(fn, [*state, *state, np.empty(plan.scratch_bytes, np.uint8)])
    assert int(state[0]) == 37
    assert_same(state[1], want)


def test_conditional_output_is_input() -> None:
    """The output buffer handed the same buffer as the branch operand's leaf."""
    x = np.abs(RNG.standard_normal(5)).astype(np.float32)
    y = RNG.standard_normal(5).astype(np.float32)
    _, want, ex = run_both(PRED_COND, np.bool_(True), x, y)
    fn, plan = _entry(ex, ConditionalPlan)
    buf = x.copy()
    _call(fn, [np.array(True), buf, x.copy(), y, buf, np.empty(plan.scratch_bytes, np.uint8)])
    assert_same(buf, want)


def test_denormals_flush_inside_loop() -> None:
    """Kernels inside the loop run with FTZ/DAZ set (products below 2^-126 become 0)."""
    text = fori(3).replace("c = f32[] constant(1.01)", "c = f32[] constant(1e-20)") \
        .replace("d = f32[] constant(0.1)", "d = f32[] constant(0)")
    x = np.array([[1e-20, -3e-19, 2.0, 1e-30] * 16] * 64, np.float32)
    check(text, x, np.int32(0))


SCAN = """HloModule m
body (s: (s32[], f32[8,4], f32[4])) -> (s32[], f32[8,4], f32[4]) {
  s = (s32[], f32[8,4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[8,4] get-tuple-element(s), index=1
  c = f32[4] get-tuple-element(s), index=2
  h = f32[] constant(0.5)
  bh = f32[4] broadcast(h), dimensions={}
  m = f32[4] multiply(c, bh)
  fi = f32[] convert(i)
  bi = f32[4] broadcast(fi), dimensions={}
  c1 = f32[4] add(m, bi)
  row = f32[1,4] reshape(c1)
  z = s32[] constant(0)
  acc1 = f32[8,4] dynamic-update-slice(acc, row, i, z)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[8,4], f32[4]) tuple(j, acc1, c1)
}
cond (s: (s32[], f32[8,4], f32[4])) -> pred[] {
  s = (s32[], f32[8,4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (acc: f32[8,4], c: f32[4]) -> (s32[], f32[8,4], f32[4]) {
  acc = f32[8,4] parameter(0)
  c = f32[4] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[8,4], f32[4]) tuple(z, acc, c)
  ROOT w = (s32[], f32[8,4], f32[4]) while(t), condition=cond, body=body
}"""


def test_scan_updates_state_in_place() -> None:
    """The dynamic-update-slice of a state leaf writes that leaf's buffer (no copy)."""
    acc = RNG.standard_normal((8, 4)).astype(np.float32)
    check(SCAN, acc, RNG.standard_normal(4).astype(np.float32))
    (plan,) = _plans(compile_module(parse_hlo(SCAN)))
    assert any(r.kind == "state" and r.index == 1 for s in plan.body.steps for r in s.writes)


def test_fallback_fusion_runs_inside_the_loop() -> None:
    """A kLoop fusion with no kernel of its own (a reduce inside) runs its fused
    instructions one by one, still inside the compiled loop."""
    text = """HloModule m
sum (a: f32[], b: f32[]) -> f32[] {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
fused (x: f32[6]) -> f32[6] {
  x = f32[6] parameter(0)
  z = f32[] constant(0)
  t = f32[] reduce(x, z), dimensions={0}, to_apply=sum
  b = f32[6] broadcast(t), dimensions={}
  ROOT d = f32[6] divide(x, b)
}
body (s: (s32[], f32[6])) -> (s32[], f32[6]) {
  s = (s32[], f32[6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[6] get-tuple-element(s), index=1
  y = f32[6] fusion(x), kind=kLoop, calls=fused
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[6]) tuple(j, y)
}
cond (s: (s32[], f32[6])) -> pred[] {
  s = (s32[], f32[6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (x: f32[6]) -> (s32[], f32[6]) {
  x = f32[6] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[6]) tuple(z, x)
  ROOT w = (s32[], f32[6]) while(t), condition=cond, body=body
}"""
    check(text, np.abs(RNG.standard_normal(6)).astype(np.float32) + 0.5)


def test_large_kernel_inside_loop() -> None:
    """A kernel big enough to be split across threads (when the thread runtime is in)
    still flushes denormals inside the loop."""
    text = fori(2).replace("64,64", "512,1024") \
        .replace("c = f32[] constant(1.01)", "c = f32[] constant(1e-20)") \
        .replace("d = f32[] constant(0.1)", "d = f32[] constant(0)")
    x = np.full((512, 1024), 1e-20, np.float32)
    x[::7, ::3] = 2.0
    check(text, x, np.int32(0))


def test_kernel_call_count() -> None:
    """The thunk reports the kernel calls made (condition 101 times, body 2 x 100)."""
    x = RNG.standard_normal((64, 64)).astype(np.float32)
    _, _, ex = run_both(fori(100), x, np.int32(0))
    assert len(ex.thunks) == 1 and ex.stats.native == 301
    _, _, ex = run_both(NESTED, x[0, :16])
    assert len(ex.thunks) == 1
    assert ex.stats.native == 6 + 5 * (4 + 3 * 2 + 3 + 1)  # inner loop, call, add


def test_array_state() -> None:
    """A while whose state is one array, not a tuple."""
    text = """HloModule m
body (x: f32[3]) -> f32[3] {
  x = f32[3] parameter(0)
  ROOT y = f32[3] add(x, x)
}
cond (x: f32[3]) -> pred[] {
  x = f32[3] parameter(0)
  s = f32[1] slice(x), slice={[0:1]}
  r = f32[] reshape(s)
  n = f32[] constant(1000)
  ROOT lt = pred[] compare(r, n), direction=LT
}
ENTRY main (x: f32[3]) -> f32[3] {
  x = f32[3] parameter(0)
  ROOT w = f32[3] while(x), condition=cond, body=body
}"""
    check(text, np.array([1.5, -2.0, 3.0], np.float32))
