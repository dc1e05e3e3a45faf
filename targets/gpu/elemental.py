"""The GPU's elemental emitter: the shared one plus dynamic-update-slice and convolution
computed per output element, so that they become (parts of) loop kernels.

* dynamic-update-slice: out[i] = update[i - s] inside the update window, else
  operand[i], with s the start indices clamped to [0, dim - update dim] (XLA's
  semantics; XLA:GPU updates in place, here the kernel writes the whole output);
* convolution: a direct convolution, one output element per thread: the sum over the
  window cells (row-major, padding and dilation holes skipped) and, inside, the input
  features of the output's group, of lhs * rhs in the compute type (f32 for f32/f16/bf16,
  f64, i64 for integers), with `fma` for floats; batch and feature groups as XLA's.
  Rounded to the result type once. (An implicit GEMM through shared memory would be
  faster on a device; this is the simple correct kernel.)
"""

from __future__ import annotations

from llvmlite import ir

from hlotool.ir.attributes import WindowDimension
from hlotool.ir.instruction import Instruction
from hlotool.ir.opcodes import Opcode
from hlotool.ir.types import PrimitiveType
from hlotool.targets.llvm import irutils as u
from hlotool.targets.llvm.elemental import ElementalEmitter, Index, unsupported_reason
from hlotool.targets.llvm.indexing import clamp, loop_nest, start_values, starts_ok, window_element

O = Opcode
P = PrimitiveType
_CONV_TYPES = {P.F32, P.F64, P.F16, P.BF16, P.S8, P.S16, P.S32, P.S64, P.U8, P.U16, P.U32, P.U64}


def gpu_unsupported_reason(ins: Instruction) -> str | None:
    """Why the GPU emitter cannot compute `ins` elementally, or None."""
    if ins.opcode is O.DYNAMIC_UPDATE_SLICE:
        shapes = [ins.shape, *(o.shape for o in ins.operands)]
        if any(not s.is_array or s.is_dynamic or s.element_type not in u.ELEMENTAL_TYPES
               for s in shapes):
            return "dynamic-update-slice shapes"
        ok = starts_ok(ins.operands[2:], ins.operand(0).shape.rank)
        return None if ok else "dynamic-update-slice start indices"
    if ins.opcode is O.CONVOLUTION:
        types = [ins.shape.element_type, *(o.shape.element_type for o in ins.operands)]
        if any(t not in _CONV_TYPES for t in types) or ins.operand_count != 2:
            return "convolution element types"
        if len({u.is_float(t) or u.is_narrow(t) for t in types}) != 1:
            return "convolution mixing floats and integers"
        return None
    return unsupported_reason(ins)


class GpuElementalEmitter(ElementalEmitter):
    """ElementalEmitter with dynamic-update-slice and convolution."""

    def _emit(self, ins: Instruction, index: Index) -> ir.Value:
        if id(ins) not in self.inputs:
            if ins.opcode is O.DYNAMIC_UPDATE_SLICE:
                return self._dynamic_update_slice(ins, index)
            if ins.opcode is O.CONVOLUTION:
                return self._convolution(ins, index)
        return super()._emit(ins, index)

    def _dynamic_update_slice(self, ins: Instruction, index: Index) -> ir.Value:
        b = self.b
        base, update = ins.operand(0), ins.operand(1)
        dims, sizes = base.shape.dimensions, update.shape.dimensions
        starts = start_values(self, ins.operands[2:], base.shape.rank)
        inside: ir.Value = ir.Constant(u.I1, 1)
        local = []
        for s, n, k, i in zip(starts, dims, sizes, index, strict=True):
            off = b.sub(i, clamp(b, s, 0, n - k))
            ok = b.and_(b.icmp_signed(">=", off, u.i64(0)), b.icmp_signed("<", off, u.i64(k)))
            inside = b.and_(inside, ok)
            local.append(b.select(ok, off, u.i64(0)))
        new = self.value(update, tuple(local))
        old = self.value(base, index)
        return b.select(inside, new, old)

    def _convolution(self, ins: Instruction, index: Index) -> ir.Value:
        b = self.b
        a = ins.attrs
        dn = a["dim_labels"]
        lhs, rhs = ins.operand(0), ins.operand(1)
        k = len(dn.input_spatial_dimensions)
        window = a.get("window")
        wdims = list(window.dimensions) if window is not None else [WindowDimension()] * k
        fg, bg = a.get("feature_group_count", 1), a.get("batch_group_count", 1)
        t_out = ins.shape.element_type
        t_in = lhs.shape.element_type
        acc_t = P.F64 if P.F64 in (t_out, t_in) else P.F32 if (u.is_float(t_in) or u.is_narrow(t_in)) else P.S64
        vty = u.value_type(acc_t)
        ld, rd = lhs.shape.dimensions, rhs.shape.dimensions
        n_in = ld[dn.input_batch_dimension]
        o_total = rd[dn.kernel_output_feature_dimension]
        cg = rd[dn.kernel_input_feature_dimension]
        groups = bg if bg > 1 else fg
        o_per = o_total // groups
        out_b = index[dn.output_batch_dimension]
        out_f = index[dn.output_feature_dimension]
        out_s = [index[d] for d in dn.output_spatial_dimensions]
        g = b.udiv(out_f, u.i64(o_per))
        batch = b.add(b.mul(g, u.i64(n_in // bg)), out_b) if bg > 1 else out_b
        c0 = u.i64(0) if bg > 1 else b.mul(g, u.i64(cg))
        with b.goto_block(b.function.entry_basic_block):
            acc = b.alloca(vty, name="conv.acc")
        b.store(ir.Constant(vty, 0.0 if u.is_float(acc_t) else 0), acc)
        in_spatial = [ld[d] for d in dn.input_spatial_dimensions]

        def cell(kk: Index) -> None:
            valid, at = window_element(b, wdims, tuple(out_s), kk, in_spatial)
            with b.if_then(valid):
                with u.for_range(b, cg, name="conv.c") as c:
                    li: list[ir.Value] = [u.i64(0)] * lhs.shape.rank
                    li[dn.input_batch_dimension] = batch
                    li[dn.input_feature_dimension] = b.add(c0, c)
                    for d, v in zip(dn.input_spatial_dimensions, at, strict=True):
                        li[d] = v
                    ri: list[ir.Value] = [u.i64(0)] * rhs.shape.rank
                    ri[dn.kernel_output_feature_dimension] = out_f
                    ri[dn.kernel_input_feature_dimension] = c
                    for j, (d, w) in enumerate(zip(dn.kernel_spatial_dimensions, wdims, strict=True)):
                        ri[d] = b.sub(u.i64(w.size - 1), kk[j]) if w.window_reversal else kk[j]
                    inner = GpuElementalEmitter(b, self.inputs)
                    x = inner.convert(inner.value(lhs, tuple(li)), t_in, acc_t)
                    y = inner.convert(inner.value(rhs, tuple(ri)), rhs.shape.element_type, acc_t)
                    old = b.load(acc, typ=vty)
                    if u.is_float(acc_t):
                        new = u.intrinsic(b, "llvm.fma", vty, [x, y, old])
                    else:
                        new = b.add(old, b.mul(x, y))
                    b.store(new, acc)

        loop_nest(b, [w.size for w in wdims], cell, name="conv.k")
        return self.convert(b.load(acc, typ=vty), acc_t, t_out)
