"""`jax.export` serialized blobs: the flatbuffer (jax/_src/export/serialization.fbs) around a
portable artifact, with the calling convention, signature, platforms and effects.

A flatbuffer is read with a few offset rules (tables with vtables, vectors, strings);
this reads the fields hlotool shows and runs, nothing else.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from hlotool.bytecode.stream import MAGIC, BytecodeError

#: jax's DType enum (serialization.fbs), as StableHLO element types.
DTYPES = ("i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "f32", "f64",
          "complex<f32>", "complex<f64>", "bf16", "i4", "ui4", "f8E4M3B11FNUZ", "f8E4M3FN",
          "f8E4M3FNUZ", "f8E5M2", "f8E5M2FNUZ", "f0", "f8E4M3", "f8E3M4", "f8E8M0FNU",
          "f4E2M1FN", "key<fry>", "key<rbg>", "key<unsafe_rbg>")
#: Exported's field slots (vtable offsets).
_VERSION, _NAME, _IN_AVALS, _OUT_AVALS, _NR_DEVICES_SHORT = 4, 6, 10, 14, 16
_PLATFORMS, _ORDERED, _UNORDERED, _DISABLED, _MODULE, _CALLING = 22, 24, 26, 28, 30, 32
_KEPT, _NR_DEVICES, _UNIQUE_AVALS, _IN_IDX, _OUT_IDX = 34, 40, 42, 48, 50
_IN_SHARD_IDX, _OUT_SHARD_IDX = 52, 54


@dataclass(slots=True)
class Aval:
    """An argument or result: its (possibly symbolic) dimensions and element type."""

    shape: tuple[str, ...]
    dtype: str

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join(self.shape)}]"


@dataclass(slots=True)
class ExportedBlob:
    """The fields of a `jax.export` blob that hlotool uses."""

    serialization_version: int
    function_name: str
    calling_convention_version: int
    platforms: tuple[str, ...]
    in_avals: tuple[Aval, ...]
    out_avals: tuple[Aval, ...]
    ordered_effects: tuple[str, ...]
    unordered_effects: tuple[str, ...]
    nr_devices: int
    module_kept_var_idx: tuple[int, ...]
    in_shardings: tuple[int, ...] = field(default_factory=tuple)
    out_shardings: tuple[int, ...] = field(default_factory=tuple)
    disabled_checks: tuple[str, ...] = ()
    mlir_module: bytes = b""


class _Table:
    __slots__ = ("buf", "pos", "vt", "vt_size")

    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf, self.pos = buf, pos
        _check(buf, pos, 4, "a table")
        self.vt = pos - struct.unpack_from("<i", buf, pos)[0]
        _check(buf, self.vt, 4, "a vtable")
        self.vt_size = struct.unpack_from("<H", buf, self.vt)[0]

    def _field(self, slot: int) -> int:
        if slot >= self.vt_size:
            return 0
        off = struct.unpack_from("<H", self.buf, self.vt + slot)[0]
        return self.pos + off if off else 0

    def scalar(self, slot: int, fmt: str, default: int = 0) -> int:
        at = self._field(slot)
        if not at:
            return default
        _check(self.buf, at, struct.calcsize(fmt), "a scalar field")
        return int(struct.unpack_from("<" + fmt, self.buf, at)[0])

    def _target(self, slot: int) -> int:
        at = self._field(slot)
        if not at:
            return 0
        _check(self.buf, at, 4, "an offset field")
        return at + struct.unpack_from("<I", self.buf, at)[0]

    def vector(self, slot: int) -> tuple[int, int]:
        """(start of the elements, count); (0, 0) when absent."""
        at = self._target(slot)
        if not at:
            return 0, 0
        _check(self.buf, at, 4, "a vector length")
        n = struct.unpack_from("<I", self.buf, at)[0]
        return at + 4, n

    def bytes(self, slot: int) -> bytes:
        start, n = self.vector(slot)
        _check(self.buf, start, n, "a byte vector")
        return self.buf[start : start + n]

    def string(self, slot: int) -> str:
        return self.bytes(slot).decode("utf-8", errors="replace")

    def scalars(self, slot: int, fmt: str) -> tuple[int, ...]:
        start, n = self.vector(slot)
        size = struct.calcsize(fmt)
        _check(self.buf, start, n * size, "a vector")
        return tuple(struct.unpack_from(f"<{n}{fmt}", self.buf, start)) if n else ()

    def tables(self, slot: int) -> list[_Table]:
        start, n = self.vector(slot)
        _check(self.buf, start, 4 * n, "a vector of tables")
        return [_Table(self.buf, start + 4 * i + struct.unpack_from("<I", self.buf,
                                                                     start + 4 * i)[0])
                for i in range(n)]

    def strings(self, slot: int) -> tuple[str, ...]:
        start, n = self.vector(slot)
        _check(self.buf, start, 4 * n, "a vector of strings")
        out = []
        for i in range(n):
            at = start + 4 * i + struct.unpack_from("<I", self.buf, start + 4 * i)[0]
            _check(self.buf, at, 4, "a string")
            size = struct.unpack_from("<I", self.buf, at)[0]
            _check(self.buf, at + 4, size, "a string")
            out.append(self.buf[at + 4 : at + 4 + size].decode("utf-8", errors="replace"))
        return tuple(out)


def _check(buf: bytes, at: int, size: int, what: str) -> None:
    if at < 0 or size < 0 or at + size > len(buf):
        raise BytecodeError(f"expected {what} of {size} bytes, but the blob ends at "
                            f"{len(buf)}", max(0, min(at, len(buf))))


def _aval(t: _Table) -> Aval:
    dtype = t.scalar(8, "b")
    return Aval(t.strings(6), DTYPES[dtype] if 0 <= dtype < len(DTYPES) else f"dtype{dtype}")


def _exported(buf: bytes) -> _Table:
    _check(buf, 0, 4, "the root offset")
    return _Table(buf, struct.unpack_from("<I", buf, 0)[0])


def is_jax_export(data: bytes) -> bool:
    """A flatbuffer whose root table holds an MLIR bytecode module (jax.export's layout)."""
    if len(data) < 16 or data[:4] == MAGIC:
        return False
    try:
        t = _exported(data)
        version = t.scalar(_VERSION, "H")
        return 0 < version < 1000 and t.bytes(_MODULE)[:4] == MAGIC
    except (BytecodeError, struct.error):
        return False


def read_jax_export(data: bytes) -> ExportedBlob:
    """Decode a `jax.export(...).serialize()` blob."""
    t = _exported(data)
    unique = [_aval(a) for a in t.tables(_UNIQUE_AVALS)]

    def avals(table_slot: int, idx_slot: int) -> tuple[Aval, ...]:
        idxs = t.scalars(idx_slot, "I")
        if idxs or unique:
            return tuple(unique[i] for i in idxs if i < len(unique))
        return tuple(_aval(a) for a in t.tables(table_slot))

    module = t.bytes(_MODULE)
    if module[:4] != MAGIC:
        raise BytecodeError("the jax.export blob holds no MLIR bytecode module", 0)
    return ExportedBlob(
        serialization_version=t.scalar(_VERSION, "H"),
        function_name=t.string(_NAME),
        calling_convention_version=t.scalar(_CALLING, "H"),
        platforms=t.strings(_PLATFORMS),
        in_avals=avals(_IN_AVALS, _IN_IDX),
        out_avals=avals(_OUT_AVALS, _OUT_IDX),
        ordered_effects=tuple(e.string(4) for e in t.tables(_ORDERED)),
        unordered_effects=tuple(e.string(4) for e in t.tables(_UNORDERED)),
        nr_devices=t.scalar(_NR_DEVICES, "I") or t.scalar(_NR_DEVICES_SHORT, "h"),
        module_kept_var_idx=t.scalars(_KEPT, "H"),
        in_shardings=t.scalars(_IN_SHARD_IDX, "I"),
        out_shardings=t.scalars(_OUT_SHARD_IDX, "I"),
        disabled_checks=tuple(d.string(6) or f"kind{d.scalar(4, 'b')}"
                              for d in t.tables(_DISABLED)),
        mlir_module=module,
    )
