"""XLA's own parser (jaxlib) over many texts in one child process (it aborts the process
on some inputs): for each text, XLA's canonical form of it or why XLA rejects it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_CODE = (
    "import json, sys, jaxlib._hlo as h\n"
    "out = []\n"
    "for t in json.load(open(sys.argv[1])):\n"
    "    try: out.append([True, h.hlo_module_from_text(t).to_string()])\n"
    "    except Exception as e: out.append([False, str(e)[:200]])\n"
    "print(json.dumps(out))\n"
)


def xla_reads(texts: list[str], folder: Path) -> list[tuple[bool, str]]:
    """(True, `HloModule::ToString`) or (False, XLA's error) for each text."""
    payload = folder / "texts.json"
    payload.write_text(json.dumps(texts))
    proc = subprocess.run([sys.executable, "-c", _CODE, str(payload)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [(ok, text) for ok, text in json.loads(proc.stdout)]
