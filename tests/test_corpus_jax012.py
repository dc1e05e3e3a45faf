"""The jax 0.12 corpus (tests/data/corpus_jax012, bench/make_jax_corpus.py): every text
parses and prints to a fixed point; every module runs to XLA:CPU's outputs, except those
that read constants the dump elided (refused with the clear error)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hlotool.cli import main
from hlotool.frontend import parse_text
from hlotool.ir.printer import print_module
from hlotool.stablehlo.printer import print_stablehlo

CORPUS = Path(__file__).resolve().parent / "data" / "corpus_jax012"
CASES = sorted(p for p in CORPUS.iterdir() if p.is_dir())
TEXTS = ("module.hlo", "module.opt.hlo", "module.stablehlo.mlir")
RUNS = [(c, t, target) for c in CASES for t in TEXTS
        for target in (("interp", "cpu") if t == "module.opt.hlo" else ("interp",))]


def test_corpus_was_made_by_jax_0_12() -> None:
    versions = {json.loads((c / "case.json").read_text())["jax_version"] for c in CASES}
    assert len(CASES) == 11 and all(v.startswith("0.12.") for v in versions)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_parses_and_round_trips(case: Path) -> None:
    for name in TEXTS:
        module = parse_text((case / name).read_text(), name)
        printer = print_stablehlo if name.endswith(".mlir") else print_module
        once = printer(module)
        assert printer(parse_text(once, name)) == once, name


@pytest.mark.parametrize(("case", "text", "target"), RUNS,
                         ids=[f"{c.name}/{t}/{g}" for c, t, g in RUNS])
def test_runs_to_xla_outputs(case: Path, text: str, target: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    tol = json.loads((case / "case.json").read_text())["tolerance"]
    code = main(["run", str(case / text), "--target", target,
                 "--inputs", str(case / "inputs.npz"), "--expect", str(case / "expected.npz"),
                 "--rtol", str(tol["rtol"]), "--atol", str(tol["atol"]), "--format", "json"])
    out = capsys.readouterr()
    if "constant({...})" in (case / text).read_text():
        assert code == 2 and "--xla_dump_large_constants" in out.err
    else:
        assert code == 0, out.out + out.err
