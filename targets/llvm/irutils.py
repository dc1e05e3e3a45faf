"""cgutils-style helpers over llvmlite.ir: element types, constants, loops, intrinsics."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from llvmlite import ir

from hlotool.ir.types import PrimitiveType

P = PrimitiveType
I1 = ir.IntType(1)
I8 = ir.IntType(8)
I16 = ir.IntType(16)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F16 = ir.HalfType()
F32 = ir.FloatType()
F64 = ir.DoubleType()
C64 = ir.LiteralStructType([F32, F32])
C128 = ir.LiteralStructType([F64, F64])
PTR = ir.PointerType()

#: Element types every kernel computes on natively (reductions included).
NATIVE_TYPES: frozenset[PrimitiveType] = frozenset(
    {P.PRED, P.S8, P.S16, P.S32, P.S64, P.U8, P.U16, P.U32, P.U64, P.F32, P.F64}
)
#: Floats narrower than f32: computed in f32 and rounded back after every op (as the
#: interpreter and XLA:CPU do). f16 values are LLVM `half`; bf16 values are their i16 bits.
NARROW_FLOATS: frozenset[PrimitiveType] = frozenset({P.F16, P.BF16})
#: Complex types: values are LLVM `{float, float}` / `{double, double}` (real, imaginary),
#: laid out as numpy's complex64 / complex128.
COMPLEX_TYPES: frozenset[PrimitiveType] = frozenset({P.C64, P.C128})
#: Element types the elemental emitter (loop kernels) computes on; complex ones only for
#: the ops `elemental` lists.
ELEMENTAL_TYPES: frozenset[PrimitiveType] = NATIVE_TYPES | NARROW_FLOATS | COMPLEX_TYPES
_INT_BITS = {P.S8: 8, P.S16: 16, P.S32: 32, P.S64: 64, P.U8: 8, P.U16: 16, P.U32: 32,
             P.U64: 64}  # fmt: skip


def value_type(t: PrimitiveType) -> ir.Type:
    """The LLVM type values of `t` are computed in (pred is i1)."""
    if t is P.PRED:
        return I1
    if t is P.F32:
        return F32
    if t is P.F64:
        return F64
    if t is P.F16:
        return F16
    if t is P.BF16:
        return I16
    if t is P.C64:
        return C64
    if t is P.C128:
        return C128
    return ir.IntType(_INT_BITS[t])


def storage_type(t: PrimitiveType) -> ir.Type:
    """The LLVM type of `t` in memory (pred is a byte, as numpy's bool)."""
    return I8 if t is P.PRED else value_type(t)


def is_float(t: PrimitiveType) -> bool:
    """f32 or f64: values are LLVM floats and arithmetic runs on them directly."""
    return t in (P.F32, P.F64)


def is_narrow(t: PrimitiveType) -> bool:
    """f16 or bf16 (see NARROW_FLOATS)."""
    return t in NARROW_FLOATS


def is_complex(t: PrimitiveType) -> bool:
    return t in COMPLEX_TYPES


def is_signed(t: PrimitiveType) -> bool:
    return t in (P.S8, P.S16, P.S32, P.S64)


def const(t: PrimitiveType, value: float | int | bool) -> ir.Constant:
    """A constant of element type `t` (integers wrap to the type's width)."""
    ty = value_type(t)
    if is_float(t):
        return ir.Constant(ty, float(value))
    bits = ty.width
    v = int(value) & ((1 << bits) - 1)
    if bits > 1 and v >= 1 << (bits - 1):
        v -= 1 << bits
    return ir.Constant(ty, v)


def i64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


@contextmanager
def for_range(builder: ir.IRBuilder, count: ir.Value | int, name: str = "i") -> Iterator[ir.Value]:
    """`for (i = 0; i < count; ++i)`; yields i (i64) with the builder inside the body.
    A count of 1 known when emitting gives the body once, without a loop (less for LLVM
    to compile)."""
    if isinstance(count, int) and count == 1:
        yield i64(0)
        return
    count = i64(count) if isinstance(count, int) else count
    pre = builder.block
    header = builder.append_basic_block(f"{name}.header")
    body = builder.append_basic_block(f"{name}.body")
    end = builder.append_basic_block(f"{name}.end")
    builder.branch(header)
    builder.position_at_end(header)
    index = builder.phi(I64, name=name)
    index.add_incoming(i64(0), pre)
    builder.cbranch(builder.icmp_signed("<", index, count), body, end)
    builder.position_at_end(body)
    yield index
    nxt = builder.add(index, i64(1), name=f"{name}.next", flags=["nsw", "nuw"])
    index.add_incoming(nxt, builder.block)
    builder.branch(header)
    builder.position_at_end(end)


def intrinsic(builder: ir.IRBuilder, name: str, ret: ir.Type, args: list[ir.Value],
              overloads: list[ir.Type] | None = None) -> ir.Value:
    """Call the LLVM intrinsic `name` (declared on first use); `overloads` picks the
    suffix types (default: the return type)."""
    module = builder.module
    suffix = ".".join(_mangle(t) for t in (overloads if overloads is not None else [ret]))
    full = f"{name}.{suffix}" if suffix else name
    fn = module.globals.get(full)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, [a.type for a in args]), name=full)
    return builder.call(fn, args)


class Callee:
    """A function pointer as llvmlite's `call` takes a callee: with opaque pointers a
    `ptr` value has no function type, so this carries it."""

    def __init__(self, pointer: ir.Value, ftype: ir.FunctionType) -> None:
        self.pointer, self.type, self.function_type = pointer, pointer.type, ftype

    def get_reference(self) -> str:
        return self.pointer.get_reference()

    def __str__(self) -> str:
        return str(self.pointer)


def call_pointer(builder: ir.IRBuilder, pointer: ir.Value, ftype: ir.FunctionType,
                 args: list[ir.Value]) -> ir.Instruction:
    """An indirect call of the function at `pointer`, of type `ftype`."""
    return builder.call(Callee(pointer, ftype), args)


def stack_buffer(builder: ir.IRBuilder, typ: ir.Type, count: int, name: str,
                 align: int | None = None) -> ir.Value:
    """An alloca of `count` elements typed as an untyped pointer (`ptr`), so that code
    reads it at any element type, as it reads a buffer argument."""
    buf = builder.alloca(typ, size=i64(count), name=name)
    buf.type = PTR
    buf.align = align
    return buf


def splat(builder: ir.IRBuilder, x: ir.Value, vty: ir.VectorType) -> ir.Value:
    """A vector of `vty` with every lane x."""
    zero = ir.Constant(vty, None)
    return builder.shuffle_vector(builder.insert_element(zero, x, i64(0)), zero,
                                  ir.Constant(ir.VectorType(I32, vty.count), None))


def vector_load(builder: ir.IRBuilder, ptr: ir.Value, vty: ir.VectorType,
                mask: ir.Value | None = None, fill: ir.Value | None = None,
                align: int = 4) -> ir.Value:
    """The vector at ptr, or only its lanes under `mask` (`llvm.masked.load`: the other
    lanes are not read and hold `fill`, default zero)."""
    if mask is None:
        return builder.load(ptr, typ=vty, align=align)
    fn = _function(builder.module, f"llvm.masked.load.{_mangle(vty)}.p0", vty,
                   [PTR, I32, mask.type, vty])
    return builder.call(fn, [ptr, ir.Constant(I32, align), mask,
                             fill if fill is not None else ir.Constant(vty, None)])


def vector_store(builder: ir.IRBuilder, value: ir.Value, ptr: ir.Value,
                 mask: ir.Value | None = None, align: int = 4) -> None:
    """Store a vector at ptr, or only its lanes under `mask` (`llvm.masked.store`)."""
    if mask is None:
        builder.store(value, ptr, align=align)
        return
    vty = value.type
    fn = _function(builder.module, f"llvm.masked.store.{_mangle(vty)}.p0",
                   ir.VoidType(), [vty, PTR, I32, mask.type])
    builder.call(fn, [value, ptr, ir.Constant(I32, align), mask])


def memcpy(builder: ir.IRBuilder, dst: ir.Value, src: ir.Value, nbytes: ir.Value | int) -> None:
    """Copy `nbytes` from `src` to `dst` (`llvm.memcpy`: the ranges must not overlap)."""
    fn = _declare(builder.module, "llvm.memcpy.p0.p0.i64", [PTR, PTR, I64, I1])
    builder.call(fn, [dst, src, i64(nbytes) if isinstance(nbytes, int) else nbytes,
                      ir.Constant(I1, 0)])


def memset(builder: ir.IRBuilder, dst: ir.Value, byte: int, nbytes: ir.Value | int) -> None:
    """Fill `nbytes` at `dst` with `byte` (`llvm.memset`)."""
    fn = _declare(builder.module, "llvm.memset.p0.i64", [PTR, I8, I64, I1])
    builder.call(fn, [dst, ir.Constant(I8, byte),
                      i64(nbytes) if isinstance(nbytes, int) else nbytes, ir.Constant(I1, 0)])


def _declare(module: ir.Module, name: str, args: list[ir.Type]) -> ir.Function:
    """The void function `name(args)`, declared on first use."""
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), args), name=name)
    return fn


def _function(module: ir.Module, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    """The function `name` of that type, declared on first use."""
    fn = module.globals.get(name)
    return fn if fn is not None else ir.Function(module, ir.FunctionType(ret, args), name=name)


def _mangle(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_mangle(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.HalfType):
        return "f16"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    raise TypeError(f"cannot mangle {t}")
