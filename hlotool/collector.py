"""The cyclic garbage collector, paused while a big graph is built or rewritten.

Parsing, a pass pipeline and code generation allocate hundreds of thousands of
long-lived objects (instructions, shapes, use lists) and free few cycles. Each of the
collector's full passes walks every live object, so on a 64k-instruction module the
passes it triggers cost 10-30% of the time and grow faster than the module. Paused
for such a stretch and resumed after it, the collector frees what became garbage at its
next pass as usual: memory stays as it was (measured: 195 MB instead of 190 MB for the
`cpu` pipeline at 64k).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Pause the collector for the `with` block (nested blocks are fine)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def settle() -> None:
    """Collect what is garbage now, then exempt every object still alive from the
    collector's later passes (`gc.freeze`).

    For objects that live as long as the process (a command's input module, the
    debugger's states): the work that follows then pays for the objects it makes, not
    for all of those again at every full collection. The collection first keeps garbage
    from being frozen with them; it walks only what is not frozen yet. Frozen objects
    are never freed, so this is for the `hlotool` process only (`main()` without
    arguments), not for a library, the tests or in-process calls."""
    gc.collect()
    gc.freeze()
