"""The scan kernel (targets/cpu/kernels/scan.py): prefix reduce-windows in XLA's tiled
order, bit for bit against the interpreter, on the forms jax emits and on exclusive,
variadic and multi-level scans."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.kernels.scan import chunk_levels, scan_levels
from tests.targets.conftest import ARGMAX_REGION
from tests.targets.test_cpu_indexing import run_native

RNG = np.random.default_rng(11)


def f32(*shape: int) -> np.ndarray:
    """Values whose f32 prefix sums depend on the order they are added in."""
    x = RNG.standard_normal(shape).astype(np.float32)
    return x * np.where(RNG.random(shape) < 0.1, np.float32(1e6), np.float32(1))


def jax_hlo(fn: Callable[..., Any], *args: Any) -> str:
    return jax.jit(fn).lower(*args).as_text(dialect="hlo")


# n = 17 and 257: a partial last chunk; 4097: three levels; 300 minor elements: a partial
# block of lanes on the non-minor axes.
JAX_SCANS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "cumsum_rows": (lambda x: jnp.cumsum(x, axis=1), (f32(8, 257),)),
    "cumsum_long": (lambda x: jnp.cumsum(x), (f32(4097),)),
    "cumsum_axis0": (lambda x: jnp.cumsum(x, axis=0), (f32(17, 300),)),
    "cumsum_middle": (lambda x: jnp.cumsum(x, axis=1), (f32(3, 40, 5),)),
    "cumsum_f64": (lambda x: jnp.cumsum(x, axis=1), (f32(4, 300).astype(np.float64),)),
    "cumsum_bf16": (lambda x: jnp.cumsum(x, axis=1), (f32(4, 70).astype(jnp.bfloat16),)),
    "cumsum_s32": (lambda x: jnp.cumsum(x, axis=0),
                   (RNG.integers(-9, 9, (300, 20)).astype(np.int32),)),
    "cumsum_c64": (lambda x: jnp.cumsum(x, axis=1), ((f32(4, 40) + 1j * f32(4, 40)).astype(np.complex64),)),
    "cumprod": (lambda x: jnp.cumprod(x, axis=1), (1 + f32(5, 100) / 64,)),
    "cummax": (lambda x: lax.cummax(x, axis=1), (f32(5, 100),)),
    # suffix scans (padding high): 4097 is four levels, 17 x 300 the non-minor axis
    "cumsum_reverse_rows": (lambda x: lax.cumsum(x, axis=1, reverse=True), (f32(8, 257),)),
    "cumsum_reverse_long": (lambda x: lax.cumsum(x, reverse=True), (f32(4097),)),
    "cumsum_reverse_axis0": (lambda x: lax.cumsum(x, axis=0, reverse=True), (f32(17, 300),)),
    "cumsum_reverse_s32": (lambda x: lax.cumsum(x, axis=1, reverse=True),
                           (RNG.integers(-9, 9, (6, 300)).astype(np.int32),)),
    "cumsum_reverse_bf16": (lambda x: lax.cumsum(x, axis=1, reverse=True),
                            (f32(4, 70).astype(jnp.bfloat16),)),
    "cumsum_reverse_c64": (lambda x: lax.cumsum(x, axis=1, reverse=True),
                           ((f32(4, 40) + 1j * f32(4, 40)).astype(np.complex64),)),
    "cumprod_reverse": (lambda x: lax.cumprod(x, axis=1, reverse=True), (1 + f32(5, 100) / 64,)),
    "cummax_reverse": (lambda x: lax.cummax(x, axis=1, reverse=True), (f32(5, 100),)),
    # the gradient of a cumsum is a reverse cumsum
    "cumsum_grad": (jax.grad(lambda x: jnp.sum(jnp.cumsum(x, axis=1) ** 2)), (f32(6, 300),)),
}


@pytest.mark.parametrize("name", sorted(JAX_SCANS))
def test_jax_scans(name: str) -> None:
    fn, args = JAX_SCANS[name]
    ex = run_native(jax_hlo(fn, *args), *args)
    assert "reduce-window" not in ex.stats.fallback_by_opcode
    got = ex.run([np.asarray(a) for a in args])
    np.testing.assert_allclose(_wide(got), _wide(fn(*args)), rtol=2e-2, atol=1e-2)


def _wide(a: Any) -> np.ndarray:
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def test_region_reducer_with_transcendentals() -> None:
    """cumlogsumexp: a region of exp and log1p; the kernels' exp/log are within an ulp or
    two of numpy's, so the scan agrees with the interpreter to rounding, natively."""
    fn = lambda x: lax.cumlogsumexp(x, axis=0)  # noqa: E731
    x = f32(33, 7) / np.float32(1e6)
    text = jax_hlo(fn, x)
    ex = compile_module(parse_hlo(text), cache=False, autotune=False)
    got = np.asarray(ex.run([x]))
    want = np.asarray(Evaluator(parse_hlo(text)).run([x]))
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert "reduce-window" not in ex.stats.fallback_by_opcode


SCAN = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  x = f32[3,@N] parameter(0)
  z = f32[] parameter(1)
  ROOT r = f32[3,@OUT] reduce-window(x, z), window={size=1x@N pad=0_0x@LOW_0}, to_apply=add
}"""


@pytest.mark.parametrize("n", [5, 16, 17, 256, 300])
@pytest.mark.parametrize("exclusive", [False, True])
def test_scan_from_a_non_identity_init(n: int, exclusive: bool) -> None:
    """The init enters every chunk and every level (and is output 0 of an exclusive scan)."""
    low, out = (n, n + 1) if exclusive else (n - 1, n)
    text = SCAN.replace("@OUT", str(out)).replace("@LOW", str(low)).replace("@N", str(n))
    run_native(text, f32(3, n), np.float32(0.3))


ARGMAX_SCAN = "HloModule m\n" + ARGMAX_REGION + """
ENTRY e {
  x = f32[40,3] parameter(0)
  n = s32[40,3] iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  m = s32[] constant(-1)
  ROOT r = (f32[40,3], s32[40,3]) reduce-window(x, n, lo, m), window={size=40x1 pad=39_0x0_0}, to_apply=argmax
}"""


def test_variadic_scan_running_argmax() -> None:
    """A two-value region reducer (ties keep the first index) over three levels' worth
    of chunks."""
    x = np.round(f32(40, 3)).astype(np.float32)
    x[7, 1] = np.nan
    run_native(ARGMAX_SCAN, x)


SUFFIX = SCAN.replace("pad=0_0x@LOW_0", "pad=0_0x0_@LOW")


@pytest.mark.parametrize("n", [5, 16, 17, 256, 300, 4097])
@pytest.mark.parametrize("exclusive", [False, True])
def test_suffix_scan_from_a_non_identity_init(n: int, exclusive: bool) -> None:
    """A suffix scan's chunks are aligned at the start, the last one padded with the
    init; each output folds its window forward from the init (and an exclusive scan's
    last output is the init)."""
    low, out = (n, n + 1) if exclusive else (n - 1, n)
    text = SUFFIX.replace("@OUT", str(out)).replace("@LOW", str(low)).replace("@N", str(n))
    ex = run_native(text, f32(3, n), np.float32(0.3))
    assert ex.stats.fallback == 0


def test_variadic_suffix_scan_running_argmax() -> None:
    x = np.round(f32(40, 3)).astype(np.float32)
    x[30, 2] = np.nan
    ex = run_native(ARGMAX_SCAN.replace("pad=39_0x0_0", "pad=0_39x0_0"), x)
    assert ex.stats.fallback == 0


def test_chunk_levels() -> None:
    assert chunk_levels(16) == [16]
    assert chunk_levels(4097) == [4097, 257, 17, 2]


def test_levels() -> None:
    add = parse_hlo(SCAN.replace("@OUT", "5").replace("@LOW", "4").replace("@N", "5"))
    comp = add.entry.root.attrs["to_apply"]
    assert scan_levels(16, comp) == [16]
    assert scan_levels(1024, comp) == [1024, 64, 4]
    assert scan_levels(4097, comp) == [4097, 257, 17, 2]
