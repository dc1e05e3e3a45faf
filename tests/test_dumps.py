"""Dump folders (`--xla_dump_to`): listing, choosing a module and stage, binary refusal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hlotool.cli import main
from hlotool.dumps import scan, select

DUMP = Path(__file__).resolve().parent / "data" / "dump_jax"
BEFORE = DUMP / "module_0000.jit__lambda.before_optimizations.txt"
AFTER = DUMP / "module_0000.jit__lambda.cpu_after_optimizations.txt"


def _two_producers(tmp_path: Path) -> Path:
    """A folder with JAX's module and the same text under PyTorch/XLA's and TF-on-GPU's
    naming (module names with dots, a GPU stage prefix with a dot)."""
    d = tmp_path / "dump"
    shutil.copytree(DUMP, d)
    shutil.copy(BEFORE, d / "module_0007.SyncTensorsGraph.123.before_optimizations.txt")
    shutil.copy(AFTER, d / "module_0012.a_inference_f_12__.sm_8.0_gpu_after_optimizations.txt")
    return d


def test_scan_reads_the_real_jax_dump() -> None:
    files = [(f.id, f.name, f.stage, f.is_proto) for f in scan(DUMP)]
    assert files == [("0000", "jit__lambda", "before", False), ("0000", "jit__lambda", "before", True),
                     ("0000", "jit__lambda", "after", False), ("0000", "jit__lambda", "after", True)]


def test_names_of_other_producers(tmp_path: Path) -> None:
    d = _two_producers(tmp_path)
    names = {(f.id, f.name, f.stage) for f in scan(d)}
    assert ("0007", "SyncTensorsGraph.123", "before") in names
    assert ("0012", "a_inference_f_12__", "after") in names
    assert select(d, "7", None).path.name.startswith("module_0007.")
    assert select(d, "a_inference_f_12__", "after").stage == "after"


def test_ls_lists_modules_with_instruction_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ls", str(DUMP), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    text_rows = [r for r in rows if r["file"].endswith(".txt")]
    assert [(r["stage"], r["instructions"]) for r in text_rows] == [("before", 9), ("after", 14)]


def test_commands_take_the_folder_and_match_the_file(tmp_path: Path) -> None:
    for stage, path in (("before", BEFORE), ("after", AFTER)):
        a, b = tmp_path / f"dir.{stage}.npz", tmp_path / f"file.{stage}.npz"
        assert main(["run", str(DUMP), "--stage", stage, "--target", "interp", "--output", str(a)]) == 0
        assert main(["run", str(path), "--target", "interp", "--output", str(b)]) == 0
        assert a.read_bytes() == b.read_bytes()


def test_several_modules_need_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _two_producers(tmp_path)
    assert main(["parse", str(d)]) == 2
    err = capsys.readouterr().err
    assert "holds 3 modules" in err and "--module" in err
    assert main(["parse", str(d), "--module", "nope"]) == 2
    assert "no module 'nope'" in capsys.readouterr().err
    assert main(["parse", str(d), "--module", "jit__lambda", "--stage", "after"]) == 0


def test_the_proto_of_a_dump_reads_as_its_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(AFTER)]) == 0
    text = capsys.readouterr().out
    assert main(["parse", str(AFTER.with_name(AFTER.name.replace(".txt", ".hlo.pb")))]) == 0
    assert capsys.readouterr().out == text


def test_binary_input_is_refused_without_echo(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    pb = DUMP / "module_0000.jit__lambda.cpu_after_optimizations.hlo.pb"
    broken = tmp_path / "broken.hlo"
    broken.write_bytes(b"\x00\xff\x1b[2J" + pb.read_bytes()[7:200])
    assert main(["parse", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "is a binary file" in err and "\0" not in err and "\x1b" not in err and len(err) < 300


def test_graph_diff_pairs_a_dump_before_and_after(tmp_path: Path) -> None:
    paired, files = tmp_path / "dir.dot", tmp_path / "files.dot"
    assert main(["graph", "--diff", str(DUMP), "-o", str(paired)]) == 0
    assert main(["graph", "--diff", str(BEFORE), str(AFTER), "-o", str(files)]) == 0
    assert paired.read_text() == files.read_text()


def test_a_folder_of_protos_only_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Dumped with --xla_dump_hlo_as_proto alone: DIR --module --stage reads the .hlo.pb,
    and graph --diff pairs before and after as it does for text."""
    real = DUMP.parent / "dump_proto" / "dump"
    protos = tmp_path / "protos"
    protos.mkdir()
    for p in real.glob("module_0002.*.hlo.pb"):
        shutil.copy(p, protos / p.name)
    for stage in ("before", "after"):
        assert main(["parse", str(protos), "--module", "jit_loop", "--stage", stage]) == 0
        from_proto = capsys.readouterr().out
        assert main(["parse", str(real), "--module", "2", "--stage", stage]) == 0
        assert capsys.readouterr().out == from_proto
    assert main(["graph", "--diff", str(protos), "-o", str(tmp_path / "d.dot")]) == 0
    assert "fusion" in (tmp_path / "d.dot").read_text()
