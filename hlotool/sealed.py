"""Cache files that are safe to load: private, owned, signed, written whole.

Both caches (the grammar tables, which are pickled, and the CPU target's object code,
which is loaded as machine code) go through a `SealedDir`. A file is read only when

* its directory is owned by this process's user and nobody else may write into it
  (hlotool creates its directories with mode 0700; it never changes the mode of an
  existing one: a directory of another user, or one that group or others may write,
  such as /tmp, is not used);
* the file is a regular file (not a symlink) owned by this user and writable by nobody
  else;
* its header carries an HMAC-SHA256 of its contents under this directory's secret key
  (`.key`: 32 random bytes, mode 0600, created once).

Anything else (a planted, truncated, corrupted or foreign file) is never unpickled or
loaded: the reader prints one notice and the caller rebuilds the entry. Files are
written to a temporary file in the same directory and renamed, so a reader sees a whole
entry or none.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import sys
from pathlib import Path

#: First line of every sealed file.
MAGIC = b"hlotool-sealed 1\n"
_DIGEST = hashlib.sha256().digest_size
_KEY_NAME = ".key"


def notice(message: str) -> None:
    """One line on standard error."""
    print(f"hlotool: notice: {message}", file=sys.stderr)


def _private_dir(path: Path) -> bool:
    """Make `path` (and missing parents, mode 0700) and check that it is ours and that
    nobody else may write into it. False (with a notice) when it cannot be used."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError as exc:
        notice(f"cache directory {path} is unusable ({exc.strerror}); not caching")
        return False
    if not stat.S_ISDIR(st.st_mode):
        notice(f"cache directory {path} is not a directory; not caching")
        return False
    if st.st_uid != os.getuid():
        notice(f"cache directory {path} belongs to another user; not caching")
        return False
    if st.st_mode & 0o022:
        notice(f"cache directory {path} is writable by others (mode "
               f"{stat.S_IMODE(st.st_mode):o}); not caching (use a private directory)")
        return False
    return True


def _read_owned(path: Path) -> bytes | None:
    """The bytes of `path` if it is a regular file of ours that nobody else may write;
    None when it does not exist; raises ValueError (the reason) when it is not trusted."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"unreadable ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_uid != os.getuid():
            raise ValueError("owned by another user")
        if st.st_mode & 0o022:
            raise ValueError("writable by others")
        return f.read()


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write `data` to `path` through a temporary file in the same directory."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class SealedDir:
    """A private directory of signed files (see the module docstring)."""

    def __init__(self, root: Path, key: bytes) -> None:
        self.root = root
        self._key = key

    @classmethod
    def open(cls, root: Path) -> SealedDir | None:
        """The store at `root` (made private, its key created on first use), or None with a
        notice when the directory or its key cannot be trusted."""
        if not _private_dir(root):
            return None
        key_path = root / _KEY_NAME
        try:
            key = _read_owned(key_path)
            if key is None:
                key = _create_key(key_path)
        except (OSError, ValueError) as exc:
            notice(f"cache key {key_path} is not trusted ({exc}); not caching")
            return None
        if len(key) != 32:
            notice(f"cache key {key_path} is malformed; not caching")
            return None
        return cls(root, key)

    def _seal(self, data: bytes) -> bytes:
        return MAGIC + hmac.new(self._key, data, hashlib.sha256).digest() + data

    def read(self, name: str) -> bytes | None:
        """The verified contents of `name`, or None (missing; or untrusted, with a notice)."""
        path = self.root / name
        try:
            raw = _read_owned(path)
        except ValueError as exc:
            notice(f"ignoring cache file {path}: {exc}; rebuilding it")
            return None
        if raw is None:
            return None
        head = len(MAGIC) + _DIGEST
        if len(raw) < head or not raw.startswith(MAGIC):
            notice(f"ignoring cache file {path}: not a sealed hlotool cache file; rebuilding it")
            return None
        data = raw[head:]
        want = hmac.new(self._key, data, hashlib.sha256).digest()
        if not hmac.compare_digest(want, raw[len(MAGIC):head]):
            notice(f"ignoring cache file {path}: checksum mismatch (corrupted); rebuilding it")
            return None
        return data

    def write(self, name: str, data: bytes) -> None:
        """Store `data` as `name` (best effort: an unwritable directory loses the entry)."""
        path = self.root / name
        try:
            if path.parent != self.root and not _private_dir(path.parent):
                return
            atomic_write_bytes(path, self._seal(data))
        except OSError:
            pass


def _create_key(path: Path) -> bytes:
    """A new random key at `path`; if another process made one first, that one."""
    key = secrets.token_bytes(32)
    tmp = path.with_name(f".key.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key)
        try:
            os.link(tmp, path)
        except FileExistsError:
            key = _read_owned(path) or b""
    finally:
        tmp.unlink(missing_ok=True)
    return key
