"""The Target interface: capability flags plus `compile(module) -> Executable`."""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from hlotool.ir.module import Module


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a target can do natively (everything else falls back to the interpreter)."""

    #: Generates machine code (as opposed to simulating or interpreting).
    native: bool = False
    #: Can emit textual LLVM IR / assembly for `hlotool compile --emit`.
    emits_llvm: bool = False
    emits_asm: bool = False
    #: Instructions it cannot compile still run (on the reference interpreter).
    interpreter_fallback: bool = True
    #: Keeps compiled code in a disk cache across processes.
    disk_cache: bool = False


@dataclass(slots=True)
class ExecutionStats:
    """Per-run counters an Executable keeps (how much ran natively)."""

    #: Instruction executions that ran compiled code.
    native: int = 0
    #: Instruction executions that ran on the interpreter.
    fallback: int = 0
    #: Opcode spelling -> fallback executions, to find what to compile next.
    fallback_by_opcode: dict[str, int] = field(default_factory=dict)

    @property
    def native_fraction(self) -> float:
        total = self.native + self.fallback
        return self.native / total if total else 1.0


class Executable(abc.ABC):
    """A module compiled for one target, callable on numpy argument values."""

    @abc.abstractmethod
    def run(self, args: Sequence[Any]) -> Any:
        """Run the entry computation; returns a numpy array or a tuple of values."""

    @property
    @abc.abstractmethod
    def stats(self) -> ExecutionStats:
        """Counters of the most recent run."""


class Target(abc.ABC):
    """A back end: compiles modules into Executables."""

    name: ClassVar[str]
    capabilities: ClassVar[Capabilities]

    @abc.abstractmethod
    def compile(self, module: Module) -> Executable:
        """Compile `module` (which is not modified) for this target."""


def get_target(name: str) -> Target:
    """The target called `name`: `cpu`, `gpu`, or `tpu` (the simulated TPU, chip v5e)."""
    if name == "cpu":
        from hlotool.targets.cpu import CpuTarget

        return CpuTarget()
    if name == "gpu":
        from hlotool.targets.gpu import GpuTarget

        return GpuTarget()
    if name == "tpu":
        from hlotool.targets.tpu import TpuTarget

        return TpuTarget()
    raise KeyError(f"unknown target {name!r} (available: cpu, gpu, tpu)")
