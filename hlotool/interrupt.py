"""Ctrl-C and `--timeout` that always work, even while native code runs.

A command runs in a worker thread while the main thread waits on it in short slices, so
SIGINT is taken within milliseconds whatever the worker does: compiled CPU kernels
(a ctypes call that may loop forever inside a while loop), LLVM, numpy or the
interpreter. On Ctrl-C the process exits 130, on a timeout 124, each with one line on
standard error, after removing the temporary files of unfinished writes
(`hlotool.safe_io`); the worker is not waited for. Called in-process (tests, scripts),
the same codes are returned instead and the worker is left to finish on its own.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import NoReturn

EXIT_TIMEOUT, EXIT_INTERRUPTED = 124, 130
#: How often the waiting main thread wakes up (seconds).
_SLICE = 0.05
#: The worker's stack and Python recursion limit: deep modules (a 3,000-deep call chain,
#: 400-deep tuple shapes) walk recursively; the verifier refuses deeper ones
#: (`hlotool.limits`), so these bounds are never reached.
WORKER_STACK_BYTES = 1 << 30
WORKER_RECURSION_LIMIT = 60_000


def run_interruptibly(work: Callable[[], int], timeout: float | None, *,
                      hard_exit: bool) -> int:
    """`work()`'s exit status; 130 on Ctrl-C, 124 after `timeout` seconds."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["status"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            outcome["error"] = exc

    deadline = None if timeout is None else time.monotonic() + timeout
    old_stack, old_limit = threading.stack_size(WORKER_STACK_BYTES), sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, WORKER_RECURSION_LIMIT))
    try:
        worker = threading.Thread(target=target, name="hlotool-command", daemon=True)
        try:
            worker.start()
        except RuntimeError:  # no room for the large stack (ulimit -v): the default one
            threading.stack_size(old_stack)
            worker = threading.Thread(target=target, name="hlotool-command", daemon=True)
            worker.start()
        threading.stack_size(old_stack)
        while worker.is_alive():
            wait = _SLICE if deadline is None else min(_SLICE, deadline - time.monotonic())
            if wait <= 0:
                return _stop(f"timed out after {timeout:g} s", EXIT_TIMEOUT, hard_exit)
            worker.join(wait)
    except KeyboardInterrupt:
        return _stop("interrupted", EXIT_INTERRUPTED, hard_exit)
    finally:
        threading.stack_size(old_stack)
        if not worker.is_alive():
            sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return int(outcome["status"])  # type: ignore[call-overload]


def _stop(message: str, status: int, hard_exit: bool) -> int:
    from hlotool.safe_io import remove_pending

    remove_pending()
    print(f"hlotool: {message}", file=sys.stderr)
    if not hard_exit:
        return status
    _hard_exit(status)


def exit_now(status: int) -> NoReturn:
    """End the process now with `status`, after flushing stdout and stderr. After the
    debugger quits, Python would otherwise wait for busy pass, check and render worker
    threads, and then tear down every object of a big module's history (seconds)."""
    _hard_exit(status)


def _hard_exit(status: int) -> NoReturn:
    """Flush stdout and stderr (as far as they still can be), then end the process."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
