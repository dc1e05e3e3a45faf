"""rng-bit-generator against golden vectors recorded from XLA:CPU (jax 0.10.2,
`jax.jit(lax.rng_bit_generator)` and StableHLO for the 3-element Philox state), and the
(implementation-defined) rng op."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.interpreter.kernels.rng import philox4x32, threefry2x32

U64_MAX = 2**64 - 1

GOLDEN = [
    ("rng_philox", "u32", (2, 3), [1, 2], [1, 4],
     [[2100602697, 2847456232, 2074354647], [800269529, 1828267006, 3135207875]]),
    ("rng_philox", "u64", (5,), [1, 2], [1, 5],
     [12229731395331991369, 3437131457114678231, 13465615291114923006, 9328616520744100567,
      10786996542579945571]),
    ("rng_philox", "u8", (3, 5), [7, U64_MAX - 1], [7, 2],
     [[153, 38, 15, 217, 49], [15, 3, 137, 206, 76], [111, 20, 232, 122, 70]]),
    ("rng_philox", "u16", (), [0, 0], [0, 1], 59605),
    ("rng_philox", "u32", (2, 3), [5, U64_MAX - 1, 7], [5, 0, 8],
     [[1600567900, 3578414771, 1611649039], [1102751893, 408654879, 156914071]]),
    ("rng_three_fry", "u32", (2, 3), [1, 2], [1, 5],
     [[43444564, 3979645651, 1672743891], [2150618427, 3745730563, 4240503393]]),
    ("rng_three_fry", "u32", (3, 5), [12345, U64_MAX - 2], [12345, 6],
     [[2809397525, 1740051788, 4209766492, 297564168, 3674557997],
      [4125940788, 1445106557, 1241122470, 492336446, 3675870339],
      [261339208, 2998936304, 1722127623, 647710837, 2663945158]]),
    ("rng_three_fry", "u64", (2, 3), [1, 2], [1, 8],
     [[9236835810183407956, 16087790271692313299, 18212823393184779219],
      [2658481902456610144, 16424712389986402477, 16122702161355102743]]),
    ("rng_three_fry", "u16", (5,), [3, 4], [3, 7], [58690, 63674, 48227, 21371, 22265]),
    ("rng_three_fry", "u32", (), [1, 2], [1, 3], 43444564),
    ("rng_default", "u32", (7,), [1, 2], [1, 4],
     [2100602697, 2847456232, 2074354647, 800269529, 1828267006, 3135207875, 3972719319]),
]


def rbg(algorithm: str, ty: str, shape: tuple[int, ...], state_len: int) -> str:
    dims = ",".join(map(str, shape))
    return f"""HloModule m
ENTRY e {{
  s = u64[{state_len}] parameter(0)
  ROOT r = (u64[{state_len}], {ty}[{dims}]) rng-bit-generator(s), algorithm={algorithm}
}}"""


@pytest.mark.parametrize(("algorithm", "ty", "shape", "state", "new_state", "bits"), GOLDEN)
def test_rng_bit_generator_matches_xla(algorithm: str, ty: str, shape: tuple[int, ...],
                                       state: list[int], new_state: list[int],
                                       bits: object) -> None:
    module = parse_hlo(rbg(algorithm, ty, shape, len(state)))
    out_state, out_bits = Evaluator(module).run([np.array(state, np.uint64)])
    assert out_state.dtype == np.uint64 and out_bits.dtype == np.dtype(f"uint{ty[1:]}")
    np.testing.assert_array_equal(out_state, new_state)
    np.testing.assert_array_equal(out_bits, np.array(bits, dtype=out_bits.dtype))


def test_signed_output_reinterprets_the_same_bits() -> None:
    module = parse_hlo(rbg("rng_three_fry", "s32", (2, 2), 2))
    _, bits = Evaluator(module).run([np.array([1, 2], np.uint64)])
    expected = np.array([[43444564, 3979645651], [2150618427, 3745730563]], np.uint32)
    np.testing.assert_array_equal(bits, expected.view(np.int32))


def test_block_functions_on_known_answers() -> None:
    """Random123's known-answer vectors (threefry2x32_20, philox4x32_10) for zero inputs."""
    zero = np.zeros(1, np.uint32)
    y0, y1 = threefry2x32(zero, zero, np.uint32(0), np.uint32(0))
    assert (int(y0[0]), int(y1[0])) == (0x6B200159, 0x99BA4EFE)
    words = philox4x32((zero, zero, zero, zero), np.uint32(0), np.uint32(0))
    assert [int(w[0]) for w in words] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def rng(distribution: str, ty: str, lo: str, hi: str) -> str:
    return f"""HloModule m
ENTRY e {{
  a = {ty}[] constant({lo})
  b = {ty}[] constant({hi})
  ROOT r = {ty}[1000] rng(a, b), distribution={distribution}
}}"""


def test_rng_uniform_is_in_range_and_reproducible() -> None:
    module = parse_hlo(rng("rng_uniform", "f32", "2", "3"))
    first = Evaluator(module).run([])
    assert first.dtype == np.float32 and ((first >= 2) & (first < 3)).all()
    np.testing.assert_array_equal(first, Evaluator(module).run([]))
    ints = Evaluator(parse_hlo(rng("rng_uniform", "s32", "-3", "4"))).run([])
    assert ints.dtype == np.int32 and set(ints.tolist()) == set(range(-3, 4))


def test_rng_normal_moments() -> None:
    out = Evaluator(parse_hlo(rng("rng_normal", "f32", "10", "2"))).run([])
    assert abs(out.mean() - 10) < 0.3 and abs(out.std() - 2) < 0.3
