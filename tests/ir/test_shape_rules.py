"""Tests of hlotool.ir.shape_rules.

Most cases are HLO instructions whose result shape XLA itself inferred: jaxlib 0.10.2's
`jaxlib._hlo.hlo_module_from_text` fills in an omitted result shape with XLA's
ShapeInference, so the expected answers below (shape with layout, or XLA's error message)
were recorded from it. `test_recorded_answers_match_xla` re-checks the recordings against
the installed jaxlib when it is importable. The remaining tests cover what XLA only checks
in its HLO verifier (declared shapes of convert/reshape/..., implicit broadcasts,
collectives, async ops) and are written from xla/service/hlo_verifier.cc.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from hlotool.ir.attributes import (
    ConvDimensionNumbers,
    OperandAlias,
    PadDimension,
    ReplicaGroups,
    SliceRange,
    Window,
    WindowDimension,
)
from hlotool.ir.opcodes import BY_NAME, OPS
from hlotool.ir.shape_rules import ProgramShape, ShapeContext, ShapeError
from hlotool.ir.types import UNBOUNDED, Layout, PrimitiveType, Shape, shape_to_text

P = PrimitiveType

# ======================================================================================
# A tiny reader for the HLO snippets the cases are written in
# ======================================================================================


def S(text: str) -> Shape:
    """Shape from HLO text: `f32[2,<=3]{0,1}`, `(s32[], token[])`, `f32[?]`."""
    shape, rest = _shape(text.strip())
    assert not rest.strip(), text
    return shape


def _shape(text: str) -> tuple[Shape, str]:
    if text.startswith("("):
        parts: list[Shape] = []
        text = text[1:].lstrip()
        while not text.startswith(")"):
            part, text = _shape(text)
            parts.append(part)
            text = text.lstrip()
            if text.startswith(","):
                text = text[1:].lstrip()
        return Shape.tuple_of(parts), text[1:]
    m = re.match(r"([a-z0-9]+)\[([^\]]*)\](\{[0-9,]*\})?", text)
    assert m, text
    et = P(m.group(1))
    if et is P.TOKEN:
        return Shape.token(), text[m.end():]
    dims: list[int] = []
    dyn: list[bool] = []
    for d in filter(None, m.group(2).split(",")):
        if d == "?":
            dims.append(UNBOUNDED)
            dyn.append(False)
        elif d.startswith("<="):
            dims.append(int(d[2:]))
            dyn.append(True)
        else:
            dims.append(int(d))
            dyn.append(False)
    layout: Any = True
    if m.group(3):
        layout = Layout(tuple(int(x) for x in m.group(3)[1:-1].split(",") if x))
    return Shape.array(et, dims, layout, tuple(dyn)), text[m.end():]


@dataclass
class Comp:
    """Stand-in for a called computation: only `.program_shape` is needed."""

    name: str
    program_shape: ProgramShape


def comp(params: list[str], result: str, name: str = "c") -> Comp:
    return Comp(name, ProgramShape(tuple(S(p) for p in params), S(result)))


def comp_from_text(text: str) -> Comp:
    name = text.split(" {", 1)[0]
    params = sorted(
        (int(n), S(s)) for s, n in re.findall(r"= (.+?) parameter\((\d+)\)", text)
    )
    root = re.search(r"ROOT \S+ = (.+?) [a-z][a-z0-9\-]*\(", text)
    assert root, text
    return Comp(name, ProgramShape(tuple(s for _, s in params), S(root.group(1))))


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{(":
            depth += 1
        elif ch in "})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def window(text: str) -> Window:
    fields = dict(item.split("=") for item in text.split())
    n = len(fields["size"].split("x"))

    def ints(key: str, default: int) -> list[int]:
        return [int(x) for x in fields[key].split("x")] if key in fields else [default] * n

    pads = [tuple(int(y) for y in x.split("_")) for x in fields["pad"].split("x")] if "pad" in fields else [(0, 0)] * n
    return Window(
        tuple(
            WindowDimension(
                size=s, stride=st, padding_low=pl, padding_high=ph, window_dilation=wd,
                base_dilation=bd, window_reversal=bool(rv),
            )
            for s, st, (pl, ph), wd, bd, rv in zip(
                ints("size", 1), ints("stride", 1), pads, ints("rhs_dilate", 1),
                ints("lhs_dilate", 1), ints("rhs_reversal", 0), strict=True,
            )
        )
    )  # fmt: skip


def dim_labels(text: str) -> ConvDimensionNumbers:
    lhs, rest = text.split("_", 1)
    rhs, out = rest.split("->")

    def spatial(s: str) -> tuple[int, ...]:
        return tuple(s.index(str(i)) for i in range(len(s) - 2))

    return ConvDimensionNumbers(
        lhs.index("b"), lhs.index("f"), spatial(lhs),
        rhs.index("i"), rhs.index("o"), spatial(rhs),
        out.index("b"), out.index("f"), spatial(out),
    )  # fmt: skip


_COMPUTATION_KEYS = {
    "to_apply", "condition", "body", "select", "scatter", "calls", "true_computation",
    "false_computation",
}  # fmt: skip


def attrs_from_text(text: str, comps: dict[str, Comp]) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for item in _split_top(text):
        key, value = item.split("=", 1)
        if key == "window":
            attrs[key] = window(value[1:-1])
        elif key == "dim_labels":
            attrs[key] = dim_labels(value)
        elif key == "slice":
            ranges = re.findall(r"\[(-?\d+):(-?\d+)(?::(-?\d+))?\]", value)
            attrs[key] = tuple(SliceRange(int(a), int(b), int(c or 1)) for a, b, c in ranges)
        elif key == "padding":
            attrs[key] = tuple(PadDimension(*(int(x) for x in d.split("_"))) for d in value.split("x"))
        elif key in _COMPUTATION_KEYS:
            attrs[key] = comps[value]
        elif key == "branch_computations":
            attrs[key] = tuple(comps[n.strip()] for n in value[1:-1].split(","))
        elif value.startswith("{"):
            attrs[key] = tuple(int(x) for x in value[1:-1].split(",") if x.strip())
        elif value in ("true", "false"):
            attrs[key] = value == "true"
        elif re.fullmatch(r"-?\d+", value):
            attrs[key] = int(value)
        elif re.fullmatch(r"-?\d+\.\d*", value):
            attrs[key] = float(value)
        else:
            attrs[key] = value
    return attrs


def parse_instruction(root: str, params: list[str], comp_texts: tuple[str, ...]) -> ShapeContext:
    m = re.fullmatch(r"(?:(\S+) )?([a-z][a-z0-9\-]*)\(([^)]*)\)(?:, (.*))?", root)
    assert m, root
    declared_text, opcode, operand_text, attr_text = m.groups()
    comps = {c.name: c for c in map(comp_from_text, comp_texts)}
    operands = [S(params[int(name.strip()[1:])]) for name in operand_text.split(",") if name.strip()]
    attrs = attrs_from_text(attr_text or "", comps)
    return ShapeContext(opcode, operands, attrs, S(declared_text) if declared_text else None)


def rule_of(opcode: str):  # noqa: ANN201
    return OPS[BY_NAME[opcode]].shape_rule


def infer(ctx: ShapeContext) -> Shape:
    return rule_of(ctx.opcode)(ctx)


def ctx(opcode: str, operands: list[str], declared: str | None = None, **attrs: Any) -> ShapeContext:
    return ShapeContext(opcode, [S(s) for s in operands], attrs, S(declared) if declared else None)


def text(shape: Shape) -> str:
    return shape_to_text(shape)


def errors(c: ShapeContext, match: str) -> None:
    with pytest.raises(ShapeError, match=match):
        infer(c)


# ======================================================================================
# Called computations used by the cases (HLO text, as given to XLA)
# ======================================================================================

ADD_F = 'add_f { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }'
ADD_S = 'add_s { a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT s = s32[] add(a, b) }'
AMAX = 'amax { a = f32[] parameter(0)\n b = s32[] parameter(1)\n c = f32[] parameter(2)\n d = s32[] parameter(3)\n ROOT t = (f32[], s32[]) tuple(a, b) }'
CMP = 'cmp { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = pred[] compare(a, b), direction=LT }'
CMP2 = 'cmp2 { a = f32[] parameter(0)\n b = f32[] parameter(1)\n c = s32[] parameter(2)\n d = s32[] parameter(3)\n ROOT r = pred[] compare(a, b), direction=LT }'
GE = 'ge { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = pred[] compare(a, b), direction=GE }'
COND = 'cond { p = (s32[], f32[2]) parameter(0)\n ROOT c = pred[] constant(true) }'
BODY = 'body { p = (s32[], f32[2]) parameter(0)\n ROOT t = (s32[], f32[2]) copy(p) }'
BODYB = 'bodyb { p = (s32[], f32[2]) parameter(0)\n a = s32[] get-tuple-element(p), index=0\n ROOT t = (s32[]) tuple(a) }'
BR0 = 'br0 { p = f32[2] parameter(0)\n ROOT n = f32[2] negate(p) }'
BR1 = 'br1 { p = s32[] parameter(0)\n c = f32[] constant(1)\n ROOT n = f32[2] broadcast(c), dimensions={} }'
BR2 = 'br2 { p = s32[] parameter(0)\n c = f32[] constant(1)\n ROOT n = f32[3] broadcast(c), dimensions={} }'
CALLEE = 'callee { a = f32[2] parameter(0)\n b = s32[] parameter(1)\n ROOT t = (f32[2], s32[]) tuple(a, b) }'
SB = 'sb { x = f32[3] parameter(0)\n c = f32[3] parameter(1)\n s = f32[3] add(c, x)\n ROOT t = (f32[3], f32[3]) tuple(s, s) }'
SB1 = 'sb1 { x = f32[3] parameter(0)\n c = f32[3] parameter(1)\n ROOT s = f32[3] add(c, x) }'
SB0 = 'sb0 { x = f32[3] parameter(0)\n ROOT s = f32[3] negate(x) }'
SB2 = 'sb2 { x = f32[3] parameter(0)\n y = s32[3] parameter(1)\n c = f32[3] parameter(2)\n s = f32[3] add(c, x)\n ROOT t = (f32[3], s32[3], f32[3]) tuple(s, y, s) }'


# (id, parameter shapes, root instruction, called computations, XLA's answer)
XLA_CASES = [
    ('neg_layout', ['f32[2,3]{0,1}'], 'negate(p0)', (),
     'f32[2,3]{0,1}'),
    ('abs_c64', ['c64[2,3]{0,1}'], 'abs(p0)', (),
     'f32[2,3]{0,1}'),
    ('abs_s32', ['s32[2]'], 'abs(p0)', (),
     's32[2]{0}'),
    ('abs_u32', ['u32[2]'], 'abs(p0)', (),
     'ERR: Expected element type in shape to be floating or complex for abs operation; got U32.'),
    ('real_c128', ['c128[2]'], 'real(p0)', (),
     'f64[2]{0}'),
    ('real_f32', ['f32[2]'], 'real(p0)', (),
     'f32[2]{0}'),
    ('imag_s32', ['s32[2]'], 'imag(p0)', (),
     'ERR: Expected element type in shape to be floating or complex for imag operation; got S32.'),
    ('floor_s32', ['s32[2]'], 'floor(p0)', (),
     'ERR: Expected element type in shape to be floating for floor operation; got S32.'),
    ('cbrt_c64', ['c64[2]'], 'cbrt(p0)', (),
     'ERR: Expected element type in shape to be floating for cbrt operation; got C64.'),
    ('erf_c64', ['c64[2]'], 'erf(p0)', (),
     'ERR: Expected element type in shape to be floating for erf operation; got C64.'),
    ('tan_c64', ['c64[2]'], 'tan(p0)', (),
     'c64[2]{0}'),
    ('exp_s32', ['s32[2]'], 'exponential(p0)', (),
     'ERR: Expected element type in shape to be floating or complex for exponential operation; got S32.'),
    ('negate_pred', ['pred[2]'], 'negate(p0)', (),
     'ERR: Expected element type in shape to be integral, floating or complex for negate operation; got PRED.'),
    ('popcnt_f32', ['f32[2]'], 'popcnt(p0)', (),
     'ERR: Expected an integral element type in argument to PopulationCount operation; got F32.'),
    ('clz_u8', ['u8[2]'], 'count-leading-zeros(p0)', (),
     'u8[2]{0}'),
    ('not_pred', ['pred[2]'], 'not(p0)', (),
     'pred[2]{0}'),
    ('not_f32', ['f32[2]'], 'not(p0)', (),
     'ERR: Expected pred or an integral element type in argument to Not operation; got F32.'),
    ('sign_u32', ['u32[2]'], 'sign(p0)', (),
     'ERR: Expected element type in shape to be signed or complex for sign operation; got U32.'),
    ('sign_c64', ['c64[2]'], 'sign(p0)', (),
     'c64[2]{0}'),
    ('is_finite', ['bf16[2,3]{0,1}'], 'is-finite(p0)', (),
     'pred[2,3]{0,1}'),
    ('is_finite_s32', ['s32[2]'], 'is-finite(p0)', (),
     'ERR: Expected element type in shape to be floating point for IsFinite operation; got S32.'),
    ('unary_token', ['token[]'], 'negate(p0)', (),
     'ERR: Expected array argument for operand of unary operation, but got token[].'),
    ('unary_dynamic', ['f32[2,<=3]'], 'negate(p0)', (),
     'f32[2,<=3]{1,0}'),
    ('copy_layout', ['f32[2,3]{0,1}'], 'copy(p0)', (),
     'f32[2,3]{0,1}'),
    ('add', ['f32[2,3]', 'f32[2,3]'], 'add(p0, p1)', (),
     'f32[2,3]{1,0}'),
    ('add_lhs_layout', ['f32[2,3]{0,1}', 'f32[2,3]'], 'add(p0, p1)', (),
     'f32[2,3]{0,1}'),
    ('add_rhs_layout', ['f32[2,3]', 'f32[2,3]{0,1}'], 'add(p0, p1)', (),
     'f32[2,3]{1,0}'),
    ('add_mixed_fp', ['bf16[2]', 'f32[2]'], 'add(p0, p1)', (),
     'f32[2]{0}'),
    ('add_dynamic', ['f32[2,<=3]', 'f32[2,3]'], 'add(p0, p1)', (),
     'f32[2,<=3]{1,0}'),
    ('add_incompatible', ['f32[2]', 'f32[3]'], 'add(p0, p1)', (),
     'ERR: Binary op with incompatible shapes: f32[2] and f32[3].'),
    ('add_types', ['f32[2]', 's32[2]'], 'add(p0, p1)', (),
     'ERR: Binary op add with different element types: f32[2] and s32[2].'),
    ('add_rank', ['f32[2]', 'f32[2,3]'], 'add(p0, p1)', (),
     'ERR: Shapes must be equal rank, but are f32[2] and f32[2,3]'),
    ('add_tuple', ['(f32[2], s32[])', '(f32[2], s32[])'], 'add(p0, p1)', (),
     'ERR: Expected array argument for lhs of binary operation add, but got (f32[2], s32[]).'),
    ('sub_pred', ['pred[2]', 'pred[2]'], 'subtract(p0, p1)', (),
     'ERR: Expected element type in shape to be arithmetic type for operation subtract; got PRED.'),
    ('and_f32', ['f32[2]', 'f32[2]'], 'and(p0, p1)', (),
     'ERR: Expected pred or integral type in argument to and/or operation; got F32.'),
    ('xor_s8', ['s8[4]', 's8[4]'], 'xor(p0, p1)', (),
     's8[4]{0}'),
    ('shl_f32', ['f32[2]', 'f32[2]'], 'shift-left(p0, p1)', (),
     'f32[2]{0}'),
    ('power_s32', ['s32[2]', 's32[2]'], 'power(p0, p1)', (),
     's32[2]{0}'),
    ('atan2_s32', ['s32[2]', 's32[2]'], 'atan2(p0, p1)', (),
     'ERR: Expected input element type to be floating or complex for atan2 operation; got S32.'),
    ('atan2_c64', ['c64[2]', 'c64[2]'], 'atan2(p0, p1)', (),
     'c64[2]{0}'),
    ('complex_f32', ['f32[2]', 'f32[2]'], 'complex(p0, p1)', (),
     'c64[2]{0}'),
    ('complex_f64', ['f64[2]', 'f64[2]'], 'complex(p0, p1)', (),
     'c128[2]{0}'),
    ('complex_bf16', ['bf16[2]', 'bf16[2]'], 'complex(p0, p1)', (),
     'ERR: Complex component type is not implemented.'),
    ('complex_s32', ['s32[2]', 's32[2]'], 'complex(p0, p1)', (),
     'ERR: Expected element type in shape to be floating for complex compose operation; got S32.'),
    ('max_c64', ['c64[2]', 'c64[2]'], 'maximum(p0, p1)', (),
     'c64[2]{0}'),
    ('remainder', ['f32[2]', 'f32[2]'], 'remainder(p0, p1)', (),
     'f32[2]{0}'),
    ('compare', ['f32[2,3]{0,1}', 'f32[2,3]{0,1}'], 'compare(p0, p1), direction=EQ', (),
     'pred[2,3]{0,1}'),
    ('compare_mismatch', ['f32[2]', 'f32[3]'], 'compare(p0, p1), direction=EQ', (),
     'ERR: Binary op with incompatible shapes: f32[2] and f32[3].'),
    ('compare_c64_lt', ['c64[2]', 'c64[2]'], 'compare(p0, p1), direction=LT', (),
     'pred[2]{0}'),
    ('select', ['pred[2]', 'f32[2]', 'f32[2]'], 'select(p0, p1, p2)', (),
     'f32[2]{0}'),
    ('select_scalar_pred', ['pred[]', 'f32[2,3]{0,1}', 'f32[2,3]'], 'select(p0, p1, p2)', (),
     'f32[2,3]{0,1}'),
    ('select_pred_layout', ['pred[2,3]{0,1}', 'f32[2,3]', 'f32[2,3]'], 'select(p0, p1, p2)', (),
     'f32[2,3]{0,1}'),
    ('select_bad_pred', ['pred[3]', 'f32[2]', 'f32[2]'], 'select(p0, p1, p2)', (),
     'ERR: Operands to select and predicate must be the same shape; got f32[2] and f32[2] and pred[3].'),
    ('select_s32_pred', ['s32[2]', 'f32[2]', 'f32[2]'], 'select(p0, p1, p2)', (),
     "ERR: Select's pred operand must have PRED element type; got s32[2]."),
    ('select_branches', ['pred[]', 'f32[2]', 'f32[3]'], 'select(p0, p1, p2)', (),
     'ERR: Operands to select must be the same shape; got f32[2] and f32[3].'),
    ('clamp_scalars', ['f32[]', 'f32[2]', 'f32[]'], 'clamp(p0, p1, p2)', (),
     'f32[2]{0}'),
    ('clamp_layout', ['f32[]', 'f32[2,3]{0,1}', 'f32[]'], 'clamp(p0, p1, p2)', (),
     'f32[2,3]{0,1}'),
    ('clamp_shapes', ['f32[3]', 'f32[2]', 'f32[]'], 'clamp(p0, p1, p2)', (),
     'ERR: Clamp with incompatible shapes: f32[3], f32[2], f32[].'),
    ('clamp_types', ['f32[]', 's32[2]', 'f32[]'], 'clamp(p0, p1, p2)', (),
     'ERR: Clamp with incompatible element types: f32[], s32[2], f32[].'),
    ('broadcast_scalar', ['f32[]'], 'broadcast(p0), dimensions={}', (),
     'f32[]'),
    ('broadcast_no_dims', ['f32[]'], 'broadcast(p0)', (),
     'f32[]'),
    ('broadcast_xla_quirk', ['f32[3]'], 'broadcast(p0), dimensions={0}', (),
     'f32[0,3]{1,0}'),
    ('transpose', ['f32[2,3]'], 'transpose(p0), dimensions={1,0}', (),
     'f32[3,2]{0,1}'),
    ('transpose_layout', ['f32[2,3,4]{0,2,1}'], 'transpose(p0), dimensions={2,0,1}', (),
     'f32[4,2,3]{1,0,2}'),
    ('transpose_bad', ['f32[2,3]'], 'transpose(p0), dimensions={1}', (),
     'ERR: Transpose dimensions [1] are not a permutation of the operand dimensions (operand shape is f32[2,3]).'),
    ('reverse', ['f32[2,3]{0,1}'], 'reverse(p0), dimensions={0}', (),
     'f32[2,3]{0,1}'),
    ('reverse_oob', ['f32[2,3]'], 'reverse(p0), dimensions={2}', (),
     'ERR: One of the reverse dimensions (2) is out-of-bounds in shape f32[2,3].'),
    ('reverse_dup', ['f32[2,3]'], 'reverse(p0), dimensions={1,1}', (),
     'ERR: a dimension number is duplicated in reverse'),
    ('concat', ['bf16[2]', 'f32[3]'], 'concatenate(p0, p1), dimensions={0}', (),
     'f32[5]{0}'),
    ('concat_layout', ['f32[2,3]{0,1}', 'f32[2,3]{0,1}'], 'concatenate(p0, p1), dimensions={0}', (),
     'f32[4,3]{1,0}'),
    ('concat_dyn_cat', ['f32[2,<=3]', 'f32[2,3]'], 'concatenate(p0, p1), dimensions={1}', (),
     'f32[2,<=6]{1,0}'),
    ('concat_dyn_other', ['f32[2,<=3]', 'f32[2,3]'], 'concatenate(p0, p1), dimensions={0}', (),
     'f32[4,<=3]{1,0}'),
    ('concat_oob', ['f32[2]', 'f32[3]'], 'concatenate(p0, p1), dimensions={1}', (),
     'ERR: Concatenate dimension out of bounds: 1.'),
    ('concat_ranks', ['f32[2,3]', 'f32[3]'], 'concatenate(p0, p1), dimensions={0}', (),
     'ERR: Cannot concatenate arrays with different ranks: 2 (f32[2,3]) vs 1 (f32[3]).'),
    ('concat_dims', ['f32[2,3]', 'f32[3,4]'], 'concatenate(p0, p1), dimensions={0}', (),
     'ERR: Cannot concatenate arrays that differ in dimensions other than the one being concatenated. Dimension 1 in both shapes must be equal (or compatible): f32[2,3] vs f32[3,4].'),
    ('concat_types', ['f32[2,3]', 's32[3,3]'], 'concatenate(p0, p1), dimensions={0}', (),
     'ERR: Cannot concatenate arrays with different element types: F32 vs S32.'),
    ('pad', ['bf16[2]', 'f32[]'], 'pad(p0, p1), padding=1_1', (),
     'f32[4]{0}'),
    ('pad_negative_interior', ['f32[2,3]', 'f32[]'], 'pad(p0, p1), padding=-1_-1_1x0_0_2', (),
     'f32[1,7]{1,0}'),
    ('pad_empty_interior', ['f32[0,3]', 'f32[]'], 'pad(p0, p1), padding=0_0_3x0_0', (),
     'f32[0,3]{1,0}'),
    ('pad_layout', ['f32[2,3]{0,1}', 'f32[]'], 'pad(p0, p1), padding=0_0x0_0', (),
     'f32[2,3]{1,0}'),
    ('pad_negative', ['f32[2,3]', 'f32[]'], 'pad(p0, p1), padding=-2_-1x0_0', (),
     'ERR: Padding result in negative size for dimension 0'),
    ('pad_value', ['f32[2,3]', 'f32[2,3]'], 'pad(p0, p1), padding=0_0x0_0', (),
     'ERR: Pad operation does not support non-scalar padding values.'),
    ('pad_types', ['f32[2,3]', 's32[]'], 'pad(p0, p1), padding=0_0x0_0', (),
     'ERR: The element types of the operands to Pad do not match.'),
    ('get_dimension_size', ['f32[2,3]'], 'get-dimension-size(p0), dimensions={1}', (),
     's32[]'),
    ('get_dimension_size_oob', ['f32[2,3]'], 'get-dimension-size(p0), dimensions={2}', (),
     'ERR: GetDimensionSize dimension out of bounds: 2.'),
    ('set_dimension_size', ['f32[2,3]{0,1}', 's32[]'], 'set-dimension-size(p0, p1), dimensions={0}', (),
     'f32[<=2,3]{0,1}'),
    ('set_dimension_size_s64', ['f32[2,3]', 's64[]'], 'set-dimension-size(p0, p1), dimensions={1}', (),
     "ERR: SetDimensionSize's value has to be S32 scalar, got s64[]"),
    ('gather', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'f32[2,2,5]{2,1,0}'),
    ('gather_ivd0', ['f32[3,4,5]', 's32[2]'], 'gather(p0, p1), offset_dims={0,1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,2,5}', (),
     'f32[2,5]{1,0}'),
    ('gather_offset_first', ['f32[3,4,5]', 's32[7,2]'], 'gather(p0, p1), offset_dims={0,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'f32[2,7,5]{2,1,0}'),
    ('gather_implicit_ivd', ['f32[3,4,5]', 's32[7]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4,5}', (),
     'f32[7,4,5]{2,1,0}'),
    ('gather_batching', ['f32[3,4,5]', 's32[3,7,1]'], 'gather(p0, p1), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,5}', (),
     'f32[3,7,5]{2,1,0}'),
    ('gather_batching_later', ['f32[3,4,5]', 's32[7,3,1]'], 'gather(p0, p1), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={1}, index_vector_dim=2, slice_sizes={1,1,5}', (),
     'f32[7,3,5]{2,1,0}'),
    ('gather_batching_size', ['f32[3,4,5]', 's32[7,3,1]'], 'gather(p0, p1), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={1}, index_vector_dim=2, slice_sizes={2,1,5}', (),
     'ERR: Gather op can only have operand_batching_dims with bound 1 or 0, but bound is 2 for index 0 at position 0.'),
    ('gather_batching_count', ['f32[3,4,5]', 's32[7,3,1]'], 'gather(p0, p1), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,5}', (),
     'ERR: operand_batching_dims and start_indices_batching_dims in gather op must be of the same size; got: 1 and 0.'),
    ('gather_float_indices', ['f32[3,4,5]', 'f32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Gather indices parameter must be an integral tensor; got f32[2,2].'),
    ('gather_unsorted_offsets', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={2,1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Output window dimensions in gather op must be ascending; got: 2, 1.'),
    ('gather_offset_oob', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,3}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Offset dimension 1 in gather op is out of bounds; got 3, but should have been in [0,3).'),
    ('gather_index_count', ['f32[3,4,5]', 's32[2,3]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Gather op has 2 elements in start_index_map and the bound of dimension index_vector_dim=1 of start_indices is 3. These two numbers must be equal.'),
    ('gather_repeated_map', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,0}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Repeated dimensions are not allowed in start_index_map; got: 0, 0.'),
    ('gather_collapse_big', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={1}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Gather op can only collapse slice dims with bound 1 or 0, but bound is 2 for index 1 at position 0.'),
    ('gather_ivd_oob', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=3, slice_sizes={1,2,5}', (),
     'ERR: Gather index leaf dimension must be within [0, rank(start_indices) + 1). rank(start_indices) is 2 and gather index leaf dimension is 3.'),
    ('gather_components', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: All components of the offset index in a gather op must either be a offset dimension or explicitly collapsed or explicitly batched; got len(slice_sizes)=3, output_slice_sizes=1, collapsed_slice_dims=0, operand_batching_dims=.'),
    ('gather_slice_count', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2}', (),
     'ERR: Gather op must have one slice size for every input dimension; got: len(slice_sizes)=2, input_shape.rank=3.'),
    ('gather_map_oob', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,3}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Invalid start_index_map; domain is [0, 3), got: 1->3.'),
    ('gather_collapsed_oob', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={3}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,5}', (),
     'ERR: Invalid collapsed_slice_dims set in gather op; valid range is [0, 3), got: 3.'),
    ('gather_slice_size', ['f32[3,4,5]', 's32[2,2]'], 'gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,6}', (),
     'ERR: Slice size at index 2 in gather op is out of range, must be within [0, 6), got 6.'),
    ('scatter', ['f32[3,4]', 's32[2,1]', 'f32[2,4]'], 'scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     'f32[3,4]{1,0}'),
    ('scatter_implicit_ivd', ['f32[3,4]{0,1}', 's32[2]', 'f32[2,4]'], 'scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     'f32[3,4]{0,1}'),
    ('scatter_batching', ['f32[5,3,4]', 's32[5,2,1]', 'f32[5,2,4]'], 'scatter(p0, p1, p2), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add_f', (ADD_F, ),
     'f32[5,3,4]{2,1,0}'),
    ('scatter_window_bound', ['f32[3,4]', 's32[2]', 'f32[2,5]'], 'scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     'ERR: Bounds of the window dimensions of updates must not exceed the bounds of the corresponding dimensions of operand. For dimension 1, updates bound is 5, operand bound is 4.'),
    ('scatter_scatter_bound', ['f32[3,4]', 's32[2]', 'f32[3,4]'], 'scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     'ERR: Bounds of the scatter dimensions of updates must be same as the bounds of the corresponding dimensions of scatter indices. For scatter dimension 0, updates bound is 3, scatter_indices bound is 2.'),
    ('scatter_updates_rank', ['f32[3,4]', 's32[2]', 'f32[2,4,1]'], 'scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     'ERR: Updates tensor must be of rank 2; got 3.'),
    ('scatter_window_size', ['f32[3,4]', 's32[2]', 'f32[2,4]'], 'scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     "ERR: Scatter op has window of size 1; doesn't match operand of rank 2."),
    ('scatter_index_count', ['f32[3,4]', 's32[2,2]', 'f32[2,4]'], 'scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     'ERR: Scatter op has 1 elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim=1 of scatter_indices is 2. These two numbers must be equal.'),
    ('scatter_variadic_reducer', ['f32[3,4]', 'f32[3,4]', 's32[2]', 'f32[2,4]', 'f32[2,4]'], 'scatter(p0, p1, p2, p3, p4), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f', (ADD_F, ),
     'ERR: Reduction function must take 4 parameters, but takes 2 parameter(s).'),
    ('reduce', ['f32[2,3]', 'f32[]'], 'reduce(p0, p1), dimensions={1}, to_apply=add_f', (ADD_F, ),
     'f32[2]{0}'),
    ('reduce_all', ['f32[2,3]', 'f32[]'], 'reduce(p0, p1), dimensions={0,1}, to_apply=add_f', (ADD_F, ),
     'f32[]'),
    ('reduce_none_layout', ['f32[2,3]{0,1}', 'f32[]'], 'reduce(p0, p1), dimensions={}, to_apply=add_f', (ADD_F, ),
     'f32[2,3]{1,0}'),
    ('reduce_variadic', ['f32[2,3]', 's32[2,3]', 'f32[]', 's32[]'], 'reduce(p0, p1, p2, p3), dimensions={0}, to_apply=amax', (AMAX, ),
     '(f32[3]{0}, s32[3]{0})'),
    ('reduce_duplicate', ['f32[2,3]', 'f32[]'], 'reduce(p0, p1), dimensions={1,1}, to_apply=add_f', (ADD_F, ),
     'ERR: Duplicate reduction dimension: 1'),
    ('reduce_oob', ['f32[2,3]', 'f32[]'], 'reduce(p0, p1), dimensions={2}, to_apply=add_f', (ADD_F, ),
     'ERR: Reducing out-of-bounds dimension 2 in shape f32[2,3].'),
    ('reduce_input_type', ['f32[2,3]', 's32[]'], 'reduce(p0, p1), dimensions={1}, to_apply=add_s', (ADD_S, ),
     "ERR: Reduction function's 1-th parameter shape differs from the input type element type: s32[] vs f32[]"),
    ('reduce_init_shape', ['f32[2,3]', 'f32[2]'], 'reduce(p0, p1), dimensions={1}, to_apply=add_f', (ADD_F, ),
     "ERR: Reduction function's accumulator shape at index 0 differs from the init_value shape: f32[] vs f32[2]"),
    ('reduce_arity', ['f32[2,3]', 'f32[]'], 'reduce(p0, p1), dimensions={1}, to_apply=amax', (AMAX, ),
     'ERR: Reduction function must take 2 parameters, but takes 4 parameter(s).'),
    ('reduce_window', ['f32[4,6]', 'f32[]'], 'reduce-window(p0, p1), window={size=2x3 stride=2x1 pad=0_1x1_1}, to_apply=add_f', (ADD_F, ),
     'f32[2,6]{1,0}'),
    ('reduce_window_dilated', ['f32[4,6]', 'f32[]'], 'reduce-window(p0, p1), window={size=2x3 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=add_f', (ADD_F, ),
     'f32[6,2]{1,0}'),
    ('reduce_window_rank', ['f32[4,6]', 'f32[]'], 'reduce-window(p0, p1), window={size=2}, to_apply=add_f', (ADD_F, ),
     'ERR: Window has dimension 1 but base shape has dimension 2.'),
    ('select_and_scatter', ['f32[4,6]', 'f32[2,3]', 'f32[]'], 'select-and-scatter(p0, p1, p2), window={size=2x2 stride=2x2}, select=ge, scatter=add_f', (GE, ADD_F, ),
     'f32[4,6]{1,0}'),
    ('select_and_scatter_source', ['f32[4,6]', 'f32[2,2]', 'f32[]'], 'select-and-scatter(p0, p1, p2), window={size=2x2 stride=2x2}, select=ge, scatter=add_f', (GE, ADD_F, ),
     'ERR: Source shape does not match the shape of window-reduced operand: source(f32[2,2]), window-reduced operand(f32[2,3]).'),
    ('select_and_scatter_select', ['f32[4,6]', 'f32[2,3]', 'f32[]'], 'select-and-scatter(p0, p1, p2), window={size=2x2 stride=2x2}, select=add_f, scatter=add_f', (ADD_F, ),
     'ERR: Select function must have rank-0 PRED result.'),
    ('sort', ['f32[4]'], 'sort(p0), dimensions={0}, to_apply=cmp', (CMP, ),
     'f32[4]{0}'),
    ('sort_two', ['f32[4]', 's32[4]'], 'sort(p0, p1), dimensions={0}, to_apply=cmp2', (CMP2, ),
     '(f32[4]{0}, s32[4]{0})'),
    ('sort_dims', ['f32[4]', 's32[5]'], 'sort(p0, p1), dimensions={0}, to_apply=cmp2', (CMP2, ),
     'ERR: Sort keys and values dimensions must match. Keys shape is: f32[4]'),
    ('topk', ['f32[4,6]'], 'topk(p0), k=3', (),
     '(f32[4,3]{1,0}, s32[4,3]{1,0})'),
    ('topk_big_k', ['f32[4,6]'], 'topk(p0), k=7', (),
     'ERR: RET_CHECK failure (external/xla/xla/service/shape_inference.cc:484) operand_shape.dimensions(last_dim) >= k k=7 is larger than the last dimension of size=6'),
    ('map', ['f32[4,6]{0,1}', 'f32[4,6]'], 'map(p0, p1), dimensions={0,1}, to_apply=add_f', (ADD_F, ),
     'f32[4,6]{1,0}'),
    ('map_subset', ['f32[4,6]', 'f32[4,6]'], 'map(p0, p1), dimensions={0}, to_apply=add_f', (ADD_F, ),
     'ERR: Map applied to a subset of dimensions currently not supported: arg_dimension_size: 2, requested_map_dimensions_size: 1.'),
    ('map_arity', ['f32[4,6]'], 'map(p0), dimensions={0,1}, to_apply=add_f', (ADD_F, ),
     'ERR: Map applied function arity must match number of arguments; got: arity: 2, arguments: 1.'),
    ('map_types', ['s32[4,6]', 's32[4,6]'], 'map(p0, p1), dimensions={0,1}, to_apply=add_f', (ADD_F, ),
     "ERR: Mapped computation's parameter type has to match argument element type; got parameter 0 shape: f32[], argument shape: s32[4,6]."),
    ('scan', ['f32[4,3]', 'f32[3]'], 'scan(p0, p1), dimensions={0}, num_carries=1, to_apply=sb', (SB, ),
     '(f32[4,3]{1,0}, f32[3]{0})'),
    ('scan_bare_carry', ['f32[4,3]', 'f32[3]'], 'scan(p0, p1), dimensions={0}, num_carries=1, to_apply=sb1', (SB1, ),
     'f32[3]{0}'),
    ('scan_no_carry', ['f32[4,3]'], 'scan(p0), dimensions={0}, num_carries=0, to_apply=sb0', (SB0, ),
     'f32[4,3]{1,0}'),
    ('scan_two_inputs', ['f32[4,3]', 's32[4,3]', 'f32[3]'], 'scan(p0, p1, p2), dimensions={0}, num_carries=1, to_apply=sb2', (SB2, ),
     '(f32[4,3]{1,0}, s32[4,3]{1,0}, f32[3]{0})'),
    ('dot_batch', ['f32[2,3,4]', 'f32[2,4,5]'], 'dot(p0, p1), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}', (),
     'f32[2,3,5]{2,1,0}'),
    ('dot_batch_middle', ['f32[3,2,4]', 'f32[5,4,2]'], 'dot(p0, p1), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={2}, rhs_contracting_dims={1}', (),
     'f32[2,3,5]{2,1,0}'),
    ('dot_outer', ['f32[3]', 'f32[4]'], 'dot(p0, p1)', (),
     'f32[3,4]{1,0}'),
    ('dot_mixed', ['bf16[2,3]', 'f32[3,4]'], 'dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'f32[2,4]{1,0}'),
    ('dot_int8', ['s8[2,3]', 's8[3,5]'], 'dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     's8[2,5]{1,0}'),
    ('dot_preferred', ['s8[2,3]', 's8[3,5]'], 's32[2,5] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     's32[2,5]{1,0}'),
    ('dot_sizes', ['f32[2,3]', 'f32[4,5]'], 'dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'ERR: Cannot infer shape for dot operation: f32[2,3] <dot> f32[4,5]. Contracting dimension sizes are not compatible.'),
    ('dot_count', ['f32[2,3]', 'f32[3,5]'], 'dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={}', (),
     'ERR: Cannot infer shape for dot operation: f32[2,3] <dot> f32[3,5]. Must specify the same number of contracting dimensions for lhs and rhs.'),
    ('dot_batch_count', ['f32[2,3]', 'f32[3,5]'], 'dot(p0, p1), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'ERR: Cannot infer shape for dot operation: f32[2,3] <dot> f32[3,5]. Must the same number of batch dimensions for lhs and rhs.'),
    ('ragged_dot_noncontracting', ['f32[11,5]', 'f32[3,5,7]', 's64[3]'], 'ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}', (),
     'f32[11,7]{1,0}'),
    ('ragged_dot_contracting', ['f32[11,5]', 'f32[5,7]', 's64[3]'], 'ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}', (),
     'f32[3,11,7]{2,1,0}'),
    ('ragged_dot_batch', ['f32[2,11,5]', 'f32[2,5,7]', 's64[3]'], 'ragged-dot(p0, p1, p2), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}', (),
     'f32[2,11,7]{2,1,0}'),
    ('ragged_dot_no_group', ['f32[11,5]', 'f32[3,5,7]', 's64[3]'], 'ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}', (),
     'ERR: Cannot infer shape for ragged dot operation: f32[11,5] <ragged_dot> f32[3,5,7]. There must be exactly one group dimension in the rhs when the lhs ragged dimension is non-contracting.'),
    ('ragged_dot_groups', ['f32[11,5]', 'f32[3,5,7]', 's64[4]'], 'ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}', (),
     'ERR: Cannot infer shape for ragged dot operation: f32[11,5] <ragged_dot> f32[3,5,7]. rhs group dimension is expected to have size=4, got 3'),
    ('scaled_dot', ['f8e4m3fn[4,32]', 'f8e8m0fnu[4,1]', 'f8e4m3fn[32,8]', 'f8e8m0fnu[1,8]'], 'scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'f8e4m3fn[4,8]{1,0}'),
    ('scaled_dot_preferred', ['f8e4m3fn[4,32]', 'f8e8m0fnu[4,1]', 'f8e4m3fn[32,8]', 'f8e8m0fnu[1,8]'], 'bf16[4,8] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'bf16[4,8]{1,0}'),
    ('scaled_dot_mixed', ['bf16[4,32]', 'f32[4,1]', 'f32[32,8]', 'f32[1,8]'], 'scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'f32[4,8]{1,0}'),
    ('scaled_dot_rhs', ['f32[4,32]', 'f32[4,1]', 'f32[4,1]', 'f32[1,8]'], 'scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'ERR: Cannot infer shape for dot operation: f32[4,32] <dot> f32[4,1]. Contracting dimension sizes are not compatible.'),
    ('conv_nhwc', ['f32[1,5,5,2]', 'f32[3,3,2,4]'], 'convolution(p0, p1), window={size=3x3}, dim_labels=b01f_01io->b01f', (),
     'f32[1,3,3,4]{3,2,1,0}'),
    ('conv_strided_padded', ['f32[1,5,5,2]', 'f32[3,3,2,4]'], 'convolution(p0, p1), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f', (),
     'f32[1,3,3,4]{3,2,1,0}'),
    ('conv_dilated', ['f32[1,2,5,5]', 'f32[4,2,3,3]'], 'convolution(p0, p1), window={size=3x3 lhs_dilate=2x2 rhs_dilate=2x1}, dim_labels=bf01_oi01->bf01', (),
     'f32[1,4,5,7]{3,2,1,0}'),
    ('conv_out_labels', ['f32[1,2,5,5]', 'f32[4,2,3,3]'], 'convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->f01b', (),
     'f32[4,3,3,1]{3,2,1,0}'),
    ('conv_swapped_spatial', ['f32[1,2,5,7]', 'f32[4,2,3,3]'], 'convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf10', (),
     'f32[1,4,5,3]{3,2,1,0}'),
    ('conv_feature_groups', ['f32[1,4,5,5]', 'f32[4,2,3,3]'], 'convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf01, feature_group_count=2', (),
     'f32[1,4,3,3]{3,2,1,0}'),
    ('conv_batch_groups', ['f32[4,2,5,5]', 'f32[4,2,3,3]'], 'convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf01, batch_group_count=2', (),
     'f32[2,4,3,3]{3,2,1,0}'),
    ('conv_no_spatial', ['f32[2,3]', 'f32[3,4]'], 'convolution(p0, p1), dim_labels=bf_io->bf', (),
     'f32[2,4]{1,0}'),
    ('conv_mixed', ['bf16[1,2,5]', 'f32[4,2,3]'], 'convolution(p0, p1), window={size=3}, dim_labels=bf0_oi0->bf0', (),
     'f32[1,4,3]{2,1,0}'),
    ('conv_window_too_big', ['f32[1,2,5]', 'f32[4,2,7]'], 'convolution(p0, p1), window={size=7}, dim_labels=bf0_oi0->bf0', (),
     'f32[1,4,0]{2,1,0}'),
    ('conv_negative_pad', ['f32[1,2,5]', 'f32[4,2,3]'], 'convolution(p0, p1), window={size=3 pad=-3_0}, dim_labels=bf0_oi0->bf0', (),
     'f32[1,4,0]{2,1,0}'),
    ('conv_features', ['f32[1,3,5,5]', 'f32[4,2,3,3]'], 'convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf01', (),
     'ERR: Expected LHS feature dimension (value 3) to be a multiple of feature_group_count (value 1), and LHS feature dimension / feature_group_count = RHS feature dimension (value 2); got <conv>(f32[1,3,5,5], f32[4,2,3,3])'),
    ('conv_window_rank', ['f32[1,2,5,5]', 'f32[4,2,3,3]'], 'convolution(p0, p1), window={size=3}, dim_labels=bf01_oi01->bf01', (),
     'ERR: Window must have same number of dimensions as dimension numbers.'),
    ('fft', ['c64[4,8]{0,1}'], 'fft(p0), fft_type=FFT, fft_length={8}', (),
     'c64[4,8]{0,1}'),
    ('rfft', ['f32[4,8]'], 'fft(p0), fft_type=RFFT, fft_length={8}', (),
     'c64[4,5]{1,0}'),
    ('rfft_2d', ['f32[4,8]'], 'fft(p0), fft_type=RFFT, fft_length={4,8}', (),
     'c64[4,5]{1,0}'),
    ('rfft_f64', ['f64[8]'], 'fft(p0), fft_type=RFFT, fft_length={8}', (),
     'c128[5]{0}'),
    ('rfft_empty', ['f32[4,0]'], 'fft(p0), fft_type=RFFT, fft_length={0}', (),
     'c64[4,0]{1,0}'),
    ('rfft_layout', ['f32[2,3]{0,1}'], 'fft(p0), fft_type=RFFT, fft_length={3}', (),
     'c64[2,2]{0,1}'),
    ('rfft_length', ['f32[4,9]'], 'fft(p0), fft_type=RFFT, fft_length={8}', (),
     'ERR: RFFT requires innermost dimensions match fft_length but dimension 1 is 9 and should be 8.'),
    ('irfft_even', ['c64[4,5]'], 'fft(p0), fft_type=IRFFT, fft_length={8}', (),
     'f32[4,8]{1,0}'),
    ('irfft_odd', ['c64[4,5]'], 'fft(p0), fft_type=IRFFT, fft_length={9}', (),
     'f32[4,9]{1,0}'),
    ('irfft_length', ['c64[4,5]'], 'fft(p0), fft_type=IRFFT, fft_length={10}', (),
     'ERR: IRFFT requires innermost dimension matches fft_length/2+1, but dimension 1 is 5 and should be 6.'),
    ('fft_real', ['f32[4,8]'], 'fft(p0), fft_type=FFT, fft_length={8}', (),
     'ERR: FFT requires complex input type, found F32.'),
    ('fft_rank4', ['c128[4,8]'], 'fft(p0), fft_type=IFFT, fft_length={1,2,3,4}', (),
     'ERR: FFT only supports ranks 1-3; got 4.'),
    ('fft_input_rank', ['c64[8]'], 'fft(p0), fft_type=FFT, fft_length={2,8}', (),
     'ERR: FFT of rank 2 requires input of at least same rank; got input of rank 1'),
    ('cholesky', ['f32[2,3,3]'], 'cholesky(p0), lower=true', (),
     'f32[2,3,3]{2,1,0}'),
    ('cholesky_square', ['f32[2,3,4]'], 'cholesky(p0)', (),
     "ERR: The two minor dimensions of 'a' must have compatible size, got f32[2,3,4]."),
    ('cholesky_type', ['s32[3,3]'], 'cholesky(p0)', (),
     'ERR: Expected element type in shape to be floating or complex for Cholesky; got S32.'),
    ('cholesky_rank', ['f32[3]'], 'cholesky(p0)', (),
     "ERR: The 'a' argument to Cholesky must have rank >= 2, got shape f32[3]"),
    ('trsm_left', ['f32[2,3,3]', 'f32[2,3,5]'], 'triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE', (),
     'f32[2,3,5]{2,1,0}'),
    ('trsm_right', ['f32[2,3,3]', 'f32[2,5,3]'], 'triangular-solve(p0, p1), left_side=false, lower=true, transpose_a=NO_TRANSPOSE', (),
     'f32[2,5,3]{2,1,0}'),
    ('trsm_shared', ['f32[2,3,3]', 'f32[2,5,3]'], 'triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE', (),
     "ERR: The shared dimension of 'a' and 'b' does not match, got shapes f32[2,3,3] and f32[2,5,3]"),
    ('trsm_batch', ['f32[2,3,3]', 'f32[3,3,3]'], 'triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE', (),
     'ERR: The leading batch dimensions of the arguments to triangular solve must be equal; got f32[3,3,3] and f32[2,3,3].'),
    ('trsm_types', ['f32[2,3,3]', 'f64[2,3,3]'], 'triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE', (),
     'ERR: Expected element types in shape to be floating or complex and identical for TriangularSolve; got F32 and F64.'),
    ('trsm_no_transpose_attr', ['f32[2,3,3]', 'f32[2,3,3]'], 'triangular-solve(p0, p1), left_side=true, lower=true', (),
     'ERR: Invalid transpose option value for triangular solve (0).'),
    ('bn_training', ['f32[2,3,4]', 'f32[3]', 'f32[3]'], 'batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1', (),
     '(f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0})'),
    ('bn_inference', ['f32[2,3,4]', 'f32[3]', 'f32[3]', 'f32[3]', 'f32[3]'], 'batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0.001, feature_index=1', (),
     'f32[2,3,4]{2,1,0}'),
    ('bn_grad', ['f32[2,3,4]', 'f32[3]', 'f32[3]', 'f32[3]', 'f32[2,3,4]'], 'batch-norm-grad(p0, p1, p2, p3, p4), epsilon=0.001, feature_index=1', (),
     '(f32[2,3,4]{2,1,0}, f32[3]{0}, f32[3]{0})'),
    ('bn_scale_size', ['f32[2,3,4]', 'f32[4]', 'f32[3]'], 'batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1', (),
     'ERR: The size of scale factor should be compatible with feature count, but the size of scale factor is 4 and the feature count is 3.'),
    ('bn_feature_index', ['f32[2,3,4]', 'f32[3]', 'f32[3]'], 'batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=3', (),
     'ERR: Expected feature_index of batch-norm-training to be smaller than the rank of operand_shape; got feature_index 3, and rank 3.'),
    ('bn_type', ['s32[2,3,4]', 's32[3]', 's32[3]'], 'batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1', (),
     'ERR: The operand to batch-norm-training must have a floating point element type, but the shape is S32.'),
    ('tuple', ['f32[2,3]{0,1}', 's32[]'], 'tuple(p0, p1)', (),
     '(f32[2,3]{0,1}, s32[])'),
    ('tuple_empty', [], 'tuple()', (),
     '()'),
    ('gte', ['(f32[2,3]{0,1}, s32[])'], 'get-tuple-element(p0), index=0', (),
     'f32[2,3]{0,1}'),
    ('while', ['(s32[], f32[2])'], 'while(p0), condition=cond, body=body', (COND, BODY, ),
     '(s32[], f32[2]{0})'),
    ('while_init', ['(s32[], f32[3])'], 'while(p0), condition=cond, body=body', (COND, BODY, ),
     'ERR: The parameter of condition and body, the result of the body, and init must all have the same shape; got Condition: (p: (s32[], f32[2])) -> pred[]; body: (p: (s32[], f32[2])) -> (s32[], f32[2]); init: (s32[], f32[3])..'),
    ('while_body', ['(s32[], f32[2])'], 'while(p0), condition=cond, body=bodyb', (COND, BODYB, ),
     'ERR: The parameter of condition and body, the result of the body, and init must all have the same shape; got Condition: (p: (s32[], f32[2])) -> pred[]; body: (p: (s32[], f32[2])) -> (s32[]); init: (s32[], f32[2])..'),
    ('cond_pred', ['pred[]', 'f32[2]', 's32[]'], 'conditional(p0, p1, p2), true_computation=br0, false_computation=br1', (BR0, BR1, ),
     'f32[2]{0}'),
    ('cond_index', ['s32[]', 'f32[2]', 's32[]'], 'conditional(p0, p1, p2), branch_computations={br0, br1}', (BR0, BR1, ),
     'f32[2]{0}'),
    ('cond_results', ['s32[]', 'f32[2]', 's32[]'], 'conditional(p0, p1, p2), branch_computations={br0, br2}', (BR0, BR2, ),
     'ERR: the result of branch 0 computation and branch 1 computation must have the same shape: got branch 0 computation result: f32[2]; branch 1 computation result: f32[3].'),
    ('cond_operand', ['s32[]', 'f32[3]', 's32[]'], 'conditional(p0, p1, p2), branch_computations={br0, br1}', (BR0, BR1, ),
     'ERR: branch operand 0 must match the shape of the only parameter of branch computation 0: got operand: f32[3]; computation: (p: f32[2]) -> f32[2].'),
    ('call', ['f32[2]', 's32[]'], 'call(p0, p1), to_apply=callee', (CALLEE, ),
     '(f32[2]{0}, s32[])'),
    ('call_param', ['f32[3]', 's32[]'], 'call(p0, p1), to_apply=callee', (CALLEE, ),
     'ERR: Call parameter must match argument; got parameter 0 shape: f32[2], argument shape: f32[3].'),
    ('call_arity', ['f32[2]'], 'call(p0), to_apply=callee', (CALLEE, ),
     'ERR: Call applied function arity must match number of arguments; got: arity: 2, arguments: 1; computation signature: (a: f32[2], b: s32[]) -> (f32[2], s32[]); argument shapes: [f32[2]].'),
    ('after_all', ['token[]', 'token[]'], 'after-all(p0, p1)', (),
     'token[]'),
    ('after_all_empty', [], 'after-all()', (),
     'token[]'),
    ('add_dependency', ['f32[2,3]{0,1}', 'token[]'], 'add-dependency(p0, p1)', (),
     'f32[2,3]{0,1}'),
    # -- element type promotion and unbounded dimensions (`?`) ---------------------------
    ('add_f16_bf16', ['f16[2]', 'bf16[2]'], 'add(p0, p1)', (),
     'bf16[2]{0}'),
    ('add_f8', ['f8e5m2[2]', 'f8e4m3fn[2]'], 'add(p0, p1)', (),
     'f8e5m2[2]{0}'),
    ('dot_s8_s32', ['s8[2,3]', 's32[3,4]'], 'dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     's32[2,4]{1,0}'),
    ('dot_u32_s32', ['u32[2,3]', 's32[3,4]'], 'dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     's32[2,4]{1,0}'),
    ('dot_f32_c64', ['f32[2,3]', 'c64[3,4]'], 'dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}', (),
     'c64[2,4]{1,0}'),
    ('select_mixed_fp', ['pred[]', 'bf16[2]', 'f32[2]'], 'select(p0, p1, p2)', (),
     'f32[2]{0}'),
    ('add_unbounded', ['f32[?,3]', 'f32[2,3]'], 'add(p0, p1)', (),
     'f32[2,3]{1,0}'),
    ('negate_unbounded', ['f32[?,3]'], 'negate(p0)', (),
     'f32[?,3]{1,0}'),
    ('reduce_unbounded', ['f32[?,3]', 'f32[]'], 'reduce(p0, p1), dimensions={1}, to_apply=add_f', (ADD_F,),
     'f32[?]{0}'),
    ('concat_unbounded', ['f32[?,3]', 'f32[2,3]'], 'concatenate(p0, p1), dimensions={0}', (),
     'f32[?,3]{1,0}'),
    ('partition_id', [], 'partition-id()', (),
     'u32[]'),
    ('replica_id', [], 'replica-id()', (),
     'u32[]'),
]



def _normalize(message: str) -> str:
    """First line only; parameter names of program shapes dropped (`(a: f32[])`)."""
    message = message.split("\n", 1)[0]
    return re.sub(r"(\(|, )[a-z_]\w*: ", r"\1", message)


@pytest.mark.parametrize(
    "cid,params,root,comps,expected", XLA_CASES, ids=[c[0] for c in XLA_CASES]
)
def test_xla_inference(cid: str, params: list[str], root: str, comps: tuple[str, ...], expected: str) -> None:
    c = parse_instruction(root, params, comps)
    if expected.startswith("ERR: "):
        with pytest.raises(ShapeError) as info:
            infer(c)
        mine, xla = _normalize(str(info.value)), _normalize(expected[5:])
        assert mine == xla or xla.endswith(mine), (mine, xla)
    else:
        assert text(infer(c)) == expected


def test_recorded_answers_match_xla() -> None:
    """The recordings above are what the installed XLA says (skipped without jaxlib)."""
    h = pytest.importorskip("jaxlib._hlo")
    mismatches = []
    for cid, params, root, comps, expected in XLA_CASES:
        lines = [f"  p{i} = {s} parameter({i})" for i, s in enumerate(params)]
        module = (
            "HloModule m\n\n" + "\n\n".join(comps) + "\n\nENTRY e {\n" + "\n".join(lines)
            + f"\n  ROOT rr = {root}\n}}\n"
        )  # fmt: skip
        try:
            printed = h.hlo_module_from_text(module).to_string()
        except Exception as e:  # noqa: BLE001 - XLA raises RuntimeError with its status
            m = re.search(r"failed to infer shape for opcode: [a-z0-9\-]+, error: (.*)", str(e))
            got = "ERR: " + m.group(1) if m else f"PARSE: {e}"
        else:
            line = next(x for x in printed.splitlines() if "ROOT %rr = " in x)
            got = re.match(r"(.*?) [a-z0-9\-]+\(", line.split("ROOT %rr = ", 1)[1]).group(1)
        if got.split("\n")[0] != expected.split("\n")[0]:
            mismatches.append((cid, got, expected))
    # The element type matrix of the elementwise ops.
    for table, arity in ((_UNARY_TYPES, 1), (_BINARY_TYPES, 2)):
        for opcode, spec in table.items():
            accepted = _accepted(spec)
            for t in _MATRIX_TYPES:
                params = "\n".join(f"  p{i} = {t}[2] parameter({i})" for i in range(arity))
                operands = ", ".join(f"p{i}" for i in range(arity))
                suffix = ", direction=EQ" if opcode == "compare" else ""
                module = f"HloModule m\nENTRY e {{\n{params}\n  ROOT r = {opcode}({operands}){suffix}\n}}\n"
                try:
                    printed = h.hlo_module_from_text(module).to_string()
                except Exception:  # noqa: BLE001
                    got = None
                else:
                    got = re.search(r"ROOT %r = (\w+)\[", printed).group(1)
                if got != accepted.get(t):
                    mismatches.append((opcode, t, got, accepted.get(t)))
    assert not mismatches


# ======================================================================================
# Elementwise type rules, per opcode and element type (recorded from XLA)
# ======================================================================================

_MATRIX_TYPES = (
    "pred s4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2".split()
)
# The element types XLA accepts for each opcode (`t->r`: the result type is r).
_UNARY_TYPES = {
    'abs': 's4 s8 s32 f16 bf16 f32 f64 c64->f32 c128->f64 f8e4m3fn f8e5m2',
    'acos': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'acosh': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'asin': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'asinh': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'atanh': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'cbrt': 'f16 bf16 f32 f64 f8e4m3fn f8e5m2',
    'ceil': 'f16 bf16 f32 f64 f8e4m3fn f8e5m2',
    'cosine': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'cosh': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'count-leading-zeros': 's4 s8 u8 s32 u32 u64',
    'erf': 'f16 bf16 f32 f64 f8e4m3fn f8e5m2',
    'exponential': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'exponential-minus-one': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'floor': 'f16 bf16 f32 f64 f8e4m3fn f8e5m2',
    'imag': 'f16 bf16 f32 f64 c64->f32 c128->f64 f8e4m3fn f8e5m2',
    'is-finite': 'f16->pred bf16->pred f32->pred f64->pred f8e4m3fn->pred f8e5m2->pred',
    'log': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'log-plus-one': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'logistic': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'negate': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'not': 'pred s4 s8 u8 s32 u32 u64',
    'popcnt': 's4 s8 u8 s32 u32 u64',
    'real': 'f16 bf16 f32 f64 c64->f32 c128->f64 f8e4m3fn f8e5m2',
    'round-nearest-afz': 'f16 bf16 f32 f64 f8e4m3fn f8e5m2',
    'round-nearest-even': 'f16 bf16 f32 f64 f8e4m3fn f8e5m2',
    'rsqrt': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'sign': 's4 s8 s32 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'sine': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'sinh': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'sqrt': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'tan': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'tanh': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
}
_BINARY_TYPES = {
    'add': 'pred s4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'and': 'pred s4 s8 u8 s32 u32 u64',
    'atan2': 'f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'complex': 'f32->c64 f64->c128',
    'divide': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'maximum': 'pred s4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'minimum': 'pred s4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'mulhi': 'pred s4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'multiply': 'pred s4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'or': 'pred s4 s8 u8 s32 u32 u64',
    'power': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'remainder': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'shift-left': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'shift-right-arithmetic': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'shift-right-logical': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'subtract': 's4 s8 u8 s32 u32 u64 f16 bf16 f32 f64 c64 c128 f8e4m3fn f8e5m2',
    'xor': 'pred s4 s8 u8 s32 u32 u64',
    'compare': 'pred s4->pred s8->pred u8->pred s32->pred u32->pred u64->pred f16->pred bf16->pred f32->pred f64->pred c64->pred c128->pred f8e4m3fn->pred f8e5m2->pred',
}


def _accepted(spec: str) -> dict[str, str]:
    out = {}
    for item in spec.split():
        t, _, r = item.partition("->")
        out[t] = r or t
    return out


@pytest.mark.parametrize("opcode", sorted(_UNARY_TYPES))
def test_unary_element_types(opcode: str) -> None:
    accepted = _accepted(_UNARY_TYPES[opcode])
    for t in _MATRIX_TYPES:
        c = ctx(opcode, [f"{t}[2]"])
        if t in accepted:
            assert text(infer(c)) == f"{accepted[t]}[2]{{0}}", (opcode, t)
        else:
            with pytest.raises(ShapeError, match=t.upper()):
                infer(c)


@pytest.mark.parametrize("opcode", sorted(_BINARY_TYPES))
def test_binary_element_types(opcode: str) -> None:
    accepted = _accepted(_BINARY_TYPES[opcode])
    extra = {"direction": "EQ"} if opcode == "compare" else {}
    for t in _MATRIX_TYPES:
        c = ctx(opcode, [f"{t}[2]", f"{t}[2]"], **extra)
        if t in accepted:
            assert text(infer(c)) == f"{accepted[t]}[2]{{0}}", (opcode, t)
        else:
            with pytest.raises(ShapeError):
                infer(c)


# ======================================================================================
# Elementwise: what only XLA's verifier rejects
# ======================================================================================


def test_binary_rejects_implicit_scalar_broadcast() -> None:
    # XLA's inference gives f32[2,3]; its verifier says "Implicit broadcast is not allowed".
    errors(ctx("add", ["f32[2,3]", "f32[]"]), "Implicit broadcast is not allowed in HLO")


def test_binary_rejects_degenerate_broadcast() -> None:
    errors(ctx("multiply", ["f32[2,1]", "f32[2,3]"]), "Implicit broadcast is not allowed in HLO")


def test_compare_type_attribute_checked() -> None:
    assert text(infer(ctx("compare", ["s32[2]", "s32[2]"], direction="LT", type="SIGNED"))) == "pred[2]{0}"
    assert text(infer(ctx("compare", ["f32[2]", "f32[2]"], direction="LT", type="TOTALORDER"))) == "pred[2]{0}"
    errors(ctx("compare", ["s32[2]", "s32[2]"], direction="LT", type="FLOAT"), "Expected comparison type SIGNED")
    errors(ctx("compare", ["f32[2]", "f32[2]"], direction="LT", type="SIGNED"), "FLOAT or TOTALORDER")
    errors(ctx("compare", ["u8[2]", "u8[2]"], direction="LT", type="SIGNED"), "Expected comparison type UNSIGNED")


def test_unary_without_layout_gets_default_layout() -> None:
    operand = Shape.array(P.F32, (2, 3), layout=False)
    result = infer(ShapeContext("negate", [operand], {}, None))
    assert result.layout == Layout((1, 0))


def test_select_keeps_bounded_dynamism() -> None:
    assert text(infer(ctx("select", ["pred[<=4]", "f32[4]", "f32[4]"]))) == "f32[<=4]{0}"


def test_atan_accepts_complex() -> None:
    assert text(infer(ctx("atan", ["c64[2]"]))) == "c64[2]{0}"


# ======================================================================================
# Conversions (the text must declare the result; XLA's verifier checks it)
# ======================================================================================


def test_convert() -> None:
    assert text(infer(ctx("convert", ["f32[2,3]"], "s8[2,3]"))) == "s8[2,3]{1,0}"
    errors(ctx("convert", ["f32[2,3]"], "s8[3,2]"), "Expected instruction to have shape equal to s8")
    errors(ctx("convert", ["(f32[2])"], "s8[2]"), "Convert does not allow non-arrays")
    errors(ctx("convert", ["f32[2]"]), "cannot infer shape for opcode: convert")


def test_bitcast_convert_across_widths() -> None:
    # Narrowing appends a minor dimension, widening removes it.
    assert text(infer(ctx("bitcast-convert", ["f32[2]"], "u8[2,4]"))) == "u8[2,4]{1,0}"
    assert text(infer(ctx("bitcast-convert", ["u8[2,4]"], "f32[2]"))) == "f32[2]{0}"
    assert text(infer(ctx("bitcast-convert", ["s8[3]"], "s4[3,2]"))) == "s4[3,2]{1,0}"
    assert text(infer(ctx("bitcast-convert", ["f32[2]"], "s32[2]"))) == "s32[2]{0}"
    errors(ctx("bitcast-convert", ["u8[2,3]"], "f32[2]"), "Last dimension of input shape=3 is not equal to ratio")
    errors(ctx("bitcast-convert", ["f32[2]"], "c64[2]"), "Conversion between complex and real type")
    errors(ctx("bitcast-convert", ["f32[2]"], "u8[2,2]"), "Expected instruction to have shape equal to u8\\[2,4\\]")


def test_stochastic_convert() -> None:
    assert text(infer(ctx("stochastic-convert", ["f32[4]", "u32[4]"], "bf16[4]"))) == "bf16[4]{0}"
    errors(ctx("stochastic-convert", ["f32[4]", "s32[4]"], "bf16[4]"), "must be unsigned integers")
    errors(ctx("stochastic-convert", ["f32[4]", "u16[4]"], "bf16[4]"), "same bits as the operand")
    errors(ctx("stochastic-convert", ["f32[4]", "u32[3]"], "bf16[4]"), "does not match random tensor shape")


def test_reduce_precision() -> None:
    c = ctx("reduce-precision", ["f32[4]{0}"], "f32[4]", exponent_bits=5, mantissa_bits=10)
    assert text(infer(c)) == "f32[4]{0}"
    errors(ctx("reduce-precision", ["s32[4]"], exponent_bits=5, mantissa_bits=10), "floating point for ReducePrecision")
    errors(ctx("reduce-precision", ["f32[4]"], exponent_bits=0, mantissa_bits=10), "exponent_bits >= 1")


# ======================================================================================
# Leaves
# ======================================================================================


def test_declared_leaves() -> None:
    assert text(infer(ctx("parameter", [], "f32[2]{0}"))) == "f32[2]{0}"
    assert text(infer(ctx("constant", [], "(s32[], f32[2])"))) == "(s32[], f32[2]{0})"
    errors(ctx("parameter", []), "cannot infer shape")


def test_iota() -> None:
    assert text(infer(ctx("iota", [], "s32[4,3]", iota_dimension=1))) == "s32[4,3]{1,0}"
    errors(ctx("iota", [], "s32[4,3]", iota_dimension=2), "iota dimension cannot go beyond")
    errors(ctx("iota", [], "s32[]", iota_dimension=0), "Iota does not support scalars")
    errors(ctx("iota", [], "pred[3]", iota_dimension=0), "Only support iota of integral")
    errors(ctx("iota", [], iota_dimension=0), "cannot infer shape")


def test_rng() -> None:
    assert text(infer(ctx("rng", ["f32[]", "f32[]"], "f32[3]", distribution="rng_normal"))) == "f32[3]{0}"
    assert text(infer(ctx("rng", ["s32[]", "s32[]"], "s32[3]", distribution="rng_uniform"))) == "s32[3]{0}"
    errors(ctx("rng", ["s32[]", "s32[]"], "s32[3]", distribution="rng_normal"), "FloatingPointType for RngNormal")
    errors(ctx("rng", ["f32[2]", "f32[]"], "f32[3]", distribution="rng_uniform"), "Expected scalar types")
    errors(ctx("rng", ["f32[]", "f32[]"], "s32[3]", distribution="rng_uniform"), "compatible element types")


def test_rng_bit_generator() -> None:
    c = ctx("rng-bit-generator", ["u64[2]"], "(u64[2], u32[4,4])", algorithm="rng_default")
    assert text(infer(c)) == "(u64[2]{0}, u32[4,4]{1,0})"
    errors(ctx("rng-bit-generator", ["u64[2]"], "(u64[3], u32[4])"), "Expected state shape to match")
    errors(ctx("rng-bit-generator", ["u64[2]"], "(u64[2], u32[4], u32[])"), "tuple shape with 2 elements")


def test_rng_get_and_update_state() -> None:
    assert text(infer(ctx("rng-get-and-update-state", [], "u64[2]", delta=1))) == "u64[2]{0}"
    errors(ctx("rng-get-and-update-state", [], "u64[3]", delta=1), "expect result to have shape u64\\[2\\]")


def test_partition_and_replica_id() -> None:
    assert text(infer(ctx("partition-id", []))) == "u32[]"


# ======================================================================================
# Data movement
# ======================================================================================


def test_broadcast_declared() -> None:
    assert text(infer(ctx("broadcast", ["f32[3]"], "f32[2,3]", dimensions=(1,)))) == "f32[2,3]{1,0}"
    assert text(infer(ctx("broadcast", ["f32[]"], "f32[2,3]", dimensions=()))) == "f32[2,3]{1,0}"
    errors(ctx("broadcast", ["f32[3]"], "f32[3,2]", dimensions=(1,)), "does not match result dimension 1")
    errors(ctx("broadcast", ["f32[2,3]"], "f32[3,2,4]", dimensions=(1, 0)), "Broadcast dimensions should be ordered")
    errors(ctx("broadcast", ["f32[3]"], "f32[2,3]", dimensions=()), "invalid number of dimensions")
    errors(ctx("broadcast", ["f32[3]"], "s32[2,3]", dimensions=(1,)), "element type")


def test_reshape() -> None:
    assert text(infer(ctx("reshape", ["f32[2,3]"], "f32[3,2]"))) == "f32[3,2]{1,0}"
    errors(ctx("reshape", ["f32[2,3]"], "f32[8]"), r"Reshape: element count mismatch \(6 vs 8\)")
    errors(ctx("reshape", ["f32[2,3]"], "s32[6]"), "element type mismatch")
    errors(ctx("reshape", ["f32[2,3]"]), "cannot infer shape for opcode: reshape")


def test_dynamic_reshape() -> None:
    c = ctx("dynamic-reshape", ["f32[2,3]", "s32[]", "s32[]"], "f32[<=3,2]")
    assert text(infer(c)) == "f32[<=3,2]{1,0}"
    errors(ctx("dynamic-reshape", ["f32[2,3]", "s64[]", "s32[]"], "f32[3,2]"), "scalar S32")
    errors(ctx("dynamic-reshape", ["f32[2,3]", "s32[]"], "f32[3,2]"), "needs 2 dimension size operands")


def test_bitcast() -> None:
    assert text(infer(ctx("bitcast", ["f32[2,3]"], "f32[6]"))) == "f32[6]{0}"
    assert text(infer(ctx("bitcast", ["f32[2]"], "u8[8]"))) == "u8[8]{0}"
    errors(ctx("bitcast", ["f32[2,3]"], "f32[7]"), "Bitcast cannot have different shape sizes")


def test_slice() -> None:
    c = ctx("slice", ["f32[10,5]"], None, slice=(SliceRange(1, 9, 3), SliceRange(0, 5)))
    assert text(infer(c)) == "f32[3,5]{1,0}"  # ceil((9-1)/3) = 3
    assert text(infer(ctx("slice", ["f32[2,<=3]"], slice=(SliceRange(0, 2), SliceRange(1, 3))))) == "f32[2,<=2]{1,0}"
    assert text(infer(ctx("slice", ["f32[2,<=3]"], slice=(SliceRange(0, 2), SliceRange(1, 2))))) == "f32[2,1]{1,0}"
    errors(ctx("slice", ["f32[2,3]"], slice=(SliceRange(0, 2), SliceRange(0, 4))), "limit index \\(4\\) must be less than or equal")
    errors(ctx("slice", ["f32[2,3]"], slice=(SliceRange(1, 0), SliceRange(0, 3))), "must be greater or equal to start index")
    errors(ctx("slice", ["f32[2,3]"], slice=(SliceRange(0, 2),)), "Slice index count does not match argument rank: 1 vs 2")
    errors(ctx("slice", ["f32[2,3]"], slice=(SliceRange(0, 2, 0), SliceRange(0, 3))), "Stride \\(0\\) must be positive")
    errors(ctx("slice", ["f32[2,3]"], slice=(SliceRange(-1, 2), SliceRange(0, 3))), "Negative start index")


def test_dynamic_slice() -> None:
    c = ctx("dynamic-slice", ["f32[4,5]", "s32[]", "s32[]"], None, dynamic_slice_sizes=(2, 5))
    assert text(infer(c)) == "f32[2,5]{1,0}"
    c = ctx("dynamic-slice", ["f32[4,5]", "s32[2]"], "f32[2,5]", dynamic_slice_sizes=(2, 5))
    assert text(infer(c)) == "f32[2,5]{1,0}"
    errors(ctx("dynamic-slice", ["f32[4,5]", "s32[]"], dynamic_slice_sizes=(2, 5)), "must match rank 2")
    errors(ctx("dynamic-slice", ["f32[4,5]", "s32[]", "s64[]"], dynamic_slice_sizes=(2, 5)), "must all have the same shape")
    errors(ctx("dynamic-slice", ["f32[4,5]", "f32[]", "f32[]"], dynamic_slice_sizes=(2, 5)), "must be of integral type")
    errors(ctx("dynamic-slice", ["f32[4,5]", "s32[]", "s32[]"], dynamic_slice_sizes=(2, 6)), "Slice dim size 6 greater than")
    errors(ctx("dynamic-slice", ["f32[4,5]", "s32[1]", "s32[]"], dynamic_slice_sizes=(2, 5)), "exactly 1 index operand")


def test_dynamic_update_slice() -> None:
    c = ctx("dynamic-update-slice", ["f32[4,5]{0,1}", "f32[2,5]", "s32[]", "s32[]"])
    assert text(infer(c)) == "f32[4,5]{0,1}"
    errors(ctx("dynamic-update-slice", ["f32[4,5]", "f32[2,6]", "s32[]", "s32[]"]), "Update dim size 6 greater than")
    errors(ctx("dynamic-update-slice", ["f32[4,5]", "s32[2,5]", "s32[]", "s32[]"]), "element type does not match")
    errors(ctx("dynamic-update-slice", ["f32[4,5]", "f32[2]", "s32[]", "s32[]"]), "update rank does not match")
    errors(ctx("dynamic-update-slice", ["f32[4,5]", "f32[2,5]", "f32[]", "f32[]"]), "integral type")


def test_pad_formula() -> None:
    # out = lo + hi + d + max(d-1, 0) * interior
    c = ctx("pad", ["f32[3]", "f32[]"], padding=(PadDimension(2, -1, 2),))
    assert text(infer(c)) == "f32[8]{0}"
    errors(ctx("pad", ["f32[3]", "f32[]"], padding=(PadDimension(0, 0, -1),)), "Interior padding cannot be negative")


def test_concatenate_needs_one_dimension() -> None:
    errors(ctx("concatenate", ["f32[2]", "f32[3]"], dimensions=(0, 0)), "exactly one dimension")


def test_transpose_without_layout() -> None:
    operand = Shape.array(P.F32, (2, 3), layout=False)
    result = infer(ShapeContext("transpose", [operand], {"dimensions": (1, 0)}, None))
    assert text(result) == "f32[3,2]{1,0}"


def test_set_dimension_size_keeps_layout() -> None:
    assert text(infer(ctx("set-dimension-size", ["f32[2,3]", "s32[]"], dimensions=(1,)))) == "f32[2,<=3]{1,0}"


# ======================================================================================
# Reductions, windows, sort, scan
# ======================================================================================

ADD = comp(["f32[]", "f32[]"], "f32[]", "add")


def test_reduce_tuple_result_and_arity() -> None:
    argmax = comp(["f32[]", "s32[]", "f32[]", "s32[]"], "(f32[], s32[])")
    c = ctx("reduce", ["f32[2,3]", "s32[2,3]", "f32[]", "s32[]"], dimensions=(1,), to_apply=argmax)
    assert text(infer(c)) == "(f32[2]{0}, s32[2]{0})"
    errors(ctx("reduce", ["f32[2,3]", "s32[2,3]", "f32[]", "s32[]"], dimensions=(1,), to_apply=ADD),
           "Reduction function must take 4 parameters, but takes 2 parameter\\(s\\)")  # fmt: skip
    errors(ctx("reduce", ["f32[2,3]", "f32[]"], dimensions=(1,), to_apply=argmax), "must take 2 parameters")
    scalar_for_two = comp(["f32[]", "s32[]", "f32[]", "s32[]"], "f32[]")
    errors(ctx("reduce", ["f32[2,3]", "s32[2,3]", "f32[]", "s32[]"], dimensions=(1,), to_apply=scalar_for_two),
           "must produce a tuple with 2 elements, but produces a scalar")  # fmt: skip
    vector = comp(["f32[2]", "f32[2]"], "f32[2]")
    errors(ctx("reduce", ["f32[2,3]", "f32[]"], dimensions=(1,), to_apply=vector), "scalar or tuple of scalars")
    errors(ctx("reduce", ["f32[2,3]", "s32[3,2]", "f32[]", "s32[]"], dimensions=(1,), to_apply=argmax),
           "All reduced tensors must have compatible dimension")  # fmt: skip
    errors(ctx("reduce", ["f32[2,3]"], dimensions=(1,), to_apply=ADD), "even number of arguments")


def test_reduce_keeps_bounded_dims() -> None:
    c = ctx("reduce", ["f32[<=2,3]", "f32[]"], dimensions=(1,), to_apply=ADD)
    assert text(infer(c)) == "f32[<=2]{0}"


def test_reduce_window_variadic() -> None:
    argmax = comp(["f32[]", "s32[]", "f32[]", "s32[]"], "(f32[], s32[])")
    w = window("size=2x2 stride=2x2")
    c = ctx("reduce-window", ["f32[4,6]", "s32[4,6]", "f32[]", "s32[]"], window=w, to_apply=argmax)
    assert text(infer(c)) == "(f32[2,3]{1,0}, s32[2,3]{1,0})"
    errors(ctx("reduce-window", ["f32[4,6]", "s32[4,5]", "f32[]", "s32[]"], window=w, to_apply=argmax),
           "All reduced tensors must have the same dimension")  # fmt: skip


def test_reduce_window_bad_window() -> None:
    errors(ctx("reduce-window", ["f32[4]", "f32[]"], window=window("size=2 stride=0"), to_apply=ADD),
           "non-positive stride")  # fmt: skip
    errors(ctx("reduce-window", ["f32[4]", "f32[]"], window=window("size=0"), to_apply=ADD), "non-positive dimension")


def test_sort_verifier_checks() -> None:
    cmp = comp(["f32[]", "f32[]"], "pred[]")
    errors(ctx("sort", ["f32[4]"], dimensions=(1,), to_apply=cmp), "sort_dimension 1 of sort to be smaller than the rank 1")
    errors(ctx("sort", ["f32[4]", "s32[4]"], dimensions=(0,), to_apply=cmp), "to have 4 parameters")
    errors(ctx("sort", ["f32[4]"], dimensions=(0,), to_apply=comp(["f32[]", "f32[]"], "s32[]")),
           "does not lead to a scalar predicate shape")  # fmt: skip
    errors(ctx("sort", ["s32[4]"], dimensions=(0,), to_apply=cmp), "0-th parameter of the compare computation")


def test_select_and_scatter_scatter_reducer() -> None:
    ge = comp(["f32[]", "f32[]"], "pred[]")
    c = ctx("select-and-scatter", ["f32[4,6]", "f32[2,3]", "f32[]"], window=window("size=2x2 stride=2x2"),
            select=ge, scatter=comp(["f32[]", "f32[]", "f32[]"], "f32[]"))  # fmt: skip
    errors(c, "Reduction function must take 2 parameters")


def test_topk_scalar_rejected() -> None:
    errors(ctx("topk", ["f32[]"], k=1), "rank >= 1")


def test_map_scalar_operand_and_default_dimensions() -> None:
    assert text(infer(ctx("map", ["f32[4,6]", "f32[4,6]"], to_apply=ADD))) == "f32[4,6]{1,0}"
    errors(ctx("map", ["f32[4,6]", "f32[6,4]"], to_apply=ADD), "requires all operands to have the same shape")


def test_scan_checks() -> None:
    body = comp(["f32[3]", "f32[3]"], "(f32[3], f32[3])")
    c = ctx("scan", ["f32[4,3]", "f32[3]"], dimensions=(0,), num_carries=1, to_apply=body)
    assert text(infer(c)) == "(f32[4,3]{1,0}, f32[3]{0})"
    c = ctx("scan", ["f32[3,4]", "f32[3]"], dimensions=(1,), num_carries=1, to_apply=body)
    assert text(infer(c)) == "(f32[3,4]{1,0}, f32[3]{0})"
    errors(ctx("scan", ["f32[4,3]", "f32[3]"], dimensions=(2,), num_carries=1, to_apply=body), "out of bounds")
    errors(ctx("scan", ["f32[4,3]", "f32[2]"], dimensions=(0,), num_carries=1, to_apply=body), "must match the init")
    errors(ctx("scan", ["f32[4,3]", "f32[5,3]", "f32[3]"], dimensions=(0,), num_carries=1, to_apply=body),
           "same size in the scan dimension")  # fmt: skip


# ======================================================================================
# Contractions
# ======================================================================================


def test_dot_errors() -> None:
    errors(ctx("dot", ["f32[2,3]", "f32[3,5]"], lhs_contracting_dims=(1,), rhs_contracting_dims=(2,)),
           "A dimension number is out of range in Dot")  # fmt: skip
    errors(ctx("dot", ["f32[2,3]", "f32[3,5]"], lhs_contracting_dims=(1, 1), rhs_contracting_dims=(0, 0)),
           "A dimension number is not unique in Dot")  # fmt: skip
    errors(ctx("dot", ["f32[2,3]", "(f32[3])"]), "Expected array argument for rhs of dot")


def test_dot_dynamic_free_dim() -> None:
    c = ctx("dot", ["f32[<=2,3]", "f32[3,5]"], lhs_contracting_dims=(1,), rhs_contracting_dims=(0,))
    assert text(infer(c)) == "f32[<=2,5]{1,0}"


def test_convolution_errors() -> None:
    w = window("size=3x3")
    errors(ctx("convolution", ["f32[1,2,5,5]", "f32[4,2,3,3]"], window=w, dim_labels=dim_labels("bf01_oi01->bf01"),
               feature_group_count=2, batch_group_count=2), "cannot be greater than 1")  # fmt: skip
    errors(ctx("convolution", ["f32[1,2,5,5]", "f32[4,2,3,3]"], window=w, dim_labels=dim_labels("bf01_oi01->bf01"),
               batch_group_count=3), "multiple of batch group count 3")  # fmt: skip
    errors(ctx("convolution", ["f32[1,2,5]", "f32[4,2,3,3]"], window=w, dim_labels=dim_labels("bf01_oi01->bf01")),
           "The LHS argument to a convolution should have rank 4")  # fmt: skip
    bad = ConvDimensionNumbers(0, 0, (2, 3), 1, 0, (2, 3), 0, 1, (2, 3))
    errors(ctx("convolution", ["f32[1,2,5,5]", "f32[4,2,3,3]"], window=w, dim_labels=bad),
           "Input dimensions of convolution must contain each dimension exactly once")  # fmt: skip


def test_convolution_preferred_type() -> None:
    c = ctx("convolution", ["s8[1,2,5]", "s8[4,2,3]"], "s32[1,4,3]", window=window("size=3"),
            dim_labels=dim_labels("bf0_oi0->bf0"))  # fmt: skip
    assert text(infer(c)) == "s32[1,4,3]{2,1,0}"


def test_batch_norm_grad_errors() -> None:
    errors(ctx("batch-norm-grad", ["f32[2,3,4]", "f32[3]", "f32[3]", "f32[3]", "f32[2,3]"], epsilon=0.1,
               feature_index=1), "same rank as output_grad_shape")  # fmt: skip
    errors(ctx("batch-norm-inference", ["f32[2,3,4]", "f32[3]", "f32[3]", "f32[4]", "f32[3]"], epsilon=0.1,
               feature_index=1), "size of mean should be compatible")  # fmt: skip


def test_triangular_solve_transpose_option() -> None:
    c = ctx("triangular-solve", ["f32[3,3]", "f32[3,3]"], left_side=True, transpose_a="TRANSPOSE_INVALID")
    errors(c, "Invalid transpose option value")
    c = ctx("triangular-solve", ["f32[3,3]", "f32[3,3]"], left_side=True, transpose_a="ADJOINT")
    assert text(infer(c)) == "f32[3,3]{1,0}"


# ======================================================================================
# Tuples and control flow
# ======================================================================================


def test_get_tuple_element_errors() -> None:
    # (XLA's parser CHECK-fails on an out-of-range index rather than reporting it.)
    errors(ctx("get-tuple-element", ["(f32[2], s32[])"], index=2), "index out of tuple bounds: 2 >= 2")
    errors(ctx("get-tuple-element", ["f32[2]"], index=0), "index into non-tuple")


def test_while_condition_must_return_pred() -> None:
    c = ctx("while", ["s32[]"], condition=comp(["s32[]"], "s32[]"), body=comp(["s32[]"], "s32[]"))
    errors(c, "Condition must return a boolean")
    c = ctx("while", ["s32[]"], condition=comp(["s32[]", "s32[]"], "pred[]"), body=comp(["s32[]"], "s32[]"))
    errors(c, "Condition must take 1 arguments; got 2")


def test_conditional_index_checks() -> None:
    b0 = comp(["f32[2]"], "f32[2]")
    errors(ctx("conditional", ["u32[]", "f32[2]"], branch_computations=(b0,)), "scalar of S32")
    errors(ctx("conditional", ["pred[2]", "f32[2]", "f32[2]"], true_computation=b0, false_computation=b0),
           "must be a scalar")  # fmt: skip
    errors(ctx("conditional", ["pred[]", "f32[2]"], branch_computations=(b0,)), "exactly 2 branches")
    errors(ctx("conditional", ["s32[]", "f32[2]"], branch_computations=(b0, b0)), "Expected 3 operands")
    two = comp(["f32[2]", "f32[2]"], "f32[2]")
    errors(ctx("conditional", ["s32[]", "f32[2]"], branch_computations=(two,)), "must take 1 argument; got 2")


def test_conditional_merges_dynamism() -> None:
    b0 = comp(["f32[4]"], "s32[<=4]")
    b1 = comp(["f32[4]"], "s32[4]")
    c = ctx("conditional", ["pred[]", "f32[4]", "f32[4]"], true_computation=b1, false_computation=b0)
    assert text(infer(c)) == "s32[<=4]{0}"


def test_fusion() -> None:
    fused = comp(["f32[2]", "s32[]"], "f32[2]")
    assert text(infer(ctx("fusion", ["f32[2]", "s32[]"], "f32[2]{0}", kind="kLoop", calls=fused))) == "f32[2]{0}"
    assert text(infer(ctx("fusion", ["f32[2]", "s32[]"], kind="kLoop", calls=fused))) == "f32[2]{0}"
    errors(ctx("fusion", ["f32[2]"], "f32[2]", kind="kLoop", calls=fused), "Fused parameter count \\(2\\)")
    errors(ctx("fusion", ["f32[3]", "s32[]"], "f32[2]", kind="kLoop", calls=fused), "parameter number 0")
    errors(ctx("fusion", ["f32[2]", "s32[]"], "f32[3]", kind="kLoop", calls=fused), "is not equal to the fusion shape")
    alias = (OperandAlias((), 1, ()),)
    errors(ctx("fusion", ["f32[2]", "s32[]"], "f32[2]", kind="kLoop", calls=fused, output_to_operand_aliasing=alias),
           "Different aliasing shapes")  # fmt: skip


def test_add_dependency_needs_token() -> None:
    errors(ctx("add-dependency", ["f32[2]", "f32[]"]), "Expected operand 1 to be token-shaped")


def test_after_all_operands_are_tokens() -> None:
    errors(ctx("after-all", ["token[]", "f32[]"]), "must be tokens")


def test_domain_and_opt_barrier_forward_operand() -> None:
    # XLA's parser cannot infer opt-barrier ("Unknown operation for unary shape
    # inference"); its verifier requires the operand's shape, which is what we return.
    assert text(infer(ctx("opt-barrier", ["(f32[2], s32[])"]))) == "(f32[2]{0}, s32[])"


# ======================================================================================
# Async
# ======================================================================================


def test_async_start_and_done() -> None:
    wrapped = comp(["f32[10]"], "f32[20]")
    start = "((f32[10]), f32[20], s32[])"
    c = ctx("async-start", ["f32[10]"], start, calls=wrapped)
    assert text(infer(c)) == "((f32[10]{0}), f32[20]{0}, s32[])"
    assert text(infer(ctx("async-start", ["f32[10]"], calls=wrapped))) == "((f32[10]{0}), f32[20]{0})"
    errors(ctx("async-start", ["f32[10]"], "((f32[10]), f32[21])", calls=wrapped), "index \\{1\\}")
    errors(ctx("async-start", ["f32[10]"], "f32[20]", calls=wrapped), "tuple of at least two elements")
    assert text(infer(ctx("async-update", [start], start, calls=wrapped))) == start.replace("10]", "10]{0}").replace("20]", "20]{0}")
    assert text(infer(ctx("async-done", [start], "f32[20]", calls=wrapped))) == "f32[20]{0}"
    errors(ctx("async-update", ["f32[20]"], "f32[20]"), "tuple of at least two elements")
    # Sugar form without a resolved wrapped computation: the structure is still checked.
    assert text(infer(ctx("async-start", ["f32[10]"], start))) == "((f32[10]{0}), f32[20]{0}, s32[])"
    errors(ctx("async-start", ["f32[11]"], start), "shape of operand 0")
    errors(ctx("async-done", ["f32[20]"]), "tuple of at least two elements")


def test_copy_start_and_done() -> None:
    assert text(infer(ctx("copy-start", ["f32[2]"]))) == "(f32[2]{0}, f32[2]{0}, u32[])"
    # A declared shape that agrees is kept, with its layouts (memory space S(1) here).
    dest = Shape.array(P.F32, (2,), Layout((0,), memory_space=1))
    declared = Shape.tuple_of([dest, S("f32[2]"), S("u32[]")])
    result = infer(ShapeContext("copy-start", [S("f32[2]")], {}, declared))
    assert text(result) == "(f32[2]{0:S(1)}, f32[2]{0}, u32[])"
    errors(ctx("copy-done", ["f32[2]"]), "copy-start tuple operand")
    errors(ctx("copy-done", ["(f32[2], f32[3], u32[])"]), "need to be the same shape")
    assert text(infer(ctx("copy-done", ["(f32[2], f32[2], u32[])"]))) == "f32[2]{0}"


# ======================================================================================
# Host transfers, collectives, custom-call
# ======================================================================================


def test_host_transfers() -> None:
    assert text(infer(ctx("infeed", ["token[]"], "(f32[2], token[])"))) == "(f32[2]{0}, token[])"
    errors(ctx("infeed", ["f32[]"], "(f32[2], token[])"), "token-shaped")
    assert text(infer(ctx("outfeed", ["f32[2]", "token[]"], "token[]", outfeed_shape=S("f32[2]")))) == "token[]"
    errors(ctx("outfeed", ["f32[2]", "token[]"], "token[]", outfeed_shape=S("f32[3]")), "outfeed shape")
    assert text(infer(ctx("send", ["f32[2]", "token[]"], "(f32[2], u32[], token[])"))) == "(f32[2]{0}, u32[], token[])"
    assert text(infer(ctx("recv", ["token[]"], "(f32[2], u32[], token[])"))) == "(f32[2]{0}, u32[], token[])"
    errors(ctx("recv", ["token[]"], "(f32[2], s32[], token[])"), "Expected instruction to have shape equal to")
    assert text(infer(ctx("recv-done", ["(f32[2], u32[], token[])"], "(f32[2], token[])"))) == "(f32[2]{0}, token[])"
    assert text(infer(ctx("send-done", ["(f32[2], u32[], token[])"], "token[]"))) == "token[]"


def test_all_reduce() -> None:
    c = ctx("all-reduce", ["f32[2]", "s32[3]"], "(f32[2], s32[3])", to_apply=comp(["s32[]", "s32[]"], "s32[]"))
    errors(c, "differs from the init_value shape: s32\\[\\] vs f32\\[\\]")
    c = ctx("all-reduce", ["f32[2]"], "f32[2]", to_apply=ADD)
    assert text(infer(c)) == "f32[2]{0}"
    c = ctx("all-reduce", ["f32[2]"], "f32[3]", to_apply=ADD)
    assert text(infer(c)) == "f32[2]{0}"  # the verifier then reports the mismatch


def test_all_reduce_start_done_and_domain() -> None:
    c = ctx("all-reduce-start", ["f32[2]", "s32[]"], "(f32[2], s32[])")
    assert text(infer(c)) == "(f32[2]{0}, s32[])"
    assert text(infer(ctx("all-reduce-done", ["(f32[2], s32[])"], "(f32[2], s32[])"))) == "(f32[2]{0}, s32[])"
    assert text(infer(ctx("domain", ["f32[2]{0}"], domain="sharding"))) == "f32[2]{0}"


def test_all_gather_and_reduce_scatter() -> None:
    groups = ReplicaGroups(((0, 1, 2, 3),))
    c = ctx("all-gather", ["f32[2,3]"], "f32[8,3]", dimensions=(0,), replica_groups=groups)
    assert text(infer(c)) == "f32[8,3]{1,0}"
    c = ctx("all-gather", ["f32[2,3]"], "f32[6,3]", dimensions=(0,), replica_groups=groups)
    assert text(infer(c)) == "f32[8,3]{1,0}"  # 4 devices: the declared f32[6,3] is wrong
    c = ctx("all-gather", ["f32[2,3]"], "f32[2,9]", dimensions=(1,))  # shard count from the shapes
    assert text(infer(c)) == "f32[2,9]{1,0}"
    c = ctx("all-gather", ["f32[2,3]"], dimensions=(1,), replica_groups=ReplicaGroups(iota_text="[2,4]<=[8]"))
    assert text(infer(c)) == "f32[2,12]{1,0}"
    c = ctx("all-gather-start", ["f32[2]"], "(f32[2], f32[4])", dimensions=(0,))
    assert text(infer(c)) == "(f32[2]{0}, f32[4]{0})"
    assert text(infer(ctx("all-gather-done", ["(f32[2], f32[4])"], "f32[4]"))) == "f32[4]{0}"
    c = ctx("reduce-scatter", ["f32[8]"], "f32[2]", dimensions=(0,), replica_groups=groups, to_apply=ADD)
    assert text(infer(c)) == "f32[2]{0}"
    errors(ctx("reduce-scatter", ["f32[6]"], "f32[1]", dimensions=(0,), replica_groups=groups, to_apply=ADD),
           "must be dividable by shard_count 4")  # fmt: skip
    errors(ctx("all-gather", ["f32[2]"], "f32[4]", dimensions=(1,)), "out of bounds")


def test_all_to_all_and_permute() -> None:
    groups = ReplicaGroups(((0, 1),))
    assert text(infer(ctx("all-to-all", ["f32[4,3]"], "f32[4,3]", dimensions=(0,), replica_groups=groups))) == (
        "f32[4,3]{1,0}"
    )
    errors(ctx("all-to-all", ["f32[3,3]"], "f32[3,3]", dimensions=(0,), replica_groups=groups), "dividable by split_count 2")
    c = ctx("all-to-all", ["f32[3]", "f32[3]"], "(f32[3], f32[3])", replica_groups=groups)
    assert text(infer(c)) == "(f32[3]{0}, f32[3]{0})"
    errors(ctx("all-to-all", ["f32[3]", "f32[4]"], "(f32[3], f32[4])"), "operands with different shapes")
    c = ctx("collective-permute", ["f32[3]"], "f32[3]", source_target_pairs=((0, 1), (1, 0)))
    assert text(infer(c)) == "f32[3]{0}"
    c = ctx("collective-permute-start", ["f32[3]"], "(f32[3], f32[3], u32[], u32[])", source_target_pairs=((0, 1),))
    assert text(infer(c)) == "(f32[3]{0}, f32[3]{0}, u32[], u32[])"
    assert text(infer(ctx("collective-permute-done", ["(f32[3], f32[3], u32[], u32[])"], "f32[3]"))) == "f32[3]{0}"
    shapes = ["f32[8]", "f32[8]", "s64[2]", "s64[2]", "s64[2]", "s64[2]"]
    assert text(infer(ctx("ragged-all-to-all", shapes, "f32[8]"))) == "f32[8]{0}"
    assert text(infer(ctx("collective-broadcast", ["f32[3]"], "f32[3]"))) == "f32[3]{0}"


def test_collective_reduce() -> None:
    c = ctx("collective-reduce", ["f32[8]"], "f32[8]", to_apply=ADD)
    assert text(infer(c)) == "f32[8]{0}"
    c = ctx("collective-reduce", ["f32[8]", "s32[1]"], "f32[8]", to_apply=ADD,
            has_dynamic_root=True)
    assert text(infer(c)) == "f32[8]{0}"
    errors(ctx("collective-reduce", ["f32[8]", "f32[1]"], "f32[8]", to_apply=ADD,
               has_dynamic_root=True), "root operand must be s32")
    errors(ctx("collective-reduce", ["f32[8]"], "f32[8]", to_apply=ADD,
               has_dynamic_root=True), "a root operand")


def test_custom_call() -> None:
    c = ctx("custom-call", ["f32[2]"], "f32[4]", custom_call_target="foo")
    assert text(infer(c)) == "f32[4]{0}"
    c = ctx("custom-call", ["f32[2]"], "f32[4]", custom_call_target="foo", operand_layout_constraints=(S("f32[3]"),))
    errors(c, "layout constraint")
    c = ctx("custom-call", ["f32[2]"], "(f32[2], s32[])", custom_call_target="foo",
            output_to_operand_aliasing=(OperandAlias((0,), 0, ()),))  # fmt: skip
    assert text(infer(c)) == "(f32[2]{0}, s32[])"
    c = ctx("custom-call", ["f32[2]"], "(f32[3], s32[])", custom_call_target="foo",
            output_to_operand_aliasing=(OperandAlias((0,), 0, ()),))  # fmt: skip
    errors(c, "Different aliasing shapes")
    errors(ctx("custom-call", ["f32[2]"], custom_call_target="foo"), "cannot infer shape")


# ======================================================================================
# Table wiring
# ======================================================================================


def test_every_opcode_has_a_rule_that_handles_garbage_cleanly() -> None:
    """Every rule either answers or raises ShapeError on a context it cannot use; none
    crashes with an unrelated exception."""
    for op, spec in OPS.items():
        for operands in ([], [S("f32[2]")], [S("f32[2]"), S("f32[]")], [S("(f32[2], s32[])")]):
            c = ShapeContext(op.value, operands, {}, None)
            try:
                spec.shape_rule(c)
            except ShapeError:
                pass
