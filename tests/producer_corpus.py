"""Checks shared by the producer corpora (tests/data/corpus_jax012, corpus_tf,
corpus_torch_xla): every text parses and prints to a fixed point; every module runs to the
producer's own XLA:CPU outputs, except those that read constants the dump elided, which are
refused with the clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hlotool.cli import main
from hlotool.frontend import parse_text
from hlotool.ir.printer import print_module
from hlotool.stablehlo.printer import print_stablehlo

DATA = Path(__file__).resolve().parent / "data"
TEXTS = ("module.hlo", "module.opt.hlo", "module.stablehlo.mlir")


def cases(folder: str) -> list[Path]:
    """The case folders of tests/data/`folder`."""
    return sorted(p for p in (DATA / folder).iterdir() if (p / "case.json").exists())


def meta(case: Path) -> dict:
    return json.loads((case / "case.json").read_text())


def runs(corpus: list[Path], targets: dict[str, tuple[str, ...]]) -> list:
    """pytest params (case, text, target) for each text's targets, with readable ids."""
    return [pytest.param(c, t, g, id=f"{c.name}/{t}/{g}")
            for c in corpus for t in TEXTS for g in targets[t]]


def check_round_trip(case: Path) -> None:
    """Each text parses, and printing what it parsed to is a fixed point."""
    for name in TEXTS:
        module = parse_text((case / name).read_text(), name)
        printer = print_stablehlo if name.endswith(".mlir") else print_module
        once = printer(module)
        assert printer(parse_text(once, name)) == once, name


def check_run(case: Path, text: str, target: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`hlotool run` of one text matches expected.npz within the case's tolerance, or,
    when the text reads an elided constant, refuses with exit 2 and says how to get it."""
    tol = meta(case)["tolerance"]
    code = main(["run", str(case / text), "--target", target,
                 "--inputs", str(case / "inputs.npz"), "--expect", str(case / "expected.npz"),
                 "--rtol", str(tol["rtol"]), "--atol", str(tol["atol"]), "--format", "json"])
    out = capsys.readouterr()
    if "constant({...})" in (case / text).read_text():
        assert code == 2 and "--xla_dump_large_constants" in out.err
    else:
        assert code == 0, out.out + out.err
