"""The colour map: a table keyed by Category, plus XLA's context rules."""

from __future__ import annotations

from hlotool.frontend import parse_hlo
from hlotool.graph import style as S
from hlotool.ir import Category, Opcode

MODULE = """HloModule m

fused (param_0: f32[64,64], param_1: f32[]) -> f32[64,64] {
  param_0 = f32[64,64] parameter(0)
  param_1 = f32[] parameter(1)
  transpose.1 = f32[64,64] transpose(param_0), dimensions={1,0}
  broadcast.1 = f32[64,64] broadcast(param_1), dimensions={}
  ROOT add.1 = f32[64,64] add(transpose.1, broadcast.1)
}

ENTRY main {
  big = f32[64,64] parameter(0)
  s = f32[] parameter(1)
  dot.1 = f32[64,64] dot(big, big), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  add.2 = f32[] add(s, s)
  transpose.2 = f32[64,64] transpose(dot.1), dimensions={1,0}
  copy.1 = f32[] copy(add.2)
  fusion.1 = f32[64,64] fusion(transpose.2, copy.1), kind=kLoop, calls=fused
  ROOT t = (f32[64,64], f32[]) tuple(fusion.1, copy.1)
}
"""


def _styles() -> dict[str, S.Style]:
    module = parse_hlo(MODULE)
    out = {}
    for comp in module.computations:
        fused = comp.fusion_instruction is not None
        for ins in comp.instructions:
            out[ins.name] = S.instruction_style(ins, fused)
    return out


def test_every_category_has_a_style() -> None:
    assert set(S.CATEGORY_STYLES) == set(Category)
    assert all(isinstance(s, S.Style) for s in S.CATEGORY_STYLES.values())


def test_overrides_are_a_small_table() -> None:
    assert len(S.OPCODE_STYLES) < len(Opcode) // 4


def test_xla_colours() -> None:
    st = _styles()
    assert st["dot.1"] is S.DARK_BLUE
    assert st["big"] is S.DARK_ORANGE  # 4096 elements: large
    assert st["s"] is S.ORANGE
    assert st["add.2"] is S.WHITE  # scalar elementwise fades
    assert st["add.1"] is S.YELLOW
    assert st["transpose.2"] is S.GREEN
    assert st["transpose.1"] is S.WHITE  # data movement inside a fusion is free
    assert st["broadcast.1"] is S.WHITE  # fused broadcast of a scalar
    assert st["copy.1"] is S.GREEN  # copies always stand out
    assert st["fusion.1"] is S.GRAY
    assert st["t"] is S.WHITE


def test_diff_palette_covers_every_status() -> None:
    assert set(S.DIFF_STYLES) == set(S.DiffStatus)
