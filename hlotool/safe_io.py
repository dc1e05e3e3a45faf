"""Writing the files the tool produces: checked before the work, never half-written.

Every output (`--output`, `-o`, dump directories, reproducers, charts, drawings) goes
through `atomic_write` or `atomic_files`: the data goes to a temporary file in the same
directory, which is renamed over the target only once it is complete, so an interrupted
or failed write leaves the previous file as it was. The name given is the name written
(through a symlink, the file it points to); a device or pipe (`/dev/null`, `/dev/stdout`)
is written in place.
`check_output` and `check_dump_dir` run before the command does its work, so a missing
folder or a directory given as a file is reported at once, not after a long run.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

#: Temporary files being written now (removed by `remove_pending` on an interrupt).
_PENDING: set[Path] = set()


class OutputError(Exception):
    """An output path that cannot be written (a usage error: exit 2)."""


def check_output(path: str | Path | None, *, stdout_ok: bool = True) -> None:
    """Raise OutputError unless `path` names a file that can be written (`-` is
    standard output when `stdout_ok`)."""
    if path is None or (stdout_ok and str(path) == "-"):
        return
    p = Path(path)
    if str(path).endswith(os.sep) or p.is_dir():
        raise OutputError(f"cannot write {path}: it is a directory (name the output file)")
    folder = p.parent
    if not folder.is_dir():
        raise OutputError(f"cannot write {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {path}: folder {folder} is not writable")


def check_dump_dir(path: str | Path) -> Path:
    """Create the directory `path` (with parents) now; OutputError when it cannot be."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"cannot dump into {path}: it is a file, not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create dump directory {path}: {exc.strerror}") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise OutputError(f"cannot dump into {path}: it is not writable")
    return p


def _is_special(path: Path) -> bool:
    """Whether `path` exists and is not a regular file (a device, a pipe)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _temporary(path: Path) -> tuple[Path | None, BinaryIO]:
    """A temporary file beside `path` (None and `path` itself for a device or pipe)."""
    if _is_special(path):
        return None, path.open("wb")
    path = Path(os.path.realpath(path))
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    _PENDING.add(tmp)
    return tmp, os.fdopen(fd, "wb")


@contextmanager
def atomic_files(*paths: str | Path) -> Iterator[list[BinaryIO]]:
    """Open a temporary file beside each of `paths`; when the block ends normally they
    are renamed over `paths` (back to back), else removed."""
    targets = [Path(p) for p in paths]
    opened: list[tuple[Path, BinaryIO]] = []
    try:
        try:
            for t in targets:
                opened.append(_temporary(t))
        except OSError as exc:
            raise OutputError(f"cannot write {t}: {exc.strerror}") from None
        yield [f for _, f in opened]
        for tmp, f in opened:
            f.flush()
            if tmp is not None:
                os.fsync(f.fileno())
            f.close()
        for (tmp, _), t in zip(opened, targets):
            if tmp is not None:
                os.replace(tmp, os.path.realpath(t))
                _PENDING.discard(tmp)
    finally:
        for tmp, f in opened:
            f.close()
            if tmp is not None and tmp in _PENDING:
                tmp.unlink(missing_ok=True)
                _PENDING.discard(tmp)


def atomic_write(path: str | Path, data: bytes | str) -> None:
    """Write `data` (str as UTF-8) to `path` through a temporary file and a rename."""
    with atomic_files(path) as (f,):
        f.write(data.encode() if isinstance(data, str) else data)


def atomic_write_with(path: str | Path, write: Callable[[BinaryIO], None]) -> None:
    """Let `write` fill a temporary file, then rename it to `path`."""
    with atomic_files(path) as (f,):
        write(f)


def remove_pending() -> None:
    """Delete the temporary files of writes that did not finish (on an interrupt)."""
    for tmp in list(_PENDING):
        tmp.unlink(missing_ok=True)
        _PENDING.discard(tmp)
