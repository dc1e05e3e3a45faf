"""ShapeProto and LiteralProto as IR shapes and numpy arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.literal import Literal
from hlotool.ir.types import Layout, PrimitiveType, Shape, SplitConfig, Tile

#: ShapeProto element type names that HLO text spells differently.
_TYPE_NAMES = {"OPAQUE_TYPE": PrimitiveType.OPAQUE}
#: LiteralProto fields stored as little-endian bytes, by element type.
_BYTES_FIELDS = {
    "S1": "s1s", "S2": "s2s", "S4": "s4s", "S8": "s8s", "U1": "u1s", "U2": "u2s", "U4": "u4s",
    "U8": "u8s", "F16": "f16s", "BF16": "bf16s", "U16": "u16s", "S16": "s16s",
    "F4E2M1FN": "f4e2m1fns", "F8E3M4": "f8e3m4s", "F8E4M3B11FNUZ": "f8e4m3b11fnuzs",
    "F8E4M3FN": "f8e4m3fns", "F8E4M3FNUZ": "f8e4m3fnuzs", "F8E4M3": "f8e4m3s",
    "F8E5M2FNUZ": "f8e5m2fnuzs", "F8E5M2": "f8e5m2s", "F8E8M0FNU": "f8e8m0fnus",
}  # fmt: skip
#: LiteralProto fields stored as repeated numbers, by element type.
_LIST_FIELDS = {"PRED": "preds", "S32": "s32s", "S64": "s64s", "U32": "u32s", "U64": "u64s",
                "F32": "f32s", "F64": "f64s", "C64": "c64s", "C128": "c128s"}


def element_type(proto: Any) -> PrimitiveType:
    """The IR element type of a ShapeProto (or LiteralProto shape)."""
    enum = proto.DESCRIPTOR.fields_by_name["element_type"].enum_type
    value = enum.values_by_number.get(proto.element_type)
    key = value.name if value is not None else ""
    t = _TYPE_NAMES.get(key) or PrimitiveType.__members__.get(key)
    if t is None:
        raise HloError(f"shape has element type {key or proto.element_type}, which hlotool "
                       "does not know")
    return t


def shape(proto: Any) -> Shape:
    """An IR shape from a ShapeProto, layout included when the proto has one."""
    t = element_type(proto)
    if t is PrimitiveType.TUPLE:
        return Shape.tuple_of([shape(s) for s in proto.tuple_shapes])
    if t is PrimitiveType.BUFFER:
        return Shape(t, tuple_shapes=(shape(proto.tuple_shapes[0]),))
    if not t.is_array_type:
        return Shape(t)
    dims = tuple(proto.dimensions)
    dynamic = tuple(proto.is_dynamic_dimension)
    return Shape.array(t, dims, _layout(proto.layout) if proto.HasField("layout") else False,
                       dynamic)


def _layout(p: Any) -> Layout:
    return Layout(
        tuple(p.minor_to_major),
        tiles=tuple(Tile(tuple(t.dimensions)) for t in p.tiles),
        tail_padding_alignment=p.tail_padding_alignment_in_elements or 1,
        index_type=_enum_type(p, "index_primitive_type"),
        pointer_type=_enum_type(p, "pointer_primitive_type"),
        element_size_in_bits=p.element_size_in_bits,
        memory_space=p.memory_space,
        split_configs=tuple(SplitConfig(s.dimension, tuple(s.split_indices))
                            for s in p.split_configs),
        physical_shape=shape(p.physical_shape) if p.HasField("physical_shape") else None,
        dynamic_shape_metadata_prefix_bytes=p.dynamic_shape_metadata_prefix_bytes,
    )


def _enum_type(p: Any, field: str) -> PrimitiveType | None:
    number = getattr(p, field)
    if not number:
        return None
    name = p.DESCRIPTOR.fields_by_name[field].enum_type.values_by_number[number].name
    return _TYPE_NAMES.get(name) or PrimitiveType[name]


def literal(proto: Any) -> Literal:
    """An IR literal from a LiteralProto (data in its layout's order, as XLA stores it)."""
    s = shape(proto.shape)
    if s.is_tuple:
        return Literal.tuple_of(literal(e) for e in proto.tuple_literals)
    if not s.is_array:
        return Literal(s.without_layouts())
    return Literal.from_array(array(proto, s), s.element_type)


def array(proto: Any, s: Shape | None = None) -> np.ndarray:
    """The numpy array of an array LiteralProto, in logical (row-major) order."""
    s = s if s is not None else shape(proto.shape)
    t = s.element_type
    name = t.name
    dtype = t.numpy_dtype
    count = int(np.prod(s.dimensions, dtype=np.int64))
    if name in _LIST_FIELDS:
        values = getattr(proto, _LIST_FIELDS[name])
        flat = np.asarray(values, dtype=dtype.type(0).real.dtype if t.is_complex else None)
        if t.is_complex:
            flat = flat[0::2] + 1j * flat[1::2]
        flat = flat.astype(dtype)
    elif name in _BYTES_FIELDS:
        raw = getattr(proto, _BYTES_FIELDS[name])
        flat = _from_bytes(raw, t, count)
    else:
        raise HloError(f"a literal of element type {t.value} cannot be read from a proto")
    if flat.size != count:
        raise HloError(f"literal of shape {s} holds {flat.size} values, not {count}")
    layout = s.layout
    if layout is None or not s.dimensions or layout.minor_to_major == tuple(
            range(len(s.dimensions) - 1, -1, -1)):
        return flat.reshape(s.dimensions)
    major_to_minor = list(reversed(layout.minor_to_major))
    physical = flat.reshape([s.dimensions[d] for d in major_to_minor])
    return np.ascontiguousarray(np.transpose(physical, [major_to_minor.index(d)
                                                         for d in range(len(s.dimensions))]))


def _from_bytes(raw: bytes, t: PrimitiveType, count: int) -> np.ndarray:
    """Bytes fields: little-endian for 16-bit types; one element a byte for 8-bit and
    narrower ones (or two 4-bit values a byte when XLA packed them)."""
    dtype = t.numpy_dtype
    bits = t.bits
    if bits >= 8:
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype)
    data = np.frombuffer(raw, dtype=np.uint8)
    if data.size != count and data.size == (count * bits + 7) // 8:
        per = 8 // bits
        data = np.stack([(data >> (bits * i)) & ((1 << bits) - 1) for i in range(per)],
                        axis=1).reshape(-1)[:count].astype(np.uint8)
        if t.is_signed_int:
            half = 1 << (bits - 1)
            return ((data.astype(np.int16) ^ half) - half).astype(dtype)
    if t.is_float:
        return data.view(dtype)
    return (data.view(np.int8) if t.is_signed_int else data).astype(dtype)
