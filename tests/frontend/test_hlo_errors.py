"""Malformed HLO: each input exits 2 with FILE:LINE:COL, a caret and a clear message,
never a traceback (XLA's own parser accepts some of these and aborts on others)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlotool.cli import main

#: name -> (file content, a fragment the message must contain)
CASES: dict[str, tuple[str, str]] = {
    'bad_dim_labels': (
        'HloModule m\nENTRY e {\n  a = f32[1,5,3] parameter(0)\n  b = f32[3,3,4] parameter(1)\n  ROOT c = f32[1,3,4] convolution(a, b), window={size=3}, dim_labels=bb0_0io->b0f\n}\n',
        'exactly one',
    ),
    'bad_enum': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = pred[2] compare(a, a), direction=LOL\n}\n',
        "unknown value 'LOL' for attribute direction",
    ),
    'bad_layout': (
        'HloModule m\nENTRY e {\n  ROOT a = f32[2,3]{0,0} parameter(0)\n}\n',
        'is not a permutation',
    ),
    'bad_string_escape': (
        'HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0), metadata={op_name="\\q"}\n}\n',
        'unknown escape',
    ),
    'bad_type': (
        'HloModule m\nENTRY e {\n  ROOT a = f31[2] parameter(0)\n}\n',
        "unknown element type 'f31'",
    ),
    'bad_window_key': (
        'HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  a = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT b = f32[3] reduce-window(a, z), window={size=2 strid=1}, to_apply=add\n}\n',
        'unknown window attribute strid',
    ),
    'broadcast_bad': (
        'HloModule m\nENTRY e {\n  a = f32[3] parameter(0)\n  ROOT b = f32[2,4] broadcast(a), dimensions={1}\n}\n',
        'Broadcast operand dimension 0',
    ),
    'concat_bad': (
        'HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  b = f32[2,4] parameter(1)\n  ROOT c = f32[4,3] concatenate(a, b), dimensions={0}\n}\n',
        'Cannot concatenate',
    ),
    'const_count': (
        'HloModule m\nENTRY e {\n  ROOT a = f32[3] constant({1, 2})\n}\n',
        'expects 3 elements',
    ),
    'const_range': (
        'HloModule m\nENTRY e {\n  ROOT a = s8[] constant(300)\n}\n',
        'out of range for s8',
    ),
    'conv_bad': (
        'HloModule m\nENTRY e {\n  a = f32[1,5,5,3] parameter(0)\n  b = f32[3,3,4,8] parameter(1)\n  ROOT c = f32[1,3,3,8] convolution(a, b), window={size=3x3}, dim_labels=b01f_01io->b01f\n}\n',
        'feature_group_count',
    ),
    'dot_dims': (
        'HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  b = f32[4,5] parameter(1)\n  ROOT c = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n',
        'Contracting dimension sizes',
    ),
    'dup_attr': (
        'HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  ROOT b = f32[3,2] transpose(a), dimensions={1,0}, dimensions={1,0}\n}\n',
        'attribute dimensions already exists',
    ),
    'duplicate_name': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  a = f32[2] negate(a)\n}\n',
        'instruction a already exists',
    ),
    'duplicate_param': (
        'HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(0)\n  ROOT c = f32[] add(a, b)\n}\n',
        'Duplicate parameter number 0',
    ),
    'elided_nested': (
        'HloModule m\nENTRY e {\n  ROOT a = f32[2,2] constant({{...},{...}})\n}\n',
        '...',
    ),
    'empty': (
        '',
        'empty input',
    ),
    'entry_layout': (
        'HloModule m, entry_computation_layout={(f32[3])->f32[3]}\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n',
        'entry_computation_layout says',
    ),
    'forward_computation': (
        'HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT b = f32[] reduce(a, z), dimensions={0}, to_apply=add\n}\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n',
        'used before it is defined',
    ),
    'forward_ref': (
        'HloModule m\nENTRY e {\n  ROOT c = f32[2] negate(a)\n  a = f32[2] parameter(0)\n}\n',
        'not defined before this use',
    ),
    'gte_bad': (
        'HloModule m\nENTRY e {\n  a = (f32[2], s32[]) parameter(0)\n  ROOT b = f32[2] get-tuple-element(a), index=5\n}\n',
        'out of tuple bounds',
    ),
    'missing_attr': (
        'HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  ROOT b = f32[3,2] transpose(a)\n}\n',
        'attribute dimensions is expected',
    ),
    'missing_paren': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] negate(a\n}\n',
        "missing ')'",
    ),
    'no_instr': (
        'HloModule m\nENTRY e {\n}\n',
        'at least one instruction',
    ),
    'operand_shape_mismatch': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] negate(s32[2] a)\n}\n',
        'does not match its definition',
    ),
    'pad_bad': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  z = f32[] constant(0)\n  ROOT c = f32[9] pad(a, z), padding=1_1\n}\n',
        'pad of these operands gives',
    ),
    'param_gap': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] parameter(2)\n  ROOT c = f32[2] add(a, b)\n}\n',
        'without gaps',
    ),
    'reduce_sig': (
        'HloModule m\nadd {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\nENTRY e {\n  a = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT b = f32[] reduce(a, z), dimensions={0}, to_apply=add\n}\n',
        'Reduction function must take 2 parameters',
    ),
    'reshape_count': (
        'HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  ROOT b = f32[7] reshape(a)\n}\n',
        'element count mismatch',
    ),
    'select_bad': (
        'HloModule m\nENTRY e {\n  p = pred[3] parameter(0)\n  a = f32[2] parameter(1)\n  ROOT s = f32[2] select(p, a, a)\n}\n',
        'Operands to select',
    ),
    'shape_mismatch_binary': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[3] parameter(1)\n  ROOT c = f32[2] add(a, b)\n}\n',
        'incompatible shapes',
    ),
    'signature_result': (
        'HloModule m\nENTRY e () -> s32[] {\n  ROOT a = f32[] constant(0)\n}\n',
        'does not match its root',
    ),
    'slice_bad': (
        'HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT b = f32[2] slice(a), slice={[0:9]}\n}\n',
        'limit index (9)',
    ),
    'space_eq': (
        'HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n  ROOT b = f32[3,2] transpose(a), dimensions = {1,0}\n}\n',
        "glued to '='",
    ),
    'token_dims': (
        'HloModule m\nENTRY e {\n  ROOT a = token[2] parameter(0)\n}\n',
        'cannot have dimensions',
    ),
    'two_entry': (
        'HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n}\nENTRY f {\n  ROOT a = f32[] parameter(0)\n}\n',
        'only one ENTRY',
    ),
    'two_roots': (
        'HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n  ROOT b = f32[] negate(a)\n}\n',
        'only one ROOT',
    ),
    'type_name': (
        'HloModule m\nENTRY e {\n  ROOT f32 = f32[2] parameter(0)\n}\n',
        'illegal instruction name f32',
    ),
    'undefined_comp': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  z = f32[] constant(0)\n  ROOT b = f32[] reduce(a, z), dimensions={0}, to_apply=nope\n}\n',
        'computation nope does not exist',
    ),
    'undefined_operand': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] add(a, zz)\n}\n',
        'instruction zz is not defined',
    ),
    'unknown_attr': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] negate(a), frob=3\n}\n',
        'unknown attribute frob',
    ),
    'unknown_opcode': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = f32[2] frobnicate(a)\n}\n',
        "unknown opcode 'frobnicate'",
    ),
    'unterminated': (
        'HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n',
        'end of input',
    ),
    'while_sig': (
        'HloModule m\nc {\n  p = s32[] parameter(0)\n  ROOT r = s32[] add(p, p)\n}\nb {\n  p = s32[] parameter(0)\n  ROOT r = s32[] add(p, p)\n}\nENTRY e {\n  a = s32[] parameter(0)\n  ROOT w = s32[] while(a), condition=c, body=b\n}\n',
        'Condition must return a boolean',
    ),
    'wrong_arity': (
        'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT c = f32[2] add(a)\n}\n',
        'add expects 2 operands',
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_reported_cleanly(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, fragment = CASES[name]
    path = tmp_path / f"{name}.hlo"
    path.write_bytes(text.encode("latin-1"))
    assert main(["parse", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    first = err.splitlines()[0]
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: error: ", first), first
    assert fragment in err
    if name != "empty":
        assert any(re.fullmatch(r" *\^~*", line) for line in err.splitlines()), err


def test_at_least_25_kinds() -> None:
    assert len(CASES) >= 25
