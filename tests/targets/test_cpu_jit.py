"""The JIT's pass pipelines: the default (level 2) still vectorizes and computes the same
values as the interpreter and as LLVM's full O3 (level 3). One resident module's code
shares the process engine; a second one, with the same kernel names, gets its own."""

from __future__ import annotations

import numpy as np
import pytest

from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.cpu import CpuTarget, jit
from hlotool.targets.cpu.cache import module_key
from tests.targets.conftest import assert_same

FUSED = """HloModule m
fused {
  p0 = f32[4096] parameter(0)
  p1 = f32[4096] parameter(1)
  m = f32[4096] multiply(p0, p1)
  t = f32[4096] tanh(m)
  ROOT r = f32[4096] add(t, p0)
}
ENTRY e {
  a = f32[4096] parameter(0)
  b = f32[4096] parameter(1)
  ROOT f = f32[4096] fusion(a, b), kind=kLoop, calls=fused
}"""

ROW_SUM = """HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[64,1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[64] reduce(a, z), dimensions={1}, to_apply=add
}"""


def _target(speed_level: int) -> CpuTarget:
    return CpuTarget(cache=False, autotune=False, speed_level=speed_level)


@pytest.mark.parametrize("speed_level", [2, 3])
@pytest.mark.parametrize("text", [FUSED, ROW_SUM], ids=["loop", "row-reduce"])
def test_levels_match_the_interpreter(text: str, speed_level: int) -> None:
    module = parse_hlo(text)
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(p.shape.dimensions).astype(np.float32)
            for p in module.entry.parameters]
    ex = _target(speed_level).compile(module)
    assert ex.library is not None
    assert {"optimize", "codegen"} <= set(ex.library.timings.stages)
    with np.errstate(all="ignore"):
        want = Evaluator(parse_hlo(text)).run(args)
    assert_same(ex.run(args), want, ulps=2 if text is FUSED else 0)


def test_default_pipeline_vectorizes_loops() -> None:
    """Level 2 drops SLP and unrolling, not the loop vectorizer (kernels are scalar loops)."""
    ex = _target(2).compile(parse_hlo(FUSED))
    assert ex.library is not None
    assert "x float>" in ex.library.llvm_ir


def _binary(op: str) -> str:
    return (f"HloModule m\nENTRY e {{\n  a = f32[4096] parameter(0)\n  b = f32[4096] "
            f"parameter(1)\n  ROOT r = f32[4096] {op}(a, b)\n}}")


def test_only_one_resident_module_shares_the_process_engine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jit._ProcessEngine, "engine", None)  # this test's own process engine
    monkeypatch.setattr(jit._ProcessEngine, "has_module", False)
    resident = CpuTarget(cache=False, autotune=False, resident=True)
    first, second = (resident.compile(parse_hlo(_binary(op))) for op in ("add", "multiply"))
    assert first.library is not None and second.library is not None
    assert first.library.in_process_engine and not second.library.in_process_engine
    assert set(first.symbols.values()) == set(second.symbols.values())  # would clash
    rng = np.random.default_rng(2)
    x, y = (rng.standard_normal(4096).astype(np.float32) for _ in range(2))
    np.testing.assert_array_equal(first.run([x, y]), x + y)
    np.testing.assert_array_equal(second.run([x, y]), x * y)
    first.library.keep_forever()  # nothing to detach: the process engine is never freed
    np.testing.assert_array_equal(first.run([x, y]), x + y)


def test_speed_level_is_part_of_the_cache_key() -> None:
    module = parse_hlo(FUSED)
    assert module_key(module, speed_level=2) != module_key(module, speed_level=3)


SCALE = """
define void @f(ptr noalias %a, ptr noalias %b, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
  %p = getelementptr float, ptr %a, i64 %i
  %x = load float, ptr %p
  %y = fmul float %x, 3.0
  %q = getelementptr float, ptr %b, i64 %i
  store float %y, ptr %q
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}"""


def _widest_vector(cpu: str, features: str) -> int:
    """The widest f32 vector the loop vectorizer makes of SCALE for `cpu`."""
    import re

    import llvmlite.binding as llvm

    info = jit.host()
    machine = llvm.Target.from_triple(info.triple).create_target_machine(
        cpu=cpu, features=features, opt=2)
    mod = llvm.parse_assembly(SCALE)
    mod.triple, mod.data_layout = info.triple, str(machine.target_data)
    pb = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=2))
    pb.getModulePassManager().run(mod, pb)
    return max(int(n) for n in re.findall(r"<(\d+) x float>", str(mod)))


AVX512 = "+avx,+avx2,+fma,+avx512f,+avx512vl,+avx512bw,+avx512dq"


@pytest.mark.skipif(not jit.host().is_x86, reason="x86 CPU names and features")
@pytest.mark.parametrize(("cpu", "lanes"), [("sapphirerapids", 16), ("icelake-server", 16),
                                            ("rocketlake", 16), ("znver4", 16),
                                            ("skylake-avx512", 8), ("cascadelake", 8)])
def test_avx512_hosts_get_zmm_loops_unless_they_throttle(cpu: str, lanes: int) -> None:
    assert _widest_vector(cpu, jit.wide_vectors(cpu, AVX512)) == lanes


def test_hosts_without_avx512_keep_their_features() -> None:
    assert jit.wide_vectors("znver3", "+avx,+avx2,-avx512f") == "+avx,+avx2,-avx512f"
