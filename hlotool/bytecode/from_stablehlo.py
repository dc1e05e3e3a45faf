"""StableHLO text -> a VHLO BcModule at a target version (StableHLO's
StablehloLegalizeToVhlo and VhloToVersion), for `writer` to encode.

The text is parsed by the StableHLO front end into its op tree (every op in generic form);
each op becomes the newest VHLO version of it that the target has, with the attributes
StableHLO leaves implicit spelled out, as VHLO requires.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from hlotool.bytecode.model import BcAttr, BcModule, BcType, Block, Op, Region, Value
from hlotool.bytecode.to_stablehlo import DYNAMIC
from hlotool.bytecode.vhlo import ENUMS
from hlotool.bytecode.vhlo_ops import OPS
from hlotool.diagnostics import HloError, error_at
from hlotool.stablehlo import ast as A
from hlotool.stablehlo.attrs import dense_literal, get_conv_dims, soup_fields

Version = tuple[int, int, int]
_SCALAR_TYPES = {"i1": "BooleanV1", "bf16": "FloatBF16V1", "f16": "FloatF16V1",
                 "f32": "FloatF32V1", "f64": "FloatF64V1", "tf32": "FloatTF32V1",
                 "index": "IndexV1", "none": "NoneV1", "f8E4M3FN": "FloatF8E4M3FNV1",
                 "f8E5M2": "FloatF8E5M2V1", "f8E4M3FNUZ": "FloatF8E4M3FNUZV1",
                 "f8E5M2FNUZ": "FloatF8E5M2FNUZV1", "f8E4M3B11FNUZ": "FloatF8E4M3B11FNUZV1",
                 "f8E4M3": "FloatF8E4M3V1", "f8E3M4": "FloatF8E3M4V1"}
_ENUM_KIND = {"comparison_direction": "ComparisonDirectionV1",
              "comparison_type": "ComparisonTypeV1", "fft_type": "FftTypeV1",
              "precision": "PrecisionV1", "rng_algorithm": "RngAlgorithmV1",
              "rng_distribution": "RngDistributionV1", "transpose": "TransposeV1"}
_UNKNOWN = BcAttr("builtin", "UnknownLoc")
#: Integer attributes that are 32-bit (the pretty forms print them without a type).
_I32_ATTRS = {("get_tuple_element", "index"), ("composite", "version")}
#: Attributes the pretty forms give as bare enum words.
_WORD_KEYS = {"comparison_direction": "ComparisonDirectionV1",
              "compare_type": "ComparisonTypeV1", "fft_type": "FftTypeV1",
              "rng_algorithm": "RngAlgorithmV1", "rng_distribution": "RngDistributionV1",
              "transpose_a": "TransposeV1"}
_NONE_TYPE = BcAttr("vhlo", "TypeV1", (BcType("vhlo", "NoneV1"),))
_I64 = BcType("vhlo", "IntegerSI64V1")
_ACCURACY_OPS = {"cbrt", "cosine", "exponential", "exponential_minus_one", "log",
                 "log_plus_one", "logistic", "rsqrt", "sine", "sqrt", "tan", "tanh"}


def vtype(t: Any) -> BcType:
    """An AST type as a VHLO type."""
    if isinstance(t, A.BuiltinType):
        name = t.name
        if name in _SCALAR_TYPES:
            return BcType("vhlo", _SCALAR_TYPES[name])
        if name.startswith(("i", "si", "ui")) and name.lstrip("usi").isdigit():
            sign = "UI" if name.startswith("ui") else "SI"
            return BcType("vhlo", f"Integer{sign}{name.lstrip('usi')}V1")
        raise error_at(t.tok, f"type {name} has no VHLO form")
    if isinstance(t, A.TensorType):
        dims = tuple(DYNAMIC if d < 0 else d for d in t.dims)
        enc = _bounds(t.encoding) if t.encoding is not None else None
        return BcType("vhlo", "RankedTensorV1", (dims, vtype(t.element), enc))
    if isinstance(t, A.ComplexType):
        return BcType("vhlo", "ComplexV1", (vtype(t.element),))
    if isinstance(t, A.TupleType):
        return BcType("vhlo", "TupleV1", (tuple(vtype(e) for e in t.types),))
    if isinstance(t, A.FunctionType):
        return BcType("vhlo", "FunctionV1", (tuple(vtype(e) for e in t.inputs),
                                             tuple(vtype(e) for e in t.results)))
    if isinstance(t, A.DialectType) and t.name in ("!stablehlo.token", "stablehlo.token"):
        return BcType("vhlo", "TokenV1")
    raise HloError(f"type {t} has no VHLO form here")


def _bounds(enc: Any) -> BcAttr:
    if isinstance(enc, A.DialectAttr) and enc.name.endswith("bounds") and enc.body is not None:
        items = [str(x) for x in enc.body.items if str(x) != ","]
        return BcAttr("vhlo", "TypeExtensionsV1",
                      (tuple(DYNAMIC if x == "?" else int(x) for x in items),))
    raise HloError(f"tensor encoding {enc} has no VHLO form")


def _int(value: int, t: BcType = _I64) -> BcAttr:
    return BcAttr("vhlo", "IntegerV1", (t, value & ((1 << _bits(t)) - 1)))


def _bits(t: BcType) -> int:
    from hlotool.bytecode.vhlo import scalar_bits

    return scalar_bits(t)


def _float_bits(value: float, t: BcType) -> int:
    kind = t.kind
    if kind == "FloatF64V1":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if kind == "FloatF32V1":
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if kind == "FloatF16V1":
        return int(np.array(value, np.float16).view(np.uint16))
    if kind == "FloatBF16V1":
        import ml_dtypes

        return int(np.array(value, ml_dtypes.bfloat16).view(np.uint16))
    raise HloError(f"float attributes of {kind} are not supported")


def tensor(values: Any, element: BcType) -> BcAttr:
    """A 1-D (or given-shape numpy) TensorV1 attribute."""
    arr = np.asarray(values)
    dtype = {"BooleanV1": np.uint8, "IntegerSI64V1": np.int64}[element.kind]
    data = arr.astype(dtype).tobytes()
    return BcAttr("vhlo", "TensorV1", (BcType("vhlo", "RankedTensorV1",
                                             (tuple(arr.shape), element, None)), data))


def _i64s(values: Any) -> BcAttr:
    return tensor(np.asarray(list(values), np.int64).reshape(-1), _I64)


def vattr(a: Any, tok: Any = None) -> BcAttr:
    """An AST attribute as a VHLO attribute (convertGeneric)."""
    if isinstance(a, A.IntAttr):
        t = vtype(a.type) if a.type is not None else _I64
        if t.kind == "BooleanV1":
            return BcAttr("vhlo", "BooleanV1", (bool(a.value),))
        return _int(a.value, t)
    if isinstance(a, A.FloatAttr):
        t = vtype(a.type) if a.type is not None else BcType("vhlo", "FloatF64V1")
        if a.text.lower().startswith("0x"):
            return BcAttr("vhlo", "FloatV1", (t, int(a.text, 16)))
        return BcAttr("vhlo", "FloatV1", (t, _float_bits(a.value, t)))
    if isinstance(a, A.StringAttr):
        return BcAttr("vhlo", "StringV1", (a.value,))
    if isinstance(a, A.WordAttr):
        if a.word in ("true", "false"):
            return BcAttr("vhlo", "BooleanV1", (a.word == "true",))
        raise error_at(a.tok or tok, f"attribute {a.word} has no VHLO form")
    if isinstance(a, A.ListAttr):
        return BcAttr("vhlo", "ArrayV1", tuple(vattr(x, tok) for x in a.items))
    if isinstance(a, A.DictAttr):
        return BcAttr("vhlo", "DictionaryV1", tuple(
            (BcAttr("vhlo", "StringV1", (k,)), vattr(v, tok)) for k, v in a.entries))
    if isinstance(a, A.DenseArrayAttr):
        element = BcType("vhlo", "BooleanV1") if a.element == "i1" else _I64
        return tensor(np.asarray(a.values, np.int64).reshape(-1), element)
    if isinstance(a, A.DenseAttr):
        lit = dense_literal(a)
        t = vtype(a.type)
        arr = np.ascontiguousarray(lit.array)
        if arr.dtype == np.bool_:
            arr = arr.astype(np.uint8)
        data = arr.tobytes()
        itemsize = arr.itemsize
        if arr.size > 1 and (arr.reshape(-1)[:1] == arr.reshape(-1)).all():
            data = data[:itemsize]
        return BcAttr("vhlo", "TensorV1", (t, data))
    if isinstance(a, A.SymbolAttr):
        return BcAttr("vhlo", "StringV1", (a.name,))
    if isinstance(a, A.TypeAttr):
        return BcAttr("vhlo", "TypeV1", (vtype(a.type),))
    if isinstance(a, A.MlirType):
        return BcAttr("vhlo", "TypeV1", (vtype(a),))
    if isinstance(a, A.DialectAttr):
        return _dialect_attr(a, tok)
    if isinstance(a, A.UnitAttr):
        return BcAttr("vhlo", "BooleanV1", (True,))
    if isinstance(a, A.Brackets) and len(a.lists) == 1 and a.arrow is None:
        words = [str(x) for x in a.lists[0]]
        if all(w.lstrip("-").isdigit() for w in words):
            return _i64s(int(w) for w in words)
        if all(w in ENUMS["PrecisionV1"] for w in words):
            return BcAttr("vhlo", "ArrayV1", tuple(BcAttr("vhlo", "PrecisionV1", (w,))
                                                   for w in words))
    raise error_at(getattr(a, "tok", None) or tok, f"attribute {a} has no VHLO form here")


def _dialect_attr(a: A.DialectAttr, tok: Any) -> BcAttr:
    items = a.body.items if a.body is not None else ()
    if a.name == "#stablehlo" or a.name == "stablehlo":
        words = [str(x) for x in items]
        kind = _ENUM_KIND.get(words[0]) if words else None
        if kind and len(words) == 2 and words[1] in ENUMS[kind]:
            return BcAttr("vhlo", kind, (words[1],))
    name = a.name.lstrip("#")
    f = soup_fields(items)
    if name == "stablehlo.result_accuracy":
        mode = f.get("mode")
        mode_word = next(iter(mode[1])) if isinstance(mode, tuple) else "DEFAULT"
        return BcAttr("vhlo", "ResultAccuracyV1", (
            _float_bits(float(f.get("atol", 0.0)), BcType("vhlo", "FloatF64V1")),
            _float_bits(float(f.get("rtol", 0.0)), BcType("vhlo", "FloatF64V1")),
            int(f.get("ulps", 0)), BcAttr("vhlo", "ResultAccuracyModeV1", (mode_word,))))
    if name == "stablehlo.output_operand_alias":
        return BcAttr("vhlo", "OutputOperandAliasV1", (
            tuple(f.get("output_tuple_indices", [])), int(f.get("operand_index", 0)),
            tuple(f.get("operand_tuple_indices", []))))
    raise error_at(a.tok or tok, f"attribute {a.name} has no VHLO form here")


def _fields(a: Any, key: str, tok: Any) -> dict[str, Any]:
    if isinstance(a, A.DialectAttr) and a.body is not None:
        return soup_fields(a.body.items)
    raise error_at(tok, f"{key} must be a #stablehlo.* attribute")


def _dot_fields(attrs: dict[str, Any], tok: Any) -> dict[str, Any]:
    """dot_general's dimensions: `#stablehlo.dot<...>` or the pretty `batching_dims = [0] x
    [0], contracting_dims = [1] x [0]`."""
    if "dot_dimension_numbers" in attrs:
        return _fields(attrs.pop("dot_dimension_numbers"), "dot_dimension_numbers", tok)
    f: dict[str, Any] = {}
    for key, side in (("batching_dims", "batching"), ("contracting_dims", "contracting")):
        v = attrs.pop(key, None)
        if isinstance(v, A.Brackets) and len(v.lists) == 2:
            f[f"lhs_{side}_dimensions"] = [int(str(x)) for x in v.lists[0]]
            f[f"rhs_{side}_dimensions"] = [int(str(x)) for x in v.lists[1]]
    return f


def _specials(base: str, attrs: dict[str, Any], tok: Any) -> dict[str, BcAttr]:
    """Attributes StableHLO groups into one (dimension numbers, channel handles)."""
    out: dict[str, BcAttr] = {}
    if base == "dot_general":
        f = _dot_fields(attrs, tok)
        for n in ("lhs_batching_dimensions", "rhs_batching_dimensions",
                  "lhs_contracting_dimensions", "rhs_contracting_dimensions"):
            out[n] = _i64s(f.get(n, []))
        algo = attrs.pop("algorithm", None)
        names = ("lhs_precision_type", "rhs_precision_type", "accumulation_type",
                 "lhs_component_count", "rhs_component_count", "num_primitive_operations",
                 "allow_imprecise_accumulation")
        if algo is None:
            out.update({n: _NONE_TYPE for n in names})
        else:
            raise error_at(tok, "dot_general algorithms are not written yet")
    elif base in ("convolution", "dynamic_conv"):
        d = get_conv_dims(attrs.pop("dimension_numbers"), "dimension_numbers", tok)
        for n in ("input_batch_dimension", "input_feature_dimension",
                  "kernel_input_feature_dimension", "kernel_output_feature_dimension",
                  "output_batch_dimension", "output_feature_dimension"):
            out[n] = _int(getattr(d, n))
        for n in ("input_spatial_dimensions", "kernel_spatial_dimensions",
                  "output_spatial_dimensions"):
            out[n] = _i64s(getattr(d, n))
        k = len(d.input_spatial_dimensions)
        defaults = {"window_strides": _i64s([1] * k), "lhs_dilation": _i64s([1] * k),
                    "rhs_dilation": _i64s([1] * k),
                    "window_reversal": tensor(np.zeros(k, np.uint8), BcType("vhlo", "BooleanV1")),
                    "padding": tensor(np.zeros((k, 2), np.int64), _I64)}
        for n, v in defaults.items():
            if n not in attrs and not (base == "dynamic_conv" and n == "padding"):
                out[n] = v
    elif base in ("gather", "dynamic_gather"):
        f = _fields(attrs.pop("dimension_numbers"), "dimension_numbers", tok)
        for n in ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                  "start_indices_batching_dims", "start_index_map"):
            out[n] = _i64s(f.get(n, []))
        out["index_vector_dim"] = _int(int(f.get("index_vector_dim", 0)))
    elif base == "scatter":
        f = _fields(attrs.pop("scatter_dimension_numbers"), "scatter_dimension_numbers", tok)
        for n in ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                  "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"):
            out[n] = _i64s(f.get(n, []))
        out["index_vector_dim"] = _int(int(f.get("index_vector_dim", 0)))
    elif base in ("reduce_window", "select_and_scatter"):
        k = len(attrs["window_dimensions"].values) if isinstance(
            attrs.get("window_dimensions"), A.DenseArrayAttr) else 0
        defaults = {"window_strides": _i64s([1] * k), "padding": tensor(
            np.zeros((k, 2), np.int64), _I64)}
        if base == "reduce_window":
            defaults.update(base_dilations=_i64s([1] * k), window_dilations=_i64s([1] * k))
        out.update({n: v for n, v in defaults.items() if n not in attrs})
    handle = attrs.pop("channel_handle", None)
    if handle is not None:
        f = _fields(handle, "channel_handle", tok)
        out["channel_id"] = _int(int(f.get("handle", 0)))
        if base in ("send", "recv"):
            out["channel_type"] = _int(int(f.get("type", 0)))
    return out


def _defaults(base: str, names: tuple[str, ...]) -> dict[str, BcAttr]:
    """addDefaults: what VHLO spells out that StableHLO may leave implicit."""
    false = BcAttr("vhlo", "BooleanV1", (False,))
    empty = BcAttr("vhlo", "ArrayV1", ())
    d: dict[str, BcAttr] = {
        "use_global_device_ids": false, "has_dynamic_root": false, "lower": false,
        "channel_id": _int(0), "indices_are_sorted": false, "unique_indices": false,
        "is_host_transfer": false, "is_stable": false, "dimension": _int(-1),
        "version": _int(0, BcType("vhlo", "IntegerSI32V1")),
        "composite_attributes": BcAttr("vhlo", "DictionaryV1", ()),
        "known_expanding_dimensions": _i64s([]), "known_nonexpanding_dimensions": _i64s([]),
        "source_target_pairs": _i64s([]), "infeed_config": BcAttr("vhlo", "StringV1", ("",)),
        "outfeed_config": BcAttr("vhlo", "StringV1", ("",)), "layout": empty,
    }
    if base in ("dot_general", "dot", "convolution", "dynamic_conv"):
        d["precision_config"] = BcAttr("vhlo", "ArrayV1", (
            BcAttr("vhlo", "PrecisionV1", ("DEFAULT",)),) * 2)
    if base == "compare":
        d["compare_type"] = BcAttr("vhlo", "ComparisonTypeV1", ("NOTYPE",))
    if base == "custom_call":
        d.update(has_side_effect=false, backend_config=BcAttr("vhlo", "StringV1", ("",)),
                 api_version=BcAttr("vhlo", "CustomCallApiVersionV1",
                                    ("API_VERSION_ORIGINAL",)),
                 called_computations=empty, operand_layouts=empty, result_layouts=empty,
                 output_operand_aliases=empty, result_tilings=empty)
    if base in _ACCURACY_OPS:
        d["result_accuracy"] = _DEFAULT_ACCURACY
    return {n: d[n] for n in names if n in d}


_DEFAULT_ACCURACY = BcAttr("vhlo", "ResultAccuracyV1", (
    0, 0, 0, BcAttr("vhlo", "ResultAccuracyModeV1", ("DEFAULT",))))
#: Values an attribute must have to be dropped when the target's op version lacks it.
_DROPPABLE = {"result_accuracy": _DEFAULT_ACCURACY, "result_tilings": BcAttr("vhlo", "ArrayV1",
                                                                              ()),
              "has_dynamic_root": BcAttr("vhlo", "BooleanV1", (False,))}
_EMPTY_I64 = _i64s([])


def op_version(base: str, target: Version, tok: Any) -> str:
    """The VHLO op name (`add_v1`) for a StableHLO op at the target version."""
    from hlotool.bytecode import parse_version

    best = None
    for name, (lo, hi, _attrs) in OPS.items():
        if name.rsplit("_v", 1)[0] != base:
            continue
        if parse_version(lo) <= target and (hi == "current" or target <= parse_version(hi)):
            best = name
    if best is None:
        known = [n for n in OPS if n.rsplit("_v", 1)[0] == base]
        if not known:
            raise error_at(tok, f"stablehlo.{base} has no VHLO form")
        lo = min(OPS[n][0] for n in known)
        raise error_at(tok, f"stablehlo.{base} needs StableHLO {lo} or newer, but the target "
                            f"is {'.'.join(map(str, target))}")
    return best


class _Builder:
    def __init__(self, target: Version) -> None:
        self.target = target
        self.values: dict[str, Value] = {}

    def value(self, ref: A.ValueRef) -> Value:
        key = ref.name if ref.index is None else f"{ref.name}#{ref.index}"
        v = self.values.get(key)
        if v is None:
            raise error_at(ref.tok, f"value {key} is not defined")
        return v

    def op(self, o: A.OpAst) -> Op:
        dialect, _, base = o.name.partition(".")
        if o.name in ("func.return", "stablehlo.return"):
            base = "return"
        elif o.name == "func.call":
            base = "call"
        elif dialect != "stablehlo":
            raise error_at(o.tok, f"op {o.name} has no VHLO form (only StableHLO ops are "
                                  "written to artifacts)")
        name = op_version(base, self.target, o.tok)
        names = OPS[name][2]
        attrs = dict(o.attrs)
        out = _specials(base, attrs, o.tok)
        for k, v in attrs.items():
            if k in ("callee", "decomposition") and isinstance(v, A.SymbolAttr):
                out[k] = BcAttr("vhlo", "StringV1", (v.name,))
            elif k == "called_computations" and isinstance(v, A.ListAttr):
                out[k] = BcAttr("vhlo", "ArrayV1", tuple(
                    BcAttr("vhlo", "StringV1", (x.name,)) for x in v.items))
            elif isinstance(v, A.IntAttr) and v.type is None and (base, k) in _I32_ATTRS:
                out[k] = _int(v.value, BcType("vhlo", "IntegerSI32V1"))
            elif isinstance(v, A.WordAttr) and k in _WORD_KEYS:
                kind = _WORD_KEYS[k]
                if v.word not in ENUMS[kind]:
                    raise error_at(v.tok or o.tok, f"{k} must be one of "
                                                   f"{', '.join(ENUMS[kind])}")
                out[k] = BcAttr("vhlo", kind, (v.word,))
            else:
                out[k] = vattr(v, o.attr_tok(k))
        for k, v in _defaults(base, names).items():
            out.setdefault(k, v)
        for k in list(out):
            if k not in names and k in _DROPPABLE and out[k] == _DROPPABLE[k]:
                del out[k]
            elif k not in names and k in ("operand_batching_dims", "start_indices_batching_dims",
                                          "input_batching_dims",
                                          "scatter_indices_batching_dims") \
                    and out[k] == _EMPTY_I64:
                del out[k]
            elif k not in names and k in ("lhs_precision_type", "rhs_precision_type",
                                          "accumulation_type", "lhs_component_count",
                                          "rhs_component_count", "num_primitive_operations",
                                          "allow_imprecise_accumulation") \
                    and out[k] == _NONE_TYPE:
                del out[k]
        missing = [n for n in names if n not in out]
        if missing:
            raise error_at(o.tok, f"{o.name} lacks {', '.join(missing)} for vhlo.{name}")
        versioned = {a for n, spec in OPS.items() if n.rsplit("_v", 1)[0] == base
                     for a in spec[2]}
        extra = [k for k in out if k not in names and k in versioned]
        if extra:
            raise error_at(o.tok, f"{', '.join(extra)} of {o.name} "
                                  f"cannot be written at StableHLO "
                                  f"{'.'.join(map(str, self.target))} (vhlo.{name})")
        op = Op("vhlo." + name, _UNKNOWN, out)
        op.operands = [self.value(r) for r in o.operands]
        types = [vtype(t) for t in o.result_types]
        k = 0
        for rd in o.results:
            for i in range(rd.count):
                v = Value(types[k])
                k += 1
                self.values[rd.name if rd.count == 1 else f"{rd.name}#{i}"] = v
                if rd.count > 1 and i == 0:
                    self.values.setdefault(rd.name, v)
                op.results.append(v)
        for t in types[k:]:
            op.results.append(Value(t))
        op.regions = [self.region(r) for r in o.regions]
        return op

    def region(self, r: A.RegionAst) -> Region:
        block = Block()
        for arg in r.args:
            v = Value(vtype(arg.type))
            self.values[arg.name] = v
            block.args.append(v)
            block.arg_locs.append(None)
        block.ops = [self.op(o) for o in r.ops]
        return Region([block])

    def func(self, f: A.FuncAst) -> Op:
        if f.body is None:
            raise error_at(f.tok, f"function @{f.name} has no body")
        ftype = BcType("vhlo", "FunctionV1", (tuple(vtype(a.type) for a in f.args),
                                              tuple(vtype(t) for t, _ in f.results)))
        arg_attrs = tuple(vattr(a.attrs) if a.attrs is not None else
                          BcAttr("vhlo", "DictionaryV1", ()) for a in f.args)
        res_attrs = tuple(vattr(d) if d is not None else BcAttr("vhlo", "DictionaryV1", ())
                          for _, d in f.results)
        attrs = {
            "sym_name": BcAttr("vhlo", "StringV1", (f.name,)),
            "function_type": BcAttr("vhlo", "TypeV1", (ftype,)),
            "sym_visibility": BcAttr("vhlo", "StringV1", (f.visibility,)),
            "arg_attrs": BcAttr("vhlo", "ArrayV1", arg_attrs if any(
                a.args for a in arg_attrs) else ()),
            "res_attrs": BcAttr("vhlo", "ArrayV1", res_attrs if any(
                a.args for a in res_attrs) else ()),
        }
        op = Op("vhlo.func_v1", _UNKNOWN, attrs, isolated=True)
        self.values = {}
        block = Block()
        for arg in f.body.args or f.args:
            v = Value(vtype(arg.type))
            self.values[str(arg.name)] = v
            block.args.append(v)
            block.arg_locs.append(None)
        block.ops = [self.op(o) for o in f.body.ops]
        op.regions = [Region([block])]
        return op


def _builtin_attr(a: Any) -> BcAttr:
    """Module attributes stay builtin (`mhlo.num_partitions = 1 : i32`)."""
    if isinstance(a, A.IntAttr):
        name = a.type.name if isinstance(a.type, A.BuiltinType) else "i64"
        width = int(name.lstrip("usi"))
        sign = 2 if name.startswith("ui") else 1 if name.startswith("si") else 0
        t = BcType("builtin", "Integer", (width, sign))
        return BcAttr("builtin", "Integer", (t, a.value & ((1 << width) - 1)))
    if isinstance(a, A.WordAttr) and a.word in ("true", "false"):
        return BcAttr("builtin", "Integer", (BcType("builtin", "Integer", (1, 0)),
                                             int(a.word == "true")))
    if isinstance(a, A.StringAttr):
        return BcAttr("builtin", "String", (a.value,))
    if isinstance(a, A.UnitAttr):
        return BcAttr("builtin", "Unit")
    if isinstance(a, A.ListAttr):
        return BcAttr("builtin", "Array", tuple(_builtin_attr(x) for x in a.items))
    if isinstance(a, A.DictAttr):
        return BcAttr("builtin", "Dictionary", tuple((k, _builtin_attr(v)) for k, v in a.entries))
    raise HloError(f"module attribute {a} has no bytecode form here")


def from_stablehlo(text: str, target: Version) -> BcModule:
    """The VHLO module of StableHLO text, for the target version."""
    from hlotool.bytecode import version_text
    from hlotool.stablehlo.parser import parse_stablehlo_ast

    file = parse_stablehlo_ast(text)
    if len(file.modules) != 1:
        raise HloError("an artifact holds exactly one module")
    m = file.modules[0]
    b = _Builder(target)
    funcs = [b.func(f) for f in m.funcs]
    attrs: dict[str, Any] = {}
    if m.name:
        attrs["sym_name"] = BcAttr("builtin", "String", (m.name.lstrip("@"),))
    if m.attrs is not None:
        attrs.update({k: _builtin_attr(v) for k, v in m.attrs.entries})
    module = Op("builtin.module", _UNKNOWN, attrs, regions=[Region([Block(ops=funcs)])],
                isolated=True)
    return BcModule(bytecode_version(target), f"StableHLO_v{version_text(target)}", [module])


def bytecode_version(target: Version) -> int:
    """The MLIR bytecode version StableHLO writes for a target (Version::getBytecodeVersion)."""
    if target < (0, 10, 0):
        return 0
    if target < (0, 12, 0):
        return 1
    if target < (0, 14, 0):
        return 3
    if target < (0, 15, 0):
        return 4
    return 6
