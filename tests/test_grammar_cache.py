"""The grammar cache: planted or damaged tables never run code; they are rebuilt."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from hlotool.grammar_cache import cached_lark
from hlotool.sealed import SealedDir

GRAMMAR = 'start: NUMBER ("," NUMBER)*\n%import common.NUMBER\n%ignore " "\n'
EXAMPLE = Path(__file__).parent.parent / "examples" / "softmax.hlo"


class _Payload:
    """Unpickling this runs `touch MARKER`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


def _parse_all(parser: object) -> None:
    tree = parser.parse("1, 2, 3")  # type: ignore[attr-defined]
    assert [str(t) for t in tree.children] == ["1", "2", "3"]


def test_second_build_loads_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    _parse_all(cached_lark("t", GRAMMAR, parser="lalr"))
    assert (tmp_path / "t.lark.tables").exists()
    _parse_all(cached_lark("t", GRAMMAR, parser="lalr"))
    assert capsys.readouterr().err == ""


def test_a_changed_grammar_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    cached_lark("t", GRAMMAR, parser="lalr")
    other = cached_lark("t", GRAMMAR.replace('","', '";"'), parser="lalr")
    assert [str(t) for t in other.parse("1; 2").children] == ["1", "2"]


def test_a_validly_sealed_payload_still_runs_nothing(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Even signed with the right key, the unpickler resolves only Lark's table classes."""
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    cached_lark("t", GRAMMAR, parser="lalr")
    store = SealedDir.open(tmp_path)
    assert store is not None
    head = store.read("t.lark.tables").partition(b"\n")[0]  # type: ignore[union-attr]
    marker = tmp_path / "pwned"
    store.write("t.lark.tables", head + b"\n" + pickle.dumps(_Payload(marker)))
    _parse_all(cached_lark("t", GRAMMAR, parser="lalr"))
    assert not marker.exists()
    assert "rebuilding" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["hlo-grammar.lark.tables", "hlo-grammar.lark.cache"])
def test_a_planted_pickle_runs_nothing_from_the_cli(tmp_path: Path, name: str) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    marker = tmp_path / "pwned"
    (cache / name).write_bytes(pickle.dumps(_Payload(marker)))
    env = dict(os.environ, HLOTOOL_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-m", "hlotool.cli", "parse", str(EXAMPLE)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert "jit_softmax" in done.stdout
    if name.endswith(".tables"):
        assert done.stderr.count("notice:") == 1


def test_tables_with_a_broken_terminal_are_rebuilt(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A terminal's pattern that no longer compiles is found when the tables load, not
    at the first parse (bench/fuzz.py found one the scanner only met while parsing)."""
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    cached_lark("t", GRAMMAR, parser="lalr")
    store = SealedDir.open(tmp_path)
    assert store is not None
    data = store.read("t.lark.tables")
    assert data is not None
    # Same lengths keep the pickle valid: a pattern that does not compile, and a
    # terminal name that is no group name (bench/fuzz.py, seed 40086).
    for old, new, count in ((b"(?:", b"(?P", 1), (b"NUMBER", b"NUM(ER", -1)):
        assert old in data
        store.write("t.lark.tables", data.replace(old, new, count))
        _parse_all(cached_lark("t", GRAMMAR, parser="lalr"))
        assert "rebuilding" in capsys.readouterr().err
