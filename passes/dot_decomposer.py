"""Dot canonicalization: every dot becomes `[batch, M, K] x [batch, K, N]`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import Builder, NameTable, non_fusion_computations, replace_instruction

O = Opcode


@dataclass(frozen=True)
class DotDecomposerPass(Pass):
    """XLA's DotDecomposer: rewrite every non-canonical dot into canonical form with
    transposes and reshapes. Canonical (XLA's `IsNonCanonicalDot` negated): batch
    dimensions are the leading dimensions in order, there is exactly one contracting
    dimension and at most one non-contracting dimension per operand.

    The lhs is transposed to [batch, free, contracting] and reshaped to
    [batch, M, K]; the rhs to [batch, contracting, free] and [batch, K, N]; M and N are
    left out when they are 1. The new dot's result is reshaped to the original shape.
    Only data movement is added, and the contraction sums the same products.
    """

    name = "dot-decomposer"
    summary = "canonicalize dots to [batch, M, K] x [batch, K, N]"
    xla = "DotDecomposer"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode is O.DOT and not is_canonical_dot(ins) and not ins.shape.is_dynamic:
                    replace_instruction(ins, canonicalize_dot(ins, names))
                    changed = True
        return changed


def _dims(ins: Instruction, key: str) -> tuple[int, ...]:
    return tuple(ins.attrs.get(key) or ())


def is_canonical_dot(dot: Instruction) -> bool:
    """XLA's canonical dot form (see the pass)."""
    lhs, rhs = dot.operands
    lb, rb = _dims(dot, "lhs_batch_dims"), _dims(dot, "rhs_batch_dims")
    nb = len(lb)
    if len(_dims(dot, "lhs_contracting_dims")) != 1:
        return False
    if nb + 2 < lhs.shape.rank or nb + 2 < rhs.shape.rank:
        return False
    return lb == tuple(range(nb)) and rb == tuple(range(nb))


def canonicalize_dot(dot: Instruction, names: NameTable) -> Instruction:
    """Build the canonical dot before `dot`; returns the reshape standing for its value."""
    b = Builder.before(dot, names)
    lhs, rhs = dot.operands
    lb, lc = _dims(dot, "lhs_batch_dims"), _dims(dot, "lhs_contracting_dims")
    rb, rc = _dims(dot, "rhs_batch_dims"), _dims(dot, "rhs_contracting_dims")
    batch = [lhs.shape.dimensions[d] for d in lb]
    lfree = [d for d in range(lhs.shape.rank) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.shape.rank) if d not in rb and d not in rc]
    m = math.prod(lhs.shape.dimensions[d] for d in lfree)
    n = math.prod(rhs.shape.dimensions[d] for d in rfree)
    k = math.prod(lhs.shape.dimensions[d] for d in lc)
    mdim, ndim = ([m] if m != 1 else []), ([n] if n != 1 else [])
    new_lhs = b.reshape(b.transpose(lhs, [*lb, *lfree, *lc]), [*batch, *mdim, k])
    new_rhs = b.reshape(b.transpose(rhs, [*rb, *rc, *rfree]), [*batch, k, *ndim])
    nb = len(batch)
    attrs = {key: v for key, v in dot.attrs.items() if not key.endswith("_dims")}
    if nb:
        attrs.update(lhs_batch_dims=tuple(range(nb)), rhs_batch_dims=tuple(range(nb)))
    attrs.update(lhs_contracting_dims=(nb + len(mdim),), rhs_contracting_dims=(nb,))
    shape = Shape.array(dot.shape.element_type, [*batch, *mdim, *ndim])
    new_dot = b.add(O.DOT, [new_lhs, new_rhs], attrs, shape)
    out = b.reshape(new_dot, dot.shape.dimensions)
    out.shape = dot.shape  # keep the original layout
    return out
