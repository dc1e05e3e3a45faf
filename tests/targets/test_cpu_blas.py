"""Dots as native kernels calling OpenBLAS's CBLAS (kernels/blas.py) against the interpreter.

Where numpy's OpenBLAS is found (every supported Linux wheel) the dots run as LLVM kernels:
the tests check that they do, that their results match the interpreter (exactly where the
sums are exact, within a tolerance otherwise), that loops and conditionals with a dot in
their body compile whole, and that the numpy path kept for other platforms still agrees.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.cache import DiskCache
from hlotool.targets.cpu.codegen import plan_module
from hlotool.targets.cpu.kernels import blas
from hlotool.targets.cpu.kernels.control import ConditionalPlan, WhilePlan
from hlotool.targets.cpu.kernels.dot import DotPlan, DotThunk
from tests.conftest import CORPUS, tolerance
from tests.targets.conftest import assert_contraction_close, assert_same

RNG = np.random.default_rng(11)
NATIVE = blas.available()

DOT = """HloModule dot
ENTRY e {{
  a = {t}[{a}] parameter(0)
  b = {t}[{b}] parameter(1)
  ROOT d = {t}[{out}] dot(a, b), {dims}
}}"""

#: (lhs dims, rhs dims, result dims, dimension numbers): plain, transposed operands,
#: batch dims not leading, several contracting dims, dims needing a packing copy, empty.
CASES = [
    ("64,32", "32,48", "64,48", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
    ("32,64", "32,48", "64,48", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
    ("64,32", "48,32", "64,48", "lhs_contracting_dims={1}, rhs_contracting_dims={1}"),
    ("32,64", "48,32", "64,48", "lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
    ("8,64,16", "8,40,16", "8,64,40", "lhs_batch_dims={0}, rhs_batch_dims={0}, "
     "lhs_contracting_dims={2}, rhs_contracting_dims={2}"),
    ("64,8,16", "8,40,16", "8,64,40", "lhs_batch_dims={1}, rhs_batch_dims={0}, "
     "lhs_contracting_dims={2}, rhs_contracting_dims={2}"),
    ("4,6,5,7", "5,7,3", "4,6,3", "lhs_contracting_dims={2,3}, rhs_contracting_dims={0,1}"),
    ("4,5,6,7", "5,7,3", "4,6,3", "lhs_contracting_dims={1,3}, rhs_contracting_dims={0,1}"),
    ("3,2,4,5", "2,5,3,6", "2,3,4,6", "lhs_batch_dims={1,0}, rhs_batch_dims={0,2}, "
     "lhs_contracting_dims={3}, rhs_contracting_dims={1}"),
    ("1,5", "5,1", "1,1", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
    ("64", "48,64", "48", "lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
    ("64,48", "64", "48", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
    ("8,1,64", "8,64,40", "8,1,40", "lhs_batch_dims={0}, rhs_batch_dims={0}, "
     "lhs_contracting_dims={2}, rhs_contracting_dims={1}"),
    ("7", "7", "", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
    ("3,0", "0,4", "3,4", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
    ("0,5", "5,4", "0,4", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
]
TUNES = [{}, {"layout": "copy"}, {"batch": "loop"}]


def _dims(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def _k(a: str, dims: str) -> int:
    """The contraction length: the product of the lhs's contracting dims."""
    found = re.search(r"lhs_contracting_dims=\{([\d,]*)\}", dims)
    assert found is not None
    lhs = _dims(a)
    return int(np.prod([lhs[int(d)] for d in found.group(1).split(",") if d]))


def _ints(dims: list[int], dtype: str) -> np.ndarray:
    """Small integers: every partial sum is exact, so any summation order agrees."""
    return RNG.integers(-8, 9, dims).astype(dtype)


def _thunk(text: str, tune: dict[str, int | str] | None = None) -> DotThunk:
    ins = parse_hlo(text).entry.root
    assert ins is not None
    return DotThunk(ins, tune)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(("a", "b", "out", "dims"), CASES)
def test_dot_layouts_match_the_interpreter(a: str, b: str, out: str, dims: str,
                                           dtype: str) -> None:
    """Every operand layout and tuned variant is within the rounding bound of a K-term
    sum of the float64 product on random data (any BLAS call sequence), and equal to the
    interpreter bit for bit on small integers, where every partial sum is exact."""
    t = "f32" if dtype == "float32" else "f64"
    text = DOT.format(t=t, a=a, b=b, out=out, dims=dims)
    x, y = RNG.standard_normal(_dims(a)).astype(dtype), RNG.standard_normal(_dims(b)).astype(dtype)
    k = _k(a, dims)
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    assert_contraction_close(ex.run([x, y]), text, [x, y], k)
    assert ex.stats.fallback == 0
    xi, yi = _ints(_dims(a), dtype), _ints(_dims(b), dtype)
    want_ints = Evaluator(parse_hlo(text)).run([xi, yi])
    for tune in TUNES:
        thunk = _thunk(text, tune)
        assert hasattr(thunk, "native_args") == NATIVE
        assert_contraction_close(thunk([x, y]), text, [x, y], k)
        assert_same(thunk([xi, yi]), want_ints)


def test_dots_run_as_native_steps() -> None:
    text = DOT.format(t="f32", a="64,32", b="48,32", out="64,48",
                      dims="lhs_contracting_dims={1}, rhs_contracting_dims={1}")
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    x, y = RNG.standard_normal((64, 32), np.float32), RNG.standard_normal((48, 32), np.float32)
    got = ex.run([x, y])
    assert_contraction_close(got, text, [x, y], 32)
    kinds = {kind for _, kind in ex._schedule.plans}
    assert kinds == ({"native"} if NATIVE else {"library"})
    thunk = next(iter(ex.thunks.values()))
    assert not thunk.may_share(0, ()) and not thunk.may_share(1, ())


def test_attention_batched_gemm_within_rounding() -> None:
    """f32[8,512,64] x f32[8,512,64] -> f32[8,512,512]: above OpenBLAS's small-matrix size,
    so "stacked" is one cblas_sgemm_batch_strided call and "loop" eight sgemm calls (or,
    where hlotool's own gemm takes it, one call of that for all eight either way)."""
    text = DOT.format(t="f32", a="8,512,64", b="8,512,64", out="8,512,512",
                      dims="lhs_batch_dims={0}, rhs_batch_dims={0}, "
                           "lhs_contracting_dims={2}, rhs_contracting_dims={2}")
    q = RNG.standard_normal((8, 512, 64), np.float32)
    k = RNG.standard_normal((8, 512, 64), np.float32)
    assert_contraction_close(Evaluator(parse_hlo(text)).run([q, k]), text, [q, k], 64)
    for tune in ({"batch": "stacked"}, {"batch": "loop"}):
        thunk = _thunk(text, tune)
        if NATIVE:
            assert thunk.form is not None
            assert thunk.form.stacked == (tune["batch"] == "stacked" and not thunk.form.own)
        assert_contraction_close(thunk([q, k]), text, [q, k], 64)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_denormals_are_flushed(dtype: str) -> None:
    """Denormal inputs read as signed zeros and denormal results are flushed (XLA:CPU's
    DAZ/FTZ), in place or in a packed operand."""
    t = "f32" if dtype == "float32" else "f64"
    tiny = np.finfo(dtype).tiny
    for a, b, out, dims in CASES[:2]:
        text = DOT.format(t=t, a=a, b=b, out=out, dims=dims)
        x, y = _ints(_dims(a), dtype), _ints(_dims(b), dtype)
        x.flat[::3] = tiny / 4  # denormal inputs: a zero contribution
        x.flat[1::7] = -np.sqrt(tiny)
        y.flat[::5] = np.sqrt(tiny) / 3  # products below the normal range
        want = Evaluator(parse_hlo(text)).run([x, y])
        small_x = np.full_like(x, -np.sqrt(tiny) / 8)  # every result a denormal sum
        small_y = np.full_like(y, np.sqrt(tiny) / 8)
        small_want = Evaluator(parse_hlo(text)).run([small_x, small_y])
        assert np.all(small_want == 0) and np.all(np.signbit(small_want))
        for tune in TUNES:
            thunk = _thunk(text, tune)
            got = thunk([x, y])
            np.testing.assert_array_equal(got, want)
            assert np.all((got == 0) | (np.abs(got) >= tiny))
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
            assert_same(thunk([small_x, small_y]), small_want)


def test_numpy_path_without_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where OpenBLAS is not found the dot keeps the numpy thunk, with the same results."""
    a, b, out, dims = CASES[4]
    text = DOT.format(t="f32", a=a, b=b, out=out, dims=dims)
    x, y = _ints(_dims(a), "float32"), _ints(_dims(b), "float32")
    native = compile_module(parse_hlo(text), cache=False, autotune=False).run([x, y])
    monkeypatch.setattr(blas, "_REGISTERED", frozenset())
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    thunk = next(iter(ex.thunks.values()))
    assert not hasattr(thunk, "native_args")
    assert not DotPlan("d", [], []).native
    assert_same(ex.run([x, y]), native)


LOOP = """HloModule loop
body (s: (s32[], f32[16,16], f32[16,16])) -> (s32[], f32[16,16], f32[16,16]) {
  s = (s32[], f32[16,16], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[16,16] get-tuple-element(s), index=1
  w = f32[16,16] get-tuple-element(s), index=2
  d = f32[16,16] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[16,16], f32[16,16]) tuple(j, d, w)
}
cond (s: (s32[], f32[16,16], f32[16,16])) -> pred[] {
  s = (s32[], f32[16,16], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main (x: f32[16,16], w: f32[16,16]) -> f32[16,16] {
  x = f32[16,16] parameter(0)
  w = f32[16,16] parameter(1)
  zero = s32[] constant(0)
  t = (s32[], f32[16,16], f32[16,16]) tuple(zero, x, w)
  l = (s32[], f32[16,16], f32[16,16]) while(t), condition=cond, body=body
  ROOT y = f32[16,16] get-tuple-element(l), index=1
}"""


def ex_plans(module: object) -> list[object]:
    """The top-level kernel plans of a module (a dot in a compiled loop has none)."""
    return list(plan_module(module).plans.values())


def test_while_with_a_dot_compiles_whole(tmp_path: Path) -> None:
    """The loop is one native call, also when its object code comes from the disk cache
    (the CBLAS symbols are registered before any object is loaded)."""
    x, w = _ints([16, 16], "float32") / 8, _ints([16, 16], "float32") / 8
    want = Evaluator(parse_hlo(LOOP)).run([x, w])
    cache = DiskCache(tmp_path)
    for hit in (False, True):
        ex = compile_module(parse_hlo(LOOP), cache=cache, autotune=False)
        assert ex.library is not None and ex.library.cache_hit == hit
        assert_same(ex.run([x, w]), want)
        plans = [type(p) for p in plan_module(parse_hlo(LOOP)).plans.values()]
        assert (WhilePlan in plans) == NATIVE
        assert ex.stats.fallback == 0


@pytest.mark.parametrize("name", ["fori_loop", "cond"])
def test_corpus_control_flow_with_dots_is_native(name: str) -> None:
    """The corpus's fori_loop (a dot in the body) and cond (a dot in a branch) match XLA
    and compile their control flow whole: nothing runs on the interpreter."""
    case = CORPUS / name
    for file in ("module.hlo", "module.opt.hlo"):
        module = parse_hlo((case / file).read_text())
        args = values_io.entry_arguments(module, values_io.load_npz(case / "inputs.npz"))
        ex = compile_module(module, cache=False, autotune=False)
        out = values_io.output_arrays(ex.run(args))
        rtol, atol = tolerance(case)
        diffs = values_io.compare_outputs(out, values_io.load_npz(case / "expected.npz"),
                                          rtol, atol)
        assert all(d.ok for d in diffs), [d.as_json() for d in diffs if not d.ok]
        assert ex.stats.fallback_by_opcode == {}
        kinds = {type(p) for p in ex_plans(module)}
        assert (DotPlan not in kinds) == NATIVE
        if NATIVE:
            assert kinds & {WhilePlan, ConditionalPlan}


def test_plan_kernel_in_a_module_library() -> None:
    """`DotPlan.emit` + `make_thunk`: the kernel compiled in a module's library (as the
    main module would hold it) computes the same product."""
    if not NATIVE:
        return
    from llvmlite import ir

    from hlotool.targets.cpu.jit import CodeLibrary

    a, b, out, dims = CASES[5]
    text = DOT.format(t="f32", a=a, b=b, out=out, dims=dims)
    ins = parse_hlo(text).entry.root
    plan = DotPlan("k0", [ins], list(ins.operands), {"batch": "loop"})
    module = ir.Module(name="m")
    plan.emit(module, "k0", x86=True)
    library = CodeLibrary("m")
    library.add_ir_module(str(module))
    library.finalize()
    x = RNG.standard_normal(_dims(a)).astype(np.float32)
    y = RNG.standard_normal(_dims(b)).astype(np.float32)
    thunk = plan.make_thunk(ins, library, "k0")
    assert plan.scratch_bytes == thunk.scratch.size
    assert_contraction_close(thunk([x, y]), text, [x, y], _k(a, dims))


OUTPUT_FUSION = """HloModule m
f {
  x = f32[64,96] parameter(0)
  w = f32[96,40] parameter(1)
  b = f32[40] parameter(2)
  d = f32[64,40] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[64,40] broadcast(b), dimensions={1}
  s = f32[64,40] add(d, bb)
  z = f32[] constant(0)
  zb = f32[64,40] broadcast(z), dimensions={}
  ROOT r = f32[64,40] maximum(s, zb)
}
ENTRY e {
  x = f32[64,96] parameter(0)
  w = f32[96,40] parameter(1)
  b = f32[40] parameter(2)
  ROOT o = f32[64,40] fusion(x, w, b), kind=kOutput, calls=f
}"""


def test_output_fusion_is_a_dot_and_one_epilogue_kernel() -> None:
    """A kOutput fusion (dot, bias, relu) runs as the dot's kernel and one loop kernel
    for the whole epilogue, which reads the dot's result and the bias (no kernel per
    epilogue instruction); the result is within the dot's rounding of the exact one."""
    from hlotool.targets.cpu.kernels.loop import LoopPlan

    module = parse_hlo(OUTPUT_FUSION)
    plans = list(plan_module(module).plans.values())
    assert [type(p) for p in plans] == [DotPlan, LoopPlan]
    assert [i.name for i in plans[1].inputs] == ["d", "b"]
    rng = np.random.default_rng(4)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((64, 96), (96, 40), (40,))]
    ex = compile_module(parse_hlo(OUTPUT_FUSION), cache=False, autotune=False)
    got = ex.run(args)
    want = Evaluator(parse_hlo(OUTPUT_FUSION)).run(args)
    assert ex.stats.fallback == 0
    assert_contraction_close(got, OUTPUT_FUSION, args, 96)
    assert np.array_equal(got == 0, want == 0) and (got == 0).any()


#: Dots large enough to be split across the threads (`blas.splits`): by columns (rhs the
#: larger operand), by rows (lhs larger), with transposed and packed operands, batched.
SPLIT_CASES = [
    ("256,512", "512,384", "256,384", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
    ("640,256", "256,100", "640,100", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
    ("256,640", "100,256", "640,100", "lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
    ("200,256", "300,256", "200,300", "lhs_contracting_dims={1}, rhs_contracting_dims={1}"),
    ("4,128,96", "96,4,200", "4,128,200", "lhs_batch_dims={0}, rhs_batch_dims={1}, "
     "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
]


@pytest.mark.skipif(not NATIVE, reason="needs numpy's OpenBLAS (the native dot path)")
@pytest.mark.parametrize(("a", "b", "out", "dims"), SPLIT_CASES)
def test_split_dots_stay_within_the_contraction_bound(a: str, b: str, out: str,
                                                      dims: str) -> None:
    """Split across threads (one part per thread, each a single-threaded gemm of its
    columns or rows), a dot differs from the exact product by at most the forward
    error bound of a K-term sum, |err| <= K * eps * (|A| @ |B|), for 1 or 2 threads."""
    from hlotool.targets.cpu.kernels import parallel

    text = DOT.format(t="f32", a=a, b=b, out=out, dims=dims)
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    form = blas.plan_blas_dot(plan.roots[0], plan.tune)
    assert form is not None and blas.splits(form)
    x = RNG.standard_normal(_dims(a)).astype(np.float32)
    y = RNG.standard_normal(_dims(b)).astype(np.float32)
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    old = parallel.set_threads(2)
    try:
        two = ex.run([x, y])
        parallel.set_threads(1)
        one = ex.run([x, y])
    finally:
        parallel.set_threads(old)
    wide = Evaluator(parse_hlo(DOT.format(t="f64", a=a, b=b, out=out, dims=dims)))
    exact = wide.run([x.astype(np.float64), y.astype(np.float64)])
    bound = form.k * float(np.finfo(np.float32).eps) * \
        wide.run([np.abs(x).astype(np.float64), np.abs(y).astype(np.float64)])
    for got in (one, two):
        assert np.all(np.abs(np.asarray(got, np.float64) - exact) <= bound)


INT_CONTRACTIONS = {
    # name: (HLO body, operand shapes and types); K * max|a| * max|b| picks f32 or f64.
    "s8 dot into s32 (f32)": ("ROOT d = s32[64,48] dot(a, b), lhs_contracting_dims={1}, "
                              "rhs_contracting_dims={0}", ("s8[64,512]", "s8[512,48]")),
    "s8 dot into s32 (f64)": ("ROOT d = s32[16,24] dot(a, b), lhs_contracting_dims={1}, "
                              "rhs_contracting_dims={0}", ("s8[16,4096]", "s8[4096,24]")),
    "u8 x s8 dot wrapping into s8": ("ROOT d = s8[8,40] dot(a, b), lhs_contracting_dims={1}, "
                                     "rhs_contracting_dims={0}", ("u8[8,300]", "s8[300,40]")),
    "s16 batched dot into s32": ("ROOT d = s32[3,5,7] dot(a, b), lhs_batch_dims={0}, "
                                 "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                                 "rhs_contracting_dims={1}", ("s16[3,5,900]", "s16[3,900,7]")),
    "s8 conv into s32": ("ROOT c = s32[2,9,9,16] convolution(a, b), window={size=3x3 "
                         "pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
                         ("s8[2,9,9,32]", "s8[3,3,32,16]")),
}


@pytest.mark.parametrize("name", list(INT_CONTRACTIONS))
def test_small_integer_contractions_run_exactly_in_floats(name: str) -> None:
    """8- and 16-bit integer dots and convolutions (a quantized model's) run after the cpu
    pipeline as converts around the native f32 (or f64) op, whose sums hold every
    partial sum exactly: bit for bit the interpreter's integer result, wrapping included
    (extreme values: every product at its largest magnitude)."""
    from hlotool.pipeline_cache import optimize

    body, shapes = INT_CONTRACTIONS[name]
    params = "\n".join(f"  {n} = {s} parameter({i})" for i, (n, s) in enumerate(zip("ab", shapes)))
    text = f"HloModule m\nENTRY e {{\n{params}\n  {body}\n}}"
    rng = np.random.default_rng(5)
    args = []
    for s in shapes:
        t, dims = s.split("[")
        info = np.iinfo({"s8": np.int8, "u8": np.uint8, "s16": np.int16}[t])
        dims_t = tuple(int(d) for d in dims.rstrip("]").split(","))
        x = rng.integers(info.min, info.max, dims_t, endpoint=True).astype(info.dtype)
        x.reshape(-1)[::5] = info.min if info.min else info.max  # largest magnitudes
        args.append(x)
    module = optimize(parse_hlo(text), "cpu", cache_dir=None).module
    converts = [i for c in module.computations for i in c.instructions
                if i.opcode.value == "convert"]
    assert converts, "the contraction should run in a float type"
    ex = compile_module(module, cache=False, autotune=False)
    got = ex.run(args)
    assert ex.stats.fallback == 0, ex.skipped
    want = Evaluator(parse_hlo(text)).run(args)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
