"""The `--target tpu` options of `hlotool run` and `hlotool compile` (cheap to import:
the parser is built at start-up; the simulator loads in targets/tpu/cli.py)."""

from __future__ import annotations

import argparse

CHIP_NAMES = ("v4", "v5e", "v5p", "v6e", "scalesim")


def add_chip_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tpu-chip", default="v5e", choices=CHIP_NAMES,
                   help="tpu: the chip preset (default v5e)")
    p.add_argument("--tpu-dataflow", choices=("ws", "os", "is"),
                   help="tpu: systolic dataflow of the scalesim preset (default ws)")
    p.add_argument("--tpu-topology", metavar="XxYxZ",
                   help="tpu: the ICI torus of the slice, chips per axis (default: the "
                        "most balanced one for the module's devices)")
    p.add_argument("--tpu-precision", choices=("default", "high", "highest"),
                   default="default",
                   help="tpu: precision of the f32 dots and convolutions that set none "
                        "(as jax_default_matmul_precision: 1, 3 or 6 bf16 passes)")


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    add_chip_arguments(p)
    p.add_argument("--report", metavar="FILE.json", help="tpu: write the simulator's report")
    p.add_argument("--timeline", metavar="OUT.svg", help="tpu: draw the simulated timeline")
