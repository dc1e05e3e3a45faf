"""Replica groups and group modes: who takes part in a collective (XLA's rules)."""

from __future__ import annotations

import pytest

from hlotool.frontend import parse_hlo
from hlotool.spmd.groups import GroupMode, group_mode, id_groups, participants

_ADD = "add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }\n"


def _ins(attrs: str, op: str = "all-reduce", extra: str = ", to_apply=add") -> object:
    module = parse_hlo(f"HloModule m, replica_count=2, num_partitions=4\n{_ADD}ENTRY e {{\n"
                       f"  x = f32[4] parameter(0)\n  ROOT r = f32[4] {op}(x){attrs}{extra}\n}}\n")
    return module.entry.root


@pytest.mark.parametrize(("attrs", "mode"), [
    (", replica_groups={}", GroupMode.CROSS_REPLICA),
    (", channel_id=1, replica_groups={}", GroupMode.CROSS_REPLICA_AND_PARTITION),
    (", channel_id=1, replica_groups={}, use_global_device_ids=true", GroupMode.FLATTENED_ID),
])
def test_modes(attrs: str, mode: GroupMode) -> None:
    assert group_mode(_ins(attrs)) is mode


def test_permutes_with_a_channel_are_cross_partition() -> None:
    ins = _ins(", channel_id=1, source_target_pairs={{0,1}}", "collective-permute", "")
    assert group_mode(ins) is GroupMode.CROSS_PARTITION


def test_iota_and_mesh_groups() -> None:
    from hlotool.ir.attributes import ReplicaGroups

    assert id_groups(ReplicaGroups(iota_text="[2,4]<=[8]"), 8) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert id_groups(ReplicaGroups(iota_text="[4,2]<=[2,4]T(1,0)"), 8) == [
        [0, 4], [1, 5], [2, 6], [3, 7]]
    mesh = "mesh['data'=2,'model'=4] {'model'}"
    assert id_groups(ReplicaGroups(iota_text=mesh), 8) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    mesh = "mesh['data'=2,'model'=4] {'data'}"
    assert id_groups(ReplicaGroups(iota_text=mesh), 8) == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert id_groups(None, 3) == [[0, 1, 2]]


def test_participants_follow_the_mode() -> None:
    flat = _ins(", channel_id=1, replica_groups={{0,5},{1,2,3,4,6,7}}, use_global_device_ids=true")
    assert participants(flat, (1, 1), 2, 4) == [(0, 0), (1, 1)]
    cross_replica = _ins(", replica_groups={{0,1}}")
    assert participants(cross_replica, (1, 3), 2, 4) == [(0, 3), (1, 3)]
    both = _ins(", channel_id=1, replica_groups={{0,1}}")
    assert participants(both, (0, 0), 2, 4) == [(r, p) for p in range(4) for r in (0, 1)]
