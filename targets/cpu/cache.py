"""The CPU target's compile cache on disk.

A compiled module is stored as its object files (`CodeLibrary.objects`: one per
pipeline, concatenated in one `.o` file whose JSON records the sizes) plus a small JSON
file with what the runtime needs to rebuild its thunks: the kernel names of the plan
(which instruction gets which kernel is recomputed by `plan_module`, which is
deterministic and takes ~1-2 ms) and the symbol each kernel name resolves to (identical
kernels share one function).

The key hashes everything the machine code depends on:

* the module's structure with names (`hlotool.ir.structure.fingerprint(names=True)`:
  opcodes, shapes and layouts, attributes, constants, wiring, call graph);
* the kernel-relevant facts: the source of the code generator (every `.py` file of
  hlotool's core, `hlotool.targets.cpu` and `hlotool.targets.llvm`, by path, size and
  modification time: `hlotool.caches.source_stamp`, so a changed emitter never loads
  stale code), the LLVM version,
  the optimisation level;
* the target name, the host triple, CPU name and feature string;
* the hlotool version.

The JSON file also keeps the autotuner's choices (`autotune.Choice.to_json` per kernel
name) and whether the entry was tuned at all, so a cached compile reuses the tuned code
without timing, and a compile that asks for tuning replaces an untuned entry. An entry may
hold no object code (a module whose only tuned kernels are BLAS dots).

Runtime libraries (kernels every module calls, e.g. the convolution microkernels) are
cached together, in one sealed file per host and code version (`RuntimeBundle`, under
`bundle_key`): a new process reads that file once, where one entry per library cost it
a sealed read each, and loads the libraries it calls instead of compiling them.

Location: `$HLOTOOL_CACHE_DIR` when set (`off`, `none`, `0` or empty disables the
cache), else `cpu/` in `hlotool.caches.cache_root()`. An entry is one file (the
JSON line, then the objects) sealed by `hlotool.sealed`: in a private directory, owned by
this user, HMAC-signed and written atomically as one unit, so concurrent processes may
share a directory and a damaged or planted entry is never loaded as code: it is compiled
again (one notice) and replaced.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hlotool.targets.cpu.jit import CodeLibrary, Pipeline, RuntimeLibrary, host

from hlotool.caches import cache_dir_is_set, cache_root, source_stamp
from hlotool.ir.module import Module
from hlotool.ir.structure import fingerprint
from hlotool.sealed import SealedDir, notice

#: Bump when the entry format changes.
FORMAT = 5


def cache_dir() -> Path | None:
    """The cache directory, or None when caching is disabled."""
    root = cache_root()
    return root if root is None or cache_dir_is_set() else root / "cpu"


@functools.cache
def _code_version() -> str:
    """The code generator's source stamp (`hlotool.caches.source_stamp`: hlotool's core,
    which plans kernels, the CPU target and the LLVM layer it emits through) and the LLVM
    version."""
    import llvmlite
    import llvmlite.binding as llvm

    h = hashlib.blake2b(digest_size=16)
    h.update(source_stamp("", "targets.cpu", "targets.llvm").encode())
    h.update(f"llvmlite {llvmlite.__version__} llvm {llvm.llvm_version_info}".encode())
    return h.hexdigest()


def module_key(module: Module, *, target: str = "cpu", speed_level: int = 2) -> str:
    """The cache key of `module` compiled for this host."""
    h = hashlib.blake2b(digest_size=20)
    parts = [f"format {FORMAT}", f"target {target}", f"host {host().key}",
             f"code {_code_version()}", f"opt {speed_level}",
             f"module {fingerprint(module, names=True)}"]
    h.update("\n".join(parts).encode())
    return h.hexdigest()


def bundle_key() -> str:
    """The cache key of this host's runtime libraries (kernels compiled once per host,
    not per module: `runtime_library`)."""
    h = hashlib.blake2b(digest_size=20)
    h.update("\n".join([f"format {FORMAT}", f"host {host().key}", f"code {_code_version()}",
                        "runtime libraries"]).encode())
    return h.hexdigest()


def runtime_library(name: str, text: Callable[[], str],
                    pipeline: Pipeline = Pipeline.FULL) -> RuntimeLibrary:
    """The runtime library `name` whose LLVM IR is `text()`, in the process's runtime
    engine (`jit.RuntimeLibrary`): its objects from the disk cache's runtime bundle, else
    compiled (and added to the bundle). Each name is loaded once per process."""
    loaded = _RUNTIME_LIBRARIES.get(name)
    if loaded is not None:
        return loaded
    bundle = RuntimeBundle.default()
    objects = bundle.libraries.get(name) if bundle is not None else None
    if objects is not None:
        library = RuntimeLibrary(name, objects, cache_hit=True)
    else:
        compiled = CodeLibrary(name)
        compiled.add_ir_module(text(), pipeline)
        compiled.finalize()
        if bundle is not None:
            bundle.add(name, compiled.objects)
        library = RuntimeLibrary(name, compiled.objects, cache_hit=False)
    _RUNTIME_LIBRARIES[name] = library
    return library


#: The runtime libraries loaded in this process, by name.
_RUNTIME_LIBRARIES: dict[str, RuntimeLibrary] = {}


class RuntimeBundle:
    """The object files of every runtime library compiled for this host and code
    version, by library name, in one sealed file (a JSON line of names and sizes, then
    the objects), read once per process. A library compiled here is added to what the
    file holds then (another process may have added its own since) and the whole file is
    written again; a damaged file is ignored (one notice) and rebuilt."""

    #: The process's bundle per cache directory (read once).
    _opened: dict[Path, RuntimeBundle] = {}

    def __init__(self, store: SealedDir, name: str) -> None:
        self.store = store
        self.name = name
        self.libraries = self._read()

    @classmethod
    def default(cls) -> RuntimeBundle | None:
        """This process's bundle in `cache_dir()`; None when caching is off."""
        root = cache_dir()
        if root is None:
            return None
        bundle = cls._opened.get(root)
        if bundle is None:
            store = SealedDir.open(root)
            if store is None:
                return None
            key = bundle_key()
            bundle = cls._opened[root] = cls(store, f"{key[:2]}/{key}.runtime")
        return bundle

    def _read(self) -> dict[str, list[bytes]]:
        data = self.store.read(self.name)
        if data is None:
            return {}
        libraries = _decode_bundle(data)
        if libraries is None:
            notice(f"ignoring cache file {self.store.root / self.name}: malformed runtime "
                   "bundle; rebuilding it")
            return {}
        return libraries

    def add(self, name: str, objects: list[bytes]) -> None:
        """Keep `objects` as library `name`, on disk too (best effort)."""
        self.libraries = {**self._read(), **self.libraries, name: objects}
        meta = {"format": FORMAT,
                "libraries": {n: [len(o) for o in objs] for n, objs in self.libraries.items()}}
        blob = b"".join(o for objs in self.libraries.values() for o in objs)
        self.store.write(self.name, json.dumps(meta).encode() + b"\n" + blob)


def _decode_bundle(data: bytes) -> dict[str, list[bytes]] | None:
    """A bundle's libraries from its sealed bytes, or None when they do not add up."""
    parts = _meta_and_blob(data)
    libraries = parts[0].get("libraries") if parts is not None else None
    if parts is None or not isinstance(libraries, dict):
        return None
    flat = _split_objects(parts[1], [n for sizes in libraries.values()
                                     for n in (sizes if isinstance(sizes, list) else [-1])])
    if flat is None:
        return None
    out: dict[str, list[bytes]] = {}
    for name, sizes in libraries.items():
        out[name], flat = flat[:len(sizes)], flat[len(sizes):]
    return out


def _meta_and_blob(data: bytes) -> tuple[dict[str, Any], bytes] | None:
    """The JSON line of a sealed cache file of this format and the bytes after it."""
    head, sep, blob = data.partition(b"\n")
    try:
        meta = json.loads(head)
    except ValueError:
        return None
    if not sep or not isinstance(meta, dict) or meta.get("format") != FORMAT:
        return None
    return meta, blob


def _split_objects(blob: bytes, sizes: Any) -> list[bytes] | None:
    """`blob` cut into objects of `sizes`; None unless those are counts that add up to it."""
    if (not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes)
            or sum(sizes) != len(blob)):
        return None
    offsets = [0, *itertools.accumulate(sizes)]
    return [blob[x:y] for x, y in zip(offsets, offsets[1:])]


@dataclass(slots=True)
class Entry:
    """A cached compilation: object files, the kernel-name -> symbol map and the
    autotuner's choices (kernel name -> `Choice.to_json()`)."""

    objects: list[bytes]
    symbols: dict[str, str]
    tuning: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Whether the autotuner ran (an untuned entry is recompiled when tuning is asked for).
    tuned: bool = False
    #: kernel name -> the plan kind and pipeline of the code, as planned before tuning
    #: (`codegen.plan_kinds`): an entry whose plans differ from this process's is not
    #: loaded.
    kinds: dict[str, str] = field(default_factory=dict)


class DiskCache:
    """Sealed entries (metadata and objects in one file) under one directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._store: SealedDir | None | bool = False

    @classmethod
    def default(cls) -> DiskCache | None:
        root = cache_dir()
        return None if root is None else cls(root)

    def _sealed(self) -> SealedDir | None:
        if self._store is False:
            self._store = SealedDir.open(self.root)
        return self._store  # type: ignore[return-value]

    @staticmethod
    def _name(key: str) -> str:
        return f"{key[:2]}/{key}.entry"

    def load(self, key: str) -> Entry | None:
        """The entry stored under `key`; None when there is none or it is damaged."""
        store = self._sealed()
        data = store.read(self._name(key)) if store is not None else None
        if data is None:
            return None
        entry = _decode(data)
        if entry is None:
            notice(f"ignoring cache file {store.root / self._name(key)}: "  # type: ignore[union-attr]
                   "malformed entry; rebuilding it")
        return entry

    def store(self, key: str, entry: Entry) -> None:
        """Write an entry (best effort: an unwritable directory only loses the cache)."""
        store = self._sealed()
        if store is None:
            return
        meta = {"format": FORMAT, "sizes": [len(o) for o in entry.objects],
                "symbols": entry.symbols, "tuning": entry.tuning, "tuned": entry.tuned,
                "kinds": entry.kinds}
        store.write(self._name(key), json.dumps(meta).encode() + b"\n" + b"".join(entry.objects))


def _decode(data: bytes) -> Entry | None:
    """An entry from its sealed bytes, or None when its structure does not add up."""
    parts = _meta_and_blob(data)
    if parts is None:
        return None
    meta, obj = parts
    objects = _split_objects(obj, meta.get("sizes"))
    symbols, tuning, kinds = meta.get("symbols"), meta.get("tuning", {}), meta.get("kinds", {})
    if (objects is None or not isinstance(symbols, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in symbols.items())
            or not isinstance(tuning, dict) or not isinstance(kinds, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in kinds.items())):
        return None
    return Entry(objects, dict(symbols), dict(tuning), bool(meta.get("tuned", False)),
                 dict(kinds))
