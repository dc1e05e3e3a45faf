"""The simulated TPU's interconnect (targets/tpu/ici.py): closed-form ring and torus
costs, the link-bandwidth bound no estimate may beat, slices per chip, and the
collectives' ICI kernels in `run --target tpu` of a sharded module and in `cost --ici`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from hlotool.cli import main
from hlotool.frontend import parse_hlo
from hlotool.targets.tpu import get_chip, prepare
from hlotool.targets.tpu.compiler import compile_program
from hlotool.targets.tpu.ici import KINDS, Torus, cost_of, parse_topology, torus_of

SHARDED = Path(__file__).parents[1] / "data" / "sharded"
BW, LAT, B = 1e11, 1e-6, float(1 << 20)


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_ring_all_reduce_moves_2_n_minus_1_over_n_per_link(n: int) -> None:
    ring = Torus((n,), (n >= 4,), BW, LAT)
    line = Torus((n,), (False,), BW, LAT)
    group = [tuple(range(n))]
    on_ring = cost_of("all-reduce", group, B, ring)
    on_line = cost_of("all-reduce", group, B, line)
    if n > 2:
        # Two rings, one each way: every directed link carries (n-1)/n of the data,
        # 2(n-1) steps of B/(2n) each.
        assert on_ring.link_bytes == pytest.approx((n - 1) / n * B)
        assert on_ring.seconds == pytest.approx(2 * (n - 1) * (LAT + B / (2 * n) / BW))
    # A line is one ring folded onto both directions: 2(n-1)/n of the data per link.
    assert on_line.link_bytes == pytest.approx(2 * (n - 1) / n * B)
    assert on_line.phases == 2 * (n - 1)


@pytest.mark.parametrize("kind", ["all-gather", "reduce-scatter"])
def test_ring_all_gather_and_reduce_scatter_move_n_minus_1_over_n(kind: str) -> None:
    n = 8
    cost = cost_of(kind, [tuple(range(n))], B, Torus((n,), (True,), BW, 0.0))
    assert cost.link_bytes == pytest.approx((n - 1) / n * B / 2)
    assert cost.seconds == pytest.approx((n - 1) / n * B / (2 * BW))
    # One ring dimension: the bidirectional ring reaches the bound exactly.
    assert cost.seconds == pytest.approx(cost.bound_seconds)


def test_full_2d_torus_all_gather_reaches_the_bound() -> None:
    """16x16 with wraparound: one part per axis keeps all four links busy."""
    torus = Torus((16, 16), (True, True), BW, 0.0)
    cost = cost_of("all-gather", [tuple(range(256))], B, torus)
    assert cost.algorithm == "2-D torus"
    assert cost.seconds == pytest.approx(255 / 256 * B / (4 * BW))
    assert cost.seconds == pytest.approx(cost.bound_seconds)


def test_groups_share_links() -> None:
    """Two groups interleaved on one line cross each other's links: slower than one."""
    line = Torus((4,), (False,), BW, 0.0)
    alone = cost_of("all-gather", [(0, 1)], B, line)
    crossed = cost_of("all-gather", [(0, 2), (1, 3)], B, line)
    assert crossed.seconds > alone.seconds


def test_collective_permute_and_all_to_all() -> None:
    ring = Torus((8,), (True,), BW, LAT)
    shift = cost_of("collective-permute", [], B, ring, [(i, (i + 1) % 8) for i in range(8)])
    assert shift.seconds == pytest.approx(LAT + B / BW)
    far = cost_of("collective-permute", [], B, ring, [(0, 4)])
    assert far.seconds == pytest.approx(4 * LAT + B / BW)
    a2a = cost_of("all-to-all", [tuple(range(8))], B, ring)
    # Each member sends B/8 to every other; the busiest link carries the 1+2+3 chunks
    # that go 1, 2 and 3 hops (and the 4-hop ones, which break ties the + way) over it.
    assert a2a.link_bytes == pytest.approx((1 + 2 + 3 + 4) * B / 8)


def test_no_estimate_beats_the_link_bandwidth_bound() -> None:
    rng = np.random.default_rng(0)
    kinds = sorted(set(KINDS.values()) - {"collective-permute"})
    for _ in range(300):
        rank = int(rng.integers(1, 4))
        dims = tuple(int(d) for d in rng.choice([1, 2, 3, 4, 8], size=rank))
        torus = Torus(dims, tuple(bool(rng.integers(2)) and d > 2 for d in dims),
                      float(rng.choice([4.5e10, 1e11])), float(rng.choice([0.0, 1e-6])))
        n = torus.size
        ids = rng.permutation(n)
        size = int(rng.choice([d for d in range(1, n + 1) if n % d == 0]))
        groups = [tuple(int(i) for i in ids[k:k + size]) for k in range(0, n, size)]
        if rng.integers(2):  # a sub-torus split: groups along the last axes
            groups = [tuple(range(k, k + size)) for k in range(0, n, size)]
        data = float(rng.integers(1, 1 << 20))
        kind = str(rng.choice(kinds))
        cost = cost_of(kind, groups, data, torus)
        assert cost.seconds >= cost.bound_seconds * (1 - 1e-9), (kind, dims, groups)
        pairs = [(int(a), int(b)) for a, b in zip(ids, rng.permutation(n), strict=True)]
        permute = cost_of("collective-permute", [], data, torus, pairs)
        assert permute.seconds >= permute.bound_seconds * (1 - 1e-9)


def test_slices_per_chip() -> None:
    v4 = torus_of(get_chip("v4"), 64)
    assert v4.dims == (4, 4, 4) and all(v4.wrap)
    assert torus_of(get_chip("v4"), 8).dims == (2, 2, 2)
    v5e = torus_of(get_chip("v5e"), 8)
    assert v5e.dims == (2, 4) and not any(v5e.wrap)
    assert all(torus_of(get_chip("v5e"), 256).wrap)
    given = torus_of(get_chip("v5e", ici_topology=(1, 8)), 8)
    assert given.dims == (1, 8) and given.link_bandwidth == 5e10
    assert parse_topology("4x4x4") == (4, 4, 4)
    with pytest.raises(ValueError):
        parse_topology("4xx")
    with pytest.raises(ValueError):
        torus_of(get_chip("v5e", ici_topology=(2, 2)), 8)


def test_collectives_become_ici_kernels() -> None:
    module = prepare(parse_hlo((SHARDED / "dp_tp_mlp_8" / "module.opt.hlo").read_text()))
    program = compile_program(module, get_chip("v5e"))
    kernels = [k for k in program.kernels if k.kind == "ici"]
    assert kernels and all(k.cycles > 0 for k in kernels)
    assert all(k.ops[0].unit == "ici" for k in kernels)


def test_run_on_the_tpu_reports_the_ici(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = SHARDED / "tp_mlp"
    report = tmp_path / "r.json"
    main(["run", str(folder / "module.opt.hlo"), "--target", "tpu", "--tpu-chip", "v4",
          "--inputs", str(folder / "inputs.npz"), "--report", str(report),
          "--output", str(tmp_path / "out.npz")])
    out = capsys.readouterr().out
    assert "ICI: 4 devices" in out and "simulated TPU v4" in out
    data = json.loads(report.read_text())
    ici = data["ici"]
    assert ici["devices"] == 4 and ici["topology"] == [2, 2, 1]
    kinds = {r["kind"] for r in ici["collectives"]}
    assert kinds and kinds <= set(KINDS.values())
    ici_cycles = sum(r["total_cycles"] for r in data["instructions"] if r["kind"] == "ici")
    assert ici_cycles == pytest.approx(ici["seconds"] * data["chip"]["clock_hz"])


def test_cost_times_collectives_on_the_ici(capsys: pytest.CaptureFixture[str]) -> None:
    path = SHARDED / "dp_tp_mlp_8" / "module.opt.hlo"
    assert main(["cost", str(path), "--ici", "v5e", "--ici-topology", "2x4",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ici = data["ici"]
    assert ici["topology"] == [2, 4]
    assert all(r["seconds"] >= r["bound_seconds"] > 0 for r in ici["collectives"])
    assert math.isclose(ici["seconds"], sum(r["seconds"] for r in ici["collectives"]))
    assert main(["cost", str(path), "--ici-topology", "2x4"]) == 2
