"""A VHLO module (BcModule of a portable artifact) -> StableHLO text in generic op form,
which the StableHLO front end parses (StableHLO's VhloLegalizeToStablehlo, as text).

Dense tensors become `dense<"0x...">` hex, decoded straight into arrays by the parser.
"""

from __future__ import annotations

import json
from typing import Any

from hlotool.bytecode.model import BcAttr, BcModule, BcType, Block, Op, Region, Value
from hlotool.diagnostics import HloError

DYNAMIC = -(1 << 63)
_SCALARS = {"BooleanV1": "i1", "FloatBF16V1": "bf16", "FloatF16V1": "f16", "FloatF32V1": "f32",
            "FloatF64V1": "f64", "FloatTF32V1": "tf32", "IndexV1": "index", "NoneV1": "none",
            "FloatF8E4M3FNV1": "f8E4M3FN", "FloatF8E5M2V1": "f8E5M2",
            "FloatF8E4M3FNUZV1": "f8E4M3FNUZ", "FloatF8E5M2FNUZV1": "f8E5M2FNUZ",
            "FloatF8E4M3B11FNUZV1": "f8E4M3B11FNUZ", "FloatF8E4M3V1": "f8E4M3",
            "FloatF8E3M4V1": "f8E3M4", "FloatF4E2M1FNV1": "f4E2M1FN",
            "FloatF6E2M3FNV1": "f6E2M3FN", "FloatF6E3M2FNV1": "f6E3M2FN",
            "FloatF8E8M0FNUV1": "f8E8M0FNU"}
_BUILTIN_FLOATS = {"BF16": "bf16", "F16": "f16", "F32": "f32", "F64": "f64"}
_ENUM_SPELLING = {"ComparisonDirectionV1": "comparison_direction",
                  "ComparisonTypeV1": "comparison_type", "FftTypeV1": "fft_type",
                  "PrecisionV1": "precision", "RngAlgorithmV1": "rng_algorithm",
                  "RngDistributionV1": "rng_distribution", "TransposeV1": "transpose"}
#: Per op: attributes that become `array<i64: ...>` (or `array<i1: ...>`).
_DENSE_ARRAYS = {
    "fft": ("fft_length",), "broadcast": ("broadcast_sizes",), "dynamic_slice": ("slice_sizes",),
    "reverse": ("dimensions",), "transpose": ("permutation",),
    "pad": ("edge_padding_low", "edge_padding_high", "interior_padding"),
    "slice": ("start_indices", "limit_indices", "strides"),
    "broadcast_in_dim": ("broadcast_dimensions",),
    "dynamic_broadcast_in_dim": ("broadcast_dimensions", "known_expanding_dimensions",
                                 "known_nonexpanding_dimensions"),
    "select_and_scatter": ("window_dimensions", "window_strides"),
    "reduce_window": ("window_dimensions", "window_strides", "base_dilations",
                      "window_dilations"),
    "map": ("dimensions",), "reduce": ("dimensions",), "gather": ("slice_sizes",),
    "dynamic_gather": (),
    "convolution": ("lhs_dilation", "rhs_dilation", "window_strides", "window_reversal"),
    "dynamic_conv": ("lhs_dilation", "rhs_dilation", "window_strides", "window_reversal"),
}
_CHANNEL_OPS = {"all_gather", "all_reduce", "all_to_all", "collective_permute",
                "reduce_scatter", "collective_broadcast", "collective_reduce"}


def _fail(message: str) -> HloError:
    """An artifact whose ops have no StableHLO form (no byte offset: the ops are decoded)."""
    return HloError(message)


def type_text(t: BcType) -> str:
    """A VHLO (or builtin) type as StableHLO text."""
    k = t.kind
    if k in _SCALARS:
        return _SCALARS[k]
    if k.startswith("Integer") and k.endswith("V1"):
        return ("ui" if k[7:9] == "UI" else "i") + k[9:-2]
    if k == "RankedTensorV1" or (t.dialect == "builtin" and k == "RankedTensor"):
        dims = "".join(("?" if d == DYNAMIC else str(d)) + "x" for d in t.args[0])
        enc = f", {_bounds(t.args[2])}" if t.args[2] is not None else ""
        return f"tensor<{dims}{type_text(t.args[1])}{enc}>"
    if k in ("UnrankedTensorV1", "UnrankedTensor"):
        return f"tensor<*x{type_text(t.args[0])}>"
    if k in ("ComplexV1", "Complex"):
        return f"complex<{type_text(t.args[0])}>"
    if k == "TokenV1":
        return "!stablehlo.token"
    if k in ("TupleV1", "Tuple"):
        return "tuple<" + ", ".join(type_text(e) for e in t.args[0]) + ">"
    if k == "FutureV1":
        return "!stablehlo.future<" + ", ".join(type_text(e) for e in t.args[0]) + ">"
    if k in ("FunctionV1", "Function"):
        ins = ", ".join(type_text(e) for e in t.args[0])
        outs = ", ".join(type_text(e) for e in t.args[1])
        return f"({ins}) -> ({outs})"
    if t.dialect == "builtin":
        if k == "Integer":
            width, sign = t.args
            return ("ui" if sign == 2 else "si" if sign == 1 else "i") + str(width)
        if k in _BUILTIN_FLOATS:
            return _BUILTIN_FLOATS[k]
        if k == "Index":
            return "index"
        if k == "None":
            return "none"
    if k == "UniformQuantizedV1":
        flags, storage, expressed, scale, zero, lo, hi = t.args
        import struct

        s = struct.unpack("<d", struct.pack("<Q", scale))[0]
        sign = "" if flags & 1 else "u"
        st = type_text(storage).lstrip("ui")
        return (f"!quant.uniform<{sign}i{st}:{type_text(expressed)}, {s!r}:{zero}>")
    if k == "asm":
        return str(t.args[0])
    raise _fail(f"type {t.dialect}.{k} has no StableHLO form")


def _bounds(enc: Any) -> str:
    if isinstance(enc, BcAttr) and enc.kind == "TypeExtensionsV1":
        return "#stablehlo.bounds<" + ", ".join(
            "?" if b == DYNAMIC else str(b) for b in enc.args[0]) + ">"
    return attr_text(enc)


def _string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False).replace("\\u00", "\\")


def _float_text(t: BcType, bits: int) -> str:
    from hlotool.bytecode.builtin import bit_width

    width = bit_width(t)
    return f"0x{bits:0{(width + 3) // 4}X} : {type_text(t)}"


def dense_text(t: BcType, data: bytes | memoryview) -> str:
    """`dense<"0x...">` of raw little-endian data (one element when it is a splat)."""
    return f'dense<"0x{bytes(data).hex().upper()}"> : {type_text(t)}'


def attr_text(a: Any) -> str:
    """A VHLO or builtin attribute as StableHLO text (convertGeneric)."""
    if isinstance(a, BcType):
        return type_text(a)
    k, args = a.kind, a.args
    if a.dialect == "vhlo":
        if k in _ENUM_SPELLING:
            return f"#stablehlo<{_ENUM_SPELLING[k]} {args[0]}>"
        if k == "CustomCallApiVersionV1":
            from hlotool.bytecode.vhlo import ENUMS

            return f"{ENUMS[k].index(args[0])} : i32"
        if k == "ArrayV1":
            return "[" + ", ".join(attr_text(e) for e in args) + "]"
        if k == "BooleanV1":
            return "true" if args[0] else "false"
        if k == "DictionaryV1":
            return _dict_text((_key(kk), v) for kk, v in args)
        if k == "FloatV1":
            return _float_text(args[0], args[1])
        if k == "IntegerV1":
            return f"{_signed(args[0], args[1])} : {type_text(args[0])}"
        if k == "StringV1":
            return _string(args[0])
        if k == "TensorV1":
            return dense_text(args[0], args[1])
        if k == "TypeV1":
            return type_text(args[0])
        if k == "OutputOperandAliasV1":
            return ("#stablehlo.output_operand_alias<output_tuple_indices = ["
                    + ", ".join(map(str, args[0])) + f"], operand_index = {args[1]}, "
                    "operand_tuple_indices = [" + ", ".join(map(str, args[2])) + "]>")
        if k == "TypeExtensionsV1":
            return _bounds(a)
        if k == "ResultAccuracyModeV1":
            return f"#stablehlo.result_accuracy_mode<{args[0]}>"
        if k == "ResultAccuracyV1":
            import struct

            atol, rtol = (struct.unpack("<d", struct.pack("<Q", v))[0] for v in args[:2])
            return (f"#stablehlo.result_accuracy<atol = {atol!r}, rtol = {rtol!r}, "
                    f"ulps = {args[2]}, mode = {attr_text(args[3])}>")
        raise _fail(f"VHLO attribute {k} has no StableHLO form here")
    if k == "Array":
        return "[" + ", ".join(attr_text(e) for e in args) + "]"
    if k == "Dictionary":
        return _dict_text(args)
    if k == "String":
        return _string(args[0])
    if k == "Unit":
        return "unit"
    if k == "Integer":
        t = args[0]
        if t.kind == "Integer" and t.args[0] == 1:
            return "true" if args[1] else "false"
        return f"{_signed(t, args[1])} : {type_text(t)}"
    if k == "Float":
        return _float_text(args[0], args[1])
    if k == "Type":
        return type_text(args[0])
    if k == "FlatSymbolRef":
        return "@" + _symbol(args[0])
    if k == "DenseIntOrFPElements":
        return dense_text(args[0], args[1])
    if k == "asm":
        return str(args[0])
    raise _fail(f"attribute {a.dialect}.{k} has no StableHLO form here")


def _signed(t: BcType, bits: int) -> int:
    from hlotool.bytecode.builtin import bit_width

    width = bit_width(t)
    unsigned = t.kind.startswith("IntegerUI") or (t.kind == "Integer" and t.args[1] == 2)
    if not unsigned and width > 1 and bits >> (width - 1):
        return bits - (1 << width)
    return bits


def _key(a: Any) -> str:
    if isinstance(a, BcAttr) and a.kind in ("StringV1", "String"):
        return str(a.args[0])
    if isinstance(a, str):
        return a
    raise _fail(f"a dictionary key must be a string, got {a}")


def _symbol(name: str) -> str:
    return name if name.replace("_", "a").replace(".", "a").replace("$", "a").isalnum() \
        else _string(name)


def _dict_text(items: Any) -> str:
    parts = []
    for k, v in items:
        key = k if k.replace("_", "a").replace(".", "a").isalnum() else _string(k)
        parts.append(key if isinstance(v, BcAttr) and v.kind == "Unit" else
                     f"{key} = {attr_text(v)}")
    return "{" + ", ".join(parts) + "}"


def _ints(a: Any) -> list[int]:
    """The integers of a VHLO i64 tensor (or array of integers)."""
    import numpy as np

    if a.kind == "TensorV1":
        t = a.args[0]
        from hlotool.bytecode.builtin import bit_width

        width = bit_width(t.args[1])
        dtype = {1: np.uint8, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[width]
        flat = np.frombuffer(bytes(a.args[1]), dtype)
        n = int(np.prod(t.args[0])) if t.args[0] else 1
        if flat.size == 1 and n != 1:
            flat = np.repeat(flat, n)
        return [int(v) for v in flat]
    if a.kind == "ArrayV1":
        return [_signed(e.args[0], e.args[1]) for e in a.args]
    if a.kind == "IntegerV1":
        return [_signed(a.args[0], a.args[1])]
    raise _fail(f"expected integers, got {a.kind}")


def _is_none(a: Any) -> bool:
    return isinstance(a, BcAttr) and a.kind == "TypeV1" and a.args[0].kind == "NoneV1"


def _list(xs: list[int]) -> str:
    return "[" + ", ".join(map(str, xs)) + "]"


def op_attrs(base: str, attrs: dict[str, Any]) -> dict[str, str]:
    """The StableHLO attributes (as text) of a VHLO op named `base` (without `_vN`)."""
    a = dict(attrs)
    out: dict[str, str] = {}
    if base == "dot_general":
        dims = [("lhs_batching_dimensions", a.pop("lhs_batching_dimensions")),
                ("rhs_batching_dimensions", a.pop("rhs_batching_dimensions")),
                ("lhs_contracting_dimensions", a.pop("lhs_contracting_dimensions")),
                ("rhs_contracting_dimensions", a.pop("rhs_contracting_dimensions"))]
        out["dot_dimension_numbers"] = "#stablehlo.dot<" + ", ".join(
            f"{n} = {_list(_ints(v))}" for n, v in dims if _ints(v)) + ">"
        algo = [a.pop(n, None) for n in ("lhs_precision_type", "rhs_precision_type",
                                         "accumulation_type", "lhs_component_count",
                                         "rhs_component_count", "num_primitive_operations",
                                         "allow_imprecise_accumulation")]
        if not all(x is None or _is_none(x) for x in algo):
            out["algorithm"] = (
                f"#stablehlo.dot_algorithm<lhs_precision_type = {attr_text(algo[0])}, "
                f"rhs_precision_type = {attr_text(algo[1])}, accumulation_type = "
                f"{attr_text(algo[2])}, lhs_component_count = {_ints(algo[3])[0]}, "
                f"rhs_component_count = {_ints(algo[4])[0]}, num_primitive_operations = "
                f"{_ints(algo[5])[0]}, allow_imprecise_accumulation = {attr_text(algo[6])}>")
    elif base in ("convolution", "dynamic_conv"):
        g = {n: a.pop(n) for n in list(a) if n.startswith(("input_", "kernel_", "output_"))}
        out["dimension_numbers"] = _conv_dims(g)
    elif base in ("gather", "dynamic_gather"):
        names = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                 "start_indices_batching_dims", "start_index_map")
        parts = [f"{n} = {_list(_ints(a.pop(n)))}" for n in names if n in a]
        parts = [p for p in parts if not p.endswith("[]")]
        parts.append(f"index_vector_dim = {_ints(a.pop('index_vector_dim'))[0]}")
        out["dimension_numbers"] = "#stablehlo.gather<" + ", ".join(parts) + ">"
    elif base == "scatter":
        names = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                 "scatter_indices_batching_dims", "scatter_dims_to_operand_dims")
        parts = [f"{n} = {_list(_ints(a.pop(n)))}" for n in names if n in a]
        parts = [p for p in parts if not p.endswith("[]")]
        parts.append(f"index_vector_dim = {_ints(a.pop('index_vector_dim'))[0]}")
        out["scatter_dimension_numbers"] = "#stablehlo.scatter<" + ", ".join(parts) + ">"
    elif base in ("send", "recv"):
        cid, ctype = _ints(a.pop("channel_id"))[0], _ints(a.pop("channel_type"))[0]
        out["channel_handle"] = f"#stablehlo.channel_handle<handle = {cid}, type = {ctype}>"
    for name, v in a.items():
        text = _special(base, name, v)
        if text is None:
            continue
        out[name if name != "channel_id" or base not in _CHANNEL_OPS else "channel_handle"] = text
    return _drop_defaults(base, out, a)


def _special(base: str, name: str, v: Any) -> str | None:
    if name in _DENSE_ARRAYS.get(base, ()):
        values = _ints(v)
        if name == "window_reversal":
            return "array<i1" + "".join(f"{', ' if i else ': '}{'true' if x else 'false'}"
                                         for i, x in enumerate(values)) + ">"
        return "array<i64" + (": " + ", ".join(map(str, values)) if values else "") + ">"
    if base in _CHANNEL_OPS and name == "channel_id":
        return f"#stablehlo.channel_handle<handle = {_ints(v)[0]}, type = 0>"
    if name in ("use_global_device_ids", "has_dynamic_root", "indices_are_sorted",
                "unique_indices") and base in _CHANNEL_OPS:
        return "unit" if v.args[0] else None
    if base == "custom_call" and name == "called_computations":
        return "[" + ", ".join("@" + _symbol(e.args[0]) for e in v.args) + "]"
    if (base == "composite" and name == "decomposition") or (base == "call" and name == "callee"):
        return "@" + _symbol(v.args[0])
    return attr_text(v)


def _conv_dims(g: dict[str, Any]) -> str:
    def one(n: str) -> int:
        return _ints(g[n])[0]

    def layout(batch: int, feature: int, spatial: list[int], letters: str) -> str:
        rank = 2 + len(spatial)
        slots = [""] * rank
        slots[batch] = letters[0]
        slots[feature] = letters[1]
        for i, d in enumerate(spatial):
            slots[d] = str(i)
        return "[" + ", ".join(slots) + "]"

    lhs = layout(one("input_batch_dimension"), one("input_feature_dimension"),
                 _ints(g["input_spatial_dimensions"]), "bf")
    rhs = layout(one("kernel_output_feature_dimension"), one("kernel_input_feature_dimension"),
                 _ints(g["kernel_spatial_dimensions"]), "oi")
    out = layout(one("output_batch_dimension"), one("output_feature_dimension"),
                 _ints(g["output_spatial_dimensions"]), "bf")
    return f"#stablehlo.conv<{lhs}x{rhs}->{out}>"


_DEFAULT_ACCURACY = ("#stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, "
                     "mode = #stablehlo.result_accuracy_mode<DEFAULT>>")


def _drop_defaults(base: str, out: dict[str, str], raw: dict[str, Any]) -> dict[str, str]:
    """removeDefaults: attributes VHLO spells out that StableHLO leaves implicit."""
    if out.get("result_accuracy") == _DEFAULT_ACCURACY:
        del out["result_accuracy"]
    if base == "compare" and out.get("compare_type") == "#stablehlo<comparison_type NOTYPE>":
        del out["compare_type"]
    if base == "custom_call":
        for name, default in (("has_side_effect", "false"), ("backend_config", '""'),
                              ("api_version", "0 : i32"), ("called_computations", "[]"),
                              ("output_operand_aliases", "[]"), ("result_tilings", "[]")):
            if out.get(name) == default:
                del out[name]
        for name in ("operand_layouts", "result_layouts"):
            if out.get(name) == "[]" or _is_none(raw.get(name)):
                out.pop(name, None)
    if base in ("convolution", "dynamic_conv"):
        for name in ("window_strides", "lhs_dilation", "rhs_dilation", "window_reversal"):
            if out.get(name) in (None, "array<i64>") or _all(out[name], ("1", "false")):
                out.pop(name, None)
        if "padding" in out and set(_ints(raw["padding"])) <= {0}:
            del out["padding"]
    if base in ("dot_general", "dot", "convolution", "dynamic_conv"):
        if out.get("precision_config", "").replace("#stablehlo<precision DEFAULT>", "") in (
                "[]", "[, ]", "[, , ]"):
            del out["precision_config"]
    if base in ("all_reduce", "reduce_scatter", "all_gather", "all_to_all",
                "collective_permute", "collective_broadcast") and out.get("channel_handle", "") \
            .startswith("#stablehlo.channel_handle<handle = 0,"):
        del out["channel_handle"]
    if base == "composite":
        if out.get("version") == "0 : i32":
            del out["version"]
        if out.get("composite_attributes") == "{}":
            del out["composite_attributes"]
    if base == "cholesky" and out.get("lower") == "false":
        del out["lower"]
    return out


def _all(text: str, values: tuple[str, ...]) -> bool:
    body = text.split(":", 1)[-1].rstrip(">")
    return all(p.strip() in values for p in body.split(","))


class _Printer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.counter = 0

    def name(self, v: Value) -> str:
        if not v.name:
            v.name = f"%{self.counter}"
            self.counter += 1
        return v.name

    def module(self, m: BcModule) -> str:
        if len(m.ops) != 1 or m.ops[0].name != "builtin.module":
            raise _fail("a portable artifact holds one builtin.module")
        mod = m.ops[0]
        head = "module"
        if "sym_name" in mod.attrs:
            head += " @" + _symbol(mod.attrs["sym_name"].args[0])
        extra = {k: v for k, v in mod.attrs.items() if k not in ("sym_name", "sym_visibility")}
        if extra:
            head += " attributes " + _dict_text(extra.items())
        self.lines.append(head + " {")
        for block in mod.regions[0].blocks if mod.regions else []:
            for op in block.ops:
                self.func(op)
        self.lines.append("}")
        return "\n".join(self.lines) + "\n"

    def func(self, op: Op) -> None:
        if op.name != "vhlo.func_v1":
            raise _fail(f"expected functions at the top of the module, got {op.name}")
        a = op.attrs
        name = _symbol(a["sym_name"].args[0])
        visibility = a["sym_visibility"].args[0] if "sym_visibility" in a else ""
        ftype = a["function_type"].args[0]
        arg_attrs = list(a["arg_attrs"].args) if a.get("arg_attrs", None) is not None \
            and a["arg_attrs"].kind == "ArrayV1" else []
        res_attrs = list(a["res_attrs"].args) if a.get("res_attrs", None) is not None \
            and a["res_attrs"].kind == "ArrayV1" else []
        block = op.regions[0].blocks[0]
        params = []
        for i, (arg, t) in enumerate(zip(block.args, ftype.args[0], strict=False)):
            attrs = arg_attrs[i] if i < len(arg_attrs) else None
            extra = f" {attr_text(attrs)}" if attrs is not None and attrs.args else ""
            params.append(f"{self.name(arg)}: {type_text(t)}{extra}")
        results = []
        for i, t in enumerate(ftype.args[1]):
            attrs = res_attrs[i] if i < len(res_attrs) else None
            extra = f" {attr_text(attrs)}" if attrs is not None and attrs.args else ""
            results.append(type_text(t) + extra)
        vis = f"{visibility} " if visibility else ""
        other = {k: v for k, v in a.items()
                 if k not in ("sym_name", "sym_visibility", "function_type", "arg_attrs",
                              "res_attrs")}
        attrs_text = f" attributes {_dict_text(other.items())}" if other else ""
        self.lines.append(f"  func.func {vis}@{name}({', '.join(params)}) -> "
                          f"({', '.join(results)}){attrs_text} {{")
        self.block_ops(block, 2, in_func=True)
        self.lines.append("  }")

    def block_ops(self, block: Block, depth: int, in_func: bool) -> None:
        for op in block.ops:
            self.op(op, depth, in_func)

    def op(self, op: Op, depth: int, in_func: bool) -> None:
        ind = "  " * depth
        if not op.name.startswith("vhlo."):
            raise _fail(f"op {op.name} is not VHLO (only StableHLO artifacts are supported)")
        base = op.name[5:].rsplit("_v", 1)[0]
        name = {"func": "func.func", "call": "func.call"}.get(base, f"stablehlo.{base}")
        if base == "return":
            name = "func.return" if in_func else "stablehlo.return"
        attrs = op_attrs(base, op.attrs)
        results = ", ".join(self.name(r) for r in op.results)
        lhs = f"{results} = " if op.results else ""
        operands = ", ".join(self.name(v) for v in op.operands)
        head = f'{ind}{lhs}"{name}"({operands})'
        sig = (" : (" + ", ".join(type_text(v.type) for v in op.operands if v.type) + ") -> "
               + ("(" + ", ".join(type_text(r.type) for r in op.results) + ")"
                  if len(op.results) != 1 else type_text(op.results[0].type)))
        attr_text_ = (" {" + ", ".join(f"{k} = {v}" if v != "unit" else k
                                       for k, v in attrs.items()) + "}") if attrs else ""
        if not op.regions:
            self.lines.append(head + attr_text_ + sig)
            return
        self.lines.append(head + " (")
        for i, region in enumerate(op.regions):
            self.region(region, depth + 1)
            if i + 1 < len(op.regions):
                self.lines[-1] += ","
        self.lines.append(f"{ind}){attr_text_}{sig}")

    def region(self, region: Region, depth: int) -> None:
        ind = "  " * depth
        self.lines.append(ind + "{")
        for block in region.blocks:
            args = ", ".join(f"{self.name(a)}: {type_text(a.type)}" for a in block.args
                             if a.type is not None)
            self.lines.append(f"{ind}^bb0({args}):" if block.args else f"{ind}^bb0:")
            self.block_ops(block, depth + 1, in_func=False)
        self.lines.append(ind + "}")


def to_stablehlo_text(m: BcModule) -> str:
    """The StableHLO text (generic op form) of a decoded VHLO artifact."""
    for op in m.ops:
        _check_operand_types(op)
    return _Printer().module(m)


def _check_operand_types(op: Op) -> None:
    for v in op.operands:
        if v.type is None:
            raise _fail(f"{op.name} uses a value that is never defined")
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                _check_operand_types(inner)
