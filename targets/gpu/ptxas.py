"""ptxas from the `gpu` extra (the nvidia-cuda-nvcc wheels) or the system: PTX -> cubin,
and the per-kernel resources `ptxas -v` reports."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


class PtxasError(RuntimeError):
    """ptxas is missing or rejected the PTX (the message holds its first error)."""


@functools.cache
def find() -> str | None:
    """The ptxas to use: $HLOTOOL_PTXAS, the nvidia wheels' copy, then $PATH."""
    env = os.environ.get("HLOTOOL_PTXAS")
    if env:
        return env
    try:
        import nvidia

        for base in nvidia.__path__:
            for rel in ("cuda_nvcc/bin/ptxas", "cu13/bin/ptxas", "cu12/bin/ptxas"):
                p = Path(base) / rel
                if p.is_file() and os.access(p, os.X_OK):
                    return str(p)
    except ImportError:
        pass
    return shutil.which("ptxas")


@dataclass(frozen=True, slots=True)
class Resources:
    """What ptxas -v says about one kernel."""

    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_bytes: int
    barriers: int

    def __str__(self) -> str:
        return (f"{self.registers} registers, {self.shared_bytes} B shared, "
                f"{self.stack_bytes} B stack, {self.spill_bytes} B spilled, "
                f"{self.barriers} barriers")


def assemble(ptx: str, arch: str) -> tuple[bytes, dict[str, Resources]]:
    """(cubin, kernel name -> resources) for `ptx` on `arch` (e.g. sm_90)."""
    exe = find()
    if exe is None:
        raise PtxasError("ptxas not found: install the gpu extra (pip install 'hlotool[gpu]') "
                         "or set HLOTOOL_PTXAS")
    with tempfile.TemporaryDirectory(prefix="hlotool-ptxas-") as d:
        src, out = Path(d) / "k.ptx", Path(d) / "k.cubin"
        src.write_text(ptx)
        r = subprocess.run([exe, f"-arch={arch}", "-v", str(src), "-o", str(out)],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            first = next((ln for ln in r.stderr.splitlines() if "error" in ln.lower()),
                         r.stderr.strip().splitlines()[0] if r.stderr.strip() else "")
            raise PtxasError(f"ptxas -arch={arch} failed (exit {r.returncode}): {first}")
        return out.read_bytes(), parse_resources(r.stderr + r.stdout)


_FUNC = re.compile(r"Compiling entry function '([^']+)'")
_USED = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores")


def parse_resources(log: str) -> dict[str, Resources]:
    """Kernel name -> resources, from ptxas -v output."""
    out: dict[str, Resources] = {}
    name = None
    frame = (0, 0)
    for line in log.splitlines():
        if m := _FUNC.search(line):
            name, frame = m.group(1), (0, 0)
        elif (m := _FRAME.search(line)) and name:
            frame = (int(m.group(1)), int(m.group(2)))
        elif (m := _USED.search(line)) and name:
            out[name] = Resources(int(m.group(1)), int(m.group(3) or 0), frame[0], frame[1],
                                  int(m.group(2) or 0))
    return out
