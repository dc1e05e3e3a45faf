"""hlotool.reference: XLA's parser, asked in a child process, names what it rejects."""

from __future__ import annotations

import pytest

from hlotool.diagnostics import HloError
from hlotool.reference import check_parses


def test_a_rejection_quotes_xla_s_error_line_not_its_caret() -> None:
    text = ("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
            "  ROOT r = f32[2] no-such-op(p)\n}\n")
    with pytest.raises(HloError) as info:
        check_parses(text)
    assert "error:" in str(info.value) and "no-such-op" in str(info.value)
