"""Value types of the IR: primitive element types, layouts and shapes.

All of them are frozen, hashable and compared by value (xDSL's Attribute model).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache

import ml_dtypes
import numpy as np

#: Dimension size written `?` (unbounded dynamic), as in XLA's `Shape::kUnboundedSize`.
UNBOUNDED = -1


class PrimitiveType(enum.Enum):
    """Every XLA element type, spelled as HLO text spells it."""

    #: Identity hash in C (Enum's own hashes the name in Python: slow in hot dicts).
    __hash__ = object.__hash__

    PRED = "pred"
    S1 = "s1"
    S2 = "s2"
    S4 = "s4"
    S8 = "s8"
    S16 = "s16"
    S32 = "s32"
    S64 = "s64"
    U1 = "u1"
    U2 = "u2"
    U4 = "u4"
    U8 = "u8"
    U16 = "u16"
    U32 = "u32"
    U64 = "u64"
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"
    F64 = "f64"
    F8E5M2 = "f8e5m2"
    F8E4M3 = "f8e4m3"
    F8E4M3FN = "f8e4m3fn"
    F8E4M3B11FNUZ = "f8e4m3b11fnuz"
    F8E3M4 = "f8e3m4"
    F8E5M2FNUZ = "f8e5m2fnuz"
    F8E4M3FNUZ = "f8e4m3fnuz"
    F8E8M0FNU = "f8e8m0fnu"
    F6E2M3FN = "f6e2m3fn"
    F6E3M2FN = "f6e3m2fn"
    F4E2M1FN = "f4e2m1fn"
    C64 = "c64"
    C128 = "c128"
    TOKEN = "token"
    OPAQUE = "opaque"
    TUPLE = "tuple"
    BUFFER = "buffer"

    @property
    def bits(self) -> int:
        """Width of one element in bits (0 for tuple/token/opaque/buffer)."""
        return _BITS.get(self, 0)

    @property
    def is_array_type(self) -> bool:
        return self not in _NON_ARRAY

    @property
    def is_integral(self) -> bool:
        """Signed or unsigned integer (pred excluded, as in XLA)."""
        return self in SIGNED_INTS or self in UNSIGNED_INTS

    @property
    def is_signed_int(self) -> bool:
        return self in SIGNED_INTS

    @property
    def is_unsigned_int(self) -> bool:
        return self in UNSIGNED_INTS

    @property
    def is_float(self) -> bool:
        return self in FLOATS

    @property
    def is_complex(self) -> bool:
        return self in (PrimitiveType.C64, PrimitiveType.C128)

    @property
    def numpy_dtype(self) -> np.dtype:
        """The numpy (or ml_dtypes) dtype that holds one element of this type."""
        try:
            return _NUMPY[self]
        except KeyError:
            raise TypeError(f"{self.value} has no numpy dtype") from None

    @property
    def component_type(self) -> PrimitiveType:
        """The real type of a complex type's parts; the type itself otherwise."""
        return {PrimitiveType.C64: PrimitiveType.F32, PrimitiveType.C128: PrimitiveType.F64}.get(
            self, self
        )

    @staticmethod
    def from_numpy(dtype: np.dtype) -> PrimitiveType:
        try:
            return _FROM_NUMPY[np.dtype(dtype)]
        except KeyError:
            raise TypeError(f"no XLA element type for numpy dtype {dtype}") from None


P = PrimitiveType
SIGNED_INTS = frozenset({P.S1, P.S2, P.S4, P.S8, P.S16, P.S32, P.S64})
UNSIGNED_INTS = frozenset({P.U1, P.U2, P.U4, P.U8, P.U16, P.U32, P.U64})
FLOATS = frozenset(
    {
        P.F16, P.BF16, P.F32, P.F64, P.F8E5M2, P.F8E4M3, P.F8E4M3FN, P.F8E4M3B11FNUZ,
        P.F8E3M4, P.F8E5M2FNUZ, P.F8E4M3FNUZ, P.F8E8M0FNU, P.F6E2M3FN, P.F6E3M2FN,
        P.F4E2M1FN,
    }
)  # fmt: skip
_NON_ARRAY = frozenset({P.TUPLE, P.TOKEN, P.OPAQUE, P.BUFFER})
_BITS = {
    P.PRED: 8, P.S1: 1, P.S2: 2, P.S4: 4, P.S8: 8, P.S16: 16, P.S32: 32, P.S64: 64,
    P.U1: 1, P.U2: 2, P.U4: 4, P.U8: 8, P.U16: 16, P.U32: 32, P.U64: 64,
    P.F16: 16, P.BF16: 16, P.F32: 32, P.F64: 64, P.C64: 64, P.C128: 128,
    P.F8E5M2: 8, P.F8E4M3: 8, P.F8E4M3FN: 8, P.F8E4M3B11FNUZ: 8, P.F8E3M4: 8,
    P.F8E5M2FNUZ: 8, P.F8E4M3FNUZ: 8, P.F8E8M0FNU: 8,
    P.F6E2M3FN: 6, P.F6E3M2FN: 6, P.F4E2M1FN: 4,
}  # fmt: skip
_NUMPY: dict[PrimitiveType, np.dtype] = {
    P.PRED: np.dtype(np.bool_),
    P.S2: np.dtype(ml_dtypes.int2), P.S4: np.dtype(ml_dtypes.int4),
    P.S8: np.dtype(np.int8), P.S16: np.dtype(np.int16),
    P.S32: np.dtype(np.int32), P.S64: np.dtype(np.int64),
    P.U2: np.dtype(ml_dtypes.uint2), P.U4: np.dtype(ml_dtypes.uint4),
    P.U8: np.dtype(np.uint8), P.U16: np.dtype(np.uint16),
    P.U32: np.dtype(np.uint32), P.U64: np.dtype(np.uint64),
    P.F16: np.dtype(np.float16), P.BF16: np.dtype(ml_dtypes.bfloat16),
    P.F32: np.dtype(np.float32), P.F64: np.dtype(np.float64),
    P.C64: np.dtype(np.complex64), P.C128: np.dtype(np.complex128),
    P.F8E5M2: np.dtype(ml_dtypes.float8_e5m2),
    P.F8E4M3: np.dtype(ml_dtypes.float8_e4m3),
    P.F8E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    P.F8E4M3B11FNUZ: np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    P.F8E3M4: np.dtype(ml_dtypes.float8_e3m4),
    P.F8E5M2FNUZ: np.dtype(ml_dtypes.float8_e5m2fnuz),
    P.F8E4M3FNUZ: np.dtype(ml_dtypes.float8_e4m3fnuz),
    P.F8E8M0FNU: np.dtype(ml_dtypes.float8_e8m0fnu),
    P.F6E2M3FN: np.dtype(ml_dtypes.float6_e2m3fn),
    P.F6E3M2FN: np.dtype(ml_dtypes.float6_e3m2fn),
    P.F4E2M1FN: np.dtype(ml_dtypes.float4_e2m1fn),
}  # fmt: skip
# s1/u1 have no numpy type of their own: hold them in the 2-bit types (same values).
_NUMPY[P.S1] = _NUMPY[P.S2]
_NUMPY[P.U1] = _NUMPY[P.U2]
_FROM_NUMPY = {dt: t for t, dt in _NUMPY.items() if t not in (P.S1, P.U1)}

#: Names a primitive type is spelled with in HLO text (bare, they are reserved words).
PRIMITIVE_TYPE_NAMES: frozenset[str] = frozenset(
    t.value for t in PrimitiveType if t not in (P.TUPLE, P.BUFFER)
)


@dataclass(frozen=True, slots=True)
class Tile:
    """One tiling level of a layout, `T(8,128)`; -1 stands for `*` (combine dims)."""

    dimensions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SplitConfig:
    """`SC(dim:i,j,...)`: split a dimension at the given indices."""

    dimension: int
    split_indices: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """XLA's dense layout: minor-to-major order plus the optional suffix items."""

    minor_to_major: tuple[int, ...]
    tiles: tuple[Tile, ...] = ()
    tail_padding_alignment: int = 1
    index_type: PrimitiveType | None = None
    pointer_type: PrimitiveType | None = None
    element_size_in_bits: int = 0
    memory_space: int = 0
    split_configs: tuple[SplitConfig, ...] = ()
    physical_shape: Shape | None = None
    dynamic_shape_metadata_prefix_bytes: int = 0

    @staticmethod
    def default_for_rank(rank: int) -> Layout:
        return _default_layout(rank)

    @property
    def is_default_suffix(self) -> bool:
        """True when only the minor-to-major list is set."""
        return self == Layout(self.minor_to_major)


def _default_layout(rank: int) -> Layout:
    return _DEFAULT_LAYOUTS[rank] if rank < len(_DEFAULT_LAYOUTS) else Layout(
        tuple(range(rank - 1, -1, -1))
    )


_DEFAULT_LAYOUTS = [Layout(tuple(range(r - 1, -1, -1))) for r in range(12)]


@dataclass(frozen=True, slots=True)
class Shape:
    """An array shape (element type, dims, layout) or a tuple of shapes.

    `dynamic[i]` marks a bounded dynamic dimension `<=N`; an unbounded one `?` has
    size UNBOUNDED. Tuples have element_type TUPLE and their parts in `tuple_shapes`;
    `b(...)` buffers have element_type BUFFER and the buffer's shape as the only part.
    """

    element_type: PrimitiveType
    dimensions: tuple[int, ...] = ()
    layout: Layout | None = None
    dynamic: tuple[bool, ...] = ()
    tuple_shapes: tuple[Shape, ...] = ()

    # -- construction -----------------------------------------------------------------
    @staticmethod
    def array(
        element_type: PrimitiveType,
        dimensions: tuple[int, ...] | list[int],
        layout: Layout | None | bool = True,
        dynamic: tuple[bool, ...] = (),
    ) -> Shape:
        """An array shape; `layout=True` (default) gives the default descending layout."""
        dims = tuple(dimensions)
        if layout is True:
            layout = _default_layout(len(dims)) if element_type.is_array_type else None
        elif layout is False:
            layout = None
        if dynamic and not any(dynamic):
            dynamic = ()
        return Shape(element_type, dims, layout, tuple(dynamic))

    @staticmethod
    def tuple_of(shapes: tuple[Shape, ...] | list[Shape]) -> Shape:
        return Shape(PrimitiveType.TUPLE, tuple_shapes=tuple(shapes))

    @staticmethod
    def scalar(element_type: PrimitiveType) -> Shape:
        return Shape.array(element_type, ())

    @staticmethod
    def token() -> Shape:
        return Shape(PrimitiveType.TOKEN)

    # -- queries ----------------------------------------------------------------------
    @property
    def is_tuple(self) -> bool:
        return self.element_type is PrimitiveType.TUPLE

    @property
    def is_array(self) -> bool:
        return self.element_type.is_array_type

    @property
    def is_token(self) -> bool:
        return self.element_type is PrimitiveType.TOKEN

    @property
    def rank(self) -> int:
        return len(self.dimensions)

    @property
    def is_row_major(self) -> bool:
        """Whether the elements lie in row-major order (no layout, or the descending one)."""
        return self.layout is None or \
            self.layout.minor_to_major == tuple(range(self.rank - 1, -1, -1))

    @property
    def is_scalar(self) -> bool:
        return self.is_array and not self.dimensions

    @property
    def is_dynamic(self) -> bool:
        return any(self.dynamic) or UNBOUNDED in self.dimensions or any(
            s.is_dynamic for s in self.tuple_shapes
        )

    def is_dynamic_dimension(self, i: int) -> bool:
        return self.dimensions[i] == UNBOUNDED or (bool(self.dynamic) and self.dynamic[i])

    @property
    def element_count(self) -> int:
        n = 1
        for d in self.dimensions:
            n *= d
        return n

    @property
    def byte_size(self) -> int:
        """Bytes of the array data (tuples: sum of leaves; tokens: 0)."""
        if self.is_tuple:
            return sum(s.byte_size for s in self.tuple_shapes)
        if not self.is_array:
            return 0
        bits = self.element_type.bits
        return (self.element_count * bits + 7) // 8

    def leaves(self) -> list[Shape]:
        """The non-tuple subshapes in order (a tuple's flattening)."""
        if not self.is_tuple:
            return [self]
        out: list[Shape] = []
        for s in self.tuple_shapes:
            out.extend(s.leaves())
        return out

    def leaf_indices(self) -> list[tuple[int, ...]]:
        """Shape indices of the leaves, in the order of leaves()."""
        if not self.is_tuple:
            return [()]
        return [(i, *rest) for i, s in enumerate(self.tuple_shapes) for rest in s.leaf_indices()]

    def subshape(self, index: tuple[int, ...] | list[int]) -> Shape:
        s = self
        for i in index:
            if not s.is_tuple or not 0 <= i < len(s.tuple_shapes):
                raise IndexError(f"shape index {tuple(index)} is not valid in {self}")
            s = s.tuple_shapes[i]
        return s

    # -- derivation --------------------------------------------------------------------
    def with_element_type(self, element_type: PrimitiveType) -> Shape:
        return Shape(element_type, self.dimensions, self.layout, self.dynamic, self.tuple_shapes)

    def with_layout(self, layout: Layout | None) -> Shape:
        return Shape(self.element_type, self.dimensions, layout, self.dynamic, self.tuple_shapes)

    def with_default_layouts(self) -> Shape:
        """Every array leaf with the default layout (used where layouts are irrelevant)."""
        if self.is_tuple:
            return Shape.tuple_of([s.with_default_layouts() for s in self.tuple_shapes])
        if not self.is_array:
            return self
        return self.with_layout(_default_layout(self.rank))

    def without_layouts(self) -> Shape:
        if self.is_tuple:
            return Shape.tuple_of([s.without_layouts() for s in self.tuple_shapes])
        return self.with_layout(None)

    def compatible(self, other: Shape) -> bool:
        """Same element types and dimensions everywhere, layouts and `<=` bounds ignored and
        `?` matching any size (XLA's ShapeUtil::Compatible)."""
        if self.element_type is not other.element_type:
            return False
        if self.is_tuple:
            return len(self.tuple_shapes) == len(other.tuple_shapes) and all(
                a.compatible(b) for a, b in zip(self.tuple_shapes, other.tuple_shapes, strict=True)
            )
        if self.element_type is PrimitiveType.BUFFER:
            return self.tuple_shapes[0].compatible(other.tuple_shapes[0])
        if self.dimensions == other.dimensions:
            return True
        return len(self.dimensions) == len(other.dimensions) and all(
            a == b or a == UNBOUNDED or b == UNBOUNDED
            for a, b in zip(self.dimensions, other.dimensions, strict=True)
        )

    def same_dimensions(self, other: Shape) -> bool:
        return self.dimensions == other.dimensions

    def __str__(self) -> str:
        return shape_to_text(self)


# -- shapes and layouts as HLO text (`f32[2,3]{1,0}`, `(s32[], f32[<=4])`) -----------------
@lru_cache(maxsize=1 << 16)
def shape_to_text(shape: Shape, print_layout: bool = True) -> str:
    """XLA's ShapeUtil::HumanStringWithLayout (or HumanString without layouts); memoized
    (shapes are values, and a module has few distinct ones)."""
    et = shape.element_type
    if et is PrimitiveType.TUPLE:
        parts = []
        for i, s in enumerate(shape.tuple_shapes):
            text = shape_to_text(s, print_layout)
            parts.append(f"/*index={i}*/{text}" if i and i % 5 == 0 else text)
        return "(" + ", ".join(parts) + ")"
    if et is PrimitiveType.BUFFER:
        return f"b({shape_to_text(shape.tuple_shapes[0], print_layout)})"
    dims = ",".join(_dim_text(shape, i) for i in range(len(shape.dimensions)))
    text = f"{et.value}[{dims}]"
    if print_layout and shape.layout is not None and et.is_array_type:
        layout = layout_to_text(shape.layout)
        if shape.dimensions or layout != "{}":
            text += layout
    return text


def _dim_text(shape: Shape, i: int) -> str:
    d = shape.dimensions[i]
    if d == UNBOUNDED:
        return "?"
    if shape.dynamic and shape.dynamic[i]:
        return f"<={d}"
    return str(d)


def layout_to_text(layout: Layout) -> str:
    """`{1,0:T(8,128)(2,1)E(16)S(1)}`; the suffix items in XLA's fixed order."""
    m2m = ",".join(str(d) for d in layout.minor_to_major)
    suffix = ""
    if layout.tiles:
        suffix += "T" + "".join(
            "(" + ",".join("*" if d == -1 else str(d) for d in t.dimensions) + ")"
            for t in layout.tiles
        )
    if layout.tail_padding_alignment != 1:
        suffix += f"L({layout.tail_padding_alignment})"
    if layout.index_type is not None:
        suffix += f"#({layout.index_type.value})"
    if layout.pointer_type is not None:
        suffix += f"*({layout.pointer_type.value})"
    if layout.element_size_in_bits:
        suffix += f"E({layout.element_size_in_bits})"
    if layout.memory_space:
        suffix += f"S({layout.memory_space})"
    if layout.split_configs:
        suffix += "SC" + "".join(
            f"({sc.dimension}:" + ",".join(map(str, sc.split_indices)) + ")"
            for sc in layout.split_configs
        )
    if layout.physical_shape is not None:
        suffix += f"P({shape_to_text(layout.physical_shape)})"
    if layout.dynamic_shape_metadata_prefix_bytes:
        suffix += f"M({layout.dynamic_shape_metadata_prefix_bytes})"
    return "{" + m2m + (":" + suffix if suffix else "") + "}"
