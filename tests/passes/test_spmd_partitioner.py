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


#: JAX cases the parallel rules cover: the op that must run on pieces, its per-device
#: shape, and whether a collective completes it.
PARALLEL = {
    "conv_batch": (O.CONVOLUTION, (2, 6, 6, 4), None),
    "conv_out_feature": (O.CONVOLUTION, (2, 6, 6, 2), None),
    "conv_in_feature": (O.CONVOLUTION, (2, 6, 6, 4), O.ALL_REDUCE),
    "conv_batch_feature": (O.CONVOLUTION, (2, 5, 5, 2), None),
    "conv_spatial": (O.CONVOLUTION, (2, 2, 6, 4), O.COLLECTIVE_PERMUTE),
    "gather_index_parallel": (O.GATHER, (2, 6), None),
    "gather_passthrough": (O.GATHER, (16, 2), None),
    "embedding": (O.GATHER, (12, 8), O.ALL_REDUCE),
    "scatter_passthrough": (O.SCATTER, (10, 2), None),
    "while_data_parallel": (O.DOT, (2, 8), None),
    "scan_sharded": (O.TANH, (2, 4), O.ALL_REDUCE),
    "cond_sharded": (O.CONDITIONAL, (4, 6), None),
    "sharding_constraint": (O.DOT, (4, 12), O.ALL_REDUCE),
    "out_sharding": (O.DOT, (4, 4), None),
    "scatter_index_parallel": (O.SCATTER, (10, 8), O.ALL_REDUCE),
}


def _spmd(case: str) -> object:
    module = parse_hlo((SHARDED / case / "module.hlo").read_text())
    PIPELINES["spmd"].run(module, [verify_after_each])
    return module


@pytest.mark.parametrize("case", sorted(PARALLEL))
def test_parallel_rules_hold_no_whole_values(case: str) -> None:
    """The op runs on each device's piece, nothing is all-gathered, and no value in any
    computation has the global shape of a sharded parameter."""
    original = parse_hlo((SHARDED / case / "module.hlo").read_text())
    whole = {p.shape.dimensions for p in original.entry.parameters
             if p.sharding is not None and "devices" in p.sharding.text}
    module = _spmd(case)
    opcode, shape, collective = PARALLEL[case]
    everything = [i for c in module.computations for i in c.instructions]
    assert [i.shape.dimensions for i in everything if i.opcode is opcode] == [shape]
    assert not [i for i in everything if i.opcode is O.ALL_GATHER]
    assert not [i.name for i in everything if i.shape.is_array and i.shape.dimensions in whole]
    if collective is not None:
        assert any(i.opcode is collective for i in everything)


@pytest.mark.parametrize("case", sorted(PARALLEL))
def test_partitioned_cases_run_on_cpu(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    from hlotool.cli import main

    folder = SHARDED / case
    assert main(["run", str(folder / "module.hlo"), "--pipeline", "spmd", "--target", "cpu",
                 "--inputs", str(folder / "inputs.npz"),
                 "--expect", str(folder / "expected_global.npz"), "--rtol", "1e-5",
                 "--atol", "1e-5"]) == 0, capsys.readouterr()


def test_sharding_constraints_propagate_backward() -> None:
    """with_sharding_constraint on a dot's result: the dot itself computes row blocks
    (its replicated operand cut to rows), as XLA's propagation does."""
    module = _spmd("sharding_constraint")
    everything = [i for c in module.computations for i in c.instructions]
    assert not [i for i in everything if i.opcode is O.CUSTOM_CALL]
    assert not [i for i in everything if i.shape.is_array and i.shape.dimensions == (16, 12)]
    (tanh,) = [i for i in everything if i.opcode is O.TANH]
    assert tanh.shape.dimensions == (4, 12)


def test_backward_propagation_through_elementwise_ops() -> None:
    module = _check("""HloModule m
ENTRY e {
  x = f32[8,6] parameter(0)
  y = f32[8,6] parameter(1)
  s = f32[8,6] add(x, y)
  n = f32[8,6] negate(s)
  ROOT c = f32[8,6] custom-call(n), custom_call_target="Sharding", sharding={devices=[1,2]<=[2]}
}""", 2)
    adds = [i for i in module.entry.instructions if i.opcode in (O.ADD, O.NEGATE)]
    assert [i.shape.dimensions for i in adds] == [(8, 3), (8, 3)]


def test_gather_of_a_split_table_clamps_out_of_range_indices() -> None:
    """Indices past the table clamp to its last row, as on one device."""
    text = f"""HloModule m
{ADD}ENTRY e {{
  t = f32[16,3] parameter(0), sharding={{devices=[4,1]<=[4]}}
  i = s32[5,1] constant({{ {{0}}, {{15}}, {{40}}, {{-3}}, {{6}} }})
  ROOT g = f32[5,3] gather(t, i), offset_dims={{1}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=1, slice_sizes={{1,3}}
}}"""
    module = _check(text, 4)
    (g,) = [i for i in module.entry.instructions if i.opcode is O.GATHER]
    assert g.operand(0).shape.dimensions == (4, 3)


def test_calls_while_and_tuple_conditional_partition_inside() -> None:
    module = _check(f"""HloModule m
{ADD}
twice {{
  a = f32[8,4] parameter(0)
  ROOT m = f32[8,4] add(a, a)
}}
body {{
  s = (s32[], f32[8,4]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  x = f32[8,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  n1 = s32[] add(n, one)
  y = f32[8,4] call(x), to_apply=twice
  ROOT r = (s32[], f32[8,4]) tuple(n1, y)
}}
cond {{
  s = (s32[], f32[8,4]) parameter(0)
  n = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(n, three), direction=LT
}}
yes {{
  p = (f32[8,4], f32[8,4]) parameter(0)
  a = f32[8,4] get-tuple-element(p), index=0
  b = f32[8,4] get-tuple-element(p), index=1
  s = f32[8,4] subtract(a, b)
  ROOT t = (f32[8,4], f32[8,4]) tuple(s, a)
}}
no {{
  p = (f32[8,4], f32[8,4]) parameter(0)
  a = f32[8,4] get-tuple-element(p), index=0
  e = f32[8,4] exponential(a)
  ROOT t = (f32[8,4], f32[8,4]) tuple(e, e)
}}
ENTRY e {{
  x = f32[8,4] parameter(0), sharding={{devices=[4,1]<=[4]}}
  z = s32[] constant(0)
  init = (s32[], f32[8,4]) tuple(z, x)
  w = (s32[], f32[8,4]) while(init), condition=cond, body=body
  v = f32[8,4] get-tuple-element(w), index=1
  k = f32[] constant(0)
  total = f32[] reduce(v, k), dimensions={{0,1}}, to_apply=add
  positive = pred[] compare(total, k), direction=GT
  pair = (f32[8,4], f32[8,4]) tuple(v, x)
  ROOT c = (f32[8,4], f32[8,4]) conditional(positive, pair, pair), true_computation=yes, false_computation=no
}}""", 4)
    everything = [i for c in module.computations for i in c.instructions]
    assert not [i for i in everything if i.opcode in (O.ALL_GATHER, O.CALL)]
    assert not [i for i in everything if i.shape.is_array and i.shape.dimensions == (8, 4)]


def test_reshape_rules() -> None:
    from hlotool.spmd.placement import Placement
    from hlotool.spmd.rules import reshape

    rows = Placement((4, 1), tuple((d, 0) for d in range(4)))
    merged = reshape(rows, (8, 6), (48,))
    assert merged is not None and merged.tiles == (4,)
    assert reshape(rows, (8, 6), (1, 8, 2, 3)).tiles == (1, 4, 1, 1)
    split = reshape(rows, (8, 6), (4, 2, 6))
    assert split is not None and split.tiles == (4, 1, 1)
    cols = Placement((1, 4), tuple((0, d) for d in range(4)))
    assert reshape(cols, (8, 6), (48,)) is None  # a split minor dim cannot merge
    assert reshape(rows, (8, 6), (2, 24)) is None  # 4 tiles do not divide 2


@pytest.mark.parametrize(("kernel", "pad", "stride"), [(3, "1_1", 1), (4, "1_2", 1),
                                                       (2, "0_1", 1), (3, "1_1", 2)])
def test_spatially_split_convolutions_exchange_halos(kernel: int, pad: str,
                                                     stride: int) -> None:
    """Same-size windows take their neighbours' edge rows; strided ones are gathered."""
    out = 8 // stride
    module = _check(f"""HloModule m
ENTRY e {{
  x = f32[2,8,5,3] parameter(0), sharding={{devices=[1,4,1,1]<=[4]}}
  k = f32[{kernel},3,3,4] parameter(1)
  ROOT c = f32[2,{out},5,4] convolution(x, k), window={{size={kernel}x3 stride={stride}x1 pad={pad}x1_1}}, dim_labels=b01f_01io->b01f
}}""", 4)
    ops = _opcodes(module)
    if stride == 1:
        assert O.COLLECTIVE_PERMUTE in ops and O.ALL_GATHER not in ops
        (conv,) = [i for i in module.entry.instructions if i.opcode is O.CONVOLUTION]
        assert conv.shape.dimensions == (2, 2, 5, 4)
    else:
        assert O.ALL_GATHER in ops
