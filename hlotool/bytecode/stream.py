"""Byte-level primitives of MLIR bytecode: prefix varints, zigzag, sections, blobs."""

from __future__ import annotations

import struct

from hlotool.diagnostics import HloError

#: The four bytes every MLIR bytecode file starts with.
MAGIC = b"ML\xefR"
ALIGNMENT_BYTE = 0xCB


class BytecodeError(HloError):
    """Malformed bytecode: the message names the byte offset and what was expected."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"byte {offset}: {message}")
        self.offset = offset


class ByteReader:
    """Reads `data[start:end]`; offsets in errors are absolute in the file."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes | memoryview, start: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = start
        self.end = len(data) if end is None else end

    def error(self, message: str, offset: int | None = None) -> BytecodeError:
        return BytecodeError(message, self.pos if offset is None else offset)

    def empty(self) -> bool:
        return self.pos >= self.end

    def byte(self, what: str = "a byte") -> int:
        if self.pos >= self.end:
            raise self.error(f"expected {what}, but the data ends")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def bytes(self, n: int, what: str = "bytes") -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise self.error(f"expected {n} bytes of {what}, but only {self.end - self.pos} remain")
        out = bytes(self.data[self.pos : self.pos + n])
        self.pos += n
        return out

    def view(self, n: int, what: str) -> memoryview:
        """`n` bytes without a copy."""
        if n < 0 or self.pos + n > self.end:
            raise self.error(f"expected {n} bytes of {what}, but only {self.end - self.pos} remain")
        out = memoryview(self.data)[self.pos : self.pos + n]
        self.pos += n
        return out

    def varint(self, what: str = "a varint") -> int:
        first = self.byte(what)
        if first & 1:
            return first >> 1
        if first == 0:
            return int.from_bytes(self.bytes(8, what), "little")
        n = (first & -first).bit_length() - 1
        rest = self.bytes(n, what)
        return (first | int.from_bytes(rest, "little") << 8) >> (n + 1)

    def count(self, what: str) -> int:
        """A varint counting things of at least one byte each that follow: refused when
        the data left cannot hold them (corrupt counts must not allocate gigabytes)."""
        at = self.pos
        n = self.varint(what)
        if n > self.end - self.pos:
            raise self.error(f"{what} is {n}, more than the {self.end - self.pos} bytes "
                             "left can hold", at)
        return n

    def svarint(self, what: str = "a signed varint") -> int:
        v = self.varint(what)
        return (v >> 1) ^ -(v & 1)

    def varint_flag(self, what: str = "a varint") -> tuple[int, bool]:
        v = self.varint(what)
        return v >> 1, bool(v & 1)

    def cstring(self, what: str = "a string") -> str:
        nul = bytes(self.data[self.pos : self.end]).find(b"\0")
        if nul < 0:
            raise self.error(f"expected a null-terminated {what}, but no null byte follows")
        out = bytes(self.data[self.pos : self.pos + nul]).decode("utf-8", errors="replace")
        self.pos += nul + 1
        return out

    def align(self, alignment: int) -> None:
        if alignment <= 0 or alignment & (alignment - 1):
            raise self.error(f"expected a power-of-two alignment, got {alignment}")
        while self.pos % alignment:
            at = self.pos
            if self.byte("alignment padding") != ALIGNMENT_BYTE:
                raise self.error("expected alignment padding byte 0xCB", at)

    def section(self) -> tuple[int, ByteReader]:
        """A section header; returns its id and a reader over its data."""
        head = self.byte("a section id")
        length = self.varint("a section length")
        if head & 0x80:
            self.align(self.varint("a section alignment"))
        start = self.pos
        if start + length > self.end:
            raise self.error(f"expected section {head & 0x7F} of {length} bytes, but only "
                             f"{self.end - start} remain", start)
        self.pos += length
        return head & 0x7F, ByteReader(self.data, start, start + length)


class ByteWriter:
    """Builds bytecode; `varint` and friends mirror ByteReader."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts = bytearray()

    def byte(self, b: int) -> None:
        self.parts.append(b)

    def raw(self, data: bytes | bytearray | memoryview) -> None:
        self.parts += data

    def varint(self, v: int) -> None:
        if v < 0:
            raise ValueError(f"varint of negative {v}")
        if v < 0x80:
            self.parts.append((v << 1) | 1)
            return
        for n in range(1, 8):
            if v < 1 << (7 * (n + 1)):
                self.parts += ((v << 1 | 1) << n).to_bytes(n + 1, "little")
                return
        self.parts.append(0)
        self.parts += struct.pack("<Q", v)

    def svarint(self, v: int) -> None:
        self.varint(((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)

    def varint_flag(self, v: int, flag: bool) -> None:
        self.varint(v << 1 | int(flag))

    def cstring(self, s: str) -> None:
        self.parts += s.encode() + b"\0"

    def section(self, sid: int, body: bytes | bytearray, alignment: int = 1) -> None:
        if alignment > 1:
            self.parts.append(sid | 0x80)
            self.varint(len(body))
            self.varint(alignment)
            while len(self.parts) % alignment:
                self.parts.append(ALIGNMENT_BYTE)
        else:
            self.parts.append(sid)
            self.varint(len(body))
        self.parts += body

    def getvalue(self) -> bytes:
        return bytes(self.parts)
