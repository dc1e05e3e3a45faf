"""Lark parsers whose analysed tables are cached on disk, safely.

Lark's own `cache=` option unpickles its file before checking anything, so a planted
file would run code. Here the tables go through a `hlotool.sealed.SealedDir` (private,
owned, HMAC-signed) and are unpickled by an unpickler that knows only the classes the
tables hold (Lark's `Token` and the grammar's own lexer class); the entry also records
which grammar text, options and Lark version it was built from and is rebuilt when
any of them changes.

Location: `hlotool.caches.cache_root()`.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import re
from typing import Any

import lark
from lark import Lark
from lark.lexer import Token

from hlotool.caches import cache_root
from hlotool.sealed import SealedDir, notice



class _TablesUnpickler(pickle.Unpickler):
    """Resolves only the classes Lark's tables contain; anything else is refused."""

    def __init__(self, f: io.BytesIO, allowed: dict[tuple[str, str], type]) -> None:
        super().__init__(f)
        self._allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self._allowed[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed") from None


def _identity(name: str, text: str, options: dict[str, Any]) -> bytes:
    h = hashlib.sha256()
    shown = {k: (f"{v.__module__}.{v.__qualname__}" if isinstance(v, type) else repr(v))
             for k, v in sorted(options.items()) if k != "transformer"}
    h.update(f"{name}\nlark {lark.__version__}\n{shown}\n".encode())
    h.update(text.encode())
    return h.hexdigest().encode()


def cached_lark(name: str, text: str, **options: Any) -> Lark:
    """`Lark(text, **options)` (LALR), its tables loaded from the cache when a trusted
    entry for this grammar exists, else built and stored."""
    root = cache_root()
    store = SealedDir.open(root) if root is not None else None
    file_name = f"{name}.lark.tables"
    identity = _identity(name, text, options)
    lexer = options.get("lexer")
    allowed: dict[tuple[str, str], type] = {("lark.lexer", "Token"): Token}
    if isinstance(lexer, type):
        allowed[(lexer.__module__, lexer.__qualname__)] = lexer
    if store is not None:
        data = store.read(file_name)
        if data is not None:
            head, _, body = data.partition(b"\n")
            if head == identity:
                try:
                    tables = _TablesUnpickler(io.BytesIO(body), allowed).load()
                    parser = Lark._load(Lark.__new__(Lark), tables,
                                        transformer=options.get("transformer"))
                    _check_terminals(parser)
                    return parser
                except Exception as exc:  # noqa: BLE001 - any bad entry is rebuilt
                    notice(f"ignoring grammar cache {store.root / file_name} "
                           f"({type(exc).__name__}); rebuilding it")
    parser = Lark(text, **options)
    if store is not None:
        buf = io.BytesIO()
        parser.save(buf, exclude_options=("transformer",))
        store.write(file_name, identity + b"\n" + buf.getvalue())
    return parser


def _check_terminals(parser: Lark) -> None:
    """Compile every terminal now as Lark's scanner will, a group named after it: Lark
    builds its scanners at the first parse (and more when it reports an error), where a
    bad pattern or name would surface as an internal error instead of a rebuilt entry."""
    flags = parser.options.g_regex_flags
    for terminal in parser.terminals:
        re.compile(f"(?P<{terminal.name}>{terminal.pattern.to_regexp()})", flags)
