"""Dots and convolutions of bf16/f16 operands computed in f32 (XLA's ChangeOpDataType, as
XLA:CPU sets it up for dots its runtime has no low-precision kernel for; its float
normalization computes bf16 convolutions in f32 the same way), and those of 8- and
16-bit integers in a float type that sums them exactly."""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.passes.base import Pass
from hlotool.passes.utils import Builder, NameTable, non_fusion_computations, replace_instruction

O = Opcode
P = PrimitiveType
_NARROW = frozenset({P.BF16, P.F16})
_FLOATS = _NARROW | {P.F32}


#: Integer operand types whose products a float contraction sums exactly, and the largest
#: magnitude of one of their elements.
_SMALL_INTS = {P.S8: 1 << 7, P.U8: (1 << 8) - 1, P.S16: 1 << 15, P.U16: (1 << 16) - 1}
#: Float types an integer contraction may run in, the integer type their exact sums
#: convert to, and the largest magnitude every partial sum must stay within (the
#: integers the float holds exactly).
_EXACT = ((P.F32, P.S32, 1 << 24), (P.F64, P.S64, 1 << 53))


@dataclass(frozen=True)
class ChangeOpDataTypePass(Pass):
    """A dot or convolution whose operands are bf16 or f16 (f32 allowed beside them) and
    whose result is bf16, f16 or f32 becomes converts of its operands to f32, the same
    op in f32, and a convert of the result back to its type. The value does not change:
    XLA:CPU computes such ops in f32 and rounds once at the end (and the reference
    interpreter does the same), so they run on the f32 BLAS and convolution kernels (a
    bf16 3x3 convolution of 8x56x56x64 ran 4.6x XLA's time on the interpreter's kernel
    before).

    A dot or convolution of 8- or 16-bit integers with an integer result (a quantized
    model's) runs in f32, or f64, when every partial sum of its K products is an integer
    that float holds exactly (K * max|a| * max|b| <= 2^24, or 2^53): the exact sum,
    converted to s32 (s64) and then to the result type, wraps as the integer
    accumulation does (XLA's and the interpreter's). An int8 matmul of 512^3 ran 12x
    XLA's time on the interpreter's kernel, an int8 3x3 convolution 222x."""

    name = "change-op-data-type"
    summary = ("compute bf16/f16 and small-integer dots and convolutions in f32 (f64): "
               "converts around the float op")
    xla = "ChangeOpDataType"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode not in (O.DOT, O.CONVOLUTION) or not ins.shape.is_array:
                    continue
                plan = _float_plan(ins) or _integer_plan(ins)
                if plan is None:
                    continue
                wide_type, steps = plan
                b = Builder.before(ins, names)
                wide = [o if o.shape.element_type is wide_type else
                        b.add(O.CONVERT, [o], shape=o.shape.with_element_type(wide_type))
                        for o in ins.operands]
                out = b.add(ins.opcode, wide, dict(ins.attrs),
                            ins.shape.with_element_type(wide_type))
                for t in steps:
                    out = b.add(O.CONVERT, [out], shape=ins.shape.with_element_type(t))
                replace_instruction(ins, out)
                if ins.parent is not None:
                    comp.remove_instruction(ins)
                changed = True
        return changed


def _float_plan(ins: Instruction) -> tuple[PrimitiveType, list[PrimitiveType]] | None:
    """(f32, the converts after the op) for a bf16/f16 dot or convolution."""
    types = [o.shape.element_type for o in ins.operands]
    result = ins.shape.element_type
    if not any(t in _NARROW for t in types) or any(t not in _FLOATS for t in types) or \
            result not in _FLOATS:
        return None
    return P.F32, [] if result is P.F32 else [result]


def _integer_plan(ins: Instruction) -> tuple[PrimitiveType, list[PrimitiveType]] | None:
    """(the float type, the converts after the op) for a small-integer dot or convolution
    whose sums that float holds exactly, else None."""
    types = [o.shape.element_type for o in ins.operands]
    result = ins.shape.element_type
    if len(types) != 2 or any(t not in _SMALL_INTS for t in types) or not result.is_integral:
        return None
    bound = _terms(ins) * _SMALL_INTS[types[0]] * _SMALL_INTS[types[1]]
    for wide, exact, limit in _EXACT:
        if bound <= limit:
            return wide, [exact] if result is exact else [exact, result]
    return None


def _terms(ins: Instruction) -> int:
    """The number of products summed into one result element (at most)."""
    rhs = ins.operand(1).shape.dimensions
    if ins.opcode is O.DOT:
        return math.prod(rhs[d] for d in ins.attrs.get("rhs_contracting_dims") or ())
    dn = ins.attrs["dim_labels"]
    return math.prod(rhs[d] for d in dn.kernel_spatial_dimensions) * \
        rhs[dn.kernel_input_feature_dimension]
