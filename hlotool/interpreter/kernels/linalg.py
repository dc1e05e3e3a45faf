"""cholesky, triangular-solve and batch-norm ops, plus the dense factorizations the LAPACK
custom calls need (custom_call.py): Cholesky, triangular solves, LU with partial pivoting,
Householder QR / Q formation, Hessenberg and tridiagonal reduction in LAPACK's storage,
and a Schur decomposition.

The factorizations loop over columns in Python and are vectorized over the batch; they
compute in float64 / complex128 and follow LAPACK's unblocked algorithms (potf2, getf2,
geqr2, org2r, gehd2, sytd2/hetd2), so pivots, signs and stored reflectors match LAPACK
and values agree within rounding. The Schur form is built from numpy's eigenvectors
instead of LAPACK's QR iteration (see `schur`).
"""

from __future__ import annotations

import numpy as np

from hlotool.interpreter.core import Evaluator, Value, impl
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode


def work_dtype(dtype: np.dtype) -> np.dtype:
    """complex128 for complex inputs, float64 otherwise."""
    return np.dtype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)


def batched(a: np.ndarray) -> np.ndarray:
    """A float64/complex128 copy of a [..., m, n] array as [batch, m, n]."""
    a = np.asarray(a)
    return a.reshape(-1, *a.shape[-2:]).astype(work_dtype(a.dtype))


def matrix_transpose(a: np.ndarray) -> np.ndarray:
    """Swap the two matrix dims."""
    return np.swapaxes(a, -1, -2)


def hermitian_from(a: np.ndarray, lower: bool) -> np.ndarray:
    """The Hermitian matrices whose `lower` (else upper) triangle is that of a."""
    tri = np.tril(a) if lower else np.triu(a)
    strict = np.tril(a, -1) if lower else np.triu(a, 1)
    full = tri + np.conj(matrix_transpose(strict))
    n = a.shape[-1]
    full[..., range(n), range(n)] = full[..., range(n), range(n)].real
    return full


def _axpy_rows(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Batched outer products v w^T of [b, m] and [b, n]."""
    return v[:, :, None] * w[:, None, :]


# -- Cholesky ----------------------------------------------------------------------------


def cholesky_lower(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(L, info) for Hermitian [b, n, n] matrices read from their lower triangle.

    info is LAPACK's: 0, or the 1-based column whose pivot is not positive; columns from
    there on keep the input values (as potf2 leaves them).
    """
    b, n, _ = a.shape
    low = np.zeros_like(a)
    info = np.zeros(b, dtype=np.int32)
    for j in range(n):
        row = low[:, j, :j]
        d = a[:, j, j].real - np.sum(np.abs(row) ** 2, axis=1)
        failed = ~(d > 0) & (info == 0)
        info[failed] = j + 1
        pivot = np.sqrt(np.where(info == 0, d, 1.0))
        low[:, j, j] = pivot
        below = a[:, j + 1 :, j] - np.einsum("bik,bk->bi", low[:, j + 1 :, :j], np.conj(row))
        low[:, j + 1 :, j] = below / pivot[:, None]
    cols = np.arange(n)
    keep_input = (info[:, None] > 0) & (cols[None, :] >= info[:, None] - 1)
    low = np.where(keep_input[:, None, :], np.tril(a), low)
    return low, info


@impl(Opcode.CHOLESKY)
def _cholesky(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """XLA:CPU: a matrix that is not positive definite gives all NaN."""
    a = np.asarray(ops[0])
    lower = bool(ins.attrs.get("lower", False))
    x = batched(a)
    low, info = cholesky_lower(hermitian_from(x, lower))
    out = low if lower else np.conj(matrix_transpose(low))
    out = np.where((info != 0)[:, None, None], np.nan, out)
    return out.reshape(a.shape).astype(a.dtype)


# -- triangular solves -------------------------------------------------------------------


def _substitute(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Solve t x = b for triangular t [batch, m, m] and b [batch, m, n]."""
    m = t.shape[-1]
    x = np.zeros_like(b)
    rows = range(m) if lower else range(m - 1, -1, -1)
    for i in rows:
        done = slice(0, i) if lower else slice(i + 1, m)
        acc = np.einsum("bk,bkn->bn", t[:, i, done], x[:, done, :])
        x[:, i, :] = (b[:, i, :] - acc) / t[:, i, i][:, None]
    return x


def triangular_solve(a: np.ndarray, b: np.ndarray, *, left_side: bool, lower: bool,
                     unit_diagonal: bool, transpose: str) -> np.ndarray:
    """op(A) X = B (left) or X op(A) = B, op by `transpose` in N/T/C; only A's `lower`
    (else upper) triangle is read, its diagonal taken as 1 when `unit_diagonal`."""
    a, b = np.asarray(a), np.asarray(b)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dtype = np.result_type(work_dtype(a.dtype), work_dtype(b.dtype))
    t = np.broadcast_to(a, batch + a.shape[-2:]).reshape(-1, *a.shape[-2:]).astype(dtype)
    rhs = np.broadcast_to(b, batch + b.shape[-2:]).reshape(-1, *b.shape[-2:]).astype(dtype)
    t = np.tril(t) if lower else np.triu(t)
    if unit_diagonal:
        m = t.shape[-1]
        t[:, range(m), range(m)] = 1
    if transpose in ("T", "C"):
        t = matrix_transpose(t)
        t = np.conj(t) if transpose == "C" else t
        lower = not lower
    if left_side:
        x = _substitute(t, rhs, lower)
    else:  # X T = B  <=>  T^T X^T = B^T
        x = matrix_transpose(_substitute(matrix_transpose(t), matrix_transpose(rhs), not lower))
    return x.reshape(batch + b.shape[-2:]).astype(b.dtype)


_TRANSPOSE_LETTER = {"NO_TRANSPOSE": "N", "TRANSPOSE": "T", "ADJOINT": "C"}


@impl(Opcode.TRIANGULAR_SOLVE)
def _triangular_solve(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    a = ins.attrs
    return triangular_solve(
        ops[0], ops[1], left_side=bool(a.get("left_side", False)),
        lower=bool(a.get("lower", False)), unit_diagonal=bool(a.get("unit_diagonal", False)),
        transpose=_TRANSPOSE_LETTER[a.get("transpose_a", "NO_TRANSPOSE")],
    )  # fmt: skip


# -- LU ----------------------------------------------------------------------------------


def _pivot_magnitude(x: np.ndarray) -> np.ndarray:
    """|x| as LAPACK's i?amax measures it (|re| + |im| for complex)."""
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """getrf on [b, m, n]: (L\\U, 1-based row interchanges [b, min(m, n)], info)."""
    x = a.copy()
    b, m, n = x.shape
    k = min(m, n)
    ipiv = np.zeros((b, k), dtype=np.int32)
    info = np.zeros(b, dtype=np.int32)
    batch = np.arange(b)
    for j in range(k):
        p = j + np.argmax(_pivot_magnitude(x[:, j:, j]), axis=1)
        ipiv[:, j] = p + 1
        row = x[batch, j].copy()
        x[batch, j] = x[batch, p]
        x[batch, p] = row
        pivot = x[:, j, j]
        singular = pivot == 0
        info[singular & (info == 0)] = j + 1
        below = x[:, j + 1 :, j]
        scaled = below / np.where(singular, 1, pivot)[:, None]
        x[:, j + 1 :, j] = np.where(singular[:, None], below, scaled)
        x[:, j + 1 :, j + 1 :] -= _axpy_rows(x[:, j + 1 :, j], x[:, j, j + 1 :])
    return x, ipiv, info


# -- Householder reflectors (LAPACK's larfg) ---------------------------------------------


def householder(alpha: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(beta, v, tau) with (I - tau [1; v][1; v]^H)^H [alpha; x] = [beta; 0], beta real."""
    xnorm = np.linalg.norm(x, axis=1) if x.shape[1] else np.zeros(alpha.shape)
    alphr, alphi = alpha.real, alpha.imag
    trivial = (xnorm == 0) & (alphi == 0)
    beta = -np.copysign(np.sqrt(alphr**2 + alphi**2 + xnorm**2), alphr)
    safe_beta = np.where(trivial, 1.0, beta)
    tau = (safe_beta - alphr) / safe_beta
    if np.iscomplexobj(alpha):
        tau = tau - 1j * alphi / safe_beta
    tau = np.where(trivial, 0, tau)
    denom = np.where(trivial, 1, alpha - safe_beta)
    v = np.where(trivial[:, None], x, x / denom[:, None])
    return np.where(trivial, alpha, beta).astype(alpha.dtype), v, tau.astype(alpha.dtype)


def _reflect_left(c: np.ndarray, v: np.ndarray, tau: np.ndarray) -> None:
    """c -= tau v (v^H c) in place, for c [b, m, n], v [b, m] (v[:, 0] = 1)."""
    w = np.einsum("bi,bij->bj", np.conj(v), c)
    c -= tau[:, None, None] * _axpy_rows(v, w)


def _reflect_right(c: np.ndarray, v: np.ndarray, tau: np.ndarray) -> None:
    """c -= tau (c v) v^H in place, for c [b, m, n], v [b, n]."""
    w = np.einsum("bij,bj->bi", c, v)
    c -= tau[:, None, None] * _axpy_rows(w, np.conj(v))


def _with_one(v: np.ndarray) -> np.ndarray:
    return np.concatenate([np.ones((v.shape[0], 1), dtype=v.dtype), v], axis=1)


def qr_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """geqrf on [b, m, n]: (R above the diagonal, reflectors below; tau [b, min(m, n)])."""
    x = a.copy()
    b, m, n = x.shape
    k = min(m, n)
    tau = np.zeros((b, k), dtype=x.dtype)
    for j in range(k):
        beta, v, t = householder(x[:, j, j], x[:, j + 1 :, j])
        x[:, j, j], x[:, j + 1 :, j], tau[:, j] = beta, v, t
        _reflect_left(x[:, j:, j + 1 :], _with_one(v), np.conj(t))
    return x, tau


def householder_product(a: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """orgqr/ungqr: the first n columns of H_1 ... H_k from reflectors stored in a [b, m, n]."""
    b, m, n = a.shape
    q = np.zeros_like(a)
    q[:, range(n), range(n)] = 1
    for j in range(tau.shape[1] - 1, -1, -1):
        v = _with_one(a[:, j + 1 :, j])
        _reflect_left(q[:, j:, j:], v, tau[:, j])
    return q


# -- Hessenberg and tridiagonal reductions -----------------------------------------------


def hessenberg(a: np.ndarray, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
    """gehrd on [b, n, n] with 1-based ilo/ihi: (H and reflectors, tau [b, n - 1])."""
    x = a.copy()
    b, n, _ = x.shape
    tau = np.zeros((b, max(n - 1, 0)), dtype=x.dtype)
    for i in range(low - 1, high - 1):
        beta, v, t = householder(x[:, i + 1, i], x[:, i + 2 : high, i])
        full = _with_one(v)
        _reflect_right(x[:, :high, i + 1 : high], full, t)
        _reflect_left(x[:, i + 1 : high, i + 1 :], full, np.conj(t))
        x[:, i + 1, i], x[:, i + 2 : high, i], tau[:, i] = beta, v, t
    return x, tau


def _rank2_update(c: np.ndarray, v: np.ndarray, t: np.ndarray) -> None:
    """The sytd2/hetd2 update c -= v w^H + w v^H with w = x - tau/2 (x^H v) v, x = tau c v."""
    xv = t[:, None] * np.einsum("bij,bj->bi", c, v)
    alpha = -0.5 * t * np.einsum("bi,bi->b", np.conj(xv), v)
    w = xv + alpha[:, None] * v
    c -= _axpy_rows(v, np.conj(w)) + _axpy_rows(w, np.conj(v))


def tridiagonal(a: np.ndarray, lower: bool) -> tuple[np.ndarray, ...]:
    """sytrd/hetrd on [b, n, n]: (reflectors and d/e in the `lower` triangle, d, e, tau)."""
    x = hermitian_from(a, lower)
    b, n, _ = x.shape
    d = np.zeros((b, n), dtype=np.float64)
    e = np.zeros((b, max(n - 1, 0)), dtype=np.float64)
    tau = np.zeros((b, max(n - 1, 0)), dtype=x.dtype)
    steps = range(n - 1) if lower else range(n - 2, -1, -1)
    for i in steps:
        if lower:
            beta, v, t = householder(x[:, i + 1, i], x[:, i + 2 :, i])
            full, block = _with_one(v), x[:, i + 1 :, i + 1 :]
        else:
            beta, v, t = householder(x[:, i, i + 1], x[:, :i, i + 1])
            full = np.concatenate([v, np.ones((b, 1), dtype=v.dtype)], axis=1)
            block = x[:, : i + 1, : i + 1]
        _rank2_update(block, full, t)
        if lower:
            x[:, i + 1, i], x[:, i + 2 :, i] = beta, v
        else:
            x[:, i, i + 1], x[:, :i, i + 1] = beta, v
        e[:, i], tau[:, i] = beta.real, t
    d[:] = np.diagonal(x, axis1=1, axis2=2).real
    keep = np.tril(np.ones((n, n), dtype=bool)) if lower else np.triu(np.ones((n, n), dtype=bool))
    x = np.where(keep, x, a)
    x[:, range(n), range(n)] = d
    return x, d, e, tau


# -- Schur decomposition -----------------------------------------------------------------


def schur(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, Q) with A = Q T Q^H for [b, n, n] matrices (a valid Schur decomposition).

    Q orthonormalizes the eigenvectors (QR) in the order numpy's geev returns them; real
    inputs get the real Schur form, each complex-conjugate pair as a standardized 2x2
    block (equal diagonal, as dlanv2). A Schur form is not unique: LAPACK's gees
    (which balances differently from geev) may order the eigenvalues differently, and
    Schur vectors may differ in sign/phase and 2x2-block rotation.
    """
    w, v = np.linalg.eig(a)
    real = not np.iscomplexobj(a)
    starts = [_pair_starts(wi) for wi in w] if real else [[] for _ in w]
    basis = np.stack([_real_basis(vi, wi) for vi, wi in zip(v, w)]) if real else v
    q = np.linalg.qr(basis)[0].astype(a.dtype)
    t = np.conj(matrix_transpose(q)) @ a @ q
    for i, pairs in enumerate(starts):
        for k in pairs:
            _standardize_block(t[i], q[i], k)
    return _quasi_triangular(t, starts), q


def _pair_starts(w: np.ndarray) -> list[int]:
    """Indices where a complex-conjugate eigenvalue pair starts (positive imaginary part)."""
    return [k for k in range(len(w) - 1) if w[k].imag > 0]


def _real_basis(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Real vectors spanning the same invariant subspaces as the eigenvectors v."""
    cols = v.real.copy()
    for k in _pair_starts(w):
        cols[:, k + 1] = v[:, k].imag
    return cols


def _standardize_block(t: np.ndarray, q: np.ndarray, k: int) -> None:
    """Rotate rows/columns k, k+1 so the 2x2 block gets equal diagonal entries (dlanv2)."""
    a, b, c, d = t[k, k], t[k, k + 1], t[k + 1, k], t[k + 1, k + 1]
    sigma, diff = b + c, a - d
    tau = np.hypot(sigma, diff)
    if tau == 0:
        return
    cs = np.sqrt(0.5 * (1 + abs(sigma) / tau))
    sn = -(0.5 * diff / (tau * cs)) * (1.0 if sigma >= 0 else -1.0)
    g = np.array([[cs, -sn], [sn, cs]], dtype=t.dtype)
    t[:, k : k + 2] = t[:, k : k + 2] @ g
    t[k : k + 2, :] = g.T @ t[k : k + 2, :]
    q[:, k : k + 2] = q[:, k : k + 2] @ g
    t[k, k] = t[k + 1, k + 1] = 0.5 * (t[k, k] + t[k + 1, k + 1])


def _quasi_triangular(t: np.ndarray, starts: list[list[int]]) -> np.ndarray:
    """Zero everything below the diagonal except the subdiagonal entry of each 2x2 block."""
    n = t.shape[-1]
    keep = np.broadcast_to(np.triu(np.ones((n, n), dtype=bool)), t.shape).copy()
    for i, pairs in enumerate(starts):
        for k in pairs:
            keep[i, k + 1, k] = True
    return np.where(keep, t, 0)


# -- batch norm --------------------------------------------------------------------------


def _feature_view(v: np.ndarray, ndim: int, feature: int) -> np.ndarray:
    shape = [1] * ndim
    shape[feature] = -1
    return np.asarray(v, dtype=np.float64).reshape(shape)


def _reduce_axes(ndim: int, feature: int) -> tuple[int, ...]:
    return tuple(d for d in range(ndim) if d != feature)


@impl(Opcode.BATCH_NORM_TRAINING)
def _batch_norm_training(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    x, scale, offset = ops
    f, eps = ins.attrs["feature_index"], ins.attrs["epsilon"]
    axes = _reduce_axes(x.ndim, f)
    xf = np.asarray(x, dtype=np.float64)
    mean = xf.mean(axis=axes)
    var = np.square(xf - _feature_view(mean, x.ndim, f)).mean(axis=axes)
    out = _normalize(xf, scale, offset, mean, var, eps, f)
    return out.astype(x.dtype), mean.astype(x.dtype), var.astype(x.dtype)


def _normalize(x: np.ndarray, scale: np.ndarray, offset: np.ndarray, mean: np.ndarray,
               var: np.ndarray, eps: float, f: int) -> np.ndarray:
    """(x - mean) / sqrt(var + eps) * scale + offset, broadcasting per feature."""

    def per_feature(v: np.ndarray) -> np.ndarray:
        return _feature_view(v, x.ndim, f)

    inv = 1.0 / np.sqrt(per_feature(var) + eps)
    return (x - per_feature(mean)) * inv * per_feature(scale) + per_feature(offset)


@impl(Opcode.BATCH_NORM_INFERENCE)
def _batch_norm_inference(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    x, scale, offset, mean, var = ops
    out = _normalize(np.asarray(x, dtype=np.float64), scale, offset, mean, var,
                     ins.attrs["epsilon"], ins.attrs["feature_index"])
    return out.astype(x.dtype)


@impl(Opcode.BATCH_NORM_GRAD)
def _batch_norm_grad(ev: Evaluator, ins: Instruction, ops: list[Value]) -> Value:
    """XLA's formulas: with c = x - mean and r = 1/sqrt(var + eps),
    grad_offset = sum(dy), grad_scale = sum(dy * c) * r,
    grad_x = scale * r * (dy - mean(dy) - c * mean(dy * c) * r^2)."""
    x, scale, mean, var, dy = ops
    f, eps = ins.attrs["feature_index"], ins.attrs["epsilon"]
    n = x.ndim
    axes = _reduce_axes(n, f)
    count = x.size // max(x.shape[f], 1) if x.size else 1
    centered = np.asarray(x, dtype=np.float64) - _feature_view(mean, n, f)
    inv = 1.0 / np.sqrt(np.asarray(var, dtype=np.float64) + eps)
    dyf = np.asarray(dy, dtype=np.float64)
    grad_offset = dyf.sum(axis=axes)
    sum_dy_c = (dyf * centered).sum(axis=axes)
    grad_scale = sum_dy_c * inv
    grad_x = _feature_view(np.asarray(scale, dtype=np.float64) * inv, n, f) * (
        dyf - _feature_view(grad_offset / count, n, f)
        - centered * _feature_view(sum_dy_c / count * inv**2, n, f)
    )  # fmt: skip
    return grad_x.astype(x.dtype), grad_scale.astype(x.dtype), grad_offset.astype(x.dtype)
