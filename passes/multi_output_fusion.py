"""Multi-output fusion (XLA's MultiOutputFusion, as CpuMultiOutputFusion and
GpuMultiOutputFusion configure it).

Two rewrites make one kernel out of two, its results a tuple read by get-tuple-element:

- sibling fusion: two independent fusions (or fusible ops) that read the same operand
  and iterate over the same space become one fusion, so the operand is read once
  (softmax's max and sum over the same input, for example);
- producer-consumer fusion: a producer that instruction fusion could not fuse into its
  consumer because others use it too is fused anyway, and stays an output of the
  consumer's fusion for those others, so it is computed once and read from memory
  not at all by the consumer.

Candidates must not depend on one another (that would make a cycle), must not hold a
dot or convolution (those stay output fusions), and must stay within the fusion size
limits. The merged fusion keeps the first fusion's name; the instruction list is put
back in topological order afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hlotool.analysis.liveness import Reachability, array_bytes, sequential_computations
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape
from hlotool.passes.base import Pass, PassError
from hlotool.passes.instruction_fusion import (
    TARGET_RULES,
    Fuser,
    FusionRules,
    is_growable_fusion,
    is_loop_fusible,
)
from hlotool.passes.utils import has_side_effect

O = Opcode

#: Ops that are not worth a kernel slot of their own in a multi-output fusion.
_TRIVIAL = frozenset({O.CONSTANT, O.PARAMETER, O.BITCAST, O.IOTA, O.BROADCAST, O.RESHAPE})


def is_mof_candidate(ins: Instruction) -> bool:
    """A loop or input fusion (or a fusible op) that may share a kernel."""
    if ins.control_predecessors or ins.control_successors or has_side_effect(ins):
        return False
    if ins.opcode is O.FUSION:
        body: Computation = ins.attrs["calls"]
        assert body.root is not None
        return (
            is_growable_fusion(ins)
            and ins.attrs.get("kind") in ("kLoop", "kInput")
            and not any(i.opcode in (O.DOT, O.CONVOLUTION) for i in body.instructions)
            and body.root.opcode is not O.DYNAMIC_UPDATE_SLICE
        )
    return (
        is_loop_fusible(ins)
        and ins.opcode not in _TRIVIAL
        and ins.opcode is not O.DYNAMIC_UPDATE_SLICE
    )


def iteration_space(ins: Instruction) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What a kernel loops over: a reduction's input and reduced dimensions, else the
    (first) output's dimensions."""
    nodes = ins.attrs["calls"].instructions if ins.opcode is O.FUSION else [ins]
    for node in nodes:
        if node.opcode is O.REDUCE:
            return node.operand(0).shape.dimensions, tuple(node.attrs["dimensions"])
    first = ins.shape.leaves()[0]
    return first.dimensions, ()


def outputs(fuser: Fuser, fusion: Instruction) -> list[Instruction]:
    """The values a fusion returns, one per top-level output."""
    body: Computation = fusion.attrs["calls"]
    assert body.root is not None
    return flat_values(fuser, body, body.root)


def flat_values(fuser: Fuser, body: Computation, value: Instruction) -> list[Instruction]:
    """`value`'s top-level elements: a tuple's operands, new get-tuple-elements of a
    tuple-shaped op (a variadic reduce), or `value` itself."""
    if value.opcode is O.TUPLE:
        return list(value.operands)
    if not value.shape.is_tuple:
        return [value]
    out = []
    for j, shape in enumerate(value.shape.tuple_shapes):
        gte = Instruction(
            fuser.names.fresh("get-tuple-element"), O.GET_TUPLE_ELEMENT, shape, attrs={"index": j}
        )
        gte.set_operands([value])
        out.append(body.add_instruction(gte))
    return out


def set_outputs(fuser: Fuser, fusion: Instruction, values: list[Instruction]) -> None:
    """Make `fusion` return the tuple of `values`; existing users of a non-tuple
    fusion read element 0."""
    body: Computation = fusion.attrs["calls"]
    old_root = body.root
    assert old_root is not None
    was_tuple = fusion.shape.is_tuple
    root = Instruction(
        fuser.names.fresh("tuple"), O.TUPLE, Shape.tuple_of([v.shape for v in values])
    )
    root.set_operands(values)
    body.add_instruction(root)
    body.root = root
    if old_root.opcode is O.TUPLE and not old_root.users:
        body.remove_instruction(old_root)
    users = list(fusion.unique_users)
    fusion.shape = root.shape
    if not was_tuple:
        gte = _gte_after(fuser, fusion, 0)
        for u in users:
            _redirect(u, fusion, gte)
        if fusion.is_root:
            assert fusion.parent is not None
            fusion.parent.root = gte


def _gte_after(fuser: Fuser, tuple_value: Instruction, index: int) -> Instruction:
    comp = tuple_value.parent
    assert comp is not None
    gte = Instruction(
        fuser.names.fresh("get-tuple-element"),
        O.GET_TUPLE_ELEMENT,
        tuple_value.shape.tuple_shapes[index],
        attrs={"index": index},
    )
    gte.set_operands([tuple_value])
    comp.insert_after(gte, tuple_value)
    return gte


def _redirect(user: Instruction, old: Instruction, new: Instruction) -> None:
    for k, o in enumerate(user.operands):
        if o is old:
            user.replace_operand(k, new)


def replace_with_outputs(fuser: Fuser, old: Instruction, fusion: Instruction, first: int) -> None:
    """Point the users of `old` at outputs `first...` of `fusion` (get-tuple-elements
    are retargeted; other users get a rebuilt tuple)."""
    if not old.shape.is_tuple:
        replacement = _gte_after(fuser, fusion, first)
    else:
        for u in list(old.unique_users):
            if u.opcode is O.GET_TUPLE_ELEMENT:
                u.attrs["index"] += first
                _redirect(u, old, fusion)
        if not old.users and not old.is_root:
            return
        n = len(old.shape.tuple_shapes)
        parts = [_gte_after(fuser, fusion, first + j) for j in range(n)]
        replacement = Instruction(fuser.names.fresh("tuple"), O.TUPLE, old.shape)
        replacement.set_operands(parts)
        comp = fusion.parent
        assert comp is not None
        comp.insert_after(replacement, parts[-1])
    old.replace_all_uses_with(replacement)


def merge_siblings(fuser: Fuser, a: Instruction, b: Instruction) -> Instruction:
    """Fuse `b` into `a` side by side: one fusion returning a's outputs then b's."""
    a = a if a.opcode is O.FUSION else fuser.wrap(a, f"{a.opcode.value}_fusion")
    b = b if b.opcode is O.FUSION else fuser.wrap(b, f"{b.opcode.value}_fusion")
    body: Computation = a.attrs["calls"]
    before = outputs(fuser, a)
    value = fuser.clone_producer(a, b, moving=True)
    set_outputs(fuser, a, [*before, *flat_values(fuser, body, value)])
    if value.opcode is O.TUPLE and not value.users:
        body.remove_instruction(value)
    replace_with_outputs(fuser, b, a, len(before))
    fuser.remove(b)
    body.instructions = body.post_order()
    fuser.touched[id(a)] = a
    return a


def fuse_keeping_output(fuser: Fuser, consumer: Instruction, producer: Instruction) -> Instruction:
    """Fuse `producer` into `consumer` and keep it as an extra output for the
    producer's other users (XLA's FuseInstructionIntoMultiOutput)."""
    if consumer.opcode is not O.FUSION:
        consumer = fuser.wrap(consumer, f"{producer.opcode.value}_{consumer.opcode.value}_fusion")
    body: Computation = consumer.attrs["calls"]
    number = consumer.operands.index(producer)
    value = fuser.clone_producer(consumer, producer, moving=True)
    body.parameter(number).replace_all_uses_with(value)
    fuser.remove_param(consumer, number)
    before = outputs(fuser, consumer)
    set_outputs(fuser, consumer, [*before, value])
    replace_with_outputs(fuser, producer, consumer, len(before))
    fuser.remove(producer)
    body.instructions = body.post_order()
    fuser.touched[id(consumer)] = consumer
    return consumer


@dataclass(frozen=True)
class MultiOutputFusionPass(Pass):
    """Sibling and producer-consumer multi-output fusion (XLA's MultiOutputFusion)."""

    name: ClassVar[str] = "multi-output-fusion"
    summary: ClassVar[str] = "fuse siblings sharing an input, and producers with several users"
    xla: ClassVar[str] = "MultiOutputFusion (CpuMultiOutputFusion, GpuMultiOutputFusion)"
    target: str = "cpu"
    siblings: bool = True
    producer_consumer: bool = True

    def __post_init__(self) -> None:
        if self.target not in TARGET_RULES:
            raise PassError(f"multi-output-fusion: target must be one of {', '.join(TARGET_RULES)}")

    def run(self, module: Module) -> bool:
        fuser = Fuser.of(module)
        rules = TARGET_RULES[self.target]
        changed = False
        for comp in sequential_computations(module):
            while True:
                step = (self.producer_consumer and _producer_consumer_step(fuser, comp, rules)) or (
                    self.siblings and _sibling_step(fuser, comp, rules)
                )
                if not step:
                    break
                comp.instructions = comp.post_order()
                changed = True
        if changed:
            fuser.finish()
        return changed


def _fits(rules: FusionRules, a: Instruction, b: Instruction, shared: Instruction | None) -> bool:
    size = sum(len(x.attrs["calls"].instructions) if x.opcode is O.FUSION else 1 for x in (a, b))
    operands = {id(o) for o in (*a.operands, *b.operands)} - ({id(shared)} if shared else set())
    outs = len(a.shape.leaves()) + len(b.shape.leaves())
    return size <= rules.max_instructions and len(operands) + outs <= rules.max_operands


def _sibling_step(fuser: Fuser, comp: Computation, rules: FusionRules) -> bool:
    """Merge one pair of siblings, the pair sharing the most operand bytes first."""
    reach = Reachability.of(comp)
    best: tuple[int, Instruction, Instruction] | None = None
    for shared in comp.instructions:
        if not shared.shape.is_array:
            continue
        users = [u for u in shared.unique_users if is_mof_candidate(u)]
        for i, a in enumerate(users):
            for b in users[i + 1 :]:
                if (
                    iteration_space(a) == iteration_space(b)
                    and not reach.connected(a, b)
                    and _fits(rules, a, b, shared)
                ):
                    gain = array_bytes(shared.shape)
                    if best is None or gain > best[0]:
                        best = (gain, a, b)
    if best is None:
        return False
    merge_siblings(fuser, best[1], best[2])
    return True


def _producer_consumer_step(fuser: Fuser, comp: Computation, rules: FusionRules) -> bool:
    """Fuse one producer with several users into the consumer it shares a loop with."""
    reach = Reachability.of(comp)
    for producer in comp.instructions:
        if (
            not is_mof_candidate(producer)
            or producer.shape.is_tuple
            or len(producer.unique_users) < 2
        ):
            continue
        for consumer in producer.unique_users:
            if not is_mof_candidate(consumer) or not _same_loop(producer, consumer):
                continue
            others = [u for u in producer.unique_users if u is not consumer]
            if any(reach.reaches(u, consumer) for u in others) or not _fits(
                rules, consumer, producer, producer
            ):
                continue
            fuse_keeping_output(fuser, consumer, producer)
            return True
    return False


def _same_loop(producer: Instruction, consumer: Instruction) -> bool:
    """The producer's output is indexed like the consumer's iteration space."""
    dims, _ = iteration_space(consumer)
    return producer.shape.dimensions == dims and iteration_space(producer)[1] == ()
