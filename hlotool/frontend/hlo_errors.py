"""Curated explanations of common HLO syntax errors (Lark's `match_examples`)."""

from __future__ import annotations

from lark.exceptions import UnexpectedInput


def explain(exc: UnexpectedInput) -> str | None:
    return None
