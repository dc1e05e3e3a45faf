"""Random numbers: `rng-bit-generator` (bit-exact with XLA:CPU) and `rng`.

`rng-bit-generator` ports XLA's expander (`rng_bit_generator_expander.cc` plus the
Threefry-2x32 and Philox-4x32 generators of `xla/hlo/builder/lib/prng.cc`):

* the state is a u64 vector; element 0 is the key;
* THREE_FRY: element 1 is a 64-bit counter; 32-bit outputs split the shape in two halves
  (one Threefry output word each), 64-bit outputs use both words of one block;
* PHILOX (also `rng_default` on CPU): elements 1..2 (3-element state) or 1 then 0
  (2-element state) form a 128-bit counter; outputs take the four words of each block in
  turn;
* outputs narrower than 32 bits keep the low bits of a 32-bit output.

`rng` is implementation-defined in XLA; here it draws from a numpy Generator seeded with
0 per Evaluator, so runs are reproducible but not bit-identical to XLA.
"""

from __future__ import annotations

import weakref

import numpy as np

from hlotool.interpreter.core import Evaluator, Unsupported, Value, impl
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape

_U32 = np.uint32
_U64 = np.uint64
_MASK32 = _U64(0xFFFFFFFF)
_MASK64 = (1 << 64) - 1
_THREEFRY_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
_PHILOX_W = (_U32(0x9E3779B9), _U32(0xBB67AE85))
_PHILOX_M = (_U64(0xD2511F53), _U64(0xCD9E8D57))


# -- the block functions -----------------------------------------------------------------


def _split_u64(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) 32-bit words of u64 values."""
    return (v & _MASK32).astype(_U32), (v >> _U64(32)).astype(_U32)


def _join_u32(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return low.astype(_U64) | (high.astype(_U64) << _U64(32))


def _key_words(key: int) -> tuple[np.uint32, np.uint32]:
    """(low, high) 32-bit words of a u64 key."""
    return _U32(key & 0xFFFFFFFF), _U32(key >> 32)


def _rotl32(v: np.ndarray, distance: int) -> np.ndarray:
    return (v << _U32(distance)) | (v >> _U32(32 - distance))


def threefry2x32(
    x0: np.ndarray, x1: np.ndarray, key0: np.uint32, key1: np.uint32
) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 with 20 rounds, as XLA's `ThreeFry2x32` (u32 arrays in and out)."""
    ks = (key0, key1, _U32(0x1BD11BDA) ^ key0 ^ key1)
    with np.errstate(over="ignore"):
        x0 = x0 + ks[0]
        x1 = x1 + ks[1]
        for block in range(5):
            rotations = _THREEFRY_ROTATIONS[:4] if block % 2 == 0 else _THREEFRY_ROTATIONS[4:]
            for r in rotations:
                x0 = x0 + x1
                x1 = _rotl32(x1, r) ^ x0
            x0 = x0 + ks[(block + 1) % 3]
            x1 = x1 + ks[(block + 2) % 3] + _U32(block + 1)
    return x0, x1


def philox4x32(
    words: tuple[np.ndarray, ...], key0: np.uint32, key1: np.uint32
) -> tuple[np.ndarray, ...]:
    """Philox-4x32 with 10 rounds, as XLA's `Philox4x32` (u32 arrays in and out)."""
    x = words
    with np.errstate(over="ignore"):
        for _ in range(10):
            hi0, lo0 = _split_u64(x[0].astype(_U64) * _PHILOX_M[0])[::-1]
            hi1, lo1 = _split_u64(x[2].astype(_U64) * _PHILOX_M[1])[::-1]
            x = (hi1 ^ x[1] ^ key0, lo1, hi0 ^ x[3] ^ key1, lo0)
            key0 = key0 + _PHILOX_W[0]
            key1 = key1 + _PHILOX_W[1]
    return x


# -- XLA's bit generators ----------------------------------------------------------------


def _split_shape_into_halves(dims: tuple[int, ...]) -> int:
    """XLA's SplitShapeIntoHalves: the dimension split in two (first even, else largest)."""
    for i, d in enumerate(dims):
        if d % 2 == 0:
            return i
    return max(range(len(dims)), key=lambda i: (dims[i], -i))


def threefry_bits(
    key: int, counter: int, dims: tuple[int, ...], bits: int
) -> tuple[np.ndarray, int]:
    """Random u32 (bits <= 32) or u64 words of shape `dims` and the advanced counter."""
    k0, k1 = _key_words(key)
    if bits == 64:
        n = int(np.prod(dims, dtype=np.int64))
        y0, y1 = threefry2x32(*_split_u64(_counters(counter, n)), k0, k1)
        return _join_u32(y0, y1).reshape(dims), counter + n
    if not dims:
        y0, _ = threefry2x32(*_split_u64(_counters(counter, 1)), k0, k1)
        return y0.reshape(()), counter + 1
    split = _split_shape_into_halves(dims)
    half = list(dims)
    half[split] = (dims[split] + 1) // 2
    n = int(np.prod(half, dtype=np.int64))
    y0, y1 = threefry2x32(*_split_u64(_counters(counter, n)), k0, k1)
    pair = np.stack([y0.reshape(half), y1.reshape(half)], axis=split + 1)
    full = list(dims)
    full[split] = half[split] * 2
    out = pair.reshape(full)
    return out[tuple(slice(0, d) for d in dims)], counter + n


def philox_bits(
    key: int, counter: tuple[int, int], dims: tuple[int, ...], bits: int
) -> tuple[np.ndarray, tuple[int, int]]:
    """Random u32 (bits <= 32) or u64 words of shape `dims` and the advanced 128-bit counter."""
    n = int(np.prod(dims, dtype=np.int64))
    words_needed = 2 * n if bits == 64 else n
    blocks = -(-words_needed // 4)
    low = _counters(counter[0], blocks)
    high = np.full(blocks, counter[1], dtype=_U64) + (low < _U64(counter[0])).astype(_U64)
    w = philox4x32((*_split_u64(low), *_split_u64(high)), *_key_words(key))
    if bits == 64:
        pieces = [_join_u32(w[0], w[1]), _join_u32(w[2], w[3])]
    else:
        pieces = list(w)
    out = np.stack(pieces, axis=1).reshape(-1)[:n].reshape(dims)
    new_low = (counter[0] + blocks) & _MASK64
    new_high = (counter[1] + (new_low < counter[0])) & _MASK64
    return out, (new_low, new_high)


def _counters(start: int, n: int) -> np.ndarray:
    """start + [0, n) as wrapping u64."""
    return np.arange(n, dtype=_U64) + _U64(start)


def _bits_to_type(words: np.ndarray, ty: PrimitiveType) -> np.ndarray:
    """Keep the low `ty.bits` bits of u32/u64 words and reinterpret them as `ty`."""
    dtype = ty.numpy_dtype
    if ty.bits >= 8:
        return words.astype(np.dtype(f"uint{ty.bits}")).view(dtype)
    if not ty.is_integral:
        raise Unsupported(f"rng-bit-generator cannot produce {ty.value}")
    value = (words.astype(_U64) & _U64((1 << ty.bits) - 1)).astype(np.int64)
    if ty.is_signed_int:
        value = np.where(value >= 1 << (ty.bits - 1), value - (1 << ty.bits), value)
    return value.astype(dtype)


def rng_bit_generator(
    algorithm: str, state: np.ndarray, out: PrimitiveType, dims: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """(new state, bits) of XLA:CPU's rng-bit-generator; `rng_default` is Philox on CPU."""
    if state.dtype.itemsize != 8 or state.ndim != 1:
        raise Unsupported(f"rng-bit-generator needs a u64 vector state, not {state.dtype}")
    s = [int(v) for v in state.view(_U64)]
    width = 64 if out.bits == 64 else 32
    if out.bits > 64:
        raise Unsupported(f"rng-bit-generator cannot produce {out.value}")
    if algorithm == "rng_three_fry":
        if len(s) != 2:
            raise Unsupported("THREE_FRY needs a 2-element state")
        words, counter = threefry_bits(s[0], s[1], dims, width)
        new_state = [s[0], counter & _MASK64]
    else:
        if len(s) not in (2, 3):
            raise Unsupported("PHILOX needs a 2- or 3-element state")
        start = (s[1], s[2]) if len(s) == 3 else (s[1], s[0])
        words, (low, high) = philox_bits(s[0], start, dims, width)
        new_state = [s[0], low, high] if len(s) == 3 else [s[0], low]
    return np.array(new_state, dtype=_U64).view(state.dtype), _bits_to_type(words, out)


@impl(Opcode.RNG_BIT_GENERATOR)
def _rng_bit_generator(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    data: Shape = ins.shape.tuple_shapes[1]
    algorithm = ins.attrs.get("algorithm", "rng_default")
    return rng_bit_generator(algorithm, ops[0], data.element_type, data.dimensions)


# -- rng ---------------------------------------------------------------------------------

_GENERATORS: weakref.WeakKeyDictionary[Evaluator, np.random.Generator] = weakref.WeakKeyDictionary()


def _generator(ev: Evaluator) -> np.random.Generator:
    gen = _GENERATORS.get(ev)
    if gen is None:
        gen = _GENERATORS[ev] = np.random.default_rng(0)
    return gen


@impl(Opcode.RNG)
def _rng(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """uniform [a, b) or normal(mean=a, sigma=b); not bit-exact with XLA (it is impl-defined)."""
    ty = ins.shape.element_type
    dims = ins.shape.dimensions
    a, b = (np.asarray(o) for o in ops[:2])
    gen = _generator(ev)
    if ins.attrs["distribution"] == "rng_normal":
        sample = gen.standard_normal(dims) * b.astype(np.float64) + a.astype(np.float64)
    elif ty.is_integral:
        sample = gen.integers(a.astype(np.int64), b.astype(np.int64), size=dims)
    else:
        lo, hi = a.astype(np.float64), b.astype(np.float64)
        sample = lo + (hi - lo) * gen.random(dims)
    return np.asarray(sample).astype(ty.numpy_dtype)
