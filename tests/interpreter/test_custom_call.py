"""custom-call targets: JAX's LAPACK FFI calls (golden values recorded by calling the same
targets on XLA:CPU with jax 0.10.2), TopK, identity markers, shape_assertion, and the
refusal of unknown targets."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator, Unsupported
from hlotool.interpreter.kernels.custom_call import ShapeAssertionError


def run(text: str, *args: np.ndarray) -> object:
    return Evaluator(parse_hlo(text)).run(list(args))


def call(target: str, operands: list[str], result: str, config: str = "",
         extra: str = "") -> str:
    """A module whose root custom-calls `target` on parameters of the given shapes."""
    params = "\n".join(f"  p{i} = {shape} parameter({i})" for i, shape in enumerate(operands))
    args = ", ".join(f"p{i}" for i in range(len(operands)))
    return f"""HloModule m
ENTRY e {{
{params}
  ROOT c = {result} custom-call({args}), custom_call_target="{target}", api_version=API_VERSION_TYPED_FFI, backend_config={{{config}}}{extra}
}}"""  # noqa: E501


def test_potrf_as_jax_emits_it() -> None:
    text = call("lapack_spotrf_ffi", ["f32[2,2,2]"], "(f32[2,2,2]{1,2,0}, s32[2]{0})",
                "uplo = 76 : ui8",
                ", operand_layout_constraints={f32[2,2,2]{1,2,0}}, "
                "output_to_operand_aliasing={{0}: (0, {})}")  # fmt: skip
    a = np.array([[[4, 99], [2, 5]], [[1, 0], [2, 1]]], np.float32)
    factor, info = run(text, a)
    np.testing.assert_array_equal(factor[0], [[2, 99], [1, 2]])  # upper triangle untouched
    np.testing.assert_array_equal(info, [0, 2])


def test_potrf_upper() -> None:
    text = call("lapack_dpotrf_ffi", ["f64[2,2]"], "(f64[2,2], s32[])", "uplo = 85 : ui8")
    factor, info = run(text, np.array([[4, 2], [-7, 5]], np.float64))
    np.testing.assert_array_equal(factor, [[2, 1], [-7, 2]])
    assert info == 0


@pytest.mark.parametrize(("side", "trans", "b", "expected"), [
    ("L", "N", [[2], [9]], [[1], [2]]),
    ("L", "T", [[4], [8]], [[1], [2]]),
    ("R", "N", [[4, 8]], [[1, 2]]),
])
def test_trsm(side: str, trans: str, b: list[list[float]], expected: list[list[float]]) -> None:
    config = (f"diag = 78 : ui8, side = {ord(side)} : ui8, trans_x = {ord(trans)} : ui8, "
              "uplo = 76 : ui8")
    b_arr = np.array(b, np.float32)
    shape = f"f32[{b_arr.shape[0]},{b_arr.shape[1]}]"
    text = call("lapack_strsm_ffi", ["f32[2,2]", shape], shape, config)
    a = np.array([[2, 7], [1, 4]], np.float32)
    np.testing.assert_allclose(run(text, a, b_arr), expected)


@pytest.mark.parametrize(("side", "b_shape"), [("L", "f32[3,2]"), ("R", "f32[2,3]")])
def test_trsm_refuses_a_matrix_that_does_not_match_its_side(side: str, b_shape: str) -> None:
    """A fuzzed backend_config lost `side`: a clean error naming the call, not an index
    error from the solve."""
    config = f"diag = 78 : ui8, side = {ord(side)} : ui8, trans_x = 78 : ui8, uplo = 76 : ui8"
    text = call("lapack_strsm_ffi", ["f32[2,2]", b_shape], b_shape, config)
    rows, cols = (3, 2) if side == "L" else (2, 3)
    with pytest.raises(Unsupported, match="must be square and match the right-hand side"):
        run(text, np.eye(2, dtype=np.float32), np.ones((rows, cols), np.float32))


def test_getrf() -> None:
    text = call("lapack_dgetrf_ffi", ["f64[3,3]"], "(f64[3,3], s32[3], s32[])")
    lu, pivots, info = run(text, np.array([[1, 2, 3], [4, 5, 6], [7, 8, 10]], np.float64))
    np.testing.assert_allclose(lu, [[7, 8, 10], [1 / 7, 6 / 7, 11 / 7], [4 / 7, 0.5, -0.5]])
    np.testing.assert_array_equal(pivots, [3, 3, 3])
    assert info == 0


def test_geqrf_and_orgqr() -> None:
    a = np.array([[1, 2], [3, 4], [5, 6]], np.float64)
    r, tau = run(call("lapack_dgeqrf_ffi", ["f64[3,2]"], "(f64[3,2], f64[2])"), a)
    np.testing.assert_allclose(r, [[-5.916079783099616, -7.437357441610946],
                                   [0.4337717455676132, 0.8280786712108248],
                                   [0.7229529092793553, 0.8926238280228976]])
    np.testing.assert_allclose(tau, [1.1690308509457032, 1.1131040011646904])
    q = run(call("lapack_dorgqr_ffi", ["f64[3,2]", "f64[2]"], "f64[3,2]"), r, tau)
    np.testing.assert_allclose(q, [[-0.16903085094570325, 0.8970852271450607],
                                   [-0.50709255283711, 0.27602622373694136],
                                   [-0.8451542547285166, -0.345032779671177]])
    np.testing.assert_allclose(q @ np.triu(r[:2]), a)


def test_syevd() -> None:
    text = call("lapack_dsyevd_ffi", ["f64[2,2]"], "(f64[2,2], f64[2], s32[])",
                "mode = 86 : ui8, uplo = 76 : ui8")
    vectors, values, info = run(text, np.array([[2, 1], [1, 2]], np.float64))
    np.testing.assert_allclose(values, [1, 3])
    np.testing.assert_allclose(np.abs(vectors), np.full((2, 2), 0.5**0.5))
    assert info == 0


def test_gesdd_full() -> None:
    text = call("lapack_dgesdd_ffi", ["f64[3,2]"], "(f64[3,2], f64[2], f64[3,3], f64[2,2], s32[])",
                "mode = 65 : ui8")
    a = np.array([[3, 0], [0, -2], [0, 0]], np.float64)
    _, s, u, vt, info = run(text, a)
    np.testing.assert_allclose(s, [3, 2])
    np.testing.assert_allclose(u[:, :2] * s @ vt, a, atol=1e-12)
    np.testing.assert_allclose(u @ u.T, np.eye(3), atol=1e-12)
    assert info == 0


def geev(config: str) -> str:
    return call("lapack_dgeev_ffi", ["f64[2,2]"],
                "(f64[2], f64[2], c128[2,2], c128[2,2], s32[])", config)


def test_geev_real_and_complex_pairs() -> None:
    wr, wi, _, vr, _ = run(geev("compute_left = 78 : ui8, compute_right = 86 : ui8"),
                           np.array([[0, 1], [-2, -3]], np.float64))
    np.testing.assert_allclose(wr, [-1, -2])
    np.testing.assert_allclose(wi, [0, 0])
    np.testing.assert_allclose(np.abs(vr), [[0.5**0.5, 0.2**0.5], [0.5**0.5, 0.8**0.5]])
    wr, wi, *_ = run(geev("compute_left = 78 : ui8, compute_right = 78 : ui8"),
                     np.array([[0, -1], [1, 0]], np.float64))
    np.testing.assert_allclose(wr, [0, 0], atol=1e-15)
    np.testing.assert_allclose(wi, [1, -1])


def test_geev_left_vectors() -> None:
    a = np.array([[1, 2, 0], [0, 3, 1], [1, 0, 2]], np.float64)
    wr, wi, vl, _, _ = run(geev("compute_left = 86 : ui8, compute_right = 78 : ui8").replace(
        "2,2", "3,3").replace("f64[2]", "f64[3]"), a)
    w = wr + 1j * wi
    np.testing.assert_allclose(np.conj(vl).T @ a, w[:, None] * np.conj(vl).T, atol=1e-12)


def test_gehrd() -> None:
    a = np.array([[1, 2, 3, 4], [2, 0, 1, 5], [7, 1, 3, 2], [1, 1, 2, 9]], np.float64)
    text = call("lapack_dgehrd_ffi", ["f64[4,4]"], "(f64[4,4], f64[3], s32[])",
                "high = 4 : i32, low = 1 : i32")
    h, tau, info = run(text, a)
    np.testing.assert_allclose(h[:, 0], [1, -7.348469228349535, 0.7487856919689346,
                                         0.10696938456699066])
    np.testing.assert_allclose(np.diagonal(h), [1, 4.148148148148147, 8.732170576951452,
                                                -0.8803187250996012])
    np.testing.assert_allclose(tau, [1.2721655269759087, 1.315883812315504, 0], atol=1e-15)


def test_sytrd_lower() -> None:
    a = np.array([[1, 2, 3, 4], [2, 0, 1, 5], [7, 1, 3, 2], [1, 1, 2, 9]], np.float64)
    a = a + a.T
    text = call("lapack_dsytrd_ffi", ["f64[4,4]"], "(f64[4,4], f64[4], f64[3], f64[3], s32[])",
                "uplo = 76 : ui8")
    packed, d, e, tau, _ = run(text, a)
    np.testing.assert_allclose(d, [2, 13.120567375886528, 12.294400483191268, -1.4149678590778008])
    np.testing.assert_allclose(e, [-11.874342087037917, -8.288653422879344, -2.1555444001790263])
    np.testing.assert_allclose(tau, [1.3368607684266076, 1.4230948880947132, 0], atol=1e-15)
    np.testing.assert_array_equal(np.triu(packed, 1), np.triu(a, 1))  # upper part untouched


def test_gees_real_schur_form() -> None:
    text = call("lapack_dgees_ffi", ["f64[3,3]"],
                "(f64[3,3], f64[3,3], f64[3], f64[3], s32[], s32[])",
                "mode = 86 : ui8, sort = 78 : ui8")
    a = np.array([[0, -1, 2], [1, 0, 1], [0, 0, 3]], np.float64)
    t, q, wr, wi, _, info = run(text, a)
    np.testing.assert_allclose(q @ t @ q.T, a, atol=1e-12)
    assert t[2, 0] == t[2, 1] == 0
    np.testing.assert_allclose(sorted(wr), [0, 0, 3], atol=1e-12)
    np.testing.assert_allclose(sorted(wi), [-1, 0, 1], atol=1e-12)
    assert info == 0


TOPK_COMPARATOR = """HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  zero = s32[] constant(0)
  max = s32[] constant(2147483647)
  ba = s32[] bitcast(a)
  bb = s32[] bitcast(b)
  xa = s32[] xor(max, ba)
  na = pred[] compare(ba, zero), direction=LT
  xb = s32[] xor(max, bb)
  nb = pred[] compare(bb, zero), direction=LT
  ka = s32[] select(na, xa, ba)
  kb = s32[] select(nb, xb, bb)
  ROOT gt = pred[] compare(ka, kb), direction=GT
}
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT t = (f32[2,3], s32[2,3]) custom-call(x), custom_call_target="TopK", called_computations={cmp}
}"""


def test_topk_custom_call_uses_its_comparator() -> None:
    x = np.array([[1, 5, -0.0, 5, 0.0, np.nan], [3, 2, 1, 0, -1, -2]], np.float32)
    values, indices = run(TOPK_COMPARATOR, x)
    np.testing.assert_array_equal(values, [[np.nan, 5, 5], [3, 2, 1]])
    np.testing.assert_array_equal(indices, [[5, 1, 3], [0, 1, 2]])


@pytest.mark.parametrize("target", ["Sharding", "SPMDFullToShardShape",
                                    "xla.sdy.GlobalToLocalShape", "SetBound"])
def test_identity_targets(target: str) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run(call(target, ["f32[2,3]"], "f32[2,3]"), x), x)


def test_shape_assertion() -> None:
    text = call("shape_assertion", ["pred[]", "s32[]"], "()",
                'error_message = "expected b >= 1, got {0}"')
    assert run(text, np.array(True), np.array(3, np.int32)) == ()
    with pytest.raises(ShapeAssertionError, match="expected b >= 1, got 0"):
        run(text, np.array(False), np.array(0, np.int32))


def test_unknown_target_is_unsupported() -> None:
    with pytest.raises(Unsupported, match="custom-call target 'my_kernel' is not supported"):
        run(call("my_kernel", ["f32[2]"], "f32[2]"), np.zeros(2, np.float32))
