"""Curated explanations of common HLO syntax errors.

Each explanation is keyed by small bad inputs that fail in the same parser state with
the same kind of token (Lark's `UnexpectedInput.match_examples`); a syntax error in a
user's file that ends in such a state gets the explanation instead of a bare
"unexpected token".
"""

from __future__ import annotations

from collections.abc import Callable

from lark.exceptions import UnexpectedInput

_HEAD = "HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n"

ERROR_EXAMPLES: dict[str, list[str]] = {
    "missing '}' to close the computation (the input ends inside it)": [
        _HEAD + "  ROOT b = f32[2] negate(a)\n",
        _HEAD + "  ROOT b = f32[2] negate(a)",
        _HEAD + "  ROOT b = f32[2] add(a, a)\n",
        _HEAD + "  ROOT b = f32[2] negate(a), dimensions={0}\n",
    ],
    "attribute keys are glued to '=' (write key=value without spaces)": [
        _HEAD + "  ROOT b = f32[2] negate(a), dimensions = {0}\n}\n",
        _HEAD + "  ROOT b = f32[2] negate(a), kind = kLoop\n}\n",
    ],
    "missing ')' to close the operand list": [
        _HEAD + "  ROOT b = f32[2] negate(a\n}\n",
        _HEAD + "  ROOT b = f32[2] add(a, a\n}\n",
    ],
    "a computation needs at least one instruction": [
        "HloModule m\nENTRY e {\n}\n",
        "HloModule m\nc {\n}\n",
    ],
    "expected '=' after the instruction name (`name = shape opcode(...)`)": [
        _HEAD + "  ROOT b f32[2] negate(a)\n}\n",
        _HEAD + "  b f32[2] negate(a)\n}\n",
    ],
    "a shape needs its dimensions in brackets, e.g. f32[2,3] or f32[] for a scalar": [
        "HloModule m\nENTRY e {\n  ROOT a = f32 parameter(0)\n}\n",
        _HEAD + "  ROOT b = s32 negate(a)\n}\n",
    ],
    "signature parameters are written `name: shape` without '%'": [
        "HloModule m\nENTRY e (%p: f32[]) -> f32[] {\n  ROOT p = f32[] parameter(0)\n}\n",
    ],
    "numbers need a digit before the decimal point (write 0.5, not .5)": [
        "HloModule m\nENTRY e {\n  ROOT a = f32[] constant(.5)\n}\n",
    ],
    "an attribute needs a value after '='": [
        _HEAD + "  ROOT b = f32[2] negate(a), dimensions=\n}\n",
        _HEAD + "  ROOT b = f32[2] negate(a), dimensions=, x=1\n}\n",
    ],
    "a trailing ',' after the last attribute": [
        _HEAD + "  ROOT b = f32[2] negate(a),\n}\n",
    ],
    "an attribute list is `, key=value` after the operands": [
        _HEAD + "  ROOT b = f32[2] negate(a) dimensions={0}\n}\n",
    ],
    "a computation needs a name before '{'": [
        "HloModule m\nENTRY {\n  ROOT a = f32[] parameter(0)\n}\n",
    ],
}


def explain(exc: UnexpectedInput, parse: Callable[[str], object]) -> str | None:
    """The curated explanation for a syntax error that `parse` raised, when one matches."""
    try:
        label = exc.match_examples(parse, ERROR_EXAMPLES, use_accepts=True)
    except Exception:  # an example that fails differently must not hide the real error
        return None
    return label if isinstance(label, str) else None
