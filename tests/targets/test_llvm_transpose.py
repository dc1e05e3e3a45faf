"""The in-register transpose (targets/llvm/transpose.py): its rounds give an exact
transpose for every size and element width, and the compiled shuffles move real values."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("n", [2, 4, 8, 16, 32])
def test_rounds_transpose_exactly(n: int, bits: int) -> None:
    from hlotool.targets.llvm.transpose import network

    out = network(n, bits)
    assert sorted(labels[0][1] for labels in out) == list(range(n))
    for labels in out:
        column = labels[0][1]
        assert labels == [(r, column) for r in range(n)]


@pytest.mark.parametrize(("n", "dtype"), [(16, np.float32), (8, np.float32), (8, np.float64),
                                          (4, np.float64), (16, np.int8), (8, np.int16)])
def test_compiled_transpose_moves_the_values(n: int, dtype: type) -> None:
    from llvmlite import ir

    from hlotool.targets.cpu.jit import CodeLibrary, Pipeline
    from hlotool.targets.llvm import irutils as u
    from hlotool.targets.llvm.transpose import transpose

    ety = {np.float32: u.F32, np.float64: u.F64, np.int8: u.I8, np.int16: u.I16}[dtype]
    vty = ir.VectorType(ety, n)
    module = ir.Module(name="t")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR, u.PTR]), name="t")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    rows = [b.load(b.gep(fn.args[0], [u.i64(r * n)], source_etype=ety), typ=vty, align=1)
            for r in range(n)]
    for c, column in enumerate(transpose(b, rows)):
        b.store(column, b.gep(fn.args[1], [u.i64(c * n)], source_etype=ety), align=1)
    b.ret_void()
    library = CodeLibrary("t")
    library.add_ir_module(str(module), Pipeline.LEAN)
    library.finalize()
    call = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(library.address("t"))
    x = (np.arange(n * n) % 127).astype(dtype).reshape(n, n)
    got = np.zeros_like(x)
    call(x.ctypes.data, got.ctypes.data)
    np.testing.assert_array_equal(got, x.T)
