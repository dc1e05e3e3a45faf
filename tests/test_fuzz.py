"""Bounded mutation fuzzing of every reader (bench/fuzz.py runs the long version): both
grammars through the CLI (and the CPU target), npz files with their sidecars, sealed cache
files, signed but mutated CPU cache entries and grammar tables. A mutant must be accepted
or rejected with a clean error (exit 0/1/2, never "internal error")."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz import (
    ORIGINAL_ENTRY,
    _cli,
    ORIGINAL_SEALED,
    TINY_GRAMMAR,
    check_cpu,
    check_entry,
    check_grammar,
    check_npz,
    check_sealed,
    check_text,
    corpus_texts,
    mutate_bytes,
    mutate_sidecar,
    mutate_text,
)
from hlotool.grammar_cache import cached_lark
from hlotool.sealed import SealedDir
from hlotool.targets.cpu.cache import DiskCache
from hlotool.values_io import save_npz

#: Examples per test; HLOTOOL_FUZZ_EXAMPLES=1000 for a longer local run.
EXAMPLES = int(os.environ.get("HLOTOOL_FUZZ_EXAMPLES", "12"))
TEXTS = corpus_texts(limit_bytes=8000)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    derandomize=not os.environ.get("HLOTOOL_FUZZ_RANDOM"),
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("language", ["hlo", "mlir"])
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_text_mutants_get_clean_errors(folder: Path, language: str, seed: int) -> None:
    rng = random.Random(seed)
    name, text = rng.choice([t for t in TEXTS if t[0].endswith(language)])
    problem = check_text(folder / f"m.{language}", mutate_text(text, rng), run=seed % 8 == 0)
    assert problem is None, f"{name} seed {seed}: {problem}"


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), with_sidecar=st.booleans())
def test_npz_mutants_load_or_fail_cleanly(folder: Path, seed: int, with_sidecar: bool) -> None:
    good = folder / "good.npz"
    if not good.exists():
        save_npz(good, {"arg0": np.arange(6, dtype=np.float32), "arg1": np.ones(3, np.uint16)})
    rng = random.Random(seed)
    sidecar = mutate_sidecar(rng) if with_sidecar else None
    assert check_npz(folder, mutate_bytes(good.read_bytes(), rng), sidecar) is None


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_sealed_mutants_are_never_accepted_changed(folder: Path, seed: int) -> None:
    store = SealedDir.open(folder / "cache")
    assert store is not None
    if not (store.root / "e").exists():
        store.write("e", ORIGINAL_SEALED)
    data = mutate_bytes((store.root / "e").read_bytes(), random.Random(seed))
    assert check_sealed(store, "m", data) is None


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_signed_cpu_cache_entry_mutants_decode_or_are_refused(folder: Path, seed: int) -> None:
    rng = random.Random(seed)
    data = mutate_bytes(ORIGINAL_ENTRY, rng) if seed % 2 else \
        mutate_text(ORIGINAL_ENTRY.decode("latin-1"), rng).encode("latin-1", "replace")
    assert check_entry(DiskCache(folder / "entries"), data) is None


def test_the_original_cpu_cache_entry_decodes(folder: Path) -> None:
    cache = DiskCache(folder / "entries")
    assert check_entry(cache, ORIGINAL_ENTRY) is None
    entry = cache.load("ab" * 32)
    assert entry is not None and entry.objects == [b"\x7fELF", b"ab"]


@settings(SETTINGS, max_examples=max(2, EXAMPLES // 4))
@given(seed=st.integers(0, 2**32 - 1))
def test_signed_grammar_table_mutants_load_or_are_rebuilt(
        folder: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(folder / "grammar"))
    cached_lark("fuzz", TINY_GRAMMAR, parser="lalr")
    store = SealedDir.open(folder / "grammar")
    assert store is not None
    tables = store.read("fuzz.lark.tables")
    assert tables is not None
    head, _, body = tables.partition(b"\n")
    data = head + b"\n" + mutate_bytes(body, random.Random(seed))
    assert check_grammar(store, "fuzz.lark.tables", data) is None


def test_cpu_runs_of_mutants_end_cleanly(folder: Path) -> None:
    """A few parsing mutants through `run --target cpu` in a child process."""
    rng = random.Random(5)
    ran = 0
    for name, text in TEXTS:
        if ran == 2 or not name.endswith(".hlo"):
            continue
        path = folder / "cpu.hlo"
        path.write_text(mutate_text(text, rng))
        if _cli(["parse", str(path)])[0] == 0:
            assert check_cpu(path) is None, name
            ran += 1
    assert ran == 2
