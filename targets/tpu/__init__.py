"""The simulated TPU target: HLO -> a TPU program -> simulated with TPU numerics and cycles.

Entry points (`hlotool run --target tpu`, `hlotool compile --target tpu --emit tpu`):

* `prepare(module)`: run the `tpu` pass pipeline in place
* `TpuTarget(chip).compile(module) -> TpuExecutable` (the program is `executable.program`)
* `TpuExecutable.run(args)`: values; `executable.last` is the Simulation, `report()` its JSON

Chips: `chips.get_chip("v5e")` (v4, v5e, v5p, v6e, scalesim); see docs/tpu.md.
"""

from __future__ import annotations

from hlotool.targets.tpu.chips import CHIPS, Chip, get_chip
from hlotool.targets.tpu.program import Program
from hlotool.targets.tpu.simulate import Simulation
from hlotool.targets.tpu.target import TpuExecutable, TpuTarget, prepare

__all__ = ["CHIPS", "Chip", "Program", "Simulation", "TpuExecutable", "TpuTarget", "get_chip",
           "prepare"]
