"""Structural keys of kernel plans, so that identical kernels are emitted once.

A deep network repeats its layers: a 16k-instruction training step plans thousands of
loop kernels that are a few dozen distinct functions. `build_llvm_module` used to emit
each one and compare the IR text; a key found before emitting spares that work (most of
a cold compile). Two plans with the same key emit the same IR, because the key holds
everything the loop emitter reads: the tuning choices, the sources' shapes, layouts and
opcodes in argument order, and for every instruction between them and the roots its opcode,
shape, attributes, literal, operand wiring and whether it is a product contracted into
its user (`is_fusable_product`), the structure of the computations it calls, and for a
reduce whether its init value is idempotent (read through the fusion instruction).
Names and metadata are left out: they do not reach the code. The key covers loop, row
and reduce plans, and BLAS dots (by their BLAS form); other kinds are emitted as before
(their text is still compared).
tests/targets/test_cpu_kernel_key.py checks keys against the emitted IR.
"""

from __future__ import annotations

from typing import Any

from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode as O
from hlotool.ir.structure import computation_key
from hlotool.ir.types import shape_to_text
from hlotool.targets.cpu.kernels.dot import DotPlan
from hlotool.targets.cpu.kernels.loop import LoopPlan
from hlotool.targets.cpu.kernels.reduce import ReducePlan, init_idempotent, reducer_op
from hlotool.targets.cpu.kernels.row import RowPlan
from hlotool.targets.llvm.elemental import is_fusable_product

#: Walks longer than this give no key (a plan is a fusion's body, not a whole program).
MAX_WALK = 20_000


def kernel_key(plan: Any) -> str | None:
    """A key equal for plans that emit the same function, or None (no shortcut)."""
    kind = type(plan)
    if kind is DotPlan:
        return _dot_key(plan)
    if kind not in (LoopPlan, RowPlan, ReducePlan):
        return None
    sources = plan.inputs + [c for c, _ in plan.constants]
    index = {id(s): n for n, s in enumerate(sources)}
    parts = [kind.__name__, repr(sorted(plan.tune.items())), *map(_source_key, sources)]
    # A row kernel computes every reduce of its fusion, also one its root does not read.
    ends = [*plan.roots, *plan.scratch] if kind is RowPlan else plan.roots
    for ins in _between(ends, index):
        if len(index) > MAX_WALK:
            return None
        parts.append(_instruction_key(ins, index))
        index[id(ins)] = len(index)
    parts.append(repr([index[id(r)] for r in plan.roots]))
    if kind is RowPlan:
        parts.append(f"{plan.kept}|{[index[id(r)] for r in plan.scratch]}")
    return "\n".join(parts)


def _dot_key(plan: DotPlan) -> str | None:
    """A BLAS dot's kernel is its BLAS form (`blas.plan_blas_dot`, a frozen dataclass
    holding every number `emit_blas_dot` reads): the form is the key."""
    dot = plan.blas_dot
    return None if dot is None else f"DotPlan\n{dot!r}"


def _between(roots: list[Instruction], stop: dict[int, int]) -> list[Instruction]:
    """The instructions from the sources (`stop`) up to the roots, operands first."""
    order: list[Instruction] = []
    seen = set(stop)
    for root in roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if i < len(node.operands):
                stack.append((node, i + 1))
                d = node.operands[i]
                if id(d) not in seen:
                    seen.add(id(d))
                    stack.append((d, 0))
            else:
                order.append(node)
    return order


def _source_key(source: Instruction) -> str:
    """A source's shape and what the emitter sees of it: its opcode and, through a
    broadcast, its operand's (a divide by a broadcast constant becomes a multiply)."""
    seen = source.operand(0).opcode.value if source.opcode is O.BROADCAST else ""
    return f"{shape_to_text(source.shape)}|{source.opcode.value}|{seen}"


def _instruction_key(ins: Instruction, index: dict[int, int]) -> str:
    literal = ins.literal.fingerprint().hex() if ins.literal is not None else ""
    callees = {id(c) for c in ins.called_computations}
    attrs = sorted((k, repr(v)) for k, v in ins.attrs.items() if id(v) not in callees)
    seen = "fma" if is_fusable_product(ins) else ""
    if ins.opcode is O.REDUCE:  # reads its init's value through the fusion
        seen = f"idempotent={reducer_op(ins) is not None and init_idempotent(ins)}"
    return "|".join((ins.opcode.value, shape_to_text(ins.shape), repr(attrs), literal,
                     repr([index[id(o)] for o in ins.operands]), str(ins.parameter_number),
                     *map(computation_key, ins.called_computations), seen))
