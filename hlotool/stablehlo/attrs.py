"""StableHLO types and attribute values -> IR values: element types and shapes, dense
literals (splat, nested, hex blobs), and accessors that read an attribute in any of its
spellings (generic `array<i64: 1>`, `#stablehlo<precision HIGH>`, `#stablehlo.gather<...>`,
old-style `dense<[1]> : tensor<1xi64>`, and the pretty forms `[1]`, `HIGH`, ...).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from lark import Token

from hlotool.diagnostics import HloError, error_at
from hlotool.stablehlo.ast import (
    Brackets,
    BuiltinType,
    ComplexType,
    DenseArrayAttr,
    DenseAttr,
    DialectAttr,
    DialectType,
    DictAttr,
    FloatAttr,
    FutureType,
    Group,
    IntAttr,
    ListAttr,
    MlirType,
    StringAttr,
    SymbolAttr,
    TensorType,
    TupleType,
    TypeAttr,
    UnitAttr,
    WordAttr,
    soup_text,
)
from hlotool.ir.attributes import ConvDimensionNumbers
from hlotool.ir.literal import Literal
from hlotool.ir.types import UNBOUNDED, PrimitiveType, Shape
from hlotool.limits import check_constant_bytes

P = PrimitiveType

#: MLIR element type spellings (signless `iN` is signed in StableHLO).
ELEMENT_TYPES: dict[str, PrimitiveType] = {
    "i1": P.PRED, "i2": P.S2, "i4": P.S4, "i8": P.S8, "i16": P.S16, "i32": P.S32, "i64": P.S64,
    "si2": P.S2, "si4": P.S4, "si8": P.S8, "si16": P.S16, "si32": P.S32, "si64": P.S64,
    "ui1": P.U1, "ui2": P.U2, "ui4": P.U4, "ui8": P.U8, "ui16": P.U16, "ui32": P.U32,
    "ui64": P.U64, "f16": P.F16, "bf16": P.BF16, "f32": P.F32, "f64": P.F64,
    "f8E4M3FN": P.F8E4M3FN, "f8E5M2": P.F8E5M2, "f8E4M3FNUZ": P.F8E4M3FNUZ,
    "f8E5M2FNUZ": P.F8E5M2FNUZ, "f8E4M3B11FNUZ": P.F8E4M3B11FNUZ, "f8E4M3": P.F8E4M3,
    "f8E3M4": P.F8E3M4, "f8E8M0FNU": P.F8E8M0FNU, "f6E2M3FN": P.F6E2M3FN,
    "f6E3M2FN": P.F6E3M2FN, "f4E2M1FN": P.F4E2M1FN, "index": P.S64,
}  # fmt: skip
#: Element type -> MLIR spelling (for messages and dictionary text).
MLIR_NAMES: dict[PrimitiveType, str] = {t: n for n, t in reversed(list(ELEMENT_TYPES.items()))}


def _where(t: Any) -> Token | None:
    return getattr(t, "tok", None)


# -- quantized types ------------------------------------------------------------------------


_QUANT = re.compile(
    r"\s*(?P<storage>[a-z]+[0-9]+)\s*(?:<\s*(?P<lo>-?\d+)\s*:\s*(?P<hi>-?\d+)\s*>)?\s*:\s*"
    r"(?P<expressed>[a-zA-Z0-9]+)\s*(?::\s*(?P<axis>\d+))?\s*,\s*(?P<params>.*)\s*",
    re.S,
)


def quant_info(t: DialectType) -> dict[str, Any]:
    """`!quant.uniform<i8<-127:127>:f32:0, {0.1:-30, 0.5}>` as storage/expressed/scales/..."""
    body = soup_text(t.body.items) if t.body is not None else ""
    m = _QUANT.fullmatch(body)
    if m is None or t.name != "!quant.uniform":
        raise error_at(t.tok, f"unsupported quantized type {t.name}<{body}>")
    params = m.group("params").strip().strip("{}")
    scales: list[float] = []
    zero_points: list[int] = []
    for part in params.split(","):
        scale, _, zp = part.strip().partition(":")
        scales.append(float(scale))
        zero_points.append(int(zp) if zp else 0)
    storage = ELEMENT_TYPES.get(m.group("storage"))
    if storage is None:
        raise error_at(t.tok, f"unsupported quantized storage type {m.group('storage')}")
    bits = storage.bits
    lo_default = -(1 << (bits - 1)) if storage.is_signed_int else 0
    hi_default = (1 << (bits - 1)) - 1 if storage.is_signed_int else (1 << bits) - 1
    return {
        "storage": storage,
        "expressed": ELEMENT_TYPES.get(m.group("expressed"), P.F32),
        "min": int(m.group("lo")) if m.group("lo") else lo_default,
        "max": int(m.group("hi")) if m.group("hi") else hi_default,
        "axis": int(m.group("axis")) if m.group("axis") else None,
        "scales": scales,
        "zero_points": zero_points,
    }


# -- types -> IR shapes ---------------------------------------------------------------------


def element_type(t: MlirType, where: Token | None = None) -> PrimitiveType:
    """The IR element type of a tensor's element type (quantized types: their storage)."""
    if isinstance(t, BuiltinType):
        et = ELEMENT_TYPES.get(t.name)
        if et is None:
            raise error_at(
                t.tok or where,
                f"unsupported element type '{t.name}'",
                ("i1", "i32", "ui8", "f32", "bf16", "complex<f32>", "..."),
            )
        return et
    if isinstance(t, ComplexType):
        inner = element_type(t.element, where)
        if inner is P.F32:
            return P.C64
        if inner is P.F64:
            return P.C128
        raise error_at(
            where,
            f"complex<{MLIR_NAMES.get(inner, inner.value)}> is not supported "
            "(only complex<f32> and complex<f64>)",
        )
    if isinstance(t, DialectType):
        if t.name == "!stablehlo.token":
            return P.TOKEN
        if t.name == "!quant.uniform":
            return quant_info(t)["storage"]
        raise error_at(t.tok or where, f"unsupported type {t.name}")
    raise error_at(where, "expected an element type")


def to_shape(t: MlirType, where: Token | None = None) -> Shape:
    """The IR shape of a value type: tensors (with `?` as UNBOUNDED), tuples, tokens."""
    if isinstance(t, TensorType):
        et = element_type(t.element, t.tok or where)
        if et is P.TOKEN:
            raise error_at(t.tok or where, "tensors of tokens are not supported")
        dims, dynamic = _bounded(t)
        return Shape.array(et, dims, dynamic=dynamic)
    if isinstance(t, TupleType):
        return Shape.tuple_of([to_shape(x, where) for x in t.types])
    if isinstance(t, DialectType) and t.name == "!stablehlo.token":
        return Shape.token()
    if isinstance(t, FutureType):
        shapes = [to_shape(x, where) for x in t.types]
        return shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)
    if isinstance(t, (BuiltinType, ComplexType)):
        return Shape.scalar(element_type(t, where))
    raise error_at(_where(t) or where, f"unsupported value type {type(t).__name__}")


def _bounded(t: TensorType) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Dimensions, with `?` dims that have a `#stablehlo.bounds` entry as bounded `<=N`."""
    dims = list(t.dims)
    dynamic = [False] * len(dims)
    enc = t.encoding
    if isinstance(enc, DialectAttr) and enc.body is not None and "bounds" in enc.name:
        text = soup_text(enc.body.items)
        bounds = re.findall(r"\?|-?\d+", text.split("=")[-1])
        if len(bounds) != len(dims):
            raise error_at(enc.tok, f"{len(bounds)} bounds for a rank-{len(dims)} tensor")
        for i, b in enumerate(bounds):
            if b != "?" and dims[i] == UNBOUNDED:
                dims[i], dynamic[i] = int(b), True
    return tuple(dims), tuple(dynamic)


# -- dense literals -------------------------------------------------------------------------


_STRUCT = re.compile(r"\([^()]*\)|[^\s\[\],]+")
_ELEMENT = re.compile(r"\([^()]*\)|[^\s\[\](),]+")


def dense_literal(attr: DenseAttr, resources: dict[str, str] | None = None) -> Literal:
    """The Literal of `dense<...> : tensor<...>` (or `dense_resource<name>`)."""
    if not isinstance(attr.type, TensorType):
        raise error_at(attr.tok, "a dense literal needs a tensor type")
    shape = to_shape(attr.type, attr.tok)
    if UNBOUNDED in shape.dimensions:
        raise error_at(attr.tok, "a dense literal needs a static tensor type")
    try:
        if attr.is_resource:
            blob = (resources or {}).get(attr.body)
            if blob is None:
                raise error_at(
                    attr.tok,
                    f"dense_resource '{attr.body}' has no blob in the file's dialect_resources",
                )
            array = _hex_blob(blob[10:], shape, attr.tok)
        else:
            array = dense_array(attr.body, shape, attr.tok)
    except (ValueError, OverflowError) as exc:
        raise error_at(attr.tok, f"bad dense literal for {_type_text(shape)}: {exc}") from None
    if array.flags.writeable:
        array.setflags(write=False)
    return Literal(Shape.array(shape.element_type, shape.dimensions), array)


def dense_array(body: str, shape: Shape, tok: Token | None) -> np.ndarray:
    """Decode a dense body against an array shape (a splat as a lazy broadcast view)."""
    body = body.strip()
    dims = shape.dimensions
    if body.startswith('"'):
        return _hex_blob(body[1:-1].removeprefix("0x").removeprefix("0X"), shape, tok)
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if not body or re.fullmatch(r"[\[\]\s,]*", body):
        if count != 0:
            raise error_at(
                tok, f"empty dense literal for {_type_text(shape)} with {count} elements"
            )
        return np.zeros(dims, shape.element_type.numpy_dtype)
    if not body.startswith("["):
        value = _elements([body], shape.element_type, tok)
        return _splat(value, dims)
    _refuse_large(count, shape, tok)
    _check_nesting(body, dims, tok, shape)
    items = _ELEMENT.findall(body)
    return _elements(items, shape.element_type, tok).reshape(dims)


def _refuse_large(count: int, shape: Shape, tok: Token | None) -> None:
    """A dense (non-splat) constant above the memory limit is refused before allocation."""
    too_big = check_constant_bytes(count * shape.element_type.numpy_dtype.itemsize)
    if too_big:
        raise error_at(tok, too_big)


def _splat(value: np.ndarray, dims: tuple[int, ...]) -> np.ndarray:
    """Every element `value`: a read-only broadcast view, expanded only when needed."""
    one = value.reshape(-1)[:1].copy()
    one.setflags(write=False)
    return np.broadcast_to(one.reshape(()), dims)


def _check_nesting(body: str, dims: tuple[int, ...], tok: Token | None, shape: Shape) -> None:
    skeleton = re.sub(r"\s+", "", _STRUCT.sub("e", body))
    if skeleton != _skeleton(dims):
        raise error_at(tok, f"dense literal does not have the shape of {_type_text(shape)}")


def _skeleton(dims: tuple[int, ...]) -> str:
    if not dims:
        return "e"
    inner = _skeleton(dims[1:])
    return "[" + ",".join([inner] * dims[0]) + "]"


def _hex_blob(hexdigits: str, shape: Shape, tok: Token | None) -> np.ndarray:
    dtype = shape.element_type.numpy_dtype
    data = bytes.fromhex(hexdigits)
    count = int(np.prod(shape.dimensions, dtype=np.int64)) if shape.dimensions else 1
    size = dtype.itemsize
    if len(data) == size and count != 1:
        return _splat(np.frombuffer(data, dtype), shape.dimensions)
    _refuse_large(count, shape, tok)
    if len(data) != size * count:
        raise error_at(
            tok, f"hex literal has {len(data)} bytes, but {_type_text(shape)} needs {size * count}"
        )
    return np.frombuffer(data, dtype).reshape(shape.dimensions).copy()


def _elements(items: list[str], t: PrimitiveType, tok: Token | None) -> np.ndarray:
    dtype = t.numpy_dtype
    if t is P.PRED:
        return np.array([_bool_element(s, tok) for s in items], dtype)
    if t.is_integral:
        return _int_elements(items, t)
    if t.is_complex:
        parts: list[str] = []
        for s in items:
            inner = s.strip("()").split(",")
            if len(inner) != 2:
                raise error_at(tok, f"complex element '{s}' must be (real,imag)")
            parts.extend(p.strip() for p in inner)
        comps = _float_elements(parts, t.component_type)
        return comps.view(dtype).reshape(len(items)) if comps.size else np.zeros(0, dtype)
    if t.is_float:
        return _float_elements(items, t)
    raise error_at(tok, f"no dense literal for element type {t.value}")


def _bool_element(s: str, tok: Token | None) -> bool:
    if s in ("true", "1", "0x1", "0x01"):
        return True
    if s in ("false", "0", "0x0", "0x00"):
        return False
    raise error_at(tok, f"'{s}' is not a boolean")


def _int_elements(items: list[str], t: PrimitiveType) -> np.ndarray:
    bits = t.bits
    mask = (1 << bits) - 1
    raw = [int(s, 16) if s.lower().startswith(("0x", "-0x")) else int(s) for s in items]
    unsigned = [v & mask for v in raw]
    if t.is_unsigned_int:
        return np.array(unsigned, dtype=np.uint64).astype(t.numpy_dtype)
    half = 1 << (bits - 1)
    return np.array([v - (1 << bits) if v >= half else v for v in unsigned], np.int64).astype(
        t.numpy_dtype
    )


_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _float_elements(items: list[str], t: PrimitiveType) -> np.ndarray:
    dtype = t.numpy_dtype
    hexes = [s.lower().startswith("0x") for s in items]
    if not any(hexes):
        return np.array([float(s) for s in items], np.float64).astype(dtype)
    out = np.empty(len(items), dtype)
    bits = out.view(_UINT[dtype.itemsize])
    for i, (s, is_hex) in enumerate(zip(items, hexes, strict=True)):
        if is_hex:
            bits[i] = int(s, 16)
        else:
            out[i] = np.float64(float(s)).astype(dtype)
    return out


def _type_text(shape: Shape) -> str:
    dims = "x".join("?" if d == UNBOUNDED else str(d) for d in shape.dimensions)
    name = MLIR_NAMES.get(shape.element_type, shape.element_type.value)
    return f"tensor<{dims + 'x' if dims else ''}{name}>"


# -- soup -> Python values ------------------------------------------------------------------


def soup_value(items: tuple[Any, ...]) -> Any:
    """One value of a `key = value` soup entry: int, float, str, list or nested dict."""
    if len(items) == 1:
        item = items[0]
        if isinstance(item, Group) and item.open == "[":
            return [soup_value(part) for part in split_commas(item.items) if part]
        if isinstance(item, Group) and item.open == "<":
            return soup_fields(item.items)
        if isinstance(item, Token):
            if item.type == "INT":
                return int(item)
            if item.type == "DECIMAL":
                return float(item)
            if item.type == "STRING":
                return str(item)[1:-1]
            return str(item)
    if len(items) == 2 and isinstance(items[0], Token) and isinstance(items[1], Group):
        return (str(items[0]), soup_fields(items[1].items))
    return items


def split_commas(items: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    parts: list[list[Any]] = [[]]
    for item in items:
        if isinstance(item, Token) and item == ",":
            parts.append([])
        else:
            parts[-1].append(item)
    return [tuple(p) for p in parts]


def soup_fields(items: tuple[Any, ...]) -> dict[str, Any]:
    """`a = [1], b = 2, c = #x<...>` -> {"a": [1], "b": 2, "c": ("#x", {...})}."""
    out: dict[str, Any] = {}
    for part in split_commas(items):
        if not part:
            continue
        if len(part) >= 2 and isinstance(part[1], Token) and part[1] == "=":
            out[str(part[0])] = soup_value(part[2:])
        else:
            out[soup_text(part)] = True
    return out


# -- accessors: any spelling -> Python value ------------------------------------------------


def attr_error(tok: Token | None, key: str, what: str) -> HloError:
    return error_at(tok, f"attribute '{key}' should be {what}")


def get_ints(v: Any, key: str, tok: Token | None) -> tuple[int, ...]:
    """`array<i64: 1, 2>`, `[1, 2]`, `dense<[1, 2]> : tensor<2xi64>`."""
    if isinstance(v, DenseArrayAttr):
        if v.element == "i1" or not v.element.startswith(("i", "si", "ui")):
            raise attr_error(v.tok or tok, key, "an integer array")
        return tuple(int(x) for x in v.values)
    if isinstance(v, Brackets) and len(v.lists) == 1 and v.arrow is None:
        return tuple(_int_token(x, key, v.tok or tok) for x in v.lists[0])
    if isinstance(v, ListAttr):
        return tuple(get_int(x, key, v.tok or tok) for x in v.items)
    if isinstance(v, DenseAttr):
        lit = _small_dense(v, key, tok)
        if lit.array is None or not lit.shape.element_type.is_integral or lit.array.ndim > 1:
            raise attr_error(v.tok or tok, key, "an integer array")
        return tuple(int(x) for x in lit.array.reshape(-1))
    raise attr_error(_where(v) or tok, key, "an integer array such as array<i64: 0, 1>")


def get_bools(v: Any, key: str, tok: Token | None) -> tuple[bool, ...]:
    if isinstance(v, DenseArrayAttr) and v.element == "i1":
        return tuple(bool(x) for x in v.values)
    if isinstance(v, ListAttr):
        return tuple(get_bool(x, key, v.tok or tok) for x in v.items)
    if isinstance(v, Brackets) and len(v.lists) == 1:
        return tuple(get_bool(WordAttr(str(x), x), key, tok) for x in v.lists[0])
    if isinstance(v, DenseAttr):
        lit = _small_dense(v, key, tok)
        if lit.array is None:
            raise attr_error(tok, key, "a boolean array")
        return tuple(bool(x) for x in lit.array.reshape(-1))
    raise attr_error(_where(v) or tok, key, "a boolean array such as array<i1: true, false>")


#: Elements an attribute list written as a dense literal may have.
_MAX_ATTR_ELEMENTS = 1 << 16


def _small_dense(v: DenseAttr, key: str, tok: Token | None) -> Literal:
    """The literal of a dense attribute that lists a few values (not a huge splat)."""
    lit = dense_literal(v)
    if lit.data is not None and lit.data.size > _MAX_ATTR_ELEMENTS:
        raise attr_error(v.tok or tok, key, f"a list of at most {_MAX_ATTR_ELEMENTS} values")
    return lit


def _int_token(x: Any, key: str, tok: Token | None) -> int:
    if isinstance(x, int) and not isinstance(x, bool) and not isinstance(x, Token):
        return x
    if isinstance(x, Token) and x.type in ("INT", "HEX"):
        return int(str(x), 16) if x.type == "HEX" else int(str(x))
    raise attr_error(x if isinstance(x, Token) else tok, key, "a list of integers")


def get_int(v: Any, key: str, tok: Token | None) -> int:
    if isinstance(v, IntAttr):
        return v.value
    if isinstance(v, DenseAttr):
        lit = dense_literal(v)
        if lit.array is not None and lit.array.size == 1 and lit.shape.element_type.is_integral:
            return int(lit.array.reshape(-1)[0])
    raise attr_error(_where(v) or tok, key, "an integer")


def get_float(v: Any, key: str, tok: Token | None) -> float:
    if isinstance(v, FloatAttr):
        return v.value
    if isinstance(v, IntAttr):
        return float(v.value)
    raise attr_error(_where(v) or tok, key, "a number")


def get_bool(v: Any, key: str, tok: Token | None) -> bool:
    if isinstance(v, UnitAttr):
        return True
    if isinstance(v, WordAttr) and v.word in ("true", "false"):
        return v.word == "true"
    if isinstance(v, IntAttr) and v.value in (0, 1):
        return bool(v.value)
    raise attr_error(_where(v) or tok, key, "true or false")


def get_string(v: Any, key: str, tok: Token | None) -> str:
    if isinstance(v, StringAttr):
        return v.value
    if isinstance(v, SymbolAttr):
        return v.name
    raise attr_error(_where(v) or tok, key, "a string")


def get_symbol(v: Any, key: str, tok: Token | None) -> str:
    if isinstance(v, SymbolAttr):
        return v.name
    if isinstance(v, StringAttr):
        return v.value
    raise attr_error(_where(v) or tok, key, "a symbol such as @f")


def get_enum(v: Any, key: str, tok: Token | None, choices: tuple[str, ...]) -> str:
    """`GT`, `#stablehlo<comparison_direction GT>` or `#stablehlo.comparison_direction<GT>`."""
    word: str | None = None
    if isinstance(v, WordAttr):
        word = v.word
    elif isinstance(v, StringAttr):
        word = v.value
    elif isinstance(v, DialectAttr) and v.body is not None and v.body.items:
        last = v.body.items[-1]
        word = str(last) if isinstance(last, Token) else None
    if word is None or word not in choices:
        raise error_at(
            _where(v) or tok, f"attribute '{key}' should be one of {', '.join(choices)}", choices
        )
    return word


def get_fields(v: Any, key: str, tok: Token | None) -> dict[str, Any]:
    """Fields of `#stablehlo.gather<...>`-like attributes, a pretty `<...>` or a dict."""
    if isinstance(v, DialectAttr) and v.body is not None:
        return soup_fields(v.body.items)
    if isinstance(v, Group) and v.open == "<":
        return soup_fields(v.items)
    if isinstance(v, DictAttr):
        return dict(v.entries)
    raise attr_error(_where(v) or tok, key, "a #stablehlo.<kind><...> attribute")


def field_ints(fields: dict[str, Any], name: str, tok: Token | None) -> tuple[int, ...]:
    """A list-of-integers field (absent means empty)."""
    value = fields.get(name, [])
    if isinstance(value, list) and all(isinstance(x, int) for x in value):
        return tuple(value)
    try:
        return get_ints(value, name, tok)
    except HloError:
        raise error_at(tok, f"field '{name}' should be a list of integers") from None


def field_int(fields: dict[str, Any], name: str, default: int, tok: Token | None) -> int:
    value = fields.get(name, default)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, IntAttr):
        return value.value
    raise error_at(tok, f"field '{name}' should be an integer")


def get_precision(v: Any, key: str, tok: Token | None) -> tuple[str, ...]:
    """`[#stablehlo<precision DEFAULT>, ...]` or pretty `[DEFAULT, HIGH]` -> lower case."""
    words: list[Any]
    if isinstance(v, ListAttr):
        words = list(v.items)
    elif isinstance(v, Brackets) and len(v.lists) == 1:
        words = [WordAttr(str(x), x) for x in v.lists[0]]
    else:
        raise attr_error(_where(v) or tok, key, "a list of precisions")
    return tuple(get_enum(w, key, tok, ("DEFAULT", "HIGH", "HIGHEST")).lower() for w in words)


def get_padding(v: Any, key: str, tok: Token | None) -> tuple[tuple[int, int], ...]:
    """`dense<[[1, 1], [0, 2]]> : tensor<2x2xi64>` or `[[1, 1], [0, 2]]` -> pairs."""
    if isinstance(v, DenseAttr):
        lit = _small_dense(v, key, tok)
        arr = lit.array
        if arr is None or not lit.shape.element_type.is_integral or (arr.size and arr.ndim != 2):
            raise attr_error(v.tok or tok, key, "an Nx2 integer tensor")
        return tuple((int(a), int(b)) for a, b in arr.reshape(-1, 2))
    if isinstance(v, ListAttr):
        out = []
        for item in v.items:
            pair = get_ints(item, key, tok)
            if len(pair) != 2:
                raise attr_error(tok, key, "a list of [low, high] pairs")
            out.append((pair[0], pair[1]))
        return tuple(out)
    raise attr_error(_where(v) or tok, key, "padding pairs")


# -- convolution dimension numbers ----------------------------------------------------------


def get_conv_dims(v: Any, key: str, tok: Token | None) -> ConvDimensionNumbers:
    """`[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` (pretty or inside `#stablehlo.conv<...>`),
    or the raw `#stablehlo.conv<raw input_batch_dimension = 0, ...>` form."""
    if isinstance(v, Brackets) and len(v.lists) == 2 and v.arrow is not None:
        lists = [list(map(str, v.lists[0])), list(map(str, v.lists[1])), list(map(str, v.arrow))]
        return _conv_from_labels(lists, v.tok or tok)
    if isinstance(v, DialectAttr) and v.body is not None:
        items = v.body.items
        if items and isinstance(items[0], Token) and items[0] == "raw":
            return _conv_from_raw(soup_fields(items[1:]), v.tok or tok)
        groups = [x for x in items if isinstance(x, Group) and x.open == "["]
        if len(groups) == 3:
            lists = [
                [soup_text((y,)) for y in g.items if not (isinstance(y, Token) and y == ",")]
                for g in groups
            ]
            return _conv_from_labels(lists, v.tok or tok)
    raise attr_error(
        _where(v) or tok,
        key,
        "convolution dimension numbers like [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
    )


def _conv_from_labels(lists: list[list[str]], tok: Token | None) -> ConvDimensionNumbers:
    lhs, rhs, out = lists

    def locate(labels: list[str], a: str, b: str) -> tuple[int, int, tuple[int, ...]]:
        if labels.count(a) != 1 or labels.count(b) != 1:
            raise error_at(tok, f"[{', '.join(labels)}] must contain '{a}' and '{b}' once")
        n = len(labels) - 2
        spatial = [x for x in labels if x not in (a, b)]
        if sorted(spatial) != sorted(str(i) for i in range(n)):
            raise error_at(tok, f"[{', '.join(labels)}] must name spatial dimensions 0..{n - 1}")
        return labels.index(a), labels.index(b), tuple(labels.index(str(i)) for i in range(n))

    if not len(lhs) == len(rhs) == len(out):
        raise error_at(tok, "convolution dimension numbers must all have the same rank")
    ib, if_, isp = locate(lhs, "b", "f")
    ki, ko, ksp = locate(rhs, "i", "o")
    ob, of, osp = locate(out, "b", "f")
    return ConvDimensionNumbers(ib, if_, isp, ki, ko, ksp, ob, of, osp)


def _conv_from_raw(f: dict[str, Any], tok: Token | None) -> ConvDimensionNumbers:
    def one(name: str) -> int:
        return field_int(f, name, 0, tok)

    def many(name: str) -> tuple[int, ...]:
        return field_ints(f, name, tok)

    return ConvDimensionNumbers(
        one("input_batch_dimension"), one("input_feature_dimension"),
        many("input_spatial_dimensions"), one("kernel_input_feature_dimension"),
        one("kernel_output_feature_dimension"), many("kernel_spatial_dimensions"),
        one("output_batch_dimension"), one("output_feature_dimension"),
        many("output_spatial_dimensions"),
    )  # fmt: skip


# -- attribute dictionaries as MLIR text (custom-call backend configs) ----------------------


def attr_text(v: Any) -> str:
    """MLIR's printing of an attribute value (used to keep `mhlo.backend_config` dicts)."""
    if isinstance(v, DictAttr):
        return (
            "{"
            + ", ".join(
                k if isinstance(x, UnitAttr) else f"{k} = {attr_text(x)}" for k, x in v.entries
            )
            + "}"
        )
    if isinstance(v, IntAttr):
        return f"{v.value} : {type_text(v.type)}" if v.type is not None else str(v.value)
    if isinstance(v, FloatAttr):
        text = float_text(v.value, v.type)
        return f"{text} : {type_text(v.type)}" if v.type is not None else text
    if isinstance(v, StringAttr):
        return '"' + v.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, WordAttr):
        return v.word
    if isinstance(v, ListAttr):
        return "[" + ", ".join(attr_text(x) for x in v.items) + "]"
    if isinstance(v, Brackets):
        text = " x ".join("[" + ", ".join(str(x) for x in lst) + "]" for lst in v.lists)
        if v.arrow is not None:
            text += "->[" + ", ".join(str(x) for x in v.arrow) + "]"
        return text
    if isinstance(v, DenseArrayAttr):
        body = ", ".join(str(x).lower() if isinstance(x, bool) else str(x) for x in v.values)
        return f"array<{v.element}{': ' + body if body else ''}>"
    if isinstance(v, DenseAttr):
        return f"dense<{v.body}> : {type_text(v.type)}"
    if isinstance(v, SymbolAttr):
        return "@" + v.name
    if isinstance(v, DialectAttr):
        return v.name + (soup_text((v.body,)) if v.body is not None else "")
    if isinstance(v, TypeAttr):
        return type_text(v.type)
    if isinstance(v, UnitAttr):
        return "unit"
    return str(v)


def float_text(value: float, t: MlirType | None) -> str:
    """A canonical spelling of a float attribute: `%.6e` when exact, else shortest."""
    et = ELEMENT_TYPES.get(t.name) if isinstance(t, BuiltinType) else None
    dtype = et.numpy_dtype if et is not None and et.is_float else np.dtype(np.float64)
    stored = np.array(value).astype(dtype)
    short = f"{value:.6e}"
    if np.array(float(short)).astype(dtype) == stored or not np.isfinite(stored):
        return short
    return repr(float(stored)) if dtype == np.float64 else str(stored)


def type_text(t: MlirType | None) -> str:
    if isinstance(t, BuiltinType):
        return t.name
    if isinstance(t, ComplexType):
        return f"complex<{type_text(t.element)}>"
    if isinstance(t, TensorType):
        dims = "".join(("?" if d == UNBOUNDED else str(d)) + "x" for d in t.dims)
        return f"tensor<{dims}{type_text(t.element)}>"
    if isinstance(t, TupleType):
        return "tuple<" + ", ".join(type_text(x) for x in t.types) + ">"
    if isinstance(t, DialectType):
        return t.name + (soup_text((t.body,)) if t.body is not None else "")
    return "?"
