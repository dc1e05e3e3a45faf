"""Block operations on contiguous f32 values: the runtime library a row kernel's
elementwise work calls (`row.RowCalls`), as XLA:CPU hands softmax and layernorm to
YNNPACK's precompiled kernels.

Each operation computes one elementwise op over `n` values, `out[i] = op(a[i], c[i])`,
where an operand is a block (`v`, a pointer) or one value for all of them (`s`, a float:
a row's reduced value, a constant); conversions read or write bf16/f16 blocks (a bf16
model's softmax and layernorm, computed in f32 between converts). The op is computed by the elemental emitter's own
code (`ElementalEmitter.float_op`, the polynomials of targets/llvm/math.py), so a row
kernel made of these calls gives the bits a row kernel of fused loops gives, and the
interpreter's. The library is compiled once through the full pipeline (its loops are
what the loop vectorizer widens) and kept in the disk cache; a kernel made of calls to
it compiles through the lean pipeline in a few milliseconds instead of LLVM vectorizing
and selecting its own loops (softmax of 4096x4096: 38 ms).

One composite operation computes two ops in one pass with the two calls' bits:
exp(a - c), the exp of a row minus its max in softmax and logsumexp (the subtract's
block is not written and read again: softmaxes of 1000-4096 columns 2-8% faster).

Signature of `hlotool_row_f32_<op>_<kinds>`: `void (ptr out, <one ptr or float per
kind>, i64 n)`; `out` never overlaps an operand.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir

from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.cpu.jit import Pipeline
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm import math as fm
from hlotool.targets.llvm.elemental import ElementalEmitter

O = Opcode
P = PrimitiveType

Compute = Callable[[ElementalEmitter, list[ir.Value]], ir.Value]


def _op(op: Opcode) -> Compute:
    return lambda em, args: em.float_op(op, P.F32, args)


def _recip(em: ElementalEmitter, args: list[ir.Value]) -> ir.Value:
    return em.b.fdiv(ir.Constant(u.F32, 1.0), args[0])


def _fma(em: ElementalEmitter, args: list[ir.Value]) -> ir.Value:
    return fm.fma(em.b, *args)


#: Unary ops: opcode name (or "recip": 1 / x, the divisor of a contracted division).
UNARY: dict[str, Compute] = {
    **{op.value: _op(op) for op in (
        O.EXP, O.LOG, O.TANH, O.LOGISTIC, O.ERF, O.EXPM1, O.LOG1P, O.SQRT, O.RSQRT,
        O.NEGATE, O.ABS, O.SIGN, O.FLOOR, O.CEIL, O.ROUND_EVEN, O.ROUND_AFZ)},
    "recip": _recip,
}
#: Binary ops, each with a block or a value on either side.
BINARY: dict[str, Compute] = {op.value: _op(op) for op in (
    O.ADD, O.SUBTRACT, O.MULTIPLY, O.DIVIDE, O.MAXIMUM, O.MINIMUM)}
#: fma(a, b, c) = a * b + c rounded once (an f32 product contracted into its add).
TERNARY: dict[str, Compute] = {"fma": _fma}


def _exp_of_difference(em: ElementalEmitter, args: list[ir.Value]) -> ir.Value:
    return em.float_op(O.EXP, P.F32, [em.float_op(O.SUBTRACT, P.F32, args)])


#: Two ops in one pass over the block, with the bits of the two calls: exp(a - c), a
#: softmax's or logsumexp's exp of the row minus its max (f32 only: a bf16/f16 op
#: rounds between the two).
COMPOSITE: dict[str, Compute] = {"exponential_of_subtract": _exp_of_difference}
#: Element types a block converts from (an input) or to (the result) f32.
NARROW = (P.BF16, P.F16)


def convert_name(src: PrimitiveType, dst: PrimitiveType) -> str:
    """The block operation converting src to dst (one of them f32, the other NARROW)."""
    return f"convert_{src.name.lower()}_{dst.name.lower()}"


def round_name(t: PrimitiveType) -> str:
    """The block operation rounding f32 values to t (NARROW) and back: a bf16/f16 op's
    result, as the f32 it equals."""
    return f"round_{t.name.lower()}"


def _conversions() -> list[tuple[str, PrimitiveType, PrimitiveType]]:
    return [(convert_name(a, c), a, c) for t in NARROW for a, c in ((t, P.F32), (P.F32, t))]


def _rounder(t: PrimitiveType) -> Compute:
    return lambda em, args: em.round_to(args[0], t)


def _kinds(arity: int) -> list[str]:
    """Operand kind patterns with at least one block: "v", "vs", "sv", "vv", ..."""
    out = []
    for bits in range(1, 1 << arity):
        out.append("".join("v" if bits >> (arity - 1 - k) & 1 else "s" for k in range(arity)))
    return sorted(out)


def operations() -> list[tuple[str, str, Compute]]:
    """(op, kinds, compute) of every block operation of the library."""
    tables = ((UNARY, 1), (BINARY, 2), (TERNARY, 3), (COMPOSITE, 2))
    return [(name, kinds, fn) for table, arity in tables
            for name, fn in table.items() for kinds in _kinds(arity)]


def symbol(op: str, kinds: str) -> str:
    return f"hlotool_row_f32_{op.replace('-', '_')}_{kinds}"


def function_type(kinds: str) -> ir.FunctionType:
    args = [u.PTR] + [u.PTR if k == "v" else u.F32 for k in kinds] + [u.I64]
    return ir.FunctionType(ir.VoidType(), args)


def _emit(module: ir.Module, op: str, kinds: str, compute: Compute,
          src: PrimitiveType = P.F32, dst: PrimitiveType = P.F32, name: str = "") -> None:
    """`op` over blocks of `src` elements (its block operands) into `dst` ones."""
    fn = ir.Function(module, function_type(kinds), name=name or symbol(op, kinds))
    fn.attributes.add("nounwind")
    for arg in fn.args:
        if isinstance(arg.type, ir.PointerType):
            arg.add_attribute("noalias")
    out, *operands, n = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    em = ElementalEmitter(b, {})
    into, read = u.storage_type(dst), u.storage_type(src)
    with u.for_range(b, n, name="i") as i:
        args = [b.load(b.gep(a, [i], source_etype=read, inbounds=True), typ=read)
                if k == "v" else a for a, k in zip(operands, kinds, strict=True)]
        b.store(compute(em, args), b.gep(out, [i], source_etype=into, inbounds=True))
    b.ret_void()


def _converter(src: PrimitiveType, dst: PrimitiveType) -> Compute:
    return lambda em, args: em.convert(args[0], src, dst)


@functools.cache
def row_ops_runtime() -> object:
    """Load (from the disk cache) or compile the block operations once per process and
    register their symbols, before any kernel calling them is compiled or loaded."""
    from hlotool.targets.cpu.cache import runtime_library

    ops = operations()

    converts = _conversions()

    def text() -> str:
        module = ir.Module(name="hlotool_row_ops")
        for op, kinds, compute in ops:
            _emit(module, op, kinds, compute)
        for op, src, dst in converts:
            _emit(module, op, "v", _converter(src, dst), src, dst)
        for t in NARROW:
            _emit(module, round_name(t), "v", _rounder(t))
        return str(module)

    library = runtime_library("row_ops_f32", text, Pipeline.FULL)
    names = [(op, kinds) for op, kinds, _ in ops] + [(c, "v") for c, _, _ in converts] + \
        [(round_name(t), "v") for t in NARROW]
    for op, kinds in names:
        name = symbol(op, kinds)
        llvm.add_symbol(name, library.address(name))
    return library  # kept alive for the life of the process


def rounded_symbol(op: str, kinds: str, t: PrimitiveType) -> str:
    return f"{symbol(op, kinds)}_{t.name.lower()}"


def _rounded(compute: Compute, t: PrimitiveType) -> Compute:
    return lambda em, args: em.round_to(compute(em, args), t)


@functools.cache
def rounded_runtime(t: PrimitiveType) -> object:
    """The unary and binary block operations with their result rounded to t (NARROW)
    and back, as a bf16/f16 op's (`ElementalEmitter._narrow_op`): a library of its own,
    loaded only for kernels with such ops."""
    from hlotool.targets.cpu.cache import runtime_library

    ops = [(op, kinds, fn) for op, kinds, fn in operations()
           if op not in TERNARY and op not in COMPOSITE]

    def text() -> str:
        module = ir.Module(name=f"hlotool_row_ops_{t.name.lower()}")
        for op, kinds, compute in ops:
            fn = _rounded(compute, t)
            _emit(module, op, kinds, fn, name=rounded_symbol(op, kinds, t))
        return str(module)

    library = runtime_library(f"row_ops_rounded_{t.name}", text, Pipeline.FULL)
    for op, kinds, _ in ops:
        name = rounded_symbol(op, kinds, t)
        llvm.add_symbol(name, library.address(name))
    return library


def call(b: ir.IRBuilder, op: str, kinds: str, out: ir.Value, args: list[ir.Value],
         n: ir.Value, rounded: PrimitiveType | None = None) -> None:
    """Call the block operation `op` on `args` (pointers for "v", floats for "s"), its
    result rounded to `rounded` and back when given (`rounded_runtime`)."""
    module = b.module
    name = symbol(op, kinds) if rounded is None else rounded_symbol(op, kinds, rounded)
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, function_type(kinds), name=name)
    b.call(fn, [out, *args, n])
