"""`hlotool compile FILE --target gpu --emit llvm|ptx|cubin`: the GPU target's code.

The kernels of the module after the `gpu` pipeline, named after the fusion (or
instruction) each computes: their NVPTX LLVM IR (optimised), PTX, or the cubin ptxas
makes of it. A header (comments; standard error for a cubin) lists every kernel with its
launch shape and, when ptxas is found, the registers, shared memory, stack and spills
`ptxas -v` reports for it."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from hlotool.commands.common import EXIT_OK, UsageError, load, write_text


def run_compile(args: argparse.Namespace) -> int:
    from hlotool.pipeline_cache import optimize
    from hlotool.targets.gpu import nvptx, ptxas
    from hlotool.targets.gpu.plan import plan_module

    if args.emit == "asm":
        raise UsageError("--target gpu emits llvm, ptx or cubin (not asm)")
    module = optimize(load(args), "gpu", source=args._source.identity).module
    plan = plan_module(module)
    kernels = plan.kernels
    if not kernels:
        raise UsageError(f"nothing in {module.name} compiles to GPU kernels yet")
    llvm_ir, ptx = nvptx.kernels_ptx(kernels, module.name, args.arch)
    resources: dict[str, ptxas.Resources] = {}
    cubin = b""
    if args.emit == "cubin" or ptxas.find() is not None:
        try:
            cubin, resources = ptxas.assemble(ptx, args.arch)
        except ptxas.PtxasError as exc:
            raise UsageError(str(exc)) from None
    prefix = "//" if args.emit == "ptx" else ";"
    header = [f"{prefix} {args.arch}, PTX {nvptx.PTX_VERSION}, {len(kernels)} kernels "
              f"(fma contraction off, f32 denormals flushed)"]
    for p in plan.plans.values():
        k = p.kernel
        if p.symbol != k.name:
            header.append(f"{prefix} kernel {k.name} ({k.source}): the same code as {p.symbol}")
            continue
        res = resources.get(k.name)
        header.append(f"{prefix} kernel {k.name} ({k.source}): grid {k.grid_size} x block "
                      f"{k.block_size}, {k.barriers} barriers per block"
                      + (f"; ptxas: {res}" if res else ""))
    if args.emit == "cubin":
        if not args.output or args.output == "-":
            raise UsageError("--emit cubin writes a binary: give -o FILE")
        _write_bytes(Path(args.output), cubin)
        print("\n".join(h[3:] if h.startswith(";") else h for h in header), file=sys.stderr)
    else:
        body = llvm_ir if args.emit == "llvm" else ptx
        write_text(args.output, "\n".join(header) + "\n" + body)
    print(f"hlotool: {len(plan.plans)} GPU kernels ({len(kernels)} distinct functions); "
          f"{len(plan.skipped)} instructions left to the interpreter", file=sys.stderr)
    return EXIT_OK


def _write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a temp file renamed into place)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=".hlotool-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
