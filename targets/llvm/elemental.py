"""The elemental emitter: the value of any supported instruction at one output index.

As XLA's ElementalIrEmitter, every instruction is a function from a multi-index (one
i64 per logical dimension) to a scalar; data movement (broadcast, reshape, bitcast,
transpose, slice, reverse, pad, concatenate) only rewrites the index, elementwise ops
combine operand values at the same index. Values are cached per (instruction, index),
so an instruction used twice at the same index is computed once.

Numerics match the interpreter (docs/executor-semantics.md): integer ops wrap, division
by zero and INT_MIN / -1 give XLA's values, shifts out of range give 0 or the sign,
float -> int converts saturate with NaN -> 0, maximum/minimum propagate NaN with -0 < +0.
Denormal flushing is the float mode each target sets around its kernels (flush-to-zero
and denormals-are-zero, as XLA runs); the interpreter's multiply-add contraction of an
f32 product into its only add/subtract user is reproduced with `llvm.fma`.

f16 and bf16 (`irutils.NARROW_FLOATS`) are computed as the interpreter computes them
(numpy float16 / ml_dtypes bfloat16): every op widens its operands to f32, runs the f32
code (so under the same DAZ/FTZ) and rounds the result back to nearest-even. f16 uses
LLVM's `fptrunc`/`fpext` (the hardware conversions; they quiet signaling NaNs, which
numpy keeps signaling); bf16 rounding is done on the bits as ml_dtypes does (a NaN
becomes the quiet NaN 0x7fc0 with its sign, denormals are kept).
"""

from __future__ import annotations

import itertools
import math
import operator

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from llvmlite import ir

from hlotool.interpreter.kernels import elementwise as ew
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Layout, PrimitiveType, Shape
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm import math as fm

O = Opcode
P = PrimitiveType
Index = tuple[ir.Value, ...]

_FLOAT_CMP = {"EQ": "==", "NE": "!=", "GE": ">=", "GT": ">", "LE": "<=", "LT": "<"}
_INT_CMP = {"EQ": "==", "NE": "!=", "GE": ">=", "GT": ">", "LE": "<=", "LT": "<"}

#: f32 transcendental functions with a polynomial emitter (f16/bf16 use them too;
#: targets/llvm/math.py documents their accuracy against the interpreter's numpy).
_F32_MATH: dict[Opcode, Callable[[ir.IRBuilder, ir.Value], ir.Value]] = {
    O.EXP: fm.exp, O.LOG: fm.log, O.TANH: fm.tanh, O.LOGISTIC: fm.logistic, O.ERF: fm.erf,
    O.SIN: fm.sin, O.COS: fm.cos, O.TAN: fm.tan, O.EXPM1: fm.expm1, O.LOG1P: fm.log1p,
    O.CBRT: fm.cbrt,
}
#: f64 transcendental functions with a polynomial emitter.
_F64_MATH: dict[Opcode, Callable[[ir.IRBuilder, ir.Value], ir.Value]] = {
    O.EXP: fm.exp64, O.LOG: fm.log64, O.TANH: fm.tanh64, O.LOGISTIC: fm.logistic64,
    O.ERF: fm.erf64, O.SIN: fm.sin64, O.COS: fm.cos64, O.TAN: fm.tan64, O.EXPM1: fm.expm1_64,
    O.LOG1P: fm.log1p64, O.CBRT: fm.cbrt64,
}
_MATH = {P.F32: _F32_MATH, P.F64: _F64_MATH, P.F16: _F32_MATH, P.BF16: _F32_MATH}
#: Binary float functions with a polynomial emitter (f16/bf16 use the f32 ones).
_F32_MATH2: dict[Opcode, Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]] = {
    O.ATAN2: fm.atan2, O.POWER: fm.pow, O.REMAINDER: fm.fmod,
}
_F64_MATH2: dict[Opcode, Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]] = {
    O.ATAN2: fm.atan2_64, O.POWER: fm.pow64, O.REMAINDER: fm.fmod64,
}
_MATH2 = {P.F32: _F32_MATH2, P.F64: _F64_MATH2, P.F16: _F32_MATH2, P.BF16: _F32_MATH2}
#: Float unary ops that map to one LLVM intrinsic.
_FLOAT_INTRINSIC = {O.SQRT: "llvm.sqrt", O.FLOOR: "llvm.floor", O.CEIL: "llvm.ceil",
                    O.ROUND_EVEN: "llvm.roundeven", O.ROUND_AFZ: "llvm.round"}  # fmt: skip

_INT_UNARY = {O.NEGATE, O.ABS, O.SIGN, O.NOT, O.POPCNT, O.CLZ}
_INT_BINARY = {O.ADD, O.SUBTRACT, O.MULTIPLY, O.DIVIDE, O.REMAINDER, O.MAXIMUM, O.MINIMUM,
               O.AND, O.OR, O.XOR, O.SHIFT_LEFT, O.SHIFT_RIGHT_LOGICAL,
               O.SHIFT_RIGHT_ARITHMETIC}  # fmt: skip
_PRED_OPS = {O.AND, O.OR, O.XOR, O.NOT, O.ADD, O.MULTIPLY, O.MAXIMUM, O.MINIMUM}
_FLOAT_UNARY = {O.NEGATE, O.ABS, O.SIGN, O.IS_FINITE, O.RSQRT, *_FLOAT_INTRINSIC}
_FLOAT_BINARY = {O.ADD, O.SUBTRACT, O.MULTIPLY, O.DIVIDE, O.MAXIMUM, O.MINIMUM}
_INDEX_OPS = {O.BROADCAST, O.RESHAPE, O.BITCAST, O.TRANSPOSE, O.SLICE, O.REVERSE, O.COPY,
              O.PAD, O.CONCATENATE}  # fmt: skip
#: Ops with a complex operand or result the emitter computes (everything else on complex
#: values falls back).
_COMPLEX_OPS = {O.PARAMETER, O.CONSTANT, O.SELECT, O.ADD, O.SUBTRACT, O.MULTIPLY, O.NEGATE,
                O.REAL, O.IMAG, O.COMPLEX, *_INDEX_OPS}  # fmt: skip


def unsupported_reason(ins: Instruction) -> str | None:
    """Why the elemental emitter cannot compute `ins`, or None when it can."""
    shapes = [ins.shape, *(o.shape for o in ins.operands)]
    for s in shapes:
        if not s.is_array or s.element_type not in u.ELEMENTAL_TYPES or s.is_dynamic:
            return f"element type or shape {s}"
    if ins.opcode in (O.GATHER, O.DYNAMIC_SLICE, O.REDUCE_WINDOW):
        from hlotool.targets.llvm.indexing import unsupported_indexing

        return unsupported_indexing(ins)
    op, t = ins.opcode, (ins.operand(0).shape.element_type if ins.operands else None)
    if op is O.BITCAST and t is not ins.shape.element_type:
        ok = not any(x is P.PRED or u.is_complex(x) for x in (t, ins.shape.element_type)) and \
            _bits(t) == _bits(ins.shape.element_type)
        return None if ok else "bitcast between element types"
    if any(u.is_complex(s.element_type) for s in shapes):
        ok = op in _COMPLEX_OPS or (op is O.ABS and t is P.C64) or \
            (op is O.CONVERT and t is not None and _converts_complex(t, ins.shape.element_type))
        return None if ok else f"{op.value} on complex values"
    if op in (O.PARAMETER, O.CONSTANT, O.IOTA, O.SELECT, O.CLAMP, O.CONVERT) or op in _INDEX_OPS:
        return None
    if op is O.BITCAST_CONVERT:
        ok = t is not P.PRED and ins.shape.element_type is not P.PRED and \
            _bits(t) == _bits(ins.shape.element_type)
        return None if ok else "bitcast-convert between widths"
    if op is O.COMPARE:
        return None
    if op is O.REDUCE_PRECISION:
        return None if t in _FORMATS else f"reduce-precision on {t.value}"
    if t is P.PRED:
        return None if op in _PRED_OPS else f"{op.value} on pred"
    if u.is_float(t) or u.is_narrow(t):
        if op in _FLOAT_UNARY or op in _FLOAT_BINARY or op in _MATH[t] or op in _MATH2[t]:
            return None
        return f"{op.value} on {t.value}"
    if op in _INT_UNARY or op in _INT_BINARY:
        return None
    return f"{op.value} on {t.value}"


def _converts_complex(src: PrimitiveType, dst: PrimitiveType) -> bool:
    """Whether `convert` computes src -> dst, one of them complex: between complex types,
    from a float (imaginary part 0), or to a float (the real part, as XLA)."""
    return all(u.is_complex(x) or u.is_float(x) or u.is_narrow(x) for x in (src, dst))


def _bits(t: PrimitiveType) -> int:
    ty = u.value_type(t)
    if isinstance(ty, ir.IntType):
        return ty.width
    return {ir.HalfType: 16, ir.FloatType: 32, ir.DoubleType: 64}[type(ty)]


@dataclass(slots=True)
class Input:
    """A buffer the kernel reads: a pointer and the logical shape it holds (row-major).
    With `skip`, it holds only the elements whose first `skip` index components are the
    current ones (one row of a row kernel), and those components are ignored."""

    pointer: ir.Value
    shape: Shape
    skip: int = 0


class ElementalEmitter:
    """Emits per-element values for the instructions of one kernel."""

    def __init__(self, builder: ir.IRBuilder, inputs: dict[int, Input]) -> None:
        self.b = builder
        #: id(instruction) -> buffer for instructions whose values are loaded, not computed.
        self.inputs = inputs
        self._cache: dict[tuple[int, tuple[int, ...]], ir.Value] = {}
        #: The index tuples of the cache's keys, kept alive so that no id is reused.
        self._keys: list[Index] = []

    # -- entry point --------------------------------------------------------------------
    def value(self, ins: Instruction, index: Index) -> ir.Value:
        """The value of `ins` at `index` (its LLVM value type)."""
        key = (id(ins), tuple(id(v) for v in index))
        hit = self._cache.get(key)
        if hit is None:
            hit = self._emit(ins, index)
            self._cache[key] = hit
            self._keys.append(index)
        return hit

    def _emit(self, ins: Instruction, index: Index) -> ir.Value:
        buf = self.inputs.get(id(ins))
        if buf is not None:
            return self.load(buf, index)
        op = ins.opcode
        if op is O.CONSTANT:
            return self._constant(ins, index)
        if op is O.IOTA:
            return self._convert_from_index(index[ins.attrs["iota_dimension"]], ins.shape.element_type)
        if op in _INDEX_OPS:
            return self._index_op(ins, index)
        if op in (O.GATHER, O.DYNAMIC_SLICE, O.REDUCE_WINDOW):
            from hlotool.targets.llvm.indexing import emit_indexed

            return emit_indexed(self, ins, index)
        if op is O.CONVERT:
            x = self.operand(ins, 0, index)
            return self.convert(x, ins.operand(0).shape.element_type, ins.shape.element_type)
        if op is O.BITCAST_CONVERT:
            ty = u.value_type(ins.shape.element_type)
            x = self.operand(ins, 0, index)
            return x if x.type == ty else self.b.bitcast(x, ty)
        if op is O.COMPARE:
            return self._compare(ins, index)
        if op is O.REDUCE_PRECISION:
            return reduce_precision(self.b, self.operand(ins, 0, index),
                                    ins.operand(0).shape.element_type,
                                    ins.attrs["exponent_bits"], ins.attrs["mantissa_bits"])
        if op is O.SELECT:
            p, a, c = (self.operand(ins, i, index) for i in range(3))
            return self.b.select(p, a, c)
        if op is O.CLAMP:
            return self._clamp(ins, index)
        t = ins.operand(0).shape.element_type
        args = [self.operand(ins, i, index) for i in range(ins.operand_count)]
        if t is P.PRED:
            return self._pred_op(op, args)
        if u.is_complex(t) or op is O.COMPLEX:
            return self._complex_op(op, args)
        if u.is_narrow(t):
            return self._narrow_op(ins, t, args, index)
        if u.is_float(t):
            return self._float_op(ins, t, args, index)
        return self._int_op(op, t, args)

    def operand(self, ins: Instruction, i: int, index: Index) -> ir.Value:
        """Operand i at the same index (a scalar operand of an array op at index ())."""
        o = ins.operand(i)
        return self.value(o, () if o.shape.rank == 0 else index)

    # -- memory -------------------------------------------------------------------------
    def load(self, buf: Input, index: Index) -> ir.Value:
        t = buf.shape.element_type
        at = linear_index(self.b, buf.shape.dimensions[buf.skip:], tuple(index[buf.skip:]))
        ptr = self.b.gep(buf.pointer, [at], source_etype=u.storage_type(t), inbounds=True)
        v = self.b.load(ptr, typ=u.storage_type(t))
        return self.b.trunc(v, u.I1) if t is P.PRED else v

    # -- leaves ----------------------------------------------------------------------------
    def _constant(self, ins: Instruction, index: Index) -> ir.Value:
        from hlotool.interpreter.kernels.data_movement import literal_value

        assert ins.literal is not None
        array = np.asarray(literal_value(ins.literal))
        t = ins.shape.element_type
        if array.size == 1 or np.all(array == array.reshape(-1)[0]):
            return _scalar_constant(t, array.reshape(-1)[0])
        raise KeyError(f"array constant {ins.name} must be a kernel input")

    def _convert_from_index(self, i: ir.Value, t: PrimitiveType) -> ir.Value:
        if u.is_narrow(t):
            return self.narrow(self.b.sitofp(i, u.F32), t)
        if u.is_float(t):
            return self.b.sitofp(i, u.value_type(t))
        if t is P.PRED:
            return self.b.icmp_unsigned("!=", i, u.i64(0))
        return self.b.trunc(i, u.value_type(t)) if u.value_type(t).width < 64 else i

    # -- index rewriting ---------------------------------------------------------------------
    def _index_op(self, ins: Instruction, index: Index) -> ir.Value:
        op = ins.opcode
        src = ins.operand(0)
        if op is O.COPY:
            return self.value(src, index)
        if op is O.BROADCAST:
            dims = ins.attrs.get("dimensions") or ()
            return self.value(src, tuple(index[d] for d in dims))
        if op is O.RESHAPE:
            return self.value(src, regroup(self.b, ins.shape.dimensions, index,
                                           src.shape.dimensions))
        if op is O.BITCAST:
            v = self.value(src, self._bitcast_index(ins, index))
            ty = u.value_type(ins.shape.element_type)
            return v if v.type == ty else self.b.bitcast(v, ty)
        if op is O.TRANSPOSE:
            perm = ins.attrs["dimensions"]
            out: list[ir.Value] = [u.i64(0)] * len(perm)
            for j, d in enumerate(perm):
                out[d] = index[j]
            return self.value(src, tuple(out))
        if op is O.SLICE:
            ranges = ins.attrs["slice"]
            return self.value(src, tuple(
                self.b.add(u.i64(r.start), self.b.mul(i, u.i64(r.stride)))
                for i, r in zip(index, ranges, strict=True)))
        if op is O.REVERSE:
            rev = set(ins.attrs["dimensions"])
            n = ins.shape.dimensions
            return self.value(src, tuple(
                self.b.sub(u.i64(n[d] - 1), i) if d in rev else i for d, i in enumerate(index)))
        if op is O.PAD:
            return self._pad(ins, index)
        return self._concatenate(ins, index)

    def _bitcast_index(self, ins: Instruction, index: Index) -> Index:
        src, dst = ins.operand(0).shape, ins.shape
        dst_order, src_order = major_to_minor(dst), major_to_minor(src)
        phys = regroup(self.b, [dst.dimensions[d] for d in dst_order],
                       tuple(index[d] for d in dst_order),
                       [src.dimensions[d] for d in src_order])
        out: list[ir.Value] = [u.i64(0)] * src.rank
        for k, d in enumerate(src_order):
            out[d] = phys[k]
        return tuple(out)

    def _pad(self, ins: Instruction, index: Index) -> ir.Value:
        """Operand value where the index hits an operand element, else the pad value."""
        src = ins.operand(0)
        inside: ir.Value = ir.Constant(u.I1, 1)
        src_index = []
        for i, cfg, n in zip(index, ins.attrs["padding"], src.shape.dimensions, strict=True):
            step = cfg.interior + 1
            shifted = self.b.sub(i, u.i64(cfg.low))
            q = self.b.sdiv(shifted, u.i64(step))
            ok = self.b.and_(self.b.icmp_signed(">=", shifted, u.i64(0)),
                             self.b.icmp_signed("<", q, u.i64(n)))
            if step > 1:
                ok = self.b.and_(ok, self.b.icmp_signed("==", self.b.srem(shifted, u.i64(step)), u.i64(0)))
            inside = self.b.and_(inside, ok)
            src_index.append(self.b.select(ok, q, u.i64(0)))
        v = self.value(src, tuple(src_index))
        return self.b.select(inside, v, self.value(ins.operand(1), ()))

    def _concatenate(self, ins: Instruction, index: Index) -> ir.Value:
        d = ins.attrs["dimensions"][0]
        offsets, start = [], 0
        for o in ins.operands:
            offsets.append(start)
            start += o.shape.dimensions[d]
        result: ir.Value | None = None
        for o, off in zip(ins.operands, offsets, strict=True):
            n = o.shape.dimensions[d]
            local = self.b.sub(index[d], u.i64(off))
            clamped = self.b.select(self.b.icmp_signed("<", local, u.i64(0)), u.i64(0), local)
            clamped = self.b.select(self.b.icmp_signed(">=", clamped, u.i64(n)), u.i64(n - 1), clamped)
            v = self.value(o, (*index[:d], clamped, *index[d + 1:]))
            if result is None:
                result = v
            else:
                result = self.b.select(self.b.icmp_signed(">=", local, u.i64(0)), v, result)
        assert result is not None
        return result

    # -- compare / clamp / convert -------------------------------------------------------------
    def _compare(self, ins: Instruction, index: Index) -> ir.Value:
        a, c = self.operand(ins, 0, index), self.operand(ins, 1, index)
        t = ins.operand(0).shape.element_type
        direction, ctype = ins.attrs["direction"], ins.attrs.get("type")
        if u.is_narrow(t) and ctype != "TOTALORDER":
            a, c, t = self.widen(a, t), self.widen(c, t), P.F32
        if u.is_float(t) or u.is_narrow(t):
            if ctype == "WEAKORDER":
                a, c = self._weak_canonical(a), self._weak_canonical(c)
                a, c = self._total_order_key(a, t), self._total_order_key(c, t)
                return self.b.icmp_signed(_INT_CMP[direction], a, c)
            if ctype == "TOTALORDER":
                a, c = self._total_order_key(a, t), self._total_order_key(c, t)
                return self.b.icmp_signed(_INT_CMP[direction], a, c)
            if direction == "NE":
                return self.b.fcmp_unordered("!=", a, c)
            return self.b.fcmp_ordered(_FLOAT_CMP[direction], a, c)
        signed = ctype == "SIGNED" or (ctype is None and u.is_signed(t))
        cmp = self.b.icmp_signed if signed else self.b.icmp_unsigned
        return cmp(_INT_CMP[direction], a, c)

    def _weak_canonical(self, x: ir.Value) -> ir.Value:
        """The weak order's representative: -0 (and, flushed, denormals) as +0, NaNs as
        +NaN, so that the total order of representatives is the weak order."""
        zero = ir.Constant(x.type, 0.0)
        x = self.b.select(self.b.fcmp_ordered("==", x, zero), zero, x)
        return self.b.select(self.b.fcmp_unordered("uno", x, x),
                             ir.Constant(x.type, float("nan")), x)

    def _total_order_key(self, x: ir.Value, t: PrimitiveType) -> ir.Value:
        ity = ir.IntType(_bits(t))
        k = x if x.type == ity else self.b.bitcast(x, ity)
        flipped = self.b.xor(k, ir.Constant(ity, (1 << (ity.width - 1)) - 1))
        return self.b.select(self.b.icmp_signed("<", k, ir.Constant(ity, 0)), flipped, k)

    def _clamp(self, ins: Instruction, index: Index) -> ir.Value:
        lo, x, hi = (self.operand(ins, i, index) for i in range(3))
        t = ins.shape.element_type
        if u.is_narrow(t):
            lo, x, hi = (self.widen(v, t) for v in (lo, x, hi))
            r = self._extremum(O.MINIMUM, P.F32, hi, self._extremum(O.MAXIMUM, P.F32, lo, x))
            return self.narrow(r, t)
        if u.is_float(t):
            return self._extremum(O.MINIMUM, t, hi, self._extremum(O.MAXIMUM, t, lo, x))
        return self._int_op(O.MINIMUM, t, [hi, self._int_op(O.MAXIMUM, t, [lo, x])])

    def convert(self, x: ir.Value, src: PrimitiveType, dst: PrimitiveType) -> ir.Value:
        """XLA's convert between native types."""
        b = self.b
        if src is dst:
            return x
        if u.is_complex(src) or u.is_complex(dst):
            return self._convert_complex(x, src, dst)
        if u.is_narrow(src) or u.is_narrow(dst):
            return self._convert_narrow(x, src, dst)
        ty = u.value_type(dst)
        if dst is P.PRED:
            if u.is_float(src):
                return b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0))
            return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
        if src is P.PRED:
            return b.uitofp(x, ty) if u.is_float(dst) else b.zext(x, ty)
        if u.is_float(src) and u.is_float(dst):
            return b.fpext(x, ty) if dst is P.F64 else b.fptrunc(x, ty)
        if u.is_float(src):
            name = "llvm.fptosi.sat" if u.is_signed(dst) else "llvm.fptoui.sat"
            return u.intrinsic(b, name, ty, [x], [ty, x.type])
        if u.is_float(dst):
            return b.sitofp(x, ty) if u.is_signed(src) else b.uitofp(x, ty)
        if ty.width < x.type.width:
            return b.trunc(x, ty)
        if ty.width == x.type.width:
            return x
        return b.sext(x, ty) if u.is_signed(src) else b.zext(x, ty)

    # -- f16 / bf16 ------------------------------------------------------------------------------
    def widen(self, x: ir.Value, t: PrimitiveType) -> ir.Value:
        """An f16/bf16 value as the f32 it equals (exact)."""
        b = self.b
        if t is P.F16:
            return b.fpext(x, u.F32)
        return b.bitcast(b.shl(b.zext(x, u.I32), ir.Constant(u.I32, 16)), u.F32)

    def narrow(self, x: ir.Value, t: PrimitiveType) -> ir.Value:
        """An f32 value rounded to f16/bf16 (nearest-even), as numpy / ml_dtypes round."""
        return self.b.fptrunc(x, u.F16) if t is P.F16 else f32_to_bf16(self.b, x)

    def round_to(self, x: ir.Value, t: PrimitiveType) -> ir.Value:
        """An f32 value rounded to f16/bf16 and back: `widen(narrow(x, t), t)`, for bf16
        without leaving 32-bit lanes (`bf16_round_f32`)."""
        return self.widen(self.narrow(x, t), t) if t is P.F16 else bf16_round_f32(self.b, x)

    def _convert_narrow(self, x: ir.Value, src: PrimitiveType, dst: PrimitiveType) -> ir.Value:
        """Converts from or to f16/bf16, through f32 as the interpreter (and XLA) do,
        except f64 -> f16, which rounds once."""
        b = self.b
        if dst is P.PRED:
            bits = x if x.type == u.I16 else b.bitcast(x, u.I16)
            magnitude = b.and_(bits, ir.Constant(u.I16, 0x7FFF))
            return b.icmp_unsigned("!=", magnitude, ir.Constant(u.I16, 0))
        if u.is_narrow(src):
            wide = self.widen(x, src)
            return wide if dst is P.F32 else self.convert(wide, P.F32, dst)
        if src is P.F64 and dst is P.F16:
            return self._f64_to_f16(x)
        if src is not P.F32:
            x = self.convert(x, src, P.F32)
        return self.narrow(x, dst)

    def _f64_to_f16(self, x: ir.Value) -> ir.Value:
        """f64 -> f16 with one rounding: to f32 rounding to odd, then to nearest-even
        (f32 keeps more than 11 + 2 bits, so the two roundings equal one)."""
        b = self.b
        f = b.fptrunc(x, u.F32)
        back = b.fpext(f, u.F64)
        bits = b.bitcast(f, u.I32)
        away = b.fcmp_ordered(">", u.intrinsic(b, "llvm.fabs", u.F64, [back]),
                              u.intrinsic(b, "llvm.fabs", u.F64, [x]))
        bits = b.select(away, b.sub(bits, ir.Constant(u.I32, 1)), bits)
        inexact = b.fcmp_ordered("!=", back, x)
        bits = b.select(inexact, b.or_(bits, ir.Constant(u.I32, 1)), bits)
        return b.fptrunc(b.bitcast(bits, u.F32), u.F16)

    def _narrow_op(self, ins: Instruction, t: PrimitiveType, args: list[ir.Value],
                   index: Index) -> ir.Value:
        """An f16/bf16 op: the f32 op on the widened operands, rounded back."""
        b, op = self.b, ins.opcode
        one = ir.Constant(u.F32, 1.0)
        wide = [self.widen(a, t) for a in args]
        if op is O.LOGISTIC and t is P.F16:
            # XLA:CPU expands f16 logistic into f16 ops: exp(-x) and 1 + e are rounded too.
            e = self.round_to(fm.exp(b, b.fneg(wide[0])), t)
            d = self.round_to(b.fadd(one, e), t)
            return self.narrow(b.fdiv(one, d), t)
        if op is O.DIVIDE and _divides_by_constant(ins):
            # A / C => A * (1 / C), the reciprocal rounded to the type (as the interpreter).
            reciprocal = self.round_to(b.fdiv(one, wide[1]), t)
            r = b.fmul(wide[0], reciprocal)
        else:
            r = self._float_op(ins, P.F32, wide, index)
        return r if r.type == u.I1 else self.narrow(r, ins.shape.element_type)

    # -- complex -------------------------------------------------------------------------------
    def _convert_complex(self, x: ir.Value, src: PrimitiveType, dst: PrimitiveType) -> ir.Value:
        """A convert with a complex side (`_converts_complex`): to a real type the real
        part, from one an imaginary part of 0, each component converted as a float."""
        b = self.b
        if not u.is_complex(dst):
            return self.convert(b.extract_value(x, 0), src.component_type, dst)
        part = dst.component_type
        if not u.is_complex(src):
            zero = ir.Constant(u.value_type(part), 0.0)
            return _pack(b, self.convert(x, src, part), zero)
        return _pack(b, *(self.convert(b.extract_value(x, k), src.component_type, part)
                          for k in (0, 1)))

    def _complex_op(self, op: Opcode, args: list[ir.Value]) -> ir.Value:
        """complex, real, imag, negate, add, subtract and multiply on (re, im) pairs;
        multiply as numpy's: re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br)."""
        b = self.b
        if op is O.COMPLEX:
            return _pack(b, args[0], args[1])
        re = [b.extract_value(a, 0) for a in args]
        im = [b.extract_value(a, 1) for a in args]
        if op is O.REAL:
            return re[0]
        if op is O.IMAG:
            return im[0]
        if op is O.NEGATE:
            return _pack(b, b.fneg(re[0]), b.fneg(im[0]))
        if op is O.ABS:
            return self._c64_abs(re[0], im[0])
        if op is O.ADD:
            return _pack(b, b.fadd(re[0], re[1]), b.fadd(im[0], im[1]))
        if op is O.SUBTRACT:
            return _pack(b, b.fsub(re[0], re[1]), b.fsub(im[0], im[1]))
        ty = re[0].type
        real = u.intrinsic(b, "llvm.fma", ty, [re[0], re[1], b.fneg(b.fmul(im[0], im[1]))])
        imag = u.intrinsic(b, "llvm.fma", ty, [re[0], im[1], b.fmul(im[0], re[1])])
        return _pack(b, real, imag)

    def _c64_abs(self, re: ir.Value, im: ir.Value) -> ir.Value:
        """|re + i*im| as numpy's complex64 absolute: l * sqrt(fma(s/l, s/l, 1)) with l, s
        the larger and smaller of |re| and |im| (an inf part gives inf, else a NaN gives
        NaN). Computed on exact f64 copies, so denormal parts count (the interpreter's abs
        does not flush) and l * sqrt(...) rounds once, also to a denormal."""
        b = self.b
        inf, nan = ir.Constant(u.F32, float("inf")), ir.Constant(u.F32, float("nan"))
        x = u.intrinsic(b, "llvm.fabs", u.F32, [re])
        y = u.intrinsic(b, "llvm.fabs", u.F32, [im])
        x, y = b.select(b.fcmp_ordered("==", y, inf), inf, x), \
            b.select(b.fcmp_ordered("==", x, inf), inf, y)
        x, y = b.select(b.fcmp_unordered("uno", y, y), nan, x), \
            b.select(b.fcmp_unordered("uno", x, x), nan, y)
        x, y = _exact_f64(b, x), _exact_f64(b, y)
        large = u.intrinsic(b, "llvm.maximum", u.F64, [x, y])
        small = u.intrinsic(b, "llvm.minimum", u.F64, [x, y])
        divide = b.not_(b.or_(b.fcmp_ordered("==", large, ir.Constant(u.F64, 0.0)),
                              b.fcmp_ordered("==", small, ir.Constant(u.F64, float("inf")))))
        ratio = b.fptrunc(b.select(divide, b.fdiv(small, large), ir.Constant(u.F64, 0.0)), u.F32)
        one = ir.Constant(u.F32, 1.0)
        square = u.intrinsic(b, "llvm.fma", u.F32, [ratio, ratio, one])
        root = u.intrinsic(b, "llvm.sqrt", u.F32, [square])
        product = b.fmul(b.fpext(root, u.F64), large)
        scaled = b.fmul(product, ir.Constant(u.F64, 2.0**149))
        scaled = u.intrinsic(b, "llvm.roundeven", u.F64, [scaled])
        denormal = b.bitcast(b.fptosi(scaled, u.I32), u.F32)
        normal = b.fcmp_unordered(">=", product, ir.Constant(u.F64, 2.0**-126))
        return b.select(normal, b.fptrunc(product, u.F32), denormal)

    # -- arithmetic ------------------------------------------------------------------------
    def fold(self, op: Opcode, t: PrimitiveType, acc: ir.Value, x: ir.Value) -> ir.Value:
        """One step op(acc, x) of a single-op reducer on values of type t, as the
        interpreter's reducer computes it (f16/bf16: in f32, rounded back every step)."""
        b = self.b
        if t is P.PRED:
            return self._pred_op(op, [acc, x])
        if u.is_narrow(t):
            return self.narrow(self.fold(op, P.F32, self.widen(acc, t), self.widen(x, t)), t)
        if u.is_float(t):
            if op is O.ADD:
                return b.fadd(acc, x)
            if op is O.MULTIPLY:
                return b.fmul(acc, x)
            return self._extremum(op, t, acc, x)
        return self._int_op(op, t, [acc, x])

    def _pred_op(self, op: Opcode, args: list[ir.Value]) -> ir.Value:
        b = self.b
        if op is O.NOT:
            return b.not_(args[0])
        if op in (O.AND, O.MULTIPLY, O.MINIMUM):
            return b.and_(args[0], args[1])
        if op in (O.OR, O.ADD, O.MAXIMUM):
            return b.or_(args[0], args[1])
        return b.xor(args[0], args[1])

    def _float_op(self, ins: Instruction, t: PrimitiveType, args: list[ir.Value],
                  index: Index) -> ir.Value:
        op = ins.opcode
        if op in (O.ADD, O.SUBTRACT) and t is P.F32:
            fused = self._fused_multiply_add(ins, index)
            if fused is not None:
                return fused
        if op is O.DIVIDE and _divides_by_constant(ins):
            one = ir.Constant(args[1].type, 1.0)
            return self.b.fmul(args[0], self.b.fdiv(one, args[1]))
        return self.float_op(op, t, args)

    def float_op(self, op: Opcode, t: PrimitiveType, args: list[ir.Value]) -> ir.Value:
        """`op` on float values of type t out of context: no multiply-add contraction and
        no division by a constant as a multiply (`_float_op` decides those)."""
        b, x = self.b, args[0]
        ty = x.type
        if op in _MATH[t]:
            return _MATH[t][op](b, x)
        if op in _MATH2[t]:
            return _MATH2[t][op](b, x, args[1])
        if op in _FLOAT_INTRINSIC:
            return u.intrinsic(b, _FLOAT_INTRINSIC[op], ty, [x])
        if op is O.NEGATE:
            return b.fneg(x)
        if op is O.ABS:
            return u.intrinsic(b, "llvm.fabs", ty, [x])
        if op is O.SIGN:
            zero = u.intrinsic(b, "llvm.copysign", ty, [ir.Constant(ty, 0.0), x])
            one = u.intrinsic(b, "llvm.copysign", ty, [ir.Constant(ty, 1.0), x])
            r = b.select(b.fcmp_ordered("==", x, ir.Constant(ty, 0.0)), zero, one)
            return b.select(b.fcmp_unordered("uno", x, x), x, r)
        if op is O.IS_FINITE:
            ax = u.intrinsic(b, "llvm.fabs", ty, [x])
            return b.fcmp_ordered("<", ax, ir.Constant(ty, float("inf")))
        if op is O.RSQRT:
            return b.fdiv(ir.Constant(ty, 1.0), u.intrinsic(b, "llvm.sqrt", ty, [x]))
        if op in (O.MAXIMUM, O.MINIMUM):
            return self._extremum(op, t, args[0], args[1])
        if op is O.MULTIPLY:
            return b.fmul(args[0], args[1])
        if op is O.DIVIDE:
            return b.fdiv(args[0], args[1])
        return b.fadd(args[0], args[1]) if op is O.ADD else b.fsub(args[0], args[1])

    def _product_operands(self, mul: Instruction, index: Index) -> tuple[ir.Value, ir.Value]:
        a, c = self.operand(mul, 0, index), self.operand(mul, 1, index)
        if mul.opcode is O.DIVIDE:
            c = self.b.fdiv(ir.Constant(c.type, 1.0), c)
        return a, c

    def _fused_multiply_add(self, ins: Instruction, index: Index) -> ir.Value | None:
        """add/subtract whose operand is an f32 product feeding only it: one fma."""
        for i in (0, 1):
            mul = ins.operand(i)
            if id(mul) in self.inputs or not is_fusable_product(mul):
                continue
            a, c = self._product_operands(mul, index if mul.shape.rank else ())
            other = self.operand(ins, 1 - i, index)
            if ins.opcode is O.SUBTRACT:
                if i == 0:
                    other = self.b.fneg(other)
                else:
                    a = self.b.fneg(a)
            return fm.fma(self.b, a, c, other)
        return None

    def _extremum(self, op: Opcode, t: PrimitiveType, a: ir.Value, c: ir.Value) -> ir.Value:
        """IEEE maximum/minimum (NaN propagates, -0 < +0) of inputs read with denormals
        as zero, as XLA's EmitFloatMax/EmitFloatMin under DAZ.

        The target's max/min instructions read denormals as zero under its DAZ mode.
        Only where LLVM folds the op away (max(x, -inf) = x, also after inlining an
        accumulator's initial value, or max(x, x)) could a denormal pass through unflushed, so one operand is flushed: `c`, or `a` when `c`
        is a constant. A reduction passes its accumulator as `a`, which keeps the flush
        off the loop-carried chain (flushing both cost 6x on a row max)."""
        name = "llvm.maximum" if op is O.MAXIMUM else "llvm.minimum"
        if a is c:
            a = c = self._daz(c, t)
        elif isinstance(c, ir.Constant):
            a, c = c, self._daz(a, t)
        else:
            c = self._daz(c, t)
        return u.intrinsic(self.b, name, c.type, [a, c])

    def _daz(self, x: ir.Value, t: PrimitiveType) -> ir.Value:
        """x with a denormal replaced by a zero of its sign (a test and a masked and)."""
        b, ty = self.b, x.type
        n = _bits(t)
        ity = ir.IntType(n)
        bits = b.bitcast(x, ity)
        mantissa = {32: 23, 64: 52}[n]
        exponent = b.and_(bits, ir.Constant(ity, ((1 << (n - 1 - mantissa)) - 1) << mantissa))
        sign = b.and_(bits, ir.Constant(ity, 1 << (n - 1)))
        small = b.icmp_unsigned("==", exponent, ir.Constant(ity, 0))
        return b.bitcast(b.select(small, sign, bits), ty)

    def _int_op(self, op: Opcode, t: PrimitiveType, args: Sequence[ir.Value]) -> ir.Value:
        b, x = self.b, args[0]
        ty = x.type
        zero, signed = ir.Constant(ty, 0), u.is_signed(t)
        if op is O.NEGATE:
            return b.sub(zero, x)
        if op is O.NOT:
            return b.not_(x)
        if op is O.ABS:
            return b.select(b.icmp_signed("<", x, zero), b.sub(zero, x), x) if signed else x
        if op is O.SIGN:
            if not signed:
                return b.zext(b.icmp_unsigned("!=", x, zero), ty)
            pos = b.zext(b.icmp_signed(">", x, zero), ty)
            return b.sub(pos, b.zext(b.icmp_signed("<", x, zero), ty))
        if op is O.POPCNT:
            return u.intrinsic(b, "llvm.ctpop", ty, [x])
        if op is O.CLZ:
            return u.intrinsic(b, "llvm.ctlz", ty, [x, ir.Constant(u.I1, 0)])
        y = args[1]
        simple = {O.ADD: b.add, O.SUBTRACT: b.sub, O.MULTIPLY: b.mul, O.AND: b.and_,
                  O.OR: b.or_, O.XOR: b.xor}
        if op in simple:
            return simple[op](x, y)
        if op in (O.MAXIMUM, O.MINIMUM):
            cmp = b.icmp_signed if signed else b.icmp_unsigned
            return b.select(cmp(">" if op is O.MAXIMUM else "<", x, y), x, y)
        if op in (O.DIVIDE, O.REMAINDER):
            return self._int_divide(op, signed, x, y)
        return self._shift(op, x, y)

    def _int_divide(self, op: Opcode, signed: bool, a: ir.Value, c: ir.Value) -> ir.Value:
        b, ty = self.b, a.type
        zero, one = ir.Constant(ty, 0), ir.Constant(ty, 1)
        is_zero = b.icmp_unsigned("==", c, zero)
        unsafe = is_zero
        if signed:
            int_min = ir.Constant(ty, -(1 << (ty.width - 1)))
            overflow = b.and_(b.icmp_signed("==", a, int_min), b.icmp_signed("==", c, ir.Constant(ty, -1)))
            unsafe = b.or_(is_zero, overflow)
        safe = b.select(unsafe, one, c)
        if op is O.DIVIDE:
            q = b.sdiv(a, safe) if signed else b.udiv(a, safe)
            return b.select(is_zero, ir.Constant(ty, -1), q)
        r = b.srem(a, safe) if signed else b.urem(a, safe)
        return b.select(is_zero, a, r)

    def _shift(self, op: Opcode, a: ir.Value, n: ir.Value) -> ir.Value:
        b, ty = self.b, a.type
        width = ir.Constant(ty, ty.width)
        out = b.icmp_unsigned(">=", n, width)
        safe = b.select(out, ir.Constant(ty, 0), n)
        if op is O.SHIFT_LEFT:
            return b.select(out, ir.Constant(ty, 0), b.shl(a, safe))
        if op is O.SHIFT_RIGHT_LOGICAL:
            return b.select(out, ir.Constant(ty, 0), b.lshr(a, safe))
        return b.ashr(a, b.select(out, ir.Constant(ty, ty.width - 1), n))


# -- structural helpers shared with the kernel builder -----------------------------------------


def is_fusable_product(mul: Instruction) -> bool:
    """An f32 multiply (or divide by a constant) XLA:CPU contracts into its only user."""
    if mul.shape.element_type is not P.F32:
        return False
    if mul.opcode is O.DIVIDE and not _divides_by_constant(mul):
        return False
    if mul.opcode not in (O.MULTIPLY, O.DIVIDE):
        return False
    users = mul.users
    return len(users) == 1 and users[0].parent is mul.parent and \
        users[0].opcode in (O.ADD, O.SUBTRACT)


def _divides_by_constant(ins: Instruction) -> bool:
    return ins.opcode is O.DIVIDE and ew._divides_by_constant(ins)


def f32_to_bf16(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """The bf16 bits of f32 `x` rounded to nearest-even; a NaN becomes 0x7fc0 with its
    sign (ml_dtypes' rounding; no hardware conversion, which would flush denormals)."""
    c = lambda v: ir.Constant(u.I32, v)  # noqa: E731
    bits = b.bitcast(x, u.I32)
    high = b.lshr(bits, c(16))
    bias = b.add(b.and_(high, c(1)), c(0x7FFF))
    rounded = b.lshr(b.add(bits, bias), c(16))
    quiet = b.or_(b.and_(high, c(0x8000)), c(0x7FC0))
    is_nan = b.icmp_unsigned(">", b.and_(bits, c(0x7FFFFFFF)), c(0x7F800000))
    return b.trunc(b.select(is_nan, quiet, rounded), u.I16)


#: Float formats reduce-precision rewrites on their own bits (IEEE-like layouts).
_FORMATS = frozenset({P.F16, P.BF16, P.F32, P.F64})


def reduce_precision(b: ir.IRBuilder, x: ir.Value, t: PrimitiveType, exponent_bits: int,
                     mantissa_bits: int) -> ir.Value:
    """XLA's reduce-precision of `x` (of type t) on its own bit pattern: the mantissa
    rounded to nearest-even at `mantissa_bits`, exponents outside `exponent_bits`' range
    to signed infinity or zero, NaNs unchanged (the interpreter's `reduce_precision`)."""
    width, mant = t.bits, int(ml_dtypes.finfo(t.numpy_dtype).nmant)
    exp = width - 1 - mant
    ity = ir.IntType(width)
    c = lambda v: ir.Constant(ity, v % (1 << width))  # noqa: E731
    bits = x if x.type == ity else b.bitcast(x, ity)
    sign, exp_mask = 1 << (width - 1), ((1 << exp) - 1) << mant
    is_nan = b.icmp_unsigned(">", b.and_(bits, c(~sign)), c(exp_mask))
    out = bits
    if mantissa_bits < mant:
        drop = mant - mantissa_bits
        last = 1 << drop
        bias = b.add(b.lshr(b.and_(out, c(last)), c(drop)), c((last >> 1) - 1))
        out = b.and_(b.add(out, bias), c(~(last - 1)))
    if exponent_bits < exp:
        ebias, rbias = (1 << (exp - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = b.and_(out, c(exp_mask))
        overflow = b.icmp_unsigned(">", exponent, c((ebias + rbias) << mant))
        underflow = b.icmp_unsigned("<=", exponent, c((ebias - rbias) << mant))
        signed_zero = b.and_(out, c(sign))
        out = b.select(overflow, b.or_(signed_zero, c(exp_mask)), out)
        out = b.select(underflow, signed_zero, out)
    out = b.select(is_nan, bits, out)
    return out if x.type == ity else b.bitcast(out, x.type)


def bf16_round_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f32 `x` rounded to nearest-even bf16, as the f32 that bf16 value equals: the bits
    of `f32_to_bf16` in the high half, computed in 32-bit lanes (no narrowing and
    widening shuffles: a rounded block operation's loop runs ~2x faster)."""
    c = lambda v: ir.Constant(u.I32, v)  # noqa: E731
    bits = b.bitcast(x, u.I32)
    bias = b.add(b.and_(b.lshr(bits, c(16)), c(1)), c(0x7FFF))
    rounded = b.and_(b.add(bits, bias), c(0xFFFF0000))
    quiet = b.or_(b.and_(bits, c(0x80000000)), c(0x7FC00000))
    is_nan = b.icmp_unsigned(">", b.and_(bits, c(0x7FFFFFFF)), c(0x7F800000))
    return b.bitcast(b.select(is_nan, quiet, rounded), u.F32)


def _exact_f64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """A non-negative f32 as the f64 it equals, denormals included (fpext would read
    them as zero under DAZ)."""
    bits = b.bitcast(x, u.I32)
    tiny = b.fmul(b.sitofp(bits, u.F64), ir.Constant(u.F64, 2.0**-149))
    return b.select(b.icmp_unsigned("<", bits, ir.Constant(u.I32, 0x00800000)), tiny,
                    b.fpext(x, u.F64))


def _pack(b: ir.IRBuilder, re: ir.Value, im: ir.Value) -> ir.Value:
    """The complex value (re, im)."""
    pair = ir.LiteralStructType([re.type, im.type])
    return b.insert_value(b.insert_value(ir.Constant(pair, None), re, 0), im, 1)


def _scalar_constant(t: PrimitiveType, v: object) -> ir.Constant:
    if u.is_complex(t):
        part = u.value_type(t).elements[0]
        z = complex(v)  # type: ignore[arg-type]
        return ir.Constant(u.value_type(t), [ir.Constant(part, z.real), ir.Constant(part, z.imag)])
    if u.is_narrow(t):
        bits = int(np.asarray(v, t.numpy_dtype).view(np.uint16))
        if t is P.BF16:
            return u.const(P.S16, bits)
        return ir.FormattedConstant(u.F16, f"0xH{bits:04X}")
    if u.is_float(t):
        return ir.Constant(u.value_type(t), float(v))  # type: ignore[arg-type]
    return u.const(t, int(v))  # type: ignore[call-overload]


def major_to_minor(shape: Shape) -> list[int]:
    layout = shape.layout or Layout.default_for_rank(shape.rank)
    return list(reversed(layout.minor_to_major))


def linear_index(b: ir.IRBuilder, dims: Sequence[int], index: Index) -> ir.Value:
    """Row-major linear offset of `index` in an array of `dims`."""
    lin: ir.Value = u.i64(0)
    for n, i in zip(dims, index, strict=True):
        if n == 1:
            continue
        lin = i if isinstance(lin, ir.Constant) and lin.constant == 0 else \
            b.add(b.mul(lin, u.i64(n), flags=["nsw", "nuw"]), i, flags=["nsw", "nuw"])
    return lin


def regroup(b: ir.IRBuilder, dims: Sequence[int], index: Index, to: Sequence[int]) -> Index:
    """The row-major multi-index in an array of dims `to` of the element at `index` of
    the same elements seen as `dims` (a reshape): dims are matched in groups of equal
    size (where both prefix products meet), so a dim both views share keeps its index
    as it is (no division the loop vectorizer cannot see through) and a split or
    merged one is linearized within its group only."""
    total = math.prod(dims)
    if total == 0 or math.prod(to) != total:
        return delinearize(b, to, linear_index(b, dims, index))
    cuts = sorted(set(itertools.accumulate(dims, operator.mul, initial=1)) &
                  set(itertools.accumulate(to, operator.mul, initial=1)))
    out: list[ir.Value] = []
    for lo, hi in zip(cuts, cuts[1:]):
        mine = _group(dims, lo, hi, last=hi == total)
        theirs = _group(to, lo, hi, last=hi == total)
        if len(mine) == 1 and len(theirs) == 1:
            out.append(index[mine[0]])
            continue
        lin = linear_index(b, [dims[k] for k in mine], tuple(index[k] for k in mine))
        out.extend(delinearize(b, [to[k] for k in theirs], lin))
    return tuple(out) if len(out) == len(to) else delinearize(b, to, linear_index(b, dims, index))


def _group(dims: Sequence[int], lo: int, hi: int, last: bool) -> list[int]:
    """The dims whose prefix product lies in [lo, hi) (the last group also takes the
    trailing dims of size 1)."""
    out, prefix = [], 1
    for k, n in enumerate(dims):
        if lo <= prefix < hi or (last and prefix == hi):
            out.append(k)
        prefix *= n
    return out


def delinearize(b: ir.IRBuilder, dims: Sequence[int], lin: ir.Value) -> Index:
    """The row-major multi-index of linear offset `lin`."""
    out: list[ir.Value] = []
    stride = 1
    strides = []
    for n in reversed(dims):
        strides.append(stride)
        stride *= n
    strides.reverse()
    for k, (n, s) in enumerate(zip(dims, strides, strict=True)):
        if n == 1:
            out.append(u.i64(0))
            continue
        q = lin if s == 1 else b.udiv(lin, u.i64(s))
        out.append(q if k == 0 else b.urem(q, u.i64(n)))
    return tuple(out)
