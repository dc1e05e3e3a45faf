"""spmd-partitioner: the per-device program run on every device gives what the annotated
module gives on one device (the independent reference: sharding never changes values),
and inserts the collectives XLA's partitioner inserts for the common patterns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.diagnostics import HloError
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.opcodes import Opcode as O
from hlotool.passes.pipeline import check_change_report, verify_after_each
from hlotool.passes.pipelines import PIPELINES
from hlotool.passes.registry import parse_pass_list
from hlotool.spmd.run import run_sharded
from hlotool.verifier import verify

SHARDED = Path(__file__).parents[1] / "data" / "sharded"
ADD = "add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }\n"
MAX = "max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }\n"


def _partition(text: str) -> object:
    module = parse_hlo(text)
    (p,) = parse_pass_list("spmd-partitioner")
    assert p.run(module)
    verify(module)
    return module


def _check(text: str, devices: int) -> object:
    """Partition, run on every device, compare with the one-device run of the original."""
    original = parse_hlo(text)
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(p.shape.dimensions).astype(np.float32)
            for p in original.entry.parameters]
    want = values_io.output_arrays(Evaluator(original).run(args))
    module = _partition(text)
    assert module.config.num_partitions == devices
    got = run_sharded(module, {f"arg{i}": a for i, a in enumerate(args)})
    assert not got.notes
    for i, key in enumerate(sorted(want, key=lambda k: int(k[3:]))):
        np.testing.assert_allclose(got.outputs[i], want[key], rtol=1e-5, atol=1e-5)
    return module


def _opcodes(module: object) -> list[O]:
    return [i.opcode for i in module.entry.instructions]


def test_mismatched_elementwise_operands_are_resharded() -> None:
    module = _check(f"""HloModule m
ENTRY e {{
  x = f32[8,12] parameter(0), sharding={{devices=[4,1]<=[4]}}
  y = f32[8,12] parameter(1), sharding={{devices=[1,4]<=[4]}}
  ROOT s = f32[8,12] add(x, y)
}}""", 4)
    ops = _opcodes(module)
    assert O.ALL_GATHER in ops and O.DYNAMIC_SLICE in ops and O.PARTITION_ID in ops


def test_reduce_over_a_sharded_dim_all_reduces() -> None:
    for reducer, name, init in ((ADD, "add", "0"), (MAX, "max", "-inf")):
        module = _check(f"""HloModule m
{reducer}ENTRY e {{
  x = f32[8,16] parameter(0), sharding={{devices=[2,2]<=[4]}}
  z = f32[] constant({init})
  ROOT r = f32[8] reduce(x, z), dimensions={{1}}, to_apply={name}
}}""", 4)
        (ar,) = [i for i in module.entry.instructions if i.opcode is O.ALL_REDUCE]
        assert ar.attrs["replica_groups"].groups == ((0, 1), (2, 3))


def test_a_non_identity_init_reduces_whole_values() -> None:
    """init 1 under add would be counted once per device: the operand is gathered."""
    module = _check(f"""HloModule m
{ADD}ENTRY e {{
  x = f32[16] parameter(0), sharding={{devices=[4]<=[4]}}
  one = f32[] constant(1)
  ROOT r = f32[] reduce(x, one), dimensions={{0}}, to_apply=add
}}""", 4)
    assert O.ALL_REDUCE not in _opcodes(module) and O.ALL_GATHER in _opcodes(module)


def test_broadcast_transpose_and_batch_dot_stay_local() -> None:
    module = _check("""HloModule m
ENTRY e {
  x = f32[4,8,6] parameter(0), sharding={devices=[4,1,1]<=[4]}
  y = f32[4,6,5] parameter(1), sharding={devices=[4,1,1]<=[4]}
  d = f32[4,8,5] dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  t = f32[8,4,5] transpose(d), dimensions={1,0,2}
  b = f32[2,8,4,5] broadcast(t), dimensions={1,2,3}
  ROOT n = f32[2,8,4,5] negate(b)
}""", 4)
    assert not {O.ALL_GATHER, O.ALL_REDUCE} & set(_opcodes(module))
    assert module.entry.root.sharding.text == "devices=[1,1,4,1]0,1,2,3"


def test_transposed_tile_assignment_and_tuple_root() -> None:
    _check("""HloModule m
ENTRY e {
  x = f32[8,8] parameter(0), sharding={devices=[2,2]<=[2,2]T(1,0)}
  w = f32[8,4] parameter(1), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  d = f32[8,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[8,8] exponential(x)
  ROOT t = (f32[8,4], f32[8,8]) tuple(d, e)
}""", 4)


def test_uneven_parameter_shardings_are_refused() -> None:
    with pytest.raises(HloError, match="does not split it evenly"):
        _partition("""HloModule m
ENTRY e {
  ROOT x = f32[6] parameter(0), sharding={devices=[4]<=[4]}
}""")


@pytest.mark.parametrize("case", sorted(p.name for p in SHARDED.iterdir() if p.is_dir()))
def test_jax_modules_partition_to_jax_outputs(case: str) -> None:
    """JAX's pre-optimization modules (sharded jit parameters, or shard_map regions with
    their Shardy in/out shardings), partitioned by hlotool and run on every device, give
    JAX's global outputs; the spmd pipeline verifies after every pass."""
    folder = SHARDED / case
    module = parse_hlo((folder / "module.hlo").read_text())
    PIPELINES["spmd"].run(module, [verify_after_each, check_change_report])
    got = run_sharded(module, values_io.load_npz(folder / "inputs.npz"))
    want = values_io.load_npz(folder / "expected_global.npz")
    for i, out in enumerate(got.outputs):
        np.testing.assert_allclose(out, want[f"out{i}"], rtol=1e-5, atol=1e-5)


def test_shardy_meshes_and_axis_lists() -> None:
    from hlotool.spmd.shardy import parse_meshes, parse_sharding_per_value

    meshes = parse_meshes('{mesh = #sdy.mesh<["data"=2, "model"=4]>, '
                          'flip = #sdy.mesh<["x"=2], device_ids=[1,0]>}')
    assert meshes["mesh"].size == 8 and meshes["flip"].device_ids == (1, 0)
    model, both = parse_sharding_per_value(
        '#sdy.sharding_per_value<[<@mesh, [{"model"}, {}]>, <@mesh, [{"data", "model"}]>]>',
        meshes, [2, 1])
    assert model.tiles == (4, 1) and model.coords[5] == (1, 0)
    assert both.tiles == (8,) and [c[0] for c in both.coords] == list(range(8))
    (flipped,) = parse_sharding_per_value('#sdy.sharding<@flip, [{"x"}]>', meshes, [1])
    assert flipped.coords == ((1,), (0,))
