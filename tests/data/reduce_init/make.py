"""Reduces whose init value is not the reducer's identity, run on XLA:CPU (jaxlib).

`python tests/data/reduce_init/make.py` writes CASE.hlo, CASE.inputs.npz (arg0) and
CASE.expected.npz (out0, XLA:CPU's result) for each case below; tests/interpreter/test_reduce_init.py checks hlotool against them. XLA:CPU adds
the init once per output when it hands the reduce to YNNPACK (f32/f64 add, max, min of at
least 4096 elements, rank <= 8), else once per window of its 32-element tree rewrite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

#: name: (element type, operand dims, reduced dims, reducer opcode, init text)
CASES = {
    "f32_small": ("f32", (3, 20), (1,), "add", "1.5"),
    "f32_tree": ("f32", (4, 100), (1,), "add", "0.25"),
    "f32_tree_2d": ("f32", (40, 40), (0, 1), "add", "-2"),
    "f32_once": ("f32", (8, 2048), (1,), "add", "0.25"),
    "f32_once_cols": ("f32", (4096, 2), (0,), "add", "3"),
    "f32_rank9_tree": ("f32", (2, 2, 2, 2, 2, 2, 2, 2, 300), (8,), "add", "1"),
    "f64_once": ("f64", (64, 64), (1,), "add", "0.5"),
    "f64_tree": ("f64", (2, 1000), (1,), "add", "0.5"),
    "f16_tree": ("f16", (64, 64), (1,), "add", "0.125"),
    "s32_tree": ("s32", (8, 2048), (1,), "add", "7"),
    "u32_tree": ("u32", (8, 2048), (1,), "add", "5"),
    "u32_small": ("u32", (5, 30), (1,), "add", "5"),
    "s8_tree": ("s8", (3, 300), (1,), "add", "3"),
    "s32_mul_tree": ("s32", (2, 100), (1,), "multiply", "3"),
    "u8_xor_tree": ("u8", (4, 99), (1,), "xor", "165"),
    "f32_max_once": ("f32", (64, 64), (1,), "maximum", "0.5"),
}

_NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "s32": np.int32,
       "u32": np.uint32, "s8": np.int8, "u8": np.uint8}


def module_text(ty: str, dims: tuple[int, ...], red: tuple[int, ...], op: str, init: str) -> str:
    out = [n for d, n in enumerate(dims) if d not in red]
    shape = lambda s: f"{ty}[{','.join(map(str, s))}]"  # noqa: E731
    return f"""HloModule reduce_init

region {{
  a = {ty}[] parameter(0)
  b = {ty}[] parameter(1)
  ROOT r = {ty}[] {op}(a, b)
}}

ENTRY main {{
  x = {shape(dims)} parameter(0)
  init = {ty}[] constant({init})
  ROOT reduce = {shape(out)} reduce(x, init), dimensions={{{','.join(map(str, red))}}}, to_apply=region
}}
"""


def inputs(ty: str, dims: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if ty.startswith(("s", "u")):
        return rng.integers(0, 4, dims).astype(_NP[ty])
    return rng.standard_normal(dims).astype(_NP[ty])


def main() -> None:
    from hlotool.reference import run_xla

    for seed, (name, (ty, dims, red, op, init)) in enumerate(sorted(CASES.items())):
        text = module_text(ty, dims, red, op, init)
        x = inputs(ty, dims, seed)
        (out,) = run_xla(text, [x])
        (HERE / f"{name}.hlo").write_text(text)
        np.savez_compressed(HERE / f"{name}.inputs.npz", arg0=x)
        np.savez_compressed(HERE / f"{name}.expected.npz", out0=np.asarray(out))
        print(name, "written")


if __name__ == "__main__":
    main()
