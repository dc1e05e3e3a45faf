"""Where hlotool's disk caches live and what their entries are keyed on.

Three caches keep work across processes: the grammars' parse tables
(`hlotool.grammar_cache`), modules after a target's pass pipeline
(`hlotool.pipeline_cache`) and the CPU target's object code (`hlotool.targets.cpu.cache`).
All go through `hlotool.sealed` (private, owned, signed, written whole).

Location: `$HLOTOOL_CACHE_DIR` when set (`off`, `none`, `0` or empty disables every
cache), else `$XDG_CACHE_HOME/hlotool` or `~/.cache/hlotool`.

An entry's key includes a stamp of the source code that produced it (`source_stamp`):
each file's path, size and modification time under the folders it depends on, and the
hlotool version, so an edited checkout never loads what older code computed.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

_OFF = ("", "off", "none", "0")
#: The installed packages' folders (hlotool, hlotool.grammar, hlotool.passes,
#: hlotool.targets are separate folders in a source checkout).
_PACKAGE = Path(__file__).resolve().parent
#: What counts as source.
_SOURCES = (".py", ".lark")


def cache_root() -> Path | None:
    """The caches' directory, or None when caching is off."""
    setting = os.environ.get("HLOTOOL_CACHE_DIR")
    if setting is not None:
        return None if setting.strip().lower() in _OFF else Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hlotool"


def cache_dir_is_set() -> bool:
    """Whether `$HLOTOOL_CACHE_DIR` names the directory (then no per-cache subfolder)."""
    return "HLOTOOL_CACHE_DIR" in os.environ


def package_folder(name: str) -> Path:
    """The folder of the subpackage `hlotool.<name>` (e.g. "passes", "targets.cpu"),
    found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec(f"hlotool.{name}")
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(f"hlotool.{name} is not an installed package")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def source_stamp(*folders: str) -> str:
    """A hash of the source files (`.py`, `.lark`) under the packages `folders` ("" is
    hlotool's own folder, else a subpackage name as for `package_folder`): each file's
    path, size and modification time (reading and hashing the files would cost 3-20 ms a
    process; this takes ~0.5 ms for 250 files, each folder once a process), and the
    hlotool version."""
    parts = [_folder_stamp(name) for name in folders]
    return hashlib.blake2b("\n".join([*parts, hlotool_version()]).encode(),
                           digest_size=16).hexdigest()


@functools.cache
def _folder_stamp(name: str) -> str:
    lines: list[str] = []
    _stat_sources(package_folder(name) if name else _PACKAGE, _SOURCES, lines)
    lines.sort()
    return hashlib.blake2b("\n".join(lines).encode(), digest_size=16).hexdigest()


def _stat_sources(folder: Path | str, suffixes: tuple[str, ...], lines: list[str]) -> None:
    """Append "path size mtime" for each file ending in `suffixes` under `folder`."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    _stat_sources(entry.path, suffixes, lines)
            elif entry.name.endswith(suffixes):
                st = entry.stat()
                lines.append(f"{entry.path} {st.st_size} {st.st_mtime_ns}")


@functools.cache
def hlotool_version() -> str:
    """The version of the hlotool distribution on `sys.path` (from its `.dist-info`
    folder's name: importlib.metadata costs ~80 ms of imports)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("hlotool-") and name.endswith(".dist-info"):
                return name[len("hlotool-"):-len(".dist-info")]
    return "unknown"
