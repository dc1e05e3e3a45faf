"""The builtin dialect's attribute and type encodings (MLIR's BuiltinDialectBytecode):
the ones portable artifacts use (names, dictionaries, locations, module attributes)."""

from __future__ import annotations

from typing import Any

from hlotool.bytecode.model import BcAttr, BcType

#: Attribute codes, in the order of MLIR's BuiltinDialectAttributes.
ATTRS = ("Array", "Dictionary", "String", "StringWithType", "FlatSymbolRef", "SymbolRef",
         "Type", "Unit", "Integer", "Float", "CallSiteLoc", "FileLineColLoc", "FusedLoc",
         "FusedLocWithMetadata", "NameLoc", "UnknownLoc", "DenseResourceElements",
         "DenseArray", "DenseIntOrFPElements", "DenseStringElements", "SparseElements",
         "Distinct", "FileLineColRange")
#: Type codes, in the order of MLIR's BuiltinDialectTypes.
TYPES = ("Integer", "Index", "Function", "BF16", "F16", "F32", "F64", "F80", "F128",
         "Complex", "MemRef", "MemRefWithMemSpace", "None", "RankedTensor",
         "RankedTensorWithEncoding", "Tuple", "UnrankedMemRef", "UnrankedMemRefWithMemSpace",
         "UnrankedTensor", "Vector", "VectorWithScalableDims")
_FLOAT_BITS = {"BF16": 16, "F16": 16, "F32": 32, "F64": 64, "F80": 80, "F128": 128}
_ATTR_CODE = {name: i for i, name in enumerate(ATTRS)}
_TYPE_CODE = {name: i for i, name in enumerate(TYPES)}


def bit_width(t: BcType) -> int:
    """Storage width of an integer, index or float type (builtin or vhlo)."""
    if t.dialect == "builtin":
        if t.kind == "Integer":
            return int(t.args[0])
        if t.kind == "Index":
            return 64
        return _FLOAT_BITS[t.kind]
    from hlotool.bytecode.vhlo import scalar_bits

    return scalar_bits(t)


def read_attribute(r: Any) -> BcAttr:
    code = r.varint()
    if code >= len(ATTRS):
        raise r.error(f"unknown builtin attribute code {code}")
    kind = ATTRS[code]
    args: tuple[Any, ...]
    if kind == "Array":
        args = r.attributes()
    elif kind == "Dictionary":
        args = r.list(lambda: (_name(r.attribute()), r.attribute()))
    elif kind in ("String", "FlatSymbolRef"):
        args = (r.string(),) if kind == "String" else (_name(r.attribute()),)
    elif kind == "StringWithType":
        args = (r.string(), r.type())
    elif kind == "SymbolRef":
        args = (_name(r.attribute()), tuple(_name(a.args[0]) for a in r.attributes()))
    elif kind == "Type":
        args = (r.type(),)
    elif kind in ("Unit", "UnknownLoc"):
        args = ()
    elif kind in ("Integer", "Float"):
        t = r.type()
        args = (t, r.apint(bit_width(t)))
    elif kind == "CallSiteLoc":
        args = (r.attribute(), r.attribute())
    elif kind == "FileLineColLoc":
        args = (_name(r.attribute()), r.varint(), r.varint())
    elif kind == "FusedLoc":
        args = (r.attributes(),)
    elif kind == "FusedLocWithMetadata":
        args = (r.attributes(), r.attribute())
    elif kind == "NameLoc":
        args = (_name(r.attribute()), r.attribute())
    elif kind == "DenseArray":
        args = (r.type(), r.varint(), bytes(r.blob()))
    elif kind == "DenseIntOrFPElements":
        args = (r.type(), r.blob())
    elif kind == "FileLineColRange":
        args = _read_range(r)
    else:
        raise r.error(f"builtin attribute {kind} is not supported in portable artifacts")
    return BcAttr("builtin", kind, args)


def _read_range(r: Any) -> tuple[Any, ...]:
    """FileLineColRange: file, then a varint count of the line/column numbers that follow."""
    name = _name(r.attribute())
    n = r.varint()
    return (name, *(r.varint() for _ in range(n)))


def _name(attr: Any) -> str:
    if isinstance(attr, BcAttr) and attr.kind in ("String", "StringWithType"):
        return str(attr.args[0])
    if isinstance(attr, BcAttr) and attr.kind == "StringV1":
        return str(attr.args[0])
    raise TypeError(f"expected a string attribute, got {attr}")


def read_type(r: Any) -> BcType:
    code = r.varint()
    if code >= len(TYPES):
        raise r.error(f"unknown builtin type code {code}")
    kind = TYPES[code]
    args: tuple[Any, ...] = ()
    if kind == "Integer":
        v = r.varint()
        args = (v >> 2, v & 3)
    elif kind == "Function":
        args = (r.types(), r.types())
    elif kind == "Complex" or kind == "UnrankedTensor":
        args = (r.type(),)
    elif kind == "RankedTensor":
        args = (r.svarints(), r.type(), None)
    elif kind == "RankedTensorWithEncoding":
        enc = r.attribute()
        kind, args = "RankedTensor", (r.svarints(), r.type(), enc)
    elif kind == "Tuple":
        args = (r.types(),)
    elif kind in ("Vector", "MemRef", "MemRefWithMemSpace", "UnrankedMemRef",
                  "UnrankedMemRefWithMemSpace", "VectorWithScalableDims"):
        raise r.error(f"builtin type {kind} is not supported in portable artifacts")
    return BcType("builtin", kind, args)


def write_attribute(w: Any, a: BcAttr) -> None:
    w.varint(_ATTR_CODE[a.kind])
    k, args = a.kind, a.args
    if k == "Array":
        w.attributes(args)
    elif k == "Dictionary":
        w.list(args, lambda kv: (w.attribute(string(kv[0])), w.attribute(kv[1])))
    elif k == "String":
        w.string(args[0])
    elif k == "FlatSymbolRef":
        w.attribute(string(args[0]))
    elif k == "Type":
        w.type(args[0])
    elif k in ("Integer", "Float"):
        w.type(args[0])
        w.apint(args[1], bit_width(args[0]))
    elif k == "CallSiteLoc":
        w.attribute(args[0])
        w.attribute(args[1])
    elif k == "FileLineColLoc":
        w.attribute(string(args[0]))
        w.varint(args[1])
        w.varint(args[2])
    elif k == "FusedLoc":
        w.attributes(args[0])
    elif k == "NameLoc":
        w.attribute(string(args[0]))
        w.attribute(args[1])
    elif k == "FileLineColRange":
        w.attribute(string(args[0]))
        w.varint(len(args) - 1)
        for v in args[1:]:
            w.varint(v)
    elif k == "FusedLocWithMetadata":
        w.attributes(args[0])
        w.attribute(args[1])
    elif k == "StringWithType":
        w.string(args[0])
        w.type(args[1])
    elif k == "SymbolRef":
        w.attribute(string(args[0]))
        w.attributes(tuple(BcAttr("builtin", "FlatSymbolRef", (n,)) for n in args[1]))
    elif k == "DenseArray":
        w.type(args[0])
        w.varint(args[1])
        w.blob(args[2])
    elif k == "DenseIntOrFPElements":
        w.type(args[0])
        w.blob(args[1])
    elif k not in ("Unit", "UnknownLoc"):
        raise ValueError(f"cannot write builtin attribute {k}")


def write_type(w: Any, t: BcType) -> None:
    if t.kind == "RankedTensor" and t.args[2] is not None:
        w.varint(_TYPE_CODE["RankedTensorWithEncoding"])
        w.attribute(t.args[2])
        w.svarints(t.args[0])
        w.type(t.args[1])
        return
    w.varint(_TYPE_CODE[t.kind])
    if t.kind == "Integer":
        w.varint(t.args[0] << 2 | t.args[1])
    elif t.kind == "Function":
        w.types(t.args[0])
        w.types(t.args[1])
    elif t.kind == "RankedTensor":
        w.svarints(t.args[0])
        w.type(t.args[1])
    elif t.kind in ("Complex", "UnrankedTensor"):
        w.type(t.args[0])
    elif t.kind == "Tuple":
        w.types(t.args[0])


def string(s: str) -> BcAttr:
    return BcAttr("builtin", "String", (s,))


def unknown_loc() -> BcAttr:
    return BcAttr("builtin", "UnknownLoc")
