"""The corners of the HLO text format: each snippet parses, verifies, prints to a fixed
point, and prints the way XLA does (expected text recorded from jaxlib 0.10.2)."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir import Opcode, PrimitiveType
from hlotool.ir.types import UNBOUNDED
from hlotool.ir.printer import print_module
from hlotool.verifier import verify


def roundtrip(text: str) -> str:
    module = parse_hlo(text)
    verify(module)
    once = print_module(module)
    assert print_module(parse_hlo(once)) == once
    return once


def entry_line(printed: str, name: str) -> str:
    return next(line.strip() for line in printed.splitlines() if f"%{name} = " in line)


def test_async_sugar_prints_like_xla_and_runs() -> None:
    text = """HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) negate-start(p)
  u = ((f32[4]), f32[4], s32[]) negate-update(s)
  ROOT d = f32[4] negate-done(u)
}"""
    out = roundtrip(text)
    assert entry_line(out, "s") == "%s = ((f32[4]{0}), f32[4]{0}, s32[]) negate-start(%p)"
    assert entry_line(out, "d") == "ROOT %d = f32[4]{0} negate-done(%u)"
    assert "wrapped" not in out
    result = Evaluator(parse_hlo(text)).run([np.arange(4, dtype=np.float32)])
    np.testing.assert_array_equal(result, -np.arange(4, dtype=np.float32))


def test_header_less_module_and_optional_percent() -> None:
    out = roundtrip("ENTRY main {\n  %a = s32[] parameter(0)\n  ROOT b = s32[] add(a, %a)\n}\n")
    assert out.startswith("HloModule module_main, entry_computation_layout={(s32[])->s32[]}")


def test_nested_operand_instructions_are_hoisted() -> None:
    module = parse_hlo("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n"
                       "  ROOT b = f32[] add(a, f32[] constant(1))\n}\n")
    names = [i.name for i in module.entry.instructions]
    assert names == ["a", "constant.anon", "b"]
    assert float(Evaluator(module).run([np.float32(2)])) == 3.0


def test_inline_computation_body() -> None:
    out = roundtrip("""HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply={
    x = f32[] parameter(0)
    y = f32[] parameter(1)
    ROOT s = f32[] add(x, y)
  }
}""")
    assert "to_apply=%_" in out


def test_layout_suffixes_and_dynamic_dims() -> None:
    module = parse_hlo("HloModule m\nENTRY e {\n"
                       "  a = f32[8,128]{1,0:T(8,128)(2,1)E(32)S(1)} parameter(0)\n"
                       "  b = f32[<=4,?] parameter(1)\n"
                       "  ROOT t = (f32[8,128]{1,0:T(8,128)(2,1)E(32)S(1)}, f32[<=4,?]) tuple(a, b)\n}\n")
    a, b = module.entry.parameters
    assert a.shape.layout is not None and a.shape.layout.memory_space == 1
    assert [t.dimensions for t in a.shape.layout.tiles] == [(8, 128), (2, 1)]
    assert b.shape.dimensions == (4, UNBOUNDED) and b.shape.dynamic == (True, False)
    out = print_module(module)
    assert "f32[8,128]{1,0:T(8,128)(2,1)E(32)S(1)} parameter(0)" in out
    assert "f32[<=4,?]{1,0} parameter(1)" in out


def test_metadata_sharding_frontend_attributes_backend_config() -> None:
    out = roundtrip("""HloModule m, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=2]>}}
ENTRY e {
  a = f32[2] parameter(0), sharding={devices=[2]0,1}, metadata={op_type="x" op_name="y/z" source_line=3}
  ROOT b = f32[2] negate(a), frontend_attributes={b="2",a={raw {blob}}}, backend_config={"k":{"n":"3"}}
}""")
    assert ('%a = f32[2]{0} parameter(0), sharding={devices=[2]0,1}, '
            'metadata={op_type="x" op_name="y/z" source_line=3}') in out
    assert 'frontend_attributes={a={raw {blob}},b="2"}, backend_config={"k":{"n":"3"}}' in out
    assert 'frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=2]>}}' in out


def test_comments_and_index_annotations_are_ignored() -> None:
    out = roundtrip("""// leading comment
HloModule m /* block */
ENTRY e {
  a = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) parameter(0) // trailing
  ROOT g = f32[] get-tuple-element(a), index=5
}""")
    assert "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) parameter(0)" in out


def test_module_header_attributes() -> None:
    out = roundtrip("""HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, must-alias) }, buffer_donor={ (1, {}) }, replica_count=2, num_partitions=2
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT t = (f32[2]) tuple(a)
}""")
    assert out.startswith("HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, "
                          "must-alias) }, buffer_donor={ (1, {}) }, entry_computation_layout=")
    assert "replica_count=2, num_partitions=2" in out


def test_omitted_result_shapes_are_inferred() -> None:
    module = parse_hlo("HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n"
                       "  s = add(a, a)\n  ROOT t = transpose(s), dimensions={1,0}\n}\n")
    t = module.entry.root
    assert t.shape.dimensions == (3, 2) and t.shape.layout.minor_to_major == (0, 1)


def test_window_dim_labels_padding_slice_attributes() -> None:
    out = roundtrip("""HloModule m
ENTRY e {
  x = f32[1,8,8,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  c = f32[1,4,4,4] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f
  z = f32[] constant(0)
  p = f32[1,6,6,4] pad(c, z), padding=0_0x1_1x1_1x0_0
  ROOT s = f32[1,3,3,4] slice(p), slice={[0:1], [0:6:2], [0:6:2], [0:4]}
}""")
    assert "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" in out
    assert "padding=0_0x1_1x1_1x0_0" in out
    assert "slice={[0:1:1], [0:6:2], [0:6:2], [0:4:1]}" in out


def test_constants_keep_their_bits() -> None:
    module = parse_hlo("HloModule m\nENTRY e {\n  ROOT c = (bf16[3], f32[2], pred[2]) "
                       "constant(({0.1, -0, nan(0x1)}, {-0, inf}, {1, 0}))\n}\n")
    lit = module.entry.root.literal
    assert lit is not None
    assert lit.elements[0].array.view(np.uint16).tolist() == [0x3DCD, 0x8000, 0x7F81]
    out = roundtrip(print_module(module))
    assert "constant(( {0.1001, -0, nan(0x1)}, {-0, inf}, {1, 0} ))" in out


def test_primitive_types_all_parse() -> None:
    for t in PrimitiveType:
        if t in (PrimitiveType.TUPLE, PrimitiveType.BUFFER):
            continue
        dims = "" if t in (PrimitiveType.TOKEN, PrimitiveType.OPAQUE) else "2"
        module = parse_hlo(f"HloModule m\nENTRY e {{\n  ROOT a = {t.value}[{dims}] parameter(0)\n}}\n")
        assert module.entry.root.shape.element_type is t


def test_every_opcode_spelling_is_known() -> None:
    from hlotool.ir.opcodes import BY_NAME

    assert len(BY_NAME) == len(Opcode)
    assert BY_NAME["count-leading-zeros"] is Opcode.CLZ


@pytest.mark.parametrize("bad", ["p= f32[] parameter(0)", "p = f32[] parameter(0), x =1"])
def test_xla_whitespace_rules(bad: str) -> None:
    from hlotool.diagnostics import HloError

    with pytest.raises(HloError):
        parse_hlo(f"HloModule m\nENTRY e {{\n  {bad}\n}}\n")


def test_key_value_lists_inside_attribute_braces() -> None:
    out = roundtrip("""HloModule m, replica_count=1
ENTRY e {
  a = f32[2] parameter(0), statistics={visualizing_index=1,stat-0=3}
  ROOT b = f32[2] exponential(a), result_accuracy={tolerance={atol=1,rtol=0,ulps=2}}
}""")
    assert "statistics={visualizing_index=1,stat-0=3}" in out
    assert "result_accuracy={tolerance={atol=1,rtol=0,ulps=2}}" in out


def test_an_instruction_broken_over_lines_parses_as_on_one_line() -> None:
    """Newlines are whitespace between tokens, also before an instruction's attributes
    (a line the fused-line lexer cannot take: found by bench/fuzz.py, seed 35569)."""
    one = ("HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n"
           "  ROOT t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n}\n")
    broken = one.replace("transpose(p), dimensions", "transpose(p)\n, dimensions")
    assert roundtrip(broken) == roundtrip(one)
