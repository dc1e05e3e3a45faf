"""XLA's own `.hlo` test inputs (copies in tests/data/xla_hlo, from openxla/xla): every
part (`// -----` separated) must parse, and every runnable part must match XLA:CPU.

`python bench/xla_hlo_files.py [DIR] [--targets interp,cpu]` parses each part, runs the
runnable ones (entry parameters all arrays) on random inputs on hlotool's targets and on
XLA:CPU through jaxlib (the `jax` extra), and ends with `N passed, M failed`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlotool.diagnostics import HloError  # noqa: E402
from hlotool.frontend import parse_hlo  # noqa: E402
from hlotool.values_io import compare_outputs, output_arrays, random_arguments  # noqa: E402


def parts(path: Path) -> list[tuple[str, str]]:
    """(label, text) of each `// -----` part of a test file."""
    chunks = path.read_text().split("// -----")
    return [(f"{path.name}#{i}" if len(chunks) > 1 else path.name, c) for i, c in enumerate(chunks)]


def check(text: str, targets: list[str]) -> tuple[bool, str]:
    """(ok, why) for one part: it parses; if runnable, each target matches XLA:CPU."""
    from hlotool.reference import run_xla

    try:
        module = parse_hlo(text)
    except HloError as exc:
        return False, f"parse: {exc}"
    entry = module.entry
    if any(not p.shape.is_array for p in entry.parameters):
        return True, "parsed (not runnable: tuple or token parameters)"
    args = random_arguments(module, 0)
    try:
        want = output_arrays(run_xla(text, args))
    except HloError as exc:
        return True, f"parsed (XLA:CPU does not run it: {exc.message[:80]})"
    for target in targets:
        got = output_arrays(_run(text, target, args))
        bad = [d for d in compare_outputs(got, want, 1e-4, 1e-4) if not d.ok]
        if bad:
            return False, f"{target}: {bad[0].key} {bad[0].reason}"
    return True, "matches XLA:CPU on " + ", ".join(targets)


def _run(text: str, target: str, args: list[np.ndarray]) -> object:
    from hlotool.commands.opt import apply_passes

    module = parse_hlo(text)
    if target == "interp":
        from hlotool.interpreter.core import Evaluator

        with np.errstate(all="ignore"):
            return Evaluator(module).run(args)
    from hlotool.targets.cpu import compile_module

    apply_passes(module, "cpu", None, verify_each=False)
    return compile_module(module, autotune=False).run(args)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("folder", nargs="?", default=str(ROOT / "tests" / "data" / "xla_hlo"))
    ap.add_argument("--targets", default="interp,cpu")
    a = ap.parse_args()
    passed = failed = 0
    for path in sorted(Path(a.folder).glob("*.hlo")):
        for label, text in parts(path):
            ok, why = check(text, a.targets.split(","))
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {why}")
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
