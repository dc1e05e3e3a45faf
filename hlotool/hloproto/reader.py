"""Reading an HloProto file: which message it is, its module as HLO text, and a
snapshot's arguments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.hloproto import TEXT_START, TEXT_SUFFIXES, is_text_format

#: Text format: the message whose top-level fields a file starts with.
_TEXT_KIND = {"hlo_module": "HloProto", "buffer_assignment": "HloProto", "hlo": "HloSnapshot",
              "arguments": "HloSnapshot", "result": "HloSnapshot",
              "execution_platform": "HloSnapshot"}


class NotAProto(HloError):
    """Binary input that decodes as none of the three messages."""


@dataclass(frozen=True, slots=True)
class ProtoModule:
    """What an HloProto file held: its module as HLO text, and for a snapshot the
    arguments it was run with (`arg0, arg1, ...`, tuple arguments flattened)."""

    kind: str
    text: str
    arguments: dict[str, np.ndarray] | None = None


def read(data: bytes, filename: str = "") -> ProtoModule:
    """Parse a binary or text format HloModuleProto, HloProto or HloSnapshot."""
    try:
        from google.protobuf import message as pb_message
    except ImportError:
        raise HloError(f"{filename or 'the input'} is an HloProto; reading it needs protobuf: "
                       "pip install 'hlotool[proto]'") from None
    from hlotool.hloproto.schema import message_class

    if filename.endswith(TEXT_SUFFIXES) or (b"\0" not in data[:4096] and is_text_format(data)):
        return _read_text(data.decode("utf-8", errors="replace"))
    for kind in ("HloSnapshot", "HloProto", "HloModuleProto"):
        msg = message_class(kind)()
        try:
            msg.ParseFromString(data)
        except pb_message.DecodeError:
            continue
        if _module_of(kind, msg) is not None:
            return _unpack(kind, msg)
    raise NotAProto("it decodes as no HloModuleProto, HloProto or HloSnapshot (give HLO "
                    "text, StableHLO text, an XLA dump's .hlo.pb or a .pbtxt)")


def _read_text(text: str) -> ProtoModule:
    """Protobuf text format. Fields the schema does not declare (a newer XLA's) are
    skipped; when the module is unusable without them, the first one is the error."""
    from google.protobuf import text_format

    from hlotool.hloproto.schema import message_class

    m = TEXT_START.match(text)
    kind = _TEXT_KIND.get(m.group(1), "HloModuleProto") if m else "HloModuleProto"
    msg = message_class(kind)()
    try:
        text_format.Parse(text, msg)
        return _unpack(kind, msg)
    except text_format.ParseError as exc:
        strict = HloError(f"not an {kind} in protobuf text format: "
                          f"{str(exc).partition(' : ')[2] or exc}",
                          exc.GetLine() or 0, exc.GetColumn() or 0)
    msg = message_class(kind)()
    try:
        text_format.Parse(text, msg, allow_unknown_field=True)
    except text_format.ParseError:
        raise strict from None
    if _module_of(kind, msg) is None:
        raise strict
    return _unpack(kind, msg)


def _module_of(kind: str, msg: Any) -> Any:
    """The HloModuleProto inside `msg` when it plausibly is one (computations with named,
    typed instructions and an entry), else None."""
    m = msg.hlo.hlo_module if kind == "HloSnapshot" else (
        msg.hlo_module if kind == "HloProto" else msg)
    comps = list(m.computations)
    if not comps or not all(c.name and c.instructions for c in comps):
        return None
    if not all(i.opcode and i.name for c in comps for i in c.instructions):
        return None
    ids = {c.id for c in comps}
    names = {c.name for c in comps}
    if m.entry_computation_id not in ids and m.entry_computation_name not in names:
        return None
    return m


def _unpack(kind: str, msg: Any) -> ProtoModule:
    from hlotool.hloproto.text import module_text

    m = _module_of(kind, msg)
    if m is None:
        raise HloError(f"the {kind} holds no module (no computations with instructions, or "
                       "no entry computation)")
    text = module_text(m)
    if kind != "HloSnapshot":
        return ProtoModule(kind, text)
    from hlotool.hloproto.values import literal

    arrays: dict[str, np.ndarray] = {}
    for arg in msg.arguments:
        for leaf in literal(arg).leaves():
            arrays[f"arg{len(arrays)}"] = np.asarray(leaf)
    return ProtoModule(kind, text, arrays)
