"""HloProto files (hlotool.hloproto.reader): a real `--xla_dump_to` folder's `.hlo.pb` and
its `.txt` give the same module and identical results, which match XLA:CPU's; snapshots
carry their run's inputs; the text format reads as the binary; bad input is refused."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from hlotool.cli import main
from hlotool.frontend import parse_hlo
from hlotool.hloproto.reader import read
from hlotool.hloproto.schema import message_class
from hlotool.hloproto.values import literal
from hlotool.ir.printer import print_module
from hlotool.values_io import compare_outputs, load_npz
from tests.hloproto.conftest import DATA, DUMP, MODULES, STAGES, dump_files

CASES = [(name, stem, prefix, stage) for name, stem, prefix in MODULES for stage in STAGES]
IDS = [f"{name}-{stage}" for name, _, _, stage in CASES]
#: Header items that come from XLA's HloModuleConfig, which an HloModuleProto does not hold.
_CONFIG_ONLY = re.compile(r", allow_spmd_sharding_propagation_to_(parameters|output)=\{[^}]*\}")


def _printed(path: Path) -> str:
    data = path.read_bytes()
    text = read(data, str(path)).text if path.suffix in (".pb", ".pbtxt") else data.decode()
    return print_module(parse_hlo(text))


@pytest.mark.parametrize(("name", "stem", "prefix", "stage"), CASES, ids=IDS)
def test_text_and_proto_of_a_dump_print_the_same_module(name: str, stem: str, prefix: str,
                                                        stage: str) -> None:
    txt, pb = dump_files(stem, stage)
    from_text, from_proto = _printed(txt), _printed(pb)
    head_t, _, body_t = from_text.partition("\n")
    head_p, _, body_p = from_proto.partition("\n")
    assert body_p == body_t
    assert head_p == _CONFIG_ONLY.sub("", head_t) and head_p.startswith(f"HloModule {name}")


@pytest.mark.parametrize("target", ["interp", "cpu"])
@pytest.mark.parametrize(("name", "stem", "prefix", "stage"), CASES, ids=IDS)
def test_text_and_proto_run_to_identical_results_and_to_xla(
        tmp_path: Path, name: str, stem: str, prefix: str, stage: str, target: str) -> None:
    inputs, expected = DATA / f"{prefix}.inputs.npz", DATA / f"{prefix}.expected.npz"
    outs = []
    for path in dump_files(stem, stage):
        out = tmp_path / f"{path.name}.npz"
        assert main(["run", str(path), "--target", target, "--inputs", str(inputs),
                     "--output", str(out)]) == 0
        outs.append(load_npz(out))
    assert outs[0].keys() == outs[1].keys()
    for key in outs[0]:
        assert outs[0][key].tobytes() == outs[1][key].tobytes(), key
    diffs = compare_outputs(outs[1], load_npz(expected), 1e-5, 1e-6)
    assert all(d.ok for d in diffs), [d.as_json() for d in diffs if not d.ok]


@pytest.mark.parametrize(("name", "stem", "prefix"), MODULES, ids=[m[0] for m in MODULES])
def test_snapshots_hold_the_run_and_run_with_its_arguments(tmp_path: Path, name: str, stem: str,
                                                           prefix: str) -> None:
    [snap] = DUMP.glob(f"{stem}.snapshot.*.pb")
    proto = read(snap.read_bytes(), str(snap))
    assert proto.kind == "HloSnapshot" and proto.arguments is not None
    inputs = load_npz(DATA / f"{prefix}.inputs.npz")
    assert proto.arguments.keys() == inputs.keys()
    for key, value in inputs.items():
        assert proto.arguments[key].tobytes() == value.tobytes()
    msg = message_class("HloSnapshot")()
    msg.ParseFromString(snap.read_bytes())
    expected = load_npz(DATA / f"{prefix}.expected.npz")
    recorded = literal(msg.result).leaves()
    assert [a.tobytes() for a in recorded] == [expected[f"out{i}"].tobytes()
                                               for i in range(len(expected))]
    out = tmp_path / "out.npz"
    assert main(["run", str(DUMP), "--module", name, "--stage", "snapshot", "--target", "interp",
                 "--output", str(out), "--expect", str(DATA / f"{prefix}.expected.npz")]) == 0


def test_text_format_reads_as_the_binary() -> None:
    _, pb = dump_files("module_0002.jit_loop", "after")
    pbtxt = DATA / "jit_loop.after.hlo.pbtxt"
    assert read(pbtxt.read_bytes(), str(pbtxt)).kind == "HloProto"
    assert _printed(pbtxt) == _printed(pb)


def test_a_bare_module_proto_and_its_text_format_are_recognised(tmp_path: Path) -> None:
    _, pb = dump_files("module_0000.jit_mlp", "before")
    msg = message_class("HloProto")()
    msg.ParseFromString(pb.read_bytes())
    from google.protobuf import text_format

    bare = tmp_path / "module.bin"
    bare.write_bytes(msg.hlo_module.SerializeToString())
    as_text = tmp_path / "module.txt"
    as_text.write_text(text_format.MessageToString(msg.hlo_module))
    want = read(pb.read_bytes()).text
    for path in (bare, as_text):
        got = read(path.read_bytes(), str(path))
        assert (got.kind, got.text) == ("HloModuleProto", want)
    assert main(["parse", str(bare)]) == 0 and main(["parse", str(as_text)]) == 0


def test_text_format_errors_point_into_the_file(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('hlo_module {\n  name: "m"\n  computations { nmae: "x" }\n}\n')
    assert main(["parse", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:3:") and "nmae" in err and "^" in err


def test_truncated_proto_is_refused_without_echo(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, pb = dump_files("module_0002.jit_loop", "after")
    cut = tmp_path / "cut.pb"
    cut.write_bytes(pb.read_bytes()[: pb.stat().st_size // 2])
    assert main(["parse", str(cut)]) == 2
    err = capsys.readouterr().err
    assert "decodes as no HloModuleProto, HloProto or HloSnapshot" in err and "\0" not in err


def test_an_error_in_the_module_points_into_its_hlo_text(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    _, pb = dump_files("module_0000.jit_mlp", "before")
    msg = message_class("HloProto")()
    msg.ParseFromString(pb.read_bytes())
    msg.hlo_module.computations[-1].instructions[-1].opcode = "frobnicate"
    broken = tmp_path / "broken.pb"
    broken.write_bytes(msg.SerializeToString())
    assert main(["parse", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "(HloProto as HLO text):" in err and "unknown opcode 'frobnicate'" in err


@pytest.mark.parametrize("command", [
    ["print"], ["opt", "--pipeline", "cpu"], ["cost"], ["memory"], ["graph", "-o", "{tmp}/g.dot"],
    ["compile", "--target", "cpu", "--emit", "llvm"],
])
def test_every_command_takes_a_proto(tmp_path: Path, command: list[str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    txt, pb = dump_files("module_0002.jit_loop", "after")
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    assert main([args[0], str(txt), *args[1:]]) == 0
    from_text = capsys.readouterr().out
    if args[0] == "graph":
        from_text = (tmp_path / "g.dot").read_text()
    assert main([args[0], str(pb), *args[1:]]) == 0
    from_proto = capsys.readouterr().out
    if args[0] == "graph":
        from_proto = (tmp_path / "g.dot").read_text()
    assert _CONFIG_ONLY.sub("", from_text) == from_proto


def test_ls_counts_the_instructions_of_protos_and_snapshots(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["ls", str(DUMP), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    counts: dict[tuple[str, str], set[int]] = {}
    for r in rows:
        stage = "after" if r["stage"] == "snapshot" else r["stage"]
        counts.setdefault((r["name"], stage), set()).add(r["instructions"])
    assert len(rows) == 15 and all(len(c) == 1 and None not in c for c in counts.values())
    assert {r["stage"] for r in rows} == {"before", "after", "snapshot"}


def test_reading_a_proto_without_protobuf_says_how_to_get_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    _, pb = dump_files("module_0000.jit_mlp", "before")
    code = ("import sys; sys.modules['google.protobuf'] = None\n"
            "from hlotool.cli import main\n"
            f"sys.exit(main(['parse', {str(pb)!r}]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2 and "pip install 'hlotool[proto]'" in out.stderr


def test_snapshot_arguments_flatten_tuples() -> None:
    lit = message_class("LiteralProto")()
    lit.shape.element_type = 13
    a = lit.tuple_literals.add()
    a.shape.element_type, a.f32s[:] = 11, [2.5]
    b = lit.tuple_literals.add()
    b.shape.element_type = 4
    b.shape.dimensions[:] = [2]
    b.s32s[:] = [7, -1]
    leaves = literal(lit).leaves()
    assert [x.tolist() for x in leaves] == [2.5, [7, -1]]
    assert leaves[1].dtype == np.int32
