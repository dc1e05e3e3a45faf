"""Kernels found identical by their structural key (`targets/cpu/kernel_key.py`) are
emitted once: the key must tell apart every pair of plans whose code differs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from llvmlite import ir

from hlotool.frontend import parse_hlo
from hlotool.passes.pipelines import get_pipeline
from hlotool.targets.cpu.codegen import _PLACEHOLDER, emit_kernel, is_llvm, plan_module
from hlotool.targets.cpu.kernel_key import kernel_key
from tests.targets.conftest import assert_same, run_both

DATA = Path(__file__).parents[1] / "data"
#: Modules with many repeated kernels (layers, per-parameter optimizer updates).
REPEATING = ["corpus_tf/train_step_xent", "corpus_tf/attention", "corpus_tf/batchnorm",
             "corpus/rng_bits_randint", "corpus/attention_causal"]

# Two divides of the same shapes: by a broadcast constant (a multiply by its reciprocal,
# as XLA does) and by a broadcast parameter holding the same value (a true division).
DIVIDES = """HloModule m
ENTRY e {
  x = f32[4096] parameter(0)
  s = f32[] parameter(1)
  three = f32[] constant(3)
  by_constant = f32[4096] broadcast(three), dimensions={}
  by_value = f32[4096] broadcast(s), dimensions={}
  a = f32[4096] divide(x, by_constant)
  b = f32[4096] divide(x, by_value)
  ROOT t = (f32[4096], f32[4096]) tuple(a, b)
}"""


def _texts_by_key(text: str) -> tuple[dict[str, set[str]], int]:
    module = parse_hlo(text)
    get_pipeline("cpu").run(module)
    by_key: dict[str, set[str]] = {}
    plans = 0
    for plan in plan_module(module).plans.values():
        key = kernel_key(plan) if is_llvm(plan) else None
        if key is None:
            continue
        llvm = ir.Module(name="m")
        emit_kernel(llvm, plan, _PLACEHOLDER, x86=True)
        by_key.setdefault(key, set()).add(str(llvm))
        plans += 1
    return by_key, plans


@pytest.mark.parametrize("case", REPEATING)
def test_plans_with_one_key_emit_one_function(case: str) -> None:
    path = next(p for p in (DATA / case / "module.hlo", DATA / case / "module.opt.hlo")
                if p.exists())
    by_key, plans = _texts_by_key(path.read_text())
    assert plans > len(by_key)  # some kernels are shared
    assert all(len(texts) == 1 for texts in by_key.values())


def test_a_divide_by_a_constant_is_not_shared_with_a_true_division() -> None:
    by_key, _ = _texts_by_key(DIVIDES)
    assert all(len(texts) == 1 for texts in by_key.values())
    x = np.random.default_rng(0).standard_normal(4096).astype(np.float32) * 1000
    got, want, _ = run_both(DIVIDES, x, np.float32(3))
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
    # The two results differ somewhere: x * (1/3) is not x / 3 in f32.
    assert not np.array_equal(want[0], want[1])


# Two reduce fusions alike but for their init value, passed in from outside: 0 is the
# sum's identity and 1 is not, which changes the code (the init is added once).
INITS = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sum_a {
  x = f32[64,256] parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[64] reduce(x, i), dimensions={1}, to_apply=add
}
sum_b {
  x = f32[64,256] parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[64] reduce(x, i), dimensions={1}, to_apply=add
}
ENTRY e {
  x = f32[64,256] parameter(0)
  zero = f32[] constant(0)
  one = f32[] constant(1)
  a = f32[64] fusion(x, zero), kind=kInput, calls=sum_a
  b = f32[64] fusion(x, one), kind=kInput, calls=sum_b
  ROOT t = (f32[64], f32[64]) tuple(a, b)
}"""


def test_reduces_with_different_inits_are_not_shared() -> None:
    by_key, _ = _texts_by_key(INITS)
    assert all(len(texts) == 1 for texts in by_key.values())
    x = np.random.default_rng(1).standard_normal((64, 256)).astype(np.float32)
    got, want, _ = run_both(INITS, x)
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)
