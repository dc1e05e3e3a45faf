"""From an HLO module to one LLVM module: choose what to compile, emit the kernels.

`plan_module` walks every computation that runs instruction by instruction (the entry,
while/call/conditional bodies; not fusion or reducer computations) and makes a
`LoopPlan` for each instruction the CPU kernels support: kLoop fusions whose fused
instructions are all supported, and standalone elementwise / data-movement ops.
Everything else is left to the interpreter by the runtime.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from hlotool.analysis.liveness import is_row_fusion, row_structure
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import CALLS_REDUCER, ELEMENTWISE, Opcode
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.jit import Pipeline, host
from hlotool.targets.cpu.kernel_key import kernel_key
from hlotool.targets.llvm.elemental import is_fusable_product, unsupported_reason
from hlotool.targets.cpu.kernels.control import plan_control, plan_control_flow
from hlotool.targets.cpu.kernels.conv import ConvPlan, plan_convolution
from hlotool.targets.cpu.kernels.dot import DotPlan, unsupported_dot
from hlotool.targets.cpu.kernels.indexing import UpdatePlan, has_own_plan, plan_update
from hlotool.targets.cpu.kernels.loop import LoopPlan, emit_loop_kernel
from hlotool.targets.cpu.kernels.copy import CopyPlan, plan_byte_copy
from hlotool.targets.cpu.kernels.depthwise import DepthwisePlan
from hlotool.targets.cpu.kernels.dot_fusion import DotFusionPlan, plan_dot_fusion
from hlotool.targets.cpu.kernels.rng import RngPlan, plan_rng
from hlotool.targets.cpu.compile_workers import KERNEL_MARK
from hlotool.targets.cpu.kernels.row import RowPlan, emit_row_kernel
from hlotool.targets.cpu.kernels.sort import SortPlan, plan_sort, plan_topk
from hlotool.targets.cpu.kernels.reduce import (
    ReducePlan,
    emit_reduce_kernel,
    fused_product,
    reducer_op,
    unsupported_general_reduce,
    unsupported_reduce,
)

O = Opcode

#: Ops whose interpreter implementation moves no data (views, tuples, leaves).
FREE_OPS = frozenset({O.PARAMETER, O.CONSTANT, O.TUPLE, O.GET_TUPLE_ELEMENT, O.RESHAPE, O.COPY,
                      O.AFTER_ALL, O.OPT_BARRIER, O.DOMAIN, O.ADD_DEPENDENCY})  # fmt: skip
#: Standalone ops compiled as single-instruction loop kernels.
_STANDALONE = (ELEMENTWISE | {O.CONVERT, O.BITCAST_CONVERT, O.BROADCAST, O.BITCAST, O.TRANSPOSE,
                              O.SLICE, O.REVERSE, O.PAD, O.CONCATENATE, O.IOTA, O.GATHER,
                              O.DYNAMIC_SLICE, O.REDUCE_WINDOW}) - {O.MAP}


#: Every kind of native kernel plan.
KernelPlan = (LoopPlan | ReducePlan | RowPlan | DotPlan | ConvPlan | UpdatePlan | SortPlan |
              RngPlan | CopyPlan | DepthwisePlan | DotFusionPlan)


def is_llvm(plan: KernelPlan) -> bool:
    """Whether the plan is an LLVM function (not a DotPlan or ConvPlan without a BLAS
    library to call from LLVM: those run through numpy)."""
    if isinstance(plan, DotPlan | ConvPlan):
        return plan.native
    return getattr(plan, "llvm", True)


def emit_kernel(module: ir.Module, plan: KernelPlan, symbol: str, *, x86: bool) -> None:
    """Add the LLVM function `symbol` computing `plan` to `module`."""
    if hasattr(plan, "emit"):
        plan.emit(module, symbol, x86=x86)
    elif isinstance(plan, ReducePlan):
        emit_reduce_kernel(module, plan, symbol, x86=x86)
    elif isinstance(plan, RowPlan):
        emit_row_kernel(module, plan, symbol, x86=x86)
    else:
        emit_loop_kernel(module, plan, x86=x86, symbol=symbol)


@dataclass(slots=True)
class CompiledPlan:
    """All kernels of one module plus why the rest was not compiled."""

    plans: dict[int, KernelPlan] = field(default_factory=dict)
    #: Kernel name -> symbol of the LLVM function computing it (duplicates share one).
    symbols: dict[str, str] = field(default_factory=dict)
    #: Instruction name -> reason it falls back to the interpreter.
    skipped: dict[str, str] = field(default_factory=dict)
    #: ids of the computations whose instructions run one by one (counted in stats).
    counted: set[int] = field(default_factory=set)


def sequential_computations(module: Module) -> list[Computation]:
    """Computations run instruction by instruction (not fused, not reducers)."""
    reducers: list[Computation] = []
    for comp in module.computations:
        for ins in comp.instructions:
            if ins.opcode in CALLS_REDUCER:
                reducers.extend(ins.called_computations)
    excluded: set[int] = set()
    while reducers:
        c = reducers.pop()
        if id(c) not in excluded:
            excluded.add(id(c))
            reducers.extend(x for i in c.instructions for x in i.called_computations)
    return [c for c in module.computations
            if not c.is_fusion_computation and id(c) not in excluded]


def kernel_name(ins: Instruction, index: int, part: str = "") -> str:
    """`k3_fusion.2`: the kernel's number and the instruction (fusion) it computes, so
    `compile --emit` output and profiles point back at the HLO."""
    name = "".join(c if c.isalnum() or c in "._" else "_" for c in ins.name)
    return f"k{index}_{name}" + (f"_{part}" if part else "")


def plan_module(module: Module) -> CompiledPlan:
    """A LoopPlan for every instruction that gets a native kernel.

    The body of a fusion that gets no kernel runs instruction by instruction on the
    interpreter, so its instructions are planned too (e.g. the elementwise prologue of
    a reduction fusion runs natively while the reduce itself falls back)."""
    out = CompiledPlan()
    pending = sequential_computations(module)
    control, owned = plan_control_flow(pending)
    pending = [c for c in pending if id(c) not in owned]
    while pending:
        comp = pending.pop(0)
        out.counted.add(id(comp))
        for ins in comp.instructions:
            if ins.opcode in FREE_OPS or ins.opcode is O.CALL:
                continue  # a call's work is its callee's (planned as a computation)
            plan, reason = control.get(id(ins)) or plan_instruction(ins, kernel_name(ins, len(out.plans)))
            if plan is not None:
                out.plans[id(ins)] = plan
                continue
            if ins.opcode is O.FUSION and _plan_output_fusion(ins, out):
                continue
            out.skipped[ins.name] = reason
            if ins.opcode is O.FUSION:
                pending.append(ins.attrs["calls"])
    return out


#: The heroes an output fusion is planned around (`_plan_output_fusion`), by fusion kind.
_HEROES = {"kOutput": (O.DOT, O.CONVOLUTION), "kInput": (O.REDUCE,)}


def _plan_output_fusion(ins: Instruction, out: CompiledPlan) -> bool:
    """Plan a fusion of a hero and its elementwise epilogue: a dot the own gemm computes
    with the epilogue applied to its finished blocks as one kernel (kernels/dot_fusion.py),
    else as two kernels, the hero's and one loop kernel computing the whole epilogue from the hero's result and the
    fusion's parameters, instead of a kernel per epilogue instruction: a kOutput fusion
    of a dot or convolution, or a kInput fusion of a reduce (with its prologue, which
    the reduce kernel computes) and an epilogue of its shape (a mean: the sum, then one
    division); False (nothing planned) when either is unsupported."""
    comp: Computation = ins.attrs["calls"]
    root = comp.root
    heroes = [i for i in comp.instructions if i.opcode in _HEROES.get(ins.attrs.get("kind"), ())]
    if len(heroes) != 1 or root is None or root is heroes[0] or not root.shape.is_array or \
            not heroes[0].shape.is_array or root.shape.dimensions != heroes[0].shape.dimensions:
        return False
    hero = heroes[0]
    prologue = _feeding(hero) if hero.opcode is O.REDUCE else []
    # What the root reads other than through the hero; values of the prologue the
    # epilogue also reads (logsumexp's finite max) are computed again there.
    epilogue = [i for i in [*_feeding(root, hero), root] if i.opcode is not O.PARAMETER]
    used = {id(o) for i in epilogue for o in i.operands}
    params = [p for p in comp.parameters if id(p) in used]
    constants, reason = _fused_operands([*params, *epilogue], None)
    if reason or hero.shape.element_type not in u.ELEMENTAL_TYPES:
        return False
    name = kernel_name(ins, len(out.plans))
    fused = plan_dot_fusion(name, hero, root, epilogue, params, constants)
    if fused is not None:
        out.plans[id(ins)] = fused
        return True
    if hero.opcode is O.REDUCE:
        hero_plan, _ = _plan_fused_reduce(hero, prologue, name)
    else:
        hero_plan, _ = plan_instruction(hero, name)
    if hero_plan is None:
        return False
    out.plans[id(hero)] = hero_plan
    out.plans[id(root)] = LoopPlan(kernel_name(ins, len(out.plans), "epilogue"), [root],
                                   [hero, *params], constants,
                                   pipeline=_epilogue_pipeline(hero, root, hero_plan))
    out.counted.add(id(comp))
    return True


#: A reduce's epilogue with at most 1/LEAN_EPILOGUE_RATIO of the elements the reduce reads
#: (a mean's division) is compiled unvectorized: a scalar division costs ~1.3 ns where
#: the reduce spends ~0.1 ns an element it reads, so the epilogue takes at most ~2.5% of
#: the reduce's time, and the full pipeline's ~10 ms of compile are saved (mean over the
#: last dim of 64x128x1024: 8192 divisions after 8M additions, cold 25 -> 16 ms, as fast
#: to run).
LEAN_EPILOGUE_RATIO = 512


def _epilogue_pipeline(hero: Instruction, root: Instruction, hero_plan: KernelPlan) -> Pipeline:
    """The pipeline of a fusion's epilogue kernel: the full one, unless it is a reduce's
    small epilogue (`LEAN_EPILOGUE_RATIO`), which joins the reduce kernel's unit when
    that is lean or quick (a unit of its own costs ~3 ms of level-2 codegen: the axis-0
    mean of 512x64x128 compiled in 8 ms instead of 11), else is lean."""
    small = hero.opcode is O.REDUCE and \
        root.shape.element_count * LEAN_EPILOGUE_RATIO <= hero.operand(0).shape.element_count
    if not small:
        return Pipeline.FULL
    hero_pipeline = pipeline_of(hero_plan)
    return Pipeline.LEAN if hero_pipeline is Pipeline.FULL else hero_pipeline


def _feeding(ins: Instruction, stop: Instruction | None = None) -> list[Instruction]:
    """The instructions `ins` reads, transitively, in post order (parameters included;
    not `stop` nor what only `stop` reads)."""
    seen: dict[int, Instruction] = {}

    def visit(i: Instruction) -> None:
        for o in i.operands:
            if id(o) not in seen and o is not stop:
                visit(o)
                seen[id(o)] = o

    visit(ins)
    return list(seen.values())


def plan_instruction(ins: Instruction, name: str) -> tuple[KernelPlan | None, str]:
    """The kernel for `ins`, or (None, why not)."""
    if ins.opcode is O.FUSION:
        root = ins.attrs["calls"].root
        if root is not None and root.opcode is O.CONVOLUTION:
            return plan_convolution(ins, name)
        if root is not None and has_own_plan(root):
            return plan_update(ins, name)
        return _plan_fusion(ins, name)
    if ins.opcode is O.CONVOLUTION:
        return plan_convolution(ins, name)
    if ins.opcode in (O.WHILE, O.CONDITIONAL):
        return plan_control(ins, name)
    if ins.opcode is O.REDUCE:
        return _plan_reduce(ins, name)
    if ins.opcode is O.SORT:
        return plan_sort(ins, name)
    if ins.opcode is O.RNG_BIT_GENERATOR:
        return plan_rng(ins, name)
    if ins.opcode is O.TOPK or (ins.opcode is O.CUSTOM_CALL and
                                ins.attrs.get("custom_call_target") == "TopK"):
        return plan_topk(ins, name)
    if ins.opcode is O.DOT:
        reason = unsupported_dot(ins)
        return (None, reason) if reason else (DotPlan(name, [ins], list(ins.operands)), "")
    if has_own_plan(ins):
        return plan_update(ins, name)
    if ins.opcode not in _STANDALONE:
        return None, f"no kernel for {ins.opcode.value}"
    reason = unsupported_reason(ins)
    if reason and ins.opcode is O.BITCAST_CONVERT:
        plan, _ = plan_byte_copy(ins, name)
        return (plan, "") if plan is not None else (None, reason)
    if reason:
        return None, reason
    inputs: list[Instruction] = []
    for o in ins.operands:
        sources = list(o.operands) if _inlined_product(ins, o) else [o]
        inputs.extend(s for s in sources if all(s is not x for x in inputs))
    if any(unsupported_reason(s) and s.shape.element_type not in u.ELEMENTAL_TYPES for s in inputs):
        return None, "operand element type"
    return LoopPlan(name, [ins], inputs), ""


def _inlined_product(user: Instruction, operand: Instruction) -> bool:
    """A product the interpreter contracts into `user`: recompute it inside the kernel."""
    return user.opcode in (O.ADD, O.SUBTRACT) and is_fusable_product(operand) and \
        all(o.shape.is_array and o.shape.element_type in u.ELEMENTAL_TYPES for o in operand.operands)


def _plan_reduce(ins: Instruction, name: str) -> tuple[ReducePlan | None, str]:
    """A standalone reduce: reads its operand (or the operands of a contracted product)
    and its init value from buffers."""
    reason = unsupported_general_reduce(ins)
    if reason:
        return None, reason
    for o in ins.operands:
        if not o.shape.is_array or o.shape.element_type not in u.ELEMENTAL_TYPES:
            return None, f"operand {o.shape}"
    product = fused_product(ins)
    if product is not None and all(
            o.shape.dimensions == product.shape.dimensions for o in product.operands):
        inputs = [*product.operands, ins.operand(1)]
        inputs = [x for k, x in enumerate(inputs) if all(x is not y for y in inputs[:k])]
        return ReducePlan(name, [ins], inputs), ""
    inputs = [x for k, x in enumerate(ins.operands) if all(x is not y for y in ins.operands[:k])]
    return ReducePlan(name, [ins], inputs), ""


def _plan_fusion(ins: Instruction, name: str) -> tuple[KernelPlan | None, str]:
    comp: Computation = ins.attrs["calls"]
    assert comp.root is not None
    per_row = _plan_row_reduction(comp, name)
    if per_row is not None:
        return per_row, ""
    if comp.root.opcode is O.REDUCE:
        return _plan_reduce_fusion(ins, comp, name)
    if is_row_fusion(ins):
        return _plan_row_fusion(ins, comp, name)
    if ins.attrs.get("kind") != "kLoop":
        return None, f"{ins.attrs.get('kind')} fusion"
    roots = list(comp.root.operands) if comp.root.opcode is O.TUPLE else [comp.root]
    if any(not r.shape.is_array or r.shape.dimensions != roots[0].shape.dimensions for r in roots):
        return None, "multi-output fusion with different shapes"
    skip = comp.root if comp.root is not None and comp.root.opcode is O.TUPLE else None
    constants, reason = _fused_operands(comp.instructions, skip)
    if reason:
        return None, reason
    return LoopPlan(name, roots, comp.parameters, constants), ""


def _plan_reduce_fusion(ins: Instruction, comp: Computation,
                        name: str) -> tuple[ReducePlan | None, str]:
    """A fusion whose root is a reduce (kInput, or a custom fusion of one): the prologue
    feeding the reduce is computed by the elemental emitter inside the reduction loops."""
    root = comp.root
    assert root is not None
    return _plan_fused_reduce(root, comp.instructions, name)


def _plan_fused_reduce(red: Instruction, prologue: list[Instruction],
                       name: str) -> tuple[ReducePlan | None, str]:
    """The kernel of a fused reduce and the `prologue` instructions feeding it; its
    inputs are the fusion's parameters."""
    reason = unsupported_general_reduce(red)
    if reason:
        return None, f"{red.name}: {reason}"
    constants, reason = _fused_operands(prologue, red)
    if reason:
        return None, reason
    assert red.parent is not None
    return ReducePlan(name, [red], red.parent.parameters, constants), ""


def _plan_row_fusion(ins: Instruction, comp: Computation,
                     name: str) -> tuple[RowPlan | None, str]:
    """A row fusion (softmax, layernorm): per row, the reduces then the epilogue."""
    root = comp.root
    assert root is not None
    kept = row_structure(comp.instructions, root.shape.dimensions)
    if kept is None or kept < 1:
        return None, "not a row fusion"
    reduces: list[Instruction] = []
    constants, reason = _fused_operands(comp.post_order(), None, reduces)
    if reason:
        return None, reason
    return RowPlan(name, [root], comp.parameters, constants, reduces, kept), ""


def _plan_row_reduction(comp: Computation, name: str) -> RowPlan | None:
    """A fusion of row reduces with one value per row as its result (a row max, the sum
    of exp(x - m), logsumexp's sum and log, a mean's sum and division) as one row kernel
    of block calls (`row.block_kinds`, every fold a call), which LLVM's quick pipeline
    compiles in a few ms, as XLA:CPU hands these fusions to YNNPACK; None where that
    does not apply. A plain sum or product of a parameter keeps the reduce kernel, whose
    folds the autotuner times."""
    root = comp.root
    reduces = [i for i in comp.instructions if i.opcode is O.REDUCE]
    if root is None or not reduces or not root.shape.is_array:
        return None
    if root.opcode is O.REDUCE and root.operand(0).opcode is O.PARAMETER and \
            reducer_op(root) in (O.ADD, O.MULTIPLY):
        return None
    rows = reduces[0].operand(0).shape.dimensions
    kept = row_structure(comp.instructions, rows)
    if not kept or root.shape.dimensions != rows[:kept]:
        return None
    scratch: list[Instruction] = []
    constants, reason = _fused_operands(comp.post_order(), None, scratch)
    if reason:
        return None
    plan = RowPlan(name, [root], comp.parameters, constants, scratch, kept)
    return plan if plan.blocks is not None and plan.blocks.calls else None


def _fused_operands(
    instructions: list[Instruction], skip: Instruction | None,
    reduces: list[Instruction] | None = None,
) -> tuple[list[tuple[Instruction, np.ndarray]], str]:
    """The array constants a fused computation's kernel takes as buffers, or the reason
    it cannot be compiled ("" when it can). With `reduces`, reduce instructions are
    collected there (row kernels compute them per row) instead of being rejected."""
    constants: list[tuple[Instruction, np.ndarray]] = []
    for f in instructions:
        if f is skip:
            continue
        if f.opcode is O.PARAMETER:
            if not f.shape.is_array or f.shape.element_type not in u.ELEMENTAL_TYPES:
                return [], f"parameter {f.shape}"
            continue
        if reduces is not None and f.opcode is O.REDUCE:
            reason = unsupported_reduce(f)
            if reason:
                return [], f"{f.name}: {reason}"
            reduces.append(f)
            continue
        reason = unsupported_reason(f)
        if reason:
            return [], f"{f.name}: {reason}"
        if f.opcode is O.CONSTANT and not _is_splat(f):
            constants.append((f, _literal(f)))
    return constants, ""


def _literal(ins: Instruction) -> np.ndarray:
    from hlotool.interpreter.kernels.data_movement import literal_value

    assert ins.literal is not None
    return np.ascontiguousarray(literal_value(ins.literal))


def _is_splat(ins: Instruction) -> bool:
    assert ins.literal is not None
    return ins.literal.data is None or ins.literal.data.size <= 1 \
        or ins.literal.splat_element() is not None


#: Placeholder symbol kernels are emitted under when looking for duplicates.
_PLACEHOLDER = "__hlotool_kernel__"


def plan_kinds(plans: list[KernelPlan]) -> dict[str, str]:
    """Kernel name -> "PlanKind/PIPELINE" for the LLVM kernels of a module: what the disk
    cache checks before loading code for them (the same names with other plans, say a
    reduce kernel's and a row kernel's arguments, would run the wrong code)."""
    return {p.name: f"{type(p).__name__}/{pipeline_of(p).name}" for p in plans}


def pipeline_of(plan: KernelPlan) -> Pipeline:
    """The pipeline a plan's kernel is compiled by (`plan.pipeline` where the plan
    says, else the full one)."""
    return getattr(plan, "pipeline", Pipeline.FULL)


def build_llvm_module(name: str, plans: list[KernelPlan]) -> tuple[dict[Pipeline, str], dict[str, str]]:
    """Textual LLVM IR of every distinct kernel of `plans` (those compiled by LLVM), one
    module per pipeline (`pipeline_of`), and for every plan the symbol of the function
    that computes it.

    Identical kernels (the same fused computation structure and shapes, e.g. one
    elementwise op applied to many same-shaped values) become one LLVM function: a plan
    whose structural key (`kernel_key`) was seen reuses that function unemitted; any
    other is emitted on its own under a placeholder name and its IR text is the key. A
    plan with a `callee` (a function its kernel calls, compiled by another pipeline) has
    the callee added first and its symbol set as `callee_symbol`."""
    x86 = host().is_x86
    symbols: dict[str, str] = {}
    seen: dict[str, str] = {}
    declares: dict[Pipeline, dict[str, None]] = {}
    bodies: dict[Pipeline, list[str]] = {}
    by_key: dict[str, str] = {}

    def add(plan: KernelPlan) -> str:
        """The symbol of the function computing `plan`, emitted unless seen."""
        callee = getattr(plan, "callee", None)
        if callee is not None:  # a function the kernel calls, in its own pipeline
            plan.callee_symbol = add(callee)
        key = kernel_key(plan)
        if key is not None and key in by_key:
            return by_key[key]
        module = ir.Module(name=_symbol(name))
        emit_kernel(module, plan, _PLACEHOLDER, x86=x86)
        text = str(module)
        symbol = seen.get(text)
        if symbol is None:
            symbol = seen[text] = plan.name
            pipeline = pipeline_of(plan)
            unit_declares = declares.setdefault(pipeline, {})
            unit_bodies = bodies.setdefault(pipeline, [])
            unit_bodies.append(KERNEL_MARK)  # where `compile_workers.split` may cut
            for line in text.replace(_PLACEHOLDER, plan.name).splitlines():
                if line.startswith("declare ") or " = external global " in line:
                    unit_declares[line] = None
                elif not line.startswith(("; ModuleID", "target ")):
                    unit_bodies.append(line)
        if key is not None:
            by_key[key] = symbol
        return symbol

    for plan in plans:
        if is_llvm(plan):
            symbols[plan.name] = add(plan)
    header = f'; ModuleID = "{_symbol(name)}"'
    units = {p: "\n".join([header, *declares[p], *bodies[p], ""]) for p in bodies}
    return units, symbols


def _symbol(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]", "_", name) or "module"
