"""Seeded random HLO programs of data movement and identity arithmetic, for checking
that simplification passes keep results bit-exact on shapes nobody wrote by hand."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

Dims = list[int]

_REDUCER = """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"""


def _shape(dims: Dims) -> str:
    return "f32[" + ",".join(map(str, dims)) + "]"


def _ints(xs: list[int]) -> str:
    return "{" + ",".join(map(str, xs)) + "}"


@dataclass
class _Program:
    """A program being generated: instruction lines and the array values so far."""

    rng: random.Random
    lines: list[str] = field(default_factory=list)
    values: list[tuple[str, Dims]] = field(default_factory=list)
    counter: int = 0

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, dims: Dims, text: str) -> None:
        name = self.fresh()
        self.lines.append(f"  {name} = {_shape(dims)} {text}")
        self.values.append((name, dims))

    def constant(self, value: float | int, ty: str = "f32") -> str:
        name = self.fresh("c")
        self.lines.append(f"  {name} = {ty}[] constant({value})")
        return name

    def splat(self, value: float, dims: Dims) -> str:
        c = self.constant(value)
        name = self.fresh("b")
        self.lines.append(f"  {name} = {_shape(dims)} broadcast({c}), dimensions={{}}")
        return name


def _reshape(p: _Program, x: str, d: Dims) -> None:
    rest, dims = math.prod(d), []
    while rest > 1 and len(dims) < 3:
        factor = p.rng.choice([f for f in range(1, rest + 1) if rest % f == 0])
        dims.append(factor)
        rest //= factor
    dims += [rest] if rest > 1 else []
    if p.rng.random() < 0.5 or not dims:
        dims.insert(p.rng.randint(0, len(dims)), 1)
    p.emit(dims, f"reshape({x})")


def _transpose(p: _Program, x: str, d: Dims) -> None:
    perm = list(range(len(d)))
    p.rng.shuffle(perm)
    p.emit([d[i] for i in perm], f"transpose({x}), dimensions={_ints(perm)}")


def _broadcast(p: _Program, x: str, d: Dims) -> None:
    pos = p.rng.randint(0, len(d))
    mapped = [i if i < pos else i + 1 for i in range(len(d))]
    dims = d[:pos] + [p.rng.choice([1, 2])] + d[pos:]
    p.emit(dims, f"broadcast({x}), dimensions={_ints(mapped)}")


def _slice(p: _Program, x: str, d: Dims) -> None:
    ranges, dims = [], []
    for size in d:
        start = p.rng.randint(0, size - 1)
        limit = p.rng.randint(start + 1, size)
        stride = p.rng.choice([1, 1, 2])
        ranges.append(f"[{start}:{limit}:{stride}]")
        dims.append((limit - start + stride - 1) // stride)
    p.emit(dims, f"slice({x}), slice={{{', '.join(ranges)}}}")


def _reverse(p: _Program, x: str, d: Dims) -> None:
    axes = sorted(p.rng.sample(range(len(d)), p.rng.randint(1, len(d))))
    p.emit(d, f"reverse({x}), dimensions={_ints(axes)}")


def _concatenate(p: _Program, x: str, d: Dims) -> None:
    axis = p.rng.randrange(len(d))
    dims = list(d)
    dims[axis] *= 2
    p.emit(dims, f"concatenate({x}, {x}), dimensions={{{axis}}}")


def _pad(p: _Program, x: str, d: Dims) -> None:
    zero = p.constant(0)
    low = [p.rng.choice([0, 0, 1]) for _ in d]
    padding = "x".join(f"{lo}_0" for lo in low)
    p.emit([n + lo for n, lo in zip(d, low, strict=True)], f"pad({x}, {zero}), padding={padding}")


def _unary(p: _Program, x: str, d: Dims) -> None:
    p.emit(d, f"{p.rng.choice(['negate', 'copy', 'abs'])}({x})")


def _identity_arith(p: _Program, x: str, d: Dims) -> None:
    opcode, value = p.rng.choice([("add", 0), ("multiply", 1), ("subtract", 0), ("add", 2.5)])
    other = p.splat(value, d)
    args = [x, other] if opcode == "subtract" or p.rng.random() < 0.5 else [other, x]
    p.emit(d, f"{opcode}({args[0]}, {args[1]})")


def _reduce(p: _Program, x: str, d: Dims) -> None:
    axis = next((i for i, n in enumerate(d) if n == 1), p.rng.randrange(len(d)))
    dims = [n for i, n in enumerate(d) if i != axis]
    if dims:
        zero = p.constant(0)
        p.emit(dims, f"reduce({x}, {zero}), dimensions={{{axis}}}, to_apply=add")


def _dynamic_slice(p: _Program, x: str, d: Dims) -> None:
    starts = [p.constant(p.rng.randint(-2, 4), "s32") for _ in d]
    sizes = [p.rng.randint(1, n) for n in d]
    p.emit(sizes, f"dynamic-slice({x}, {', '.join(starts)}), dynamic_slice_sizes={_ints(sizes)}")


_OPS: list[Callable[[_Program, str, Dims], None]] = [
    _reshape, _transpose, _broadcast, _slice, _reverse, _concatenate, _pad, _unary,
    _identity_arith, _reduce, _dynamic_slice,
]


def random_program(seed: int) -> str:
    """An HLO module with one f32 parameter, a few random instructions and a tuple of
    the last three values as its result."""
    rng = random.Random(seed)
    p = _Program(rng)
    dims = [rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(1, 3))]
    p.lines.append(f"  v0 = {_shape(dims)} parameter(0)")
    p.values.append(("v0", dims))
    for _ in range(rng.randint(3, 9)):
        name, d = rng.choice([v for v in p.values if v[1]])
        rng.choice(_OPS)(p, name, d)
    outs = p.values[-3:]
    shapes = ", ".join(_shape(d) for _, d in outs)
    p.lines.append(f"  ROOT out = ({shapes}) tuple({', '.join(n for n, _ in outs)})")
    return f"HloModule random_{seed}\n{_REDUCER}ENTRY e {{\n" + "\n".join(p.lines) + "\n}\n"
