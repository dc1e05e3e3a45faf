"""Dot: a native kernel calling a gemm (kernels/blas.py) where numpy's OpenBLAS is found,
else numpy.matmul.

Which gemm (kernels/blas.py, `plan_blas_dot`):

* large f32 dots on x86 hosts with AVX-512 (`blas.own_gemm`): hlotool's own packed
  LLVM gemm split across hlotool's threads (kernels/gemm.py), each thread packing only
  its own tiles' columns of B; measured ahead of both OpenBLAS split the same way and
  XLA:CPU's dots on a Zen 4 host (docs/cpu-performance.md);
* every other dot: OpenBLAS's CBLAS (single-threaded calls; large ones split across the
  threads by columns or rows), or its gemv/dot as numpy.matmul picks them.

Numerics are the interpreter's (hlotool/interpreter/kernels/contraction.py): operands
widened to f32/f64 with denormals flushed, one matmul, the result flushed and converted;
OpenBLAS dots match it bit for bit, hlotool's own gemm sums in another order (within the
bound of a K-term sum, as XLA's own dots do). The numpy path precomputes the operand
permutations and reshapes, so a call is a few numpy calls with no interpreter dispatch.
The native path (`blas.available()`) is one ctypes call of a small LLVM kernel (compiled
once per process and dot form) that scans and flushes denormals, calls gemm and flushes
the output: the arena runtime runs it as a native step (`DotThunk.native_args`), and
control-flow kernels call it from loop bodies (`DotPlan.emit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hlotool.interpreter.kernels.elementwise import flush_denormals, flush_result
from hlotool.targets.cpu.jit import Pipeline
from hlotool.targets.cpu.kernels import blas
from hlotool.targets.cpu.kernels.denormal import flush_inputs, has_denormals
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType

P = PrimitiveType
_TYPES = {P.F32: np.float32, P.F64: np.float64}


@dataclass(slots=True)
class DotPlan:
    """A dot computed by BLAS.

    Native (`native`: OpenBLAS found) it is an LLVM kernel (`emit`) whose entry takes
    the buffers (lhs, rhs, output, scratch of `scratch_bytes`); no constants. The output
    must not be an input's buffer (gemm reads the operands while it writes); any
    distinct buffers are fine. Native dots are compiled with the module's other kernels
    (and cached with them); without BLAS the runtime makes a numpy `DotThunk`."""

    name: str
    roots: list[Instruction]
    inputs: list[Instruction]
    #: Variant chosen by the autotuner: `layout` "view" (BLAS reads transposed operands
    #: through strides) or "copy" (operands made contiguous first); `batch` "stacked" (one
    #: batched np.matmul) or "loop" (one 2-D matmul per batch into a preallocated output).
    tune: dict[str, int | str] = field(default_factory=dict)
    #: `blas_dot` and the tuning it was planned under.
    _blas: tuple[tuple[tuple[str, int | str], ...], blas.BlasDot | None] | None = field(
        default=None, init=False, repr=False, compare=False)

    @property
    def native(self) -> bool:
        """Whether the dot is an LLVM kernel calling CBLAS (see `emit`)."""
        return blas.available()

    @property
    def blas_dot(self) -> blas.BlasDot | None:
        """The BLAS form of the dot under the current tuning (`blas.plan_blas_dot`,
        planned once per tuning: the cache check, the scratch size, the pipeline and the
        emitter all ask)."""
        key = tuple(sorted(self.tune.items()))
        if self._blas is None or self._blas[0] != key:
            self._blas = (key, blas.plan_blas_dot(self.roots[0], self.tune))
        return self._blas[1]

    @property
    def scratch_bytes(self) -> int:
        """Bytes of the native kernel's scratch buffer (its last entry buffer)."""
        dot = self.blas_dot
        return dot.scratch_bytes if dot is not None else 0

    @property
    def pipeline(self) -> Pipeline:
        """How LLVM compiles the kernel: calls of BLAS and the denormal helpers only (no
        packing loop to vectorize) take the quick pipeline for calls."""
        dot = self.blas_dot
        calls = dot is not None and not (dot.lhs.pack or dot.rhs.pack)
        return Pipeline.CALLS if calls else Pipeline.FULL

    def emit(self, module: Any, symbol: str, *, x86: bool) -> None:
        """The native kernel: entry buffers (lhs, rhs, out, scratch of `scratch_bytes`);
        the output must not be an input buffer."""
        dot = self.blas_dot
        if dot is None:
            raise RuntimeError("no BLAS library for a native dot")
        blas.emit_blas_dot(module, symbol, dot, x86=x86)

    def make_thunk(self, ins: Instruction, library: Any, symbol: str) -> DotThunk:
        """A thunk calling the kernel `emit` put in the module's library."""
        return DotThunk(ins, self.tune, library.get_function(symbol))


def dot_variants(ins: Instruction) -> list[dict[str, int | str]]:
    """The variants worth timing for this dot (just the default when there is no choice)."""
    t = DotThunk(ins)
    layouts = ["view", "copy"] if t.strided else ["view"]
    own = t.form is not None and t.form.own  # one gemm call for every batch either way
    batches = ["stacked", "loop"] if t.batched and not own else ["stacked"]
    return [{"layout": lay, "batch": bat} for bat in batches for lay in layouts]


def unsupported_dot(ins: Instruction) -> str | None:
    if ins.opcode is not Opcode.DOT or ins.operand_count != 2:
        return "not a dot"
    types = {ins.shape.element_type, *(o.shape.element_type for o in ins.operands)}
    if len(types) != 1 or next(iter(types)) not in _TYPES:
        return "dot element types"
    if ins.attrs.get("algorithm"):
        return "dot algorithm"
    if any(s.is_dynamic for s in (ins.shape, *(o.shape for o in ins.operands))):
        return "dynamic shape"
    return None


class DotThunk(blas.LibraryThunk):
    """dot_general as one (batched) matmul of precomputed 2-D/3-D views."""

    def __init__(self, ins: Instruction, tune: dict[str, int | str] | None = None,
                 fn: Any = None) -> None:
        """`fn`: the native kernel when already compiled (else compiled on first use)."""
        self.ins = ins
        tune = tune or {}
        a, b = ins.operand(0).shape, ins.operand(1).shape
        lb, lc, lf, rb, rc, rf = blas.dot_dimensions(ins)
        nb = math.prod(a.dimensions[d] for d in lb)
        m = math.prod(a.dimensions[d] for d in lf)
        n = math.prod(b.dimensions[d] for d in rf)
        k = math.prod(a.dimensions[d] for d in lc)
        self.lperm = (*lb, *lf, *lc)
        self.rperm = (*rb, *rc, *rf)
        self.lshape, self.rshape = (nb, m, k), (nb, k, n)
        self.out_shape = ins.shape.dimensions
        self.dtype = np.dtype(_TYPES[ins.shape.element_type])
        self.in_specs = [(a.dimensions, self.dtype), (b.dimensions, self.dtype)]
        self.batched = nb != 1
        ident = lambda p: p == tuple(range(len(p)))  # noqa: E731
        #: Whether an operand view is not plain row-major (BLAS reads it through strides).
        self.strided = not (ident(self.lperm) and ident(self.rperm))
        self.copy = tune.get("layout", "view") == "copy"
        self.loop = self.batched and tune.get("batch", "stacked") == "loop"
        #: The native kernel's form (None: the numpy path).
        self.form = blas.plan_blas_dot(ins, tune)
        self.scratch = np.empty(self.form.scratch_bytes if self.form else 0, np.uint8)
        self._fn = fn

    def _compile(self) -> Any:
        form = self.form
        return blas.compile_once("dot", lambda m, name: blas.emit_blas_dot(m, name, form))

    def inputs(self, operands: list, env: dict) -> list:
        return operands

    def accepts(self, values: list) -> bool:
        return all(isinstance(v, np.ndarray | np.generic) and np.shape(v) == tuple(d)
                   for v, (d, _) in zip(values, self.in_specs, strict=True))

    def __call__(self, values: list, out: np.ndarray | None = None) -> np.ndarray:
        """The product of the operand values, written into `out` when given (an array of
        the result's dimensions and type, not an operand's buffer)."""
        if self.form is not None:
            return self._native(values, out)
        a = flush_inputs(np.asarray(values[0], self.dtype))
        b = flush_inputs(np.asarray(values[1], self.dtype))
        lhs = np.transpose(a, self.lperm).reshape(self.lshape)
        rhs = np.transpose(b, self.rperm).reshape(self.rshape)
        if self.copy:
            lhs, rhs = np.ascontiguousarray(lhs), np.ascontiguousarray(rhs)
        nb, m, n = lhs.shape[0], lhs.shape[1], rhs.shape[2]
        dst = np.empty((nb, m, n), self.dtype) if out is None else out.reshape(nb, m, n)
        with np.errstate(all="ignore"):
            if self.loop or not self.batched:
                for i in range(nb):
                    np.matmul(lhs[i], rhs[i], out=dst[i])
            else:
                np.matmul(lhs, rhs, out=dst)
        if out is None:
            return flush_result(dst).reshape(self.out_shape)
        if has_denormals(dst):
            np.copyto(dst, flush_denormals(dst))
        return out
