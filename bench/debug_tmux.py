"""The debugger in a real terminal: how long `hlotool debug FILE --pipeline cpu` takes to
open, to plan, to apply each step, and to quit, driven through tmux.

    python bench/debug_tmux.py [FILE] [--pipeline cpu] [--steps N] [--json out.json]

FILE defaults to the 16k mlp training step of bench/scale.py. The script starts the
debugger in a detached tmux session (200x50), reads the screen with `capture-pane`
every 20 ms, and times:

- open: from the start of the process to the first frame that shows the step screen's
  status line (planning progress or the plan);
- plan: until "pass applications planned" shows;
- each step: from pressing `n` until the status line reports that step (`step K:`);
- quit: from pressing `q` until the process has exited.

Each event is reported in wall seconds (what a user waits on; on a shared machine it
includes the other tenants' load) and in CPU seconds of the debugger process (user +
system, all its threads, from /proc), which the load does not inflate.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

SESSION = "hlotool-debug-bench"
POLL = 0.02


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def screen() -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def exited() -> bool:
    return tmux("display-message", "-p", "-t", SESSION, "#{pane_dead}").strip() in ("1", "")


def cpu_seconds(pid: int) -> float | None:
    """User + system seconds of process `pid` so far (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(test: Callable[[str], bool], timeout: float) -> float | None:
    """Seconds until `test(screen)` holds (None on timeout)."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if test(screen()):
            return time.perf_counter() - start
        time.sleep(POLL)
    return None


def measure(path: Path, pipeline: str, steps: int | None, timeout: float) -> dict[str, object]:
    tmux("kill-session", "-t", SESSION)
    command = shlex.join([sys.executable, "-m", "hlotool.cli", "debug", str(path),
                          "--pipeline", pipeline])
    start = time.perf_counter()
    tmux("new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", command)
    tmux("set-option", "-t", SESSION, "remain-on-exit", "on")
    pid = int(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip() or 0)
    result: dict[str, object] = {"file": str(path), "pipeline": pipeline}

    def cpu() -> float | None:
        c = cpu_seconds(pid)
        return None if c is None else round(c, 3)

    try:
        opened = wait_for(lambda s: "planning the pipeline" in s or "planned" in s, timeout)
        result["open_s"] = None if opened is None else time.perf_counter() - start
        result["open_cpu_s"] = cpu()
        planned = wait_for(lambda s: "pass applications planned" in s, timeout)
        result["plan_s"] = None if planned is None else time.perf_counter() - start
        result["plan_cpu_s"] = cpu()
        step_s: list[float] = []
        step_cpu: list[float] = []
        k = 0
        while planned is not None and (steps is None or k < steps):
            k += 1
            before = cpu()
            tmux("send-keys", "-t", SESSION, "n")
            took = wait_for(lambda s, k=k: f"step {k}:" in s, timeout)
            after = cpu()
            if took is None or before is None or after is None:
                break
            step_s.append(took)
            step_cpu.append(after - before)
            if "pipeline is done" in screen():
                break
        result["steps"] = len(step_s)
        result["step_max_s"] = max(step_s, default=None)
        result["step_max_cpu_s"] = round(max(step_cpu, default=0.0), 3)
        result["step_mean_s"] = sum(step_s) / len(step_s) if step_s else None
        result["step_s"] = [round(s, 3) for s in step_s]
        result["step_cpu_s"] = [round(s, 3) for s in step_cpu]
        pressed, at_press = time.perf_counter(), cpu()
        last = at_press
        tmux("send-keys", "-t", SESSION, "q")
        while not exited() and time.perf_counter() - pressed < timeout:
            last = cpu() or last
            time.sleep(POLL)
        result["quit_s"] = time.perf_counter() - pressed if exited() else None
        # The last reading before the process went (a lower bound, within one poll).
        result["quit_cpu_s"] = round(last - at_press, 3) if last and at_press else None
    finally:
        tmux("kill-session", "-t", SESSION)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", type=Path)
    ap.add_argument("--pipeline", default="cpu")
    ap.add_argument("--steps", type=int, help="stop after this many steps (default: all)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds to wait per event")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    path = args.file
    if path is None:
        from scale_models import sized

        path = sized("mlp", 16000)
    result = measure(path, args.pipeline, args.steps, args.timeout)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
