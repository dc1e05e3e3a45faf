"""Common subexpression elimination."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import OPS, AttrKind, Opcode
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    COMMUTATIVE_OPCODES,
    has_side_effect,
    non_fusion_computations,
    replace_instruction,
)

O = Opcode


#: Opcodes never merged: parameters are distinct inputs; tokens order side effects.
_NEVER_MERGED = frozenset({O.PARAMETER, O.AFTER_ALL})


@dataclass(frozen=True)
class CsePass(Pass):
    """XLA's HloCSE: instructions that compute the same thing from the same operands are
    merged into one (the first in post order); identical constants and iotas too (XLA's
    CombineConstants).

    "The same thing" is XLA's `Identical`: opcode, shape with layout, operands,
    attributes, sharding and called computations, the latter compared structurally (two
    reducers that add their parameters are equal even when they are two computations).
    Backend configs and frontend attributes must match too (custom-calls keep their
    options there). Side-effecting instructions, parameters and instructions with
    control edges are never merged. With `commutative`, `add(a, b)` and `add(b, a)` are
    merged as well (exact for IEEE arithmetic; XLA's HloCSE does not do this).
    """

    name = "cse"
    summary = "merge identical instructions (common subexpression elimination)"
    xla = "HloCSE"
    commutative: bool = False

    def run(self, module: Module) -> bool:
        keys = _Keys()
        changed = False
        for comp in non_fusion_computations(module):
            changed |= self._run_on(comp, keys)
        return changed

    def _run_on(self, comp: Computation, keys: _Keys) -> bool:
        seen: dict[Any, Instruction] = {}
        changed = False
        for ins in comp.post_order():
            if not _is_candidate(ins):
                continue
            key = keys.instruction(ins, self.commutative)
            first = seen.setdefault(key, ins)
            if first is not ins:
                replace_instruction(ins, first)
                changed = True
        return changed


def _is_candidate(ins: Instruction) -> bool:
    return (ins.opcode not in _NEVER_MERGED and not ins.control_predecessors
            and not ins.control_successors and not has_side_effect(ins))


@dataclass
class _Keys:
    """Hashable structural keys of instructions and computations (memoized per run)."""

    computations: dict[int, Any] = field(default_factory=dict)

    def instruction(self, ins: Instruction, commutative: bool = False) -> Any:
        operands: tuple[int, ...] = tuple(id(o) for o in ins.operands)
        if commutative and ins.opcode in COMMUTATIVE_OPCODES:
            operands = tuple(sorted(operands))
        return (ins.opcode, ins.shape, operands, self._attrs(ins), ins.parameter_number,
                _literal_key(ins),
                ins.sharding, ins.async_wrapped, ins.backend_config,
                tuple(sorted(ins.frontend_attributes.items())))

    def _attrs(self, ins: Instruction) -> tuple[Any, ...]:
        out: list[Any] = []
        for spec in OPS[ins.opcode].attrs:
            if spec.key not in ins.attrs:
                continue
            v = ins.attrs[spec.key]
            if spec.kind is AttrKind.COMPUTATION:
                v = self.computation(v)
            elif spec.kind is AttrKind.COMPUTATIONS:
                v = tuple(self.computation(c) for c in v)
            out.append((spec.key, v))
        return tuple(out)

    def computation(self, comp: Computation) -> Any:
        """Structure of a computation: its instructions with operands as list positions."""
        key = self.computations.get(id(comp))
        if key is None:
            index = {id(i): n for n, i in enumerate(comp.instructions)}
            parts = []
            for ins in comp.instructions:
                parts.append((ins.opcode, ins.shape, tuple(index[id(o)] for o in ins.operands),
                              self._attrs(ins), ins.parameter_number,
                              _literal_key(ins)))
            assert comp.root is not None
            key = (tuple(parts), index[id(comp.root)], comp.is_fusion_computation)
            self.computations[id(comp)] = key
        return key


def _literal_key(ins: Instruction) -> Any:
    """A constant's value as a key; elided constants (`{...}`) are unknown, so never equal."""
    if ins.literal is None:
        return None
    if ins.literal.elided:
        return ("elided", id(ins))
    return ins.literal.fingerprint()
