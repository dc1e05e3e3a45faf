"""An HloModuleProto as HLO text (hlotool.hloproto.text): every module of the corpora,
serialized by XLA itself (jaxlib's HloModule proto), reads back as the same module as its
text. Left out: texts with elided constants (XLA's parser invents their values)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.frontend import parse_hlo
from hlotool.hloproto.reader import read
from hlotool.ir.module import Module
from hlotool.ir.printer import PrintOptions, print_computation

ROOT = Path(__file__).resolve().parents[2]
TEXTS = sorted(p for pattern in ("tests/data/corpus/*/module*.hlo", "tests/data/sharded/*/*.hlo",
                                 "examples/*.hlo", "tests/data/reduce_init/*.hlo")
               for p in ROOT.glob(pattern) if "constant({...})" not in p.read_text())
_NO_METADATA = PrintOptions(metadata=False)


def _computations(module: Module) -> list[str]:
    """The module's computations as text, in name order, without metadata (XLA's parser
    renumbers the stack frames metadata points to)."""
    return sorted(print_computation(c, _NO_METADATA) for c in module.computations
                  if not c.async_sugar)


def test_the_corpora_are_found() -> None:
    assert len(TEXTS) > 150


@pytest.mark.parametrize("path", TEXTS, ids=[str(p.relative_to(ROOT)) for p in TEXTS])
def test_xla_serialized_module_reads_as_its_text(path: Path) -> None:
    import jaxlib._hlo as xla_hlo  # type: ignore[import-not-found]

    text = path.read_text()
    proto = xla_hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()
    from_proto = parse_hlo(read(proto).text)
    from_text = parse_hlo(text)
    assert _computations(from_proto) == _computations(from_text)
    assert from_proto.entry.name == from_text.entry.name
    assert from_proto.config.is_scheduled == from_text.config.is_scheduled
