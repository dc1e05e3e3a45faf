"""custom-call: a registry of known targets; any other target is Unsupported.

Known targets:
* `TopK` (XLA:CPU's rewrite of topk): operand values, comparator in
  called_computations, results (values, s32 indices); k comes from the result shape.
* JAX's LAPACK FFI calls `lapack_<s|d|c|z><routine>_ffi` (potrf, trsm, getrf, geqrf,
  orgqr/ungqr, syevd/heevd, gesdd, gesvd, geev, gees, gehrd, sytrd/hetrd). Options come
  from the MLIR dictionary in backend_config (`{uplo = 76 : ui8}`: ASCII letters).
  Values are logical arrays, so the column-major operand_layout_constraints need no
  handling. Eigen/singular/Schur vectors are unique only up to sign/phase, and for
  f32/c64 geev and for gees the eigenvalue order of numpy's LAPACK can differ from
  XLA's; everything else matches XLA:CPU within rounding.
* Identity markers: `Sharding`, `SPMDFullToShardShape`, `SPMDShardToFullShape`,
  `MoveToHost`, `MoveToDevice` and every `xla.sdy.*` target.
* `shape_assertion`: raises ShapeAssertionError when its predicate is false.

The interpreter never loads code named by a module.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.interpreter.core import Evaluator, Unsupported, Value, impl
from hlotool.interpreter.kernels import linalg as la
from hlotool.interpreter.kernels.sort import top_k_with_comparator
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape

Handler = Callable[[Evaluator, Instruction, list[Value]], Value]
HANDLERS: dict[str, Handler] = {}
#: LAPACK routine name (without the type letter) -> handler.
LAPACK: dict[str, Handler] = {}

#: Targets that pass their operand through (SetBound only records a dynamic dimension's
#: bound, in its `literal`, for XLA's dynamic padder).
_IDENTITY_TARGETS = ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "MoveToHost",
                     "MoveToDevice", "SetBound")
_LAPACK_NAME = re.compile(r"lapack_([sdcz])([a-z0-9]+)_ffi")
_CONFIG_ITEM = re.compile(r"(\w+)\s*=\s*(-?\d+)\s*:\s*[a-z]+\d+")
_CONFIG_STRING = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')


class ShapeAssertionError(HloError):
    """A `shape_assertion` custom call whose predicate is false."""


def handler(*names: str, table: dict[str, Handler] = HANDLERS) -> Callable[[Handler], Handler]:
    """Register a handler for custom-call targets (or LAPACK routines, with table=LAPACK)."""

    def register(fn: Handler) -> Handler:
        for name in names:
            table[name] = fn
        return fn

    return register


def find_handler(target: str) -> Handler | None:
    """The handler of a custom-call target, or None."""
    if target in HANDLERS:
        return HANDLERS[target]
    if target.startswith("xla.sdy."):
        return _identity
    m = _LAPACK_NAME.fullmatch(target)
    return LAPACK.get(m.group(2)) if m else None


@impl(Opcode.CUSTOM_CALL)
def _custom_call(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    name = ins.attrs["custom_call_target"]
    fn = find_handler(name)
    if fn is None:
        raise Unsupported(f"custom-call target '{name}' is not supported by the interpreter")
    return fn(ev, ins, ops)


def backend_options(ins: Instruction) -> dict[str, int | str]:
    """Integer and string entries of an MLIR-dictionary backend_config."""
    text = ins.backend_config
    out: dict[str, int | str] = {k: int(v) for k, v in _CONFIG_ITEM.findall(text)}
    for key, value in _CONFIG_STRING.findall(text):
        out[key] = re.sub(r"\\(.)", r"\1", value)
    return out


def _letter(ins: Instruction, key: str, default: str) -> str:
    value = backend_options(ins).get(key)
    return chr(value) if isinstance(value, int) else default


def _result_shapes(ins: Instruction) -> tuple[Shape, ...]:
    return ins.shape.tuple_shapes if ins.shape.is_tuple else (ins.shape,)


def _cast_results(ins: Instruction, values: list[np.ndarray]) -> Value:
    """Cast and reshape values to the declared results (a tuple when the shape is one)."""
    shapes = _result_shapes(ins)
    out = []
    for shape, v in zip(shapes, values, strict=True):
        v = np.asarray(v)
        if shape.element_type.is_complex or not np.iscomplexobj(v):
            v = v.astype(shape.element_type.numpy_dtype)
        else:
            v = v.real.astype(shape.element_type.numpy_dtype)
        out.append(v.reshape(shape.dimensions))
    return tuple(out) if ins.shape.is_tuple else out[0]


# -- simple targets ----------------------------------------------------------------------


@handler(*_IDENTITY_TARGETS)
def _identity(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    return ops[0] if len(ops) == 1 else tuple(ops)


@handler("shape_assertion")
def _shape_assertion(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """Raise with error_message (`{i}` replaced by operand i + 1) if operand 0 is false."""
    if bool(np.asarray(ops[0])):
        return ()
    message = backend_options(ins).get("error_message") or ins.frontend_attributes.get(
        "error_message", "shape assertion failed"
    )
    values = [str(np.asarray(v).item()) for v in ops[1:]]

    def operand(m: re.Match[str]) -> str:
        i = int(m.group(1))
        return values[i] if i < len(values) else m.group(0)

    raise ShapeAssertionError(re.sub(r"\{(\d+)\}", operand, str(message)))


@handler("TopK")
def _top_k(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    comparators = ins.attrs.get("called_computations") or (ins.attrs.get("to_apply"),)
    if comparators[0] is None:
        raise Unsupported("custom-call TopK needs a comparator computation")
    k = _result_shapes(ins)[0].dimensions[-1]
    values, indices = top_k_with_comparator(ev, comparators[0], np.asarray(ops[0]), k)
    return values, indices


# -- LAPACK ------------------------------------------------------------------------------


def _lapack(*names: str) -> Callable[[Handler], Handler]:
    return handler(*names, table=LAPACK)


@_lapack("potrf")
def _potrf(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """(factor in the uplo triangle, the other triangle as given; info)."""
    x = la.batched(ops[0])
    lower = _letter(ins, "uplo", "L") == "L"
    low, info = la.cholesky_lower(la.hermitian_from(x, lower))
    factor = low if lower else np.conj(la.matrix_transpose(low))
    n = x.shape[-1]
    mask = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    return _cast_results(ins, [np.where(mask, factor, x), info])


@_lapack("trsm")
def _trsm(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    left = _letter(ins, "side", "L") == "L"
    a, b = np.shape(ops[0]), np.shape(ops[1])
    solved = b[-2] if left else b[-1]
    if len(a) < 2 or len(b) < 2 or a[-1] != a[-2] or a[-1] != solved:
        raise Unsupported(
            f"custom-call {ins.attrs.get('custom_call_target')} ({ins.name}): the triangular "
            f"matrix {list(a)} must be square and match the right-hand side {list(b)}'s "
            f"{'rows' if left else 'columns'} (side={'L' if left else 'R'} in its "
            "backend_config)")
    x = la.triangular_solve(
        ops[0], ops[1], left_side=left,
        lower=_letter(ins, "uplo", "L") == "L", unit_diagonal=_letter(ins, "diag", "N") == "U",
        transpose=_letter(ins, "trans_x", "N"),
    )  # fmt: skip
    return _cast_results(ins, [x])


@_lapack("getrf")
def _getrf(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    lu, ipiv, info = la.lu_factor(la.batched(ops[0]))
    return _cast_results(ins, [lu, ipiv, info][: len(_result_shapes(ins))])


@_lapack("geqrf")
def _geqrf(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    a, tau = la.qr_factor(la.batched(ops[0]))
    results = [a, tau, np.zeros(a.shape[0], np.int32)]
    return _cast_results(ins, results[: len(_result_shapes(ins))])


@_lapack("orgqr", "ungqr")
def _orgqr(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    a = la.batched(ops[0])
    tau = np.asarray(ops[1]).reshape(a.shape[0], -1).astype(a.dtype)
    q = la.householder_product(a, tau)
    results = [q, np.zeros(a.shape[0], np.int32)]
    return _cast_results(ins, results[: len(_result_shapes(ins))])


def _native_batched(a: Value) -> np.ndarray:
    """[batch, m, n] in the operand's own precision, so numpy calls the LAPACK routine of
    the same precision (s/d/c/z) as XLA, which keeps eigenvalue orders closest to XLA's."""
    a = np.asarray(a)
    return a.reshape(-1, *a.shape[-2:])


@_lapack("syevd", "heevd")
def _syevd(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """(eigenvectors as columns, ascending eigenvalues, info); mode 'N': values only."""
    x = _native_batched(ops[0])
    herm = la.hermitian_from(x, _letter(ins, "uplo", "L") == "L")
    try:
        w, v = np.linalg.eigh(herm)
        info = np.zeros(x.shape[0], np.int32)
    except np.linalg.LinAlgError:
        w, v = np.full(x.shape[:2], np.nan), np.full(x.shape, np.nan, dtype=x.dtype)
        info = np.ones(x.shape[0], np.int32)
    vectors = v if _letter(ins, "mode", "V") == "V" else x
    return _cast_results(ins, [vectors, w, info])


@_lapack("gesdd", "gesvd")
def _gesdd(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """(a destroyed, s, u, vt, info); mode A: full u/vt, S: reduced, N: s only."""
    x = _native_batched(ops[0])
    mode = _letter(ins, "mode", "A")
    shapes = _result_shapes(ins)
    info = np.zeros(x.shape[0], np.int32)
    try:
        if mode == "N":
            s = np.linalg.svd(x, compute_uv=False)
            u, vt = np.zeros(shapes[2].dimensions), np.zeros(shapes[3].dimensions)
        else:
            u, s, vt = np.linalg.svd(x, full_matrices=mode == "A")
    except np.linalg.LinAlgError:
        info[:] = 1
        s = np.full(shapes[1].dimensions, np.nan)
        u, vt = np.full(shapes[2].dimensions, np.nan), np.full(shapes[3].dimensions, np.nan)
    return _cast_results(ins, [x, s, u, vt, info])


def _normalize_vectors(v: np.ndarray) -> np.ndarray:
    """Unit-norm columns whose largest-magnitude component is real (LAPACK's geev)."""
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    big = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], axis=-2)
    phase = np.where(big == 0, 1, np.conj(big) / np.where(big == 0, 1, np.abs(big)))
    return v * phase


@_lapack("geev")
def _geev(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """Real: (wr, wi, vl, vr, info); complex: (w, vl, vr, info); vectors as columns."""
    x = _native_batched(ops[0])
    shapes = _result_shapes(ins)
    complex_type = np.result_type(x.dtype, np.complex64)
    info = np.zeros(x.shape[0], np.int32)
    try:
        w, vr = np.linalg.eig(x)
    except np.linalg.LinAlgError:
        info[:] = 1
        w, vr = np.full(x.shape[:2], np.nan), np.full(x.shape, np.nan)
    w, vr = w.astype(complex_type), vr.astype(complex_type)
    vl = np.zeros(shapes[-3].dimensions, complex_type)
    if _letter(ins, "compute_left", "N") == "V":
        vl = _normalize_vectors(np.conj(la.matrix_transpose(np.linalg.pinv(vr))))
    if _letter(ins, "compute_right", "V") != "V":
        vr = np.zeros(shapes[-2].dimensions, complex_type)
    elif np.iscomplexobj(x):
        vr = _normalize_vectors(vr)
    values = [w] if np.iscomplexobj(x) else [w.real, w.imag]
    return _cast_results(ins, [*values, vl, vr, info])


@_lapack("gees")
def _gees(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """Real: (T, Schur vectors, wr, wi, sdim, info); complex: (T, vectors, w, sdim, info)."""
    if _letter(ins, "sort", "N") != "N":
        raise Unsupported("lapack gees with eigenvalue sorting is not supported")
    x = _native_batched(ops[0])
    t, q = la.schur(x)
    if _letter(ins, "mode", "V") != "V":
        q = np.zeros_like(q)
    diagonal = _schur_eigenvalues(t)
    values = [diagonal] if np.iscomplexobj(x) else [diagonal.real, diagonal.imag]
    zeros = np.zeros(x.shape[0], np.int32)
    return _cast_results(ins, [t, q, *values, zeros, zeros])


def _schur_eigenvalues(t: np.ndarray) -> np.ndarray:
    """Eigenvalues read off a (quasi-)triangular Schur form, 2x2 blocks as a +- i sqrt(-bc)."""
    w = np.diagonal(t, axis1=-2, axis2=-1).astype(np.result_type(t.dtype, np.complex64))
    if np.iscomplexobj(t):
        return w
    sub = np.diagonal(t, offset=-1, axis1=-2, axis2=-1)
    sup = np.diagonal(t, offset=1, axis1=-2, axis2=-1)
    imag = np.sqrt(np.abs(sub * sup))
    w = w.copy()
    w[..., :-1] += np.where(sub != 0, 1j * imag, 0)
    w[..., 1:] -= np.where(sub != 0, 1j * imag, 0)
    return w


@_lapack("gehrd")
def _gehrd(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    x = la.batched(ops[0])
    options = backend_options(ins)
    low, high = int(options.get("low", 1)), int(options.get("high", x.shape[-1]))
    h, tau = la.hessenberg(x, low, high)
    return _cast_results(ins, [h, tau, np.zeros(x.shape[0], np.int32)])


@_lapack("sytrd", "hetrd")
def _sytrd(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    x = la.batched(ops[0])
    a, d, e, tau = la.tridiagonal(x, _letter(ins, "uplo", "L") == "L")
    return _cast_results(ins, [a, d, e, tau, np.zeros(x.shape[0], np.int32)])
