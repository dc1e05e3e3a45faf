"""The TPU target object: compile a module to a program; running it simulates it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.targets.base import Capabilities, ExecutionStats, Executable, Target
from hlotool.targets.tpu.chips import Chip, get_chip
from hlotool.targets.tpu.compiler import compile_program
from hlotool.targets.tpu.program import Program
from hlotool.targets.tpu.simulate import Simulation, simulate


def prepare(module: Module) -> Module:
    """Run the `tpu` pipeline on `module` in place (what `hlotool run --target tpu` does)."""
    from hlotool.passes.pipelines import get_pipeline

    get_pipeline("tpu").run(module, [])
    return module


def set_default_precision(module: Module, precision: str) -> bool:
    """Give every dot and convolution whose precision is DEFAULT and that names no
    algorithm `precision` for both operands (what `jax_default_matmul_precision` does at
    trace time); returns whether anything changed."""
    if precision == "default":
        return False
    changed = False
    for comp in module.computations:
        for ins in comp.instructions:
            if ins.opcode not in (Opcode.DOT, Opcode.CONVOLUTION) or ins.attrs.get("algorithm"):
                continue
            if all(str(p).lower() == "default" for p in ins.attrs.get("operand_precision") or ()):
                ins.attrs["operand_precision"] = (precision, precision)
                changed = True
    return changed


class TpuExecutable(Executable):
    """A module compiled to a TPU program; each run simulates it."""

    def __init__(self, module: Module, program: Program) -> None:
        self.module = module
        self.program = program
        self.last: Simulation | None = None
        self._stats = ExecutionStats()
        #: The DeviceContext this executable runs as, when the module has several devices.
        self.device: Any = None

    def run(self, args: Sequence[Any]) -> Any:
        self.last = simulate(self.module, self.program, args, self.device)
        self._stats = ExecutionStats(native=len(self.last.trace))
        return self.last.result

    @property
    def stats(self) -> ExecutionStats:
        return self._stats

    def report(self) -> dict[str, Any]:
        """The last run's report (see targets/tpu/report.py)."""
        from hlotool.targets.tpu.report import summary

        if self.last is None:
            raise RuntimeError("run the executable before asking for its report")
        return summary(self.last)


class TpuTarget(Target):
    """A simulated TPU chip (values with TPU numerics, cycles from the cost model)."""

    name: ClassVar[str] = "tpu"
    capabilities: ClassVar[Capabilities] = Capabilities(interpreter_fallback=True)

    def __init__(self, chip: Chip | str = "v5e") -> None:
        self.chip = get_chip(chip) if isinstance(chip, str) else chip

    def compile(self, module: Module) -> TpuExecutable:
        return TpuExecutable(module, compile_program(module, self.chip))
