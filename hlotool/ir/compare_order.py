"""The two spellings of a compare's ordering: `type=` (XLA up to jax 0.11) and `order=`
(current XLA, jax 0.12 on).

The IR keeps one form, the `type` attribute (FLOAT, TOTALORDER, WEAKORDER, SIGNED,
UNSIGNED; absent = the element type's default). Current XLA prints `order=TOTAL` for a
float total order, `order=WEAK` for the weak order (all NaNs equal and above everything,
-0 == +0) and nothing for the IEEE partial order; it still reads `type=FLOAT|TOTALORDER`.
A module read in the `order=` spelling prints in it again (ModuleConfig.compare_spelling).
"""

from __future__ import annotations

from hlotool.ir.types import PrimitiveType

#: `order=` value -> `type` for float operands.
_FLOAT_TYPE = {"TOTAL": "TOTALORDER", "PARTIAL": "FLOAT", "WEAK": "WEAKORDER"}
_FLOAT_ORDER = {v: k for k, v in _FLOAT_TYPE.items()}


def type_from_order(order: str, element_type: PrimitiveType) -> str | None:
    """The `type` an `order=` value means for operands of `element_type` (None: the
    default, as for every order of integers, which have one)."""
    if element_type.is_float:
        return _FLOAT_TYPE[order]
    return None


def order_attrs(ctype: str | None, element_type: PrimitiveType) -> list[str]:
    """What current XLA prints for a compare of `type` ctype: `order=TOTAL`, `order=WEAK`,
    or nothing (the IEEE order of floats, the natural order of integers)."""
    if ctype is None:
        return []
    if element_type.is_float:
        order = _FLOAT_ORDER.get(ctype)
        return [] if order in (None, "PARTIAL") else [f"order={order}"]
    natural = "SIGNED" if element_type.is_signed_int else "UNSIGNED"
    return [] if ctype == natural or element_type is PrimitiveType.PRED else [f"type={ctype}"]


def type_attrs(ctype: str | None) -> list[str]:
    """What XLA up to jax 0.11 prints: `type=X` (a weak order has only the new spelling)."""
    if ctype is None:
        return []
    return ["order=WEAK"] if ctype == "WEAKORDER" else [f"type={ctype}"]
