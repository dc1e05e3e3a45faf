"""The TPU compiler: tiled layouts, block choice by the cost model, VMEM limits, megacore."""

from __future__ import annotations

import pytest

from hlotool.ir.types import PrimitiveType
from hlotool.targets.tpu import get_chip
from hlotool.targets.tpu.layout import tiled
from tests.targets.tpu_support import dot_module, program_of

P = PrimitiveType


@pytest.mark.parametrize(("dims", "ty", "text", "padded"), [
    ((8, 10), P.F32, "f32[8,10]{1,0:T(8,128)}", 8 * 128 * 4),
    ((300, 200), P.BF16, "bf16[300,200]{1,0:T(8,128)(2,1)}", 304 * 256 * 2),
    ((33, 129), P.S8, "s8[33,129]{1,0:T(8,128)(4,1)}", 40 * 256),
    ((5, 3, 7), P.F32, "f32[5,3,7]{2,1,0:T(4,128)}", 5 * 4 * 128 * 4),
    ((2, 2, 1000), P.F32, "f32[2,2,1000]{2,1,0:T(2,128)}", 2 * 2 * 1024 * 4),
    ((), P.F32, "f32[]{:SMEM}", 4),
    ((10,), P.F32, "f32[10]{0:T(256)}", 256 * 4),
    ((5000,), P.BF16, "bf16[5000]{0:T(1024)(2,1)}", 5120 * 2),
])
def test_tiled_layouts_pad_to_whole_tiles(dims: tuple[int, ...], ty: PrimitiveType, text: str,
                                          padded: int) -> None:
    t = tiled(dims, ty)
    assert t.text(ty.value) == text
    assert t.padded_bytes == padded
    assert 0 < t.efficiency <= 1


def test_block_choice_is_the_cheapest_that_fits_vmem() -> None:
    _, program = program_of(dot_module(4096, 4096, 4096), "v4")
    (k,) = program.kernels
    assert k.vmem_ok and k.vmem_bytes <= 16 << 20
    fitting = [c for c in k.candidates if c.vmem_bytes <= 16 << 20]
    assert k.cycles == min(c.cycles for c in fitting)
    assert "exceed VMEM" in k.choice and "chosen from" in k.choice
    # The whole problem as one block (~320 MiB double-buffered) is rejected on v4 ...
    assert k.block != {"bm": 4096, "bn": 4096, "bk": 4096}
    # ... and 128-cubed blocks lose to the chosen ones (per-step overhead, re-fetches).
    _, small = program_of(dot_module(4096, 4096, 4096), "v4", vmem_bytes=1 << 19)
    assert small.kernels[0].block == {"bm": 128, "bn": 128, "bk": 128}
    assert small.kernels[0].cycles > k.cycles


def test_large_matmul_is_compute_bound_and_split_over_megacore() -> None:
    _, program = program_of(dot_module(4096, 4096, 4096), "v5p")
    (k,) = program.kernels
    assert k.cores_used == 2
    assert k.candidates[0].bound == "compute"
    chip = get_chip("v5p")
    ideal = 2 * 4096**3 / chip.peak_flops * chip.clock_hz
    assert ideal <= k.cycles < 1.3 * ideal


def test_tiny_grid_uses_one_core() -> None:
    _, program = program_of(dot_module(8, 16, 32), "v4")
    assert program.kernels[0].cores_used == 1


def test_nothing_fits_is_flagged_not_hidden() -> None:
    _, program = program_of(dot_module(512, 512, 512), "v5e", vmem_bytes=1024)
    k = program.kernels[0]
    assert not k.vmem_ok and "nothing fits VMEM" in k.choice
    assert "DOES NOT FIT" in program.text()


def test_vector_kernel_blocks_trade_overhead_against_exposed_dma() -> None:
    text = """HloModule ew

ENTRY e {
  a = f32[8192,1024]{1,0} parameter(0)
  ROOT x = f32[8192,1024]{1,0} exponential(a)
}
"""
    _, program = program_of(text, "v5e")
    k = program.kernels[0]
    n = k.block["blocks"]
    assert 1 < n < 1024  # neither one huge block (all DMA exposed) nor 1024 tiny ones
    by_blocks = {c.block["blocks"]: c.cycles for c in k.candidates}
    assert by_blocks[n] == min(by_blocks.values())


REDUCE = """HloModule t

add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}

ENTRY e {
  a = f32[256,512]{1,0} parameter(0)
  z = f32[] constant(0)
  ROOT s = f32[%d]{0} reduce(a, z), dimensions={%d}, to_apply=add
}
"""


def test_lane_reductions_use_the_xlu_and_sublane_ones_do_not() -> None:
    _, lanes = program_of(REDUCE % (256, 1), "v5e")
    _, rows = program_of(REDUCE % (512, 0), "v5e")
    assert [op.what for op in lanes.kernels[0].ops if op.unit == "xlu"] == ["lane-reduce"]
    assert lanes.kernels[0].xlu_cycles > 0 and rows.kernels[0].xlu_cycles == 0
    # Reducing the leading axis makes the grid axis a reduction ("arbitrary").
    assert rows.kernels[0].semantics == ("arbitrary",)
    assert lanes.kernels[0].semantics == ("parallel",)


def test_minor_axis_transpose_uses_the_xlu() -> None:
    text = """HloModule t

ENTRY e {
  a = f32[256,512]{1,0} parameter(0)
  ROOT t = f32[512,256]{1,0} transpose(a), dimensions={1,0}
}
"""
    _, program = program_of(text, "v5e")
    assert "transpose" in [op.what for k in program.kernels for op in k.ops if op.unit == "xlu"]
