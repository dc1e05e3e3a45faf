"""Bounds checked before work starts: nesting depths and the memory a run needs.

* Depth: tuple shapes nest at most `MAX_SHAPE_DEPTH` deep and computations call each
  other at most `MAX_CALL_DEPTH` deep (calls, fusions, whiles, conditionals, to_apply).
  The verifier refuses deeper modules with a positioned error, so the recursive walks
  (printer, interpreter, passes), which run on a worker thread with a large stack
  (`hlotool.interrupt`), never overflow.
* Memory: `run` estimates what the module needs (entry parameters, constants and the
  simulated peak of its temporaries, on each of its replica_count x num_partitions devices)
  and refuses to start above `--max-memory` (default `HLOTOOL_MAX_MEMORY`, else 80% of
  physical memory). A front end refuses a single dense constant above that limit before
  allocating it; splats stay lazy (one element, `Literal.is_lazy_splat`) until a
  consumer needs their array.
"""

from __future__ import annotations

import os
import re

from hlotool.diagnostics import HloError
from hlotool.ir.instruction import Instruction
from hlotool.ir.module import Module
from hlotool.ir.depth import MAX_CALL_DEPTH, MAX_SHAPE_DEPTH  # noqa: F401 (re-exported)
from hlotool.ir.types import Shape

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes of a size such as `8G`, `512M`, `1.5g` or `1000000`; ValueError if malformed."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)i?b?\s*", text.lower())
    if m is None:
        raise ValueError(f"not a size: {text!r} (write e.g. 8G, 512M or a number of bytes)")
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def default_max_memory() -> int:
    """`HLOTOOL_MAX_MEMORY` if set, else 80% of the machine's physical memory."""
    setting = os.environ.get("HLOTOOL_MAX_MEMORY")
    if setting:
        return parse_size(setting)
    try:
        return int(0.8 * os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError):
        return 16 << 30


def human(n: int) -> str:
    """`n` bytes as a short text (37.3 GiB)."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    raise AssertionError("unreachable")


def shape_depth(shape: Shape) -> int:
    """How deep tuples nest in `shape` (an array is 0), without recursion."""
    depth, stack = 0, [(shape, 0)]
    while stack:
        s, d = stack.pop()
        if s.is_tuple:
            depth = max(depth, d + 1)
            stack.extend((t, d + 1) for t in s.tuple_shapes)
    return depth


def array_bytes(shape: Shape) -> int:
    """Bytes of every array leaf of `shape` (unknown `?` dims count as 1)."""
    total, stack = 0, [shape]
    while stack:
        s = stack.pop()
        if s.is_tuple:
            stack.extend(s.tuple_shapes)
        elif s.is_array:
            n = 1
            for d in s.dimensions:
                n *= max(d, 1)
            total += n * s.element_type.numpy_dtype.itemsize
    return total


def _error(ins: Instruction, message: str) -> HloError:
    line, col = ins.location
    return HloError(message, line, col, width=len(ins.name))


def check_depths(module: Module) -> None:
    """Raise a positioned HloError when shapes or calls nest beyond the limits."""
    depth_of: dict[int, int] = {}
    for comp in module.computation_post_order():
        deepest = 0
        for ins in comp.instructions:
            if shape_depth(ins.shape) > MAX_SHAPE_DEPTH:
                raise _error(ins, f"{ins.name}: tuple shapes nest more than {MAX_SHAPE_DEPTH} "
                             "deep")
            for callee in ins.called_computations:
                d = depth_of.get(id(callee), 0) + 1
                if d > MAX_CALL_DEPTH:
                    raise _error(ins, f"{ins.name}: computations call each other more than "
                                 f"{MAX_CALL_DEPTH} deep")
                deepest = max(deepest, d)
        depth_of[id(comp)] = deepest


def check_dimensions(ins: Instruction) -> None:
    """XLA's ShapeUtil::ValidateShape: a dimension is >= 0 or `?` (written -1)."""
    stack = [ins.shape]
    while stack:
        s = stack.pop()
        if s.is_tuple:
            stack.extend(s.tuple_shapes)
        elif any(d < -1 for d in s.dimensions):
            raise _error(ins, f"{ins.name}: shape {s} has a negative dimension "
                         "(a size is >= 0, or ? for an unbounded one)")


def check_static(module: Module) -> None:
    """Raise a positioned HloError at the first instruction with an unbounded (`?`)
    dimension: XLA compiles static shapes only (StableHLO's are specialized first)."""
    for comp in module.computations:
        for ins in comp.instructions:
            stack = [ins.shape]
            while stack:
                s = stack.pop()
                if s.is_tuple:
                    stack.extend(s.tuple_shapes)
                elif -1 in s.dimensions:
                    raise _error(ins, f"{ins.name}: shape {s} has an unbounded dimension (?); "
                                 "running needs static shapes (a StableHLO module is "
                                 "specialized to its --inputs)")


def check_constant_bytes(nbytes: int, limit: int | None = None) -> str | None:
    """Why a constant of `nbytes` is refused before it is allocated, or None."""
    limit = default_max_memory() if limit is None else limit
    if nbytes > limit:
        return (f"the constant needs {human(nbytes)}, more than the memory limit "
                f"{human(limit)} (HLOTOOL_MAX_MEMORY)")
    return None


PER_DEVICE_BYTES = 64 << 10
"""What each simulated device costs besides its values (its arguments' and results'
containers, its thread, its runner's state): measured at 20-50 KiB, counted as 64."""


def device_count(module: Module) -> int:
    """The devices `module` runs on: replica_count x num_partitions."""
    return max(module.config.replica_count, 1) * max(module.config.num_partitions, 1)


def estimate_run_bytes(module: Module) -> int:
    """What running `module` needs at least: on each of its devices, the entry parameters
    and outputs, constants, and the simulated peak of its temporaries."""
    from hlotool.ir.opcodes import Opcode

    total = sum(array_bytes(p.shape) for p in module.entry.parameters)
    root = module.entry.root
    if root is not None and root.opcode not in (Opcode.PARAMETER, Opcode.CONSTANT):
        total += array_bytes(root.shape)
    total += sum(array_bytes(i.shape) for c in module.computations for i in c.instructions
                 if i.opcode is Opcode.CONSTANT)
    try:
        from hlotool.passes.scheduler import temporaries_peak

        total += temporaries_peak(module)
    except Exception:  # noqa: BLE001 - an estimate: fall back to the largest value
        total += max((array_bytes(i.shape) for c in module.computations
                      for i in c.instructions), default=0)
    devices = device_count(module)
    return devices * (total + (PER_DEVICE_BYTES if devices > 1 else 0))


def check_run_memory(module: Module, limit: int) -> None:
    """Raise HloError when `module` needs more than `limit` bytes to run."""
    need = estimate_run_bytes(module)
    if need > limit:
        devices = device_count(module)
        on = f" on {devices} devices" if devices > 1 else ""
        raise HloError(f"running {module.name}{on} needs about {human(need)} (parameters, "
                       f"constants, temporaries), more than --max-memory {human(limit)}")
