"""Deep synthetic HLO modules for the scale tests: `blocks` layers of a layernorm'd
gelu-like MLP step (dot, reductions with a reducer, broadcasts, elementwise math, a
residual), about 22 instructions per block, every layer's output reused by the next
and by the final sum so nothing is dead."""

from __future__ import annotations


def deep_module(blocks: int, width: int = 16, batch: int = 4) -> str:
    """HLO text of `blocks` layers."""
    x = f"f32[{batch},{width}]"
    row = f"f32[{batch}]"
    lines = [
        "HloModule deep",
        "",
        "add_f32 {",
        "  a = f32[] parameter(0)",
        "  b = f32[] parameter(1)",
        "  ROOT s = f32[] add(a, b)",
        "}",
        "",
        "ENTRY main {",
        f"  x.0 = {x} parameter(0)",
        f"  w = f32[{width},{width}] parameter(1)",
        "  zero = f32[] constant(0)",
        "  half = f32[] constant(0.5)",
        f"  inv = f32[] constant({1.0 / width})",
        f"  halves = {x} broadcast(half), dimensions={{}}",
        f"  invs = {row} broadcast(inv), dimensions={{}}",
    ]
    for i in range(blocks):
        p, n = f"x.{i}", f"x.{i + 1}"
        lines += [
            f"  d.{i} = {x} dot({p}, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}",
            f"  t.{i} = {x} tanh(d.{i})",
            f"  g.{i} = {x} multiply(t.{i}, halves)",
            f"  h.{i} = {x} add(g.{i}, d.{i})",
            f"  s.{i} = {row} reduce(h.{i}, zero), dimensions={{1}}, to_apply=add_f32",
            f"  m.{i} = {row} multiply(s.{i}, invs)",
            f"  mb.{i} = {x} broadcast(m.{i}), dimensions={{0}}",
            f"  c.{i} = {x} subtract(h.{i}, mb.{i})",
            f"  sq.{i} = {x} multiply(c.{i}, c.{i})",
            f"  v.{i} = {row} reduce(sq.{i}, zero), dimensions={{1}}, to_apply=add_f32",
            f"  vm.{i} = {row} multiply(v.{i}, invs)",
            f"  r.{i} = {row} rsqrt(vm.{i})",
            f"  rb.{i} = {x} broadcast(r.{i}), dimensions={{0}}",
            f"  nrm.{i} = {x} multiply(c.{i}, rb.{i})",
            f"  e.{i} = {x} exponential(nrm.{i})",
            f"  ng.{i} = {x} negate(e.{i})",
            f"  a.{i} = {x} add(ng.{i}, nrm.{i})",
            f"  tr.{i} = f32[{width},{batch}] transpose(a.{i}), dimensions={{1,0}}",
            f"  tt.{i} = {x} transpose(tr.{i}), dimensions={{1,0}}",
            f"  cp.{i} = {x} copy(tt.{i})",
            f"  {n} = {x} add(cp.{i}, {p})",
        ]
    lines += [f"  ROOT out = {x} add(x.{blocks}, x.0)", "}", ""]
    return "\n".join(lines)
