"""Producer-consumer instruction fusion (XLA's InstructionFusion and CpuInstructionFusion).

Consumers are visited from the root up; each absorbs operands it may fuse, one at a time,
until none is left. A consumer that is not yet a fusion is first wrapped in one (named
`<producer>_<consumer>_fusion`, calling a new `fused_computation.N` with parameters
`param_K.N`); a producer that other instructions still use is duplicated into the fusion
when it is cheap (never an expensive one), else left alone. Producer fusions are merged
into consumer fusions (XLA's FusionMerger), so the pass also grows fusions it finds.

The kind of a fusion follows its "hero": a dot or convolution with an elementwise
epilogue makes a kOutput fusion, a reduce with its elementwise producers a kInput fusion,
everything else is kLoop. kCustom fusions (library calls) are never touched.

With the CPU rules, a reduction over the trailing dimensions may also be fused with the
ops that broadcast its result back over the same rows (softmax, layernorm): a *row
fusion*, a kInput fusion whose reduce results are used inside it, which the code
generator runs row by row, as XLA:CPU runs them as one YNNPACK library fusion
(`hlotool.analysis.liveness.is_row_fusion` recognizes them).

The building blocks (`Fuser`, `is_expensive`, `fusion_kind`, ...) are shared with
multi-output and horizontal fusion.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from hlotool.analysis.liveness import (
    ROW_LOCAL,
    SAME_INDEX,
    array_bytes,
    is_row_reduce,
    reaches_root_elementwise,
    row_structure,
    sequential_computations,
)
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import ELEMENTWISE, Opcode
from hlotool.ir.structure import clone_instruction
from hlotool.ir.types import Shape
from hlotool.passes.base import Pass, PassError
from hlotool.passes.utils import NameTable, has_side_effect, side_effect_cache

O = Opcode

# -- rules as data ----------------------------------------------------------------------------
#: Ops emitted elementally inside a loop fusion (XLA:CPU's CanBeLoopFused, plus copy and
#: conversions, which XLA counts as elementwise).
LOOP_FUSIBLE = ELEMENTWISE | {
    O.CONVERT, O.BITCAST_CONVERT, O.STOCHASTIC_CONVERT, O.BITCAST, O.BROADCAST,
    O.CONCATENATE, O.COPY, O.DYNAMIC_SLICE, O.DYNAMIC_UPDATE_SLICE, O.GATHER, O.IOTA,
    O.PAD, O.REDUCE, O.RESHAPE, O.REVERSE, O.SLICE, O.TRANSPOSE,
}  # fmt: skip
#: A dynamic-update-slice stays the root of its fusion (so it can update in place).
NOT_A_PRODUCER = frozenset({O.DYNAMIC_UPDATE_SLICE})
#: Ops that give a fusion its kind; the rest of the fusion is their prologue/epilogue.
HERO_KIND = {O.REDUCE: "kInput", O.DOT: "kOutput", O.CONVOLUTION: "kOutput"}
#: Cheap ops (XLA:CPU's IsExpensive returns false for these).
CHEAP = frozenset({
    O.ADD, O.AND, O.BITCAST, O.BITCAST_CONVERT, O.BROADCAST, O.CEIL, O.CLAMP, O.CLZ,
    O.COMPARE, O.COMPLEX, O.CONCATENATE, O.CONSTANT, O.COPY, O.DYNAMIC_RESHAPE,
    O.DYNAMIC_SLICE, O.DYNAMIC_UPDATE_SLICE, O.FLOOR, O.GET_TUPLE_ELEMENT, O.IMAG, O.IOTA,
    O.IS_FINITE, O.MAXIMUM, O.MINIMUM, O.MULTIPLY, O.MULHI, O.NEGATE, O.NOT, O.OR, O.PAD,
    O.POPCNT, O.REAL, O.REDUCE_PRECISION, O.RESHAPE, O.REVERSE, O.ROUND_AFZ,
    O.ROUND_EVEN, O.SELECT, O.SHIFT_LEFT, O.SHIFT_RIGHT_ARITHMETIC, O.SHIFT_RIGHT_LOGICAL,
    O.SLICE, O.STOCHASTIC_CONVERT, O.SUBTRACT, O.TRANSPOSE, O.TUPLE, O.XOR,
    O.PARTITION_ID, O.REPLICA_ID, O.OPT_BARRIER,
})  # fmt: skip
#: Cheap for real numbers, expensive for complex ones.
CHEAP_UNLESS_COMPLEX = frozenset({O.ABS, O.SIGN, O.COS, O.SIN, O.TAN})
#: Ops that read some operand element more than once (XLA's OperandElementUse kReuse),
#: by operand number (None: every operand).
REUSING: dict[Opcode, frozenset[int] | None] = {
    O.REDUCE_WINDOW: None, O.DOT: None, O.CONVOLUTION: None, O.SELECT_AND_SCATTER: None,
    O.SORT: None, O.FFT: None, O.CHOLESKY: None, O.TRIANGULAR_SOLVE: None, O.GATHER: None,
    O.MAP: None, O.SCATTER: None, O.PAD: frozenset({1}),
}  # fmt: skip


@dataclass(frozen=True)
class FusionRules:
    """What one target's instruction fusion allows (the knobs that differ between
    XLA's CpuInstructionFusion, GpuInstructionFusion and the TPU compiler)."""

    #: Fuse a dot or convolution with its elementwise epilogue (kOutput).
    output_fusion: bool
    #: Merge producer fusions into consumer fusions (XLA's FusionMerger).
    merge_fusions: bool = True
    #: XLA:CPU's kMaxConcatenateArguments.
    max_concat_operands: int = 8
    #: XLA:CPU's kMaxReductionsInFusion.
    max_reductions: int = 5
    #: Operands plus outputs of one fusion (XLA:GPU's kMaxOperandsAndOutputsPerFusion).
    max_operands: int = 1 << 20
    #: Instructions in one fused computation.
    max_instructions: int = 400
    #: XLA's FusionNodeIndexingEvaluation::kAllowedCodeDuplication.
    code_duplication: int = 15
    #: Fuse a row reduction with the ops that broadcast its result back over the row
    #: (softmax, layernorm: one row kernel, as XLA:CPU's YNNPACK fusions).
    row_fusion: bool = False


TARGET_RULES: dict[str, FusionRules] = {
    # XLA:CPU: dots and convolutions keep their epilogue in one kernel; softmax and
    # layernorm run as row kernels.
    "cpu": FusionRules(output_fusion=True, row_fusion=True),
    # XLA:GPU: GEMMs are library calls; kernels have a parameter limit.
    "gpu": FusionRules(output_fusion=False, max_operands=96),
    # TPU: convolutions and dots fuse with producers' epilogues on the MXU path.
    "tpu": FusionRules(output_fusion=True, max_operands=128),
}


# -- predicates ---------------------------------------------------------------------------
def is_expensive(ins: Instruction) -> bool:
    """XLA:CPU's IsExpensive: transcendental, dividing, or otherwise heavy ops (and every
    op not on the cheap list). A fusion is expensive when anything inside is."""
    op = ins.opcode
    if op is O.FUSION:
        return any(
            is_expensive(i) for i in ins.attrs["calls"].instructions if i.opcode is not O.PARAMETER
        )
    if op in CHEAP or op is O.PARAMETER:
        return False
    if op in CHEAP_UNLESS_COMPLEX:
        return ins.shape.element_type.is_complex
    if op is O.CONVERT:
        # f32 -> bf16 rounds with NaN checks; widening is a shift.
        return (
            ins.shape.element_type.value == "bf16"
            and ins.operand(0).shape.element_type.value == "f32"
        )
    if op in (O.DIVIDE, O.REMAINDER):
        # Integer division by a constant compiles to multiplies and shifts.
        return not (ins.shape.element_type.is_integral and _is_constant_splat(ins.operand(1)))
    return True


def _is_constant_splat(ins: Instruction) -> bool:
    while ins.opcode is O.BROADCAST:
        ins = ins.operand(0)
    return ins.opcode is O.CONSTANT and ins.shape.element_count == 1


def is_always_duplicable(ins: Instruction) -> bool:
    """Duplicating these never reads more memory (XLA's IsAlwaysDuplicable, plus scalar
    constants, iotas and broadcasts of scalars)."""
    op = ins.opcode
    if op is O.IOTA:
        return True
    if op is O.CONSTANT:
        return ins.shape.is_array and ins.shape.element_count <= 1
    if op is O.BROADCAST:
        return ins.operand(0).shape.element_count <= 1
    if op is O.CONVERT:
        return ins.operand(0).shape.byte_size < ins.shape.byte_size
    return False


def is_loop_fusible(ins: Instruction) -> bool:
    """Can `ins` be emitted elementally inside a loop fusion?"""
    if ins.opcode not in LOOP_FUSIBLE:
        return False
    if not ins.shape.is_array:
        # A variadic reduce (argmax: values and indices together) is one loop too.
        return ins.opcode is O.REDUCE and all(s.is_array for s in ins.shape.tuple_shapes)
    if ins.opcode is O.BITCAST_CONVERT:
        return ins.shape.element_type.bits == ins.operand(0).shape.element_type.bits
    return True


def heroes(comp: Computation) -> list[Instruction]:
    """The reduces, dots and convolutions of a fused computation."""
    return [i for i in comp.instructions if i.opcode in HERO_KIND]


def fusion_kind(comp: Computation) -> str:
    """kOutput with a dot/convolution, kInput with a reduce, else kLoop."""
    kinds = {HERO_KIND[h.opcode] for h in heroes(comp)}
    for kind in ("kOutput", "kInput"):
        if kind in kinds:
            return kind
    return "kLoop"


def reuses_operand_elements(consumer: Instruction, number: int) -> bool:
    """Does `consumer` read some element of operand `number` more than once (XLA's
    ReusesOperandElements, looking through fusion parameters)?"""
    if consumer.opcode is O.FUSION:
        return _param_reused(consumer.attrs["calls"].parameter(number))
    return _reuses(consumer, number)


def _reuses(ins: Instruction, number: int) -> bool:
    op = ins.opcode
    if op is O.BROADCAST:
        return ins.shape.element_count > ins.operand(0).shape.element_count
    if op is O.FUSION:
        return reuses_operand_elements(ins, number)
    if op is O.REDUCE:
        return number >= ins.operand_count // 2
    if op in (O.DYNAMIC_SLICE, O.DYNAMIC_UPDATE_SLICE):
        return number >= (1 if op is O.DYNAMIC_SLICE else 2)
    if op in REUSING:
        which = REUSING[op]
        return which is None or number in which
    return False


def _param_reused(param: Instruction) -> bool:
    stack, seen = [param], set()
    while stack:
        node = stack.pop()
        for user in node.unique_users:
            if any(_reuses(user, k) for k, o in enumerate(user.operands) if o is node):
                return True
            if id(user) not in seen:
                seen.add(id(user))
                stack.append(user)
    return False


#: Per instruction of a fused computation: (instruction, the ids of the instructions
#: whose index it is read with, its emission count), by id (`emission_count`'s memo).
EmissionMemo = dict[int, tuple[Instruction, set[int], int]]


def emission_count(body: Computation, param: Instruction, memo: EmissionMemo | None = None) -> int:
    """How many times the value at `param` would be computed when the fusion is
    emitted elementally (XLA's FusionNodeIndexingEvaluation): users that index the
    value differently each need their own copy of it. Walks only what uses `param` and
    is not in `memo` (which keeps what it walks, parameters excepted: a node's count
    depends only on its users, so a fusion that grows at its parameters keeps the memo
    of its other nodes)."""
    root = body.root
    memo = {} if memo is None else memo
    sets: dict[int, set[int]] = {}
    counts: dict[int, int] = {}
    for ins in _users_first(param, memo):
        indexing = {id(ins)} if ins is root else set()
        for user in ins.unique_users:
            known = memo.get(id(user))
            user_set = known[1] if known is not None and known[0] is user else sets[id(user)]
            if user.opcode is O.TRANSPOSE or ins.shape.dimensions == user.shape.dimensions:
                indexing |= user_set
            else:
                indexing.add(id(user))
        sets[id(ins)] = indexing
        count = 1 if ins is root else sum(_count(u, memo, counts) for u in indexing)
        counts[id(ins)] = count
        if ins.opcode is not O.PARAMETER:
            memo[id(ins)] = (ins, indexing, count)
    return counts[id(param)]


def _count(key: int, memo: EmissionMemo, counts: dict[int, int]) -> int:
    hit = counts.get(key)
    return memo[key][2] if hit is None else hit


def _users_first(start: Instruction, memo: EmissionMemo) -> list[Instruction]:
    """`start` and everything using it that `memo` does not hold, each after all of its
    users."""
    order: list[Instruction] = []
    seen: set[int] = set()
    stack: list[tuple[Instruction, bool]] = [(start, False)]

    def new(ins: Instruction) -> bool:
        known = memo.get(id(ins))
        return id(ins) not in seen and (known is None or known[0] is not ins)

    while stack:
        ins, finished = stack.pop()
        if finished:
            order.append(ins)
            continue
        if not new(ins):
            continue
        seen.add(id(ins))
        stack.append((ins, True))
        stack.extend((u, False) for u in ins.users if new(u))
    return order


# -- building fusions -----------------------------------------------------------------------
_PARAM_NAME = re.compile(r"^param_(\d+)(\.\d+)?$")


@dataclass
class Fuser:
    """Creates and grows fusion instructions in one module (XLA's
    HloInstruction::CreateFusion / FuseInstruction / FuseInstructionIntoMultiOutput)."""

    module: Module
    names: NameTable
    #: Fusions created or changed, to fix kinds and parameter names at the end.
    touched: dict[int, Instruction] = field(default_factory=dict)
    #: What the planner asks about fused computations, remembered until they change.
    facts: FusionFacts = field(default_factory=lambda: FusionFacts())

    @staticmethod
    def of(module: Module) -> Fuser:
        return Fuser(module, NameTable(module))

    # -- creating ---------------------------------------------------------------------
    def wrap(
        self, ins: Instruction, name: str, computation: str = "fused_computation"
    ) -> Instruction:
        """Replace `ins` by a fusion whose fused computation computes it (XLA's
        CreateFusion); the fusion takes `ins`'s place in the instruction list."""
        comp = ins.parent
        assert comp is not None
        body = Computation(self.names.fresh(computation))
        operands = list(dict.fromkeys(ins.operands))
        params = {id(op): self._new_param(body, n, op) for n, op in enumerate(operands)}
        root = clone_instruction(ins, [params[id(o)] for o in ins.operands])
        body.add_instruction(root)
        body.root = root
        fusion = Instruction(
            self.names.fresh(name),
            O.FUSION,
            ins.shape,
            attrs={"kind": "kLoop", "calls": body},
            metadata=ins.metadata,
        )
        fusion.set_operands(operands)
        body.fusion_instruction = fusion
        self.module.add_computation(body, before=comp)
        comp.insert_before(fusion, ins)
        ins.replace_all_uses_with(fusion)
        ins.drop_all_operands()
        comp.detach(ins)
        self._touch(fusion)
        return fusion

    def _new_param(self, body: Computation, number: int, operand: Instruction) -> Instruction:
        p = Instruction(
            self.names.fresh(f"param_{number}"), O.PARAMETER, operand.shape, parameter_number=number
        )
        body.add_instruction(p)
        return p

    def _touch(self, fusion: Instruction) -> None:
        self.touched[id(fusion)] = fusion
        self.facts.forget(fusion.attrs["calls"])

    # -- growing --------------------------------------------------------------------------
    def fuse(self, fusion: Instruction, producer: Instruction) -> None:
        """Move `producer` into `fusion` (duplicate it when others still use it),
        replacing the parameter that read it. A producer fusion is merged."""
        body: Computation = fusion.attrs["calls"]
        number = fusion.operands.index(producer)
        moving = producer.used_only_by(fusion)
        size = len(body.instructions)
        params = fusion.operand_count
        ordered = _parameters_lead(body.instructions, params)
        value = self.clone_producer(fusion, producer, moving)
        created = body.instructions[size:]
        param = body.instructions[number] if ordered else body.parameter(number)
        readers = _divisor_readers(param)
        before = sum(1 for u in readers if is_expensive(u))
        param.replace_all_uses_with(value)
        cheaper = before - sum(1 for u in readers if is_expensive(u))
        if ordered:  # the parameters lead: renumber and reorder by slices
            self._drop_leading_param(fusion, number, params, size, created)
        else:
            self.remove_param(fusion, number)
            reorder(body, created)
        if moving:
            self.remove(producer)
        self.touched[id(fusion)] = fusion
        self.facts.grown(fusion, created, cheaper)

    def clone_producer(
        self, fusion: Instruction, producer: Instruction, moving: bool
    ) -> Instruction:
        """Copy `producer` (or a producer fusion's body) into `fusion`'s computation,
        its operands becoming (new or existing) parameters; returns the copied value."""
        body: Computation = fusion.attrs["calls"]
        if producer.opcode is not O.FUSION:
            copy = clone_instruction(
                producer, [self.param_for(fusion, o) for o in producer.operands]
            )
            copy.name = producer.name if moving else self.names.fresh(producer.name)
            return body.add_instruction(copy)
        inner: Computation = producer.attrs["calls"]
        mapping = {
            id(p): self.param_for(fusion, producer.operand(p.parameter_number))
            for p in inner.parameters
        }
        for ins in inner.instructions:
            if ins.opcode is O.PARAMETER:
                continue
            copy = clone_instruction(ins, [mapping[id(o)] for o in ins.operands])
            copy.name = ins.name if moving else self.names.fresh(ins.name)
            mapping[id(ins)] = body.add_instruction(copy)
        assert inner.root is not None
        return mapping[id(inner.root)]

    def param_for(self, fusion: Instruction, operand: Instruction) -> Instruction:
        """The parameter of `fusion` that reads `operand`, added when there is none."""
        body: Computation = fusion.attrs["calls"]
        if operand in fusion.operands:
            return body.parameter(fusion.operands.index(operand))
        fusion.append_operand(operand)
        return self._new_param(body, fusion.operand_count - 1, operand)

    def remove_param(self, fusion: Instruction, number: int) -> None:
        """Drop an unused parameter and its operand; later parameters move down."""
        body: Computation = fusion.attrs["calls"]
        param = body.parameter(number)
        assert not param.users
        body.detach(param)
        for p in body.instructions:
            if p.opcode is O.PARAMETER and p.parameter_number > number:
                p.parameter_number -= 1
        fusion.remove_operand(number)

    def _drop_leading_param(self, fusion: Instruction, number: int, params: int, size: int,
                            created: list[Instruction]) -> None:
        """`remove_param` then `reorder` for a body whose `params` parameters lead its
        first `size` instructions in number order (as `reorder` leaves them): the same
        list, without walking the body."""
        body: Computation = fusion.attrs["calls"]
        insts = body.instructions
        old = insts[:params]
        param = old.pop(number)
        assert not param.users
        new_params = [i for i in created if i.opcode is O.PARAMETER]
        for p in old[number:]:
            p.parameter_number -= 1
        for p in new_params:
            p.parameter_number -= 1
        new = [i for i in created if i.opcode is not O.PARAMETER]
        body.instructions = old + new_params + new + insts[params:size]
        param.parent = None
        fusion.remove_operand(number)

    def remove(self, ins: Instruction) -> None:
        """Delete an instruction nobody uses (and its fused computation)."""
        assert ins.parent is not None
        ins.parent.remove_instruction(ins)
        self.touched.pop(id(ins), None)
        if ins.opcode is O.FUSION:
            self.module.remove_computation(ins.attrs["calls"])

    # -- finishing --------------------------------------------------------------------------
    def finish(self) -> None:
        """Set each touched fusion's kind, name its parameters `param_K.N` after their
        numbers, and keep callees ahead of callers in the module."""
        for fusion in self.touched.values():
            if fusion.parent is None:
                continue
            body: Computation = fusion.attrs["calls"]
            if fusion.attrs.get("kind") != "kCustom":
                fusion.attrs["kind"] = fusion_kind(body)
            for p in body.parameters:
                m = _PARAM_NAME.match(p.name)
                if m is None or int(m.group(1)) != p.parameter_number:
                    p.name = self.names.fresh(f"param_{p.parameter_number}")
        self.module.computations = self.module.computation_post_order()


def _parameters_lead(insts: list[Instruction], params: int) -> bool:
    """Whether parameters 0 .. params-1 are the first `params` instructions, in order."""
    return len(insts) >= params and all(
        i.opcode is O.PARAMETER and i.parameter_number == k for k, i in enumerate(insts[:params])
    )


def _divisor_readers(param: Instruction) -> list[Instruction]:
    """The instructions whose `is_expensive` may change when `param` is replaced: its
    users and, through broadcasts, theirs (an integer division by a constant splat is
    cheap)."""
    out: list[Instruction] = []
    stack = list(param.unique_users)
    while stack:
        ins = stack.pop()
        out.append(ins)
        if ins.opcode is O.BROADCAST:
            stack.extend(ins.unique_users)
    return list(dict.fromkeys(out))


def reorder(body: Computation, created: list[Instruction]) -> None:
    """Keep a fused computation topological after cloning `created` into it:
    parameters first, then the new instructions, then the others in their order."""
    new = [i for i in created if i.opcode is not O.PARAMETER and i.parent is body]
    seen = {id(i) for i in new}
    params = sorted(
        (i for i in body.instructions if i.opcode is O.PARAMETER), key=lambda i: i.parameter_number
    )
    rest = [i for i in body.instructions if i.opcode is not O.PARAMETER and id(i) not in seen]
    body.instructions = params + new + rest


def fusion_name(producer: Instruction, consumer: Instruction) -> str:
    """XLA's `<producer>_<consumer>_fusion` (a fusion stands for its root's opcode)."""
    return f"{_root_opcode(producer)}_{_root_opcode(consumer)}_fusion"


def _root_opcode(ins: Instruction) -> str:
    if ins.opcode is O.FUSION:
        root = ins.attrs["calls"].root
        return root.opcode.value if root is not None else "fusion"
    return ins.opcode.value


#: What may sit in a fusion that is still grown: loop-fusible ops, heroes, plumbing.
_GROWABLE = LOOP_FUSIBLE | set(HERO_KIND) | {O.PARAMETER, O.CONSTANT, O.TUPLE, O.GET_TUPLE_ELEMENT}


def is_growable_fusion(ins: Instruction) -> bool:
    """A fusion built from elemental ops (not a library call, nor a wrapped sort,
    scatter or reduce-window, which XLA:CPU never fuses into)."""
    return (
        ins.opcode is O.FUSION
        and ins.attrs.get("kind") != "kCustom"
        and all(i.opcode in _GROWABLE for i in ins.attrs["calls"].instructions)
    )


@dataclass
class BodyFacts:
    """What fusion decisions ask about one fused computation, computed once per
    version of it."""

    body: Computation
    growable: bool
    dots: int
    reduces: int
    #: How many of its instructions are expensive (`is_expensive`).
    expensive_nodes: int
    params: dict[int, Instruction]
    #: Emission counts of the parameters asked about (`FusionFacts.emission_count`).
    emissions: dict[int, int] = field(default_factory=dict)
    #: `emission_count`'s memo of the other nodes, kept as the body grows.
    memo: EmissionMemo = field(default_factory=dict)


@dataclass
class FusionFacts:
    """BodyFacts per fused computation; the Fuser forgets a body when it changes it, so
    a decision costs O(1) instead of a walk over the body per candidate pair."""

    known: dict[int, BodyFacts] = field(default_factory=dict)

    def of(self, fusion: Instruction) -> BodyFacts:
        body: Computation = fusion.attrs["calls"]
        facts = self.known.get(id(body))
        if facts is None or facts.body is not body:
            facts = self.known[id(body)] = _body_facts(fusion, body)
        return facts

    def forget(self, body: Computation) -> None:
        self.known.pop(id(body), None)

    def grown(self, fusion: Instruction, created: list[Instruction], cheaper: int) -> None:
        """`fusion`'s body took the instructions `created` at its parameters (and lost
        the parameter they replace, whose users count `cheaper` fewer expensive ones
        now: an integer division by a constant is cheap): update its facts instead of
        recomputing them."""
        body: Computation = fusion.attrs["calls"]
        old = self.known.get(id(body))
        if old is None or old.body is not body:
            return
        new = [i.opcode for i in created if i.opcode is not O.PARAMETER]
        params: dict[int, Instruction] = {}
        for ins in body.instructions:  # parameters lead (`reorder`)
            if ins.opcode is not O.PARAMETER:
                break
            params[ins.parameter_number] = ins
        self.known[id(body)] = BodyFacts(
            body,
            growable=old.growable and all(op in _GROWABLE for op in new),
            dots=old.dots + sum(1 for op in new if op in _DOTS),
            reduces=old.reduces + sum(1 for op in new if op in _REDUCES),
            expensive_nodes=old.expensive_nodes - cheaper + sum(
                1 for i in created if i.opcode is not O.PARAMETER and is_expensive(i)
            ),
            params=params,
            memo=old.memo,
        )

    def growable(self, ins: Instruction) -> bool:
        """is_growable_fusion, remembered."""
        return ins.opcode is O.FUSION and self.of(ins).growable

    def hero_count(self, ins: Instruction, opcodes: frozenset[Opcode]) -> int:
        """How many of {dot, convolution} or of {reduce} `ins` is or contains."""
        if ins.opcode is not O.FUSION:
            return int(ins.opcode in opcodes)
        facts = self.of(ins)
        return facts.reduces if opcodes is _REDUCES else facts.dots

    def expensive(self, ins: Instruction) -> bool:
        """is_expensive, remembered for fusions."""
        return self.of(ins).expensive_nodes > 0 if ins.opcode is O.FUSION else is_expensive(ins)

    def parameter(self, fusion: Instruction, number: int) -> Instruction:
        return self.of(fusion).params[number]

    def emission_count(self, fusion: Instruction, number: int) -> int:
        """emission_count of parameter `number`, remembered per body version."""
        facts = self.of(fusion)
        param = facts.params[number]
        count = facts.emissions.get(id(param))
        if count is None:
            count = facts.emissions[id(param)] = emission_count(facts.body, param, facts.memo)
        return count

    def fusible_consumer(self, ins: Instruction) -> bool:
        """A growable fusion or a loop-fusible op with operands (no control edges, no
        side effects)."""
        if ins.control_predecessors or ins.control_successors or has_side_effect(ins):
            return False
        if ins.opcode is O.FUSION:
            return ins.attrs.get("kind") != "kCustom" and self.of(ins).growable
        return is_loop_fusible(ins) and ins.operand_count > 0


_DOTS = frozenset({O.DOT, O.CONVOLUTION})
_REDUCES = frozenset({O.REDUCE})


def _body_facts(fusion: Instruction, body: Computation) -> BodyFacts:
    opcodes = [i.opcode for i in body.instructions]
    return BodyFacts(
        body,
        growable=all(op in _GROWABLE for op in opcodes),
        dots=sum(1 for op in opcodes if op in _DOTS),
        reduces=sum(1 for op in opcodes if op in _REDUCES),
        expensive_nodes=sum(
            1 for i in body.instructions if i.opcode is not O.PARAMETER and is_expensive(i)
        ),
        params={i.parameter_number: i for i in body.instructions if i.opcode is O.PARAMETER},
    )


# -- the pass ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class InstructionFusionPass(Pass):
    """XLA's InstructionFusion as CpuInstructionFusion configures it (with `target` for
    the GPU and TPU variants): fuse producers into consumers bottom-up; never duplicate
    an expensive op or fuse it into a consumer that reads its elements twice; output
    fusion of dot/convolution epilogues (kOutput) and input fusion of reductions
    (kInput); existing fusions grow and merge."""

    name: ClassVar[str] = "instruction-fusion"
    summary: ClassVar[str] = "fuse producers into consumers (loop, input and output fusion)"
    xla: ClassVar[str] = "InstructionFusion (CpuInstructionFusion)"
    #: Whose rules to follow: cpu, gpu or tpu (TARGET_RULES).
    target: str = "cpu"
    #: Allow cheap producers to be duplicated into several consumers.
    may_duplicate: bool = True
    #: Allow row fusions where the target's rules do (false: keep reductions apart
    #: from the ops that broadcast their results back).
    row_fusion: bool = True

    def __post_init__(self) -> None:
        if self.target not in TARGET_RULES:
            raise PassError(f"instruction-fusion: target must be one of {', '.join(TARGET_RULES)}")

    def run(self, module: Module) -> bool:
        fuser = Fuser.of(module)
        planner = _Planner(TARGET_RULES[self.target], self.may_duplicate, self.row_fusion,
                           fuser.facts)
        changed = False
        with side_effect_cache():
            for comp in sequential_computations(module):
                changed |= _Run(fuser, planner, comp).all()
        if changed:
            fuser.finish()
        return changed


@dataclass(frozen=True, slots=True)
class _Consumer:
    """What the decisions ask about one consumer, computed once per candidate scan (the
    consumer does not change while its operands are ranked)."""

    ins: Instruction
    dots: int
    reduces: int


@dataclass
class _Planner:
    """The fusion decision (XLA's ShouldFuse): None to fuse, else the reason not to."""

    rules: FusionRules
    may_duplicate: bool
    row_fusion: bool = True
    facts: FusionFacts = field(default_factory=FusionFacts)
    #: `_intrinsic_reason` and `_copy_refusal` per non-fusion producer (`_remembered`).
    _intrinsic: dict[int, tuple[Instruction, str | None]] = field(default_factory=dict)
    _copies: dict[int, tuple[Instruction, str | None]] = field(default_factory=dict)

    def consumer(self, ins: Instruction) -> _Consumer | None:
        """The consumer's facts, or None when it cannot take any producer."""
        if not self.facts.fusible_consumer(ins):
            return None
        count = self.facts.hero_count
        return _Consumer(ins, count(ins, _DOTS), count(ins, _REDUCES))

    def should_fuse(self, consumer: _Consumer, number: int, unfusible: set[int]) -> str | None:
        ins = consumer.ins
        producer = ins.operand(number)
        # Every check must pass; the most frequent refusal (a shared expensive producer)
        # goes first.
        if not producer.used_only_by(ins):
            reason = self._duplication(producer, unfusible)
            if reason:
                return reason
        reason = self._producer(producer, ins) or self._shape_of_fusion(
            consumer, producer, number
        )
        if reason:
            return reason
        if (
            self.facts.expensive(producer)
            and self._reuses(ins, number)
            and not self._row_fusion(ins, producer)
        ):
            return "expensive producer and the consumer reuses its elements"
        return self._limits(ins, producer, number)

    def _reuses(self, consumer: Instruction, number: int) -> bool:
        """reuses_operand_elements, reading a fusion's parameter from its facts."""
        if consumer.opcode is O.FUSION:
            return _param_reused(self.facts.parameter(consumer, number))
        return _reuses(consumer, number)

    def _row_fusion(self, consumer: Instruction, producer: Instruction) -> bool:
        """Is the reuse a row broadcast of a row fusion (fine: once per row)?"""
        return self.rules.row_fusion and self.row_fusion and forms_row_fusion(consumer, producer)

    def _producer(self, producer: Instruction, consumer: Instruction) -> str | None:
        reason = self._remembered(self._intrinsic, producer, self._intrinsic_reason)
        if reason:
            return reason
        if producer.opcode is O.CONSTANT and consumer.opcode is not O.FUSION:
            return "no fusion of just a constant"
        if producer.opcode is O.FUSION:
            if not self.rules.merge_fusions or not self._growable(producer):
                return "producer fusion is not mergeable"
            return "multi-output producer" if producer.shape.is_tuple else None
        return None

    @staticmethod
    def _remembered(cache: dict[int, tuple[Instruction, str | None]], producer: Instruction,
                    reason: Callable[[Instruction], str | None]) -> str | None:
        """`reason(producer)`, computed once per non-fusion producer: its opcode, shape,
        control edges and side effects never change during the pass (a fusion's body
        does, so a fusion is asked every time)."""
        if producer.opcode is O.FUSION:
            return reason(producer)
        hit = cache.get(id(producer))
        if hit is None or hit[0] is not producer:  # the id of a removed instruction
            hit = cache[id(producer)] = (producer, reason(producer))
        return hit[1]

    def _intrinsic_reason(self, producer: Instruction) -> str | None:
        """Why the producer alone rules out fusing it (a fusion's body aside)."""
        if (
            producer.control_predecessors
            or producer.control_successors
            or has_side_effect(producer)
        ):
            return "producer has control edges or side effects"
        op = producer.opcode
        if op is O.CONSTANT:
            if producer.shape.element_count != 1 or not producer.shape.is_array:
                return "non-scalar constants stay unfused"
            return None
        if op is O.FUSION:
            return None
        if op in (O.DOT, O.CONVOLUTION):
            return None if self.rules.output_fusion else "output fusion is off"
        if op in NOT_A_PRODUCER or not is_loop_fusible(producer):
            return "producer is not loop-fusible"
        return None

    def _shape_of_fusion(
        self, consumer: _Consumer, producer: Instruction, number: int
    ) -> str | None:
        """Hero rules: one dot/convolution with an elementwise epilogue; a few reduces;
        the operands of a dot or convolution stay parameters."""
        count = self.facts.hero_count
        producer_dots = count(producer, _DOTS)
        producer_reduces = count(producer, _REDUCES)
        if consumer.dots and (producer_dots or producer_reduces):
            return "one hero per output fusion"
        if consumer.dots and _feeds_hero(self.facts.parameter(consumer.ins, number)):
            return "operands of a dot or convolution stay parameters"
        if producer_dots and (
            consumer.reduces
            or not _elementwise_epilogue(consumer.ins, producer, number)
        ):
            return "a dot's epilogue must be elementwise"
        reduces = consumer.reduces + producer_reduces
        if reduces > self.rules.max_reductions:
            return "too many reductions in one fusion"
        return None

    def _duplication(self, producer: Instruction, unfusible: set[int]) -> str | None:
        """Why `producer`, which others use too, may not be copied into the consumer."""
        reason = self._remembered(self._copies, producer, self._copy_refusal)
        if reason or producer.opcode is O.CONSTANT or is_always_duplicable(producer):
            return reason
        if not self.may_duplicate or id(producer) in unfusible:
            return "producer would be duplicated"
        return None

    def _copy_refusal(self, producer: Instruction) -> str | None:
        """The part of `_duplication` that depends on the producer alone."""
        if producer.opcode is O.CONSTANT or is_always_duplicable(producer):
            return None
        if producer.opcode in HERO_KIND or self.facts.expensive(producer):
            return "expensive producer would be duplicated"
        if producer.opcode is O.FUSION and not _cheap_to_recompute(producer):
            return "producer fusion would be duplicated"
        return None

    def _limits(self, consumer: Instruction, producer: Instruction, number: int) -> str | None:
        for ins in (producer, consumer):
            if ins.opcode is O.CONCATENATE and _bad_concatenate(ins, self.rules):
                return "concatenate fusion is inefficient"
        size = _size(consumer) + _size(producer)
        if size > self.rules.max_instructions:
            return "fusion would be too large"
        operands = {id(o) for o in (*consumer.operands, *producer.operands)} - {id(producer)}
        if len(operands) + 1 > self.rules.max_operands:
            return "too many operands"
        if (
            self.may_duplicate
            and consumer.opcode is O.FUSION
            and producer.opcode is not O.BROADCAST
            and producer.opcode is not O.CONSTANT
        ):
            if self.facts.emission_count(consumer, number) > self.rules.code_duplication:
                return "code duplication too high"
        return None

    def _growable(self, ins: Instruction) -> bool:
        return ins.attrs.get("kind") != "kCustom" and self.facts.growable(ins)

    def fusible_consumer(self, ins: Instruction) -> bool:
        return self.facts.fusible_consumer(ins)


#: Largest producer fusion that may be duplicated into several consumers.
_SMALL_FUSION = 8


def _cheap_to_recompute(fusion: Instruction) -> bool:
    """A small fusion of cheap ops that reads no more than it writes (an iota and a
    broadcast, say): duplicating it costs nothing in memory traffic."""
    read = sum(array_bytes(o.shape) for o in dict.fromkeys(fusion.operands))
    return (
        _size(fusion) <= _SMALL_FUSION
        and not is_expensive(fusion)
        and read <= array_bytes(fusion.shape)
    )


def forms_row_fusion(consumer: Instruction, producer: Instruction) -> bool:
    """Would fusing `producer` into `consumer` give a row-local fusion with a reduce
    (the producer's reuse then costs one evaluation per row, not per element)?"""
    if consumer.shape.is_tuple:
        return False
    rows = consumer.shape.dimensions
    parts = [*_parts(consumer), *_parts(producer)]
    if row_structure(parts, rows) is None:
        return False
    return any(p.opcode is O.REDUCE for p in parts) or _reduces_rows(producer, rows)


def _reduces_rows(value: Instruction, rows: tuple[int, ...], depth: int = 8) -> bool:
    """Is `value` computed, through a few row-local ops, from a reduction over the
    trailing dims of `rows` (layernorm's rsqrt of the variance, say)? Fusion reaches
    that reduce next, so the fusion being grown becomes a row fusion."""
    frontier = [value]
    for _ in range(depth):
        following: list[Instruction] = []
        for node in frontier:
            parts = _parts(node)
            if any(p.opcode is O.REDUCE and is_row_reduce(p, rows) for p in parts):
                return True
            if node.opcode not in (O.PARAMETER, O.CONSTANT) and all(
                p.opcode in ROW_LOCAL for p in parts
            ):
                following.extend(node.operands)
        frontier = following
    return False


def _parts(ins: Instruction) -> list[Instruction]:
    return list(ins.attrs["calls"].instructions) if ins.opcode is O.FUSION else [ins]


def _size(ins: Instruction) -> int:
    return len(ins.attrs["calls"].instructions) if ins.opcode is O.FUSION else 1


def _feeds_hero(param: Instruction) -> bool:
    return any(u.opcode in (O.DOT, O.CONVOLUTION) for u in param.users)


def _elementwise_epilogue(consumer: Instruction, producer: Instruction, number: int) -> bool:
    """The dot's value flows to the consumer's root through same-index ops only."""
    if producer.shape.is_tuple:
        return False
    if consumer.opcode is O.FUSION:
        body: Computation = consumer.attrs["calls"]
        assert body.root is not None
        return reaches_root_elementwise(body.parameter(number), body.root)
    return consumer.opcode in SAME_INDEX and consumer.shape.dimensions == producer.shape.dimensions


def _bad_concatenate(ins: Instruction, rules: FusionRules) -> bool:
    """XLA:CPU: many-operand concatenates, and large ones along the minor dimension, are
    faster as plain copies."""
    if ins.operand_count > rules.max_concat_operands:
        return True
    shape = ins.shape
    if shape.rank <= 1:
        return False
    dim = ins.attrs["dimensions"][0]
    minor = shape.layout.minor_to_major[0] if shape.layout else shape.rank - 1
    dim_bytes = shape.dimensions[dim] * shape.element_type.bits // 8
    return dim == minor and dim_bytes >= 64 and shape.byte_size >= 2048


@dataclass
class _Run:
    """One computation's fusion: consumers from the root up, each absorbing operands
    (latest defined first) until none fuses (XLA's fusion queue)."""

    fuser: Fuser
    planner: _Planner
    comp: Computation
    position: dict[int, int] = field(default_factory=dict)

    def all(self) -> bool:
        self.position = {id(i): n for n, i in enumerate(self.comp.instructions)}
        unfusible = self._globally_unfusible()
        changed = False
        for consumer in reversed(list(self.comp.instructions)):
            if consumer.parent is self.comp and self.planner.fusible_consumer(consumer):
                changed |= self._absorb(consumer, unfusible)
        return changed

    def _absorb(self, consumer: Instruction, unfusible: set[int]) -> bool:
        changed = False
        while True:
            number = self._next_producer(consumer, unfusible)
            if number is None:
                return changed
            producer = consumer.operand(number)
            if consumer.opcode is not O.FUSION:
                where = self.position[id(consumer)]
                consumer = self.fuser.wrap(consumer, fusion_name(producer, consumer))
                self.position[id(consumer)] = where
            self.fuser.fuse(consumer, producer)
            changed = True

    def _next_producer(self, consumer: Instruction, unfusible: set[int]) -> int | None:
        facts = self.planner.consumer(consumer)
        if facts is None:
            return None
        position = self.position
        keys = [-position.get(id(o), -1) for o in consumer.operands]
        should_fuse = self.planner.should_fuse
        for k in sorted(range(len(keys)), key=keys.__getitem__):
            if should_fuse(facts, k, unfusible) is None:
                return k
        return None

    def _globally_unfusible(self) -> set[int]:
        """XLA's ComputeGloballyUnfusible: a producer with several users may be
        duplicated when it is effectively unary, when it reads no more elements than
        it writes, or when every user can take it."""
        out: set[int] = set()
        for producer in self.comp.instructions:
            users = producer.unique_users
            if len(users) <= 1 or is_always_duplicable(producer) or effectively_unary(producer):
                continue
            read = sum(_elements(o.shape) for o in dict.fromkeys(producer.operands))
            if read <= _elements(producer.shape):
                continue
            if all(self.planner.fusible_consumer(u) for u in users):
                continue
            out.add(id(producer))
        return out


def _elements(shape: Shape) -> int:
    return sum(leaf.element_count for leaf in shape.leaves() if leaf.is_array)


def effectively_unary(ins: Instruction) -> bool:
    """XLA's IsEffectivelyAtMostUnary: at most one operand of full rank that is not a
    broadcast, an iota or a scalar constant."""
    rank = max((leaf.rank for leaf in ins.shape.leaves() if leaf.is_array), default=0)
    full = [
        o
        for o in ins.operands
        if o.opcode not in (O.BROADCAST, O.IOTA)
        and not (o.opcode is O.CONSTANT and o.shape.element_count == 1)
        and sum(1 for d in o.shape.dimensions if d != 1) >= rank
    ]
    return len(full) <= 1
