"""Dump folders: what `--xla_dump_to=DIR` writes (JAX, TensorFlow, PyTorch/XLA alike).

XLA names every file of one compiled module `module_NNNN.NAME.REST`: NNNN its unique id,
NAME the module name (`jit_f`, `a_inference_f_12__`, `SyncTensorsGraph.123`), REST the
stage and format: `before_optimizations.txt` (HLO text as the framework produced it),
`cpu_after_optimizations.txt` / `sm_8.0_gpu_after_optimizations.txt` (after the backend's
passes), the same with `.hlo.pb` (an HloProto, with `--xla_dump_hlo_as_proto`),
`snapshot.N.pb` (an HloSnapshot of a run, with `--xla_dump_hlo_snapshots`), and
buffer-assignment, memory and LLVM files that hlotool does not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hlotool.diagnostics import HloError

STAGES = ("before", "after", "snapshot")
_FILE = re.compile(r"^module_(\d+)\.(.+)$")
#: The stage/format tails hlotool reads, longest first.
_TAILS = (
    (re.compile(r"^before_optimizations\.(txt|hlo\.pb|pb|pbtxt|hlo\.pbtxt)$"), "before"),
    (re.compile(r"^([A-Za-z0-9_.]+_)?after_optimizations\.(txt|hlo\.pb|pb|pbtxt|hlo\.pbtxt)$"),
     "after"),
    (re.compile(r"^snapshot\.-?\d+\.pb$"), "snapshot"),
)


@dataclass(frozen=True, slots=True)
class DumpFile:
    """One readable module file of a dump folder."""

    id: str
    name: str
    stage: str
    path: Path

    @property
    def is_proto(self) -> bool:
        return self.path.name.endswith((".pb", ".pbtxt"))


def scan(folder: Path) -> list[DumpFile]:
    """The module files of a dump folder (text and proto), ordered by id then stage."""
    found: list[DumpFile] = []
    by_id: dict[str, list[tuple[str, Path]]] = {}
    for p in sorted(folder.iterdir()):
        m = _FILE.match(p.name)
        if m and p.is_file():
            by_id.setdefault(m.group(1), []).append((m.group(2), p))
    for ident, files in by_id.items():
        name = _module_name([rest for rest, _ in files])
        for rest, p in files:
            if name is None or not rest.startswith(name + "."):
                continue
            stage = _stage(rest[len(name) + 1:])
            if stage is not None:
                found.append(DumpFile(ident, name, stage, p))
    found.sort(key=lambda f: (f.id, STAGES.index(f.stage), f.is_proto, f.path.name))
    return found


def _module_name(rests: list[str]) -> str | None:
    """NAME from a module's files: exact from the before-optimizations file, else the
    shortest prefix that leaves an after-optimizations tail."""
    for rest in rests:
        for suffix in (".before_optimizations.txt", ".before_optimizations.hlo.pb"):
            if rest.endswith(suffix):
                return rest[: -len(suffix)]
    for rest in rests:
        for i, c in enumerate(rest):
            if c == "." and _stage(rest[i + 1:]) in ("after", "snapshot"):
                return rest[:i]
    return None


def _stage(tail: str) -> str | None:
    for pattern, stage in _TAILS:
        if pattern.match(tail):
            return stage
    return None


def select(folder: Path, module: str | None, stage: str | None) -> DumpFile:
    """The file `--module NAME|ID --stage before|after` names in a dump folder (the
    only module when --module is not given; text before proto)."""
    files = scan(folder)
    if not files:
        raise HloError(f"{folder} holds no XLA dump (no module_NNNN.NAME.*_optimizations.txt "
                       "or .hlo.pb files; dump with XLA_FLAGS=--xla_dump_to=DIR)")
    modules = sorted({(f.id, f.name) for f in files})
    if module is None:
        if len(modules) > 1:
            listed = ", ".join(f"{i} {n}" for i, n in modules[:8])
            raise HloError(f"{folder} holds {len(modules)} modules ({listed}"
                           f"{', ...' if len(modules) > 8 else ''}); choose one with "
                           "--module NAME|ID (hlotool ls lists them)")
        chosen = modules[0]
    else:
        matches = [m for m in modules if module in (m[1], m[0]) or
                   (module.isdigit() and int(module) == int(m[0]))]
        if not matches:
            raise HloError(f"no module {module!r} in {folder}; it holds "
                           + ", ".join(f"{i} {n}" for i, n in modules[:12]))
        if len(matches) > 1:
            raise HloError(f"{len(matches)} modules are named {module!r} in {folder}: choose "
                           "one by id (" + ", ".join(i for i, _ in matches) + ")")
        chosen = matches[0]
    want = stage or "before"
    for f in files:
        if (f.id, f.name) == chosen and f.stage == want:
            return f
    what = "snapshot" if want == "snapshot" else f"{want}-optimizations file"
    raise HloError(f"module {chosen[0]} {chosen[1]} has no {what} in {folder}")
