"""Linearity guards: the `cpu` pipeline, the verifier, fingerprints, parsing and printing
on a deep module and on one four times deeper. A quadratic stage would take 16x as long;
the bound is loose (CPU time, shared machines) but far below that."""

from __future__ import annotations

import time
from collections.abc import Callable

from hlotool.frontend import parse_hlo
from hlotool.ir.module import Module
from hlotool.ir.structure import clone_module, fingerprint
from hlotool.passes.pipelines import get_pipeline
from hlotool.ir.printer import print_module
from hlotool.verifier import verify
from tests.scale_programs import deep_module

SMALL, FACTOR = 40, 4
#: Growth allowed beyond linear (x FACTOR) before a stage counts as super-linear.
SLACK = 2.0


def cpu_seconds(fn: Callable[[], object], repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def growth(stage: Callable[[Module], object]) -> float:
    """Seconds on the big module over seconds on the small one, per instruction."""
    small, big = (parse_hlo(deep_module(n)) for n in (SMALL, SMALL * FACTOR))
    ratio = cpu_seconds(lambda: stage(big)) / max(cpu_seconds(lambda: stage(small)), 1e-4)
    return ratio * small.instruction_count / big.instruction_count


def _pipeline(module: Module) -> None:
    get_pipeline("cpu").run(clone_module(module))


def test_cpu_pipeline_grows_linearly() -> None:
    assert growth(_pipeline) < SLACK


def test_verifier_fingerprint_and_printer_grow_linearly() -> None:
    def analyses(module: Module) -> None:
        verify(module)
        fingerprint(module)
        print_module(module)

    assert growth(analyses) < SLACK


def test_parse_grows_linearly() -> None:
    texts = {n: deep_module(n) for n in (SMALL, SMALL * FACTOR)}
    small = cpu_seconds(lambda: parse_hlo(texts[SMALL]))
    big = cpu_seconds(lambda: parse_hlo(texts[SMALL * FACTOR]))
    assert big / small / FACTOR < SLACK


def test_the_deep_module_keeps_its_values_through_the_pipeline() -> None:
    """The generated module is a real program: the cpu pipeline keeps its value."""
    import numpy as np

    from hlotool.interpreter.core import Evaluator

    module = parse_hlo(deep_module(3))
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((4, 16)).astype(np.float32),
            (rng.standard_normal((16, 16)) / 4).astype(np.float32)]
    want = Evaluator(module).run(args)
    optimized = clone_module(module)
    get_pipeline("cpu").run(optimized)
    np.testing.assert_allclose(Evaluator(optimized).run(args), want, rtol=1e-5, atol=1e-6)
