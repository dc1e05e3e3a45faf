"""Who takes part in a collective: XLA's CollectiveOpGroupMode and replica groups
(explicit `{{0,1},{2,3}}`, iota `[2,2]<=[4]`, or mesh `mesh['x'=2,'y'=2] {'x'}`) expanded
into groups of logical devices, a device being (replica id, partition id)."""

from __future__ import annotations

import enum
import math
import re

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.attributes import ReplicaGroups
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode as O

Device = tuple[int, int]  # (replica id, partition id)


class NotInGroup(HloError):
    """The device is in none of the collective's replica groups."""


class GroupMode(enum.Enum):
    """What the ids in replica_groups mean (XLA's GetCollectiveOpGroupMode)."""

    CROSS_REPLICA = "cross-replica"
    CROSS_PARTITION = "cross-partition"
    CROSS_REPLICA_AND_PARTITION = "cross-replica-and-partition"
    FLATTENED_ID = "flattened-id"


#: Collectives without a use_global_device_ids attribute: a channel id makes them
#: cross-partition (XLA passes no value for the flag there).
_NO_GLOBAL_IDS = frozenset({O.ALL_TO_ALL, O.RAGGED_ALL_TO_ALL, O.COLLECTIVE_PERMUTE,
                            O.COLLECTIVE_PERMUTE_START, O.COLLECTIVE_BROADCAST})


def group_mode(ins: Instruction) -> GroupMode:
    has_channel = ins.attrs.get("channel_id") is not None
    if ins.opcode in _NO_GLOBAL_IDS:
        return GroupMode.CROSS_PARTITION if has_channel else GroupMode.CROSS_REPLICA
    if ins.attrs.get("use_global_device_ids"):
        return GroupMode.FLATTENED_ID
    return GroupMode.CROSS_REPLICA_AND_PARTITION if has_channel else GroupMode.CROSS_REPLICA


def id_groups(groups: ReplicaGroups | None, count: int) -> list[list[int]]:
    """The replica groups as lists of ids; empty means one group of all `count` ids."""
    if groups is None or (not groups.groups and not groups.iota_text):
        return [list(range(count))]
    if groups.groups:
        return [[i for i in g if i >= 0] for g in groups.groups]  # -1 pads ragged groups
    return _expand_text(groups.iota_text)


_IOTA = re.compile(r"\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?$")
_MESH = re.compile(r"mesh\[([^\]]*)\]\s*\{([^}]*)\}$")


def _expand_text(text: str) -> list[list[int]]:
    text = text.strip()
    found = _IOTA.match(text)
    if found:
        shape = [int(d) for d in found.group(1).split(",")]
        ids = np.arange(math.prod(int(d) for d in found.group(2).split(",")))
        ids = ids.reshape([int(d) for d in found.group(2).split(",")])
        if found.group(3):
            ids = ids.transpose([int(p) for p in found.group(3).split(",")])
        return ids.reshape(shape).tolist()
    found = _MESH.match(text)
    if found:
        axes = [(a.split("=")[0].strip().strip("'\""), int(a.split("=")[1]))
                for a in found.group(1).split(",") if a.strip()]
        names = [a for a, _ in axes]
        chosen = [n.strip().strip("'\"") for n in found.group(2).split(",") if n.strip()]
        ids = np.arange(math.prod(n for _, n in axes)).reshape([n for _, n in axes])
        rest = [i for i, n in enumerate(names) if n not in chosen]
        picked = [names.index(n) for n in chosen]
        size = math.prod(ids.shape[i] for i in picked)
        return ids.transpose(rest + picked).reshape(-1, size).tolist()
    raise HloError(f"replica_groups={text}: expected {{{{...}}}}, [G,S]<=[N] or mesh[...] {{...}}")


def participants(ins: Instruction, device: Device, replicas: int,
                 partitions: int) -> list[Device]:
    """The devices of `device`'s group for a collective, in group order."""
    mode = group_mode(ins)
    replica, partition = device
    groups = ins.attrs.get("replica_groups")
    if mode is GroupMode.FLATTENED_ID:
        me = replica * partitions + partition
        for g in id_groups(groups, replicas * partitions):
            if me in g:
                return [(i // partitions, i % partitions) for i in g]
    elif mode is GroupMode.CROSS_PARTITION:
        for g in id_groups(groups, partitions):
            if partition in g:
                return [(replica, p) for p in g]
    elif mode is GroupMode.CROSS_REPLICA:
        for g in id_groups(groups, replicas):
            if replica in g:
                return [(r, partition) for r in g]
    else:
        for g in id_groups(groups, replicas):
            if replica in g:
                return [(r, p) for p in range(partitions) for r in g]
    raise NotInGroup(f"{ins.name}: device (replica {replica}, partition {partition}) is in "
                     f"no replica group of {ins.opcode.value}")


#: XLA's frontend attribute naming a send/recv's device pairs (collective-permute
#: decomposed into send/recv): `"{{0,1},{1,2}}"`.
SEND_RECV_PAIRS = "_xla_send_recv_source_target_pairs"


def send_recv_peer(ins: Instruction, device: Device, replicas: int,
                   partitions: int) -> Device | None | bool:
    """Whom a send goes to (or a recv comes from) by `_xla_send_recv_source_target_pairs`:
    partition ids within the replica when the module has partitions, else replica ids.
    False when the instruction names no pairs (sends pair with recvs by channel alone);
    None when the pairs name no peer for `device`."""
    text = ins.frontend_attributes.get(SEND_RECV_PAIRS) if ins.frontend_attributes else None
    if not text:
        return False
    pairs = [(int(a), int(b)) for a, b in re.findall(r"\{\s*(\d+)\s*,\s*(\d+)\s*\}", text)]
    replica, partition = device
    me = partition if partitions > 1 else replica
    sending = ins.opcode in (O.SEND, O.SEND_DONE)
    peer = next((b if sending else a for a, b in pairs if (a if sending else b) == me), None)
    if peer is None:
        return None
    return (replica, peer) if partitions > 1 else (peer, partition)
