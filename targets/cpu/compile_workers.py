"""Compiling a library's large full-pipeline code in forked processes, one per core.

LLVM optimises and compiles one module on one thread, and llvmlite serialises every call
into LLVM behind one lock, so threads cannot share that work. A library whose
full-pipeline text holds many kernels is cut at kernel boundaries into one part per core
(`split`: `codegen.build_llvm_module` starts each kernel's lines with `KERNEL_MARK`), and
`compile_all` forks a child for every part but the first: each child optimises and
compiles its parts and sends the results (object files, optimised IR, assembly) back
through a pipe, while the parent compiles the first. A child that fails or dies leaves
its parts to the parent, which compiles them itself, so the result never depends on the
children. Linux only (fork), and not in a process that has loaded a runtime with threads
of its own (jax, torch, tensorflow: `FORK_UNSAFE_MODULES`); elsewhere, or on one core,
everything compiles in-process (the `hlotool` commands load jax only for `--reference`).

A 24-layer transformer training step (1146 fusions) spent 13 s of its 20 s compile in
LLVM on one core; XLA:CPU splits its module for parallel codegen the same way
(`xla_cpu_parallel_codegen_split_count`).
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

#: The comment line that starts each kernel's lines in a unit's text.
KERNEL_MARK = "; hlotool: kernel"

#: Fewest kernels a part gets: a fork and a second module cost a few milliseconds,
#: which a part of this many kernels (each ~10 ms of LLVM) repays many times.
MIN_KERNELS_PER_PART = 16

T = TypeVar("T")
R = TypeVar("R")


#: Runtimes whose own threads make a fork unsafe (a child could inherit a lock one of
#: them holds; JAX warns as much): with any loaded, everything compiles in-process.
FORK_UNSAFE_MODULES = ("jax", "jaxlib", "torch", "tensorflow")


def can_fork() -> bool:
    """Whether this process may fork compile workers."""
    return hasattr(os, "fork") and sys.platform == "linux" and \
        not any(name in sys.modules for name in FORK_UNSAFE_MODULES)


def parts_for(text: str, cores: int) -> int:
    """How many parts to cut `text` into for `cores` processes."""
    if cores < 2 or not can_fork():
        return 1
    kernels = text.count(f"\n{KERNEL_MARK}\n")
    return max(1, min(cores, kernels // MIN_KERNELS_PER_PART))


def split(text: str, parts: int) -> list[str]:
    """`text` as `parts` modules of whole kernels with about equal numbers of lines, each
    with the header and declarations that come before the first kernel."""
    chunks = text.split(f"\n{KERNEL_MARK}\n")
    head, kernels = chunks[0], chunks[1:]
    if parts < 2 or len(kernels) < parts:
        return [text]
    total = sum(k.count("\n") + 1 for k in kernels)
    out: list[list[str]] = [[]]
    size = 0
    for kernel in kernels:
        if size >= total * len(out) / parts and len(out) < parts:
            out.append([])
        out[-1].append(kernel)
        size += kernel.count("\n") + 1
    return ["\n".join([head, *group, ""]) for group in out]


def compile_all(units: Sequence[T], compile_one: Callable[[T], R], processes: int) -> list[R]:
    """`compile_one` of every unit, in order. Units 1 .. processes-1 go to one forked
    child each; the calling process compiles unit 0 and those after (so the heavy parts
    come first: one per process)."""
    groups = _groups(len(units), processes)
    if len(groups) < 2:
        return [compile_one(u) for u in units]
    children = [_fork(group, units, compile_one) for group in groups[1:]]
    results: dict[int, R] = {i: compile_one(units[i]) for i in groups[0]}
    for group, child in zip(groups[1:], children, strict=True):
        got = _collect(child)
        for i in group:
            results[i] = got[i] if got is not None and i in got else compile_one(units[i])
    return [results[i] for i in range(len(units))]


def _groups(n: int, processes: int) -> list[list[int]]:
    count = max(1, min(processes, n))
    return [[0, *range(count, n)], *([k] for k in range(1, count))]


def _fork(group: list[int], units: Sequence[T], compile_one: Callable[[T], R]) -> tuple[int, int] | None:
    """(pid, read end of its pipe) of a child compiling `group`; None when it cannot start."""
    try:
        read, write = os.pipe()
    except OSError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # a multi-threaded parent
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return None
    if pid == 0:  # the child: compile, send, leave without running any exit handler
        code = 1
        try:
            os.close(read)
            payload = pickle.dumps({i: compile_one(units[i]) for i in group})
            with os.fdopen(write, "wb") as out:
                out.write(payload)
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collect(child: tuple[int, int] | None) -> dict[int, R] | None:
    """What a child sent, once it has exited cleanly; None when it did not."""
    if child is None:
        return None
    pid, read = child
    with os.fdopen(read, "rb") as source:
        data = source.read()
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    try:
        got: dict[int, R] = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
    return got
