"""Where the caches live and the source stamp that keys their entries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hlotool.caches import _stat_sources, cache_root, source_stamp
from hlotool.targets.cpu.cache import cache_dir


def _stamp_lines(folder: Path) -> list[str]:
    lines: list[str] = []
    _stat_sources(folder, (".py", ".lark"), lines)
    return sorted(lines)


def test_the_stamp_follows_every_source_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "b.py").write_text("y = 2\n")
    (tmp_path / "__pycache__" / "c.py").write_text("")
    (tmp_path / "notes.txt").write_text("")
    before = _stamp_lines(tmp_path)
    assert [line.split()[0] for line in before] == [str(tmp_path / "a.py"),
                                                    str(tmp_path / "sub" / "b.py")]
    (tmp_path / "sub" / "b.py").write_text("y = 3\n")  # same size: the time tells
    st = os.stat(tmp_path / "sub" / "b.py")
    os.utime(tmp_path / "sub" / "b.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1000))
    assert _stamp_lines(tmp_path) != before


def test_stamps_differ_by_folders() -> None:
    assert source_stamp("", "passes") != source_stamp("", "targets.cpu")
    assert source_stamp("passes") == source_stamp("passes")


@pytest.mark.parametrize("setting", ["off", "none", "0", "", " OFF "])
def test_the_setting_turns_every_cache_off(monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", setting)
    assert cache_root() is None and cache_dir() is None


def test_locations(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    assert cache_root() == tmp_path and cache_dir() == tmp_path
    monkeypatch.delenv("HLOTOOL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "hlotool"
    assert cache_dir() == tmp_path / "xdg" / "hlotool" / "cpu"
