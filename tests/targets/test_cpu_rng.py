"""rng-bit-generator (Philox) as a native kernel: bit-identical to the interpreter's
port of XLA's expander."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.codegen import plan_module
from hlotool.targets.cpu.kernels.rng import RngPlan
from tests.targets.conftest import assert_same


def rng_text(state: int, out: str, algorithm: str = "rng_default") -> str:
    return f"""HloModule m
ENTRY e {{
  s = u64[{state}] parameter(0)
  ROOT r = (u64[{state}], {out}) rng-bit-generator(s), algorithm={algorithm}
}}"""


STATES = {
    "small": [7, 1, 2],
    # The counter's low word wraps: the high word takes the carry.
    "wrap": [0x0123456789ABCDEF, 2**64 - 3, 5],
}


@pytest.mark.parametrize("out", ["u32[5,7]", "u32[1024,1030]", "s8[3,11]", "u16[9]",
                                 "f32[4,4]", "u64[7]", "s64[3,5]", "bf16[6]", "u32[]"])
@pytest.mark.parametrize("state", [2, 3])
@pytest.mark.parametrize("start", list(STATES))
def test_philox_matches_the_interpreter(out: str, state: int, start: str) -> None:
    text = rng_text(state, out, "rng_philox" if out.startswith("u64") else "rng_default")
    (plan,) = plan_module(parse_hlo(text)).plans.values()
    assert isinstance(plan, RngPlan)
    s = np.array(STATES[start][:state], dtype=np.uint64)
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    got = ex.run([s])
    want = Evaluator(parse_hlo(text)).run([s])
    assert ex.stats.fallback == 0
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert_same(g.view(f"u{g.itemsize}"), w.view(f"u{w.itemsize}"))  # the raw bits


def test_threefry_stays_on_the_interpreter() -> None:
    text = rng_text(2, "u32[4,4]", "rng_three_fry")
    assert not plan_module(parse_hlo(text)).plans
