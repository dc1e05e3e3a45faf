"""kOutput fusions of a dot and its elementwise epilogue as one kernel
(targets/cpu/kernels/dot_fusion.py): which fusions become one, and their results against
the interpreter in float64 (within the contraction bound of the dot, the epilogue
applied to the exact values).

AVX-512 hosts pick hlotool's own gemm for these dots by themselves (`blas.own_gemm`);
the `own` fixture makes every host pick it, so the one-kernel path runs on any CI host.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.codegen import plan_module
from hlotool.targets.cpu.jit import host
from hlotool.targets.cpu.kernels import blas, gemm, parallel
from hlotool.targets.cpu.kernels.dot import DotPlan
from hlotool.targets.cpu.kernels.dot_fusion import DotFusionPlan
from hlotool.targets.cpu.kernels.loop import LoopPlan
from tests.targets.conftest import assert_contraction_close, assert_same, fusion_module


@pytest.fixture
def own(monkeypatch: pytest.MonkeyPatch) -> None:
    """hlotool's own gemm for every f32 dot worth splitting, on any host."""
    assert blas.available()
    mr = gemm.tile(host().features)[0]
    monkeypatch.setattr(blas, "own_gemm", lambda dot: dot.dtype is PrimitiveType.F32 and
                        blas.splits(dot) and dot.m >= mr)


def module(params: str, body: str, out: str, args: str) -> str:
    """An entry that calls one kOutput fusion of `body` (parameters `params`)."""
    return fusion_module(params, body, out, args, "kOutput")


BIAS = module("""  x = f32[256,512] parameter(0)
  w = f32[512,384] parameter(1)
  b = f32[384] parameter(2)""", """  d = f32[256,384] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[256,384] broadcast(b), dimensions={1}
  s = f32[256,384] add(d, bb)
  z = f32[] constant(0)
  zb = f32[256,384] broadcast(z), dimensions={}
  ROOT r = f32[256,384] maximum(s, zb)""", "f32[256,384]", "x, w, b")

#: The rhs read transposed, a contraction of three blocks (gemm.KC), a scale and a
#: residual of the output's shape.
RESIDUAL = module("""  x = f32[256,1100] parameter(0)
  w = f32[384,1100] parameter(1)
  s = f32[] parameter(2)
  res = f32[256,384] parameter(3)""", """  d = f32[256,384] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  sb = f32[256,384] broadcast(s), dimensions={}
  m = f32[256,384] multiply(d, sb)
  ROOT r = f32[256,384] add(m, res)""", "f32[256,384]", "x, w, s, res")

#: Batched, a bias over the columns of every batch.
BATCHED = module("""  x = f32[4,128,96] parameter(0)
  w = f32[4,96,200] parameter(1)
  b = f32[200] parameter(2)""", """  d = f32[4,128,200] dot(x, w), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  bb = f32[4,128,200] broadcast(b), dimensions={2}
  ROOT r = f32[4,128,200] subtract(d, bb)""", "f32[4,128,200]", "x, w, b")

#: Two free dims of the lhs (the gemm's rows), an array constant in the epilogue.
CONSTANT = module("""  x = f32[8,32,256] parameter(0)
  w = f32[256,384] parameter(1)""", """  d = f32[8,32,384] dot(x, w), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  c = f32[384] constant({%s})
  cb = f32[8,32,384] broadcast(c), dimensions={2}
  ROOT r = f32[8,32,384] add(d, cb)""" % ", ".join(f"{i / 64:g}" for i in range(384)),
    "f32[8,32,384]", "x, w")

FUSED = [(BIAS, 512), (RESIDUAL, 1100), (BATCHED, 96), (CONSTANT, 256)]
FUSED_IDS = ["bias-relu", "transposed-residual", "batched", "constant"]


def _args(text: str, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(p.shape.dimensions).astype(np.float32)
            for p in parse_hlo(text).entry.parameters]


@pytest.mark.parametrize(("text", "k"), FUSED, ids=FUSED_IDS)
def test_dot_and_elementwise_epilogue_are_one_kernel(own: None, text: str, k: int) -> None:
    """The fusion is one kernel reading the fusion's parameters, within the contraction
    bound, and the same bits on one thread as on three."""
    plans = list(plan_module(parse_hlo(text)).plans.values())
    assert [type(p) for p in plans] == [DotFusionPlan]
    assert [i.opcode.value for i in plans[0].inputs] == ["parameter"] * len(plans[0].inputs)
    args = _args(text, k)
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    old = parallel.set_threads(3)
    try:
        got = ex.run(args)
        parallel.set_threads(1)
        assert_same(ex.run(args), got)
    finally:
        parallel.set_threads(old)
    assert ex.stats.fallback == 0
    assert_contraction_close(got, text, args, k)


def test_relu_zeros_match_the_interpreter(own: None) -> None:
    """The relu's zeros are where the interpreter's are (the epilogue saw final sums)."""
    args = _args(BIAS, 1)
    got = compile_module(parse_hlo(BIAS), cache=False, autotune=False).run(args)
    want = Evaluator(parse_hlo(BIAS)).run(args)
    assert (got == 0).any() and (got != 0).any()
    assert np.mean((got == 0) == (want == 0)) > 0.999


#: The epilogue reads the dot transposed: not elementwise in it.
TRANSPOSED = module("""  x = f32[384,512] parameter(0)
  w = f32[512,384] parameter(1)""", """  d = f32[384,384] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[384,384] transpose(d), dimensions={1,0}
  ROOT r = f32[384,384] add(d, t)""", "f32[384,384]", "x, w")

#: A bf16 root: the output cannot hold the dot's f32 values.
NARROW = module("""  x = f32[256,512] parameter(0)
  w = f32[512,384] parameter(1)""", """  d = f32[256,384] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = bf16[256,384] convert(d)""", "bf16[256,384]", "x, w")


def test_epilogue_reading_the_dot_elsewhere_keeps_two_kernels(own: None) -> None:
    """An epilogue that reads other elements of the dot than its own runs after the
    whole dot: a dot kernel and a loop kernel, within the bound of both sums."""
    plans = list(plan_module(parse_hlo(TRANSPOSED)).plans.values())
    assert [type(p) for p in plans] == [DotPlan, LoopPlan]
    args = _args(TRANSPOSED, 2)
    got = compile_module(parse_hlo(TRANSPOSED), cache=False, autotune=False).run(args)
    assert_contraction_close(got, TRANSPOSED, args, 512)


def test_narrow_root_keeps_two_kernels(own: None) -> None:
    """A bf16 output cannot hold the dot in place: two kernels, the result the
    interpreter's rounded to bf16 (within one bf16 rounding of the f32 sums' error)."""
    plans = list(plan_module(parse_hlo(NARROW)).plans.values())
    assert [type(p) for p in plans] == [DotPlan, LoopPlan]
    args = _args(NARROW, 3)
    got = np.asarray(compile_module(parse_hlo(NARROW), cache=False, autotune=False).run(args),
                     np.float64)
    want = np.asarray(Evaluator(parse_hlo(NARROW)).run(args), np.float64)
    scale = np.matmul(np.abs(args[0]), np.abs(args[1]))
    assert np.all(np.abs(got - want) <= 2.0**-7 * np.abs(want) + 1e-4 * scale)
