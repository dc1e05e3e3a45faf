"""TPU tiled layouts (XLA's `docs/tiled_layout.md`): arrays padded to whole tiles.

The two minor dimensions are tiled: `T(8,128)` for 32-bit types, `(8,128)(2,1)` for
16-bit (pairs of rows packed into 32-bit words), `(8,128)(4,1)` for 8-bit; when the
second-minor dimension is 1-2 or 3-4, XLA uses the compact 2x128 / 4x128 tiles. A rank-1
array has a linear tile: T(256) up to 256 elements, T(1024) (one vreg) above (the tiles
XLA's TPU dumps show; the split point is a modelling choice). A scalar lives in SMEM (4
bytes, unpadded). Padding contents are undefined; bytes moved and VMEM footprints are
computed from the padded shape.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlotool.ir.types import PrimitiveType, Shape

LANES = 128


@dataclass(frozen=True, slots=True)
class TiledLayout:
    """The tiling of one array: its (sublane, lane) tile and packing of narrow types."""

    dims: tuple[int, ...]
    bits: int
    #: (sublanes, lanes) for rank >= 2; (elements,) for rank 1.
    tile: tuple[int, ...]
    #: Rows packed into one 32-bit word (1, 2 for 16-bit, 4 for 8-bit).
    packing: int
    #: The logical dimensions and minor-to-major order, for printing (default: `dims`
    #: in row-major order; `dims` are always in memory order).
    logical_dims: tuple[int, ...] | None = None
    minor_to_major: tuple[int, ...] | None = None

    @property
    def padded_dims(self) -> tuple[int, ...]:
        """The dimensions after padding the two minor ones to whole tiles (a scalar
        lives in SMEM, unpadded)."""
        if not self.dims:
            return ()
        if len(self.tile) == 1:
            return (_round_up(self.dims[0], self.tile[0]),)
        rows, cols = self._minor2()
        lead = self.dims[:-2] if len(self.dims) >= 2 else ()
        return (*lead, _round_up(rows, self.tile[0]), _round_up(cols, self.tile[1]))

    @property
    def logical_bytes(self) -> int:
        return math.ceil(math.prod(self.dims) * self.bits / 8)

    @property
    def padded_bytes(self) -> int:
        return math.prod(self.padded_dims) * max(self.bits, 8) // 8

    @property
    def vregs(self) -> int:
        """8x128 32-bit vector registers to hold the array once widened to 32 bits
        (the VPU computes in 32-bit; narrow types are upcast)."""
        if len(self.tile) == 1:
            return math.ceil(self.dims[0] / (8 * LANES))
        rows, cols = self._minor2()
        lead = math.prod(self.dims[:-2]) if len(self.dims) >= 2 else 1
        return lead * math.ceil(rows / 8) * math.ceil(cols / LANES)

    @property
    def efficiency(self) -> float:
        """Logical / padded bytes (1.0 when nothing is padding)."""
        return self.logical_bytes / self.padded_bytes if self.padded_bytes else 1.0

    def text(self, element: str) -> str:
        """XLA's spelling, e.g. `f32[8,10]{1,0:T(8,128)}`."""
        if not self.dims:
            return f"{element}[]{{:SMEM}}"
        dims = self.logical_dims if self.logical_dims is not None else self.dims
        m2m = self.minor_to_major or tuple(reversed(range(len(self.dims))))
        minor = ",".join(map(str, m2m))
        tiles = f"T({','.join(map(str, self.tile))})"
        if self.packing > 1:
            tiles += f"({self.packing},1)"
        return f"{element}[{','.join(map(str, dims))}]{{{minor}:{tiles}}}"

    def _minor2(self) -> tuple[int, int]:
        if not self.dims:
            return 1, 1
        if len(self.dims) == 1:
            return 1, self.dims[0]
        return self.dims[-2], self.dims[-1]


def _round_up(n: int, m: int) -> int:
    return max(m, -(-n // m) * m)


def tiled(dims: tuple[int, ...], element_type: PrimitiveType,
          logical: Shape | None = None) -> TiledLayout:
    """The TPU layout XLA would give an array of these (memory-order) dims and element
    type; `logical` is the HLO shape they come from, for printing."""
    bits = 8 if element_type is PrimitiveType.PRED else element_type.bits
    packing = max(1, 32 // bits) if bits < 32 else 1
    m2m = logical.layout.minor_to_major if logical is not None and logical.layout else None
    names = (tuple(logical.dimensions) if logical is not None else None,
             tuple(m2m) if m2m and len(m2m) == len(dims) else None)
    if len(dims) == 1:
        return TiledLayout(tuple(dims), bits, (256 if dims[0] <= 256 else 1024,), packing,
                           *names)
    second_minor = dims[-2] if len(dims) >= 2 else 1
    if second_minor <= 2:
        sub = 2
    elif second_minor <= 4:
        sub = 4
    else:
        sub = 8
    return TiledLayout(tuple(dims), bits, (sub, LANES), packing, *names)


def of_shape(shape: Shape) -> list[TiledLayout]:
    """Layouts of every array leaf of a shape, tiled in physical (major-to-minor) order."""
    return [tiled(physical_dims(leaf), leaf.element_type, leaf) for leaf in shape.leaves()
            if leaf.is_array]


def physical_dims(shape: Shape) -> tuple[int, ...]:
    """The dimensions in memory order (major first), from the minor-to-major layout."""
    m2m = shape.layout.minor_to_major if shape.layout else ()
    if len(m2m) != shape.rank:
        return tuple(shape.dimensions)
    return tuple(shape.dimensions[d] for d in reversed(m2m))


def padded_bytes(shape: Shape) -> int:
    return sum(t.padded_bytes for t in of_shape(shape))


def logical_bytes(shape: Shape) -> int:
    return sum(t.logical_bytes for t in of_shape(shape))


def vregs(shape: Shape) -> int:
    return sum(t.vregs for t in of_shape(shape))
