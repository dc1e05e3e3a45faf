"""Shared helpers for the target tests: run a module natively and on the interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.runtime import CpuExecutable


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Compile through a fresh cache directory (never the user's cache)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("HLOTOOL_CACHE_DIR", str(tmp_path_factory.mktemp("hlotool-cache")))
    yield
    mp.undo()


def run_both(text: str, *args: Any) -> tuple[Any, Any, CpuExecutable]:
    """(native result, interpreter result, executable) of one HLO module."""
    module = parse_hlo(text)
    values = [np.asarray(a) for a in args]
    ex = compile_module(module)
    got = ex.run(values)
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run(values)
    return got, want, ex


def assert_contraction_close(got: Any, text: str, args: list[np.ndarray], k: int,
                              c: float = 2.0) -> None:
    """Within the rounding error of any summation order of a K-term contraction:
    |got - exact| <= c * K * eps * (|A|.|B|) elementwise (Higham's bound for dot products),
    with `exact` and `|A|.|B|` computed by the interpreter in float64 from the same HLO.

    Two BLAS call sequences (gemm per batch vs gemm_batch_strided, gemm vs gemv) agree
    bit for bit only by accident of one library version, so this is what tests of dots and
    convolutions against an independent reference assert on random data."""
    got = np.asarray(got)
    eps = float(np.finfo(got.dtype).eps)
    wide = text.replace("f32[", "f64[")
    wide_args = [np.asarray(a, np.float64) for a in args]
    exact = np.asarray(Evaluator(parse_hlo(wide)).run(wide_args))
    magnitude = np.asarray(Evaluator(parse_hlo(wide)).run([np.abs(a) for a in wide_args]))
    bound = c * max(k, 1) * eps * magnitude + np.finfo(got.dtype).tiny
    err = np.abs(got.astype(np.float64) - exact)
    worst = np.unravel_index(np.argmax(err - bound), err.shape) if err.size else ()
    assert np.all(err <= bound), (
        f"error {err[worst]:.3g} above the bound {bound[worst]:.3g} at {worst} (K={k})")


def assert_same(got: np.ndarray, want: np.ndarray, ulps: int = 0) -> None:
    """Equal bit for bit (NaNs by NaN-ness, zeros with their sign), or within `ulps`."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    if got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    g, w = got[~nan], want[~nan]
    if ulps == 0:
        np.testing.assert_array_equal(g.view(f"i{g.itemsize}"), w.view(f"i{w.itemsize}"))
    else:
        np.testing.assert_array_max_ulp(g, w, maxulp=ulps)


#: A running argmax region (value, index) of reduce-window tests: the later element wins
#: only when greater.
ARGMAX_REGION = """argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
"""


def kernel_ir(text: str) -> str:
    """The LLVM IR the CPU target emits for an HLO module (no cache, no tuning)."""
    ex = compile_module(parse_hlo(text), keep_asm=True, cache=False, autotune=False)
    assert ex.library is not None
    return ex.library.llvm_ir


def fusion_module(params: str, body: str, out: str, args: str, kind: str = "kLoop") -> str:
    """HLO text of an entry that calls one fusion of `kind` whose parameter lines (the
    entry's too) are `params` and whose other lines are `body`."""
    return f"""HloModule m
f {{
{params}
{body}
}}
ENTRY e {{
{params}
  ROOT o = {out} fusion({args}), kind={kind}, calls=f
}}"""
