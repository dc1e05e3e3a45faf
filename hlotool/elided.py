"""Elided constants: `constant({...})`, whose values the dump left out.

XLA prints large constants as `{...}` unless `--xla_dump_large_constants` is set (XLA:CPU's
and TensorFlow's optimized dumps do; so does jax 0.12's pre-optimization text for some
helpers). hlotool parses, prints and draws such modules, but refuses to run one that reads
an elided constant: any values it made up would give wrong results without a warning.
"""

from __future__ import annotations

from hlotool.diagnostics import HloError
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.opcodes import Opcode

#: How to get the values back, appended to every refusal.
HOW_TO_GET_VALUES = (
    "the dump left out the values. Dump again with XLA_FLAGS=--xla_dump_large_constants "
    "(JAX, TensorFlow and PyTorch/XLA all read XLA_FLAGS), or run the pre-optimization text "
    "(*.before_optimizations.txt) or the StableHLO of the same dump, which keep them"
)


class ElidedConstantError(HloError):
    """A run needs the values of a constant printed as `{...}` (exit status 2)."""


def is_elided(ins: Instruction) -> bool:
    """Whether `ins` is a constant whose values were elided (tuples: any element)."""
    if ins.opcode is not Opcode.CONSTANT or ins.literal is None:
        return False
    stack = [ins.literal]
    while stack:
        lit = stack.pop()
        if lit.elided:
            return True
        stack.extend(lit.elements)
    return False


def is_read_elided(ins: Instruction) -> bool:
    """Whether `ins` is an elided constant that something reads (a user, or its
    computation's result)."""
    return is_elided(ins) and bool(ins.users or (ins.parent is not None
                                                 and ins.parent.root is ins))


def elided_reads(module: Module) -> list[Instruction]:
    """The elided constants of `module` that something reads."""
    return [i for c in module.computations for i in c.instructions if is_read_elided(i)]


def elided_error(read: list[Instruction]) -> ElidedConstantError:
    """The refusal for the elided constants `read` (positioned at the first)."""
    first = read[0]
    names = ", ".join(i.name for i in read[:5]) + (f" and {len(read) - 5} more"
                                                   if len(read) > 5 else "")
    what = (f"constant {first.name} ({first.shape}) is elided (`{{...}}`)" if len(read) == 1
            else f"{len(read)} constants are elided (`{{...}}`): {names}")
    err = ElidedConstantError(f"cannot run: {what}: {HOW_TO_GET_VALUES}")
    if first.location[0]:
        err.line, err.column = first.location
        err.width = max(1, len(first.name))
    return err


def refuse_elided_reads(module: Module) -> None:
    """Raise ElidedConstantError when running `module` would read an elided constant."""
    read = elided_reads(module)
    if read:
        raise elided_error(read)
