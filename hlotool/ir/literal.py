"""Constant values (XLA's `Literal`): reading the literal syntax tree, printing XLA's text.

A literal is an immutable value: a read-only numpy array for an array shape, a tuple of
literals for a tuple shape. Reading follows XLA's HLO parser (range checks, NaN payloads,
lenient quirks) and printing reproduces XLA's `Literal::PrintWithoutShapeOneline` byte for
byte, so `to_text(literal_from_ast(...))` matches what XLA writes for the same constant.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, cast

import ml_dtypes
import numpy as np

from hlotool.ir.types import PrimitiveType, Shape

P = PrimitiveType

#: Arrays with more elements than this print as `{...}` when large constants are elided.
MAX_SHORT_ELEMENTS = 10
#: HLO text has no splat form: a lazy splat whose text would be longer is not printed.
MAX_SPLAT_TEXT_BYTES = 1 << 30

_INT_RE = re.compile(r"-?\d+")
_DECIMAL = r"-?(?:(?:\d+|\d+\.\d*|\d*\.\d+)[eE][+-]?\d+|\d+\.\d*|\d*\.\d+)"
_DECIMAL_RE = re.compile(_DECIMAL)
# Screens for the vectorized fast paths, run over all tokens joined by newlines: only
# characters the token kinds use and `+` only in exponents; the conversion rejects the
# rest. Integers beyond int64 follow XLA's 64-bit rules on the slow path.
_BULK_FLOATS_RE = re.compile(r"[-+0-9.eEinfa\n]*")
_BULK_INTS_RE = re.compile(r"[-0-9\n]*")
_BULK_PREDS_RE = re.compile(r"[-0-9truefals\n]*")
_NAN_RE = re.compile(r"(-?)nan(?:\(0x([0-9a-fA-F]+)\))?")
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_UINT64_END = 1 << 64


class LiteralError(Exception):
    """A literal that does not fit its shape: message plus the offending token (or None)."""

    def __init__(self, message: str, token: object | None = None):
        super().__init__(message)
        self.message = message
        self.token = token

    @property
    def line(self) -> int:
        """The token's 1-based line, 0 when unknown."""
        return int(getattr(self.token, "line", 0) or 0)

    @property
    def column(self) -> int:
        """The token's 1-based column, 0 when unknown."""
        return int(getattr(self.token, "column", 0) or 0)


# -- element type facts ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _FloatInfo:
    """What reading and printing need to know about one floating-point type."""

    type: PrimitiveType
    dtype: np.dtype[Any]
    #: Unsigned integer dtype of the same storage width (for bit views).
    uint: np.dtype[Any]
    mantissa_bits: int
    #: The sign bit (0 for f8e8m0fnu, which has none).
    sign_mask: int
    #: Types with infinities (IEEE-like) store a NaN payload; the others reject `nan(0x..)`.
    has_payload: bool
    #: Mantissa of `std::numeric_limits<T>::quiet_NaN()`: a NaN with it prints as `nan`.
    default_payload: int
    #: `%.Ng` digits, and the fallback digits when that does not round-trip (0: none).
    digits: int
    fallback_digits: int
    max: float
    lowest: float


def _max_digits10(mantissa_digits: int) -> int:
    return math.ceil(1 + mantissa_digits * math.log10(2))


@functools.cache
def _float_info(t: PrimitiveType) -> _FloatInfo:
    dtype = t.numpy_dtype
    finfo = ml_dtypes.finfo(dtype)
    uint = np.dtype(f"u{dtype.itemsize}")
    nmant = int(finfo.nmant)
    with np.errstate(invalid="ignore", over="ignore"):
        quiet = np.array(np.nan, np.float32).astype(dtype)
        inf = np.array(np.inf, np.float32).astype(dtype)
    default_payload = int(quiet.view(uint)) & ((1 << nmant) - 1) if np.isnan(quiet) else 0
    digits, fallback = {P.F32: (6, 9), P.F64: (15, 17)}.get(t, (_max_digits10(nmant + 1), 0))
    return _FloatInfo(
        type=t,
        dtype=dtype,
        uint=uint,
        mantissa_bits=nmant,
        sign_mask=1 << (t.bits - 1) if finfo.min < 0 else 0,
        has_payload=bool(np.isinf(inf)),
        default_payload=default_payload,
        digits=digits,
        fallback_digits=fallback,
        max=float(finfo.max),
        lowest=float(finfo.min),
    )


def _int_range(t: PrimitiveType) -> tuple[int, int]:
    """Values an integer type holds (s1/u1 included, though stored in 2-bit arrays)."""
    if t.is_signed_int:
        return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    return 0, (1 << t.bits) - 1


# -- float formatting ------------------------------------------------------------------------


def format_float(value: object, element_type: PrimitiveType) -> str:
    """One value as XLA's `RoundTripFpToString` writes it (inf, -nan, nan(0x..) included).

    Complex types give XLA's `(re, im)`.
    """
    arr = np.asarray(value).astype(element_type.numpy_dtype).reshape(1)
    return _element_strings(arr, element_type)[0]


def _format_floats(arr: np.ndarray, info: _FloatInfo) -> list[str]:
    """Element strings of a flat array; 16-bit and narrower types go through a table."""
    if info.dtype.itemsize == 1 or (info.dtype.itemsize == 2 and arr.size > 4096):
        table = _format_table(info.type)
        return table[arr.view(info.uint)].tolist()
    return _format_direct(arr, info)


@functools.cache
def _format_table(t: PrimitiveType) -> np.ndarray:
    """The printed form of every bit pattern of a narrow type, indexed by the bits."""
    info = _float_info(t)
    bits = np.arange(1 << (8 * info.dtype.itemsize), dtype=np.int64).astype(info.uint)
    return np.array(_format_direct(bits.view(info.dtype), info), dtype=object)


def _format_direct(arr: np.ndarray, info: _FloatInfo) -> list[str]:
    """`%.Ng` per element, the round-trip fallback for f32/f64, then the specials."""
    with np.errstate(invalid="ignore"):
        values = arr.astype(np.float64)
    fmt = f"%.{info.digits}g"
    out = [fmt % v for v in values.tolist()]
    finite = np.isfinite(values)
    if info.fallback_digits:
        _apply_fallback(out, arr, values, finite, info)
    for i in np.flatnonzero(~finite).tolist():
        out[i] = _special_text(arr[i], info)
    return out


def _apply_fallback(
    out: list[str], arr: np.ndarray, values: np.ndarray, finite: np.ndarray, info: _FloatInfo
) -> None:
    """Rewrite with more digits the strings that do not read back as the same value."""
    if not out:
        return
    back = np.array(out).astype(np.float64)
    if info.type is P.F32:
        back32 = back.astype(np.float32)
        _fix_double_rounding(out, back, back32)
        wrong = back32.view(np.uint32) != arr.view(np.uint32)
    else:
        wrong = back.view(np.uint64) != arr.view(np.uint64)
    fmt = f"%.{info.fallback_digits}g"
    for i in np.flatnonzero(wrong & finite).tolist():
        out[i] = fmt % values[i]


def _fix_double_rounding(out: list[str], back: np.ndarray, back32: np.ndarray) -> None:
    """Correct `back32` where decimal -> double -> float differs from decimal -> float.

    That happens only when the double lands exactly halfway between two floats while the
    decimal itself is not halfway; the exact decimal then decides the side.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        toward = np.where(back > back32, np.float32(np.inf), np.float32(-np.inf))
        other = np.nextafter(back32, toward)
        tie = (back32.astype(np.float64) + other.astype(np.float64)) / 2 == back
    for i in np.flatnonzero(tie).tolist():
        exact, halfway = Decimal(out[i]), Decimal(float(back[i]))
        if exact != halfway:
            pair = sorted((back32[i], other[i]))
            back32[i] = pair[1] if exact > halfway else pair[0]


def _special_text(value: np.generic, info: _FloatInfo) -> str:
    bits = int(np.asarray(value).view(info.uint))
    sign = "-" if bits & info.sign_mask else ""
    if not math.isnan(float(value)):
        return f"{sign}inf"
    payload = bits & ((1 << info.mantissa_bits) - 1)
    if payload == info.default_payload:
        return f"{sign}nan"
    return f"{sign}nan({payload:#x})"


# -- float reading ---------------------------------------------------------------------------


def parse_float_token(text: str, element_type: PrimitiveType) -> np.generic:
    """A float token (INT, decimal, inf, nan, -nan, nan(0x..)) as a scalar of the type."""
    info = _float_info(element_type.component_type)
    return _parse_floats([text], info)[0]


def _parse_floats(tokens: Sequence[object], info: _FloatInfo) -> np.ndarray:
    """Tokens -> array of the type: XLA's double value, conversion and range check."""
    payloads: list[tuple[int, bool, int]] = []
    values = _bulk_array(tokens, _BULK_FLOATS_RE, np.float64)
    if values is not None and _finite_decimals(tokens, values):
        if info.has_payload:
            for i in np.flatnonzero(np.isnan(values)).tolist():
                payloads.append((i, str(tokens[i]).startswith("-"), info.default_payload))
    else:
        values = np.empty(len(tokens), np.float64)
        for i, tok in enumerate(tokens):
            values[i] = _token_to_double(tok, info, i, payloads)
    converted = _from_double(values, info)
    _check_float_range(tokens, values, converted, info)
    for i, negative, payload in payloads:
        exp_mask = ~((1 << info.mantissa_bits) - 1) & (info.sign_mask - 1)
        bits = (info.sign_mask if negative else 0) | exp_mask | payload
        converted.view(info.uint)[i] = bits
    return converted


def _bulk_array(
    tokens: Sequence[object], pattern: re.Pattern[str], dtype: type[np.generic]
) -> np.ndarray | None:
    """All tokens converted at once, or None when some need the slow path."""
    strings = cast(Sequence[str], tokens)
    try:
        joined = "\n".join(strings)
    except TypeError:
        return None
    if not strings or not pattern.fullmatch(joined):
        return None
    if "+" in joined.replace("e+", "").replace("E+", ""):
        return None
    try:
        if dtype is np.int64:
            return np.fromiter(map(int, strings), np.int64, len(strings))
        if dtype is np.float64:
            return np.fromiter(map(float, strings), np.float64, len(strings))
        return np.array(strings, dtype=str).astype(dtype)
    except (ValueError, OverflowError):
        return None


def _finite_decimals(tokens: Sequence[object], values: np.ndarray) -> bool:
    """False if a decimal overflowed the double or an integer exceeds int64 (slow path)."""
    for i in np.flatnonzero(np.abs(values) >= 2.0**63).tolist():
        text = str(tokens[i])
        if _INT_RE.fullmatch(text) or (math.isinf(values[i]) and not text.endswith("inf")):
            return False
    return True


def _token_to_double(
    tok: object, info: _FloatInfo, index: int, payloads: list[tuple[int, bool, int]]
) -> float:
    """The double XLA's lexer makes of one token; a NaN payload is queued in `payloads`."""
    if not isinstance(tok, str) or tok == "...":
        raise _not_a_scalar(tok, info.type)
    if _INT_RE.fullmatch(tok):
        return _int_token_as_double(tok, info.type)
    if _DECIMAL_RE.fullmatch(tok):
        value = float(tok)
        if math.isinf(value):
            raise LiteralError(f"value {tok} is out of range for a double", tok)
        return value
    if tok in ("inf", "-inf"):
        return float(tok)
    match = _NAN_RE.fullmatch(tok)
    if match is None:
        raise LiteralError(
            f"expects a floating-point value for {info.type.value}, but sees '{tok}'", tok
        )
    negative = match.group(1) == "-"
    if match.group(2) is not None:
        payloads.append((index, negative, _checked_payload(tok, match.group(2), info)))
    elif info.has_payload:
        payloads.append((index, negative, info.default_payload))
    return -math.nan if negative else math.nan


def _int_token_as_double(tok: str, t: PrimitiveType) -> float:
    value = int(tok)
    if value == 0 and tok.startswith("-"):
        # XLA reads `-0` as the integer 0 (+0.0); keep the sign so `-0` prints round-trip.
        return -0.0
    if not _INT64_MIN <= value < _UINT64_END:
        raise LiteralError(f"integer {tok} does not fit in 64 bits", tok)
    # The lexer keeps 64-bit tokens as int64 bits: 2^64-1 reads as -1, as XLA does.
    return float(value - _UINT64_END if value > _INT64_MAX else value)


def _checked_payload(tok: str, hex_digits: str, info: _FloatInfo) -> int:
    payload = int(hex_digits, 16)
    limit = (1 << info.mantissa_bits) - 1
    if not info.has_payload:
        raise LiteralError(f"{info.type.value} does not support NaN payloads", tok)
    if payload == 0 or payload > limit:
        raise LiteralError(
            f"NaN payload {payload:#x} is out of range for {info.type.value} (1 to {limit:#x})",
            tok,
        )
    return payload


def _from_double(values: np.ndarray, info: _FloatInfo) -> np.ndarray:
    """Round doubles to the type as XLA's `static_cast` does (half types go via float)."""
    if info.type is P.F64:
        return values.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        if info.type in (P.F32, P.F16, P.BF16):
            return values.astype(np.float32).astype(info.dtype)
        # Direct double -> f8 rounding: round to odd into float32 first, then round to
        # nearest even (float32 has more than two extra bits, so this rounds once).
        out = _round_to_odd_f32(values).astype(info.dtype)
    if info.type is P.F8E8M0FNU:
        _fix_e8m0_smallest(values, out)
    return out


def _fix_e8m0_smallest(values: np.ndarray, out: np.ndarray) -> None:
    """Below 2^-126, round to the nearer of 2^-127 and 2^-126 (XLA: always 2^-126).

    XLA's conversion mis-rounds there, so its own text for 2^-127 (`5.9e-39`) reads back
    as 2^-126; rounding by value makes every f8e8m0fnu pattern round-trip.
    """
    low = (values > 0) & (values < 2.0**-126)
    if low.any():
        out.view(np.uint8)[low] = np.where(values[low] < 1.5 * 2.0**-127, 0, 1)


def _round_to_odd_f32(values: np.ndarray) -> np.ndarray:
    nearest = values.astype(np.float32)
    back = nearest.astype(np.float64)
    inexact = np.isfinite(values) & (back != values)
    if not inexact.any():
        return nearest
    truncated = np.where(
        np.abs(back) > np.abs(values), np.nextafter(nearest, np.float32(0)), nearest
    )
    bits = truncated.view(np.uint32) | np.where(inexact, np.uint32(1), np.uint32(0))
    return np.where(inexact, bits.view(np.float32), nearest)


def _check_float_range(
    tokens: Sequence[object], values: np.ndarray, converted: np.ndarray, info: _FloatInfo
) -> None:
    """XLA checks the converted value when finite, else the parsed one; inf/nan pass."""
    as_double = converted.astype(np.float64)
    checked = np.where(np.isfinite(as_double), as_double, values)
    bad = np.isfinite(values) & ((checked > info.max) | (checked < info.lowest))
    if bad.any():
        i = int(np.argmax(bad))
        raise LiteralError(
            f"value {tokens[i]} is out of range for {info.type.value} "
            f"[{info.lowest:g}, {info.max:g}]",
            tokens[i],
        )


# -- integer and pred reading ----------------------------------------------------------------


def _parse_ints(tokens: Sequence[object], t: PrimitiveType) -> np.ndarray:
    """INT tokens -> array of the integer type, range-checked like XLA's parser.

    XLA lexes every INT as 64 bits, keeping 2^63..2^64-1 as their int64 bit pattern, and
    range-checks that int64: `u64[] -1` is 2^64-1 and `s32[] 18446744073709551615` is -1.
    """
    bulk = _bulk_array(tokens, _BULK_INTS_RE, np.int64)
    lo, hi = _int_range(t) if t.bits < 64 else (_INT64_MIN, _INT64_MAX)
    if bulk is not None and (lo <= bulk.min() and bulk.max() <= hi):
        return bulk.astype(t.numpy_dtype)
    values = [_int_token(tok, t) for tok in tokens]
    if values and (min(values) < _INT64_MIN or max(values) > _UINT64_END - 1):
        i = next(i for i, v in enumerate(values) if not _INT64_MIN <= v < _UINT64_END)
        raise LiteralError(f"integer {tokens[i]} does not fit in 64 bits", tokens[i])
    if values and max(values) > _INT64_MAX:
        values = [v - _UINT64_END if v > _INT64_MAX else v for v in values]
    if t.bits < 64 and values:
        lo, hi = _int_range(t)
        if min(values) < lo or max(values) > hi:
            i = next(i for i, v in enumerate(values) if not lo <= v <= hi)
            raise LiteralError(
                f"value {tokens[i]} is out of range for {t.value} [{lo}, {hi}]", tokens[i]
            )
    return np.array(values, np.int64).astype(t.numpy_dtype)


def _int_token(tok: object, t: PrimitiveType) -> int:
    if not isinstance(tok, str) or tok == "...":
        raise _not_a_scalar(tok, t)
    if not _INT_RE.fullmatch(tok):
        raise LiteralError(f"expects an integer for {t.value}, but sees '{tok}'", tok)
    return int(tok)


def _parse_preds(tokens: Sequence[object]) -> np.ndarray:
    """`true`/`false` or INT tokens (non-zero is true) -> bool array."""
    bulk = _bulk_array(tokens, _BULK_PREDS_RE, np.str_)
    if bulk is None:
        return _parse_preds_slow(tokens)
    ints = (bulk != "true") & (bulk != "false")
    out = bulk == "true"
    if ints.any():
        numbers = _bulk_array(bulk[ints].tolist(), _BULK_INTS_RE, np.int64)
        if numbers is None:
            return _parse_preds_slow(tokens)
        out[ints] = numbers != 0
    return out


def _parse_preds_slow(tokens: Sequence[object]) -> np.ndarray:
    out = np.empty(len(tokens), np.bool_)
    for i, tok in enumerate(tokens):
        if tok in ("true", "false"):
            out[i] = tok == "true"
        else:
            value = _int_token(tok, P.PRED)
            if not _INT64_MIN <= value < _UINT64_END:
                raise LiteralError(f"integer {tok} does not fit in 64 bits", tok)
            out[i] = value != 0
    return out


def _parse_complex(items: Sequence[object], t: PrimitiveType) -> np.ndarray:
    """`(re, im)` pairs -> complex array; each part read as the component float type."""
    parts: list[object] = []
    for item in items:
        if not _is_group(item, "("):
            if isinstance(item, str) and item != "...":
                raise LiteralError(f"a {t.value} element is written (re, im)", item)
            raise _not_a_scalar(item, t)
        pair = _items(item)
        if len(pair) != 2 or not all(isinstance(p, str) and p != "..." for p in pair):
            raise LiteralError(
                f"a {t.value} element is a pair (re, im) of numbers", _first_token(item)
            )
        parts.extend(pair)
    info = _float_info(t.component_type)
    flat = _parse_floats(parts, info)
    return flat.view(t.numpy_dtype) if flat.size else np.empty(0, t.numpy_dtype)


def _parse_elements(items: Sequence[object], t: PrimitiveType) -> np.ndarray:
    """The flat element array of a dense literal from its leaf nodes."""
    if t.is_complex:
        return _parse_complex(items, t)
    if t is P.PRED:
        return _parse_preds(items)
    if t.is_float:
        return _parse_floats(items, _float_info(t))
    return _parse_ints(items, t)


def _not_a_scalar(node: object, t: PrimitiveType) -> LiteralError:
    """The error for a non-token where an element of type t belongs."""
    if node == "...":
        return LiteralError("'...' is only allowed alone inside the outermost braces", node)
    if isinstance(node, str):
        return LiteralError(f"expects a {t.value} value, but sees '{node}'", node)
    if _is_group(node, "("):
        return LiteralError(
            f"unexpected '(' in a {t.value} literal: parentheses are only valid for "
            "complex or tuple literals",
            _first_token(node),
        )
    return LiteralError("too many levels of braces for the shape's rank", _first_token(node))


def _first_token(node: object) -> object | None:
    """The first token inside a node (for error positions), or None if it has none."""
    if isinstance(node, str):
        return node
    if _is_group(node, "{") or _is_group(node, "("):
        for item in _items(node):
            tok = _first_token(item)
            if tok is not None:
                return tok
    return None


# -- the literal -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Literal:
    """An immutable constant value: an array (numpy), a tuple of literals, or a token.

    A splat (every element the same) may be stored lazily as a read-only broadcast view
    of its one element: printing, hashing, comparing and splat queries never expand it,
    and `array` materializes it once, when a consumer needs the dense data.
    """

    #: Array or tuple shape (a token shape holds no data).
    shape: Shape
    #: Array shapes: read-only array of dtype `shape.element_type.numpy_dtype`, C-order,
    #: or a broadcast view (all strides 0) for a lazy splat.
    data: np.ndarray | None = None
    #: Tuple shapes: one literal per tuple element.
    elements: tuple[Literal, ...] = ()
    #: Read from `{...}`: the data is zeros and printing writes `{...}` again.
    elided: bool = False
    #: The materialized array of a lazy splat, once `array` was asked for.
    _dense: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.shape.is_tuple:
            parts = self.shape.tuple_shapes
            if (
                self.data is not None
                or len(self.elements) != len(parts)
                or not all(e.shape.compatible(s) for e, s in zip(self.elements, parts, strict=True))
            ):
                raise ValueError(f"tuple literal elements do not match {_shape_key(self.shape)}")
            return
        if not self.shape.is_array:
            if self.data is not None or self.elements:
                raise ValueError(f"a {self.shape.element_type.value} literal holds no data")
            return
        arr = self.data
        dtype = self.shape.element_type.numpy_dtype
        if arr is None or arr.dtype != dtype or arr.shape != self.shape.dimensions:
            raise ValueError(f"literal data does not match {_shape_key(self.shape)}")
        if _is_broadcast(arr):
            if arr.flags.writeable:
                object.__setattr__(self, "data", _broadcast(arr.reshape(-1)[:1], arr.shape))
        elif arr.flags.writeable or not arr.flags.c_contiguous:
            arr = np.array(arr, order="C")
            arr.setflags(write=False)
            object.__setattr__(self, "data", arr)

    # -- construction ----------------------------------------------------------------------
    @staticmethod
    def from_array(array: Any, element_type: PrimitiveType | None = None) -> Literal:
        """An array literal from array-like data (cast to element_type when given)."""
        arr = np.asarray(array)
        t = element_type if element_type is not None else PrimitiveType.from_numpy(arr.dtype)
        if t in (P.S1, P.U1):
            _check_one_bit(arr, t)
        out = np.array(arr, dtype=t.numpy_dtype, order="C")
        out.setflags(write=False)
        return Literal(Shape.array(t, out.shape), out)

    @staticmethod
    def splat(shape: Shape, value: Any) -> Literal:
        """A lazy array literal of `shape` whose every element is `value` (cast to its type)."""
        t = shape.element_type
        if t in (P.S1, P.U1):
            _check_one_bit(np.asarray(value), t)
        one = np.array(value, dtype=t.numpy_dtype).reshape(1)
        return Literal(shape, _broadcast(one, _static_dims(shape, None)))

    @staticmethod
    def tuple_of(elements: Iterable[Literal]) -> Literal:
        """A tuple literal whose shape is the tuple of the elements' shapes."""
        elems = tuple(elements)
        return Literal(Shape.tuple_of([e.shape for e in elems]), elements=elems)

    @staticmethod
    def zeros(shape: Shape) -> Literal:
        """All-zero bits for every array leaf (tokens hold nothing), kept lazy."""
        if shape.is_tuple:
            return Literal(shape, elements=tuple(Literal.zeros(s) for s in shape.tuple_shapes))
        if not shape.is_array:
            return Literal(shape)
        one = np.zeros(1, shape.element_type.numpy_dtype)
        return Literal(shape, _broadcast(one, _static_dims(shape, None)))

    # -- queries ---------------------------------------------------------------------------
    @property
    def array(self) -> np.ndarray | None:
        """Array shapes: the dense, read-only C-order data (a lazy splat is expanded once)."""
        data = self.data
        if data is None or not _is_broadcast(data):
            return data
        if self._dense is None:
            dense = np.ascontiguousarray(data)
            dense.setflags(write=False)
            object.__setattr__(self, "_dense", dense)
        return self._dense

    @property
    def is_lazy_splat(self) -> bool:
        """Whether the data is stored as one element (`array` expands it on demand)."""
        return self.data is not None and _is_broadcast(self.data)

    def splat_element(self) -> np.ndarray | None:
        """The one element (a 0-d array) when every element has the same bits, else None.

        Immediate for a lazy splat; a dense array is compared bit by bit. None for empty
        arrays, tuples and tokens.
        """
        data = self.data
        if data is None or data.size == 0:
            return None
        first = data.reshape(-1)[:1] if not _is_broadcast(data) else data[(0,) * data.ndim]
        first = np.asarray(first).reshape(())
        if data.size == 1 or _is_broadcast(data):
            return first
        raw = _bytes_view(data).reshape(data.size, data.dtype.itemsize)
        return first if bool((raw == raw[0]).all()) else None

    def leaves(self) -> list[np.ndarray]:
        """The arrays of the array leaves, in tuple-flattening order (tokens skipped)."""
        if self.data is not None:
            return [cast(np.ndarray, self.array)]
        return [a for e in self.elements for a in e.leaves()]

    def bit_equal(self, other: Literal) -> bool:
        """Same shape (layouts ignored), same elision and bit-identical data."""
        if not self.shape.compatible(other.shape) or self.elided != other.elided:
            return False
        if self.shape.is_tuple:
            return all(a.bit_equal(b) for a, b in zip(self.elements, other.elements, strict=True))
        if self.data is None or other.data is None:
            return self.data is None and other.data is None
        if self.is_lazy_splat or other.is_lazy_splat:
            mine, theirs = self.splat_element(), other.splat_element()
            if mine is None or theirs is None:
                return mine is None and theirs is None and self.data.size == 0
            return mine.tobytes() == theirs.tobytes()
        return np.array_equal(_bytes_view(self.data), _bytes_view(other.data))

    def fingerprint(self) -> bytes:
        """Stable bytes for structural hashing: shape text, elision flags and raw data."""
        parts = [_shape_key(self.shape).encode()]
        self._fingerprint_data(parts)
        return b"\0".join(parts)

    def _fingerprint_data(self, parts: list[bytes]) -> None:
        if self.shape.is_tuple:
            for e in self.elements:
                e._fingerprint_data(parts)
        elif self.data is not None:
            parts.append(b"E" if self.elided else b"D")
            one = self.splat_element()
            parts.append(b"S" + one.tobytes() if one is not None else self.data.tobytes())

    # -- printing --------------------------------------------------------------------------
    def to_text(self, print_large: bool = True) -> str:
        """The text XLA writes inside `constant(...)`; `{...}` for elided/large values."""
        if self.shape.is_tuple:
            if not print_large:
                return "{...}"
            return "( " + ", ".join(e.to_text() for e in self.elements) + " )"
        data = self.data
        if data is None:
            return self.shape.element_type.value
        if self.elided or (not print_large and data.size > MAX_SHORT_ELEMENTS):
            return "{...}"
        if self.is_lazy_splat:
            one = _element_strings(data.reshape(-1)[:1], self.shape.element_type)[0]
            if data.size * (len(one) + 2) > MAX_SPLAT_TEXT_BYTES:
                raise LiteralError(
                    f"a splat of {data.size} elements would take more than "
                    f"{MAX_SPLAT_TEXT_BYTES >> 30} GiB of HLO text, which has no splat form; "
                    "print it as StableHLO (dense<...> keeps it short)"
                )
            return _nest_splat(one, data.shape)
        strings = _element_strings(data, self.shape.element_type)
        if data.ndim == 0:
            return strings[0]
        return _nest(strings, data.shape)

    def __str__(self) -> str:
        return self.to_text()


def _check_one_bit(arr: np.ndarray, t: PrimitiveType) -> None:
    """s1/u1 live in 2-bit arrays, so their range is checked before the cast."""
    lo, hi = _int_range(t)
    wide = arr.astype(np.int64)
    if wide.size and (wide.min() < lo or wide.max() > hi):
        raise LiteralError(f"{t.value} values must lie in [{lo}, {hi}]")


def _bytes_view(arr: np.ndarray) -> np.ndarray:
    return arr.reshape(-1).view(np.uint8)


def _is_broadcast(arr: np.ndarray) -> bool:
    """A lazy splat: more than one element, every stride 0."""
    return arr.size > 1 and not any(arr.strides)


def _broadcast(one: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """A read-only view of dims whose every element is `one`'s single element."""
    one = one.copy()
    one.setflags(write=False)
    return np.broadcast_to(one.reshape(()), dims)


def _shape_key(shape: Shape) -> str:
    """Layout-free shape text (element type, dims, dynamic marks) for keys and messages."""
    if shape.is_tuple:
        return "(" + ", ".join(_shape_key(s) for s in shape.tuple_shapes) + ")"
    dims = [
        ("<=" if shape.dynamic and shape.dynamic[i] else "") + (str(d) if d >= 0 else "?")
        for i, d in enumerate(shape.dimensions)
    ]
    if not shape.is_array:
        return shape.element_type.value
    return f"{shape.element_type.value}[{','.join(dims)}]"


def _static_dims(shape: Shape, node: object | None) -> tuple[int, ...]:
    if any(d < 0 for d in shape.dimensions):
        raise LiteralError(
            f"a literal of shape {_shape_key(shape)} needs static dimensions", _first_token(node)
        )
    return shape.dimensions


# -- printing helpers ------------------------------------------------------------------------


def _element_strings(arr: np.ndarray, t: PrimitiveType) -> list[str]:
    """Every element's text, in row-major order."""
    flat = arr.reshape(-1)
    if t is P.PRED:
        if arr.ndim == 0:
            return ["true" if flat[0] else "false"]
        return np.where(flat, "1", "0").tolist()
    if t.is_complex:
        info = _float_info(t.component_type)
        parts = _format_floats(flat.view(info.dtype), info)
        return [f"({re_}, {im})" for re_, im in zip(parts[0::2], parts[1::2], strict=True)]
    if t.is_float:
        return _format_floats(flat, _float_info(t))
    if arr.dtype.itemsize == 1 and arr.dtype.kind not in "iu":
        flat = flat.astype(np.int8)  # int2/int4/uint2/uint4 print through int8
    return [str(v) for v in flat.tolist()]


def _nest(strings: list[str], dims: tuple[int, ...]) -> str:
    """Brace a flat element list the way XLA's one-line dense-array printer does."""
    rank = len(dims)
    if rank == 1:
        return "{" + ", ".join(strings) + "}"
    # Innermost level: `{ a, b }`, but `{a}` and `{}` for sizes up to one.
    size = dims[-1]
    opener, closer = ("{ ", " }") if size > 1 else ("{", "}")
    groups = math.prod(dims[:-1])
    level = [opener + ", ".join(strings[g * size : (g + 1) * size]) + closer for g in range(groups)]
    for axis in range(rank - 2, -1, -1):
        size = dims[axis]
        groups = math.prod(dims[:axis])
        level = [
            _outer_open(rank, axis, g, dims) + ", ".join(level[g * size : (g + 1) * size]) + " }"
            for g in range(groups)
        ]
    return level[0]


def _nest_splat(text: str, dims: tuple[int, ...]) -> str:
    """`_nest([text] * count, dims)` without the list: every group at a level has the same
    body (inner labels count positions within the parent), only its own label differs."""
    rank = len(dims)
    if rank == 1:
        return "{" + ", ".join([text] * dims[0]) + "}"
    size = dims[-1]
    opener, closer = ("{ ", " }") if size > 1 else ("{", "}")
    children = [opener + ", ".join([text] * size) + closer] * dims[-2]
    for axis in range(rank - 2, 0, -1):
        body = ", ".join(children)
        children = [_outer_open(rank, axis, j, dims) + body + " }" for j in range(dims[axis - 1])]
    return _outer_open(rank, 0, 0, dims) + ", ".join(children) + " }"


def _outer_open(rank: int, axis: int, group: int, dims: tuple[int, ...]) -> str:
    """`{ `, but rank > 3 arrays label inner braces with their index: `{ /*i0=1*/ `.

    An empty labelled brace prints `{ /*i0=1*/ }` (one space, where `{  }` has two).
    """
    if rank <= 3 or axis == 0:
        return "{ "
    comment = f"{{ /*i{axis - 1}={group % dims[axis - 1]}*/"
    return comment if dims[axis] == 0 else comment + " "


# -- reading the syntax tree -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NumericBlock:
    """A long `{...}` of plain numbers and braces, as the lexer read it: one piece of text
    that numpy converts at once; `tree()` is the parser's literal tree of the same text."""

    text: str

    def tree(self) -> tuple[str, list[object]]:
        """`("{", items)` groups of number strings, built with a stack (no recursion)."""
        root: list[object] = []
        stack = [root]
        for piece in _BRACE_SPLIT.split(self.text[1:-1]):
            if piece == "{":
                group: list[object] = []
                stack[-1].append(("{", group))
                stack.append(group)
            elif piece == "}":
                stack.pop()
            else:
                stack[-1].extend(piece.replace(",", " ").split())
        return ("{", root)


_BRACE_SPLIT = re.compile(r"([{}])")
_NUMBER_CHARS = "0123456789.eE-+"
_NOT_SKELETON = str.maketrans("", "", _NUMBER_CHARS + " \t\r\n")
_BRACES_TO_SPACES = str.maketrans("{},", "   ")
_LONG_DIGITS = re.compile(r"\d{19}")
_BAD_PLUS = re.compile(r"(?<![eE])\+")
_IS_NUMBER = np.zeros(256, np.bool_)
_IS_NUMBER[np.frombuffer(_NUMBER_CHARS.encode(), np.uint8)] = True
_IS_SPACE = np.zeros(256, np.bool_)
_IS_SPACE[np.frombuffer(b" \t\r\n", np.uint8)] = True


def _block_array(shape: Shape, block: NumericBlock) -> np.ndarray | None:
    """The array of a numeric block, converted by numpy, or None when it needs the
    element-by-element reader (odd nesting or commas, odd tokens, range errors: that
    reader reports them)."""
    t, dims = shape.element_type, shape.dimensions
    if not dims or not (t.is_float or t.is_integral) or t.is_complex or t is P.PRED:
        return None
    text, count = block.text, math.prod(dims)
    is_int = t.is_integral
    if count == 0 or text.translate(_NOT_SKELETON) != _comma_skeleton(dims) \
            or not _one_number_per_slot(text, count) \
            or (is_int and any(c in text for c in ".eE+")) \
            or ("+" in text and _BAD_PLUS.search(text)):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            values = np.fromstring(text.translate(_BRACES_TO_SPACES),  # type: ignore[call-overload]
                                   dtype=np.int64 if is_int else np.float64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    if values.size != count:
        return None
    if is_int:
        return _block_ints(values, t, text, dims)
    # An integer token beyond 64 bits is an error for XLA's lexer: the slow path says so.
    if not np.isfinite(values).all() or (
            (np.abs(values) >= 2.0**63).any() and _LONG_DIGITS.search(text)):
        return None
    info = _float_info(t)
    converted = _from_double(values, info)
    as_double = converted.astype(np.float64)
    checked = np.where(np.isfinite(as_double), as_double, values)
    if ((checked > info.max) | (checked < info.lowest)).any():
        return None
    return converted.reshape(dims)


def _block_ints(values: np.ndarray, t: PrimitiveType, text: str,
                dims: tuple[int, ...]) -> np.ndarray | None:
    """Integers in range of t (numpy clamps beyond int64: those go the slow way)."""
    lo, hi = _int_range(t) if t.bits < 64 else (_INT64_MIN, _INT64_MAX)
    low, high = int(values.min()), int(values.max())
    if low < lo or high > hi or ((low == _INT64_MIN or high == _INT64_MAX)
                                 and _LONG_DIGITS.search(text)):
        return None
    return values.astype(t.numpy_dtype).reshape(dims)


def _one_number_per_slot(text: str, count: int) -> bool:
    """`count` runs of number characters, none separated from the next by spaces alone."""
    tight = text.replace(", ", ",").replace("{ ", "{").replace(" }", "}")
    if not any(c in tight for c in " \t\r\n"):
        # XLA's own spacing: with the skeleton checked, every slot between , { } holds
        # one run unless it is empty.
        return not any(empty in tight for empty in (",,", "{,", ",}", "{}"))
    raw = np.frombuffer(text.encode("latin-1"), np.uint8)
    number = _IS_NUMBER[raw]
    starts = number.copy()
    starts[1:] &= ~number[:-1]
    if int(starts.sum()) != count:
        return False
    keep = ~_IS_SPACE[raw]
    number, starts = number[keep], starts[keep]
    return not bool((starts[1:] & number[:-1]).any())


def _comma_skeleton(dims: tuple[int, ...]) -> str:
    """`{{,},{,}}` for dims (2, 2): a dense literal's braces and commas, numbers left out."""
    inner = "{" + "," * (dims[-1] - 1) + "}"
    for d in reversed(dims[:-1]):
        inner = "{" + ",".join([inner] * d) + "}"
    return inner


def literal_from_ast(shape: Shape, node: object) -> Literal:
    """Interpret the parser's literal tree against the constant's shape."""
    if isinstance(node, NumericBlock):
        values = _block_array(shape, node) if shape.is_array else None
        if values is not None:
            return _make(shape, values)
        node = node.tree()
    if shape.is_tuple:
        return _tuple_from_ast(shape, node)
    if not shape.is_array:
        raise LiteralError(f"no literal can be written for {_shape_key(shape)}", _first_token(node))
    dims = _static_dims(shape, node)
    if not dims:
        return _scalar_from_ast(shape, node)
    if _is_group(node, "{"):
        return _dense_from_ast(shape, dims, node)
    return _lenient_scalar(shape, dims, node)


def _is_group(node: object, kind: str) -> bool:
    """Whether node is a `("{", items)` or `("(", items)` group of the given kind."""
    if not isinstance(node, tuple):
        return False
    pair = cast(tuple[object, ...], node)
    return len(pair) == 2 and pair[0] == kind and isinstance(pair[1], list)


def _items(node: object) -> list[object]:
    """The items of a group node (callers check the kind with _is_group first)."""
    return cast(list[object], cast(tuple[object, ...], node)[1])


def _tuple_from_ast(shape: Shape, node: object) -> Literal:
    if not _is_group(node, "("):
        raise LiteralError(
            f"expects a tuple literal '(...)' for {_shape_key(shape)}", _first_token(node)
        )
    items = _items(node)
    parts = shape.tuple_shapes
    if len(items) != len(parts):
        raise LiteralError(
            f"expects {len(parts)} tuple elements for {_shape_key(shape)}, but sees {len(items)}",
            _first_token(node),
        )
    return Literal(shape, elements=tuple(map(literal_from_ast, parts, items)))


def _scalar_from_ast(shape: Shape, node: object) -> Literal:
    t = shape.element_type
    if _is_group(node, "{"):
        raise LiteralError(
            f"a rank-0 {t.value} literal is written without braces", _first_token(node)
        )
    values = _parse_elements([node], t)
    return _make(shape, values.reshape(()))


def _lenient_scalar(shape: Shape, dims: tuple[int, ...], node: object) -> Literal:
    """XLA quirk: a bare number for a non-empty array sets the first element only."""
    count = math.prod(dims)
    if not isinstance(node, str) or count == 0:
        raise LiteralError(
            f"expects a braced literal of rank {len(dims)} for {_shape_key(shape)}",
            _first_token(node),
        )
    first = _parse_elements([node], shape.element_type)
    values = np.zeros(count, shape.element_type.numpy_dtype)
    values[:1] = first
    return _make(shape, values.reshape(dims))


def _dense_from_ast(shape: Shape, dims: tuple[int, ...], node: object) -> Literal:
    items = _items(node)
    if len(items) == 1 and items[0] == "...":
        return Literal(shape, Literal.zeros(shape).data, elided=True)
    leaves: list[object] = []
    _collect_leaves(node, dims, 0, leaves)
    values = _parse_elements(leaves, shape.element_type)
    return _make(shape, values.reshape(dims))


def _collect_leaves(node: object, dims: tuple[int, ...], axis: int, out: list[object]) -> None:
    """Check the brace nesting against dims and gather the element nodes in order."""
    items = _items(node)
    if "..." in items:
        raise _not_a_scalar(next(item for item in items if item == "..."), P.TUPLE)
    if len(items) != dims[axis]:
        raise LiteralError(
            f"expects {dims[axis]} elements in dimension {axis}, but sees {len(items)}",
            _first_token(node),
        )
    if axis == len(dims) - 1:
        out.extend(items)
        return
    for item in items:
        if not _is_group(item, "{"):
            raise LiteralError(
                f"expects a braced list at nesting level {axis + 2} of a rank-{len(dims)} literal",
                _first_token(item),
            )
        _collect_leaves(item, dims, axis + 1, out)


def _make(shape: Shape, values: np.ndarray) -> Literal:
    values.setflags(write=False)
    return Literal(shape, values)
