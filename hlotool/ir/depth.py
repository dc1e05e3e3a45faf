"""How deep an IR may nest: tuple shapes and computations calling computations. The
verifier refuses deeper modules (hlotool.limits), so the recursive walks never overflow."""

from __future__ import annotations

MAX_SHAPE_DEPTH = 1000
MAX_CALL_DEPTH = 4000
