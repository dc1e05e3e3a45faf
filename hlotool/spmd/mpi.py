"""Runs across processes: under `mpiexec -n N`, each MPI rank is one device (rank =
replica id x num_partitions + partition id), and a collective's exchange is an MPI
allgather on the communicator of its group, so every member folds the same values in
the same group order and the results equal the in-process run bit for bit."""

from __future__ import annotations

from typing import Any

from hlotool.diagnostics import HloError
from hlotool.interpreter.devices import DeviceContext
from hlotool.ir.module import Module
from hlotool.spmd.groups import SEND_RECV_PAIRS, Device
from hlotool.spmd.run import (RunnerFactory, ShardedResult, assemble_outputs, devices_of,
                              interpreter_runner, split_arguments)


def world() -> Any:
    """MPI's world communicator (mpi4py, from the `mpi` extra)."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise HloError("--distributed mpi needs mpi4py: pip install 'hlotool[mpi]'") from exc
    return MPI.COMM_WORLD


class MpiRendezvous:
    """The exchange of `hlotool.interpreter.devices.Rendezvous`, over MPI ranks."""

    def __init__(self, comm: Any, replicas: int, partitions: int) -> None:
        self.comm = comm
        self.replicas = replicas
        self.partitions = partitions
        self.failure: BaseException | None = None
        self._groups: dict[tuple[int, ...], Any] = {}
        self._sends: list[Any] = []

    def rank(self, device: Device) -> int:
        return device[0] * self.partitions + device[1]

    def fail(self, exc: BaseException) -> None:
        self.failure = exc

    def post(self, channel: int, value: Any, to: Device | None = None) -> None:
        """A send to device `to`'s rank, tagged by channel (non-blocking: the ranks of a
        ring all send before they receive)."""
        if to is None:
            raise HloError(f"send on channel {channel}: across MPI ranks a send must name "
                           f"its target ({SEND_RECV_PAIRS}); run the devices in one process")
        self._sends.append(self.comm.isend(value, dest=self.rank(to), tag=channel))

    def take(self, channel: int, me: Device | None = None,
             source: Device | None = None) -> Any:
        if source is None:
            raise HloError(f"recv on channel {channel}: across MPI ranks a recv must name "
                           f"its source ({SEND_RECV_PAIRS}); run the devices in one process")
        return self.comm.recv(source=self.rank(source), tag=channel)

    def finish(self) -> None:
        """Wait until every send of this rank has been delivered."""
        for request in self._sends:
            request.wait()
        self._sends.clear()

    def exchange(self, key: tuple[Any, ...], group: list[Device], me: Device,
                 value: Any) -> dict[Device, Any]:
        ranks = tuple(self.rank(d) for d in group)
        comm = self._groups.get(ranks)
        if comm is None:
            comm = self.comm.Create_group(self.comm.Get_group().Incl(list(ranks)))
            self._groups[ranks] = comm
        values = comm.allgather(value)
        by_rank = dict(zip(ranks, values, strict=True))
        return {d: by_rank[self.rank(d)] for d in group}


def run_mpi(module: Module, arrays: dict[str, Any],
            make_runner: RunnerFactory | None = None) -> ShardedResult | None:
    """Run this rank's device; rank 0 gets the global outputs, the others None."""
    comm = world()
    devices = devices_of(module)
    if comm.size != len(devices):
        raise HloError(f"{module.name} is written for {len(devices)} devices, but mpiexec "
                       f"started {comm.size} ranks (mpiexec -n {len(devices)})")
    cfg = module.config
    me = devices[comm.rank]
    rendezvous = MpiRendezvous(comm, cfg.replica_count, cfg.num_partitions)
    ctx = DeviceContext(me[0], me[1], cfg.replica_count, cfg.num_partitions, rendezvous)
    args = split_arguments(module, arrays, only=me)[me]
    result = (make_runner or interpreter_runner(module))(ctx).run(args)
    rendezvous.finish()
    gathered = comm.gather((me, result), root=0)
    if comm.rank != 0:
        return None
    return assemble_outputs(module, dict(gathered))
