"""LiteralProto data (hlotool.hloproto.values): every element type and a non-default
layout, serialized by XLA from HLO text, read back bit for bit."""

from __future__ import annotations

from hlotool.frontend import parse_hlo
from hlotool.hloproto.reader import read

CONSTANTS = """HloModule consts
ENTRY e {
  a = f32[2,3]{0,1} constant({{1,2,3},{4,5,6}})
  b = s4[5]{0} constant({-8,-1,0,3,7})
  c = u4[3]{0} constant({0,9,15})
  d = bf16[2]{0} constant({1.5,-2.25})
  e = f16[2]{0} constant({0.1,65504})
  f = pred[3]{0} constant({true,false,true})
  g = c64[2]{0} constant({(1,2),(3,-4)})
  h = c128[1]{0} constant({(0.5,-1e300)})
  i = s8[2]{0} constant({-128,127})
  j = f8e4m3fn[2]{0} constant({0.5,-448})
  k = u16[2]{0} constant({1,65535})
  l = s64[2,2]{0,1} constant({{1,2},{3,-4}})
  m = f64[2]{0} constant({0.1,nan})
  n = (f32[], s32[2]{0}) constant((1, {2,3}))
  o = u2[3]{0} constant({0,1,3})
  p = u64[1]{0} constant({18446744073709551615})
  q = s16[2,2,2]{1,2,0} constant({{{1,2},{3,4}},{{5,6},{7,8}}})
  ROOT t = (f32[2,3]{0,1}, s4[5], u4[3], bf16[2], f16[2], pred[3], c64[2], c128[1], s8[2], f8e4m3fn[2], u16[2], s64[2,2]{0,1}, f64[2], (f32[], s32[2]), u2[3], u64[1], s16[2,2,2]{1,2,0}) tuple(a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q)
}
"""


def test_literals_of_every_kind_read_bit_for_bit() -> None:
    import jaxlib._hlo as xla_hlo  # type: ignore[import-not-found]

    proto = xla_hlo.hlo_module_from_text(CONSTANTS).as_serialized_hlo_module_proto()
    got = {i.name: i for i in parse_hlo(read(proto).text).entry.instructions}
    want = [i for i in parse_hlo(CONSTANTS).entry.instructions if i.literal is not None]
    assert len(want) == 17
    for ins in want:
        lit = got[ins.name].literal
        assert lit is not None and lit.bit_equal(ins.literal), ins.name
        assert got[ins.name].shape == ins.shape, ins.name
