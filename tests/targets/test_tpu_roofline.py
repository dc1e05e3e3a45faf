"""No estimate beats the roofline: cycles / clock >= max(flops / peak, bytes / bandwidth),
for every kernel and every program, on every chip (a hypothesis property)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlotool.targets.tpu import CHIPS, get_chip
from hlotool.targets.tpu.compiler import compile_program
from tests.conftest import CASES
from tests.targets.tpu_support import dot_module, prepared_case, static_report

CHIP_NAMES = sorted(CHIPS)


def assert_above_roofline(report: dict) -> None:
    roof = report["roofline"]
    assert report["seconds"] >= roof["bound_seconds"] * (1 - 1e-9), roof
    chip = report["chip"]
    clock = chip["clock_hz"]
    bw = chip["hbm_bandwidth"]
    for row in report["instructions"]:
        floor = row["flops"] / chip["peak_flops"]
        assert row["cycles"] / clock >= floor * (1 - 1e-9), row["name"]
        if bw:
            assert row["cycles"] / clock >= row["roofline_bytes"] / bw * (1 - 1e-9)


dims = st.integers(min_value=1, max_value=3000)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=dims, n=dims, k=dims, batch=st.integers(0, 3), chip=st.sampled_from(CHIP_NAMES),
       dtype=st.sampled_from(["f32", "bf16", "s8"]),
       precision=st.sampled_from([None, "high", "highest"]))
def test_no_gemm_beats_the_roofline(m: int, n: int, k: int, batch: int, chip: str, dtype: str,
                                    precision: str | None) -> None:
    out = "s32" if dtype == "s8" else "f32"
    text = dot_module(m, k, n, dtype=dtype, out=out, precision=precision, batch=batch)
    assert_above_roofline(static_report(text, chip))


ELEMENTWISE = """HloModule ew

add {{
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}}

ENTRY e {{
  a = f32[{r},{c}]{{1,0}} parameter(0)
  b = f32[{r},{c}]{{1,0}} parameter(1)
  m = f32[{r},{c}]{{1,0}} multiply(a, b)
  x = f32[{r},{c}]{{1,0}} exponential(m)
  z = f32[] constant(0)
  ROOT s = f32[{out}]{{0}} reduce(x, z), dimensions={{{dim}}}, to_apply=add
}}
"""


@settings(max_examples=40, deadline=None)
@given(r=st.integers(1, 5000), c=st.integers(1, 5000), dim=st.integers(0, 1),
       chip=st.sampled_from(CHIP_NAMES))
def test_no_vector_kernel_beats_the_roofline(r: int, c: int, dim: int, chip: str) -> None:
    text = ELEMENTWISE.format(r=r, c=c, dim=dim, out=c if dim == 0 else r)
    assert_above_roofline(static_report(text, chip))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_kernels_respect_the_roofline(case: Path) -> None:
    for chip in CHIP_NAMES:
        c = get_chip(chip)
        for k in compile_program(prepared_case(case / "module.hlo"), c).kernels:
            seconds = k.cycles / c.clock_hz
            assert seconds >= k.flops / c.peak_flops * (1 - 1e-9), (case.name, k.name)
            if not math.isinf(c.hbm_bandwidth):
                assert seconds >= k.roofline_bytes / c.hbm_bandwidth * (1 - 1e-9), \
                    (case.name, k.name)

