"""The named pass pipelines: `default`, `cpu`, `gpu`, `tpu` and `spmd`.

Each pipeline is data: steps `(pass spec, reason)` in the order XLA's compiler runs the
corresponding passes, and fixed-point groups for XLA's `HloPassFix` simplification
loops. Passes are looked up by name when a pipeline is first used, so a pipeline that
needs a pass this build lacks fails with a PassError naming it.

- cpu follows cpu_compiler.cc: RunHloPassesThroughLayoutAssn (sharding removal,
  canonicalization, the simplification fixed point, transpose folding, layout
  assignment), then RunHloPassesAfterLayoutAssn (CpuInstructionFusion, FusionWrapper,
  simplification after layout assignment, CopyInsertion), then scheduling and buffer
  assignment. Top-k is not decomposed: XLA:CPU's TopkDecomposer + TopkRewriter pair
  leaves an f32 top-k as one TopK library call, which our `topk` instruction stands for.
- gpu follows gpu_compiler.cc: OptimizeHloModule, layout assignment, the fusion
  pipeline (instruction fusion without then with duplication, merging, multi-output
  fusion), horizontal fusion, post-fusion simplification, copy insertion, schedule.
  XLA:GPU has a TopK kernel too.
- tpu is the CPU shape with TPU fusion rules and multi-output fusion (the TPU
  compiler's pass list is not public); top-k runs as a sort.
- default is target-independent: inline, simplify to a fixed point, fuse.
- spmd partitions a module whose parameters carry shardings into XLA's per-device form
  (num_partitions=N, collectives inserted); `hlotool run` then runs every device.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from hlotool.passes.base import PassError
from hlotool.passes.pipeline import FixedPoint, Pipeline, Step
from hlotool.passes.registry import parse_pass_list

#: One step written as data: (pass spec, one-line reason).
StepSpec = tuple[str, str]


@dataclass(frozen=True)
class Group:
    """A fixed-point group written as data (XLA's HloPassFix<HloPassPipeline>)."""

    name: str
    steps: tuple[StepSpec | Group, ...]
    reason: str
    max_iterations: int = 10


@dataclass(frozen=True)
class PipelineSpec:
    """A pipeline written as data."""

    summary: str
    steps: tuple[StepSpec | Group, ...]


# -- shared groups ------------------------------------------------------------------------
_SIMPLIFY = "algebraic-simplify{dot-strength-reduction=false}"
#: XLA:CPU's simplifier also runs with `executing_on_cpu` (a division by a broadcast as a
#: multiplication by its reciprocal).
_CPU_SIMPLIFY = "algebraic-simplify{dot-strength-reduction=false,cpu=true}"


def _simplification(simplify: str) -> Group:
    """CreateSimplificationPipeline, run to a fixed point, with `simplify` as its
    algebraic simplifier."""
    return Group(
        "simplification",
        (
            (simplify, "identities and redundant data movement; CPU dots stay dots"),
            ("sort-simplifier", "drop sort operands whose results nobody reads"),
            ("dce", "remove what the rewrites left unused"),
            ("while-loop-invariant-code-motion", "hoist loop-invariant work out of loop bodies"),
            ("tuple-simplifier", "read tuple elements from where they were made"),
            ("while-loop-simplifier", "drop unused loop state and loops that never run"),
            ("dce", "remove the old loop state"),
            ("reshape-mover", "sink reshapes and transposes below elementwise ops"),
            ("constant-folding", "evaluate constant subexpressions at compile time"),
        ),
        "CreateSimplificationPipeline, run to a fixed point",
    )


CPU_SIMPLIFICATION = _simplification(_CPU_SIMPLIFY)
TPU_SIMPLIFICATION = _simplification(_SIMPLIFY)

_LATE_CLEANUP = Group(
    "simplification after layout assignment",
    (
        (_SIMPLIFY, "layout assignment can leave no-op or duplicate copies"),
        ("dce", "remove the copies made dead"),
        ("cse", "merge duplicate copies"),
    ),
    "XLA's HloPassFix after layout assignment",
)

_BACK_END = (
    ("dce", "dead code must not pin copies (DCE right before copy insertion)"),
    ("copy-insertion", "loop state, branch results and outputs get buffers of their own"),
    ("dce", "drop tuples the copies replaced"),
    ("memory-scheduler", "order instructions for the lowest peak memory (DefaultMemoryScheduler)"),
    ("buffer-assignment", "check the buffer assignment the target allocates its arena from"),
)

# -- the pipelines ---------------------------------------------------------------------------
SPECS: dict[str, PipelineSpec] = {
    "default": PipelineSpec(
        "target-independent: inline calls, simplify to a fixed point, fuse",
        (
            ("call-inliner", "expose callees to the rewrites below"),
            Group(
                "simplification",
                (
                    ("algebraic-simplify", "identities and redundant data movement"),
                    ("constant-folding", "evaluate constant subexpressions at compile time"),
                    ("tuple-simplifier", "read tuple elements from where they were made"),
                    ("cse", "one instruction per distinct computation"),
                    ("dce", "remove what the rewrites left unused"),
                ),
                "simplify until nothing changes",
            ),
            ("instruction-fusion", "producer-consumer fusion (loop, input and output fusion)"),
            ("dce", "remove producers fusion left unused"),
        ),
    ),
    "cpu": PipelineSpec(
        "XLA:CPU's pass order (cpu_compiler.cc), then schedule and buffers",
        (
            # RunHloPassesThroughLayoutAssn: the sharding-removal pipeline.
            ("flatten-call-graph", "one call site per computation, so passes may rewrite callees"),
            ("dce", "drop what the front end left unused"),
            ("custom-fusion-inliner",
             "XLA's library fusions (YNNPACK) as instructions again, for hlotool's fusion"),
            # The "HLO passes through layout assignment" pipeline.
            ("change-op-data-type", "bf16/f16 and 8/16-bit integer dots and convolutions "
                                    "computed in f32 or f64 (no low-precision kernels)"),
            ("dot-decomposer", "canonical dots for choosing the dot emitter's strategy"),
            ("call-inliner{single-call-site=true}", "inline computations with one call site"),
            ("dot-decomposer", "inlined callees may hold non-canonical dots"),
            ("batchnorm-expander", "batch norm as reductions and elementwise math"),
            CPU_SIMPLIFICATION,
            ("transpose-folding", "dots read transposed operands themselves; no copy needed"),
            ("cse", "one instruction per distinct computation (layout-insensitive)"),
            ("tuple-simplifier", "forward tuple elements to their readers"),
            ("flatten-call-graph", "flatten before fusion (flatten_before_fusion)"),
            ("layout-assignment", "row-major layouts; transposes become bitcast + copy"),
            # RunHloPassesAfterLayoutAssn.
            (
                "instruction-fusion{target=cpu}",
                "CpuInstructionFusion: loop, input and output fusion",
            ),
            (
                "fusion-wrapper",
                "leftover elemental ops become fusions: the emitter sees only fusions",
            ),
            _LATE_CLEANUP,
            *_BACK_END,
        ),
    ),
    "gpu": PipelineSpec(
        "XLA:GPU's pass order (gpu_compiler.cc), then schedule and buffers",
        (
            # OptimizeHloModule.
            ("flatten-call-graph", "one call site per computation"),
            ("dce", "drop what the front end left unused"),
            ("call-inliner", "inline every call: GPU kernels cannot call"),
            ("batchnorm-expander", "batch norm as reductions and elementwise math (no cuDNN)"),
            Group(
                "simplification",
                (
                    (
                        "algebraic-simplify",
                        "identities, redundant data movement, dot strength reduction",
                    ),
                    ("dot-decomposer", "canonical dots for cuBLAS"),
                    ("reshape-mover", "sink reshapes and transposes below elementwise ops"),
                    ("constant-folding", "evaluate constant subexpressions at compile time"),
                    ("transpose-folding", "cuBLAS reads transposed operands itself"),
                    ("cse", "one instruction per distinct computation"),
                    ("dce", "remove what the rewrites left unused"),
                ),
                "the simplification HloPassFix",
            ),
            Group(
                "while loops",
                (
                    ("while-loop-invariant-code-motion", "hoist loop-invariant work"),
                    ("tuple-simplifier", "forward tuple elements to their readers"),
                    ("while-loop-simplifier", "drop unused loop state and dead loops"),
                    ("dce", "remove the old loop state"),
                ),
                "loop cleanup to a fixed point",
            ),
            ("flatten-call-graph", "layout assignment wants one caller per computation"),
            ("layout-assignment", "GpuLayoutAssignment: row-major, explicit copies"),
            # OptimizeHloPostLayoutAssignment.
            Group(
                "post layout assignment",
                (
                    ("algebraic-simplify", "layout-sensitive cleanup of copies and bitcasts"),
                    ("dce", "remove the copies made dead"),
                ),
                "post-layout-assignment simplification",
            ),
            ("tuple-simplifier", "forward tuple elements to their readers"),
            ("cse", "layout-sensitive CSE"),
            # RunFusionPasses: the vertical fusion pipeline, to a fixed point.
            Group(
                "vertical fusion",
                (
                    (
                        "instruction-fusion{target=gpu,may-duplicate=false}",
                        "GpuInstructionFusion without duplication first",
                    ),
                    (
                        "instruction-fusion{target=gpu}",
                        "then allow cheap producers to be duplicated",
                    ),
                    (
                        "multi-output-fusion{target=gpu}",
                        "GpuMultiOutputFusion: siblings and producer-consumer",
                    ),
                    ("cse", "merge duplicate fusions"),
                    ("dce", "remove producers fusion left unused"),
                ),
                "XLA's vertical fusion HloPassFix",
            ),
            Group(
                "horizontal fusion",
                (
                    ("horizontal-fusion", "batch small independent loop fusions into one launch"),
                    ("cse", "merge duplicate fusions"),
                    ("dce", "remove what horizontal fusion replaced"),
                ),
                "XLA's horizontal fusion HloPassFix",
            ),
            # Post-fusion.
            ("algebraic-simplify", "post-fusion layout-sensitive simplification"),
            ("tuple-simplifier", "forward the new tuple elements to their readers"),
            *_BACK_END,
        ),
    ),
    "spmd": PipelineSpec(
        "partition a module with sharding annotations into one program per device",
        (
            ("call-inliner", "the partitioner works on the entry computation's instructions"),
            ("spmd-partitioner", "shardings flow from the parameters; collectives exchange "
                                 "what each device's piece needs"),
            ("dce", "drop the whole values resharding left unused"),
        ),
    ),
    "tpu": PipelineSpec(
        "a TPU-like order: simplify, lay out, fuse around the MXU, schedule",
        (
            ("flatten-call-graph", "one call site per computation"),
            ("dce", "drop what the front end left unused"),
            ("call-inliner", "inline every call"),
            ("dot-decomposer", "canonical dots for the MXU"),
            ("topk-decomposer", "top-k as sort and slice"),
            ("batchnorm-expander", "batch norm as reductions and elementwise math"),
            TPU_SIMPLIFICATION,
            ("transpose-folding", "the MXU reads transposed operands itself"),
            ("cse", "one instruction per distinct computation"),
            ("layout-assignment", "row-major layouts, explicit copies"),
            (
                "instruction-fusion{target=tpu}",
                "fuse elementwise epilogues into dots and convolutions",
            ),
            ("multi-output-fusion{target=tpu}", "share operand reads between sibling kernels"),
            ("fusion-wrapper", "every kernel a fusion"),
            _LATE_CLEANUP,
            *_BACK_END,
        ),
    ),
}


def build(name: str, spec: PipelineSpec) -> Pipeline:
    """Instantiate a pipeline spec (PassError naming a pass this build lacks)."""
    return Pipeline(name, tuple(_step(s, name) for s in spec.steps), spec.summary)


def _step(s: StepSpec | Group, pipeline: str) -> Step | FixedPoint:
    if isinstance(s, Group):
        return FixedPoint(
            s.name, tuple(_step(x, pipeline) for x in s.steps), s.max_iterations, s.reason
        )
    text, reason = s
    try:
        (p,) = parse_pass_list(text)
    except PassError as exc:
        raise PassError(
            f"pipeline {pipeline} needs {text}, which this build cannot make: {exc}"
        ) from None
    return Step(p, reason)


class _Pipelines(Mapping[str, Pipeline]):
    """PIPELINES: name -> Pipeline, each built on first use."""

    def __init__(self) -> None:
        self._built: dict[str, Pipeline] = {}

    def __getitem__(self, name: str) -> Pipeline:
        if name not in self._built:
            self._built[name] = build(name, SPECS[name])
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(SPECS)

    def __len__(self) -> int:
        return len(SPECS)


#: The named pipelines (built lazily: a missing pass fails when its pipeline is used).
PIPELINES: Mapping[str, Pipeline] = _Pipelines()


def get_pipeline(name: str) -> Pipeline:
    """The pipeline called `name`; PassError listing the names when there is none."""
    if name not in SPECS:
        raise PassError(f"unknown pipeline {name} (pipelines: {', '.join(SPECS)})")
    return PIPELINES[name]
