"""libstdc++'s std::sort replayed on ranks gives XLA:CPU's tie order (jaxlib 0.10): random
tie-heavy rows of many lengths, the heap-sort fallback, and unstable HLO sorts."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool import semantics
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.interpreter.kernels import introsort
from tests.unstable_sorts import CASES, Case, quicksort_killer, xla_run

SIZES = [*range(2, 40), 63, 64, 65, 100, 255, 256, 257, 1000, 1024, 3001, 5000]


def xla_tie_order(keys: np.ndarray) -> list[int]:
    """The iota payload of an unstable s32 sort of `keys` on XLA:CPU."""
    n = keys.size
    text = (f"HloModule m\ncmp {{\n  p0 = s32[] parameter(0)\n  p1 = s32[] parameter(1)\n"
            f"  p2 = s32[] parameter(2)\n  p3 = s32[] parameter(3)\n"
            f"  ROOT c = pred[] compare(p0, p1), direction=LT\n}}\nENTRY e {{\n"
            f"  k = s32[{n}] parameter(0)\n  i = s32[{n}] parameter(1)\n"
            f"  ROOT s = (s32[{n}], s32[{n}]) sort(k, i), dimensions={{0}}, to_apply=cmp\n}}")
    return xla_run(text, [keys.astype(np.int32), np.arange(n, dtype=np.int32)])[1].tolist()


@pytest.mark.parametrize("n", SIZES)
def test_tie_order_is_xla_cpus(n: int) -> None:
    rng = np.random.default_rng(n)
    for distinct in (1, 2, max(2, n // 4)):
        keys = rng.integers(0, distinct, n)
        order = introsort.std_sort_permutation(keys.tolist())
        assert order == xla_tie_order(keys)


def test_some_tie_orders_differ_from_the_stable_one() -> None:
    keys = np.random.default_rng(0).integers(0, 3, 40)
    order = introsort.std_sort_permutation(keys.tolist())
    assert order != np.argsort(keys, kind="stable").tolist()
    assert order == xla_tie_order(keys)


@pytest.mark.parametrize("n", [300, 2000])
def test_heap_sort_fallback_is_xla_cpus(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """On McIlroy's adversary input (halved: ties) the depth limit runs out."""
    keys = quicksort_killer(n) // 2
    heaped: list[int] = []
    heap_sort = introsort._heap_sort

    def counting(a: list[tuple[int, int]], first: int, last: int) -> None:
        heaped.append(last - first)
        heap_sort(a, first, last)

    monkeypatch.setattr(introsort, "_heap_sort", counting)
    order = introsort.std_sort_permutation(keys.tolist())
    assert heaped and max(heaped) > n // 2
    assert order == xla_tie_order(keys)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_unstable_hlo_sort_is_xla_cpus(case: Case) -> None:
    text = case.text()
    args = case.arguments(seed=len(case.name))
    got = Evaluator(parse_hlo(text)).run(args)
    want = xla_run(text, args)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), w)
    with semantics.using("stablehlo"):
        stable = Evaluator(parse_hlo(text)).run(args)
    assert not np.array_equal(stable[1], want[1])  # the ties are really reordered


def test_stablehlo_semantics_keeps_ties_in_order() -> None:
    case = CASES[1]
    args = case.arguments(seed=3)
    with semantics.using("stablehlo"):
        keys, ids = Evaluator(parse_hlo(case.text())).run(args)
    want = np.argsort(-args[0].astype(np.int64), axis=1, kind="stable")
    np.testing.assert_array_equal(ids, want)
    np.testing.assert_array_equal(keys, np.take_along_axis(args[0], want, axis=1))
