"""Shapes and layouts as HLO text (`f32[2,3]{1,0}`, `(s32[], f32[<=4])`)."""

from __future__ import annotations

from functools import lru_cache

from hlotool.ir.types import UNBOUNDED, Layout, PrimitiveType, Shape


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
