"""rng-bit-generator with the Philox algorithm (`rng_default` and `rng_philox`; XLA:CPU's
default, which PyTorch/XLA's random ops lower to) as a native kernel.

It computes exactly what the interpreter's port of XLA's expander computes
(hlotool/interpreter/kernels/rng.py): the state is a u64 vector whose element 0 is the
key and whose elements 1..2 (3-element state) or 1 then 0 (2-element state) form a
128-bit counter; block b hashes counter + b with Philox-4x32 (10 rounds) into four u32
words, which fill the output in order (two per element for 64-bit outputs; narrower
outputs keep the low bits of a word); the new state advances the counter by the number
of blocks. The blocks are independent, so the block loop is split across the cores and
widened by the loop vectorizer (u32 multiplies into u64).

Threefry stays on the interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llvmlite import ir

from hlotool.ir.instruction import Instruction
from hlotool.ir.types import PrimitiveType
from hlotool.targets.llvm import irutils as u
from hlotool.targets.cpu.kernels import parallel
from hlotool.targets.cpu.kernels.reduce import Result

P = PrimitiveType
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_ROUNDS = 10


@dataclass(slots=True)
class RngPlan:
    """A Philox rng-bit-generator: entry buffers (state, new state, bits)."""

    name: str
    roots: list[Instruction]
    inputs: list[Instruction]
    constants: tuple[()] = ()

    @property
    def rng(self) -> Instruction:
        return self.roots[0]

    def emit(self, module: ir.Module, symbol: str, *, x86: bool) -> None:
        emit_philox(module, symbol, self.rng, x86)

    def make_thunk(self, ins: Instruction, library: Any, symbol: str) -> Any:
        """A `runtime.Thunk` writing both results of the tuple."""
        from hlotool.targets.cpu.runtime import Thunk

        view = RngPlan(self.name, [Result(s) for s in self.rng.shape.tuple_shapes],  # type: ignore[misc]
                       self.inputs)
        return Thunk(ins, view, library, symbol)  # type: ignore[arg-type]


def plan_rng(ins: Instruction, name: str) -> tuple[RngPlan | None, str]:
    """A RngPlan for a Philox rng-bit-generator, or (None, why not)."""
    if ins.attrs.get("algorithm", "rng_default") == "rng_three_fry":
        return None, "Threefry rng-bit-generator"
    state = ins.operand(0).shape
    if not state.is_array or state.element_type.bits != 64 or state.rank != 1 or \
            state.dimensions[0] not in (2, 3):
        return None, f"rng-bit-generator state {state}"
    bits = ins.shape.tuple_shapes[1].element_type
    if bits.bits not in (8, 16, 32, 64) or bits is P.PRED or bits.is_complex:
        return None, f"rng-bit-generator of {bits.value}"
    return RngPlan(name, [ins], [ins.operand(0)]), ""


def _blocks(ins: Instruction) -> tuple[int, int, int]:
    """(output elements, u32 words they take, Philox blocks)."""
    out = ins.shape.tuple_shapes[1]
    n = out.element_count
    words = 2 * n if out.element_type.bits == 64 else n
    return n, words, -(-words // 4)


def emit_philox(module: ir.Module, symbol: str, ins: Instruction, x86: bool) -> None:
    """`void symbol(void **(state, new state, bits))`: blocks split across threads; the
    part that starts at block 0 writes the new state."""
    out = ins.shape.tuple_shapes[1]
    n, _, blocks = _blocks(ins)
    three = ins.operand(0).shape.dimensions[0] == 3
    fn = parallel.body_function(module, symbol, 3)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    state, new_state, bits, begin, end = fn.args
    words = [b.load(b.gep(state, [u.i64(k)], source_etype=u.I64), typ=u.I64)
             for k in range(3 if three else 2)]
    key = words[0]
    low0, high0 = (words[1], words[2]) if three else (words[1], words[0])
    with b.if_then(b.icmp_unsigned("==", begin, u.i64(0))):
        low = b.add(low0, u.i64(blocks))
        high = b.add(high0, b.zext(b.icmp_unsigned("<", low, low0), u.I64))
        for k, v in enumerate([key, low, high] if three else [key, low]):
            b.store(v, b.gep(new_state, [u.i64(k)], source_etype=u.I64))
    k0, k1 = _split(b, key)
    full = n // (2 if out.element_type.bits == 64 else 4)  # blocks whose outputs all exist
    with u.for_range(b, b.sub(end, begin), name="blk") as i:
        block = b.add(begin, i)
        low = b.add(low0, block)
        high = b.add(high0, b.zext(b.icmp_unsigned("<", low, low0), u.I64))
        x = _philox(b, (*_split(b, low), *_split(b, high)), k0, k1)
        _store(b, out.element_type, bits, block, x, n, full)
    b.ret_void()
    parallel.emit_entry(module, symbol, fn, x86, blocks,
                        parallel.max_parts(blocks, blocks * 16 * _ROUNDS))


def _split(b: ir.IRBuilder, v: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(low, high) u32 words of a u64."""
    return b.trunc(v, u.I32), b.trunc(b.lshr(v, u.i64(32)), u.I32)


def _philox(b: ir.IRBuilder, x: tuple[ir.Value, ...], k0: ir.Value,
            k1: ir.Value) -> tuple[ir.Value, ...]:
    """Philox-4x32, 10 rounds."""
    m0, m1 = (ir.Constant(u.I64, m) for m in _PHILOX_M)
    for r in range(_ROUNDS):
        if r:
            k0 = b.add(k0, ir.Constant(u.I32, _PHILOX_W[0]))
            k1 = b.add(k1, ir.Constant(u.I32, _PHILOX_W[1]))
        lo0, hi0 = _split(b, b.mul(b.zext(x[0], u.I64), m0))
        lo1, hi1 = _split(b, b.mul(b.zext(x[2], u.I64), m1))
        x = (b.xor(b.xor(hi1, x[1]), k0), lo1, b.xor(b.xor(hi0, x[3]), k1), lo0)
    return x


def _store(b: ir.IRBuilder, t: PrimitiveType, bits: ir.Value, block: ir.Value,
           x: tuple[ir.Value, ...], n: int, full: int) -> None:
    """The block's outputs: four words (or two 64-bit pairs), those past n left out."""
    if t.bits == 64:
        values = [b.or_(b.zext(x[0], u.I64), b.shl(b.zext(x[1], u.I64), u.i64(32))),
                  b.or_(b.zext(x[2], u.I64), b.shl(b.zext(x[3], u.I64), u.i64(32)))]
    else:
        ty = ir.IntType(t.bits)
        values = [v if t.bits == 32 else b.trunc(v, ty) for v in x]
    ty = values[0].type
    per = len(values)
    whole = b.icmp_unsigned("<", block, u.i64(full))
    with b.if_else(whole) as (then, otherwise):
        with then:
            for j, v in enumerate(values):
                at = b.add(b.mul(block, u.i64(per)), u.i64(j))
                b.store(v, b.gep(bits, [at], source_etype=ty))
        with otherwise:
            for j, v in enumerate(values):
                at = b.add(b.mul(block, u.i64(per)), u.i64(j))
                with b.if_then(b.icmp_unsigned("<", at, u.i64(n))):
                    b.store(v, b.gep(bits, [at], source_etype=ty))
