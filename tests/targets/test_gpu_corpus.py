"""Every corpus module on the GPU target (emulated) matches XLA's outputs; its kernels
agree under other thread orders, and every kernel assembles with ptxas (sm_80, sm_90)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.commands.opt import apply_passes
from hlotool.frontend import parse_hlo
from hlotool.ir.module import Module
from hlotool.targets.base import ExecutionStats
from hlotool.targets.gpu import compile_module, nvptx, ptxas
from hlotool.targets.gpu.kernel import Kernel
from hlotool.targets.gpu.plan import plan_module
from tests.conftest import hlo_texts, runnable, tolerance

#: Modules with elided constants (`constant({...})`) cannot reproduce their outputs.
TEXTS = [(i, p) for i, p in hlo_texts() if runnable(p)]
#: Modules whose kernels include block trees, the GEMM and multi-phase kernels.
ORDER_CASES = ["softmax/module.hlo", "layernorm/module.opt.hlo", "mlp_forward/module.hlo",
               "attention_causal/module.hlo", "reduce_argmax_argmin/module.hlo",
               "reduce_sum_max_min/module.opt.hlo", "dot_batched/module.hlo"]


def _module(path: Path) -> Module:
    module = parse_hlo(path.read_text())
    apply_passes(module, "gpu", None, verify_each=False)
    return module


def _arguments(path: Path) -> list[object]:
    return values_io.entry_arguments(parse_hlo(path.read_text()),
                                     values_io.load_npz(path.parent / "inputs.npz"))


@functools.cache
def run_case(path: Path, order: str = "forward") -> tuple[dict[str, np.ndarray], ExecutionStats]:
    ex = compile_module(_module(path), emulate=True, order=order)
    return values_io.output_arrays(ex.run(_arguments(path))), ex.stats


@pytest.mark.parametrize("path", [p for _, p in TEXTS], ids=[i for i, _ in TEXTS])
def test_corpus_module(path: Path) -> None:
    out, _ = run_case(path)
    rtol, atol = tolerance(path.parent)
    diffs = values_io.compare_outputs(out, values_io.load_npz(path.parent / "expected.npz"),
                                      rtol, atol)
    assert all(d.ok for d in diffs), [d.as_json() for d in diffs if not d.ok]


def test_gpu_kernel_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    """The share of instruction executions that ran in GPU kernels (the rest ran on the
    interpreter), per text; kept above a floor."""
    totals = {"module.hlo": [0, 0], "module.opt.hlo": [0, 0]}
    fallback: dict[str, int] = {}
    for _, path in TEXTS:
        _, s = run_case(path)
        totals[path.name][0] += s.native
        totals[path.name][1] += s.fallback
        for op, n in s.fallback_by_opcode.items():
            fallback[op] = fallback.get(op, 0) + n
    with capsys.disabled():
        for name, (n, f) in totals.items():
            print(f"\ngpu kernel coverage {name}: {n}/{n + f} = {n / (n + f):.1%}")
        print("interpreter fallbacks by opcode:", dict(sorted(fallback.items(), key=lambda kv: -kv[1])))
    for name, (n, f) in totals.items():
        assert n / (n + f) >= COVERAGE_FLOOR, (name, fallback)


COVERAGE_FLOOR = 0.97


@pytest.mark.parametrize("case", ORDER_CASES)
@pytest.mark.parametrize("order", ["reversed", "shuffled"])
def test_thread_orders_agree(case: str, order: str) -> None:
    """The kernels' results do not depend on the order threads run in (no races)."""
    path = Path(__file__).parents[1] / "data" / "corpus" / case
    want, _ = run_case(path)
    got, _ = run_case(path, order)
    for key in want:
        np.testing.assert_array_equal(got[key], want[key])


def _corpus_kernels() -> list[Kernel]:
    """Every distinct kernel of the corpus (equal code counted once)."""
    seen: dict[str, Kernel] = {}
    for _, path in TEXTS:
        for k in plan_module(_module(path)).kernels:
            seen.setdefault(nvptx.fingerprint(k), k)
    renamed = []
    for n, k in enumerate(seen.values()):
        k.name = f"k{n}_{k.name}"[:120]
        renamed.append(k)
    return renamed


@functools.cache
def corpus_kernels() -> tuple[Kernel, ...]:
    return tuple(_corpus_kernels())


CHUNK = 400


@pytest.mark.parametrize("arch", nvptx.ARCHS)
def test_every_corpus_kernel_assembles(arch: str) -> None:
    assert ptxas.find() is not None, "ptxas missing: install the gpu extra (.ci/run does)"
    kernels = list(corpus_kernels())
    assert len(kernels) > 100
    assembled = 0
    for start in range(0, len(kernels), CHUNK):
        chunk = kernels[start:start + CHUNK]
        _, ptx = nvptx.kernels_ptx(chunk, f"corpus{start}", arch)
        cubin, resources = ptxas.assemble(ptx, arch)
        assert cubin[:4] == b"\x7fELF"
        assert {k.name for k in chunk} <= set(resources)
        for k in chunk:
            r = resources[k.name]
            assert r.shared_bytes <= 48 * 1024 and r.registers <= 255, (k.name, r)
        assembled += len(chunk)
    assert assembled == len(kernels)
