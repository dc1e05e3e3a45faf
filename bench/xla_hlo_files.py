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
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hlotool.diagnostics import HloError  # noqa: E402
from hlotool.elided import elided_reads  # noqa: E402
from hlotool.frontend import parse_hlo  # noqa: E402
from hlotool.values_io import compare_outputs, output_arrays, random_arguments  # noqa: E402

#: Values stored per output: evenly strided over the flattened output.
SAMPLE = 4096
#: Parts whose entry parameters hold more than this are parsed and printed but not run:
#: some of XLA's GPU tests take 256-512 MiB of inputs (a batched 1024x1024 cholesky takes
#: minutes on a loaded 2-core machine), and the test suite stays quick.
DEFAULT_MAX_INPUT_MIB = 200
MAX_INPUT_BYTES = DEFAULT_MAX_INPUT_MIB << 20
#: Parts whose XLA:CPU outputs hlotool does not reproduce yet, and why: parsed and printed,
#: not run.
NOT_REPRODUCED = {
    "hlo_to_mhlo.import_emit_stablehlo.hlo#82":
        "a variadic scatter given one operand twice: XLA:CPU passes the operand once to its "
        "scatter fusion, whose two in-place outputs then clash; its result depends on the "
        "order of the indices (updates are lost) and some inputs abort it (double free), so "
        "there is no rule to reproduce",
}
#: rtol = atol by output type: a few ulps of the narrow floats (their sums may round the
#: other way when hlotool adds in another order), 1e-4 for the rest.
_TOLERANCE = {"bfloat16": 1e-2, "float16": 2e-3}


def tolerance(dtype: np.dtype) -> float:
    return _TOLERANCE.get(np.dtype(dtype).name, 1e-4)


def matches(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> list[str]:
    """What differs between hlotool's outputs and XLA's (empty when they match)."""
    if sorted(got) != sorted(want):
        return [f"outputs {sorted(got)} != {sorted(want)}"]
    bad = []
    for key in sorted(want):
        tol = tolerance(want[key].dtype)
        for d in compare_outputs({key: got[key]}, {key: want[key]}, tol, tol):
            if not d.ok:
                bad.append(f"{key} {d.reason}")
    return bad


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
    """The part as XLA's reference path gets it: fusions inlined, and bitcasts written
    as the reshape (row-major layouts) or transpose-reshape-transpose they are (its
    import rejects bitcasts outside fusions); the values stay the same."""
    from hlotool.ir.opcodes import Opcode
    from hlotool.ir.printer import print_module
    from hlotool.passes.custom_fusion_inliner import CustomFusionInlinerPass
    from hlotool.passes.utils import NameTable

    module = parse_hlo(text)
    CustomFusionInlinerPass(all_kinds=True).run(module)
    names = NameTable(module)
    for comp in module.computations:
        for ins in list(comp.instructions):
            if ins.opcode is not Opcode.BITCAST or not ins.shape.is_array:
                continue
            if ins.shape.is_row_major and ins.operand(0).shape.is_row_major:
                ins.opcode = Opcode.RESHAPE
            elif ins.shape.element_type is ins.operand(0).shape.element_type:
                _physical_reshape(ins, names)
    return print_module(module)


def _physical_reshape(bitcast: Any, names: Any) -> None:
    """A layout-changing bitcast as transpose (to the operand's physical order), reshape
    (to the result's physical dimensions) and transpose (back to the result's logical
    order)."""
    from hlotool.ir.opcodes import Opcode
    from hlotool.ir.types import Shape
    from hlotool.passes.utils import Builder, replace_instruction

    src, out = bitcast.operand(0), bitcast.shape
    into = list(reversed(src.shape.layout.minor_to_major if src.shape.layout else
                         range(src.shape.rank)))
    back = list(reversed(out.layout.minor_to_major if out.layout else range(out.rank)))
    b = Builder.before(bitcast, names)
    physical = b.add(Opcode.TRANSPOSE, [src], {"dimensions": tuple(into)})
    flat = b.add(Opcode.RESHAPE, [physical],
                 shape=Shape.array(out.element_type, [out.dimensions[d] for d in back]))
    logical = b.add(Opcode.TRANSPOSE, [flat],
                    {"dimensions": tuple(back.index(d) for d in range(out.rank))})
    replace_instruction(bitcast, logical)


def check(label: str, text: str,
          targets: list[str]) -> tuple[bool, str, dict[str, np.ndarray] | None]:
    """(ok, why, XLA's outputs) for one part: it parses; if runnable, each target
    matches XLA:CPU."""
    from hlotool.ir.opcodes import Opcode
    from hlotool.reference import run_xla

    try:
        module = parse_hlo(text)
    except HloError as exc:
        return False, f"parse: {exc}", None
    if label in NOT_REPRODUCED:
        return True, f"parsed (not run: {NOT_REPRODUCED[label]})", None
    devices = module.config.replica_count * module.config.num_partitions
    if devices > 1:
        return True, (f"parsed (not run: written for {devices} devices; the XLA:CPU "
                       "reference runs one)"), None
    elided = elided_reads(module)
    if elided:
        return True, (f"parsed (not run: reads {len(elided)} elided constants `{{...}}`, "
                       "whose values the file leaves out)"), None
    if any(i.opcode is Opcode.RNG for c in reachable(module) for i in c.instructions):
        return True, "parsed (not run: rng draws values that are each backend's own)", None
    if any(i.opcode is Opcode.INFEED for c in reachable(module) for i in c.instructions):
        return True, "parsed (not run: infeed reads values the host feeds it)", None
    if any(not p.shape.is_array for p in module.entry.parameters):
        return True, "parsed (not runnable: tuple or token parameters)", None
    size = input_bytes(module)
    if size > MAX_INPUT_BYTES:
        return True, f"parsed (not run: inputs of {size / (1 << 20):.0f} MiB)", None
    args = random_arguments(module, 0)
    try:
        want = output_arrays(run_xla(xla_text(text), args))
    except HloError as exc:
        return True, f"parsed (XLA:CPU does not run it: {exc.message[:160]})", None
    for target in targets:
        try:
            got = run_target(text, target, args)
        except HloError as exc:
            return False, f"{target}: {str(exc).splitlines()[0][:200]}", want
        got = output_arrays(got)
        if module.entry.root.shape.is_dynamic:
            want = valid_prefix(want, got)
        bad = matches(got, want)
        if bad:
            return False, f"{target}: {bad[0]}", want
    if module.entry.root.shape.is_dynamic:
        return True, ("matches XLA:CPU on " + ", ".join(targets) + " (dynamic output: "
                      "XLA:CPU's values lead a buffer of the bounds)"), want
    return True, "matches XLA:CPU on " + ", ".join(targets), want


def valid_prefix(want: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """XLA:CPU's dynamic outputs cut to hlotool's sizes: XLA:CPU returns a buffer of the
    bounds whose leading elements are the array, row-major at its dynamic sizes (the rest
    is whatever the buffer held)."""
    out = {}
    for key, w in want.items():
        g = got.get(key)
        if g is not None and w.shape != g.shape and w.ndim == g.ndim and w.size >= g.size:
            w = np.ascontiguousarray(w.reshape(-1)[:g.size].reshape(g.shape))
        out[key] = w
    return out


def reachable(module: Any) -> list[Any]:
    """The computations the entry calls, directly or not (and the entry)."""
    seen: dict[int, Any] = {}
    todo = [module.entry]
    while todo:
        comp = todo.pop()
        if id(comp) not in seen:
            seen[id(comp)] = comp
            todo.extend(c for ins in comp.instructions for c in ins.called_computations)
    return list(seen.values())


def input_bytes(module: Any) -> int:
    """Bytes of the entry parameters' dense arrays."""
    return sum(p.shape.byte_size for p in module.entry.parameters)


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
    ap.add_argument("--match", default="",
                    help="only the parts whose label holds this text (--write updates them)")
    ap.add_argument("--max-input-mib", type=int, default=DEFAULT_MAX_INPUT_MIB,
                    help="run parts with up to this many MiB of inputs (default %(default)s)")
    a = ap.parse_args()
    global MAX_INPUT_BYTES
    MAX_INPUT_BYTES = a.max_input_mib << 20
    folder = Path(a.folder)
    passed = failed = 0
    status: dict[str, dict[str, str]] = {}
    expected: dict[str, np.ndarray] = {}
    for path in sorted(folder.glob("*.hlo")):
        for label, text in parts(path):
            if a.match not in label:
                continue
            ok, why, want = check(label, text, a.targets.split(","))
            print(f"{'ok  ' if ok else 'FAIL'} {label}: {why}", flush=True)
            passed, failed = passed + ok, failed + (not ok)
            status[label] = {"runs": "yes" if want is not None else "no", "why": why}
            for key, value in (want or {}).items():
                expected[f"{label}:{key}"] = sample(value)
    print(f"{passed} passed, {failed} failed")
    if a.write:
        from hlotool.values_io import load_npz, save_npz

        if a.match and (folder / "expected.json").exists():
            kept = {k: v for k, v in load_npz(folder / "expected.npz").items()
                    if k.split(":", 1)[0] not in status}
            expected = {**kept, **expected}
            status = {**json.loads((folder / "expected.json").read_text()), **status}
        save_npz(folder / "expected.npz", expected)
        (folder / "expected.json").write_text(json.dumps(status, indent=1, sort_keys=True) + "\n")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
