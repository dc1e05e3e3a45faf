"""Unstable sorts with ties, and XLA:CPU (jaxlib) to run them: shared by the interpreter's
and the CPU target's tests of std::sort's tie order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import pytest

#: Comparators over (p0, p1) = operand 0's lhs and rhs: a key form (the key paths) and
#: one the key paths do not recognise (the general paths), both strict weak orders.
KEY_GT = "  ROOT c = pred[] compare(p0, p1), direction=GT"
GENERAL_LT = """  lt = pred[] compare(p0, p1), direction=LT
  t = pred[] constant(true)
  ROOT c = pred[] and(lt, t)"""


@dataclass(frozen=True, slots=True)
class Case:
    """A sort of operands (keys first) along `dim`, without is_stable."""

    name: str
    types: tuple[str, ...]
    shape: tuple[int, ...]
    dim: int
    body: str

    def text(self) -> str:
        dims = ",".join(map(str, self.shape))
        shapes = [f"{t}[{dims}]" for t in self.types]
        decl = "\n".join(f"  p{2 * k + j} = {t}[] parameter({2 * k + j})"
                         for k, t in enumerate(self.types) for j in (0, 1))
        args = "\n".join(f"  a{k} = {s} parameter({k})" for k, s in enumerate(shapes))
        result = shapes[0] if len(shapes) == 1 else f"({', '.join(shapes)})"
        names = ", ".join(f"a{k}" for k in range(len(shapes)))
        return (f"HloModule m\ncmp {{\n{decl}\n{self.body}\n}}\nENTRY e {{\n{args}\n"
                f"  ROOT s = {result} sort({names}), dimensions={{{self.dim}}}, to_apply=cmp\n}}")

    def arguments(self, seed: int) -> list[np.ndarray]:
        """Keys with many ties (a few distinct values), then iotas along the sort dim."""
        rng = np.random.default_rng(seed)
        n = self.shape[self.dim]
        keys = rng.integers(-3, 4 + n // 8, self.shape).astype(_dtype(self.types[0]))
        line = np.arange(n).reshape([n if d == self.dim else 1 for d in range(len(self.shape))])
        iota = np.broadcast_to(line, self.shape)
        return [keys] + [(iota * (k + 1)).astype(_dtype(t))
                         for k, t in enumerate(self.types[1:])]


def _dtype(t: str) -> Any:
    return {"bf16": ml_dtypes.bfloat16, "f32": np.float32, "s32": np.int32,
            "s8": np.int8, "f64": np.float64, "u16": np.uint16}[t]


CASES = [
    Case("bf16_gt_s32_rows", ("bf16", "s32"), (16, 256), 1, KEY_GT),
    Case("s32_gt_short_rows", ("s32", "s32"), (6, 40), 1, KEY_GT),
    Case("f32_gt_along_dim0", ("f32", "s32"), (300, 3), 0, KEY_GT),
    Case("s8_three_operands", ("s8", "s32", "f64"), (2, 1000), 1, KEY_GT),
    Case("u16_gt_one_long_row", ("u16", "s32"), (5000,), 0, KEY_GT),
    Case("general_f32_lt", ("f32", "s32"), (4, 300), 1, GENERAL_LT),
    Case("general_s32_lt_dim0", ("s32", "s32", "s32"), (70, 2), 0, GENERAL_LT),
]


def xla_run(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """Outputs of the HLO module on XLA:CPU (jaxlib, in this process)."""
    jax = pytest.importorskip("jax")
    from hlotool.reference import compile_xla

    exe = compile_xla(text)
    with jax.enable_x64(True):
        outs = exe.execute([jax.device_put(a) for a in args])
    return [np.asarray(o) for o in outs]


class _Gas:
    """An element of McIlroy's quicksort adversary: its value is fixed only when a
    comparison needs it, as the smallest one not yet used ("gas" > every fixed value)."""

    __slots__ = ("board", "i")

    def __init__(self, board: dict[str, Any], i: int) -> None:
        self.board, self.i = board, i

    def __lt__(self, other: _Gas) -> bool:
        board, x, y = self.board, self.i, other.i
        val = board["val"]
        if val[x] is None and val[y] is None:
            val[x if x == board["candidate"] else y] = board["solid"]
            board["solid"] += 1
        if val[x] is None:
            board["candidate"] = x
        elif val[y] is None:
            board["candidate"] = y
        if val[x] is None:
            return False
        return val[y] is None or val[x] < val[y]


def quicksort_killer(n: int) -> np.ndarray:
    """Values on which libstdc++'s introsort exhausts its depth limit (McIlroy's adversary
    run against the interpreter's replay of it)."""
    from hlotool.interpreter.kernels.introsort import std_sort_permutation

    board: dict[str, Any] = {"val": [None] * n, "solid": 0, "candidate": None}
    std_sort_permutation([_Gas(board, i) for i in range(n)])  # type: ignore[misc]
    fixed = board["solid"]
    return np.array([fixed + i if v is None else v for i, v in enumerate(board["val"])])
