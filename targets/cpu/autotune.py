"""Autotuning: time a few code-generation variants of a kernel on first compile.

The kernels with real choices in this code generator:

* **transpose** (loop kernels that tile a transposed operand, `loop.transposed_dim`): the
  tile edge, `tile` in {16, 32, 64, 128}, default 32 (0 = untiled
  is supported but not timed);
* **reduce** (row reductions, `reduce.is_row_reduction`): how many 32-element windows
  are folded side by side, `jam` in {2, 4, 8, 16}, default 8;
* **dot** (CBLAS, called from the kernel or through numpy): `layout` view/copy (BLAS
  reads a transposed operand through strides, or it is made contiguous first) and, for
  batched dots, `batch` stacked/loop (one batched gemm, or one gemm per batch).

Convolutions are not tuned: their two contractions (the register-tiled microkernel and
CBLAS gemm, `conv.ConvPlan.tune`) sum in different orders, and the tuner only chooses
between variants that compute the same bits, so results never depend on a timing. The
default (the microkernel) was the faster on every shape measured.

Every variant computes the same values in the same order (tiles only reorder independent
stores; jammed windows are each folded in XLA's order and combined in order), and the
tuner checks it: each candidate runs once on random inputs of the kernel's shapes and a
candidate whose result differs in any bit from the default's is rejected. Candidates are
then timed round-robin (other jobs share the machine), the minimum of each is kept, and
the fastest wins; the default stays unless another is faster by `MIN_GAIN`.

The budget (`HLOTOOL_AUTOTUNE_BUDGET`, seconds per module, default 2) covers compiling
and timing the candidates; kernels are tuned largest first and the rest keep their
defaults once it is spent. Kernels with fewer than `MIN_ELEMENTS` elements of work are
not tuned (the choice does not matter and the timing is noise). The choices are stored in
the disk cache entry with the object code, so a cached compile reuses them without timing.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from hlotool.ir.instruction import Instruction
from hlotool.targets.cpu.kernels.dot import DotPlan, DotThunk, dot_variants
from hlotool.targets.cpu.kernels.loop import TILE, LoopPlan, transposed_dim
from hlotool.targets.cpu.kernels.reduce import JAM, ReducePlan, is_row_reduction

#: Seconds per module spent compiling and timing candidates (HLOTOOL_AUTOTUNE_BUDGET).
DEFAULT_BUDGET_S = 2.0
#: Smallest kernel (elements of output, of reduced input, or multiply-adds / 16 for a
#: dot) worth tuning.
MIN_ELEMENTS = 1 << 16
#: A candidate replaces the default only when this much faster (timing noise).
MIN_GAIN = 0.03
#: Timing rounds over all candidates at most.
MAX_ROUNDS = 7

#: Tile edges timed (0, untiled, is supported by the emitter but 3-7x slower on every
#: transpose big enough to tune, so it is not timed).
TILES = (16, 32, 64, 128)
JAMS = (2, 4, 8, 16)

Log = Callable[[str], None]


def enabled(flag: bool | None = None) -> bool:
    """Whether to autotune: `flag` when given, else $HLOTOOL_AUTOTUNE (default on)."""
    if flag is not None:
        return flag
    env = os.environ.get("HLOTOOL_AUTOTUNE")
    return env is None or env.strip().lower() not in ("0", "off", "no", "false", "none")


def budget(seconds: float | None = None) -> float:
    """The tuning budget per module: `seconds`, else $HLOTOOL_AUTOTUNE_BUDGET, else 2 s."""
    if seconds is not None:
        return float(seconds)
    try:
        return float(os.environ.get("HLOTOOL_AUTOTUNE_BUDGET", DEFAULT_BUDGET_S))
    except ValueError:
        return DEFAULT_BUDGET_S


def stderr_log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass(slots=True)
class Space:
    """The choices of one kernel."""

    kind: str
    default: dict[str, Any]
    candidates: list[dict[str, Any]]
    #: Elements of work (orders the kernels, thresholds tuning).
    work: int


def space(ins: Instruction, plan: Any) -> Space | None:
    """The candidates for `plan` (None when there is no choice to make)."""
    if isinstance(plan, LoopPlan):
        j = transposed_dim(plan)
        if j is None:
            return None
        dims = plan.roots[0].shape.dimensions
        edge = max(dims[j], dims[-1])
        tiles = [t for t in TILES if t <= edge or t == TILE]
        return Space("transpose", {"tile": TILE}, [{"tile": t} for t in tiles], math.prod(dims))
    if isinstance(plan, ReducePlan):
        if not is_row_reduction(plan):
            return None
        n = plan.reduce.operand(0).shape.dimensions[-1]
        windows = -(-n // 32)
        jams = [j for j in JAMS if j <= max(windows, JAM)]
        work = math.prod(plan.reduce.operand(0).shape.dimensions)
        return Space("reduce", {"jam": JAM}, [{"jam": j} for j in jams], work)
    if isinstance(plan, DotPlan):
        variants = dot_variants(ins)
        if len(variants) < 2:
            return None
        t = DotThunk(ins)
        nb, m, k = t.lshape
        work = nb * m * k * t.rshape[2] // 16
        return Space("dot", {"layout": "view", "batch": "stacked"}, variants, work)
    return None


def label(params: dict[str, Any], *, keys: bool = True) -> str:
    if not keys:
        return "/".join(str(v) for v in params.values())
    return " ".join(f"{k}={v}" for k, v in params.items())


@dataclass(slots=True)
class Choice:
    """What the tuner picked for one kernel (kept in the disk cache entry)."""

    kernel: str
    instruction: str
    shape: str
    kind: str
    params: dict[str, Any]
    #: Best time of the winner and of the default, in milliseconds.
    ms: float
    default_ms: float
    #: Candidate label -> best time in ms (rejected candidates absent).
    tried: dict[str, float] = field(default_factory=dict)
    rejected: list[str] = field(default_factory=list)

    def line(self) -> str:
        """`autotune: t f32[2048,2048] tile=64 (0.91 ms; tried 0:1.5 16:1.1 32:1.0 64:0.91 ms)`."""
        default = "" if self.ms == self.default_ms else f", default {self.default_ms:.3g} ms"
        rejected = f"; rejected {','.join(self.rejected)} (results differ)" if self.rejected else ""
        tried = " ".join(f"{k}:{v:.3g}" for k, v in self.tried.items())
        return (f"autotune: {self.instruction} {self.shape} {label(self.params)} "
                f"({self.ms:.3g} ms{default}; tried {tried} ms{rejected})")

    def to_json(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "instruction": self.instruction, "shape": self.shape,
                "kind": self.kind, "params": self.params, "ms": self.ms,
                "default_ms": self.default_ms, "tried": self.tried, "rejected": self.rejected}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Choice:
        return cls(d["kernel"], d["instruction"], d["shape"], d["kind"], dict(d["params"]),
                   float(d["ms"]), float(d["default_ms"]), dict(d.get("tried", {})),
                   list(d.get("rejected", [])))


def shape_text(ins: Instruction, plan: Any) -> str:
    """`f32[2048,2048]` (a reduce: `f32[4096,4096]->f32[4096]`)."""
    def one(s: Any) -> str:
        return f"{s.element_type.value}[{','.join(str(d) for d in s.dimensions)}]"

    if isinstance(plan, ReducePlan):
        return f"{one(plan.reduce.operand(0).shape)}->{one(plan.reduce.shape)}"
    if isinstance(plan, DotPlan):
        return f"{one(ins.operand(0).shape)}x{one(ins.operand(1).shape)}->{one(ins.shape)}"
    return one(plan.roots[0].shape)


def describe(plan: Any) -> str | None:
    """The parameters a tunable kernel is compiled with (None when it has none)."""
    kind = None
    if isinstance(plan, LoopPlan) and transposed_dim(plan) is not None:
        kind, params = "transpose", {"tile": plan.tune.get("tile", TILE)}
    elif isinstance(plan, ReducePlan) and is_row_reduction(plan):
        kind, params = "reduce", {"jam": plan.tune.get("jam", JAM)}
    elif isinstance(plan, DotPlan):
        kind = "dot"
        params = {"layout": plan.tune.get("layout", "view"),
                  "batch": plan.tune.get("batch", "stacked")}
    return None if kind is None else f"{kind} {label(params)}"


def random_inputs(specs: list[tuple[tuple[int, ...], Any]], seed: int = 0) -> list[np.ndarray]:
    """Arrays of the kernel's input shapes and types (values are irrelevant to speed but
    finite, so results compare bit for bit)."""
    rng = np.random.default_rng(seed)
    out = []
    for dims, dtype in specs:
        dtype = np.dtype(dtype)
        if dtype.kind == "b":
            a = rng.random(dims) < 0.5
        elif dtype.kind in "iu":
            lo = 0 if dtype.kind == "u" else -100
            a = rng.integers(lo, 100, size=dims).astype(dtype)
        else:
            a = rng.standard_normal(dims, dtype=np.float32).astype(dtype)
        out.append(np.ascontiguousarray(a))
    return out


def _same(x: Any, y: Any) -> bool:
    xs = x if isinstance(x, tuple) else (x,)
    ys = y if isinstance(y, tuple) else (y,)
    return len(xs) == len(ys) and all(
        np.asarray(a).shape == np.asarray(b).shape and np.asarray(a).tobytes() == np.asarray(b).tobytes()
        for a, b in zip(xs, ys, strict=True))


class Tuner:
    """Tunes the kernels of one module within one budget."""

    def __init__(self, module_name: str, *, budget_s: float | None = None,
                 log: Log | None = stderr_log, min_elements: int | None = None) -> None:
        self.module_name = module_name
        self.budget_s = budget(budget_s)
        self.log = log
        self.min_elements = MIN_ELEMENTS if min_elements is None else min_elements
        self.start = time.perf_counter()
        #: Kernels timed (for tests: a cached compile times none).
        self.timed = 0

    def left(self) -> float:
        return self.budget_s - (time.perf_counter() - self.start)

    def tune(self, kernels: list[tuple[Instruction, Any]]) -> dict[str, Choice]:
        """Kernel name -> Choice for every tuned kernel of `kernels` ((instruction, plan)
        pairs); identical kernels are timed once and share the choice."""
        from hlotool.targets.cpu.codegen import build_llvm_module, is_llvm

        groups: dict[str, list[tuple[Instruction, Any, Space]]] = {}
        for ins, plan in kernels:
            sp = space(ins, plan)
            if sp is None or sp.work < self.min_elements:
                continue
            if is_llvm(plan):
                key = repr(sorted((p.value, text) for p, text in
                                  build_llvm_module("k", [replace(plan, name="k")])[0].items()))
            else:
                key = repr((ins.operand(0).shape, ins.operand(1).shape, ins.shape,
                            sorted((k, str(v)) for k, v in ins.attrs.items())))
            groups.setdefault(key, []).append((ins, plan, sp))
        # Generated kernels first (their choices matter most), then BLAS dots; largest first.
        order = sorted(groups.values(), key=lambda g: (g[0][2].kind == "dot", -g[0][2].work))
        out: dict[str, Choice] = {}
        for n, group in enumerate(order):
            if self.left() <= 0:
                if self.log:
                    self.log(f"autotune: budget of {self.budget_s:g} s spent; "
                             f"{len(order) - n} kernel(s) keep their defaults")
                break
            ins, plan, sp = group[0]
            choice = self._tune_one(ins, plan, sp, self.left() / (len(order) - n))
            if choice is None:
                continue
            self.timed += 1
            if self.log:
                self.log(choice.line())
            for _, p, _ in group:
                out[p.name] = replace(choice, kernel=p.name)
        return out

    def _tune_one(self, ins: Instruction, plan: Any, sp: Space, slice_s: float) -> Choice | None:
        """Compile and time the candidates: at least one run each, more rounds while the
        kernel's share of the budget (`slice_s` seconds) lasts."""
        cands = [sp.default] + [c for c in sp.candidates if c != sp.default]
        thunks = self._thunks(ins, plan, cands)
        if thunks is None:
            return None
        args = random_inputs(thunks[0].in_specs)
        t_start = time.perf_counter()
        best: dict[int, float] = {}

        def timed(i: int) -> Any:
            t0 = time.perf_counter()
            value = thunks[i](args)
            best[i] = min(best.get(i, math.inf), time.perf_counter() - t0)
            return value

        with np.errstate(all="ignore"):
            # Round 0 checks results (and warms up): a differing candidate is rejected.
            want = timed(0)
            ok, rejected = [0], []
            for i in range(1, len(cands)):
                if _same(timed(i), want):
                    ok.append(i)
                else:
                    rejected.append(label(cands[i], keys=False))
                    best.pop(i)
            for _ in range(MAX_ROUNDS):
                round_s = sum(best.values())
                spent = time.perf_counter() - t_start
                if spent + round_s > slice_s or self.left() < round_s:
                    break
                for i in ok:
                    timed(i)
        win = min(ok, key=lambda i: best[i])
        if best[win] > best[0] * (1 - MIN_GAIN):
            win = 0
        return Choice(plan.name, ins.name, shape_text(ins, plan), sp.kind, dict(cands[win]),
                      best[win] * 1e3, best[0] * 1e3,
                      {label(c, keys=False): best[cands.index(c)] * 1e3 for c in sp.candidates
                       if cands.index(c) in best}, rejected)

    def _thunks(self, ins: Instruction, plan: Any, cands: list[dict[str, Any]]) -> list[Any] | None:
        if isinstance(plan, DotPlan):
            return [DotThunk(ins, c) for c in cands]
        from hlotool.targets.cpu.codegen import build_llvm_module
        from hlotool.targets.cpu.jit import CodeLibrary
        from hlotool.targets.cpu.runtime import Thunk

        variants = [replace(plan, name=f"{plan.name}.t{i}", tune=dict(c)) for i, c in enumerate(cands)]
        library = CodeLibrary(f"{self.module_name}.autotune")
        units, symbols = build_llvm_module(f"{self.module_name}.autotune", variants)
        library.add_units(units)
        library.finalize()
        self._keep = library  # the thunks' code lives as long as the library
        return [Thunk(ins, v, library, symbols[v.name]) for v in variants]


def apply(plans: dict[int, Any], choices: dict[str, Choice]) -> None:
    """Set each tuned plan's parameters from `choices` (kernel name -> Choice)."""
    for plan in plans.values():
        c = choices.get(plan.name)
        if c is not None:
            plan.tune = dict(c.params)
