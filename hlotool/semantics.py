"""Which numerics a run follows: XLA:CPU's (`xla-cpu`, the default of `hlotool run`) or the
StableHLO specification's (`stablehlo`, the default of `hlotool test`).

They differ where XLA:CPU departs from the spec: XLA:CPU reads denormal f32/f64 inputs as
zero and flushes denormal results (its FTZ/DAZ setting), the spec keeps them; and
`reduce_precision` to a format without mantissa bits (e5m0) keeps a NaN on XLA:CPU but
gives infinity in the spec (such a format has no NaN); a sort without `is_stable` leaves
ties in std::sort's order on XLA:CPU, in their original order here under the spec (which
leaves it open). The interpreter follows the
current setting; the CPU target always computes as XLA:CPU does.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class Semantics(enum.Enum):
    XLA_CPU = "xla-cpu"
    STABLEHLO = "stablehlo"


_CURRENT: ContextVar[Semantics] = ContextVar("hlotool_semantics", default=Semantics.XLA_CPU)
CHOICES = tuple(s.value for s in Semantics)


def current() -> Semantics:
    return _CURRENT.get()


def flushes_denormals() -> bool:
    """Whether denormal f32/f64 values are read and written as zero (XLA:CPU)."""
    return _CURRENT.get() is Semantics.XLA_CPU


@contextmanager
def using(semantics: Semantics | str) -> Iterator[None]:
    """Run the block under `semantics`."""
    token = _CURRENT.set(Semantics(semantics))
    try:
        yield
    finally:
        _CURRENT.reset(token)
