"""The GPU target: kernels written once (targets/gpu/kernel.py), lowered to NVPTX/PTX for
NVIDIA GPUs and to the host CPU for emulation.

Entry points for the CLI (`hlotool run --target gpu`, `hlotool compile --target gpu`):

* `compile_module(module, emulate=None) -> GpuExecutable`: runs on the device when the
  CUDA driver answers (`driver.probe`), otherwise in emulation (`emulate=True` forces it);
* `plan.plan_module(module)` and `nvptx.kernels_ptx(kernels, name, arch)`: the kernels
  and their NVPTX LLVM IR and PTX (`hlotool compile --target gpu`).

docs/gpu.md describes the kernels, the numerics and the emulator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from hlotool.ir.module import Module
from hlotool.targets.base import Capabilities, Target
from hlotool.targets.gpu.plan import GpuPlan, plan_module
from hlotool.targets.gpu.runtime import GpuExecutable


class EmulatorBackend:
    """Kernels compiled for the host and run by the emulator (a thread order to check)."""

    name = "emulator"

    def __init__(self, plan: GpuPlan, module_name: str, order: str = "forward") -> None:
        from hlotool.targets.gpu.emulator import Emulator

        self.emulator = Emulator(plan.kernels, module_name) if plan.kernels else None
        self.order = order

    def launch(self, name: str, buffers: Sequence[np.ndarray], outputs: int = 0) -> None:
        assert self.emulator is not None
        self.emulator.launch(name, buffers, self.order)


class GpuTarget(Target):
    """NVIDIA GPUs through NVPTX (or the host emulator)."""

    name: ClassVar[str] = "gpu"
    capabilities: ClassVar[Capabilities] = Capabilities(native=True, emits_llvm=True,
                                                        emits_asm=True)

    def __init__(self, *, emulate: bool | None = None, order: str = "forward") -> None:
        """`emulate`: True forces the emulator, False requires a device, None uses the
        device when the driver answers. `order`: the emulator's thread order."""
        self.emulate = emulate
        self.order = order

    def compile(self, module: Module) -> GpuExecutable:
        plan = plan_module(module)
        backend = None
        if self.emulate is not True:
            from hlotool.targets.gpu import driver

            status = driver.probe()
            if status.ok:
                backend = driver.DeviceBackend(plan, module.name)
            elif self.emulate is False:
                raise driver.DriverError(status.message)
        if backend is None:
            backend = EmulatorBackend(plan, module.name, self.order)
        return GpuExecutable(module, plan, backend)


def compile_module(module: Module, *, emulate: bool | None = None,
                   order: str = "forward") -> GpuExecutable:
    """Compile `module` (after the `gpu` pipeline) for the device or the emulator."""
    return GpuTarget(emulate=emulate, order=order).compile(module)


__all__ = ["EmulatorBackend", "GpuExecutable", "GpuTarget", "compile_module"]
