"""Cost analysis: XLA's counting conventions on small modules, agreement with XLA's
own cost analysis for a dot, and every corpus module analyzed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.analysis.cost import Cost, analyze, instruction_cost, trip_count
from hlotool.frontend import parse_hlo
from tests.conftest import CASE_IDS, CASES

DOT = """
HloModule m
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  w = f32[8,16]{1,0} parameter(1)
  ROOT d = f32[4,16]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def test_dot_counts_two_flops_per_multiply_add() -> None:
    module = parse_hlo(DOT)
    cost = instruction_cost(module.entry.instruction("d"))
    assert cost == Cost(flops=2 * 4 * 16 * 8, bytes_accessed=(32 + 128 + 64) * 4)


def test_elementwise_reduce_and_fusion() -> None:
    module = parse_hlo("""
HloModule m
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {
  p = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(p)
  zero = f32[] constant(0)
  ROOT r = f32[4]{0} reduce(e, zero), dimensions={1}, to_apply=add_f32
}
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  n = f32[4,8]{1,0} negate(x)
  ROOT f = f32[4]{0} fusion(n), kind=kInput, calls=fused
}""")
    entry = module.entry
    assert instruction_cost(entry.instruction("n")) == Cost(flops=32, bytes_accessed=256)
    fused = instruction_cost(entry.instruction("f"))
    assert fused == Cost(flops=32 - 4, transcendentals=32, bytes_accessed=128 + 16)
    analysis = analyze(module)
    assert [r.name for r in analysis.rows] == ["n", "f"]
    assert analysis.total == Cost(flops=60, transcendentals=32, bytes_accessed=400)


def test_known_trip_count_scales_a_loop() -> None:
    text = (Path(__file__).parents[1] / "data/corpus/fori_loop/module.opt.hlo").read_text()
    module = parse_hlo(text)
    loop = next(i for c in module.computations for i in c.instructions if i.opcode.value == "while")
    assert trip_count(loop) == 10
    body = sum((instruction_cost(i) for i in loop.attrs["body"].instructions), Cost())
    cond = sum((instruction_cost(i) for i in loop.attrs["condition"].instructions), Cost())
    assert instruction_cost(loop) == (body + cond).scaled(10)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_every_corpus_module(case: Path) -> None:
    for name in ("module.hlo", "module.opt.hlo"):
        analysis = analyze(parse_hlo((case / name).read_text()))
        total = analysis.total
        assert min(total.flops, total.transcendentals, total.bytes_accessed) >= 0
        assert analysis.as_json()["total"] == total.as_json()


def test_dot_flops_match_xla() -> None:
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    x, w = jnp.ones((64, 32), jnp.float32), jnp.ones((32, 16), jnp.float32)
    lowered = jax.jit(jnp.dot).lower(x, w)
    xla = lowered.compile().cost_analysis()
    xla = xla[0] if isinstance(xla, list) else xla
    ours = analyze(parse_hlo(lowered.compiler_ir("hlo").as_hlo_text())).total
    assert ours.flops == xla["flops"] == 2 * 64 * 32 * 16


def test_bytes_each_device_sends_per_collective() -> None:
    """Ring algorithms over the group of 4: all-reduce 2(g-1)/g of its operand, all-gather
    (g-1)/g of its result, reduce-scatter and all-to-all (g-1)/g of their operands,
    collective-permute its operand."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "data" / "sharded" / "shard_map_collectives"
            / "module.opt.hlo").read_text()
    rows = {r.opcode: r.cost.bytes_sent for r in analyze(parse_hlo(text)).rows
            if r.cost.bytes_sent}
    operand = 4 * 8 * 4  # f32[4,8] per device
    assert rows == {"all-reduce": 2 * 3 / 4 * operand, "reduce-scatter": 3 / 4 * operand,
                    "collective-permute": operand, "all-gather": 3 / 4 * 4 * operand,
                    "all-to-all": 3 / 4 * operand}
