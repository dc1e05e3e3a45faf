"""MHLO ops in StableHLO text, as XLA's HLO-to-MLIR translation prints them.

TensorFlow's `experimental_get_compiler_ir(...)(stage='stablehlo')` and other HLO-to-MLIR
converters write StableHLO but keep `mhlo.*` ops for HLO opcodes StableHLO lacks
(`mhlo.copy`, `mhlo.erf`, `mhlo.sinh`, `mhlo.topk`...). Each becomes its HLO opcode (not a
CHLO decomposition: XLA compiles the HLO op itself). Older producers wrote whole modules
in MHLO: every other `mhlo.NAME` is read as `stablehlo.NAME`.

Serialized StableHLO (PyTorch/XLA's `exported_program_to_stablehlo`) writes the same ops
as `stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {...}, mhlo.version = 1}`;
XLA reads these back as the MHLO op, and so does hlotool.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from hlotool.stablehlo import chlo, control, dynamic, legacy, ops  # noqa: F401
from hlotool.stablehlo.ast import DictAttr
from hlotool.stablehlo.attrs import get_bool, get_int
from hlotool.stablehlo.control import SPECIAL_TARGETS
from hlotool.stablehlo.lowering import CONVERTERS, OpCtx
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape

O = Opcode
Results = list[Instruction]

#: MHLO ops with one HLO opcode of the same arity and the result type the text gives.
_DIRECT: dict[str, Opcode] = {
    "mhlo.copy": O.COPY, "mhlo.erf": O.ERF, "mhlo.acos": O.ACOS, "mhlo.acosh": O.ACOSH,
    "mhlo.asin": O.ASIN, "mhlo.asinh": O.ASINH, "mhlo.atanh": O.ATANH, "mhlo.cosh": O.COSH,
    "mhlo.sinh": O.SINH, "mhlo.tan": O.TAN,
}  # fmt: skip


def _direct(opcode: Opcode) -> Callable[[OpCtx], Results]:
    def convert(ctx: OpCtx) -> Results:
        ctx.arity(1)
        return [ctx.emit(opcode, ctx.result_shape(), ctx.operands)]

    return convert


def _add_dependency(ctx: OpCtx) -> Results:
    """`mhlo.add_dependency %x, %token`: the value %x, ordered after the token."""
    ctx.arity(2)
    return [ctx.emit(O.ADD_DEPENDENCY, ctx.operands[0].shape, ctx.operands)]


def _topk(ctx: OpCtx) -> Results:
    """`mhlo.topk(%x, k = K, largest = B)`: values and s32 indices of the last dimension."""
    ctx.arity(1)
    attrs = {"k": ctx.need("k", get_int),
             "largest": ctx.need("largest", get_bool) if ctx.has("largest") else True}
    ins = ctx.emit(O.TOPK, Shape.tuple_of(ctx.result_shapes()), ctx.operands, attrs)
    return ctx.gtes(ins)


for _name, _opcode in _DIRECT.items():
    CONVERTERS[_name] = _direct(_opcode)
CONVERTERS["mhlo.add_dependency"] = _add_dependency
CONVERTERS["mhlo.topk"] = _topk
for _name, _conv in list(CONVERTERS.items()):
    if _name.startswith("stablehlo."):
        CONVERTERS.setdefault("mhlo." + _name.removeprefix("stablehlo."), _conv)


def _as_custom_call(convert: Callable[[OpCtx], Results]) -> Callable[[OpCtx], Results | None]:
    """A `custom_call @mhlo.NAME` read as the op, its attributes from `mhlo.attributes`."""

    def special(ctx: OpCtx) -> Results | None:
        if "mhlo.attributes" not in ctx.op.attrs and "mhlo.version" not in ctx.op.attrs:
            return None
        inner = ctx.op.attrs.get("mhlo.attributes")
        attrs = inner.as_dict() if isinstance(inner, DictAttr) else {}
        op = dataclasses.replace(ctx.op, name=ctx.op.attrs["call_target_name"].value,
                                 attrs=attrs)
        inner_ctx = OpCtx(ctx.lw, ctx.scope, op, ctx.operands)
        results = convert(inner_ctx)
        ctx.emitted.extend(inner_ctx.emitted)
        return results

    return special


for _name, _conv in list(CONVERTERS.items()):
    if _name.startswith("mhlo."):
        SPECIAL_TARGETS.setdefault(_name, _as_custom_call(_conv))
