"""TopK decomposition: `topk` becomes a stable sort of (values, iota) and two slices."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.attributes import SliceRange
from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType, Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    NameTable,
    infer_shape,
    non_fusion_computations,
    replace_instruction,
)

O = Opcode
P = PrimitiveType


@dataclass(frozen=True)
class TopkDecomposerPass(Pass):
    """XLA's TopkDecomposer, for targets without a TopK kernel.

    `topk(x), k=K, largest=L` along the last dimension becomes::

        iota    = s32[...] iota(), iota_dimension=last
        sort    = (T[...], s32[...]) sort(x, iota), dimensions={last}, is_stable=true,
                  to_apply=compare(p0, p1), direction=GT (LT when not L), type=TOTALORDER
        values  = slice(gte(sort, 0)) to the first K;  indices likewise
        ROOT      tuple(values, indices)

    Floats compare in total order and the sort is stable, which is exactly topk's
    contract: largest first (NaN above +inf), ties broken by the lower index.
    """

    name = "topk-decomposer"
    summary = "rewrite topk as sort + slice"
    xla = "TopkDecomposer"

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                if ins.opcode is O.TOPK and not ins.shape.is_dynamic:
                    replace_instruction(ins, decompose_topk(module, comp, ins, names))
                    changed = True
        return changed


def decompose_topk(module: Module, comp: Computation, topk: Instruction,
                   names: NameTable) -> Instruction:
    """Build sort + slices before `topk`; returns the tuple standing for its value."""
    b = Builder.before(topk, names)
    x = topk.operand(0)
    dims = x.shape.dimensions
    last = len(dims) - 1
    index_shape = Shape.array(P.S32, dims)
    iota = b.add(O.IOTA, [], {"iota_dimension": last}, index_shape)
    largest = topk.attrs.get("largest", True) is not False
    comparator = _comparator(module, comp, names, x.shape.element_type, largest)
    sort = b.add(O.SORT, [x, iota], {"dimensions": (last,), "is_stable": True,
                                     "to_apply": comparator})
    k = topk.attrs["k"]
    ranges = tuple(SliceRange(0, n if i < last else k) for i, n in enumerate(dims))
    parts = []
    for index, shape in enumerate(topk.shape.tuple_shapes):
        part = b.gte(sort, index)
        parts.append(b.add(O.SLICE, [part], {"slice": ranges}, shape))
    result = b.tuple(parts)
    result.shape = topk.shape
    return result


def _comparator(module: Module, before: Computation, names: NameTable,
                element_type: PrimitiveType, largest: bool) -> Computation:
    """`(a, b, i, j) -> a > b` (or `<`), in total order for floats."""
    comp = Computation(names.fresh("compare-greater-than" if largest else "compare-less-than"))
    scalar = Shape.scalar(element_type)
    shapes = (scalar, scalar, Shape.scalar(P.S32), Shape.scalar(P.S32))
    params = [Instruction(names.fresh(f"p.{i // 2}.{'rhs' if i % 2 else 'lhs'}"), O.PARAMETER,
                          s, parameter_number=i) for i, s in enumerate(shapes)]
    for p in params:
        comp.add_instruction(p)
    attrs: dict[str, object] = {"direction": "GT" if largest else "LT"}
    if element_type.is_float:
        attrs["type"] = "TOTALORDER"
    operands = params[:2]
    root = Instruction(names.fresh("compare"), O.COMPARE, infer_shape(O.COMPARE, operands, attrs),
                       attrs=attrs)
    root.set_operands(operands)
    comp.add_instruction(root)
    comp.root = root
    module.add_computation(comp, before=before)
    return comp
