"""Native convolution (targets/cpu/kernels/conv.py: an LLVM im2col + a register-tiled
microkernel or CBLAS gemm, or the numpy thunk without BLAS) against the interpreter.

Tolerance: both compute f32 in f32 (f64 in f64) as one contraction over (window,
feature); only the summation order differs, so results agree within
rtol = atol = 1e-4 for f32 (unit-normal inputs, at most a few hundred terms) and 1e-12
for f64, not bit for bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.codegen import is_llvm, plan_module
from hlotool.targets.cpu.jit import Pipeline, host
from hlotool.targets.cpu.kernels import blas
from hlotool.targets.cpu.kernels.control import WhilePlan
from hlotool.targets.cpu.kernels.conv import ConvPlan, ConvThunk, conv_form
from tests.targets.conftest import run_both

NATIVE = blas.available()

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
    # Several im2col blocks (run in parallel), rows not a multiple of the microkernel's,
    # output features not a multiple of the vector length.
    "many blocks": dict(labels="b01f_01io->b01f", n=2, c=32, sizes=(19, 19), o=40, win=(3, 3),
                        pad=((1, 1), (1, 1))),
    # The lhs read in place as the im2col matrix (x86), its last rows padded.
    "1x1 plain odd rows": dict(labels="b01f_01io->b01f", n=1, c=5, sizes=(3, 3), o=7,
                               win=(1, 1)),
    "feature groups nchw out": dict(labels="b01f_01io->bf01", n=3, c=12, sizes=(7, 5), o=9,
                                    win=(2, 3), fg=3, stride=(2, 1), pad=((1, -1), (2, 0)),
                                    rhs_dilate=(1, 2)),
    "batch groups odd labels": dict(labels="f01b_o01i->0bf1", n=4, c=3, sizes=(6, 5), o=6,
                                    win=(3, 2), bg=2, lhs_dilate=(2, 1), pad=((0, -2), (1, 1))),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_native_conv(name: str, t: str) -> None:
    check(conv_text(**CASES[name], t=t), t)


def test_fused_conv() -> None:
    """XLA:CPU wraps convolutions in kCustom fusions: the whole fusion runs natively."""
    check(conv_text(**CASES["nhwc 3x3 same"], fused=True))


@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_narrow_convolutions_run_in_f32(t: str) -> None:
    """A bf16/f16 convolution after the cpu pipeline (change-op-data-type) is converts
    around the native f32 convolution: the interpreter's f32 result of the narrow
    convolution, rounded once, within one ulp of the narrow type (the sums run in
    another order)."""
    import ml_dtypes

    from hlotool.pipeline_cache import optimize

    text, lhs, rhs = conv_text(**CASES["many blocks"], t=t)
    dtype = ml_dtypes.bfloat16 if t == "bf16" else np.float16
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(s).astype(dtype) for s in (lhs, rhs))
    module = optimize(parse_hlo(text), "cpu", cache_dir=None).module
    assert any(isinstance(p, ConvPlan) for p in plan_module(module).plans.values())
    ex = compile_module(module, cache=False, autotune=False)
    got = np.asarray(ex.run([a, b]))
    assert ex.stats.fallback == 0
    want = Evaluator(parse_hlo(text)).run([a, b])
    assert got.dtype == want.dtype == dtype
    eps = float(ml_dtypes.finfo(dtype).eps)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                               rtol=eps, atol=eps * float(np.abs(want.astype(np.float32)).max()))


@pytest.mark.parametrize("kind", ["reversal", "s32"])
def test_fallback(kind: str) -> None:
    if kind == "reversal":
        check(conv_text(**CASES["nchw strided dilated"], reversal=True), native=False)
    else:
        check(conv_text(**CASES["nhwc 3x3 same"], t="s32"), "s32", native=False)


def _conv_and_values(case: tuple[str, tuple, tuple], t: str) -> tuple[object, list, object]:
    text, lhs, rhs = case
    rng = np.random.default_rng(1)
    dtype = {"f32": np.float32, "f64": np.float64}[t]
    values = [rng.standard_normal(lhs).astype(dtype), rng.standard_normal(rhs).astype(dtype)]
    want = Evaluator(parse_hlo(text)).run(values)
    return parse_hlo(text).entry.root, values, want


@pytest.mark.parametrize("path", ["tiled", "blas", "numpy"])
@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_paths(name: str, t: str, path: str) -> None:
    """Each contraction of the native kernel (and the numpy thunk) on every case."""
    conv, values, want = _conv_and_values(conv_text(**CASES[name], t=t), t)
    thunk = ConvThunk(conv, tune={"gemm": path}, native=path != "numpy")
    assert (thunk.form is not None) == (path != "numpy" and NATIVE)
    if thunk.form is not None:
        assert thunk.form.tiled == (path == "tiled")
    out = np.full(thunk.out_shape, np.nan, thunk.dtype)
    got = thunk(values, out=out)
    assert got is out
    np.testing.assert_allclose(got, want, rtol=TOL[t], atol=TOL[t])
    np.testing.assert_allclose(thunk(values), want, rtol=TOL[t], atol=TOL[t])


def test_native_step() -> None:
    """With BLAS the convolution is an LLVM kernel that the arena runs as a native step."""
    text, _, _ = conv_text(**CASES["nhwc 3x3 same"])
    ex = compile_module(parse_hlo(text))
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert isinstance(plan, ConvPlan) and plan.native == NATIVE and is_llvm(plan) == NATIVE
    # The tiled kernel packs with memcpy and calls the runtime microkernels: LLVM's
    # quick pipeline compiles it.
    assert (plan.pipeline is Pipeline.CALLS) == (NATIVE and host().is_x86)
    if NATIVE:
        fresh = compile_module(parse_hlo(text), cache=False)
        assert fresh.library is not None and "calls pipeline" in fresh.library.llvm_ir
    (thunk,) = ex.thunks.values()
    assert hasattr(thunk, "native_args") == NATIVE


@pytest.mark.parametrize("side", [0, 1])
@pytest.mark.parametrize("name", ["nhwc 3x3 same", "1x1 transposed output"])
@pytest.mark.parametrize("path", ["tiled", "blas", "numpy"])
def test_denormal_inputs_read_as_zero(path: str, name: str, side: int) -> None:
    """Denormal inputs count as zero (XLA:CPU runs with DAZ), as in the dot kernel (the
    1x1 convolution reads its lhs in place): denormals times ~1e37 would sum to ~0.1."""
    conv, values, _ = _conv_and_values(conv_text(**CASES[name]), "f32")
    rng = np.random.default_rng(3)
    tiny = values[side].copy()
    tiny[...] = np.where(rng.random(tiny.shape) < 0.5, np.float32(5e-39), np.float32(-5e-39))
    values[side] = tiny
    values[1 - side] = (values[1 - side] * np.float32(1e37)).astype(np.float32)
    thunk = ConvThunk(conv, tune={"gemm": path}, native=path != "numpy")
    got = thunk(values)
    np.testing.assert_array_equal(got, np.zeros_like(got))


def test_without_blas_the_numpy_thunk_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blas, "_REGISTERED", frozenset())
    text, lhs, rhs = conv_text(**CASES["feature groups"])
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert isinstance(plan, ConvPlan) and not plan.native and not is_llvm(plan)
    check((text, lhs, rhs))


LOOP = """HloModule loop
body (s: (s32[], f32[2,6,6,4], f32[3,3,4,4])) -> (s32[], f32[2,6,6,4], f32[3,3,4,4]) {
  s = (s32[], f32[2,6,6,4], f32[3,3,4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2,6,6,4] get-tuple-element(s), index=1
  w = f32[3,3,4,4] get-tuple-element(s), index=2
  c = f32[2,6,6,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  t = f32[2,6,6,4] tanh(c)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[2,6,6,4], f32[3,3,4,4]) tuple(j, t, w)
}
cond (s: (s32[], f32[2,6,6,4], f32[3,3,4,4])) -> pred[] {
  s = (s32[], f32[2,6,6,4], f32[3,3,4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (x: f32[2,6,6,4], w: f32[3,3,4,4]) -> f32[2,6,6,4] {
  x = f32[2,6,6,4] parameter(0)
  w = f32[3,3,4,4] parameter(1)
  zero = s32[] constant(0)
  t = (s32[], f32[2,6,6,4], f32[3,3,4,4]) tuple(zero, x, w)
  l = (s32[], f32[2,6,6,4], f32[3,3,4,4]) while(t), condition=cond, body=body
  ROOT y = f32[2,6,6,4] get-tuple-element(l), index=1
}"""


def test_while_with_a_conv_compiles_whole() -> None:
    """A loop whose body has a convolution is one native kernel (no interpreter step)."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 6, 6, 4)).astype(np.float32)
    w = (rng.standard_normal((3, 3, 4, 4)) * 0.3).astype(np.float32)
    got, want, ex = run_both(LOOP, x, w)
    plans = [type(p) for p in plan_module(parse_hlo(LOOP)).plans.values()]
    assert (WhilePlan in plans) == NATIVE
    assert ex.stats.fallback == 0
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def _emitted(form: object, x86: bool) -> object:
    """A freshly compiled kernel of `form` (not the per-process cache)."""
    from llvmlite import ir

    from hlotool.targets.cpu.jit import CodeLibrary
    from hlotool.targets.cpu.kernels.conv import emit_conv

    module = ir.Module(name="t")
    emit_conv(module, "conv", form, x86=x86)
    library = CodeLibrary("t")
    library.add_ir_module(str(module))
    library.finalize()
    _KEEP.append(library)
    return library.get_function("conv")


_KEEP: list[object] = []


@pytest.mark.parametrize("x86", [True, False])
@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", ["many blocks", "1x1 transposed output", "depthwise nchw"])
def test_other_hosts(monkeypatch: pytest.MonkeyPatch, name: str, t: str, x86: bool) -> None:
    """The microkernel with 32-byte vectors (hosts without AVX-512), and the kernel as
    emitted for hosts without MXCSR (outputs flushed by a scan instead of FTZ)."""
    import ctypes

    from hlotool.targets.cpu.kernels import conv_tiled

    item = 4 if t == "f32" else 8
    monkeypatch.setattr(conv_tiled, "vector_shape", lambda dtype: (32 // item, 2))
    conv, values, want = _conv_and_values(conv_text(**CASES[name], t=t), t)
    form = conv_form(conv, {})
    assert form.tiled
    scratch = np.empty(form.scratch_bytes // 8 + 8, np.float64)  # 8-byte aligned
    out = np.full(want.shape, np.nan, want.dtype)
    _emitted(form, x86)((ctypes.c_void_p * 4)(values[0].ctypes.data, values[1].ctypes.data,
                                              out.ctypes.data, scratch.ctypes.data))
    np.testing.assert_allclose(out, want, rtol=TOL[t], atol=TOL[t])


def test_rows_too_wide_for_a_stack_block_use_gemm() -> None:
    """im2col rows too long for a block on a thread's stack go to the CBLAS path."""
    case = conv_text("b01f_01io->b01f", 1, 40000, (2, 2), 3, (1, 1))
    assert not conv_form(parse_hlo(case[0]).entry.root, {}).tiled
    check(case)


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("o", [1, 8, 16, 24, 48, 64, 100, 136])
def test_every_runtime_microkernel(o: int, t: str) -> None:
    """Output feature counts reaching each runtime microkernel (1..NV column vectors,
    the last whole or masked, and several calls per tile past NV vectors)."""
    conv, values, want = _conv_and_values(
        conv_text("b01f_01io->b01f", 2, 3, (5, 6), o, (3, 3), pad=((1, 1), (1, 1)), t=t), t)
    thunk = ConvThunk(conv, tune={"gemm": "tiled"}, native=NATIVE)
    np.testing.assert_allclose(thunk(values), want, rtol=TOL[t], atol=TOL[t])


def test_cached_conv_calls_the_runtime_library(tmp_path: Path) -> None:
    """A convolution loaded from the disk cache finds the microkernels it calls (they are
    registered when the module is planned, before its objects load)."""
    from hlotool.targets.cpu.cache import DiskCache

    cache = DiskCache(tmp_path)
    text, lhs, rhs = conv_text(**CASES["many blocks"])
    first = compile_module(parse_hlo(text), cache=cache, autotune=False)
    second = compile_module(parse_hlo(text), cache=cache, autotune=False)
    assert second.library is not None and second.library.cache_hit == NATIVE
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(lhs).astype(np.float32), rng.standard_normal(rhs).astype(np.float32)
    want = Evaluator(parse_hlo(text)).run([a, b])
    for ex in (first, second):
        np.testing.assert_allclose(ex.run([a, b]), want, rtol=TOL["f32"], atol=TOL["f32"] * 16)


def test_runtime_library_comes_from_the_disk_cache(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A runtime library is loaded once per process; a new process (here: the process's
    tables of loaded libraries and read bundles emptied) reads its objects from the disk
    cache's one runtime bundle instead of compiling, into the same runtime engine."""
    from hlotool.targets.cpu import cache as cache_module

    monkeypatch.setattr(cache_module, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(cache_module, "_RUNTIME_LIBRARIES", {})
    monkeypatch.setattr(cache_module.RuntimeBundle, "_opened", {})
    first = cache_module.runtime_library("test_lib", lambda: _store_ir("7", 7))
    assert cache_module.runtime_library("test_lib", lambda: "not IR: never parsed") is first
    other = cache_module.runtime_library("test_lib_b", lambda: _store_ir("9", 9))
    _new_process(cache_module)
    second = cache_module.runtime_library("test_lib", lambda: "not IR: never parsed")
    third = cache_module.runtime_library("test_lib_b", lambda: "not IR: never parsed")
    assert not first.cache_hit and not other.cache_hit and second.cache_hit and third.cache_hit
    assert len(list(tmp_path.glob("*/*.runtime"))) == 1
    assert _call_store(second, "7") == 7 and _call_store(third, "9") == 9


@pytest.mark.parametrize("payload", [
    b'{"format": FORMAT, "libraries": {"test_lib_c": [99]}}\nshort',
    b'{"format": FORMAT, "libraries": {"test_lib_c": "99"}}\n',
    b'["not", "an", "object"]\n',
    b"no json line",
], ids=["short", "sizes-not-a-list", "not-an-object", "no-json"])
def test_a_damaged_runtime_bundle_is_rebuilt(payload: bytes, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A runtime bundle whose contents do not add up is never loaded as code: one notice,
    the library is compiled again and the bundle written anew."""
    from hlotool.targets.cpu import cache as cache_module

    monkeypatch.setattr(cache_module, "cache_dir", lambda: tmp_path)
    monkeypatch.setattr(cache_module, "_RUNTIME_LIBRARIES", {})
    monkeypatch.setattr(cache_module.RuntimeBundle, "_opened", {})
    cache_module.runtime_library("test_lib_c", lambda: _store_ir("5", 5))
    bundle = cache_module.RuntimeBundle.default()
    assert bundle is not None
    bundle.store.write(bundle.name, payload.replace(b"FORMAT", b"%d" % cache_module.FORMAT))
    _new_process(cache_module)
    again = cache_module.runtime_library("test_lib_c", lambda: _store_ir("5", 5))
    assert not again.cache_hit and "malformed runtime bundle" in capsys.readouterr().err
    _new_process(cache_module)
    assert cache_module.runtime_library("test_lib_c", lambda: "never parsed").cache_hit


def _store_ir(suffix: str, value: int) -> str:
    return (f'define void @"hlotool_test_store{suffix}"(ptr %".1") {{\nentry:\n'
            f'  store i32 {value}, ptr %".1"\n  ret void\n}}\n')


def _new_process(cache_module: Any) -> None:
    """Forget what this process loaded and read, as a new process starts."""
    cache_module._RUNTIME_LIBRARIES.clear()
    cache_module.RuntimeBundle._opened.clear()


def _call_store(library: Any, suffix: str) -> int:
    import ctypes

    out = (ctypes.c_int32 * 1)()
    library.get_function(f"hlotool_test_store{suffix}")(
        ctypes.cast(out, ctypes.POINTER(ctypes.c_void_p)))
    return out[0]


def test_output_fusion_is_a_conv_and_one_epilogue_kernel() -> None:
    """A convolution with a bias add (kOutput) runs as the convolution's kernel and one
    loop kernel for the bias."""
    from hlotool.targets.cpu.kernels.loop import LoopPlan

    text = """HloModule m
f {
  x = f32[2,9,9,4] parameter(0)
  w = f32[3,3,4,8] parameter(1)
  b = f32[8] parameter(2)
  c = f32[2,9,9,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,9,9,8] broadcast(b), dimensions={3}
  ROOT r = f32[2,9,9,8] add(c, bb)
}
ENTRY e {
  x = f32[2,9,9,4] parameter(0)
  w = f32[3,3,4,8] parameter(1)
  b = f32[8] parameter(2)
  ROOT o = f32[2,9,9,8] fusion(x, w, b), kind=kOutput, calls=f
}"""
    plans = list(plan_module(parse_hlo(text)).plans.values())
    assert [type(p) for p in plans] == [ConvPlan, LoopPlan]
    rng = np.random.default_rng(5)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((2, 9, 9, 4), (3, 3, 4, 8), (8,))]
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    got = ex.run(args)
    assert ex.stats.fallback == 0
    np.testing.assert_allclose(got, Evaluator(parse_hlo(text)).run(args), rtol=1e-4, atol=1e-4)


DEPTHWISE = {
    "3x3 same": dict(labels="b01f_01io->b01f", n=2, c=24, sizes=(9, 7), o=24, win=(3, 3),
                     pad=((1, 1), (1, 1))),
    "5x5 strided dilated": dict(labels="b01f_01io->b01f", n=3, c=40, sizes=(13, 12), o=40,
                                win=(5, 3), stride=(2, 3), pad=((2, 1), (0, 2)),
                                rhs_dilate=(1, 2)),
    "negative padding, spatial-major": dict(labels="01bf_01io->01bf", n=2, c=17, sizes=(8, 6),
                                            o=17, win=(2, 2), pad=((-1, 1), (1, -2))),
    "1-d": dict(labels="b0f_0io->b0f", n=4, c=33, sizes=(20,), o=33, win=(4,),
                pad=((3, 0),)),
}


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", list(DEPTHWISE))
def test_depthwise_convolutions_run_as_a_direct_kernel(name: str, t: str) -> None:
    """One input feature per group, features minor: a loop over window positions with
    the features vectorized, instead of one lane of the tiled microkernel."""
    from hlotool.targets.cpu.kernels.depthwise import DepthwisePlan

    case = conv_text(**DEPTHWISE[name], fg=DEPTHWISE[name]["c"], t=t)
    (plan,) = plan_module(parse_hlo(case[0])).plans.values()
    assert isinstance(plan, DepthwisePlan)
    check(case, t)
