"""The CPU target's disk cache and kernel deduplication."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hlotool.targets.cpu import compile_module
from hlotool.targets.cpu.cache import DiskCache, module_key

from hlotool.frontend import parse_hlo

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
    """The product's loop goes through the full pipeline, the tree-ordered sum (lane
    folded, few values left for its scalar levels) through the quick one for calls: two
    LLVM modules, two object files, one cache entry."""
    from hlotool.interpreter.core import Evaluator

    cache = DiskCache(tmp_path)
    first = compile_module(parse_hlo(MIXED), cache=cache, autotune=False)
    assert first.library is not None and len(first.library.objects) == 2
    assert "full pipeline" in first.library.llvm_ir and "calls pipeline" in first.library.llvm_ir
    second = compile_module(parse_hlo(MIXED), cache=cache, autotune=False)
    assert second.library is not None and second.library.cache_hit
    a = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    want = Evaluator(parse_hlo(MIXED)).run([a])
    for ex in (first, second):
        got = ex.run([a])
        assert ex.stats.fallback == 0
        for g, w in zip(got, want, strict=True):
            assert np.asarray(g).tobytes() == np.asarray(w).tobytes()


def _entry_file(cache: DiskCache, module_text: str) -> Path:
    key = module_key(parse_hlo(module_text))
    path = cache.root / key[:2] / f"{key}.entry"
    assert path.exists()
    return path


def _swap_sizes(raw: bytes) -> bytes:
    """The entry with its JSON's object sizes reversed (same file size)."""
    import json

    from hlotool.sealed import MAGIC

    head_end = len(MAGIC) + 32
    head, _, rest = raw[head_end:].partition(b"\n")
    meta = json.loads(head)
    meta["sizes"] = meta["sizes"][::-1] if len(meta["sizes"]) > 1 else [meta["sizes"][0] - 1, 1]
    return raw[:head_end] + json.dumps(meta).encode() + b"\n" + rest


@pytest.mark.parametrize("damage", ["random", "flip", "swap-sizes", "truncate", "empty"])
def test_a_damaged_entry_is_rebuilt_with_a_notice(tmp_path: Path, damage: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Never loaded as code: the module compiles again, runs right, and the rewritten entry
    hits the next time."""
    cache = DiskCache(tmp_path)
    compile_module(parse_hlo(TEXT % "a"), cache=cache, autotune=False)
    path = _entry_file(cache, TEXT % "a")
    raw = bytearray(path.read_bytes())
    if damage == "random":
        raw = bytearray(np.random.default_rng(0).bytes(len(raw)))
    elif damage == "flip":
        for k in range(len(raw) // 2, len(raw), 97):
            raw[k] ^= 0xFF
    elif damage == "swap-sizes":
        raw = bytearray(_swap_sizes(bytes(raw)))
    elif damage == "truncate":
        raw = raw[: len(raw) // 2]
    else:
        raw = bytearray()
    path.write_bytes(bytes(raw))
    capsys.readouterr()
    again = compile_module(parse_hlo(TEXT % "a"), cache=cache, autotune=False)
    err = capsys.readouterr().err
    assert again.library is not None and not again.library.cache_hit
    assert err.count("\n") == 1 and "rebuilding" in err
    a, b = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
    np.testing.assert_array_equal(again.run([a, b]), ((a + b) + b + a) * a)
    third = compile_module(parse_hlo(TEXT % "a"), cache=cache, autotune=False)
    assert third.library is not None and third.library.cache_hit


def test_an_entry_is_one_file_with_its_metadata(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    compile_module(parse_hlo(TEXT % "a"), cache=cache, autotune=False)
    files = sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
    assert files == [".key", _entry_file(cache, TEXT % "a").name]


ROW_MAX = """HloModule m
mx {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] maximum(x, y)
}
f {
  p = f32[64,1000] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT m = f32[64] reduce(p, ninf), dimensions={1}, to_apply=mx
}
ENTRY e {
  a = f32[64,1000] parameter(0)
  ROOT o = f32[64] fusion(a), kind=kInput, calls=f
}"""


def test_an_entry_for_other_plans_is_not_loaded(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Code cached for other plans under the same kernel names (a reduce kernel's, where
    this process plans a row kernel with other arguments) is compiled again, not run."""
    from hlotool.targets.cpu import codegen

    cache = DiskCache(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(codegen, "_plan_row_reduction", lambda comp, name: None)
        reduce_kernel = compile_module(parse_hlo(ROW_MAX), cache=cache)
    row_kernel = compile_module(parse_hlo(ROW_MAX), cache=cache)
    assert row_kernel.library is not None and not row_kernel.library.cache_hit
    x = np.random.default_rng(0).standard_normal((64, 1000)).astype(np.float32)
    np.testing.assert_array_equal(row_kernel.run([x]), x.max(axis=1))
    np.testing.assert_array_equal(reduce_kernel.run([x]), x.max(axis=1))
    again = compile_module(parse_hlo(ROW_MAX), cache=cache)
    assert again.library is not None and again.library.cache_hit
