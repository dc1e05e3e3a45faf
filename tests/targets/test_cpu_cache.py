"""The CPU target's disk cache and kernel deduplication."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hlotool.frontend import parse_hlo
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.cache import DiskCache, module_key

TEXT = """HloModule m
ENTRY e {
  a = f32[64] parameter(0)
  b = f32[64] parameter(1)
  x = f32[64] add(a, b)
  y = f32[64] add(x, b)
  z = f32[64] add(y, a)
  ROOT r = f32[64] multiply(z, %s)
}"""


def test_second_compile_hits_the_cache(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    first = compile_module(parse_hlo(TEXT % "a"), cache=cache)
    assert first.library is not None and not first.library.cache_hit
    second = compile_module(parse_hlo(TEXT % "a"), cache=cache)
    assert second.library is not None and second.library.cache_hit
    assert "optimize" not in second.library.timings.stages
    a, b = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
    np.testing.assert_array_equal(first.run([a, b]), second.run([a, b]))
    assert second.stats.fallback == 0


def test_changed_module_misses(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    compile_module(parse_hlo(TEXT % "a"), cache=cache)
    other = compile_module(parse_hlo(TEXT % "b"), cache=cache)
    assert other.library is not None and not other.library.cache_hit
    assert module_key(parse_hlo(TEXT % "a")) != module_key(parse_hlo(TEXT % "b"))
    renamed = parse_hlo((TEXT % "a").replace("z", "w"))
    assert module_key(renamed) != module_key(parse_hlo(TEXT % "a"))


def test_cache_can_be_disabled(tmp_path: Path) -> None:
    ex = compile_module(parse_hlo(TEXT % "a"), cache=False)
    assert ex.library is not None and not ex.library.cache_hit
    assert not list(tmp_path.iterdir())


def test_identical_kernels_share_one_function() -> None:
    ex = compile_module(parse_hlo(TEXT % "a"), cache=False)
    assert len(ex.thunks) == 4
    assert len(set(ex.symbols.values())) == 2  # three adds of f32[64], one multiply


MIXED = """HloModule mixed
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4096] parameter(0)
  z = f32[] constant(0)
  sq = f32[4096] multiply(a, a)
  sum = f32[] reduce(a, z), dimensions={0}, to_apply=add
  ROOT r = (f32[4096], f32[]) tuple(sq, sum)
}"""


def test_a_module_with_both_pipelines_caches_both_objects(tmp_path: Path) -> None:
    """The product's loop goes through the full pipeline, the tree-ordered sum through
    the lean one: two LLVM modules, two object files, one cache entry."""
    from hlotool.interpreter.core import Evaluator

    cache = DiskCache(tmp_path)
    first = compile_module(parse_hlo(MIXED), cache=cache, autotune=False)
    assert first.library is not None and len(first.library.objects) == 2
    assert "full pipeline" in first.library.llvm_ir and "lean pipeline" in first.library.llvm_ir
    second = compile_module(parse_hlo(MIXED), cache=cache, autotune=False)
    assert second.library is not None and second.library.cache_hit
    a = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    want = Evaluator(parse_hlo(MIXED)).run([a])
    for ex in (first, second):
        got = ex.run([a])
        assert ex.stats.fallback == 0
        for g, w in zip(got, want, strict=True):
            assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
