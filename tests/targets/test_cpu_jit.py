"""The JIT's pass pipelines: the default (level 2) still vectorizes and computes the same
values as the interpreter and as LLVM's full O3 (level 3)."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import CpuTarget
from hlotool.targets.cpu.cache import module_key
from tests.targets.conftest import assert_same

FUSED = """HloModule m
fused {
  p0 = f32[4096] parameter(0)
  p1 = f32[4096] parameter(1)
  m = f32[4096] multiply(p0, p1)
  t = f32[4096] tanh(m)
  ROOT r = f32[4096] add(t, p0)
}
ENTRY e {
  a = f32[4096] parameter(0)
  b = f32[4096] parameter(1)
  ROOT f = f32[4096] fusion(a, b), kind=kLoop, calls=fused
}"""

ROW_SUM = """HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[64,1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(a, z), dimensions={1}, to_apply=add
}"""


def _target(speed_level: int) -> CpuTarget:
    return CpuTarget(cache=False, autotune=False, speed_level=speed_level)


@pytest.mark.parametrize("speed_level", [2, 3])
@pytest.mark.parametrize("text", [FUSED, ROW_SUM], ids=["loop", "row-reduce"])
def test_levels_match_the_interpreter(text: str, speed_level: int) -> None:
    module = parse_hlo(text)
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(p.shape.dimensions).astype(np.float32)
            for p in module.entry.parameters]
    ex = _target(speed_level).compile(module)
    assert ex.library is not None
    assert {"optimize", "codegen"} <= set(ex.library.timings.stages)
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run(args)
    assert_same(ex.run(args), want, ulps=2 if text is FUSED else 0)


def test_default_pipeline_vectorizes_loops() -> None:
    """Level 2 drops SLP and unrolling, not the loop vectorizer (kernels are scalar loops)."""
    ex = _target(2).compile(parse_hlo(FUSED))
    assert ex.library is not None
    assert "x float>" in ex.library.llvm_ir


def test_speed_level_is_part_of_the_cache_key() -> None:
    module = parse_hlo(FUSED)
    assert module_key(module, speed_level=2) != module_key(module, speed_level=3)
