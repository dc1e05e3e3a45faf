"""Variadic reduces and reduces with a general region on the CPU target (JAX's argmax and
argmin, two-operand pairs, single-operand regions of several ops): standalone and as the
root of a reduce fusion, bit-identical to the interpreter and without any fallback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import lax

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.codegen import plan_module
from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.cpu.kernels.reduce import ReducePlan
from tests.targets.conftest import assert_same, run_both


def hlo(f: Callable[..., Any], *args: np.ndarray, fused: bool) -> str:
    """The HLO of `f` as JAX lowers it (standalone reduce) or as XLA:CPU compiles it (the
    reduce is the root of a fusion)."""
    lowered = jax.jit(f).lower(*args)
    return lowered.compile().as_text() if fused else lowered.as_text(dialect="hlo")


def check(f: Callable[..., Any], *args: np.ndarray, fused: bool) -> None:
    text = hlo(f, *args, fused=fused)
    got, want, ex = run_both(text, *args)
    assert ex.stats.fallback == 0, ex.skipped
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)


def floats(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Normal values with NaNs, ties (repeated 1.0 and 2.5) and signed zeros."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::13] = np.nan
    flat[5::7] = 2.5
    flat[3::11] = 1.0
    flat[4::17] = -0.0
    return x


SHAPES = [(6, 20), (4, 100), (3, 1100), (5, 70, 3), (2, 9, 40)]


@pytest.mark.parametrize("fused", [False, True], ids=["standalone", "fused"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_argmax_argmin_f32(shape: tuple[int, ...], fused: bool) -> None:
    x = floats(shape)
    check(lambda x: jnp.argmax(x, axis=-1), x, fused=fused)
    check(lambda x: jnp.argmin(x, axis=1), x, fused=fused)
    check(lambda x: jnp.argmax(x, axis=-1, keepdims=True), x, fused=fused)


@pytest.mark.parametrize("fused", [False, True], ids=["standalone", "fused"])
def test_argmax_s32_and_middle_dim(fused: bool) -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(-5, 5, (7, 90, 4)).astype(np.int32)
    check(lambda x: jnp.argmax(x, axis=1), x, fused=fused)
    check(lambda x: jnp.argmin(x, axis=-1), x, fused=fused)
    check(lambda x: jnp.argmin(x, axis=0, keepdims=True), x, fused=fused)


@pytest.mark.parametrize("fused", [False, True], ids=["standalone", "fused"])
@pytest.mark.parametrize("shape", [(50,), (9, 7), (40, 33)], ids=lambda s: "x".join(map(str, s)))
def test_argmax_to_scalar(shape: tuple[int, ...], fused: bool) -> None:
    x = floats(shape, seed=2)
    check(lambda x: jnp.argmax(x), x, fused=fused)
    check(lambda x: jnp.argmin(jnp.abs(x) + 1.0), x, fused=fused)


@pytest.mark.parametrize("fused", [False, True], ids=["standalone", "fused"])
def test_narrow_floats(fused: bool) -> None:
    """bf16/f16 operands: the region computes in f32 and rounds after every op."""
    x = floats((6, 300)).astype(ml_dtypes.bfloat16)
    check(lambda x: jnp.argmax(x, axis=-1), x, fused=fused)
    check(lambda x: jnp.argmin(x, axis=0), x.astype(np.float16), fused=fused)
    z = np.random.default_rng(7).standard_normal((6, 300)).astype(ml_dtypes.bfloat16)
    check(lambda x, y: lax.reduce((x, y), (x.dtype.type(0.5), y.dtype.type(-1)),
                                  lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])), (1,)),
          z, z[::-1].copy(), fused=fused)


def sum_max(x: jax.Array, y: jax.Array, dims: tuple[int, ...]) -> Any:
    """A two-operand reduce: an f32 sum (order-dependent) and a max."""
    return lax.reduce((x, y), (np.float32(0.5), np.float32(-np.inf)),
                      lambda a, b: (a[0] + b[0], jnp.maximum(a[1], b[1])), dims)


def add_select(x: jax.Array, dims: tuple[int, ...]) -> Any:
    """A single-operand reduce whose region is several ops (and order-dependent)."""
    return lax.reduce(x, np.float32(0.25),
                      lambda a, b: jnp.where(a + b > 3, a * 0.5 + b, a + b), dims)


PAIR_CASES = [((8, 40), (1,)), ((6, 77, 5), (1,)), ((1000,), (0,)), ((37, 50), (0, 1)),
              ((5, 9, 13), (0, 2)), ((3, 4133), (1,)), ((70, 3), (0,)), ((4, 64), (1,)),
              ((4, 65), (1,))]


@pytest.mark.parametrize("fused", [False, True], ids=["standalone", "fused"])
@pytest.mark.parametrize(("shape", "dims"), PAIR_CASES, ids=lambda c: "x".join(map(str, c)))
def test_pairs_and_general_regions(shape: tuple[int, ...], dims: tuple[int, ...],
                                   fused: bool) -> None:
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(shape) * 10).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    check(lambda x, y: sum_max(x, y, dims), x, y, fused=fused)
    check(lambda x: add_select(x, dims), x, fused=fused)


def test_int_pair_is_planned() -> None:
    """An s32 pair whose region mixes both operands compiles to one reduce kernel."""
    text = hlo(lambda x, y: lax.reduce(
        (x, y), (np.int32(0), np.int32(1)),
        lambda a, b: (a[0] * 3 + b[0], a[1] ^ (b[1] + a[0])), (1,)),
        np.zeros((4, 100), np.int32), np.zeros((4, 100), np.int32), fused=False)
    plans = [p for p in plan_module(parse_hlo(text)).plans.values() if isinstance(p, ReducePlan)]
    assert len(plans) == 1 and plans[0].reduce.shape.is_tuple
    rng = np.random.default_rng(4)
    x = rng.integers(-100, 100, (4, 100)).astype(np.int32)
    got, want, ex = run_both(text, x, x + 1)
    assert ex.stats.fallback == 0, ex.skipped
    for g, w in zip(got, want, strict=True):
        assert_same(g, w)


@pytest.fixture
def every_kernel_splits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(parallel, "MIN_WORK_PER_PART", 1)
    old = parallel.threads()
    yield
    parallel.set_threads(old)


def test_threads_split_kept_elements(every_kernel_splits: None) -> None:
    """The kept elements are split across threads; every count gives the same bits."""
    x = floats((33, 300), seed=5)
    y = np.flip(x, 1).copy()
    for text, args in [(hlo(lambda x: jnp.argmax(x, axis=1), x, fused=True), [x]),
                       (hlo(lambda x, y: sum_max(x, y, (1,)), x, y, fused=False), [x, y])]:
        ex = compile_module(parse_hlo(text), cache=False, autotune=False)
        with np.errstate(all="ignore"):
            want = Evaluator(parse_hlo(text)).run(args)
        for n in (1, 2, 3, 8):
            parallel.set_threads(n)
            got = ex.run(args)
            assert ex.stats.fallback == 0, ex.skipped
            for g, w in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,), strict=True):
                assert_same(g, w)
