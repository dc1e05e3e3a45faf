"""Text of StableHLO types, dense literals and attribute values, as MLIR prints them.

Floats follow MLIR's `printFloatValue`: `%e` with six significant digits when that reads
back to the same bits, else APFloat's default spelling (up to 9 digits for f32, 17 for
f64), else the bit pattern in hex (always for NaN and infinities). A spelling is only used
when it reads back exactly both through MLIR's correctly rounded parser and through ours
(decimal -> f64 -> type): it must not land on a tie between two values of the type.
Tensors with more than 100 elements that are not splats are hex blobs (raw bytes).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import cast

import ml_dtypes
import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.literal import Literal
from hlotool.ir.types import UNBOUNDED, PrimitiveType, Shape

P = PrimitiveType

#: IR element type -> MLIR spelling (StableHLO's signless `iN` are signed).
ELEMENT_NAMES: dict[PrimitiveType, str] = {
    P.PRED: "i1", P.S2: "i2", P.S4: "i4", P.S8: "i8", P.S16: "i16", P.S32: "i32",
    P.S64: "i64", P.U1: "ui1", P.U2: "ui2", P.U4: "ui4", P.U8: "ui8", P.U16: "ui16",
    P.U32: "ui32", P.U64: "ui64", P.F16: "f16", P.BF16: "bf16", P.F32: "f32", P.F64: "f64",
    P.F8E4M3FN: "f8E4M3FN", P.F8E5M2: "f8E5M2", P.F8E4M3FNUZ: "f8E4M3FNUZ",
    P.F8E5M2FNUZ: "f8E5M2FNUZ", P.F8E4M3B11FNUZ: "f8E4M3B11FNUZ", P.F8E4M3: "f8E4M3",
    P.F8E3M4: "f8E3M4", P.F8E8M0FNU: "f8E8M0FNU", P.F6E2M3FN: "f6E2M3FN",
    P.F6E3M2FN: "f6E3M2FN", P.F4E2M1FN: "f4E2M1FN",
    P.C64: "complex<f32>", P.C128: "complex<f64>",
}  # fmt: skip

#: Above this many elements, non-splat tensors print as hex blobs (MLIR's default).
HEX_THRESHOLD = 100
#: Element types printed element by element even when large (sub-byte storage).
_NO_HEX = frozenset({P.S2, P.S4, P.U2, P.U4, P.U1, P.F4E2M1FN, P.F6E2M3FN, P.F6E3M2FN})


# -- types ----------------------------------------------------------------------------------


def element_type(t: PrimitiveType) -> str:
    name = ELEMENT_NAMES.get(t)
    if name is None:
        raise HloError(f"element type {t.value} has no StableHLO spelling")
    return name


def value_type(shape: Shape) -> str:
    """`tensor<4x8xf32>`, `tuple<...>`, `!stablehlo.token` (layouts are dropped)."""
    if shape.is_tuple:
        return "tuple<" + ", ".join(value_type(s) for s in shape.tuple_shapes) + ">"
    if shape.is_token:
        return "!stablehlo.token"
    if not shape.is_array:
        raise HloError(f"{shape.element_type.value} values have no StableHLO type")
    dims = "".join(("?" if _is_dynamic(shape, i) else str(d)) + "x"
                   for i, d in enumerate(shape.dimensions))  # fmt: skip
    bounds = ""
    if shape.dynamic and any(shape.dynamic):
        items = [str(d) if shape.dynamic[i] else "?" for i, d in enumerate(shape.dimensions)]
        bounds = ", #stablehlo.bounds<" + ", ".join(items) + ">"
    return f"tensor<{dims}{element_type(shape.element_type)}{bounds}>"


def _is_dynamic(shape: Shape, i: int) -> bool:
    return shape.dimensions[i] == UNBOUNDED or bool(shape.dynamic and shape.dynamic[i])


def function_type(inputs: Sequence[str], results: Sequence[str]) -> str:
    """`(A, B) -> C` or `(A) -> (B, C)`."""
    out = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
    return "(" + ", ".join(inputs) + ") -> " + out


# -- attribute values -----------------------------------------------------------------------


def ints(values: Sequence[int]) -> str:
    """`[1, 2]`."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def i64_array(values: Sequence[int]) -> str:
    """`array<i64: 1, 2>` (`array<i64>` when empty)."""
    return "array<i64" + (": " + ", ".join(str(int(v)) for v in values) if values else "") + ">"


def bools(values: Sequence[bool]) -> str:
    return "[" + ", ".join("true" if v else "false" for v in values) + "]"


def bool_text(value: bool) -> str:
    return "true" if value else "false"


def quote(text: str) -> str:
    """An MLIR string literal (`\\` escapes for quotes, backslashes and control bytes)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def dense_i64(rows: Sequence[Sequence[int]], width: int) -> str:
    """A 2-D i64 elements attribute (`padding`, `replica_groups`):
    `dense<...> : tensor<NxMxi64>`."""
    arr = np.array([list(r) for r in rows], np.int64).reshape(len(rows), width)
    return dense_text(Literal.from_array(arr, P.S64))


# -- dense literals -------------------------------------------------------------------------


def dense_text(lit: Literal) -> str:
    """`dense<...> : tensor<...>` holding exactly the literal's bits."""
    return f"{dense_body(lit)} : {value_type(lit.shape)}"


def dense_body(lit: Literal) -> str:
    """`dense<...>`: splat, nested lists, hex blob, or empty."""
    if lit.data is None:
        raise HloError(f"a {lit.shape.element_type.value} constant has no StableHLO literal")
    t = lit.shape.element_type
    if lit.data.size == 0:
        return "dense<>"
    one = lit.splat_element()
    if one is not None:
        return f"dense<{element_texts(one.reshape(1), t)[0]}>"
    arr = cast(np.ndarray, lit.array)
    flat = arr.reshape(-1)
    if arr.size > HEX_THRESHOLD and t not in _NO_HEX:
        data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
        return f'dense<"0x{data.hex().upper()}">'
    return "dense<" + _nest(element_texts(flat, t), arr.shape) + ">"


def _nest(items: list[str], dims: tuple[int, ...]) -> str:
    if not dims:
        return items[0]
    if len(dims) == 1:
        return "[" + ", ".join(items) + "]"
    step = len(items) // dims[0]
    return "[" + ", ".join(_nest(items[i * step:(i + 1) * step], dims[1:])
                           for i in range(dims[0])) + "]"  # fmt: skip


def element_texts(flat: np.ndarray, t: PrimitiveType) -> list[str]:
    """Each element of a flat array as MLIR spells it in a dense literal."""
    if t is P.PRED:
        return ["true" if x else "false" for x in flat.tolist()]
    if t.is_integral:
        return [str(int(x)) for x in flat.astype(np.int64 if t.is_signed_int else np.uint64)]
    if t.is_complex:
        part = t.component_type
        real = flat.real.astype(part.numpy_dtype)
        imag = flat.imag.astype(part.numpy_dtype)
        return [f"({float_text(a, part)},{float_text(b, part)})"
                for a, b in zip(real, imag, strict=True)]  # fmt: skip
    return [float_text(x, t) for x in flat]


# -- floats ---------------------------------------------------------------------------------


@functools.cache
def _float_facts(t: PrimitiveType) -> tuple[np.dtype, np.dtype, int]:
    """(dtype, same-width unsigned dtype, APFloat's default digit count)."""
    dtype = t.numpy_dtype
    uint = np.dtype(f"u{dtype.itemsize}")
    precision = int(ml_dtypes.finfo(dtype).nmant) + 1
    return dtype, uint, 2 + precision * 59 // 196


def float_text(value: object, t: PrimitiveType) -> str:
    """One float as MLIR prints it (`1.000000e+00`, `0.797884583`, `0x7FC00000`)."""
    dtype, uint, digits = _float_facts(t)
    x = np.asarray(value).astype(dtype).reshape(())
    bits = int(x.view(uint))
    exact = float(x.astype(np.float64))
    if np.isfinite(exact):
        for text in (_six_digits(exact), _default_digits(exact, digits)):
            if text is not None and _reads_back(text, bits, t):
                return text
    return f"0x{bits:X}"


def _six_digits(x: float) -> str:
    """APFloat::toString(6, 0, false): six significant digits, padded to six decimals."""
    mantissa, exponent = f"{x:.5e}".split("e")
    return f"{mantissa}0e{exponent}"


def _default_digits(x: float, digits: int) -> str | None:
    """APFloat::toString(): up to `digits` significant digits, trailing zeros dropped,
    positional unless that needs more than three padding zeros; None without a `.`."""
    sign = "-" if x < 0 or (x == 0 and np.signbit(x)) else ""
    mantissa, exp_text = f"{abs(x):.{digits - 1}e}".split("e")
    buffer = mantissa.replace(".", "").rstrip("0") or "0"
    n = len(buffer)
    exp = int(exp_text) - (n - 1)
    if exp >= 0:
        scientific = exp > 3 or n + exp > digits
    else:
        scientific = exp + n - 1 < 0 and -(exp + n - 1) > 3
    if scientific:
        exp += n - 1
        text = buffer[0] + "." + (buffer[1:] or "0") + "E" + ("+" if exp >= 0 else "-")
        return sign + text + str(abs(exp))
    if exp >= 0:
        return None
    whole = exp + n
    if whole > 0:
        return sign + buffer[:whole] + "." + buffer[whole:]
    return sign + "0." + "0" * -whole + buffer


def _reads_back(text: str, bits: int, t: PrimitiveType) -> bool:
    """True when `text` reads back as `bits` by correct rounding and by decimal -> f64 -> t."""
    dtype, uint, _ = _float_facts(t)
    wide = float(text)
    with np.errstate(over="ignore", invalid="ignore"):
        got = np.array(wide).astype(dtype)
    if int(got.view(uint)) != bits:
        return False
    return t is P.F64 or not _is_tie(wide, bits, t)


def _is_tie(wide: float, bits: int, t: PrimitiveType) -> bool:
    """`wide` lies exactly halfway between the value `bits` and its neighbour."""
    dtype, uint, _ = _float_facts(t)
    value = float(np.array(bits, uint).view(dtype).astype(np.float64))
    if wide == value or value == 0:
        return False
    neighbour_bits = bits + 1 if abs(wide) > abs(value) else bits - 1
    if not 0 <= neighbour_bits < 1 << (8 * dtype.itemsize):
        return False
    neighbour = float(np.array(neighbour_bits, uint).view(dtype).astype(np.float64))
    return bool(np.isfinite(neighbour)) and (value + neighbour) / 2 == wide
