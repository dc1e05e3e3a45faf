"""Sealed cache files: only whole, signed files of ours in a private directory load."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hlotool.sealed import MAGIC, SealedDir, atomic_write_bytes


def _store(tmp_path: Path) -> SealedDir:
    store = SealedDir.open(tmp_path / "cache")
    assert store is not None
    return store


def test_round_trip_and_private_layout(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.write("sub/entry", b"payload")
    assert store.read("sub/entry") == b"payload"
    assert stat.S_IMODE(os.stat(store.root).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(store.root / "sub").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(store.root / ".key").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.root / "sub/entry").st_mode) == 0o600
    assert store.read("missing") is None


def test_a_directory_others_may_write_is_not_used(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "cache"
    root.mkdir()
    os.chmod(root, 0o1777)
    assert SealedDir.open(root) is None
    assert "writable by others (mode 1777)" in capsys.readouterr().err
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o1777


def test_an_existing_directory_is_used_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    root.mkdir()
    os.chmod(root, 0o755)
    store = SealedDir.open(root)
    assert store is not None
    store.write("e", b"data")
    assert store.read("e") == b"data"
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o755


@pytest.mark.parametrize("damage", ["flip", "truncate", "random", "unsealed", "empty", "append"])
def test_damaged_files_are_refused_with_one_notice(tmp_path: Path, damage: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    store = _store(tmp_path)
    store.write("e", b"x" * 100)
    path = store.root / "e"
    raw = bytearray(path.read_bytes())
    if damage == "flip":
        raw[-7] ^= 0x10
    elif damage == "truncate":
        raw = raw[:-1]
    elif damage == "random":
        raw = bytearray(os.urandom(len(raw)))
    elif damage == "unsealed":
        raw = bytearray(b"x" * 100)
    elif damage == "empty":
        raw = bytearray()
    else:
        raw += b"y"
    path.write_bytes(bytes(raw))
    assert store.read("e") is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "notice: ignoring cache file" in err


def test_a_file_others_may_write_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    store = _store(tmp_path)
    store.write("e", b"data")
    os.chmod(store.root / "e", 0o666)
    assert store.read("e") is None
    assert "writable by others" in capsys.readouterr().err


def test_a_symlink_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = _store(tmp_path)
    store.write("real", b"data")
    os.symlink(store.root / "real", store.root / "link")
    assert store.read("link") is None
    assert "unreadable" in capsys.readouterr().err


def test_a_foreign_key_does_not_verify(tmp_path: Path) -> None:
    """A file sealed under another directory's key is corrupt here."""
    a, b = SealedDir.open(tmp_path / "a"), SealedDir.open(tmp_path / "b")
    assert a is not None and b is not None
    a.write("e", b"data")
    (b.root / "e").write_bytes((a.root / "e").read_bytes())
    os.chmod(b.root / "e", 0o600)
    assert (b.root / "e").read_bytes().startswith(MAGIC)
    assert b.read("e") is None


def test_a_non_directory_root_means_no_cache(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert SealedDir.open(tmp_path / "file") is None
    assert "not caching" in capsys.readouterr().err


def test_atomic_write_keeps_the_old_file_when_interrupted(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "f"
    atomic_write_bytes(path, b"old")

    def fail(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
