"""HloProto input: XLA's serialized modules (`.pb` binary, `.pbtxt` text format) as
HloModuleProto, HloProto or HloSnapshot, read with `protobuf` (the `proto` extra) from
hlotool's own schema (hlotool.hloproto.schema) and lowered through the HLO text front end.

Only commands that are given such a file import this package's protobuf parts.
"""

from __future__ import annotations

import re

#: Suffixes of protobuf text format files.
TEXT_SUFFIXES = (".pbtxt", ".textproto", ".txtpb")
#: The top-level fields of the three messages, to tell text format from HLO text.
TEXT_START = re.compile(
    r"\A(?:\s*#[^\n]*\n)*\s*(hlo_module|hlo|arguments|result|execution_platform|name|"
    r"entry_computation_name|entry_computation_id|computations|host_program_shape|id|"
    r"schedule|input_output_alias|buffer_donor|buffer_assignment)\s*[:{]")


def is_proto(data: bytes, filename: str = "") -> bool:
    """A binary file (a NUL in its first 4 KiB), a `.pb`, or protobuf text format."""
    if b"\0" in data[:4096] or filename.endswith(".pb"):
        return True
    return filename.endswith(TEXT_SUFFIXES) or is_text_format(data)


def is_text_format(data: bytes) -> bool:
    """Protobuf text format: the first field is one the HLO messages have."""
    return TEXT_START.match(data[:4096].decode("utf-8", errors="replace")) is not None
