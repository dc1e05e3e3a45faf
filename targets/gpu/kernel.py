"""The kernel model: a GPU kernel written once against an index context.

A `Kernel` is a list of *phases* separated by barriers (`PhaseLoop` repeats a group of
phases a compile-time number of times, with a barrier after each phase). A phase is a
Python function that emits, with `ctx.b`, what one thread does between two barriers;
it reads the thread's coordinates (`ctx.thread`, `ctx.block`), the block size and grid
size (compile-time constants), the kernel's buffers (`ctx.param(k)`), shared memory
(`ctx.shared(name)`) and per-thread values kept across barriers (`ctx.local(name)`).
Values of one phase are not visible in the next: whatever crosses a barrier goes
through shared memory or a local, which is what makes the two lowerings agree:

* NVPTX (`nvptx.py`): one `ptx_kernel` function, the phases in sequence with
  `llvm.nvvm.barrier0` between them, shared memory in addrspace(3), locals on the
  thread's stack;
* host emulation (`emulator.py`): for each block { fill shared memory with 0xff bytes;
  for each phase { for each thread, in a given order { phase } } }, locals as one slot
  per thread. The order is an argument, so the same compiled code runs forward,
  reversed and shuffled thread orders; results that depend on it reveal a race (a
  missing barrier).

Blocks are one-dimensional (`ctx.thread` in [0, block_size)), grids one-dimensional.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from llvmlite import ir

from hlotool.targets.llvm import irutils as u


@dataclass(frozen=True, slots=True)
class Shared:
    """A shared-memory array of `count` elements of `type`, one per block."""

    name: str
    type: ir.Type
    count: int


@dataclass(frozen=True, slots=True)
class Local:
    """A value of `type` each thread keeps across barriers (an accumulator)."""

    name: str
    type: ir.Type


class IndexContext(abc.ABC):
    """What a phase body sees: the builder and the thread's coordinates."""

    b: ir.IRBuilder
    block_size: int
    grid_size: int

    @property
    @abc.abstractmethod
    def thread(self) -> ir.Value:
        """The thread index in its block (i64)."""

    @property
    @abc.abstractmethod
    def block(self) -> ir.Value:
        """The block index in the grid (i64)."""

    @abc.abstractmethod
    def param(self, k: int) -> ir.Value:
        """Buffer argument k (a generic pointer)."""

    @abc.abstractmethod
    def shared(self, name: str) -> ir.Value:
        """The block's shared array `name` (a generic pointer to its first element)."""

    @abc.abstractmethod
    def local(self, name: str) -> ir.Value:
        """A pointer to this thread's slot of the local `name`."""

    @abc.abstractmethod
    def loop_index(self, name: str) -> ir.Value:
        """The iteration (i64) of the enclosing PhaseLoop called `name`."""

    def global_thread(self) -> ir.Value:
        """block * block_size + thread (i64)."""
        b = self.b
        return b.add(b.mul(self.block, u.i64(self.block_size)), self.thread)


Phase = Callable[[IndexContext], None]


@dataclass(slots=True)
class PhaseLoop:
    """`count` repetitions of `phases` (barriers after each phase, every iteration)."""

    name: str
    count: int
    phases: list[Phase | PhaseLoop]


@dataclass(slots=True)
class Kernel:
    """One GPU kernel: buffers in, buffers out, a launch shape and its phases."""

    #: Symbol (named after the fusion or instruction it computes).
    name: str
    #: Number of buffer arguments (inputs, constants, outputs, in the plan's order).
    params: int
    block_size: int
    grid_size: int
    phases: list[Phase | PhaseLoop]
    shared: list[Shared] = field(default_factory=list)
    locals: list[Local] = field(default_factory=list)
    #: The instruction (fusion) it came from, for messages and `compile --emit`.
    source: str = ""

    @property
    def barriers(self) -> int:
        """Barriers executed per block (phase boundaries)."""
        return _count_phases(self.phases) - 1


def _count_phases(phases: list[Phase | PhaseLoop]) -> int:
    return sum(p.count * _count_phases(p.phases) if isinstance(p, PhaseLoop) else 1
               for p in phases)


@contextmanager
def grid_stride(ctx: IndexContext, count: int, name: str = "gs") -> Iterator[ir.Value]:
    """`for (i = global thread; i < count; i += grid * block)`: every element once,
    whatever the launch shape (XLA:GPU's loop emitter with a capped grid)."""
    b = ctx.b
    start = ctx.global_thread()
    stride = u.i64(ctx.grid_size * ctx.block_size)
    pre = b.block
    header = b.append_basic_block(f"{name}.header")
    body = b.append_basic_block(f"{name}.body")
    end = b.append_basic_block(f"{name}.end")
    b.branch(header)
    b.position_at_end(header)
    i = b.phi(u.I64, name=name)
    i.add_incoming(start, pre)
    b.cbranch(b.icmp_signed("<", i, u.i64(count)), body, end)
    b.position_at_end(body)
    yield i
    i.add_incoming(b.add(i, stride, flags=["nsw"]), b.block)
    b.branch(header)
    b.position_at_end(end)
