"""Several devices in one process: one interpreter per device on its own thread, meeting
at every collective in a rendezvous that hands each participant everyone's operands.

A rendezvous is keyed by the instruction, how many times this device has executed it
(loops run collectives repeatedly) and the participant group, so the k-th execution of
an all-reduce on every member meets the k-th on the others, as on XLA's devices."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.instruction import Instruction
from hlotool.spmd.groups import Device, participants

#: Seconds a device waits for the others at a collective before calling it a deadlock.
RENDEZVOUS_TIMEOUT = 120.0


class SingleDevice(HloError):
    """A collective with other members, run on one device alone."""


class DeviceFailure(HloError):
    """Another device failed (or the group never met), so this one stops."""


class Exchange(Protocol):
    """Where devices meet: threads in one process (Rendezvous) or MPI ranks."""

    failure: BaseException | None

    def exchange(self, key: tuple[Any, ...], group: Sequence[Device], me: Device,
                 value: Any) -> dict[Device, Any]: ...

    def fail(self, exc: BaseException) -> None: ...

    def post(self, channel: int, value: Any, to: Device | None = None) -> None: ...

    def take(self, channel: int, me: Device | None = None,
             source: Device | None = None) -> Any: ...


@dataclass
class _Meeting:
    values: dict[Device, Any] = field(default_factory=dict)
    left: int = 0


class Rendezvous:
    """Where the devices of one run exchange collective operands."""

    def __init__(self, replicas: int, partitions: int) -> None:
        self.replicas = replicas
        self.partitions = partitions
        self._cond = threading.Condition()
        self._meetings: dict[tuple[Any, ...], _Meeting] = {}
        self._channels: dict[int, deque[Any]] = {}
        self.failure: BaseException | None = None

    def fail(self, exc: BaseException) -> None:
        with self._cond:
            if self.failure is None:
                self.failure = exc
            self._cond.notify_all()

    def post(self, channel: int, value: Any, to: Device | None = None) -> None:
        """A send on `channel` (to device `to` alone, when given): queued until a recv on
        it takes it."""
        with self._cond:
            self._channels.setdefault((channel, to), deque()).append(value)
            self._cond.notify_all()

    def take(self, channel: int, me: Device | None = None,
             source: Device | None = None) -> Any:
        """A recv on `channel`: the oldest value sent there (to `me`, when the sends name
        their targets; waits for one)."""
        with self._cond:
            queue = self._channels.setdefault((channel, me), deque())
            ok = self._cond.wait_for(lambda: self.failure is not None or bool(queue),
                                     timeout=RENDEZVOUS_TIMEOUT)
            if self.failure is not None:
                raise DeviceFailure("stopped: another device failed")
            if not ok:
                raise DeviceFailure(f"recv on channel {channel}: nothing was sent within "
                                    f"{RENDEZVOUS_TIMEOUT:.0f} s (a deadlock?)")
            return queue.popleft()

    def exchange(self, key: tuple[Any, ...], group: Sequence[Device], me: Device,
                 value: Any) -> dict[Device, Any]:
        """Contribute `value` and wait for every member's; returns device -> value."""
        full = (*key, tuple(group))
        with self._cond:
            meeting = self._meetings.setdefault(full, _Meeting(left=len(group)))
            meeting.values[me] = value
            self._cond.notify_all()
            ok = self._cond.wait_for(
                lambda: self.failure is not None or len(meeting.values) == len(group),
                timeout=RENDEZVOUS_TIMEOUT)
            if self.failure is not None:
                raise DeviceFailure("stopped: another device failed")
            if not ok:
                missing = sorted(set(group) - set(meeting.values))
                raise DeviceFailure(f"collective {key[0]!s}: devices {missing} never arrived "
                                    f"within {RENDEZVOUS_TIMEOUT:.0f} s (a deadlock?)")
            values = dict(meeting.values)
            meeting.left -= 1
            if meeting.left == 0:
                del self._meetings[full]
            return values


@dataclass
class Feeds:
    """Infeed and outfeed shared by the devices of one run, as StableHLO's process grid
    holds them: each infeed takes the next source (a function of no arguments giving the
    fed values) from one queue; every outfeed's values are appended in arrival order."""

    sources: deque[Callable[[], Any]] = field(default_factory=deque)
    outfeed: list[tuple[Device, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_infeed(self, ins: Instruction) -> Any:
        with self._lock:
            if not self.sources:
                raise HloError(f"infeed {ins.name}: the infeed queue is empty")
            source = self.sources.popleft()
        return source()

    def put_outfeed(self, device: Device, value: Any) -> None:
        with self._lock:
            self.outfeed.append((device, _owned(value)))


@dataclass
class DeviceContext:
    """The device an interpreter runs as, and where it meets the others."""

    replica: int = 0
    partition: int = 0
    replicas: int = 1
    partitions: int = 1
    rendezvous: Exchange | None = None
    feeds: Feeds | None = None
    _counts: dict[int, int] = field(default_factory=dict)
    _local: dict[int, deque[Any]] = field(default_factory=dict)

    @property
    def me(self) -> Device:
        return (self.replica, self.partition)

    def send(self, channel: int, value: Any, to: Device | None = None) -> None:
        """Queue `value` on `channel` for a recv (on device `to` when given, else on any
        device, or later on this one)."""
        if self.rendezvous is None:
            if to is not None and to != self.me:
                raise SingleDevice(f"a send on channel {channel} to device {to} needs every "
                                   "device run")
            self._local.setdefault(channel, deque()).append(_owned(value))
        else:
            self.rendezvous.post(channel, _owned(value), to)

    def recv(self, ins: Instruction, channel: int, source: Device | None = None) -> Any:
        """The oldest value sent on `channel` (from device `source`, when the pairs name
        it, and then to this device alone)."""
        if self.rendezvous is not None:
            return self.rendezvous.take(channel, self.me if source is not None else None,
                                        source)
        queue = self._local.get(channel)
        if not queue:
            raise SingleDevice(f"recv {ins.name}: nothing was sent on channel {channel} "
                               "(a send on another device needs every device run)")
        return queue.popleft()

    def infeed(self, ins: Instruction) -> Any:
        if self.feeds is None:
            raise SingleDevice(f"infeed {ins.name}: no infeed source (hlotool feeds infeed "
                               "under interpreter.run_parallel's `infeed` list)")
        return self.feeds.next_infeed(ins)

    def outfeed(self, ins: Instruction, value: Any) -> None:
        if self.feeds is None:
            raise SingleDevice(f"outfeed {ins.name}: no outfeed consumer (hlotool takes "
                               "outfeed under interpreter.run_parallel)")
        self.feeds.put_outfeed(self.me, value)

    def group(self, ins: Instruction) -> list[Device]:
        return participants(ins, self.me, self.replicas, self.partitions)

    def present_group(self, ins: Instruction) -> list[Device]:
        """The group without the members the module has no device for: XLA:CPU runs an
        all-reduce whose replica groups name such devices as a reduction over the others
        (on a one-device module, the operand itself)."""
        return [m for m in self.group(ins) if m[0] < self.replicas and m[1] < self.partitions]

    def exchange(self, ins: Instruction, value: Any,
                 group: Sequence[Device] | None = None) -> tuple[list[Device], dict[Device, Any]]:
        """(the group in order, every member's value) for one execution of `ins`."""
        members = list(group) if group is not None else self.group(ins)
        if members == [self.me]:
            return members, {self.me: value}
        if self.rendezvous is None:
            raise SingleDevice(
                f"{ins.opcode.value} {ins.name} exchanges data between {len(members)} devices, "
                "but this interpreter runs one: run every device of the module "
                "(`hlotool run` does; from Python, hlotool.spmd.run.run_sharded)")
        n = self._counts.get(id(ins), 0)
        self._counts[id(ins)] = n + 1
        # A copy: a compiled device's operand may be a view of an arena buffer that it
        # reuses as soon as it moves on, while the others still read what it sent.
        return members, self.rendezvous.exchange((ins.name, id(ins), n), members, self.me,
                                                 _owned(value))



def _owned(value: Any) -> Any:
    """`value` with every array copied (lists and tuples kept as they are)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_owned(v) for v in value)
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value
