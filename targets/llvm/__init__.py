"""The target-neutral LLVM layer (`hlotool.targets.llvm`): what every LLVM-based target
(cpu, gpu) emits the same way.

* `irutils`: element types as LLVM types, constants, loops, intrinsics, memcpy;
* `elemental`: the elemental emitter (any supported instruction's value at an index);
* `indexing`: index arithmetic and the elemental gather / dynamic-slice / reduce-window;
* `math`: the f32/f64 transcendental polynomials (the interpreter's numerics).

Nothing here knows a processor: float modes, threads, libraries and calling conventions
belong to the targets.
"""
