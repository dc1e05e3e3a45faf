"""XLA's own `.hlo` test inputs (copies in tests/data/xla_hlo, from openxla/xla): every
part (`// -----` separated) must parse, and every runnable part must match XLA:CPU.

`python bench/xla_hlo_files.py [DIR] [--targets interp,cpu] [--write]` parses each part,
runs the runnable ones (entry parameters all arrays) on seeded random inputs on hlotool's
targets and on XLA:CPU through jaxlib (the `jax` extra), and ends with `N passed, M
failed`. With `--write` it stores XLA's outputs (`expected.npz`, at most SAMPLE values an
output, see `sample`) and each part's status (`expected.json`) in DIR for
tests/test_xla_hlo_files.py.

XLA's HLO->StableHLO import, which the reference path uses, compiles no fusion it is given
(kLoop/kInput: "Unsupported fusion kind") nor a bitcast outside one, so XLA runs each part
with its fusions inlined by hlotool (`custom-fusion-inliner{all-kinds=true}`) and its
row-major bitcasts as reshapes (see `xla_text`): rewrites that keep the values.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlotool.diagnostics import HloError  # noqa: E402
from hlotool.frontend import parse_hlo  # noqa: E402
from hlotool.values_io import compare_outputs, output_arrays, random_arguments  # noqa: E402

#: Values stored per output: evenly strided over the flattened output.
SAMPLE = 4096
TOLERANCE = {"rtol": 1e-4, "atol": 1e-4}


def parts(path: Path) -> list[tuple[str, str]]:
    """(label, text) of each `// -----` part of a test file."""
    chunks = path.read_text().split("// -----")
    return [(f"{path.name}#{i}" if len(chunks) > 1 else path.name, c) for i, c in enumerate(chunks)]


def sample(a: np.ndarray) -> np.ndarray:
    """An output as stored: all of it up to SAMPLE values, else SAMPLE evenly strided."""
    flat = np.asarray(a).reshape(-1)
    step = max(1, -(-flat.size // SAMPLE))
    return np.ascontiguousarray(flat[::step])


def xla_text(text: str) -> str:
    """The part as XLA's reference path gets it: fusions inlined, and bitcasts between
    row-major shapes written as the reshapes they are (its import rejects those outside
    fusions); the values stay the same."""
    from hlotool.ir.opcodes import Opcode
    from hlotool.ir.printer import print_module
    from hlotool.passes.custom_fusion_inliner import CustomFusionInlinerPass

    module = parse_hlo(text)
    CustomFusionInlinerPass(all_kinds=True).run(module)
    for comp in module.computations:
        for ins in comp.instructions:
            if (ins.opcode is Opcode.BITCAST and ins.shape.is_array and ins.shape.is_row_major
                    and ins.operand(0).shape.is_row_major):
                ins.opcode = Opcode.RESHAPE
    return print_module(module)


def check(text: str, targets: list[str]) -> tuple[bool, str, dict[str, np.ndarray] | None]:
    """(ok, why, XLA's outputs) for one part: it parses; if runnable, each target
    matches XLA:CPU."""
    from hlotool.reference import run_xla

    try:
        module = parse_hlo(text)
    except HloError as exc:
        return False, f"parse: {exc}", None
    if any(not p.shape.is_array for p in module.entry.parameters):
        return True, "parsed (not runnable: tuple or token parameters)", None
    args = random_arguments(module, 0)
    try:
        want = output_arrays(run_xla(xla_text(text), args))
    except HloError as exc:
        return True, f"parsed (XLA:CPU does not run it: {exc.message[:160]})", None
    for target in targets:
        got = output_arrays(run_target(text, target, args))
        bad = [d for d in compare_outputs(got, want, **TOLERANCE) if not d.ok]
        if bad:
            return False, f"{target}: {bad[0].key} {bad[0].reason}", want
    return True, "matches XLA:CPU on " + ", ".join(targets), want


def run_target(text: str, target: str, args: list[np.ndarray]) -> object:
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
    ap.add_argument("--write", action="store_true",
                    help="store XLA's outputs and each part's status in the folder")
    a = ap.parse_args()
    folder = Path(a.folder)
    passed = failed = 0
    status: dict[str, dict[str, str]] = {}
    expected: dict[str, np.ndarray] = {}
    for path in sorted(folder.glob("*.hlo")):
        for label, text in parts(path):
            ok, why, want = check(text, a.targets.split(","))
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {why}", flush=True)
            passed, failed = passed + ok, failed + (not ok)
            status[label] = {"runs": "yes" if want is not None else "no", "why": why}
            for key, value in (want or {}).items():
                expected[f"{label}:{key}"] = sample(value)
    print(f"{passed} passed, {failed} failed")
    if a.write:
        from hlotool.values_io import save_npz

        save_npz(folder / "expected.npz", expected)
        (folder / "expected.json").write_text(json.dumps(status, indent=1, sort_keys=True) + "\n")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
