"""Layout assignment (XLA's LayoutAssignment as CpuLayoutAssignment runs it).

Every array gets XLA's default row-major layout (minor-to-major `{rank-1,...,0}`), which
is also what XLA:CPU's dot emitter wants for dot operands and results. Layout changes
become explicit, as in XLA's output:

- a transpose becomes a `bitcast` to the operand's layout permuted (free: the bytes do
  not move) followed by a `copy` to row-major (where the bytes do move); when the
  permutation only moves size-1 dimensions the bitcast alone is enough;
- a reshape between row-major arrays is a `bitcast` (what XLA's layout-sensitive
  AlgebraicSimplifier does right after layout assignment);
- an existing bitcast keeps the physical meaning it had: if its operand's layout
  changed, a `copy` back to the old layout is put in front of it;
- an operand whose layout the user cannot take (only copies, bitcasts and fusions
  accept any layout) is copied to row-major first, and so is a non-row-major root.

The entry computation layout becomes the entry's parameter and result shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import EntryLayout, Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Layout, Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import Builder, NameTable, inverse_permutation

O = Opcode


def default_layouts(shape: Shape) -> Shape:
    """`shape` with every array leaf in row-major order (tokens and tuples kept)."""
    return shape.with_default_layouts()


def has_default_layouts(shape: Shape) -> bool:
    return shape == default_layouts(shape)


def transpose_layout(operand: Shape, perm: tuple[int, ...]) -> Layout:
    """The layout that makes `transpose(operand, perm)` a bitcast (XLA's
    ShapeUtil::PermuteDimensions applied to the layout)."""
    layout = operand.layout or Layout.default_for_rank(operand.rank)
    inverse = inverse_permutation(perm)
    return Layout(tuple(inverse[d] for d in layout.minor_to_major))


def physically_equal(shape: Shape, a: Layout, b: Layout) -> bool:
    """Do two layouts order the non-degenerate dimensions of `shape` the same way?"""

    def order(layout: Layout) -> list[int]:
        return [d for d in layout.minor_to_major if shape.dimensions[d] != 1]

    return order(a) == order(b)


@dataclass(frozen=True)
class LayoutAssignmentPass(Pass):
    """Choose row-major layouts everywhere; transposes become bitcast + copy, reshapes
    become bitcasts, and copies go where a layout must change (XLA's LayoutAssignment
    with CpuLayoutAssignment's row-major dot constraints)."""

    name: ClassVar[str] = "layout-assignment"
    summary: ClassVar[str] = "row-major layouts; transposes to bitcast+copy, reshapes to bitcasts"
    xla: ClassVar[str] = "LayoutAssignment (CpuLayoutAssignment)"

    def run(self, module: Module) -> bool:
        assigner = _Assigner(
            module,
            NameTable(module),
            {id(i): i.shape for c in module.computations for i in c.instructions},
        )
        # Callers before callees: a fused computation's parameters take the layouts its
        # fusion's operands ended up with.
        for comp in reversed(module.computation_post_order()):
            assigner.computation(comp)
        return assigner.finish()


@dataclass
class _Assigner:
    module: Module
    names: NameTable
    #: Every instruction's shape before the pass (bitcasts keep meaning these).
    original: dict[int, Shape]
    changed: bool = False
    fusion_callers: dict[int, Instruction] = field(default_factory=dict)

    def computation(self, comp: Computation) -> None:
        for ins in list(comp.instructions):
            self.instruction(ins)
        assert comp.root is not None
        if not has_default_layouts(comp.root.shape) and comp.root.shape.is_array:
            root = comp.root
            copy = self._copy_after(root, default_layouts(root.shape))
            comp.root = copy

    def instruction(self, ins: Instruction) -> None:
        op = ins.opcode
        if op is O.PARAMETER:
            self._set_shape(ins, self._parameter_shape(ins))
        elif op is O.BITCAST:
            self._require(ins, 0, self.original[id(ins.operand(0))])
        elif op is O.COPY:
            pass
        elif op is O.FUSION:
            self._set_shape(ins, default_layouts(ins.shape))
        elif op is O.TRANSPOSE and not ins.shape.is_dynamic:
            self._require(ins, 0, default_layouts(ins.operand(0).shape))
            self._transpose(ins)
        elif op is O.RESHAPE and not ins.shape.is_dynamic and not ins.operand(0).shape.is_dynamic:
            self._require(ins, 0, default_layouts(ins.operand(0).shape))
            self._reshape(ins)
        else:
            self._generic(ins)

    def _parameter_shape(self, param: Instruction) -> Shape:
        comp = param.parent
        assert comp is not None
        caller = comp.fusion_instruction
        if caller is not None and caller.parent is not None:
            return caller.operand(param.parameter_number).shape
        return default_layouts(param.shape)

    def _generic(self, ins: Instruction) -> None:
        constraints = (
            ins.attrs.get("operand_layout_constraints") if ins.opcode is O.CUSTOM_CALL else None
        )
        for k, operand in enumerate(ins.operands):
            want = constraints[k] if constraints else default_layouts(operand.shape)
            self._require(ins, k, want)
        if ins.opcode is not O.CUSTOM_CALL:
            self._set_shape(ins, default_layouts(ins.shape))

    def _transpose(self, ins: Instruction) -> None:
        operand = ins.operand(0)
        layout = transpose_layout(operand.shape, tuple(ins.attrs["dimensions"]))
        target = default_layouts(ins.shape)
        assert target.layout is not None
        b = Builder.before(ins, self.names)
        if physically_equal(ins.shape, layout, target.layout):
            replacement = b.add(O.BITCAST, [operand], shape=target, name="bitcast")
        else:
            cast = b.add(O.BITCAST, [operand], shape=target.with_layout(layout), name="bitcast")
            replacement = b.add(O.COPY, [cast], shape=target, name="copy")
        self._replace(ins, replacement)

    def _reshape(self, ins: Instruction) -> None:
        b = Builder.before(ins, self.names)
        self._replace(
            ins,
            b.add(O.BITCAST, [ins.operand(0)], shape=default_layouts(ins.shape), name="bitcast"),
        )

    def _require(self, ins: Instruction, k: int, want: Shape) -> None:
        """Make operand `k` of `ins` have `want`'s layouts, through a copy if needed."""
        operand = ins.operand(k)
        if operand.shape == want or not operand.shape.is_array:
            return
        copy = Builder.before(ins, self.names).add(O.COPY, [operand], shape=want, name="copy")
        ins.replace_operand(k, copy)
        self.changed = True

    def _set_shape(self, ins: Instruction, shape: Shape) -> None:
        if ins.shape != shape:
            ins.shape = shape
            self.changed = True

    def _replace(self, old: Instruction, new: Instruction) -> None:
        # Bitcasts of `new` must keep the meaning they had as bitcasts of `old`.
        self.original[id(new)] = self.original[id(old)]
        old.replace_all_uses_with(new)
        assert old.parent is not None
        old.parent.remove_instruction(old)
        self.changed = True

    def _copy_after(self, ins: Instruction, shape: Shape) -> Instruction:
        comp = ins.parent
        assert comp is not None
        copy = Instruction(self.names.fresh("copy"), O.COPY, shape, metadata=ins.metadata)
        copy.set_operands([ins])
        comp.insert_after(copy, ins)
        self.changed = True
        return copy

    def finish(self) -> bool:
        entry = self.module.entry
        assert entry.root is not None
        layout = EntryLayout(tuple(p.shape for p in entry.parameters), entry.root.shape)
        if self.module.entry_computation_layout != layout:
            self.module.entry_computation_layout = layout
            self.changed = True
        return self.changed
