"""StableHLO portable artifacts: MLIR bytecode of the VHLO dialect, bare (`.mlirbc`, as
`stablehlo.serialize_portable_artifact` writes it) or inside a `jax.export` blob.

`artifact_text` turns either into StableHLO text for the front end; `describe` gives what
`hlotool info` shows. Readable VHLO versions: `MIN_VERSION` to `MAX_VERSION`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hlotool.bytecode.jax_export import ExportedBlob, is_jax_export, read_jax_export
from hlotool.bytecode.model import BcModule
from hlotool.bytecode.reader import is_bytecode, read_bytecode
from hlotool.bytecode.stream import BytecodeError
from hlotool.diagnostics import HloError

MIN_VERSION = (0, 9, 0)
MAX_VERSION = (1, 20, 0)
_PRODUCER = re.compile(r"StableHLO_v(\d+)\.(\d+)\.(\d+)$")


def version_text(v: tuple[int, int, int]) -> str:
    return ".".join(map(str, v))


def parse_version(text: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text.strip())
    if not m:
        raise ValueError(f"a version is MAJOR.MINOR.PATCH, got {text!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def artifact_kind(data: bytes) -> str | None:
    """'mlirbc' for MLIR bytecode, 'jax-export' for a jax.export blob, else None."""
    if is_bytecode(data):
        return "mlirbc"
    if is_jax_export(data):
        return "jax-export"
    return None


@dataclass(slots=True)
class Artifact:
    """A decoded artifact: the bytecode module, its VHLO version, and the jax.export
    wrapper when there was one."""

    module: BcModule
    version: tuple[int, int, int] | None
    exported: ExportedBlob | None = None
    ops: dict[str, int] = field(default_factory=dict)


def read_artifact(data: bytes) -> Artifact:
    """Decode a portable artifact or jax.export blob (BytecodeError when malformed or of a
    VHLO version outside MIN_VERSION..MAX_VERSION)."""
    exported = None
    if not is_bytecode(data):
        if not is_jax_export(data):
            raise BytecodeError("expected MLIR bytecode (magic 'ML\\xefR') or a jax.export "
                                "blob", 0)
        exported = read_jax_export(data)
        data = exported.mlir_module
    module = read_bytecode(data)
    version = None
    m = _PRODUCER.match(module.producer)
    if m:
        version = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if not MIN_VERSION <= version <= MAX_VERSION:
            raise BytecodeError(
                f"the artifact is StableHLO {version_text(version)}, outside the versions "
                f"hlotool reads ({version_text(MIN_VERSION)} to {version_text(MAX_VERSION)})",
                5)
    art = Artifact(module, version, exported)
    _count_ops(module.ops, art.ops)
    if version is not None:
        _check_op_versions(art, version)
    return art


def _count_ops(ops: list, counts: dict[str, int]) -> None:
    for op in ops:
        counts[op.name] = counts.get(op.name, 0) + 1
        for region in op.regions:
            for block in region.blocks:
                _count_ops(block.ops, counts)


def _check_op_versions(art: Artifact, version: tuple[int, int, int]) -> None:
    from hlotool.bytecode.vhlo_ops import OPS

    for name in art.ops:
        if not name.startswith("vhlo."):
            continue
        spec = OPS.get(name[5:])
        if spec is None:
            raise BytecodeError(f"unknown VHLO op {name} (hlotool reads VHLO "
                                f"{version_text(MIN_VERSION)} to {version_text(MAX_VERSION)})", 0)


def artifact_text(data: bytes) -> str:
    """StableHLO text of a portable artifact or jax.export blob."""
    from hlotool.bytecode.to_stablehlo import to_stablehlo_text

    module = read_artifact(data).module
    try:
        return to_stablehlo_text(module)
    except HloError as exc:
        raise BytecodeError(f"the artifact's ops have no StableHLO form: {exc.message}",
                            0) from None
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
        raise BytecodeError(f"the artifact's ops are malformed ({type(exc).__name__}: "
                            f"{exc})", 0) from None


__all__ = ["MAX_VERSION", "MIN_VERSION", "Artifact", "BytecodeError", "artifact_kind",
           "artifact_text", "parse_version", "read_artifact", "version_text"]
