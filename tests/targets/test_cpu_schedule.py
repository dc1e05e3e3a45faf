"""The CPU executable's thunk sequence over one arena (targets/cpu/schedule.py)."""

from __future__ import annotations

import numpy as np

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.schedule import Schedule
from tests.targets.conftest import assert_same

CHAIN = """HloModule chain
ENTRY e {
  x = f32[256,256] parameter(0)
  a = f32[256,256] exponential(x)
  b = f32[256,256] multiply(a, x)
  c = f32[256,256] add(b, a)
  d = f32[256,256] tanh(c)
  t = f32[256,256] transpose(d), dimensions={1,0}
  ROOT r = f32[256,256] subtract(t, x)
}"""

TUPLES = """HloModule tuples
ENTRY e {
  x = f32[8,16] parameter(0)
  y = s32[8,16] parameter(1)
  n = f32[8,16] negate(x)
  r = f32[16,8] reshape(n)
  c = f32[8,16] copy(n)
  k = s32[8,16] convert(x)
  s = s32[8,16] add(k, y)
  t = (f32[8,16], f32[16,8], s32[8,16]) tuple(c, r, s)
  g = f32[16,8] get-tuple-element(t), index=1
  ROOT out = (f32[16,8], f32[8,16], f32[8,16], s32[8,16], f32[8,16]) tuple(g, n, n, s, x)
}"""

LOOP = """HloModule loop
body {
  p = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4,4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[4,4] multiply(v, v)
  ROOT t = (s32[], f32[4,4]) tuple(j, w)
}
cond {
  p = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[4,4] parameter(0)
  h = f32[4,4] multiply(x, x)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4]) tuple(zero, h)
  w = (s32[], f32[4,4]) while(init), condition=cond, body=body
  v = f32[4,4] get-tuple-element(w), index=1
  ROOT r = f32[4,4] add(v, h)
}"""


def _compile(text: str):  # noqa: ANN202
    return compile_module(parse_hlo(text), cache=False, autotune=False)


def _reference(text: str, args: list[np.ndarray]):  # noqa: ANN202
    with np.errstate(all="ignore"):
        return Evaluator(parse_hlo(text)).run(args)


def test_elementwise_chain_runs_in_place_in_a_small_arena() -> None:
    x = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    ex = _compile(CHAIN)
    got = ex.run([x])
    assert isinstance(ex._schedule, Schedule)
    assert_same(got, _reference(CHAIN, [x]), ulps=4)
    # Five temporaries of 256 KiB each, at most two live at once.
    assert ex._schedule.arena_bytes <= 2 * 256 * 256 * 4
    # The product feeding the add is recomputed (fused multiply-add) by the add's kernel,
    # so its own kernel has no reader and does not run.
    assert ex.stats.fallback == 0 and ex.stats.native == 5


def test_names_share_slots_and_outputs_are_distinct_arrays() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    y = rng.integers(-5, 5, (8, 16)).astype(np.int32)
    ex = _compile(TUPLES)
    got = ex.run([x, y])
    want = _reference(TUPLES, [x, y])
    assert len(got) == len(want) == 5
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
    assert got[1] is not got[2] and got[4] is not x
    got[1][0, 0] = 123.0
    assert got[2][0, 0] != 123.0


def test_outputs_are_reused_only_when_the_caller_dropped_them() -> None:
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2))
    ex = _compile(CHAIN)
    first = ex.run([a])
    kept = first.copy()
    second = ex.run([b])
    assert second is not first
    np.testing.assert_array_equal(first, kept)
    assert_same(second, _reference(CHAIN, [b]), ulps=4)
    address = second.ctypes.data
    del second
    third = ex.run([a])
    assert third.ctypes.data == address
    np.testing.assert_array_equal(third, kept)


def test_control_flow_falls_back_inside_the_sequence() -> None:
    x = np.arange(16, dtype=np.float32).reshape(4, 4) / 16
    ex = _compile(LOOP)
    before = x.copy()
    got = ex.run([x])
    assert isinstance(ex._schedule, Schedule)
    assert_same(got, _reference(LOOP, [x]))
    np.testing.assert_array_equal(x, before)


def test_arguments_of_other_dtypes_and_layouts_are_converted() -> None:
    x = np.asfortranarray(np.random.default_rng(3).standard_normal((256, 256)))
    ex = _compile(CHAIN)
    got = ex.run([x])
    assert_same(got, _reference(CHAIN, [x.astype(np.float32)]), ulps=4)


def test_placed_arguments_are_aligned_copies_of_the_parameter_type() -> None:
    x = np.asfortranarray(np.random.default_rng(4).standard_normal((256, 256)))
    ex = _compile(CHAIN)
    (placed,) = ex.place([x])
    assert placed.dtype == np.float32 and placed.flags.c_contiguous
    assert placed.ctypes.data % 64 == 0 and not np.shares_memory(placed, x)
    np.testing.assert_array_equal(placed, x.astype(np.float32))
    want = _reference(CHAIN, [x.astype(np.float32)])
    for _ in range(2):
        assert_same(ex.run([placed]), want, ulps=4)


CUSTOM = """HloModule custom
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  x = f32[16,32] parameter(0)
  w = f32[32,8] parameter(1)
  d = f32[16,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = f32[16] reduce(d, z), dimensions={1}, to_apply=add
  b = f32[16,8] broadcast(r), dimensions={0}
  ROOT o = f32[16,8] subtract(d, b)
}
ENTRY e {
  x = f32[16,32] parameter(0)
  w = f32[32,8] parameter(1)
  ROOT f = f32[16,8] fusion(x, w), kind=kCustom, calls=fused
}"""


def test_a_fusion_without_a_kernel_runs_its_instructions_as_steps() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    w = rng.standard_normal((32, 8)).astype(np.float32)
    ex = _compile(CUSTOM)
    got = ex.run([x, w])
    exact = x.astype(np.float64) @ w
    magnitude = np.abs(x).astype(np.float64) @ np.abs(w)
    bound = 2 * (32 + 8) * np.finfo(np.float32).eps * (magnitude + magnitude.sum(1, keepdims=True))
    assert np.all(np.abs(got - (exact - exact.sum(1, keepdims=True))) <= bound)
    names = [i.name for i in ex._schedule.order]
    assert names[:1] == ["d"] and "f" not in names
    assert ex.stats.fallback == 0 and ex.stats.native == 4


def test_calls_from_several_threads_take_turns_on_the_arena() -> None:
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((256, 256)).astype(np.float32) for _ in range(6)]
    ex = _compile(CHAIN)
    want = [ex.run([x]).copy() for x in xs]
    with ThreadPoolExecutor(3) as pool:
        got = list(pool.map(lambda x: ex.run([x]), xs * 3))
    for k, g in enumerate(got):
        np.testing.assert_array_equal(g, want[k % len(xs)])


def test_kernels_of_other_plans_run_as_native_steps() -> None:
    from hlotool.targets.cpu.schedule import _Native

    text = """HloModule s
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[4,100] parameter(0)
  n = f32[4,100] negate(x)
  i = s32[4,100] iota(), iota_dimension=1
  ROOT s = (f32[4,100], s32[4,100]) sort(n, i), dimensions={1}, is_stable=true, to_apply=less
}"""
    x = np.random.default_rng(6).standard_normal((4, 100)).astype(np.float32)
    ex = _compile(text)
    got = ex.run([x])
    want = _reference(text, [x])
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
    assert all(isinstance(s, _Native) for s in ex._schedule.steps)
    np.testing.assert_array_equal(got[0], np.sort(-x, axis=1))


def test_dynamic_update_slice_updates_its_dying_operand_in_place() -> None:
    text = """HloModule dus
ENTRY e {
  x = f32[512,64] parameter(0)
  u = f32[8,64] parameter(1)
  i = s32[] parameter(2)
  a = f32[512,64] negate(x)
  z = s32[] constant(0)
  d = f32[512,64] dynamic-update-slice(a, u, i, z)
  ROOT r = f32[512,64] exponential(d)
}"""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((512, 64)).astype(np.float32)
    u = rng.standard_normal((8, 64)).astype(np.float32)
    for start in (3, 600, -2):
        i = np.int32(start)
        ex = _compile(text)
        got = ex.run([x, u, i])
        assert_same(got, _reference(text, [x, u, i]))
        assert ex.stats.fallback == 0
    sch = ex._schedule
    a, d = (next(ins for ins in sch.order if ins.name == n) for n in ("a", "d"))
    assert sch._slot_of(a) == sch._slot_of(d)


def test_a_compiled_while_keeps_its_state_in_the_init_buffers() -> None:
    text = LOOP.replace("ROOT r = f32[4,4] add(v, h)", "ROOT r = f32[4,4] negate(v)")
    x = np.arange(16, dtype=np.float32).reshape(4, 4) / 16
    ex = _compile(text)
    got = ex.run([x])
    assert_same(got, _reference(text, [x]))
    sch = ex._schedule
    h, w = (next(ins for ins in sch.order if ins.name == n) for n in ("h", "w"))
    assert sch.leaf[(id(w), (1,))] == sch._slot_of(h)
    # h, the body's two kernels three times, the condition four times, r.
    assert ex.stats.fallback == 0 and ex.stats.native == 1 + 2 * 3 + 4 + 1


def test_a_call_runs_its_callee_as_steps() -> None:
    text = LOOP.replace("ENTRY e {", """callee {
  y = f32[4,4] parameter(0)
  h = f32[4,4] multiply(y, y)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4]) tuple(zero, h)
  ROOT w = (s32[], f32[4,4]) while(init), condition=cond, body=body
}
ENTRY e {""").replace("""  h = f32[4,4] multiply(x, x)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4]) tuple(zero, h)
  w = (s32[], f32[4,4]) while(init), condition=cond, body=body
  v = f32[4,4] get-tuple-element(w), index=1
  ROOT r = f32[4,4] add(v, h)""", """  w = (s32[], f32[4,4]) call(x), to_apply=callee
  v = f32[4,4] get-tuple-element(w), index=1
  ROOT r = f32[4,4] add(v, x)""")
    x = np.arange(16, dtype=np.float32).reshape(4, 4) / 16
    ex = _compile(text)
    assert not ex.skipped
    got = ex.run([x])
    assert_same(got, _reference(text, [x]))
    assert [i.opcode.value for i in ex._schedule.order] == \
        ["multiply", "constant", "tuple", "while", "get-tuple-element", "add"]
    assert ex.stats.fallback == 0


def test_scalar_arguments_run_on_the_arena() -> None:
    """A module with 0-d parameters (indices, loop bounds, keys) runs as the arena's step
    sequence (np.ascontiguousarray would make a 0-d argument 1-d and send every such
    module to the slower instruction-by-instruction path)."""
    text = """HloModule scalars
ENTRY e {
  x = f32[8,10] parameter(0)
  i = s32[] parameter(1)
  s = f32[] parameter(2)
  z = s32[] constant(0)
  d = f32[2,10] dynamic-slice(x, i, z), dynamic_slice_sizes={2,10}
  b = f32[2,10] broadcast(s), dimensions={}
  ROOT r = f32[2,10] multiply(d, b)
}"""
    ex = compile_module(parse_hlo(text), cache=False)
    args = [np.arange(80, dtype=np.float32).reshape(8, 10), np.array(3, np.int32),
            np.array(0.5, np.float32)]
    schedule = ex._arena_schedule()
    assert isinstance(schedule, Schedule)
    got = schedule.run(args)
    assert_same(got, Evaluator(parse_hlo(text)).run(args))
    assert_same(ex.run(args), got)
