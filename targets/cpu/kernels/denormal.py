"""A native scan for denormal values, for the library thunks (BLAS dot, convolution).

XLA:CPU runs with denormals-are-zero, so a library call must see its denormal f32/f64
inputs as zeros: `flush_inputs` hands back the array itself when it holds none (the usual
case) and a flushed copy otherwise. The scan is one vectorized LLVM loop (compiled once
per process, on first use) instead of numpy's temporaries: no allocation on the hot path.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np
from llvmlite import ir

from hlotool.interpreter.kernels.elementwise import flush_denormals
from hlotool.targets.cpu import irutils as u

#: (integer type, exponent mask, mantissa mask) per float width.
_MASKS = {4: (ir.IntType(32), 0x7F800000, 0x007FFFFF),
          8: (ir.IntType(64), 0x7FF0000000000000, 0x000FFFFFFFFFFFFF)}


def _emit_scan(module: ir.Module, itemsize: int) -> None:
    """`void scan(void **b)`: *b[2] = number of denormals among the b[1]-many values at b[0]."""
    ity, exp_mask, man_mask = _MASKS[itemsize]
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR]), name=f"denormals{itemsize}")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    arg = fn.args[0]
    data, count, result = (b.load(b.gep(arg, [u.i64(k)], source_etype=u.PTR), typ=u.PTR)
                           for k in range(3))
    n = b.load(count, typ=u.I64)
    acc = b.alloca(u.I64)
    b.store(u.i64(0), acc)
    with u.for_range(b, n) as i:
        bits = b.load(b.gep(data, [i], source_etype=ity, inbounds=True), typ=ity)
        no_exponent = b.icmp_unsigned("==", b.and_(bits, ir.Constant(ity, exp_mask)),
                                      ir.Constant(ity, 0))
        mantissa = b.icmp_unsigned("!=", b.and_(bits, ir.Constant(ity, man_mask)),
                                   ir.Constant(ity, 0))
        hit = b.zext(b.and_(no_exponent, mantissa), u.I64)
        b.store(b.add(b.load(acc, typ=u.I64), hit), acc)
    b.store(b.load(acc, typ=u.I64), result)
    b.ret_void()


@functools.cache
def _scanner() -> tuple[object, dict[int, object]]:
    from hlotool.targets.cpu.jit import CodeLibrary

    module = ir.Module(name="hlotool_denormals")
    for size in _MASKS:
        _emit_scan(module, size)
    library = CodeLibrary("hlotool_denormals")
    library.add_ir_module(str(module))
    library.finalize()
    return library, {size: library.get_function(f"denormals{size}") for size in _MASKS}


def count_denormals(x: np.ndarray) -> int:
    """Denormal values in a C-contiguous f32/f64 array."""
    fn = _scanner()[1][x.dtype.itemsize]
    n, out = ctypes.c_int64(x.size), ctypes.c_int64(0)
    args = (ctypes.c_void_p * 3)(x.ctypes.data, ctypes.addressof(n), ctypes.addressof(out))
    fn(args)  # type: ignore[operator]
    return out.value


def flush_inputs(x: np.ndarray) -> np.ndarray:
    """`x` as XLA:CPU's library calls read it: denormals replaced by signed zeros."""
    if x.dtype in (np.float32, np.float64) and x.flags.c_contiguous and x.size:
        return x if count_denormals(x) == 0 else flush_denormals(x)
    return flush_denormals(x)
