"""One of XLA's benchmark models at full size on hlotool's CPU target against XLA:CPU.

`python bench/xla_big_model.py [FILE] [--seed 0]` (the `jax` extra; default FILE: XLA:CPU's
stable diffusion UNet step, tests/data/xla_hlo/cpu_benchmarks.stable_diffusion_tf_bf16_bs1.hlo,
12,214 instructions and 3.3 GB of weights as entry parameters) writes seeded inputs with
weights scaled by 1/sqrt(fan-in), as a trained network's are (standard normal weights
overflow a UNet to NaN in both), then runs `hlotool run FILE --target cpu --inputs IN.npz
--reference xla --format json` as a user would and prints its comparison with XLA:CPU.
It needs about 12 GB of memory and a few minutes; the test suite leaves it out.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT = ROOT / "tests" / "data" / "xla_hlo" / "cpu_benchmarks.stable_diffusion_tf_bf16_bs1.hlo"
#: Entry parameters before this index are activations (kept standard normal).
ACTIVATIONS = 3


def scaled_inputs(path: Path, seed: int) -> dict[str, np.ndarray]:
    """Seeded inputs: activations standard normal, float weights divided by sqrt(fan-in)."""
    from hlotool.frontend import parse_hlo
    from hlotool.values_io import random_arguments

    module = parse_hlo(path.read_text())
    out = {}
    for i, value in enumerate(random_arguments(module, seed)):
        a = np.asarray(value)
        if i >= ACTIVATIONS and a.dtype.kind in "fV" and a.dtype.itemsize >= 2:
            fan_in = math.prod(a.shape[:-1]) if a.ndim >= 2 else 400
            a = (a.astype(np.float32) / math.sqrt(fan_in)).astype(a.dtype)
        out[f"arg{i}"] = a
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    from hlotool.values_io import save_npz

    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "inputs.npz"
        save_npz(inputs, scaled_inputs(Path(a.file), a.seed))
        hlotool = Path(sys.executable).with_name("hlotool")
        proc = subprocess.run([str(hlotool), "run", a.file, "--target", "cpu", "--inputs",
                               str(inputs), "--reference", "xla", "--format", "json"],
                              capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        print(proc.stderr[-3000:], file=sys.stderr)
        return proc.returncode
    for diff in json.loads(proc.stdout)["reference"]:
        print(f"{diff['key']}: {'match' if diff['ok'] else 'MISMATCH'} with XLA:CPU, "
              f"max abs {diff['max_abs']:.3g}, max rel {diff['max_rel']:.3g}, "
              f"{diff['mismatched']} elements outside the tolerance")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
