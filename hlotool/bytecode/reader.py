"""MLIR bytecode -> BcModule (the format of mlir.llvm.org/docs/BytecodeFormat).

Attributes and types are decoded on first use by their dialect's codec (`codecs`);
values are numbered per isolated-from-above scope as the MLIR writer numbers them.
"""

from __future__ import annotations

from typing import Any

from hlotool.bytecode import builtin, vhlo, vhlo_ops
from hlotool.bytecode.model import BcAttr, BcModule, BcType, Block, Op, Region, Value
from hlotool.bytecode.stream import MAGIC, ByteReader, BytecodeError

#: Section ids.
STRING, DIALECT, ATTR_TYPE, ATTR_TYPE_OFFSET, IR, RESOURCE, RESOURCE_OFFSET = range(7)
DIALECT_VERSIONS, PROPERTIES = 7, 8
#: Bytecode versions that changed the encoding.
DIALECT_VERSIONING, LAZY_LOADING, USE_LIST_ORDERING = 1, 2, 3
ELIDE_UNKNOWN_BLOCK_ARG_LOCATION, NATIVE_PROPERTIES_ENCODING = 4, 5
MAX_VERSION = 6
#: Op encoding mask bits.
HAS_ATTRS, HAS_RESULTS, HAS_OPERANDS, HAS_SUCCESSORS = 0x01, 0x02, 0x04, 0x08
HAS_INLINE_REGIONS, HAS_USE_LIST_ORDERS, HAS_PROPERTIES = 0x10, 0x20, 0x40

CODECS: dict[str, Any] = {"builtin": builtin, "vhlo": vhlo}


class _Entry:
    __slots__ = ("dialect", "custom", "start", "end", "value", "busy")

    def __init__(self, dialect: str, custom: bool, start: int, end: int) -> None:
        self.dialect, self.custom, self.start, self.end = dialect, custom, start, end
        self.value: Any = None
        self.busy = False


class EntryReader:
    """What a dialect codec reads an attribute or type with (MLIR's DialectBytecodeReader)."""

    __slots__ = ("file", "r")

    def __init__(self, file: _File, r: ByteReader) -> None:
        self.file, self.r = file, r

    def varint(self) -> int:
        return self.r.varint()

    def svarint(self) -> int:
        return self.r.svarint()

    def byte(self) -> int:
        return self.r.byte()

    def svarints(self) -> tuple[int, ...]:
        return tuple(self.r.svarint() for _ in range(self.r.varint("a list length")))

    def list(self, read: Any) -> tuple[Any, ...]:
        return tuple(read() for _ in range(self.r.varint("a list length")))

    def attribute(self) -> Any:
        return self.file.attr(self.r.varint("an attribute index"), self.r)

    def optional_attribute(self) -> Any:
        index, present = self.r.varint_flag("an optional attribute")
        return self.file.attr(index, self.r) if present else None

    def attributes(self) -> tuple[Any, ...]:
        return self.list(self.attribute)

    def type(self) -> BcType:
        return self.file.type(self.r.varint("a type index"), self.r)

    def types(self) -> tuple[BcType, ...]:
        return self.list(self.type)

    def string(self) -> str:
        return self.file.string(self.r.varint("a string index"), self.r)

    def blob(self) -> memoryview:
        return self.r.view(self.r.varint("a blob size"), "blob")

    def apint(self, width: int) -> int:
        """The unsigned bit pattern of a `width`-bit integer."""
        if width <= 8:
            return self.r.byte()
        mask = (1 << width) - 1
        if width <= 64:
            return self.r.svarint() & mask
        words = [self.r.svarint() & 0xFFFFFFFFFFFFFFFF for _ in range(self.r.varint())]
        return sum(w << (64 * i) for i, w in enumerate(words)) & mask

    def resource(self) -> str:
        return self.file.resource(self.r.varint("a resource index"), self.r)

    def error(self, message: str) -> BytecodeError:
        return self.r.error(message)


class _File:
    """The tables of one bytecode file, read lazily."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.version = 0
        self.strings: list[tuple[int, int]] = []
        self.dialects: list[str] = []
        self.dialect_versions: dict[str, bytes] = {}
        self.op_names: list[str] = []
        self.attrs: list[_Entry] = []
        self.types: list[_Entry] = []
        self.resources: list[str] = []
        self.properties: list[tuple[int, int]] = []

    # -- tables ----------------------------------------------------------------------

    def string(self, index: int, r: ByteReader) -> str:
        if index >= len(self.strings):
            raise r.error(f"string index {index} is out of range (the table has "
                          f"{len(self.strings)})")
        start, end = self.strings[index]
        return self.data[start:end].decode("utf-8", errors="replace")

    def read_strings(self, r: ByteReader) -> None:
        count = r.varint("the number of strings")
        sizes = [r.varint("a string length") for _ in range(count)]
        end = r.end
        spans: list[tuple[int, int]] = []
        for size in sizes:
            if size < 1 or end - size < r.pos:
                raise r.error(f"string length {size} does not fit the string section")
            spans.append((end - size, end - 1))
            end -= size
        if end != r.pos:
            raise r.error("expected the string data right after the string lengths")
        self.strings = spans[::-1]

    def read_dialects(self, r: ByteReader) -> None:
        count = r.varint("the number of dialects")
        for _ in range(count):
            if self.version < DIALECT_VERSIONING:
                self.dialects.append(self.string(r.varint("a dialect name"), r))
                continue
            index, versioned = r.varint_flag("a dialect name")
            name = self.string(index, r)
            self.dialects.append(name)
            if versioned:
                sid, vr = r.section()
                if sid != DIALECT_VERSIONS:
                    raise r.error(f"expected the version section of dialect {name}")
                self.dialect_versions[name] = vr.bytes(vr.end - vr.pos)
        if self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
            r.varint("the number of op names")
        while not r.empty():
            dialect = self._dialect(r)
            for _ in range(r.varint("the number of op names")):
                if self.version >= NATIVE_PROPERTIES_ENCODING:
                    index, _registered = r.varint_flag("an op name")
                else:
                    index = r.varint("an op name")
                self.op_names.append(f"{dialect}.{self.string(index, r)}")

    def _dialect(self, r: ByteReader) -> str:
        at = r.pos
        index = r.varint("a dialect index")
        if index >= len(self.dialects):
            raise r.error(f"dialect index {index} is out of range", at)
        return self.dialects[index]

    def read_attr_type_offsets(self, r: ByteReader, data: ByteReader) -> None:
        n_attrs = r.varint("the number of attributes")
        n_types = r.varint("the number of types")
        offset = data.pos
        for table, n in ((self.attrs, n_attrs), (self.types, n_types)):
            while len(table) < n:
                dialect = self._dialect(r)
                for _ in range(r.varint("a group size")):
                    size, custom = r.varint_flag("an entry size")
                    if offset + size > data.end:
                        raise r.error("an attribute or type entry runs past its section")
                    table.append(_Entry(dialect, custom, offset, offset + size))
                    offset += size
        if not r.empty():
            raise r.error("unexpected trailing data in the attribute/type offset section")

    def read_resources(self, offsets: ByteReader, data: ByteReader) -> None:
        for _ in range(offsets.varint("the number of external resource groups")):
            offsets.varint("a resource group key")
            self._resource_group(offsets, data, "")
        while not offsets.empty():
            self._resource_group(offsets, data, self._dialect(offsets))

    def _resource_group(self, offsets: ByteReader, data: ByteReader, dialect: str) -> None:
        for _ in range(offsets.varint("the number of resources")):
            key = self.string(offsets.varint("a resource key"), offsets)
            size = offsets.varint("a resource size")
            offsets.byte("a resource kind")
            data.bytes(size, "resource")
            if dialect:
                self.resources.append(key)

    def read_properties(self, r: ByteReader) -> None:
        if r.empty():
            return
        for _ in range(r.varint("the number of properties")):
            size = r.varint("a properties size")
            self.properties.append((r.pos, r.pos + size))
            r.bytes(size, "properties")
        if not r.empty():
            raise r.error("unexpected trailing data in the properties section")

    def op_properties(self, op: str, r: ByteReader) -> dict[str, Any]:
        """The attributes an op keeps as properties (sorted by name, as ODS stores them)."""
        at = r.pos
        index = r.varint("a properties index")
        if index >= len(self.properties):
            raise r.error(f"properties index {index} is out of range", at)
        pr = ByteReader(self.data, *self.properties[index])
        out: dict[str, Any] = {}
        if op == "builtin.module":
            for name in ("sym_name", "sym_visibility"):
                attr, present = pr.varint_flag(f"the {name} of {op}")
                if present:
                    out[name] = self.attr(attr, pr)
        elif op.startswith("vhlo."):
            spec = vhlo_ops.OPS.get(op[5:])
            if spec is None:
                raise r.error(f"unknown VHLO op {op}", at)
            for name in sorted(spec[2]):
                out[name] = self.attr(pr.varint(f"the {name} of {op}"), pr)
        else:
            raise r.error(f"{op} has properties, which are not supported", at)
        if not pr.empty():
            raise pr.error(f"unexpected trailing bytes in the properties of {op}")
        return out

    def resource(self, index: int, r: ByteReader) -> str:
        if index >= len(self.resources):
            raise r.error(f"resource index {index} is out of range")
        return self.resources[index]

    # -- attributes and types ------------------------------------------------------------

    def attr(self, index: int, r: ByteReader) -> Any:
        if index >= len(self.attrs):
            raise r.error(f"attribute index {index} is out of range (the file has "
                          f"{len(self.attrs)})")
        return self._resolve(self.attrs[index], "attribute")

    def type(self, index: int, r: ByteReader) -> BcType:
        if index >= len(self.types):
            raise r.error(f"type index {index} is out of range (the file has {len(self.types)})")
        return self._resolve(self.types[index], "type")  # type: ignore[no-any-return]

    def _resolve(self, entry: _Entry, what: str) -> Any:
        if entry.value is not None:
            return entry.value
        r = ByteReader(self.data, entry.start, entry.end)
        if entry.busy:
            raise r.error(f"the {what} refers to itself")
        entry.busy = True
        try:
            if not entry.custom:
                text = r.cstring(f"{what} assembly")
                value: Any = (BcAttr if what == "attribute" else BcType)(entry.dialect, "asm",
                                                                          (text,))
            else:
                codec = CODECS.get(entry.dialect)
                if codec is None:
                    raise r.error(f"{what}s of dialect '{entry.dialect}' are not supported "
                                  f"(supported: {', '.join(CODECS)})")
                reader = EntryReader(self, r)
                read = codec.read_attribute if what == "attribute" else codec.read_type
                try:
                    value = read(reader)
                except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
                    raise BytecodeError(f"malformed {entry.dialect} {what}: {exc}",
                                        entry.start) from None
            if not r.empty():
                raise r.error(f"unexpected trailing bytes after the {what}")
        finally:
            entry.busy = False
        entry.value = value
        return value


def is_bytecode(data: bytes) -> bool:
    return data[:4] == MAGIC


def read_bytecode(data: bytes) -> BcModule:
    """Decode a whole MLIR bytecode file (raises BytecodeError with the byte offset)."""
    r = ByteReader(data)
    if r.bytes(min(4, len(data)), "the magic number") != MAGIC:
        raise BytecodeError("expected the MLIR bytecode magic number 'ML\\xefR'", 0)
    f = _File(data)
    at = r.pos
    f.version = r.varint("the bytecode version")
    if f.version > MAX_VERSION:
        raise BytecodeError(f"bytecode version {f.version} is newer than the newest supported "
                            f"({MAX_VERSION})", at)
    producer = r.cstring("producer")
    sections: dict[int, ByteReader] = {}
    while not r.empty():
        at = r.pos
        sid, body = r.section()
        if sid > PROPERTIES:
            raise BytecodeError(f"unknown section id {sid}", at)
        if sid in sections:
            raise BytecodeError(f"section {sid} appears twice", at)
        sections[sid] = body
    for needed in (STRING, DIALECT, ATTR_TYPE, ATTR_TYPE_OFFSET, IR):
        if needed not in sections:
            raise BytecodeError(f"the file has no section {needed}", len(data))
    f.read_strings(sections[STRING])
    f.read_dialects(sections[DIALECT])
    if RESOURCE in sections and RESOURCE_OFFSET in sections:
        f.read_resources(sections[RESOURCE_OFFSET], sections[RESOURCE])
    f.read_attr_type_offsets(sections[ATTR_TYPE_OFFSET], sections[ATTR_TYPE])
    if PROPERTIES in sections:
        f.read_properties(sections[PROPERTIES])
    ops = _IrReader(f).read(sections[IR])
    return BcModule(f.version, producer, ops, f.dialect_versions)


class _IrReader:
    """The IR section: blocks of ops, regions inline or (isolated ones) in sub-sections."""

    def __init__(self, f: _File) -> None:
        self.f = f
        #: Value tables of the isolated-from-above scopes being read.
        self.scopes: list[list[Value | None]] = []

    def read(self, r: ByteReader) -> list[Op]:
        self.scopes.append([])
        top = Block()
        self._block(r, top, [], has_values=False)
        return top.ops

    def _block(self, r: ByteReader, block: Block, next_id: list[int], has_values: bool) -> None:
        at = r.pos
        n_ops, has_args = r.varint_flag("a block header")
        if has_args and not next_id:
            raise r.error("expected a block without arguments at the top level", at)
        if has_args:
            self._block_args(r, block, next_id)
        if self.f.version >= USE_LIST_ORDERING and has_args and r.byte("a use-list flag"):
            self._use_lists(r, len(block.args))
        for _ in range(n_ops):
            block.ops.append(self._op(r, next_id if has_values else None, block))

    def _block_args(self, r: ByteReader, block: Block, next_id: list[int]) -> None:
        for _ in range(r.varint("the number of block arguments")):
            if self.f.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
                index, has_loc = r.varint_flag("a block argument")
                ty = self.f.type(index, r)
                loc = self.f.attr(r.varint("a location"), r) if has_loc else None
            else:
                ty = self.f.type(r.varint("a block argument type"), r)
                loc = self.f.attr(r.varint("a location"), r)
            block.args.append(self._define(r, next_id, ty))
            block.arg_locs.append(loc)

    def _use_lists(self, r: ByteReader, n_values: int) -> None:
        count = r.varint("a use-list count") if n_values > 1 else 1
        for _ in range(count):
            if n_values > 1:
                r.varint("a use-list value index")
            n, _pairs = r.varint_flag("a use-list encoding")
            for _ in range(n):
                r.varint("a use-list index")

    def _define(self, r: ByteReader, next_id: list[int], ty: BcType) -> Value:
        values = self.scopes[-1]
        index = next_id[-1]
        if index >= len(values):
            raise r.error(f"value {index} lies outside its region's {len(values)} values")
        existing = values[index]
        value = existing if existing is not None else Value()
        value.type = ty
        values[index] = value
        next_id[-1] = index + 1
        return value

    def _operand(self, r: ByteReader) -> Value:
        at = r.pos
        index = r.varint("an operand")
        values = self.scopes[-1]
        if index >= len(values):
            raise r.error(f"operand value {index} is out of range ({len(values)} values "
                          "are in scope)", at)
        value = values[index]
        if value is None:
            value = values[index] = Value()
        return value

    def _op(self, r: ByteReader, next_id: list[int] | None, block: Block) -> Op:
        at = r.pos
        index = r.varint("an op name")
        if index >= len(self.f.op_names):
            raise r.error(f"op name index {index} is out of range", at)
        op = Op(self.f.op_names[index])
        mask = r.byte("an op encoding mask")
        op.loc = self.f.attr(r.varint("a location"), r)
        if mask & HAS_ATTRS:
            d = self.f.attr(r.varint("an attribute dictionary"), r)
            if not isinstance(d, BcAttr) or d.kind != "Dictionary":
                raise r.error(f"expected the attribute dictionary of {op.name}")
            op.attrs = dict(d.args)
        if mask & HAS_PROPERTIES:
            op.attrs.update(self.f.op_properties(op.name, r))
        types: list[BcType] = []
        if mask & HAS_RESULTS:
            types = [self.f.type(r.varint("a result type"), r)
                     for _ in range(r.varint("the number of results"))]
        if mask & HAS_OPERANDS:
            op.operands = [self._operand(r) for _ in range(r.varint("the number of operands"))]
        if mask & HAS_SUCCESSORS:
            for _ in range(r.varint("the number of successors")):
                r.varint("a successor")
            raise r.error(f"{op.name} has successor blocks, which are not supported")
        if mask & HAS_USE_LIST_ORDERS and self.f.version >= USE_LIST_ORDERING:
            self._use_lists(r, len(types))
        n_regions, op.isolated = 0, False
        if mask & HAS_INLINE_REGIONS:
            n_regions, op.isolated = r.varint_flag("the number of regions")
        if next_id is not None:
            op.results = [self._define(r, next_id, t) for t in types]
        else:
            op.results = [Value(t) for t in types]
        if n_regions:
            self._regions(r, op, n_regions, next_id)
        return op

    def _regions(self, r: ByteReader, op: Op, n: int, next_id: list[int] | None) -> None:
        if op.isolated and self.f.version >= LAZY_LOADING:
            sid, r = r.section()
            if sid != IR:
                raise r.error(f"expected the IR section of {op.name}'s regions")
        if op.isolated:
            self.scopes.append([])
            ids: list[int] = []
        else:
            ids = next_id if next_id is not None else []
        for _ in range(n):
            op.regions.append(self._region(r, ids))
        if op.isolated:
            self.scopes.pop()

    def _region(self, r: ByteReader, next_id: list[int]) -> Region:
        region = Region()
        n_blocks = r.count("the number of blocks")
        if not n_blocks:
            return region
        n_values = r.count("the number of values")
        values = self.scopes[-1]
        base = len(values)
        values.extend([None] * n_values)
        next_id.append(base)
        region.blocks = [Block() for _ in range(n_blocks)]
        for block in region.blocks:
            self._block(r, block, next_id, has_values=True)
        next_id.pop()
        del values[base:]
        return region
