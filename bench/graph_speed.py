"""How long `hlotool graph` takes on the parse benchmark's module (a 240-layer MLP with
gelu and layernorm, about 10k instructions before XLA and 20k after), with the default
`--max-nodes` elision. The budget is 10 s for parse + build + `dot` on a 2-core machine.

    python bench/graph_speed.py [--layers 240] [--keep DIR]

Needs jax (to build the module) and Graphviz's `dot`. The generated HLO is not kept
unless --keep names a folder for it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from models import deep_mlp

from hlotool.frontend import parse_hlo
from hlotool.graph import GraphOptions, draw, render, to_dot

BUDGET_SECONDS = 10.0


def measure(path: Path, out_dir: Path) -> dict[str, float]:
    """Seconds per phase, in-process, and for the whole command in a fresh process."""
    times: dict[str, float] = {}
    start = time.perf_counter()
    module = parse_hlo(path.read_text())
    times["parse"] = time.perf_counter() - start
    start = time.perf_counter()
    dot = to_dot(draw(module, GraphOptions()))
    times["build"] = time.perf_counter() - start
    start = time.perf_counter()
    svg = render(dot, "svg")
    times["dot"] = time.perf_counter() - start
    (out_dir / f"{path.stem}.svg").write_bytes(svg)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", _CLI, str(path), "-o", str(out_dir / "cli.svg")],
                   check=True, capture_output=True)
    times["command"] = time.perf_counter() - start
    return times


#: `hlotool graph ...` even before the command is registered in hlotool.commands.
_CLI = ("import sys; from hlotool.commands import COMMANDS; COMMANDS.setdefault('graph', "
        "'graph'); from hlotool.cli import main; sys.exit(main(['graph', *sys.argv[1:]]))")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=240)
    p.add_argument("--keep", type=Path, help="write the generated .hlo files here")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        before, after = deep_mlp(args.layers)
        paths = [folder / "deep_mlp.hlo", folder / "deep_mlp.opt.hlo"]
        for path, text in zip(paths, (before, after), strict=True):
            path.write_text(text)
        for path in paths:
            t = measure(path, Path(tmp))
            total = t["parse"] + t["build"] + t["dot"]
            verdict = "ok" if t["command"] < BUDGET_SECONDS else "OVER BUDGET"
            print(f"{path.name}: parse {t['parse']:.2f} s, build {t['build']:.2f} s, "
                  f"dot {t['dot']:.2f} s = {total:.2f} s; `hlotool graph` end to end "
                  f"{t['command']:.2f} s ({verdict}, budget {BUDGET_SECONDS:.0f} s)")


if __name__ == "__main__":
    main()
