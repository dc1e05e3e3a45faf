"""Current XLA's spellings (jax 0.12 on): compare `order=TOTAL|PARTIAL|WEAK`, topk
`is_stable`. Expected values were computed by XLA:CPU of jaxlib 0.12 on these modules."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.printer import print_module

A = np.array([0.0, -0.0, np.nan, -np.nan, 1, np.inf, np.nan, -0.0], np.float32)
B = np.array([-0.0, 0.0, np.nan, np.nan, np.nan, np.nan, 1, -0.0], np.float32)
#: XLA:CPU (jaxlib 0.12) on A, B: (attribute, direction) -> result.
XLA = {
    ("order=TOTAL", "EQ"): [0, 0, 1, 0, 0, 0, 0, 1],
    ("order=TOTAL", "LT"): [0, 1, 0, 1, 1, 1, 0, 0],
    ("order=PARTIAL", "EQ"): [1, 1, 0, 0, 0, 0, 0, 1],
    ("order=PARTIAL", "LT"): [0, 0, 0, 0, 0, 0, 0, 0],
    ("order=WEAK", "EQ"): [1, 1, 1, 1, 0, 0, 0, 1],
    ("order=WEAK", "LT"): [0, 0, 0, 0, 1, 1, 0, 0],
    ("type=TOTALORDER", "EQ"): [0, 0, 1, 0, 0, 0, 0, 1],
    ("type=FLOAT", "LT"): [0, 0, 0, 0, 0, 0, 0, 0],
}
#: How XLA:CPU (jaxlib 0.12) prints each attribute back.
PRINTED = {"order=TOTAL": ", order=TOTAL", "order=PARTIAL": "", "order=WEAK": ", order=WEAK"}


def _module(attr: str, direction: str) -> str:
    return f"""HloModule m

ENTRY e {{
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  ROOT c = pred[8] compare(a, b), direction={direction}, {attr}
}}
"""


@pytest.mark.parametrize(("attr", "direction"), sorted(XLA))
def test_compare_orders_match_xla(attr: str, direction: str) -> None:
    got = Evaluator(parse_hlo(_module(attr, direction))).run([A, B])
    assert got.astype(int).tolist() == XLA[attr, direction]


@pytest.mark.parametrize("attr", sorted(PRINTED))
def test_order_spelling_prints_as_current_xla(attr: str) -> None:
    text = print_module(parse_hlo(_module(attr, "LT")))
    line = next(s for s in text.splitlines() if "compare(" in s)
    assert line.endswith("direction=LT" + PRINTED[attr])


def test_old_spelling_prints_as_read() -> None:
    text = print_module(parse_hlo(_module("type=TOTALORDER", "LT")))
    assert "direction=LT, type=TOTALORDER" in text


def test_weak_order_runs_natively_too() -> None:
    from hlotool.targets.cpu import compile_module

    ex = compile_module(parse_hlo(_module("order=WEAK", "LT")), cache=False, autotune=False)
    assert ex.run([A, B]).astype(int).tolist() == XLA["order=WEAK", "LT"]


def test_topk_is_stable_round_trips() -> None:
    text = """HloModule t

ENTRY e {
  a = f32[6] parameter(0)
  ROOT t = (f32[3], s32[3]) topk(a), k=3, largest=true, is_stable=true
}
"""
    module = parse_hlo(text)
    assert "largest=true, is_stable=true" in print_module(module)
    values, index = Evaluator(module).run([np.array([1, 3, 3, 2, 3, 0], np.float32)])
    assert values.tolist() == [3, 3, 3] and index.tolist() == [1, 2, 4]
