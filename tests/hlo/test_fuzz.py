"""Mutated corpus texts (tokens deleted, duplicated, swapped) raise only HloError."""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlotool.diagnostics import HloError
from hlotool.frontend import parse_hlo
from hlotool.verifier import verify
from tests.conftest import hlo_texts

_TOKEN = re.compile(r"\s+|[A-Za-z0-9_.%\-]+|\"(?:[^\"\\]|\\.)*\"|.", re.S)
SOURCES = [p.read_text() for _, p in hlo_texts()]
SOURCES = [s for s in SOURCES if len(s) < 6000]
EXAMPLES = int(os.environ.get("HLOTOOL_FUZZ_EXAMPLES", "300"))


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    toks = _tokens(draw(st.sampled_from(SOURCES)))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "replace"]))
        i = draw(st.integers(0, len(toks) - 1))
        j = draw(st.integers(0, len(toks) - 1))
        if kind == "delete":
            del toks[i]
        elif kind == "duplicate":
            toks.insert(i, toks[i])
        elif kind == "swap":
            toks[i], toks[j] = toks[j], toks[i]
        else:
            toks[i] = draw(st.sampled_from(["{", "}", "(", ")", ",", "=", "-1", "f32", "ROOT",
                                            "%x", "[", "]", "0", "...", "\"", "/*", "->"]))
        if not toks:
            break
    return "".join(toks)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("HLOTOOL_FUZZ_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutations_raise_only_hlo_errors(text: str) -> None:
    try:
        verify(parse_hlo(text))
    except HloError as exc:
        assert exc.message
