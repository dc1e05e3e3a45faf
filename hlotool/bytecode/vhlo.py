"""The VHLO dialect's attribute and type encodings (StableHLO's VhloBytecode.cpp).

Kinds are named as in VHLO without the `Attr`/`Type` suffix (`TensorV1`, `RankedTensorV1`).
"""

from __future__ import annotations

from typing import Any

from hlotool.bytecode.model import BcAttr, BcType

#: Attribute code -> kind (code 0, ArgResultAliasV1, is retired).
ATTRS = {1: "ArrayV1", 2: "BooleanV1", 3: "ComparisonDirectionV1", 4: "ComparisonTypeV1",
         5: "CustomCallApiVersionV1", 6: "DictionaryV1", 7: "FftTypeV1", 8: "FloatV1",
         9: "IntegerV1", 10: "OutputOperandAliasV1", 11: "PrecisionV1", 12: "RngAlgorithmV1",
         13: "RngDistributionV1", 14: "StringV1", 15: "TensorV1", 16: "TransposeV1",
         17: "TypeV1", 18: "TypeExtensionsV1", 19: "ResultAccuracyModeV1",
         20: "ResultAccuracyV1", 21: "SubAxisInfoV1", 22: "AxisRefV1",
         23: "ReplicaGroupMeshAxesV1", 24: "MeshAxisV1", 25: "MeshV1"}
#: Type code -> kind.
TYPES = {0: "BooleanV1", 1: "ComplexV1", 2: "FloatBF16V1", 3: "FloatF16V1", 4: "FloatF32V1",
         5: "FloatF64V1", 6: "FloatF8E4M3FNV1", 7: "FloatF8E5M2V1", 8: "FunctionV1",
         9: "IndexV1", 10: "IntegerSI4V1", 11: "IntegerSI8V1", 12: "IntegerSI16V1",
         13: "IntegerSI32V1", 14: "IntegerSI64V1", 15: "IntegerUI4V1", 16: "IntegerUI8V1",
         17: "IntegerUI16V1", 18: "IntegerUI32V1", 19: "IntegerUI64V1",
         20: "RankedTensorV1", 21: "RankedTensorV1WithEncoding", 22: "TokenV1", 23: "TupleV1",
         24: "UniformQuantizedV1", 25: "UnrankedTensorV1", 26: "WitnessV1",
         27: "FloatF8E4M3FNUZV1", 28: "FloatF8E5M2FNUZV1", 29: "FloatF8E4M3B11FNUZV1",
         30: "UniformQuantizedPerAxisV1", 31: "IntegerSI2V1", 32: "IntegerUI2V1",
         33: "NoneV1", 34: "FloatTF32V1", 35: "FloatF8E4M3V1", 36: "FloatF8E3M4V1",
         37: "FloatF4E2M1FNV1", 38: "FloatF6E2M3FNV1", 39: "FloatF6E3M2FNV1",
         40: "FloatF8E8M0FNUV1", 41: "RankedBufferV1", 42: "FutureV1"}
_ATTR_CODE = {k: c for c, k in ATTRS.items()}
_TYPE_CODE = {k: c for c, k in TYPES.items()}
#: Enum attributes: kind -> spellings by value (VhloEnums.td).
ENUMS: dict[str, tuple[str, ...]] = {
    "ComparisonDirectionV1": ("EQ", "NE", "GE", "GT", "LE", "LT"),
    "ComparisonTypeV1": ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"),
    "CustomCallApiVersionV1": ("API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL",
                               "API_VERSION_STATUS_RETURNING",
                               "API_VERSION_STATUS_RETURNING_UNIFIED",
                               "API_VERSION_TYPED_FFI"),
    "FftTypeV1": ("FFT", "IFFT", "RFFT", "IRFFT"),
    "PrecisionV1": ("DEFAULT", "HIGH", "HIGHEST"),
    "RngAlgorithmV1": ("DEFAULT", "THREE_FRY", "PHILOX"),
    "RngDistributionV1": ("UNIFORM", "NORMAL"),
    "TransposeV1": ("TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"),
    "ResultAccuracyModeV1": ("DEFAULT", "HIGHEST", "TOLERANCE"),
}
_BITS = {"BooleanV1": 1, "FloatBF16V1": 16, "FloatF16V1": 16, "FloatF32V1": 32,
         "FloatF64V1": 64, "FloatTF32V1": 19, "IndexV1": 64, "FloatF4E2M1FNV1": 4,
         "FloatF6E2M3FNV1": 6, "FloatF6E3M2FNV1": 6}


def scalar_bits(t: BcType) -> int:
    """Width of a VHLO integer or float element type."""
    if t.kind in _BITS:
        return _BITS[t.kind]
    if t.kind.startswith("Integer"):
        return int(t.kind[9:-2])
    if t.kind.startswith("FloatF8"):
        return 8
    raise ValueError(f"{t.kind} has no bit width")


def read_attribute(r: Any) -> BcAttr:
    code = r.varint()
    kind = ATTRS.get(code)
    if kind is None:
        raise r.error(f"unknown vhlo attribute code {code}")
    args: tuple[Any, ...]
    if kind in ENUMS:
        v = r.varint()
        if v >= len(ENUMS[kind]):
            raise r.error(f"{kind} value {v} is out of range")
        args = (ENUMS[kind][v],)
    elif kind == "ArrayV1":
        args = r.attributes()
    elif kind == "BooleanV1":
        v = r.varint()
        if v > 1:
            raise r.error(f"a boolean must be 0 or 1, got {v}")
        args = (bool(v),)
    elif kind == "DictionaryV1":
        args = r.list(lambda: (r.attribute(), r.attribute()))
    elif kind in ("FloatV1", "IntegerV1"):
        t = r.type()
        args = (t, r.apint(scalar_bits(t)))
    elif kind == "OutputOperandAliasV1":
        args = (r.svarints(), r.svarint(), r.svarints())
    elif kind == "StringV1":
        args = (r.string(),)
    elif kind == "TensorV1":
        t = r.type()
        args = (t, _tensor_data(r, t, r.blob()))
    elif kind == "TypeV1":
        args = (r.type(),)
    elif kind == "TypeExtensionsV1":
        args = (r.svarints(),)
    elif kind == "ResultAccuracyV1":
        args = (r.apint(64), r.apint(64), r.svarint(), r.attribute())
    elif kind in ("SubAxisInfoV1",):
        args = (r.svarint(), r.svarint())
    elif kind == "AxisRefV1":
        name = r.attribute()
        args = (name, r.attribute() if r.varint() else None)
    elif kind == "ReplicaGroupMeshAxesV1":
        args = (r.attribute(), r.attribute())
    elif kind == "MeshAxisV1":
        args = (r.attribute(), r.svarint())
    else:
        args = (r.attribute(), r.optional_attribute())
    return BcAttr("vhlo", kind, args)


def _tensor_data(r: Any, t: BcType, blob: memoryview) -> bytes | memoryview:
    """A tensor's raw data; booleans are unpacked from bits to bytes (or kept a splat)."""
    if t.kind != "RankedTensorV1" or t.args[1].kind != "BooleanV1":
        return blob
    n = 1
    for d in t.args[0]:
        n *= d
    if len(blob) == 1 and blob[0] == 0xFF:
        return b"\x01"
    if len(blob) == (n + 7) // 8 and len(blob) != n:
        import numpy as np

        bits = np.unpackbits(np.frombuffer(blob, np.uint8), bitorder="little")[:n]
        return bits.astype(np.uint8).tobytes()
    return blob


def read_type(r: Any) -> BcType:
    code = r.varint()
    kind = TYPES.get(code)
    if kind is None:
        raise r.error(f"unknown vhlo type code {code}")
    args: tuple[Any, ...] = ()
    if kind in ("ComplexV1", "UnrankedTensorV1"):
        args = (r.type(),)
    elif kind == "FunctionV1":
        args = (r.types(), r.types())
    elif kind == "RankedTensorV1":
        args = (r.svarints(), r.type(), None)
    elif kind == "RankedTensorV1WithEncoding":
        enc = r.attribute()
        kind, args = "RankedTensorV1", (r.svarints(), r.type(), enc)
    elif kind in ("TupleV1", "FutureV1"):
        args = (r.types(),)
    elif kind == "UniformQuantizedV1":
        args = (r.varint(), r.type(), r.type(), r.apint(64), r.svarint(), r.svarint(),
                r.svarint())
    elif kind == "UniformQuantizedPerAxisV1":
        args = (r.varint(), r.type(), r.type(), r.varint(), r.svarint(), r.svarint(),
                r.list(lambda: r.apint(64)), r.list(r.svarint))
    elif kind == "RankedBufferV1":
        args = (r.svarints(), r.type())
    return BcType("vhlo", kind, args)


def write_attribute(w: Any, a: BcAttr) -> None:
    k, args = a.kind, a.args
    w.varint(_ATTR_CODE[k])
    if k in ENUMS:
        w.varint(ENUMS[k].index(args[0]))
    elif k == "ArrayV1":
        w.attributes(args)
    elif k == "BooleanV1":
        w.varint(int(args[0]))
    elif k == "DictionaryV1":
        w.list(args, lambda kv: (w.attribute(kv[0]), w.attribute(kv[1])))
    elif k in ("FloatV1", "IntegerV1"):
        w.type(args[0])
        w.apint(args[1], scalar_bits(args[0]))
    elif k == "OutputOperandAliasV1":
        w.svarints(args[0])
        w.svarint(args[1])
        w.svarints(args[2])
    elif k == "StringV1":
        w.string(args[0])
    elif k == "TensorV1":
        w.type(args[0])
        w.blob(_pack_bools(args[0], args[1]))
    elif k == "TypeV1":
        w.type(args[0])
    elif k == "TypeExtensionsV1":
        w.svarints(args[0])
    elif k == "ResultAccuracyV1":
        w.apint(args[0], 64)
        w.apint(args[1], 64)
        w.svarint(args[2])
        w.attribute(args[3])
    else:
        raise ValueError(f"cannot write vhlo attribute {k}")


def _pack_bools(t: BcType, data: bytes | memoryview) -> bytes | memoryview:
    if t.args[1].kind != "BooleanV1":
        return data
    n = 1
    for d in t.args[0]:
        n *= d
    if len(data) == 1 and n > 1:
        return b"\xff" if data[0] else b"\x00"
    import numpy as np

    return np.packbits(np.frombuffer(data, np.uint8) != 0, bitorder="little").tobytes()


def write_type(w: Any, t: BcType) -> None:
    k, args = t.kind, t.args
    if k == "RankedTensorV1":
        if args[2] is not None:
            w.varint(_TYPE_CODE["RankedTensorV1WithEncoding"])
            w.attribute(args[2])
        else:
            w.varint(_TYPE_CODE[k])
        w.svarints(args[0])
        w.type(args[1])
        return
    w.varint(_TYPE_CODE[k])
    if k in ("ComplexV1", "UnrankedTensorV1"):
        w.type(args[0])
    elif k == "FunctionV1":
        w.types(args[0])
        w.types(args[1])
    elif k in ("TupleV1", "FutureV1"):
        w.types(args[0])
    elif k == "UniformQuantizedV1":
        w.varint(args[0])
        w.type(args[1])
        w.type(args[2])
        w.apint(args[3], 64)
        for v in args[4:]:
            w.svarint(v)
