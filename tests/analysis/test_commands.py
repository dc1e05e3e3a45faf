"""The opt, passes, cost and memory commands, driven through their argument parsers
(as `hlotool` does), and `run --pipeline` going through `apply_passes`."""

from __future__ import annotations

import argparse
import importlib
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hlotool.commands.common import UsageError
from hlotool.frontend import parse_hlo
from hlotool.verifier import verify

CORPUS = Path(__file__).parents[1] / "data" / "corpus"
GELU = str(CORPUS / "gelu" / "module.hlo")
SCAN = str(CORPUS / "scan" / "module.hlo")


def command(name: str, *argv: str) -> int:
    """Parse `argv` with the command's own arguments and run it."""
    module = importlib.import_module(f"hlotool.commands.{name}")
    parser = argparse.ArgumentParser(prog=f"hlotool {name}")
    module.add_arguments(parser)
    rc: int = module.run(parser.parse_args(list(argv)))
    return rc


def test_opt_prints_a_module_that_parses(capsys: pytest.CaptureFixture[str]) -> None:
    assert command("opt", GELU, "--pipeline", "cpu") == 0
    module = parse_hlo(capsys.readouterr().out)
    verify(module)
    assert module.config.is_scheduled


def test_opt_dumps_numbered_changed_modules(tmp_path: Path) -> None:
    out = tmp_path / "out.hlo"
    assert (
        command(
            "opt",
            GELU,
            "--passes",
            "instruction-fusion,dce",
            "--dump-dir",
            str(tmp_path / "dump"),
            "-o",
            str(out),
        )
        == 0
    )
    dumps = sorted(p.name for p in (tmp_path / "dump").iterdir())
    assert dumps == ["001-instruction-fusion.hlo"]
    assert (tmp_path / "dump" / dumps[0]).read_text() == out.read_text()


def test_opt_time_passes_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert command("opt", GELU, "--passes", "dce", "--time-passes", "--no-verify-each") == 0
    captured = capsys.readouterr()
    assert "pass timings" in captured.err and "HloModule" in captured.out


@pytest.mark.parametrize(
    "argv",
    [
        ("--passes", "no-such-pass"),
        ("--pipeline", "fast"),
        ("--passes", "memory-scheduler{algorithm=random}"),
    ],
)
def test_opt_bad_pass_names_are_usage_errors(argv: tuple[str, ...]) -> None:
    with pytest.raises(UsageError):
        command("opt", GELU, *argv)


def test_passes_lists_passes_and_pipelines(capsys: pytest.CaptureFixture[str]) -> None:
    assert command("passes", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert {"instruction-fusion", "layout-assignment", "memory-scheduler"} <= set(data["passes"])
    assert list(data["pipelines"]) == ["default", "cpu", "gpu", "spmd", "tpu"]
    assert command("passes", "cpu") == 0
    assert "layout-assignment" in capsys.readouterr().out
    with pytest.raises(UsageError):
        command("passes", "nope")


def test_cost_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert command("cost", GELU, "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["total"]["transcendentals"] > 0 and data["instructions"]
    assert command("cost", GELU, "--pipeline", "cpu", "--sort", "flops", "--top", "3") == 0
    assert "total" in capsys.readouterr().out


def test_memory_writes_an_svg_chart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chart = tmp_path / "chart.svg"
    assert command("memory", SCAN, "--pipeline", "cpu", "-o", str(chart), "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["peak_bytes"] >= 0
    ET.parse(chart)
    assert command("memory", SCAN) == 0
    assert "temp arena" in capsys.readouterr().out


def test_run_with_a_pipeline_goes_through_apply_passes(capsys: pytest.CaptureFixture[str]) -> None:
    case = CORPUS / "gelu"
    assert (
        command(
            "run",
            GELU,
            "--target",
            "interp",
            "--pipeline",
            "cpu",
            "--inputs",
            str(case / "inputs.npz"),
            "--expect",
            str(case / "expected.npz"),
            "--rtol",
            "1e-4",
            "--atol",
            "1e-5",
            "--format",
            "json",
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["ok"]
