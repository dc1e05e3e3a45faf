"""`hlotool --version`, and `--help` as a man page: every option explained, defaults
shown, examples and exit statuses for every command."""

from __future__ import annotations

import argparse

import pytest

from hlotool.cli import build_parser, main
from hlotool.commands import COMMANDS


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("hlotool ") and out.split()[1][0].isdigit()


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_option_has_help() -> None:
    for name, sp in _subparsers().items():
        for action in sp._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_has_defaults_examples_and_exit_status(command: str) -> None:
    text = _subparsers()[command].format_help()
    assert "examples:" in text and f"hlotool {command}" in text.split("examples:")[1]
    assert "exit status: 0" in text
    assert "(default: None)" not in text


def test_run_help_shows_the_tolerances() -> None:
    text = " ".join(_subparsers()["run"].format_help().split())
    assert "--rtol RTOL relative tolerance" in text and "(default 1e-5; 2 ulps, 2*eps, for bf16/f16/f8" in text
    assert "(default: None)" not in text
    assert "--seed SEED seed of the random inputs" in text and "(default: 0)" in text
