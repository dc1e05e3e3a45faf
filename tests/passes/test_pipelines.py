"""The named pipelines: every corpus module keeps its results through the cpu pipeline
(also XLA's optimized dump), and through default, gpu and tpu (gpu and tpu on a sample,
to keep the suite fast), with the verifier and the changed-report check after every
pass. Plus the pipelines' shape: reasons, errors, the CPU back end's invariants."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlotool.analysis.liveness import sequential_computations
from hlotool.ir.opcodes import Opcode
from hlotool.passes.base import PassError
from hlotool.passes.instruction_fusion import is_loop_fusible
from hlotool.passes.pipeline import FixedPoint, Step
from hlotool.passes.pipelines import PIPELINES, SPECS, PipelineSpec, build, get_pipeline
from tests.conftest import CASE_IDS, CASES
from tests.passes import corpus_numerics

O = Opcode
#: gpu and tpu run on every third case plus the control-flow-heavy ones.
SAMPLE = sorted(
    {
        *CASES[::3],
        *(
            c
            for c in CASES
            if c.name
            in (
                "mlp_train_step",
                "fori_loop",
                "scan",
                "cond",
                "while_loop",
                "softmax",
                "attention_causal",
            )
        ),
    }
)


def _ids(cases: list[Path]) -> list[str]:
    return [c.name for c in cases]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cpu_pipeline(case: Path) -> None:
    module = corpus_numerics.check(case, get_pipeline("cpu"))
    assert module.config.is_scheduled


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_cpu_pipeline_on_xla_optimized_module(case: Path) -> None:
    corpus_numerics.check(case, get_pipeline("cpu"), "module.opt.hlo")


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_default_pipeline(case: Path) -> None:
    corpus_numerics.check(case, get_pipeline("default"))


@pytest.mark.parametrize("case", SAMPLE, ids=_ids(SAMPLE))
@pytest.mark.parametrize("name", ["gpu", "tpu"])
def test_gpu_and_tpu_pipelines(case: Path, name: str) -> None:
    corpus_numerics.check(case, get_pipeline(name))


def test_the_pipelines_exist_and_every_step_says_why() -> None:
    """Every optimizing pipeline has a simplification fixed point; spmd only partitions."""
    assert list(PIPELINES) == ["default", "cpu", "gpu", "spmd", "tpu"]
    for name in PIPELINES:
        pipeline = PIPELINES[name]
        assert pipeline.summary
        for step in pipeline.steps:
            assert step.reason, (name, step)
        assert all(s.reason for s in pipeline.flat_steps())
        assert name == "spmd" or any(isinstance(s, FixedPoint) for s in pipeline.steps)


def test_unknown_pipeline_lists_the_names() -> None:
    with pytest.raises(PassError, match="default, cpu, gpu, spmd, tpu"):
        get_pipeline("fast")


def test_a_missing_pass_is_a_clear_error() -> None:
    spec = PipelineSpec("broken", (("dce", "ok"), ("no-such-pass", "missing")))
    with pytest.raises(PassError, match="pipeline broken needs no-such-pass"):
        build("broken", spec)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.name in ("mlp_train_step", "softmax", "scan")],
    ids=["mlp_train_step", "softmax", "scan"],
)
def test_cpu_back_end_invariants(case: Path) -> None:
    """After the cpu pipeline: scheduled, row-major, and every elemental op is inside a
    fusion (copy insertion's copies come after the fusion wrapper and stay bare)."""
    module, _ = corpus_numerics.load(case)
    get_pipeline("cpu").run(module)
    assert module.config.is_scheduled
    bare = [
        i.name
        for c in sequential_computations(module)
        for i in c.instructions
        if is_loop_fusible(i) and i.opcode not in (O.BITCAST, O.CONSTANT, O.COPY)
    ]
    assert not bare
    layout = module.entry_computation_layout
    assert layout is not None and layout.result == module.entry.root_shape


def test_specs_are_data() -> None:
    for name, spec in SPECS.items():
        built = build(name, spec)
        assert len(built.flat_steps()) == len(_flat(spec.steps))
        assert all(isinstance(s, Step | FixedPoint) for s in built.steps)


def _flat(steps: tuple[object, ...]) -> list[object]:
    out: list[object] = []
    for s in steps:
        inner = getattr(s, "steps", None)
        out.extend(_flat(inner) if inner is not None else [s])
    return out


def test_the_verifier_runs_only_after_passes_that_changed_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Like XLA's invariant checkers: one verification per changing pass application,
    none for the no-op rounds of a fixed point."""
    import hlotool.verifier
    from hlotool.frontend import parse_hlo
    from hlotool.passes.pipeline import check_change_report, verify_after_each
    from tests.scale_programs import deep_module

    calls: list[int] = []
    verify = hlotool.verifier.verify
    monkeypatch.setattr(hlotool.verifier, "verify", lambda m: (calls.append(1), verify(m))[1])
    results = get_pipeline("cpu").run(parse_hlo(deep_module(2)),
                                      [verify_after_each, check_change_report])
    changed = sum(1 for r in results if r.changed)
    assert 0 < changed < len(results)
    assert len(calls) == changed


def test_opt_hashes_the_module_only_to_check_change_reports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`opt` verifies after changing passes from their own reports (no fingerprints, as
    XLA's release builds); `--check-change-report` fingerprints around every pass and
    decides `changed` by them."""
    import hlotool.passes.pipeline as pipeline
    from hlotool.commands.opt import apply_passes
    from hlotool.frontend import parse_hlo
    from tests.scale_programs import deep_module

    hashed: list[int] = []
    real = pipeline.fingerprint
    monkeypatch.setattr(pipeline, "fingerprint", lambda m: (hashed.append(1), real(m))[1])
    plain = apply_passes(parse_hlo(deep_module(2)), "cpu", None)
    assert not hashed and any(r.changed for r in plain)
    checked = apply_passes(parse_hlo(deep_module(2)), "cpu", None, check_report=True)
    assert len(hashed) == len(checked) + 1  # one before the first pass, one after each
    assert [r.changed for r in checked] == [r.changed for r in plain]



def test_opt_takes_check_change_report(tmp_path: Path) -> None:
    from hlotool.cli import main

    out = tmp_path / "out.hlo"
    example = Path(__file__).parents[2] / "examples" / "softmax.hlo"
    assert main(["opt", str(example), "--pipeline", "cpu", "--check-change-report",
                 "-o", str(out)]) == 0
    assert "ENTRY" in out.read_text()
