"""Collectives with XLA's semantics on one device or many (hlotool.interpreter.devices).

Each device contributes its operands at a rendezvous with the members of its group
(hlotool.spmd.groups) and computes its result from everyone's, in group order:
- all-reduce folds left to right over the group (((v0 op v1) op v2) ...), the reduction
  computation applied elementwise; members the module has no device for are left out,
  as XLA:CPU leaves them;
- all-gather concatenates along `dimensions`; reduce-scatter all-reduces then keeps the
  device's slice; all-to-all sends chunk j (or operand j) to member j and concatenates
  what arrives (or returns it as a tuple);
- collective-reduce folds like all-reduce onto a root member (the group's first, or per
  data operand the rank its has_dynamic_root operand names); XLA leaves the other
  members' results undefined, here they keep their operand;
- collective-permute delivers along source_target_pairs (devices receiving nothing get
  zeros, as in XLA); collective-broadcast gives every member the first member's value.
The async -start/-done pairs exchange at the start. One device alone gets its operands
back, and a collective-permute delivers only along a (0, 0) pair. send and recv pair by
channel id: a send queues its data on the channel, a recv takes the oldest (waiting for
one), as StableHLO's interpreter pairs them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hlotool.interpreter.core import TOKEN, Evaluator, Unsupported, Value, impl, zeros_for
from hlotool.interpreter.kernels.reduction import Reducer
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode as O
from hlotool.spmd.groups import GroupMode, NotInGroup, group_mode


def _same(operands: Sequence[Value]) -> Value:
    return operands[0] if len(operands) == 1 else tuple(operands)


def _all_reduce_values(ev: Evaluator, ins: Instruction, operands: list[Value]) -> list[Value]:
    group, values = ev.device.exchange(ins, list(operands), ev.device.present_group(ins))
    comp = ins.called_computations[0]
    out = []
    for k, x in enumerate(operands):
        reducer = Reducer(ev, comp, [ins.operand(k).shape.element_type])
        acc = np.asarray(values[group[0]][k])
        for member in group[1:]:
            acc = np.asarray(reducer([acc], [np.asarray(values[member][k])])[0])
        out.append(acc.astype(np.asarray(x).dtype, copy=False))
    return out


@impl(O.ALL_REDUCE, O.ALL_REDUCE_START)
def _all_reduce(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return _same(_all_reduce_values(ev, ins, operands))


@impl(O.COLLECTIVE_REDUCE)
def _collective_reduce(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    data = list(operands[:-1] if ins.attrs.get("has_dynamic_root") else operands)
    roots = ([int(r) for r in np.asarray(operands[-1]).reshape(-1)]
             if ins.attrs.get("has_dynamic_root") else [0] * len(data))
    group, values = ev.device.exchange(ins, data)
    comp = ins.called_computations[0]
    out = []
    for k, x in enumerate(data):
        if not 0 <= roots[k] < len(group):
            raise Unsupported(f"{ins.name}: root rank {roots[k]} is out of range "
                              f"[0, {len(group)})")
        if group[roots[k]] != ev.device.me:
            out.append(x)
            continue
        reducer = Reducer(ev, comp, [ins.operand(k).shape.element_type])
        acc = np.asarray(values[group[0]][k])
        for member in group[1:]:
            acc = np.asarray(reducer([acc], [np.asarray(values[member][k])])[0])
        out.append(acc.astype(np.asarray(x).dtype, copy=False))
    return _same(out)


def _gathered(ev: Evaluator, ins: Instruction, operands: list[Value]) -> list[Value]:
    group, values = ev.device.exchange(ins, list(operands))
    d = ins.attrs["dimensions"][0]
    return [np.concatenate([np.asarray(values[m][k]) for m in group], axis=d)
            for k in range(len(operands))]


@impl(O.ALL_GATHER)
def _all_gather(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return _same(_gathered(ev, ins, operands))


@impl(O.ALL_GATHER_START)
def _all_gather_start(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """(operands, results), as XLA's all-gather-start shape says."""
    return (_same(operands), _same(_gathered(ev, ins, operands)))


@impl(O.ALL_REDUCE_DONE)
def _all_reduce_done(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0]


@impl(O.ALL_GATHER_DONE, O.COLLECTIVE_PERMUTE_DONE)
def _second_of_pair(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return operands[0][1]


@impl(O.REDUCE_SCATTER)
def _reduce_scatter(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    reduced = _all_reduce_values(ev, ins, operands)
    group = ev.device.group(ins)
    index = group.index(ev.device.me)
    d = ins.attrs["dimensions"][0]
    out = [np.split(np.asarray(r), len(group), axis=d)[index] for r in reduced]
    return _same(out)


@impl(O.ALL_TO_ALL)
def _all_to_all(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    dims = ins.attrs.get("dimensions")
    group = ev.device.group(ins)
    n = len(group)
    if dims:
        d = dims[0]
        chunks = [np.split(np.asarray(x), n, axis=d) for x in operands]
        _, values = ev.device.exchange(ins, chunks, group)
        me = group.index(ev.device.me)
        out = [np.concatenate([values[m][k][me] for m in group], axis=d)
               for k in range(len(operands))]
        return _same(out)
    if len(operands) != n:
        raise Unsupported(f"{ins.name}: all-to-all of {len(operands)} operands in a group "
                          f"of {n} devices")
    _, values = ev.device.exchange(ins, list(operands), group)
    me = group.index(ev.device.me)
    return tuple(np.asarray(values[m][me]) for m in group)


@impl(O.COLLECTIVE_BROADCAST)
def _collective_broadcast(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    """A device in no group receives zeros, as from a collective-permute."""
    try:
        group, values = ev.device.exchange(ins, list(operands))
    except NotInGroup:
        return _same([zeros_for(o.shape) for o in ins.operands])
    return _same(values[group[0]])


def _permuted(ev: Evaluator, ins: Instruction, x: Value) -> Value:
    """What this device receives along source_target_pairs (zeros when nothing)."""
    pairs = [tuple(p) for p in ins.attrs.get("source_target_pairs", ())]
    replica, partition = ev.device.me
    cross_partition = group_mode(ins) is GroupMode.CROSS_PARTITION
    mine = partition if cross_partition else replica

    def dev(i: int) -> tuple[int, int]:
        return (replica, i) if cross_partition else (i, partition)

    members = sorted({dev(i) for p in pairs for i in p} | {ev.device.me})
    if ev.device.rendezvous is None:
        return x if (0, 0) in pairs else zeros_for(ins.operand(0).shape)
    _, values = ev.device.exchange(ins, x, members)
    sources = [s for s, t in pairs if t == mine]
    return np.asarray(values[dev(sources[0])]) if sources else zeros_for(ins.operand(0).shape)


def _one_operand(ins: Instruction, operands: list[Value]) -> Value:
    if len(operands) != 1:
        raise Unsupported("collective-permute with slice operands is not supported")
    return operands[0]


@impl(O.COLLECTIVE_PERMUTE)
def _collective_permute(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return _permuted(ev, ins, _one_operand(ins, operands))


@impl(O.COLLECTIVE_PERMUTE_START)
def _collective_permute_start(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    x = _one_operand(ins, operands)
    extra = tuple(np.zeros(s.dimensions, s.element_type.numpy_dtype)
                  for s in ins.shape.tuple_shapes[2:])
    return (x, _permuted(ev, ins, x), *extra)


# -- send and recv: queues by channel id (StableHLO's and XLA's pairing by channel) ----------


@impl(O.SEND)
def _send(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    from hlotool.spmd.groups import send_recv_peer

    d = ev.device
    peer = send_recv_peer(ins, d.me, d.replicas, d.partitions)
    if peer is not False:  # pairs that name no target for this device: nothing sent
        if peer is not None:
            d.send(ins.attrs.get("channel_id") or 0, operands[0], peer)
    else:
        d.send(ins.attrs.get("channel_id") or 0, operands[0])
    return (operands[0], np.zeros((), np.uint32), TOKEN)


@impl(O.SEND_DONE)
def _send_done(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return TOKEN


@impl(O.RECV)
def _recv(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    from hlotool.spmd.groups import send_recv_peer

    d = ev.device
    channel = ins.attrs.get("channel_id") or 0
    peer = send_recv_peer(ins, d.me, d.replicas, d.partitions)
    if peer is False:
        value = d.recv(ins, channel)
    elif peer is None:  # no source sends to this device: zeros, as collective-permute
        shape = ins.shape.tuple_shapes[0]
        value = np.zeros(shape.dimensions, shape.element_type.numpy_dtype)
    else:
        value = d.recv(ins, channel, peer)
    return (value, np.zeros((), np.uint32), TOKEN)


@impl(O.RECV_DONE)
def _recv_done(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    return (operands[0][0], TOKEN)


# -- infeed and outfeed: the run's shared queues (interpreter.run_parallel's `infeed`) ------


@impl(O.INFEED)
def _infeed(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    fed = ev.device.infeed(ins)
    return (tuple(fed) if isinstance(fed, (tuple, list)) else (fed,), TOKEN)


@impl(O.OUTFEED)
def _outfeed(ev: Evaluator, ins: Instruction, operands: list[Value]) -> Value:
    ev.device.outfeed(ins, operands[0])
    return TOKEN
