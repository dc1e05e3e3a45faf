"""Batch-norm expansion: batch-norm-training/-inference/-grad into elementwise ops and
reductions."""

from __future__ import annotations

from dataclasses import dataclass

from hlotool.ir.computation import Computation
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import Shape
from hlotool.passes.base import Pass
from hlotool.passes.utils import (
    Builder,
    NameTable,
    non_fusion_computations,
    replace_instruction,
    scalar_computation,
)

O = Opcode


@dataclass(frozen=True)
class BatchNormExpanderPass(Pass):
    """XLA's BatchNormExpander, with XLA's formulas (N = elements per feature)::

        training:  mean = sum(x) / N,  var = sum(x * x) / N - mean * mean,
                   y = (x - mean) * rsqrt(var + eps) * scale + offset
        inference: s = scale * rsqrt(var + eps),  y = x * s + (offset - mean * s)
        grad:      r = rsqrt(var + eps),  c = x - mean,
                   grad_offset = sum(dy),  grad_scale = sum(dy * c) * r,
                   grad_x = scale * r / N * (N * dy - sum(dy) - c * sum(dy * c) / (var + eps))

    Each `rewrite-*` option turns one op kind on or off (XLA's `rewrite_training_op`,
    `rewrite_inference_op`, `rewrite_grad_op`). Dynamic shapes are left alone.
    """

    name = "batchnorm-expander"
    summary = "expand batch-norm ops into arithmetic and reductions"
    xla = "BatchNormExpander"
    rewrite_training: bool = True
    rewrite_inference: bool = True
    rewrite_grad: bool = True

    def run(self, module: Module) -> bool:
        names = NameTable(module)
        expanders = {O.BATCH_NORM_TRAINING: (self.rewrite_training, _expand_training),
                     O.BATCH_NORM_INFERENCE: (self.rewrite_inference, _expand_inference),
                     O.BATCH_NORM_GRAD: (self.rewrite_grad, _expand_grad)}
        changed = False
        for comp in non_fusion_computations(module):
            for ins in list(comp.instructions):
                enabled, expand = expanders.get(ins.opcode, (False, None))
                if enabled and expand is not None and not ins.shape.is_dynamic:
                    new = expand(_Expansion.of(module, comp, ins, names))
                    new.shape = ins.shape  # same dims; keep the original layouts
                    replace_instruction(ins, new)
                    changed = True
        return changed


@dataclass
class _Expansion:
    """What every expansion needs: a builder, the operand shape and the feature dim."""

    b: Builder
    module: Module
    comp: Computation
    shape: Shape
    feature: int
    epsilon: float

    @staticmethod
    def of(module: Module, comp: Computation, ins: Instruction, names: NameTable) -> _Expansion:
        shape = ins.operand(0).shape
        return _Expansion(Builder.before(ins, names), module, comp, shape,
                          ins.attrs["feature_index"], ins.attrs["epsilon"])

    @property
    def feature_shape(self) -> Shape:
        return Shape.array(self.shape.element_type, (self.shape.dimensions[self.feature],))

    @property
    def count(self) -> int:
        """Elements per feature."""
        size = self.shape.dimensions[self.feature]
        return self.shape.element_count // size if size else 0

    def binary(self, opcode: Opcode, lhs: Instruction, rhs: Instruction) -> Instruction:
        return self.b.add(opcode, [lhs, rhs])

    def per_element(self, v: Instruction) -> Instruction:
        """A per-feature vector broadcast over the operand shape."""
        return self.b.broadcast(v, self.shape, (self.feature,))

    def splat(self, value: float, feature: bool = False) -> Instruction:
        return self.b.splat(value, self.feature_shape if feature else self.shape)

    def sum(self, x: Instruction) -> Instruction:
        """Sum over every dimension but the feature one."""
        et = self.shape.element_type
        adder = scalar_computation(self.module, self.b.names, O.ADD, et, before=self.comp)
        dims = tuple(d for d in range(self.shape.rank) if d != self.feature)
        return self.b.add(O.REDUCE, [x, self.b.scalar(0, et)],
                          {"dimensions": dims, "to_apply": adder})

    def rsqrt_var_eps(self, var: Instruction, feature: bool) -> Instruction:
        return self.b.add(O.RSQRT, [self.binary(O.ADD, var, self.splat(self.epsilon, feature))])


def _expand_training(e: _Expansion) -> Instruction:
    bn = e.b.anchor
    assert bn is not None
    x, scale, offset = bn.operands
    n = e.splat(e.count, feature=True)
    mean = e.binary(O.DIVIDE, e.sum(x), n)
    square_mean = e.binary(O.DIVIDE, e.sum(e.binary(O.MULTIPLY, x, x)), n)
    var = e.binary(O.SUBTRACT, square_mean, e.binary(O.MULTIPLY, mean, mean))
    centered = e.binary(O.SUBTRACT, x, e.per_element(mean))
    normalized = e.binary(O.MULTIPLY, centered, e.rsqrt_var_eps(e.per_element(var), False))
    scaled = e.binary(O.MULTIPLY, normalized, e.per_element(scale))
    out = e.binary(O.ADD, scaled, e.per_element(offset))
    return e.b.tuple([out, mean, var])


def _expand_inference(e: _Expansion) -> Instruction:
    bn = e.b.anchor
    assert bn is not None
    x, scale, offset, mean, var = bn.operands
    true_scale = e.binary(O.MULTIPLY, scale, e.rsqrt_var_eps(var, True))
    true_shift = e.binary(O.SUBTRACT, offset, e.binary(O.MULTIPLY, mean, true_scale))
    scaled = e.binary(O.MULTIPLY, x, e.per_element(true_scale))
    return e.binary(O.ADD, scaled, e.per_element(true_shift))


def _expand_grad(e: _Expansion) -> Instruction:
    bn = e.b.anchor
    assert bn is not None
    x, scale, mean, var, dy = bn.operands
    var_eps = e.binary(O.ADD, e.per_element(var), e.splat(e.epsilon))
    centered = e.binary(O.SUBTRACT, x, e.per_element(mean))
    sum_dy_c = e.sum(e.binary(O.MULTIPLY, dy, centered))
    grad_offset = e.sum(dy)
    grad_scale = e.binary(O.MULTIPLY, sum_dy_c, e.rsqrt_var_eps(var, True))
    i4 = e.binary(O.MULTIPLY, centered, e.per_element(sum_dy_c))
    i5 = e.binary(O.DIVIDE, i4, var_eps)
    i1 = e.binary(O.MULTIPLY, dy, e.splat(e.count))
    i6 = e.binary(O.SUBTRACT, e.binary(O.SUBTRACT, i1, e.per_element(grad_offset)), i5)
    factor = e.binary(O.MULTIPLY, e.per_element(scale), e.b.add(O.RSQRT, [var_eps]))
    factor = e.binary(O.DIVIDE, factor, e.splat(e.count))
    grad_x = e.binary(O.MULTIPLY, factor, i6)
    return e.b.tuple([grad_x, grad_scale, grad_offset])
