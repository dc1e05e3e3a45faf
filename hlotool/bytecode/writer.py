"""BcModule -> MLIR bytecode (the inverse of `reader`), at bytecode versions 1 to 6.

Attributes and types are numbered first (grouped by dialect, as the offset section wants),
then encoded by their dialect's codec with the final indices.
"""

from __future__ import annotations

from typing import Any

from hlotool.bytecode import vhlo_ops
from hlotool.bytecode.model import BcAttr, BcModule, BcType, Op, Region, Value
from hlotool.bytecode.reader import (
    ATTR_TYPE, ATTR_TYPE_OFFSET, CODECS, DIALECT, DIALECT_VERSIONING,
    ELIDE_UNKNOWN_BLOCK_ARG_LOCATION, HAS_ATTRS, HAS_INLINE_REGIONS, HAS_OPERANDS,
    HAS_PROPERTIES, HAS_RESULTS, IR, LAZY_LOADING, NATIVE_PROPERTIES_ENCODING, PROPERTIES,
    RESOURCE, RESOURCE_OFFSET, STRING, USE_LIST_ORDERING)
from hlotool.bytecode.stream import MAGIC, ByteWriter


class _Collector:
    """Walks what a codec would write, to find every attribute, type and string."""

    def __init__(self, tables: _Tables) -> None:
        self.t = tables

    def varint(self, v: int) -> None: ...
    def svarint(self, v: int) -> None: ...
    def byte(self, v: int) -> None: ...
    def svarints(self, vs: Any) -> None: ...
    def apint(self, v: int, width: int) -> None: ...
    def blob(self, data: Any) -> None: ...

    def list(self, items: Any, write: Any) -> None:
        for item in items:
            write(item)

    def attribute(self, a: Any) -> None:
        self.t.add_attr(a)

    def attributes(self, items: Any) -> None:
        for a in items:
            self.t.add_attr(a)

    def type(self, t: BcType) -> None:
        self.t.add_type(t)

    def types(self, items: Any) -> None:
        for t in items:
            self.t.add_type(t)

    def string(self, s: str) -> None:
        self.t.add_string(s)


class _Encoder(_Collector):
    """Writes an entry with the final indices."""

    def __init__(self, tables: _Tables, w: ByteWriter) -> None:
        super().__init__(tables)
        self.w = w

    def varint(self, v: int) -> None:
        self.w.varint(v)

    def svarint(self, v: int) -> None:
        self.w.svarint(v)

    def byte(self, v: int) -> None:
        self.w.byte(v)

    def svarints(self, vs: Any) -> None:
        self.w.varint(len(vs))
        for v in vs:
            self.w.svarint(v)

    def list(self, items: Any, write: Any) -> None:
        self.w.varint(len(items))
        for item in items:
            write(item)

    def apint(self, v: int, width: int) -> None:
        if width <= 8:
            self.w.byte(v & 0xFF)
            return
        if width <= 64:
            self.w.svarint(v - (1 << 64) if v >> 63 else v)
            return
        words = []
        while v:
            words.append(v & 0xFFFFFFFFFFFFFFFF)
            v >>= 64
        self.w.varint(len(words))
        for word in words:
            self.w.svarint(word - (1 << 64) if word >> 63 else word)

    def blob(self, data: Any) -> None:
        self.w.varint(len(data))
        self.w.raw(data)

    def attribute(self, a: Any) -> None:
        self.w.varint(self.t.attr_index[a])

    def attributes(self, items: Any) -> None:
        self.w.varint(len(items))
        for a in items:
            self.attribute(a)

    def type(self, t: BcType) -> None:
        self.w.varint(self.t.type_index[t])

    def types(self, items: Any) -> None:
        self.w.varint(len(items))
        for t in items:
            self.type(t)

    def string(self, s: str) -> None:
        self.w.varint(self.t.string_index[s])


class _Tables:
    def __init__(self) -> None:
        self.dialects: dict[str, int] = {}
        self.attrs: dict[Any, None] = {}
        self.types: dict[BcType, None] = {}
        self.strings: dict[str, int] = {}
        self.attr_index: dict[Any, int] = {}
        self.type_index: dict[BcType, int] = {}
        self.string_index = self.strings

    def add_string(self, s: str) -> None:
        if s not in self.strings:
            self.strings[s] = len(self.strings)

    def add_dialect(self, d: str) -> None:
        if d not in self.dialects:
            self.dialects[d] = len(self.dialects)
            self.add_string(d)

    def add_attr(self, a: Any) -> None:
        if a in self.attrs:
            return
        self.add_dialect(a.dialect)
        CODECS[a.dialect].write_attribute(_Collector(self), a)
        self.attrs[a] = None

    def add_type(self, t: BcType) -> None:
        if t in self.types:
            return
        self.add_dialect(t.dialect)
        CODECS[t.dialect].write_type(_Collector(self), t)
        self.types[t] = None

    def grouped(self, entries: Any) -> list[tuple[str, list[Any]]]:
        groups: dict[str, list[Any]] = {}
        for e in entries:
            groups.setdefault(e.dialect, []).append(e)
        return sorted(groups.items(), key=lambda kv: self.dialects[kv[0]])


def _hashable(a: Any) -> Any:
    """Attributes with memoryview blobs as bytes (so that they hash)."""
    if isinstance(a, BcAttr | BcType):
        return type(a)(a.dialect, a.kind, tuple(_hashable(x) for x in a.args))
    if isinstance(a, memoryview):
        return bytes(a)
    if isinstance(a, tuple):
        return tuple(_hashable(x) for x in a)
    return a


class _Writer:
    def __init__(self, module: BcModule) -> None:
        self.m = module
        self.version = module.version
        self.t = _Tables()
        self.op_names: dict[str, int] = {}
        self.props: dict[bytes, int] = {}

    # -- numbering ---------------------------------------------------------------------

    def collect(self, ops: list[Op]) -> None:
        for op in ops:
            dialect, _, name = op.name.partition(".")
            self.t.add_dialect(dialect)
            self.t.add_string(name)
            self.op_names.setdefault(op.name, 0)
            self.t.add_attr(op.loc)
            inherent, discardable = self.split_attrs(op)
            if discardable:
                self.t.add_attr(self._dict(discardable))
            for a in inherent.values():
                if a is not None:
                    self.t.add_attr(a)
            for r in op.results:
                self.t.add_type(r.type)
            for region in op.regions:
                for block in region.blocks:
                    for v, loc in zip(block.args, block.arg_locs, strict=True):
                        self.t.add_type(v.type)
                        if loc is not None:
                            self.t.add_attr(loc)
                    self.collect(block.ops)

    def split_attrs(self, op: Op) -> tuple[dict[str, Any], dict[str, Any]]:
        """(properties, the rest); no properties before bytecode version 5."""
        if self.version < NATIVE_PROPERTIES_ENCODING:
            return {}, dict(op.attrs)
        if op.name == "builtin.module":
            names: tuple[str, ...] = ("sym_name", "sym_visibility")
        elif op.name.startswith("vhlo."):
            names = tuple(sorted(vhlo_ops.OPS[op.name[5:]][2]))
        else:
            names = ()
        inherent = {n: op.attrs.get(n) for n in names}
        rest = {k: v for k, v in op.attrs.items() if k not in names}
        return inherent, rest

    @staticmethod
    def _dict(attrs: dict[str, Any]) -> BcAttr:
        return BcAttr("builtin", "Dictionary", tuple(attrs.items()))

    def number(self) -> None:
        """Final indices: attributes and types grouped by dialect, op names by dialect."""
        i = 0
        for _, group in self.t.grouped(self.t.attrs):
            for a in group:
                self.t.attr_index[a] = i
                i += 1
        i = 0
        for _, group in self.t.grouped(self.t.types):
            for t in group:
                self.t.type_index[t] = i
                i += 1
        by_dialect: dict[str, list[str]] = {}
        for name in self.op_names:
            by_dialect.setdefault(name.partition(".")[0], []).append(name)
        i = 0
        for d in sorted(by_dialect, key=lambda d: self.t.dialects[d]):
            for name in by_dialect[d]:
                self.op_names[name] = i
                i += 1
        self.op_groups = by_dialect

    # -- sections ----------------------------------------------------------------------

    def write(self) -> bytes:
        self.collect(self.m.ops)
        self.number()
        ir = self.ir_section()
        out = ByteWriter()
        out.raw(MAGIC)
        out.varint(self.version)
        out.cstring(self.m.producer)
        out.section(DIALECT, self.dialect_section())
        attr_data, offsets = self.attr_type_sections()
        out.section(ATTR_TYPE_OFFSET, offsets)
        out.section(ATTR_TYPE, attr_data)
        out.section(IR, ir)
        out.section(RESOURCE_OFFSET, b"\x01")
        out.section(RESOURCE, b"")
        out.section(STRING, self.string_section())
        if self.version >= NATIVE_PROPERTIES_ENCODING:
            out.section(PROPERTIES, self.properties_section())
        return out.getvalue()

    def string_section(self) -> bytes:
        w = ByteWriter()
        strings = list(self.t.strings)
        w.varint(len(strings))
        for s in reversed(strings):
            w.varint(len(s.encode()) + 1)
        for s in strings:
            w.cstring(s)
        return w.getvalue()

    def dialect_section(self) -> bytes:
        w = ByteWriter()
        w.varint(len(self.t.dialects))
        for d in self.t.dialects:
            if self.version >= DIALECT_VERSIONING:
                w.varint_flag(self.t.strings[d], False)
            else:
                w.varint(self.t.strings[d])
        if self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
            w.varint(len(self.op_names))
        for d, names in sorted(self.op_groups.items(), key=lambda kv: self.t.dialects[kv[0]]):
            w.varint(self.t.dialects[d])
            w.varint(len(names))
            for name in names:
                index = self.t.strings[name.partition(".")[2]]
                if self.version >= NATIVE_PROPERTIES_ENCODING:
                    w.varint_flag(index, True)
                else:
                    w.varint(index)
        return w.getvalue()

    def attr_type_sections(self) -> tuple[bytes, bytes]:
        data, offsets = ByteWriter(), ByteWriter()
        offsets.varint(len(self.t.attrs))
        offsets.varint(len(self.t.types))
        for entries, write in ((self.t.attrs, "write_attribute"), (self.t.types, "write_type")):
            for dialect, group in self.t.grouped(entries):
                offsets.varint(self.t.dialects[dialect])
                offsets.varint(len(group))
                for e in group:
                    w = ByteWriter()
                    getattr(CODECS[dialect], write)(_Encoder(self.t, w), e)
                    body = w.getvalue()
                    data.raw(body)
                    offsets.varint_flag(len(body), True)
        return data.getvalue(), offsets.getvalue()

    def properties_section(self) -> bytes:
        w = ByteWriter()
        w.varint(len(self.props))
        for blob in self.props:
            w.varint(len(blob))
            w.raw(blob)
        return w.getvalue()

    # -- IR ----------------------------------------------------------------------------

    def ir_section(self) -> bytes:
        w = ByteWriter()
        w.varint_flag(len(self.m.ops), False)
        self.scope: list[int] = [0]
        self.ids: dict[int, int] = {}
        for op in self.m.ops:
            self.op(w, op, None)
        return w.getvalue()

    def op(self, w: ByteWriter, op: Op, next_id: list[int] | None) -> None:
        inherent, discardable = self.split_attrs(op)
        mask = 0
        if discardable:
            mask |= HAS_ATTRS
        if inherent:
            mask |= HAS_PROPERTIES
        if op.results:
            mask |= HAS_RESULTS
        if op.operands:
            mask |= HAS_OPERANDS
        if op.regions:
            mask |= HAS_INLINE_REGIONS
        w.varint(self.op_names[op.name])
        w.byte(mask)
        w.varint(self.t.attr_index[op.loc])
        if discardable:
            w.varint(self.t.attr_index[self._dict(discardable)])
        if inherent:
            w.varint(self.properties(op.name, inherent))
        if op.results:
            w.varint(len(op.results))
            for r in op.results:
                w.varint(self.t.type_index[r.type])
        if op.operands:
            w.varint(len(op.operands))
            for v in op.operands:
                w.varint(self.ids[id(v)])
        if op.regions:
            w.varint_flag(len(op.regions), op.isolated)
        if next_id is not None:
            for r in op.results:
                self.define(r, next_id)
        if not op.regions:
            return
        if op.isolated:
            saved, self.scope = self.scope, [0]
            body = ByteWriter()
            for region in op.regions:
                self.region(body, region, [])
            self.scope = saved
            if self.version >= LAZY_LOADING:
                w.section(IR, body.getvalue())
            else:
                w.raw(body.getvalue())
            return
        for region in op.regions:
            self.region(w, region, next_id if next_id is not None else [])

    def properties(self, name: str, inherent: dict[str, Any]) -> int:
        w = ByteWriter()
        for key, a in inherent.items():
            if name == "builtin.module":
                w.varint_flag(self.t.attr_index[a] if a is not None else 0, a is not None)
            else:
                if a is None:
                    raise ValueError(f"{name} needs its attribute {key}")
                w.varint(self.t.attr_index[a])
        blob = w.getvalue()
        return self.props.setdefault(blob, len(self.props))

    def define(self, v: Value, next_id: list[int]) -> None:
        self.ids[id(v)] = next_id[-1]
        next_id[-1] += 1

    def region(self, w: ByteWriter, region: Region, next_id: list[int]) -> None:
        w.varint(len(region.blocks))
        if not region.blocks:
            return
        n = sum(len(b.args) + sum(len(op.results) for op in b.ops) for b in region.blocks)
        w.varint(n)
        base = self.scope[-1]
        self.scope[-1] = base + n
        next_id.append(base)
        for block in region.blocks:
            w.varint_flag(len(block.ops), bool(block.args))
            if block.args:
                w.varint(len(block.args))
                for v, loc in zip(block.args, block.arg_locs, strict=True):
                    ti = self.t.type_index[v.type]
                    if self.version >= ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
                        w.varint_flag(ti, loc is not None)
                        if loc is not None:
                            w.varint(self.t.attr_index[loc])
                    else:
                        w.varint(ti)
                        w.varint(self.t.attr_index[loc if loc is not None else _UNKNOWN])
                    self.define(v, next_id)
                if self.version >= USE_LIST_ORDERING:
                    w.byte(0)
            for op in block.ops:
                self.op(w, op, next_id)
        next_id.pop()
        self.scope[-1] = base


_UNKNOWN = BcAttr("builtin", "UnknownLoc")


def write_bytecode(module: BcModule) -> bytes:
    """Encode a BcModule at `module.version` of the bytecode format."""
    return _Writer(_freeze(module)).write()


def _freeze(m: BcModule) -> BcModule:
    """The module with hashable attributes (blobs as bytes) and every location set."""
    def fix(ops: list[Op]) -> None:
        for op in ops:
            op.loc = _hashable(op.loc) if op.loc is not None else _UNKNOWN
            op.attrs = {k: _hashable(v) for k, v in op.attrs.items()}
            for r in op.results:
                r.type = _hashable(r.type)
            for region in op.regions:
                for b in region.blocks:
                    for v in b.args:
                        v.type = _hashable(v.type)
                    b.arg_locs = [_hashable(x) if x is not None else None for x in b.arg_locs]
                    fix(b.ops)

    fix(m.ops)
    return m
