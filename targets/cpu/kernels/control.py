"""Control flow compiled whole: a `while` or `conditional` as one LLVM function.

The interpreter runs a while loop by calling back into the executor for every body
instruction (a ctypes call per kernel per step). When every instruction of the loop's
condition and body (nested whiles, conditionals and calls included) is free (parameter,
constant, tuple, get-tuple-element, reshape, copy, a layout-preserving bitcast) or gets
an LLVM kernel plan, the loop becomes one function that calls those kernels directly, as
XLA:CPU's `WhileThunk` runs its condition and body thunk sequences in a loop
(xla/backends/cpu/runtime/while_thunk.cc), here without leaving native code.

Buffers: a value is a tree (nested tuples) of `Ref`s, each naming one array buffer: an
argument of the function, a loop-state leaf, a slot of the plan's scratch buffer (a
kernel's output, at an offset chosen at plan time; slots whose lifetimes do not overlap
share memory) or a constant (an LLVM global). Kernels whose outputs nobody reads are
dropped; a fusion without a kernel runs its fused instructions one by one, as the
runtime does. The function sets FTZ/DAZ once: the kernels it calls skip their own MXCSR
writes (~25 ns each) unless they run code on other threads. A dot is an LLVM kernel
calling CBLAS where OpenBLAS is found (`DotPlan.native`, kernels/blas.py); loops
containing a convolution, or a dot without that library, stay on the interpreter.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import numpy as np
from llvmlite import ir

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.kernels.loop import emit_entry

O = Opcode

#: Ops that only rename buffers (the interpreter returns their operand unchanged).
_VIEWS = frozenset({O.RESHAPE, O.COPY, O.OPT_BARRIER, O.DOMAIN, O.ADD_DEPENDENCY})
#: Alignment of scratch slots and constant globals.
_ALIGN = 64


@dataclass(frozen=True, slots=True)
class Ref:
    """One array buffer: `kind` is "arg" (function argument), "state" (loop-state leaf),
    "temp" (scratch slot) or "const" (global); `index` numbers it within its kind."""

    kind: str
    index: int


Tree = Ref | tuple[Any, ...]


@dataclass(slots=True)
class Step:
    """One kernel call: the kernel reads `reads` and writes `writes` (outputs, then its
    own scratch); its entry takes them in that order."""

    id: int
    kernel: Any
    reads: list[Ref]
    writes: list[Ref]


@dataclass(slots=True)
class Region:
    """A computation compiled to kernel calls: the steps in order and the root's buffers."""

    steps: list[Step]
    root: Tree


class Unsupported(Exception):
    """The computation has an instruction without an LLVM kernel."""


@dataclass(slots=True)
class _Walker:
    """Turns computations into steps; owns the plan's scratch slots and constants."""

    prefix: str
    temps: list[int] = field(default_factory=list)
    consts: list[np.ndarray] = field(default_factory=list)
    ids: count = field(default_factory=count)
    #: ids of the computations compiled (run by no one else).
    owned: set[int] = field(default_factory=set)

    def temp(self, nbytes: int) -> Ref:
        self.temps.append(nbytes)
        return Ref("temp", len(self.temps) - 1)

    def region(self, comp: Computation, params: list[Tree]) -> Region:
        steps: list[Step] = []
        root = self.computation(comp, params, steps)
        return Region(_live_steps(steps, root), root)

    def computation(self, comp: Computation, params: list[Tree], steps: list[Step]) -> Tree:
        self.owned.add(id(comp))
        env: dict[int, Tree] = {}
        for ins in comp.post_order():
            env[id(ins)] = self.value(ins, params, env, steps)
        assert comp.root is not None
        return env[id(comp.root)]

    def value(self, ins: Instruction, params: list[Tree], env: dict[int, Tree],
              steps: list[Step]) -> Tree:
        """The buffers holding `ins`'s value (adding a step when a kernel computes it)."""
        op = ins.opcode
        args = [env[id(o)] for o in ins.operands]
        if op is O.PARAMETER:
            if ins.parameter_number >= len(params):
                raise Unsupported(f"{ins.name}: parameter {ins.parameter_number}")
            return params[ins.parameter_number]
        if op is O.CONSTANT:
            return self.constant(ins)
        if op is O.TUPLE:
            return tuple(args)
        if op is O.GET_TUPLE_ELEMENT:
            return args[0][ins.attrs["index"]]
        if op in _VIEWS or op is O.BITCAST and _plain_bitcast(ins):
            return args[0]
        if op is O.CALL:
            return self.computation(ins.attrs["to_apply"], args, steps)
        return self.kernel(ins, args, env, steps)

    def constant(self, ins: Instruction) -> Ref:
        from hlotool.interpreter.kernels.data_movement import literal_value

        if not ins.shape.is_array or ins.literal is None:
            raise Unsupported(f"{ins.name}: constant {ins.shape}")
        self.consts.append(np.ascontiguousarray(literal_value(ins.literal)))
        return Ref("const", len(self.consts) - 1)

    def kernel(self, ins: Instruction, args: list[Tree], env: dict[int, Tree],
               steps: list[Step]) -> Tree:
        from hlotool.targets.cpu import codegen

        plan, reason = codegen.plan_instruction(ins, f"{self.prefix}k{len(steps)}")
        if plan is None and ins.opcode is O.FUSION:
            # As the runtime does: the fused instructions run one by one.
            return self.computation(ins.attrs["calls"], args, steps)
        if plan is None or not (codegen.is_llvm(plan) or getattr(plan, "native", False)):
            raise Unsupported(f"{ins.name}: {reason or type(plan).__name__ + ' is a library call'}")
        if isinstance(plan, WhilePlan | ConditionalPlan):
            reads = [r for a in args for r in _leaves(a)]
            self.owned |= plan.owned
        elif hasattr(plan, "inputs"):
            reads = [_input_ref(ins, s, args, env) for s in plan.inputs]
            for _, c in getattr(plan, "constants", ()):
                self.consts.append(c)
                reads.append(Ref("const", len(self.consts) - 1))
        else:
            raise Unsupported(f"{ins.name}: {type(plan).__name__} inside a loop")
        shapes = getattr(plan, "output_shapes", None) or ins.shape.leaves()
        outs = [self.temp(_nbytes(s)) for s in shapes]
        scratch = [self.temp(_nbytes(s.shape)) for s in getattr(plan, "scratch", ())]
        if isinstance(getattr(plan, "scratch_bytes", None), int):
            scratch.append(self.temp(plan.scratch_bytes))
        steps.append(Step(next(self.ids), plan, reads, [*outs, *scratch]))
        if not ins.shape.is_tuple:
            return outs[0]
        if len(outs) != len(ins.shape.leaves()):
            raise Unsupported(f"{ins.name}: {len(outs)} outputs for {ins.shape}")
        return _nest(ins.shape, iter(outs))


def _input_ref(ins: Instruction, src: Instruction, args: list[Tree],
               env: dict[int, Tree]) -> Ref:
    """The buffer of a kernel input: a fusion parameter's operand, or a value of the
    enclosing computation (an operand, or an inlined product's operand)."""
    tree = env.get(id(src))
    if tree is None:
        assert src.opcode is O.PARAMETER and ins.opcode is O.FUSION
        tree = args[src.parameter_number]
    if not isinstance(tree, Ref):
        raise Unsupported(f"{ins.name}: tuple-shaped kernel input")
    return tree


def _plain_bitcast(ins: Instruction) -> bool:
    """A bitcast that keeps the bytes in place (both shapes in the default layout)."""
    a, b = ins.operand(0).shape, ins.shape
    return a.is_array and b.is_array and _nbytes(a) == _nbytes(b) and \
        _default_layout(a) and _default_layout(b)


def _default_layout(s: Shape) -> bool:
    return s.layout is None or list(s.layout.minor_to_major) == list(range(s.rank))[::-1]


def _nbytes(s: Shape) -> int:
    if not s.is_array:
        raise Unsupported(f"buffer of shape {s}")
    return s.element_count * np.dtype(s.element_type.numpy_dtype).itemsize


def _leaves(t: Tree) -> list[Ref]:
    return [t] if isinstance(t, Ref) else [r for x in t for r in _leaves(x)]


def _nest(shape: Shape, it: Any) -> Any:
    """Rebuild a value with `shape`'s tuple nesting from its leaves in order."""
    if shape.is_tuple:
        return tuple(_nest(s, it) for s in shape.tuple_shapes)
    return next(it)


def _live_steps(steps: list[Step], root: Tree) -> list[Step]:
    """The steps whose outputs reach the root (kernels have no side effects)."""
    live = {r for r in _leaves(root) if r.kind == "temp"}
    kept: list[Step] = []
    for s in reversed(steps):
        if any(w in live for w in s.writes):
            kept.append(s)
            live.update(r for r in s.reads if r.kind == "temp")
    return kept[::-1]


def _layout(temps: list[int], regions: list[Region],
            permanent: set[int]) -> tuple[list[int], int]:
    """Scratch offsets of the slots and the total size. The counter takes the first
    bytes; slots are aligned and share memory when their lifetimes do not overlap
    (the steps of `regions` run in that order; a root's temps live to its region's
    end; the `permanent` ones, e.g. double buffers, always)."""
    spans: dict[int, list[int]] = {}
    t = 0
    for region in regions:
        for step in region.steps:
            for r in [*step.reads, *step.writes]:
                if r.kind == "temp":
                    spans.setdefault(r.index, [t, t])[1] = t
            t += 1
        for r in _leaves(region.root):
            if r.kind == "temp":
                spans.setdefault(r.index, [t, t])[1] = t
        t += 1
    for k in permanent:
        spans[k] = [0, t]
    offsets = [_ALIGN] * len(temps)
    placed: list[tuple[int, int, int, int]] = []  # (offset, end offset, first, last)
    for k in sorted(spans, key=lambda k: (spans[k][0], -temps[k])):
        first, last = spans[k]
        size = -(-temps[k] // _ALIGN) * _ALIGN
        at = _ALIGN
        for lo, hi, _, _ in sorted(p for p in placed if p[2] <= last and first <= p[3]):
            if at + size <= lo:
                break
            at = max(at, hi)
        offsets[k] = at
        placed.append((at, at + size, first, last))
    return offsets, max([_ALIGN, *(p[1] for p in placed)])


@dataclass(slots=True)
class WhilePlan:
    """A while loop as one function.

    Entry `void symbol(void **buffers)`: the while operand's array leaves (inputs, in
    leaf order), the result's leaves (outputs, same shapes), then one scratch buffer of
    `scratch_bytes`; no constants (they are globals of the module). The inputs are
    copied into the outputs once, then the outputs hold the loop state: each step calls
    the condition's kernels, exits when the pred is false, calls the body's kernels
    (temporaries in scratch) and moves the body root's leaves into the state. A leaf
    passed through unchanged moves nothing; a leaf a kernel computes is double-buffered
    (the kernel writes the spare buffer, a scratch slot, and the two pointers swap; one
    copy at the end when the value ends in the spare); a leaf taken from another state
    leaf is staged in scratch first. Correct when output k IS input k (XLA's buffer
    assignment joins a while's init and result buffers: passes/buffer_assignment.py) as
    well as when all buffers are distinct; an output must not be a different leaf's
    input. The scratch buffer's first 8 bytes receive the number of kernel calls made
    (an i64: instruction executions that ran natively). The interpreter's iteration
    limit (max_while_iterations) does not apply."""

    name: str
    leaves: list[Shape]
    cond: Region
    body: Region
    temps: list[int]
    consts: list[np.ndarray]
    #: Body-root temp -> the state leaf it is double-buffered into.
    double: dict[int, int]
    #: State leaf -> staging slot (temp) for leaves taken from another state leaf.
    stage: dict[int, int]
    owned: set[int]
    offsets: list[int] = field(default_factory=list)
    scratch_bytes: int = 0

    def __post_init__(self) -> None:
        self.offsets, self.scratch_bytes = _layout(
            self.temps, [self.cond, self.body], {*self.double, *self.stage.values()})

    @property
    def input_leaves(self) -> list[Shape]:
        return self.leaves

    def emit(self, module: ir.Module, symbol: str, *, x86: bool, ftz: bool | None = None) -> None:
        """Add `symbol`; its entry sets FTZ/DAZ (x86) unless `ftz` is False (nested in a
        function that has set them)."""
        n = len(self.leaves)
        e = _Emitter(module, symbol, 2 * n + 1, self.offsets, self.consts, x86)
        e.prepare([*self.cond.steps, *self.body.steps])
        b, fn = e.b, e.fn
        ins, outs = list(fn.args[:n]), list(fn.args[n:2 * n])
        sizes = [_nbytes(s) for s in self.leaves]
        e.state = [b.alloca(u.PTR, name=f"cur{k}") for k in range(n)]
        e.spares = {t: b.alloca(u.PTR, name=f"spare{t}") for t in self.double}
        for k in range(n):
            b.store(outs[k], e.state[k])
        for t, spare in e.spares.items():
            b.store(e.scratch_at(t), spare)
        for k in range(n):
            _copy_unless_same(b, outs[k], ins[k], sizes[k])
        header, body, done = (fn.append_basic_block(x) for x in ("cond", "body", "done"))
        b.branch(header)
        b.position_at_end(header)
        e.steps(self.cond.steps)
        pred = b.load(e.pointer(_single(self.cond.root)), typ=u.I8)
        b.cbranch(b.icmp_unsigned("!=", pred, ir.Constant(u.I8, 0)), body, done)
        b.position_at_end(body)
        e.steps(self.body.steps)
        self._move_state(e, sizes)
        b.branch(header)
        b.position_at_end(done)
        for k in self.double.values():
            _copy_unless_same(b, outs[k], b.load(e.state[k], typ=u.PTR), sizes[k])
        b.ret_void()
        emit_entry(module, symbol, fn, x86 if ftz is None else ftz)

    def _move_state(self, e: _Emitter, sizes: list[int]) -> None:
        """Body root -> state: stage the leaves taken from another state leaf, copy the
        rest, then swap the double-buffered pointers."""
        b = e.b
        roots = _leaves(self.body.root)
        for k, t in self.stage.items():
            _memcpy(b, e.scratch_at(t), e.pointer(roots[k]), sizes[k])
        for k, r in enumerate(roots):
            if r == Ref("state", k) or r.kind == "temp" and self.double.get(r.index) == k:
                continue
            src = e.scratch_at(self.stage[k]) if k in self.stage else e.pointer(r)
            _memcpy(b, b.load(e.state[k], typ=u.PTR), src, sizes[k])
        for t, k in self.double.items():
            cur, spare = b.load(e.state[k], typ=u.PTR), b.load(e.spares[t], typ=u.PTR)
            b.store(spare, e.state[k])
            b.store(cur, e.spares[t])

    def make_thunk(self, ins: Instruction, library: Any, symbol: str) -> ControlThunk:
        return ControlThunk(ins, self, library, symbol)


@dataclass(slots=True)
class ConditionalPlan:
    """A conditional as one function: the selector picks a branch (pred: true -> 0,
    false -> 1; s32 index: out of range -> the last branch, as XLA), whose kernels run
    with temporaries in scratch; then its root's leaves are copied to the outputs
    (leaves that are inputs are staged in scratch first).

    Entry `void symbol(void **buffers)`: the selector, every branch operand's array
    leaves (operand by operand), the result's leaves (outputs), one scratch buffer of
    `scratch_bytes` (its first 8 bytes receive the number of kernel calls made). Correct
    with distinct buffers and when an output IS an input."""

    name: str
    inputs: list[Shape]
    outputs: list[Shape]
    branches: list[Region]
    temps: list[int]
    consts: list[np.ndarray]
    #: Per branch: output leaf -> staging slot (temp) of a leaf that is an input.
    stage: list[dict[int, int]]
    owned: set[int]
    offsets: list[int] = field(default_factory=list)
    scratch_bytes: int = 0

    def __post_init__(self) -> None:
        self.offsets, self.scratch_bytes = _layout(
            self.temps, self.branches, {t for st in self.stage for t in st.values()})

    @property
    def input_leaves(self) -> list[Shape]:
        return self.inputs

    def emit(self, module: ir.Module, symbol: str, *, x86: bool, ftz: bool | None = None) -> None:
        """Add `symbol` (see WhilePlan.emit for `ftz`)."""
        n_in, n_out = len(self.inputs), len(self.outputs)
        e = _Emitter(module, symbol, n_in + n_out + 1, self.offsets, self.consts, x86)
        e.prepare([s for r in self.branches for s in r.steps])
        b, fn = e.b, e.fn
        outs = list(fn.args[n_in:n_in + n_out])
        index = self._branch_index(b, fn.args[0])
        blocks = [fn.append_basic_block(f"branch{k}") for k in range(len(self.branches))]
        done = fn.append_basic_block("done")
        switch = b.switch(index, blocks[-1])
        for k, block in enumerate(blocks[:-1]):
            switch.add_case(ir.Constant(u.I32, k), block)
        sizes = [_nbytes(s) for s in self.outputs]
        for region, stage, block in zip(self.branches, self.stage, blocks, strict=True):
            b.position_at_end(block)
            e.steps(region.steps)
            roots = _leaves(region.root)
            for k, t in stage.items():
                _memcpy(b, e.scratch_at(t), e.pointer(roots[k]), sizes[k])
            for k, r in enumerate(roots):
                src = e.scratch_at(stage[k]) if k in stage else e.pointer(r)
                _memcpy(b, outs[k], src, sizes[k])
            b.branch(done)
        b.position_at_end(done)
        b.ret_void()
        emit_entry(module, symbol, fn, x86 if ftz is None else ftz)

    def _branch_index(self, b: ir.IRBuilder, selector: ir.Value) -> ir.Value:
        if self.inputs[0].element_type is PrimitiveType.PRED:
            taken = b.icmp_unsigned("!=", b.load(selector, typ=u.I8), ir.Constant(u.I8, 0))
            return b.select(taken, ir.Constant(u.I32, 0), ir.Constant(u.I32, 1))
        i = b.load(selector, typ=u.I32)
        last = ir.Constant(u.I32, len(self.branches) - 1)
        return b.select(b.icmp_unsigned("<", i, last), i, last)

    def make_thunk(self, ins: Instruction, library: Any, symbol: str) -> ControlThunk:
        return ControlThunk(ins, self, library, symbol)


def plan_control(ins: Instruction, name: str) -> tuple[WhilePlan | ConditionalPlan | None, str]:
    """The plan of a while or conditional, or (None, why not)."""
    try:
        if ins.opcode is O.WHILE:
            return _plan_while(ins, name), ""
        return _plan_conditional(ins, name), ""
    except Unsupported as exc:
        return None, f"{ins.opcode.value} body: {exc}"


def _plan_while(ins: Instruction, name: str) -> WhilePlan:
    leaves = ins.shape.leaves()
    sizes = [_nbytes(s) for s in leaves]
    w = _Walker(f"{name}.")
    state = _nest(ins.shape, iter([Ref("state", k) for k in range(len(leaves))]))
    cond = w.region(ins.attrs["condition"], [state])
    body = _update_in_place(w.region(ins.attrs["body"], [state]))
    _single(cond.root)
    double: dict[int, int] = {}
    stage: dict[int, int] = {}
    for k, r in enumerate(_leaves(body.root)):
        if r.kind == "temp" and r.index not in double:
            double[r.index] = k
        elif r.kind == "state" and r.index != k:
            stage[k] = w.temp(sizes[k]).index
    return WhilePlan(name, leaves, cond, body, w.temps, w.consts, double, stage, w.owned)


def _update_in_place(body: Region) -> Region:
    """Let an update kernel (dynamic-update-slice, scatter: a plan with `aliasable`) whose
    result becomes state leaf k write state k in place when it reads state k as its
    aliasable operand and no later step nor another root leaf reads state k (as XLA's
    buffer assignment shares the buffers); otherwise every step would copy the array."""
    roots = _leaves(body.root)
    for n, step in enumerate(body.steps):
        for j, pos in enumerate(getattr(step.kernel, "aliasable", ())):
            out, src = step.writes[j], step.reads[pos] if pos is not None else None
            if src is None or src.kind != "state" or out not in roots:
                continue
            k = src.index
            if roots.index(out) != k or roots.count(src) or step.reads.count(src) != 1 or \
                    any(src in later.reads for later in body.steps[n + 1:]):
                continue
            rename = {out: src}
            step.writes[j] = src
            for later in body.steps[n + 1:]:
                later.reads = [rename.get(r, r) for r in later.reads]
            body.root = _rename(body.root, rename)
            roots = _leaves(body.root)
    return body


def _rename(t: Tree, rename: dict[Ref, Ref]) -> Tree:
    return rename.get(t, t) if isinstance(t, Ref) else tuple(_rename(x, rename) for x in t)


def _plan_conditional(ins: Instruction, name: str) -> ConditionalPlan:
    branches = ins.attrs.get("branch_computations")
    if branches is None:
        branches = (ins.attrs["true_computation"], ins.attrs["false_computation"])
    selector = ins.operand(0).shape
    if selector.dimensions or selector.element_type not in (PrimitiveType.PRED,
                                                            PrimitiveType.S32):
        raise Unsupported(f"selector {selector}")
    inputs = [selector, *(s for o in ins.operands[1:] for s in o.shape.leaves())]
    for s in inputs:
        _nbytes(s)
    w = _Walker(f"{name}.")
    regions, stages, at = [], [], 1
    for comp, operand in zip(branches, ins.operands[1:], strict=True):
        n = len(operand.shape.leaves())
        param = _nest(operand.shape, iter([Ref("arg", at + j) for j in range(n)]))
        at += n
        region = w.region(comp, [param])
        regions.append(region)
        stages.append({k: w.temp(_nbytes(s)).index
                       for k, (r, s) in enumerate(zip(_leaves(region.root), ins.shape.leaves(),
                                                      strict=True)) if r.kind == "arg"})
    return ConditionalPlan(name, inputs, ins.shape.leaves(), regions, w.temps, w.consts,
                           stages, w.owned)


def plan_control_flow(comps: list[Computation]) -> tuple[
        dict[int, tuple[WhilePlan | ConditionalPlan | None, str]], set[int]]:
    """The plans of the whiles and conditionals of `comps` (by instruction id), and the
    ids of the computations those plans compile whole (no one else runs or plans them);
    control flow nested in a compiled computation is dropped (its parent plan has it)."""
    plans: dict[int, tuple[Any, str]] = {}
    parents: dict[int, int] = {}
    for comp in comps:
        for ins in comp.instructions:
            if ins.opcode in (O.WHILE, O.CONDITIONAL):
                plans[id(ins)] = plan_control(ins, f"w{len(plans)}")
                parents[id(ins)] = id(comp)
    owned = {c for plan, _ in plans.values() if plan is not None for c in plan.owned}
    for comp in comps:  # a computation also called from outside stays planned
        if id(comp) not in owned:
            for ins in comp.instructions:
                if (plans.get(id(ins)) or (None,))[0] is None:
                    owned.difference_update(id(c) for c in ins.called_computations)
    return {k: v for k, v in plans.items() if parents[k] not in owned}, owned


class _Emitter:
    """Builds one control function: kernel calls through pointer arrays, buffer lookup."""

    def __init__(self, module: ir.Module, symbol: str, n_args: int, offsets: list[int],
                 consts: list[np.ndarray], x86: bool) -> None:
        self.module, self.symbol, self.x86 = module, symbol, x86
        self.fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [u.PTR] * n_args),
                              name=f"{symbol}.control")
        self.fn.linkage = "internal"
        self.fn.attributes.add("nounwind")
        self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
        self.b.store(u.i64(0), self.fn.args[-1])
        self.offsets = offsets
        self.consts = consts
        self.globals: dict[int, ir.GlobalVariable] = {}
        self.state: list[ir.Value] = []
        self.spares: dict[int, ir.Value] = {}
        self.arrays: dict[int, tuple[ir.Value, ir.Function]] = {}

    def prepare(self, steps: list[Step]) -> None:
        """Emit every step's kernel and allocate its pointer array."""
        from hlotool.targets.cpu.codegen import emit_kernel

        for s in steps:
            name = f"{self.symbol}.k{s.id}"
            before = set(self.module.globals)
            if isinstance(s.kernel, WhilePlan | ConditionalPlan):
                s.kernel.emit(self.module, name, x86=self.x86, ftz=False)
            else:
                emit_kernel(self.module, s.kernel, name, x86=False)
                if self.x86 and _calls_out(self.module, before):
                    self.module.get_global(name).linkage = "internal"
                    name = f"{name}.ftz"
                    emit_kernel(self.module, s.kernel, name, x86=True)
            self.module.get_global(name).linkage = "internal"
            n = len(s.reads) + len(s.writes)
            array = self.b.alloca(u.PTR, size=u.i64(n), name=f"args{s.id}")
            self.arrays[s.id] = (array, self.module.get_global(name))

    def steps(self, steps: list[Step]) -> None:
        """Call the steps' kernels in order, counting the calls (a nested control kernel
        adds its own count) in the scratch buffer's first 8 bytes."""
        b, counter = self.b, self.fn.args[-1]
        for s in steps:
            array, fn = self.arrays[s.id]
            for j, r in enumerate([*s.reads, *s.writes]):
                b.store(self.pointer(r), b.gep(array, [u.i64(j)], source_etype=u.PTR))
            b.call(fn, [array])
            calls = u.i64(1)
            if isinstance(s.kernel, WhilePlan | ConditionalPlan):
                calls = b.load(self.pointer(s.writes[-1]), typ=u.I64)
            b.store(b.add(b.load(counter, typ=u.I64), calls), counter)

    def pointer(self, r: Ref) -> ir.Value:
        if r.kind == "arg":
            return self.fn.args[r.index]
        if r.kind == "state":
            return self.b.load(self.state[r.index], typ=u.PTR)
        if r.kind == "temp":
            spare = self.spares.get(r.index)
            return self.scratch_at(r.index) if spare is None else self.b.load(spare, typ=u.PTR)
        return self._global(r.index)

    def scratch_at(self, temp: int) -> ir.Value:
        return self.b.gep(self.fn.args[-1], [u.i64(self.offsets[temp])], source_etype=u.I8)

    def _global(self, k: int) -> ir.GlobalVariable:
        g = self.globals.get(k)
        if g is None:
            data = bytearray(self.consts[k].tobytes()) or bytearray(1)
            ty = ir.ArrayType(u.I8, len(data))
            g = ir.GlobalVariable(self.module, ty, name=f"{self.symbol}.c{k}")
            g.global_constant = True
            g.linkage = "private"
            g.align = _ALIGN
            g.initializer = ir.Constant(ty, data)
            self.globals[k] = g
        return g


def _calls_out(module: ir.Module, before: set[str]) -> bool:
    """Whether a function added since `before` calls a declared function other than an
    LLVM intrinsic (e.g. a thread runtime, whose threads must set FTZ/DAZ themselves).
    Other kernels run inside the control function's FTZ/DAZ section, so their entries
    skip the MXCSR writes (~25 ns per call)."""
    for g in list(module.globals.values()):
        if g.name in before or not isinstance(g, ir.Function):
            continue
        for block in g.blocks:
            for i in block.instructions:
                callee = getattr(i, "callee", None) if isinstance(i, ir.CallInstr) else None
                if isinstance(callee, ir.Function) and callee.is_declaration and \
                        not callee.name.startswith("llvm."):
                    return True
    return False


def _single(t: Tree) -> Ref:
    if not isinstance(t, Ref):
        raise Unsupported("tuple-shaped condition")
    return t


def _memcpy(b: ir.IRBuilder, dst: ir.Value, src: ir.Value, n: int) -> None:
    if n:
        u.memcpy(b, dst, src, n)


def _copy_unless_same(b: ir.IRBuilder, dst: ir.Value, src: ir.Value, n: int) -> None:
    """memcpy(dst, src) unless they are the same buffer (an in-place while)."""
    if not n:
        return
    with b.if_then(b.icmp_unsigned("!=", dst, src)):
        _memcpy(b, dst, src, n)


def _flat_values(v: Any) -> list[Any]:
    return [x for e in v for x in _flat_values(e)] if isinstance(v, tuple) else [v]


class ControlThunk:
    """Runs a compiled while or conditional on the interpreter's values: inputs are the
    leaves of the operands, the value is a tuple of fresh arrays with the result's
    nesting (same interface as runtime.Thunk)."""

    def __init__(self, ins: Instruction, plan: WhilePlan | ConditionalPlan, library: Any,
                 symbol: str) -> None:
        self.fn = library.get_function(symbol)
        self.ins = ins
        self.shape = ins.shape
        self.in_specs = [(s.dimensions, s.element_type.numpy_dtype) for s in plan.input_leaves]
        self.out_specs = [(s.dimensions, s.element_type.numpy_dtype) for s in ins.shape.leaves()]
        raw = np.empty(plan.scratch_bytes + _ALIGN, np.uint8)
        skip = -raw.ctypes.data % _ALIGN
        self.scratch = raw[skip:skip + plan.scratch_bytes]
        n = len(self.in_specs) + len(self.out_specs)
        self.args = (ctypes.c_void_p * (n + 1))()
        self.args[n] = raw.ctypes.data + skip
        self._raw = raw
        #: Kernel calls made by the last call (instruction executions that ran natively).
        self.executions = 0

    def inputs(self, operands: list[Any], env: dict[int, Any]) -> list[Any]:
        return [v for o in operands for v in _flat_values(o)]

    def native_args(self) -> list[tuple[Any, ...]]:
        """The entry's buffers for the arena runtime (`schedule.NativeArgs`)."""
        ins = self.ins
        args: list[tuple[Any, ...]] = [("operand", k, index) for k, o in enumerate(ins.operands)
                                       for index in o.shape.leaf_indices()]
        args += [("output", index) for index in ins.shape.leaf_indices()]
        args.append(("address", self.args[len(args)]))
        return args

    @property
    def counter(self) -> np.ndarray:
        """Kernel calls of the last run (the first 8 bytes of the scratch)."""
        return self.scratch[:8].view(np.int64)

    def may_share(self, operand: int, index: tuple[int, ...]) -> bool:
        """A while's result leaf may be its operand's same leaf (XLA's loop state)."""
        return self.ins.opcode is Opcode.WHILE and operand == 0

    def accepts(self, values: list[Any]) -> bool:
        return len(values) == len(self.in_specs) and all(
            isinstance(v, np.ndarray | np.generic) and np.shape(v) == tuple(dims)
            for v, (dims, _) in zip(values, self.in_specs, strict=True))

    def __call__(self, values: list[Any]) -> Any:
        keep = [np.ascontiguousarray(v, dtype=dtype)
                for v, (_, dtype) in zip(values, self.in_specs, strict=True)]
        outs = [np.empty(dims, dtype) for dims, dtype in self.out_specs]
        for k, a in enumerate([*keep, *outs]):
            self.args[k] = a.ctypes.data
        self.fn(self.args)
        self.executions = int(self.scratch[:8].view(np.int64)[0])
        return _nest(self.shape, iter(outs))
