"""Modules after a target's pass pipeline, cached on disk.

A compiling target (`hlotool run`, `hlotool compile`) first runs its pass pipeline
(`cpu`, `gpu`, `tpu`). On a module of 16,000 instructions that takes 25 s, on a small one
4-6 ms, more than the cached compile after it. As XLA's persistent compilation cache
keys on the module before its passes, this cache keys on the module as given, printed
in full (`hlotool.ir.printer.CANONICAL`: metadata and constants included), with the
pipeline's name and the stamp of the code that runs and reads it (`hlotool.caches.
source_stamp` of hlotool's core, the passes and the grammars). A module nothing has
changed since it was parsed is keyed by the text it was parsed from instead (`source`:
its language and text, which with that code determine it), which saves printing it:
1.4-2 ms in a new process. The entry is the module after the pipeline, printed
canonically and compressed.

An entry is sealed (`hlotool.sealed`: private, owned, signed, written whole) and, when
loaded, parsed and verified before use: an entry that fails either is never used (one
notice), and the pipeline runs again and replaces it. Printing and parsing a module
loses nothing the passes or the code generators read (the module and its round trip
have the same fingerprint with names; tested over the corpus).

Location: `pipelines/` in `hlotool.caches.cache_root()`.
"""

from __future__ import annotations

import hashlib
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from hlotool.caches import cache_root, source_stamp
from hlotool.ir.module import Module
from hlotool.ir.printer import print_module
from hlotool.sealed import SealedDir, notice

#: Bump when the entry format changes.
FORMAT = 1
_MAGIC = b"hlotool-pipeline %d\n" % FORMAT


@dataclass(slots=True)
class PipelineRun:
    """The module after a pipeline, whether it came from the cache, and the seconds
    it took (passes, or key, load, parse and verify)."""

    module: Module
    cached: bool
    seconds: float


def default_dir() -> Path | None:
    """The cache's directory, or None when caching is off."""
    root = cache_root()
    return None if root is None else root / "pipelines"


def pipeline_key(text: str, pipeline: str, *, source: bool = False) -> str:
    """The key of `text` after the pipeline `pipeline`: a module printed canonically, or
    with `source` the language and text it was parsed from."""
    h = hashlib.blake2b(digest_size=20)
    kind = "source" if source else "module"
    h.update(f"format {FORMAT}\npipeline {pipeline}\n{kind}\n".encode())
    h.update(source_stamp("", "passes", "grammar").encode())
    h.update(text.encode())
    return h.hexdigest()


def optimize(module: Module, pipeline: str, *, cache_dir: Path | None | bool = True,
             progress: bool = False, source: str | None = None) -> PipelineRun:
    """`module` after the named pipeline (run without verifying each pass, as the
    targets do): the cached result when this module went through this pipeline before,
    else `module` itself, changed in place, and stored. `cache_dir`: True for
    `default_dir()`, False or None for no cache. `source`: the language and text
    `module` was parsed from, when nothing has changed it since (`Source.identity`),
    to key the entry by."""
    started = time.perf_counter()
    root = default_dir() if cache_dir is True else (cache_dir or None)
    store = SealedDir.open(root) if root is not None else None
    key = name = None
    if store is not None:
        if source is not None:
            key = pipeline_key(source, pipeline, source=True)
        else:
            key = pipeline_key(print_module(module), pipeline)
        name = f"{key[:2]}/{key}.hlo.z"
        loaded = _load(store, name)
        if loaded is not None:
            return PipelineRun(loaded, True, time.perf_counter() - started)
    from hlotool.commands.opt import apply_passes

    apply_passes(module, pipeline, None, verify_each=False, progress=progress)
    if store is not None and name is not None:
        store.write(name, _MAGIC + zlib.compress(print_module(module).encode(), 1))
    return PipelineRun(module, False, time.perf_counter() - started)


def _load(store: SealedDir, name: str) -> Module | None:
    """The module in entry `name`, parsed and verified; None when there is none or it
    does not hold a valid module (with a notice)."""
    data = store.read(name)
    if data is None:
        return None
    from hlotool.diagnostics import HloError
    from hlotool.frontend import parse_hlo
    from hlotool.verifier import verify

    try:
        if not data.startswith(_MAGIC):
            raise ValueError("not a pipeline entry of this format")
        module = parse_hlo(zlib.decompress(data[len(_MAGIC):]).decode())
        verify(module)
    except (ValueError, zlib.error, UnicodeDecodeError, HloError) as exc:
        notice(f"ignoring cache file {store.root / name} ({exc}); running the passes again")
        return None
    return module
