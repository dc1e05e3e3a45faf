"""The CPU autotuner: tuned kernels are exact, choices are cached, --no-autotune skips it."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from hlotool.commands import compile as compile_cmd
from hlotool.frontend import parse_hlo
from hlotool.targets.cpu import CpuTarget, compile_module
from hlotool.targets.cpu import autotune as at
from hlotool.targets.cpu.cache import DiskCache

TEXT = """HloModule tuned
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[320,384] parameter(0)
  b = f32[4,96,64] parameter(1)
  c = f32[4,80,64] parameter(2)
  t = f32[384,320] transpose(a), dimensions={1,0}
  n = f32[384,320] negate(t)
  z = f32[] constant(0)
  r = f32[320] reduce(a, z), dimensions={1}, to_apply=add
  d = f32[4,96,80] dot(b, c), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  ROOT o = (f32[384,320], f32[320], f32[4,96,80]) tuple(n, r, d)
}
"""


def _args() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s, dtype=np.float32) for s in [(320, 384), (4, 96, 64), (4, 80, 64)]]


def _compile(cache: DiskCache | bool, lines: list[str], **kw: object) -> tuple[CpuTarget, object]:
    target = CpuTarget(cache=cache, log=lines.append, autotune_budget=kw.pop("budget", 5.0), **kw)
    return target, target.compile(parse_hlo(TEXT))


@pytest.fixture(autouse=True)
def _small_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tune small kernels too (these are above the threshold already; keep it so)."""
    monkeypatch.setattr(at, "MIN_ELEMENTS", 1 << 12)
    monkeypatch.delenv("HLOTOOL_AUTOTUNE", raising=False)


def test_every_candidate_is_exact() -> None:
    """Each transpose tile, reduce jam and dot variant gives the untuned result bit for bit."""
    args = _args()
    base = compile_module(parse_hlo(TEXT), cache=False, autotune=False)
    want = base.run(args)
    assert base.tuning == {}
    # The real check: compile with forced parameters through the tuner's own path.
    for tile in (0, *at.TILES):
        for jam in at.JAMS:
            got = _forced(tile, jam).run(args)
            for g, w in zip(got, want, strict=True):
                assert g.tobytes() == w.tobytes(), (tile, jam)


def _forced(tile: int, jam: int) -> object:
    """An executable whose kernels use the given parameters (as a tuned compile would)."""
    from hlotool.targets.cpu.codegen import build_llvm_module, is_llvm, plan_module
    from hlotool.targets.cpu.jit import CodeLibrary
    from hlotool.targets.cpu.runtime import CpuExecutable

    module = parse_hlo(TEXT)
    plan = plan_module(module)
    dot = {"layout": "copy", "batch": "loop"} if jam % 4 == 0 else {"layout": "view", "batch": "loop"}
    for p in plan.plans.values():
        p.tune = {"tile": tile, "jam": jam, **dot}
    llvm_plans = [p for p in plan.plans.values() if is_llvm(p)]
    library = CodeLibrary(module.name)
    units, plan.symbols = build_llvm_module(module.name, llvm_plans)
    library.add_units(units)
    library.finalize()
    return CpuExecutable(module, library, plan)


def test_tuned_result_equals_untuned(tmp_path: Path) -> None:
    lines: list[str] = []
    target, tuned = _compile(DiskCache(tmp_path), lines)
    assert target.tuner is not None and target.tuner.timed == 3
    kinds = sorted(c.kind for c in tuned.tuning.values())
    assert kinds == ["dot", "reduce", "transpose"]
    assert len(lines) == 3 and all(line.startswith("autotune: ") for line in lines)
    assert any(" t f32[384,320] tile=" in line for line in lines)
    untuned = compile_module(parse_hlo(TEXT), cache=False, autotune=False)
    args = _args()
    for g, w in zip(tuned.run(args), untuned.run(args), strict=True):
        assert g.tobytes() == w.tobytes()
    assert tuned.stats.fallback == 0


def test_choice_is_cached_and_reused(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    lines: list[str] = []
    _, first = _compile(cache, lines)
    assert lines
    lines.clear()
    target, second = _compile(cache, lines)
    assert target.tuner is None and not lines  # no timing on the second compile
    assert second.library is not None and second.library.cache_hit
    assert {k: c.params for k, c in second.tuning.items()} == \
        {k: c.params for k, c in first.tuning.items()}
    assert second.kernel_params == first.kernel_params
    # A compile that does not ask for tuning still gets the tuned code from the cache.
    target, third = _compile(cache, lines, autotune=False)
    assert target.tuner is None and third.library.cache_hit and third.tuning


def test_untuned_entry_is_retuned(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    lines: list[str] = []
    target, ex = _compile(cache, lines, autotune=False)
    assert target.tuner is None and not lines and ex.tuning == {}
    target, ex = _compile(cache, lines, autotune=True)
    assert target.tuner is not None and len(lines) == 3 and ex.tuning


def test_no_autotune_skips_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*a: object, **k: object) -> None:
        raise AssertionError("timed with autotuning off")

    monkeypatch.setattr(at.Tuner, "_tune_one", boom)
    lines: list[str] = []
    target, ex = _compile(False, lines, autotune=False)
    assert target.tuner is None and not lines and ex.tuning == {}
    assert set(ex.kernel_params.values()) >= {"transpose tile=32", "reduce jam=8"}
    monkeypatch.setenv("HLOTOOL_AUTOTUNE", "0")
    target, ex = _compile(False, lines)
    assert target.tuner is None and not lines


def test_budget_zero_tunes_nothing(tmp_path: Path) -> None:
    lines: list[str] = []
    target, ex = _compile(DiskCache(tmp_path), lines, budget=0.0)
    assert target.tuner is not None and target.tuner.timed == 0 and ex.tuning == {}
    assert lines and "budget" in lines[0]


def test_compile_command_shows_parameters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.hlo"
    src.write_text(TEXT)
    p = argparse.ArgumentParser()
    compile_cmd.add_arguments(p)
    out = tmp_path / "out.ll"
    assert compile_cmd.run(p.parse_args([str(src), "-o", str(out)])) == 0
    text = out.read_text()
    # compile runs the cpu pipeline first, as run does: the reduce is a wrapped fusion
    # and the negated transpose a layout-changing copy fusion (no tile parameter).
    assert "; kernel k0_" in text and "reduce jam=" in text and "dot layout=" in text
    assert "autotuned on wrapped_reduce f32[320,384]" in text
    assert "autotune: wrapped_reduce f32[320,384]" in capsys.readouterr().err
    # Second time: choices come from the cache, no timing, still shown.
    assert compile_cmd.run(p.parse_args([str(src), "-o", str(out)])) == 0
    assert "autotune:" not in capsys.readouterr().err
    assert "autotuned on wrapped_reduce " in out.read_text()
    out2 = tmp_path / "out.s"
    assert compile_cmd.run(p.parse_args([str(src), "--emit", "asm", "--no-autotune",
                                         "-o", str(out2)])) == 0
    assert out2.read_text().startswith("# kernel k0_")
