"""print_stablehlo: the printed form of each op family (golden files), printing as a fixed
point of parse-then-print on the whole corpus, HLO -> StableHLO -> HLO round trips that run
to the expected results in the interpreter and, when jax is installed, on real XLA."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from hlotool import values_io
from hlotool.diagnostics import HloError
from hlotool.frontend import parse_hlo
from hlotool.stablehlo import parse_stablehlo
from hlotool.interpreter.core import Evaluator, flatten
from hlotool.ir.literal import Literal
from hlotool.ir.module import Module
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.stablehlo.printer import print_stablehlo, symbol_base
from hlotool.stablehlo.printer.text import dense_text, float_text
from tests.conftest import CASES, tolerance

P = PrimitiveType
DATA = Path(__file__).parent / "data" / "printer"
GOLDEN = sorted(DATA.glob("*.hlo"))
#: Golden modules XLA:CPU does not compile (custom-call targets that exist only in the
#: test, ragged-dot); MLIR still parses and verifies them.
NOT_FOR_XLA = {"custom_calls", "ragged_dot_sharding"}
#: Golden modules no single-device executor can run: custom-call targets that exist only
#: in the test, a module for 4 replicas, and infeed/outfeed (they need a host queue).
NOT_RUNNABLE = {"custom_calls", "collectives", "infeed_outfeed"}
SOURCES = ("module.hlo", "module.opt.hlo", "module.stablehlo.mlir")


def _parse(path: Path) -> Module:
    text = path.read_text()
    return parse_stablehlo(text) if path.suffix == ".mlir" else parse_hlo(text)


def _assert_fixed_point(text: str) -> None:
    again = print_stablehlo(parse_stablehlo(text))
    if again != text:
        diff = difflib.unified_diff(text.splitlines(), again.splitlines(), lineterm="", n=1)
        pytest.fail("printing is not a fixed point:\n" + "\n".join(list(diff)[:40]))


def _run(module: Module, args: list[Any]) -> dict[str, np.ndarray]:
    """Outputs for arguments given as flat leaves (the printed entry takes leaves)."""
    leaves = iter(args)

    def take(shape: Shape) -> Any:
        if shape.is_tuple:
            return tuple(take(s) for s in shape.tuple_shapes)
        return next(leaves)

    structured = [take(p.shape) for p in module.entry.parameters]
    with np.errstate(all="ignore"):
        return values_io.output_arrays(Evaluator(module).run(structured))


# -- golden files: one module per op family -------------------------------------------------


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_printed_form(path: Path) -> None:
    text = print_stablehlo(parse_hlo(path.read_text()))
    assert text == path.with_suffix(".mlir").read_text()
    _assert_fixed_point(text)


@pytest.mark.parametrize("path", [p for p in GOLDEN if p.stem not in NOT_RUNNABLE],
                         ids=lambda p: p.stem)
def test_golden_round_trip_computes_the_same(path: Path) -> None:
    module = parse_hlo(path.read_text())
    args = [leaf for a in values_io.random_arguments(module, seed=7) for leaf in flatten(a)]
    want = _run(module, args)
    got = _run(parse_stablehlo(print_stablehlo(module)), args)
    bad = [d for d in values_io.compare_outputs(got, want, 0.0, 0.0) if not d.ok]
    assert not bad, [f"{d.key}: {d.reason}" for d in bad]


_UNARY = {
    "f32": "abs cbrt ceil cosine exponential exponential-minus-one floor log log-plus-one "
           "logistic negate round-nearest-afz round-nearest-even rsqrt sign sine sqrt tan tanh",
    "s32": "count-leading-zeros popcnt not",
}  # fmt: skip
_BINARY = {
    "f32": "add atan2 divide maximum minimum multiply power remainder subtract",
    "s32": "and or xor shift-left shift-right-arithmetic shift-right-logical",
}  # fmt: skip
_ELEMENTWISE = [
    *((op, t, t, 1) for t, ops in _UNARY.items() for op in ops.split()),
    *((op, t, t, 2) for t, ops in _BINARY.items() for op in ops.split()),
    ("is-finite", "f32", "pred", 1), ("real", "c64", "f32", 1), ("imag", "c64", "f32", 1),
]  # fmt: skip
_MLIR_TYPES = {"f32": "tensor<4xf32>", "s32": "tensor<4xi32>", "c64": "tensor<4xcomplex<f32>>"}


@pytest.mark.parametrize(("op", "operand", "result", "arity"), _ELEMENTWISE,
                         ids=[e[0] for e in _ELEMENTWISE])  # fmt: skip
def test_elementwise_ops_use_their_pretty_form(
    op: str, operand: str, result: str, arity: int
) -> None:
    params = "".join(f"  p{i} = {operand}[4] parameter({i})\n" for i in range(arity))
    args = ", ".join(f"p{i}" for i in range(arity))
    root = f"  ROOT r = {result}[4] {op}({args})\n"
    text = print_stablehlo(parse_hlo(f"HloModule m\nENTRY e {{\n{params}{root}}}\n"))
    operand_type = _MLIR_TYPES[operand]
    signature = operand_type if operand == result else f"({operand_type}"
    assert f" = stablehlo.{op.replace('-', '_')} %arg0" in text
    assert f" : {signature}" in text
    _assert_fixed_point(text)


# -- the corpus -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", [c / n for c in CASES for n in SOURCES], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_corpus_printing_is_a_fixed_point(path: Path) -> None:
    _assert_fixed_point(print_stablehlo(_parse(path)))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_corpus_round_trip_runs_to_the_expected_results(case: Path) -> None:
    module = parse_stablehlo(print_stablehlo(parse_hlo((case / "module.hlo").read_text())))
    args = values_io.entry_arguments(module, values_io.load_npz(case / "inputs.npz"))
    with np.errstate(all="ignore"):
        got = values_io.output_arrays(Evaluator(module).run(args))
    rtol, atol = tolerance(case)
    want = values_io.load_npz(case / "expected.npz")
    bad = [d for d in values_io.compare_outputs(got, want, rtol, atol) if not d.ok]
    assert not bad, [f"{d.key}: {d.reason}" for d in bad]


@pytest.fixture(scope="module")
def xla() -> Any:
    """jax with 64-bit types and LAPACK kernels ready (linalg custom calls need them)."""
    jax = pytest.importorskip("jax")
    from jax._src.lax import linalg

    linalg.initialize_lapack()
    return jax


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_xla_runs_the_printed_corpus_module(case: Path, xla: Any) -> None:
    from hlotool.reference import compile_xla

    module = parse_hlo((case / "module.hlo").read_text())
    exe = compile_xla(print_stablehlo(module), is_stablehlo=True)
    inputs = values_io.load_npz(case / "inputs.npz")
    args = values_io.entry_arguments(module, inputs)
    with xla.enable_x64(True):
        buffers = [xla.device_put(np.asarray(a)) for arg in args for a in flatten(arg)]
        outs = exe.execute(buffers)
    got = {f"out{i}": np.asarray(o) for i, o in enumerate(outs)}
    rtol, atol = tolerance(case)
    want = values_io.load_npz(case / "expected.npz")
    bad = [d for d in values_io.compare_outputs(got, want, rtol, atol) if not d.ok]
    assert not bad, [f"{d.key}: {d.reason}" for d in bad]


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_xla_accepts_the_golden_modules(path: Path, xla: Any) -> None:
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    from hlotool.reference import compile_xla

    text = path.with_suffix(".mlir").read_text()
    with mlir.make_ir_context():
        assert ir.Module.parse(text).operation.verify()
    if path.stem not in NOT_FOR_XLA:
        compile_xla(text, is_stablehlo=True)


# -- constants keep their bits --------------------------------------------------------------


def _constant_round_trip(lit: Literal) -> Literal:
    body = f"ROOT c = {lit.shape} constant({lit.to_text()})"
    module = parse_hlo(f"HloModule c\nENTRY e {{\n  {body}\n}}\n")
    text = print_stablehlo(module)
    _assert_fixed_point(text)
    root = parse_stablehlo(text).entry.root
    assert root is not None and root.literal is not None
    return root.literal


_BIT_TYPES = [P.F32, P.F64, P.F16, P.BF16, P.F8E4M3FN, P.F8E5M2, P.F8E4M3FNUZ, P.F8E8M0FNU]


@pytest.mark.parametrize("t", _BIT_TYPES, ids=lambda t: t.value)
@pytest.mark.parametrize("count", [7, 150], ids=["list", "hex"])
def test_float_constants_keep_every_bit(t: PrimitiveType, count: int) -> None:
    dtype = t.numpy_dtype
    rng = np.random.default_rng(count)
    bits = rng.integers(0, 1 << (8 * dtype.itemsize), count, dtype=np.uint64)
    specials = np.array([0, 1 << (8 * dtype.itemsize - 1)], np.uint64)
    bits[: len(specials)] = specials
    arr = bits.astype(f"u{dtype.itemsize}").view(dtype)
    lit = Literal.from_array(arr, t)
    assert _constant_round_trip(lit).bit_equal(lit)


@pytest.mark.parametrize(
    "array",
    [
        np.array([np.nan, -0.0, np.inf, 1e-45], np.float32),
        np.array([complex(1, np.nan), complex(-0.0, 2)], np.complex64),
        np.array([-8, 7, 0], ml_dtypes.int4),
        np.arange(200, dtype=np.uint64) * np.uint64(2**56),
        np.arange(130) % 3 == 0,
        np.full((3, 4), 0.1, np.float32),
    ],
    ids=["specials", "complex", "s4", "u64-hex", "pred-hex", "splat"],
)
def test_constants_round_trip(array: np.ndarray) -> None:
    lit = Literal.from_array(array)
    assert _constant_round_trip(lit).bit_equal(lit)


def test_nan_payload_and_negative_zero_are_printed_as_bit_patterns() -> None:
    nan = np.array([0x7FC00001, 0x80000000], np.uint32).view(np.float32)
    assert dense_text(Literal.from_array(nan)) == (
        "dense<[0x7FC00001, -0.000000e+00]> : tensor<2xf32>"
    )


@pytest.mark.parametrize(
    ("value", "t", "text"),
    [
        (1.0, P.F32, "1.000000e+00"),
        (-4.32431e-3, P.F32, "-4.324310e-03"),
        (0.797884583, P.F32, "0.797884583"),
        (-1.30002498e-8, P.F32, "-1.30002498E-8"),
        (3.4028235e38, P.F32, "3.40282347E+38"),
        (16777216.0, P.F32, "0x4B800000"),
        (np.pi, P.F64, "3.1415926535897931"),
        (np.inf, P.BF16, "0x7F80"),
        (0.1, P.BF16, "1.000980e-01"),
    ],
)
def test_float_spellings_follow_mlir(value: float, t: PrimitiveType, text: str) -> None:
    assert float_text(value, t) == text


# -- names and errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "symbol"),
    [("argsort.2", "argsort"), ("compare-greater-than.1.clone", "compare_greater_than.1.clone"),
     ("region_0.1", "region_0"), ("1st", "_1st"), ("__x.3", "_x")],  # fmt: skip
)
def test_function_symbols(name: str, symbol: str) -> None:
    assert symbol_base(name) == symbol


def test_computation_names_are_made_unique_like_jax() -> None:
    module = parse_hlo(
        "HloModule m\nf.1 { p = f32[] parameter(0)  ROOT n = f32[] negate(p) }\n"
        "f.2 { p = f32[] parameter(0)  ROOT n = f32[] sine(p) }\n"
        "main.3 { p = f32[] parameter(0)  ROOT n = f32[] cosine(p) }\n"
        "ENTRY e { p = f32[] parameter(0)  a = f32[] call(p), to_apply=f.1\n"
        "  b = f32[] call(a), to_apply=f.2\n  ROOT c = f32[] call(b), to_apply=main.3 }\n"
    )
    text = print_stablehlo(module)
    for symbol in ("@main(", "@f(", "@f_0(", "@main_0("):
        assert "func.func" in text and symbol in text
    _assert_fixed_point(text)


def test_opcodes_without_a_stablehlo_form_are_reported() -> None:
    module = parse_hlo(
        "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  r = u32[4] parameter(1)\n"
        "  ROOT s = s8[4] stochastic-convert(x, r)\n}\n"
    )
    with pytest.raises(HloError, match="stochastic-convert .* has no StableHLO form"):
        print_stablehlo(module)


def test_unused_values_are_not_printed() -> None:
    module = parse_hlo(
        "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  unused = f32[4] exponential(x)\n"
        "  ROOT n = f32[4] negate(x)\n}\n"
    )
    assert "exponential" not in print_stablehlo(module)
