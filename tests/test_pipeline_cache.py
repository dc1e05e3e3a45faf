"""The pass pipelines' disk cache: a hit gives the module the passes give, in full; a
damaged, planted or stale entry is never used."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from hlotool.cli import main
from hlotool.commands.opt import apply_passes
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.ir.printer import print_module
from hlotool.ir.structure import fingerprint
from hlotool.pipeline_cache import optimize, pipeline_key
from hlotool.sealed import SealedDir
from hlotool.values_io import output_arrays
from tests.conftest import CASES

EXAMPLES = Path(__file__).parent.parent / "examples"
SOFTMAX = (EXAMPLES / "softmax.hlo").read_text()


def _entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.hlo.z"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_printing_and_parsing_keeps_the_optimized_module(case: Path) -> None:
    module = parse_hlo((case / "module.hlo").read_text())
    apply_passes(module, "cpu", None, verify_each=False)
    text = print_module(module)
    again = parse_hlo(text)
    assert fingerprint(again, names=True) == fingerprint(module, names=True)
    assert print_module(again) == text


def test_a_hit_gives_what_the_passes_give(tmp_path: Path) -> None:
    first = optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path)
    assert not first.cached and len(_entries(tmp_path)) == 1
    second = optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path)
    assert second.cached
    assert print_module(second.module) == print_module(first.module)
    x = np.random.default_rng(0).standard_normal((4, 6, 10)).astype(np.float32)
    want = output_arrays(Evaluator(parse_hlo(SOFTMAX)).run([x]))
    got = output_arrays(Evaluator(second.module).run([x]))
    assert list(got) == list(want)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-7)


def test_keys_differ_by_pipeline_and_by_module() -> None:
    text = print_module(parse_hlo(SOFTMAX))
    assert pipeline_key(text, "cpu") != pipeline_key(text, "gpu")
    assert pipeline_key(text, "cpu") != pipeline_key(text.replace("ENTRY", "ENTRY ", 1), "cpu")


def test_metadata_is_part_of_the_key(tmp_path: Path) -> None:
    plain = optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path).module
    tagged = SOFTMAX.replace("exponential(sub.27)", 'exponential(sub.27), metadata={op_name="tagged"}')
    run = optimize(parse_hlo(tagged), "cpu", cache_dir=tmp_path)
    assert not run.cached and len(_entries(tmp_path)) == 2
    assert "tagged" in print_module(run.module) and "tagged" not in print_module(plain)


def test_no_cache_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the caches off nothing is written where the default cache would be."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", "off")
    assert not optimize(parse_hlo(SOFTMAX), "cpu").cached
    assert not optimize(parse_hlo(SOFTMAX), "cpu").cached
    assert not optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=None).cached
    assert not list(tmp_path.iterdir())
    monkeypatch.delenv("HLOTOOL_CACHE_DIR")  # the default: under XDG_CACHE_HOME
    assert not optimize(parse_hlo(SOFTMAX), "cpu").cached
    assert optimize(parse_hlo(SOFTMAX), "cpu").cached
    assert _entries(tmp_path / "hlotool" / "pipelines")


def test_a_damaged_entry_runs_the_passes_again(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    want = print_module(optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path).module)
    (entry,) = _entries(tmp_path)
    data = bytearray(entry.read_bytes())
    data[-5] ^= 0xFF
    entry.write_bytes(bytes(data))
    run = optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path)
    assert not run.cached and print_module(run.module) == want
    assert "ignoring" in capsys.readouterr().err
    assert optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path).cached  # replaced


UNDEFINED_OPERAND = b"HloModule m\nENTRY e {\n  ROOT p = f32[2] add(f32[2] q, f32[2] q)\n}\n"


@pytest.mark.parametrize("payload", [b"not an entry", b"hlotool-pipeline 1\nnot zlib",
                                     b"hlotool-pipeline 1\n" + zlib.compress(UNDEFINED_OPERAND)],
                         ids=["magic", "zlib", "module"])
def test_a_signed_entry_that_is_no_valid_module_is_not_used(
        tmp_path: Path, payload: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    module = parse_hlo(SOFTMAX)
    key = pipeline_key(print_module(module), "cpu")
    store = SealedDir.open(tmp_path)
    assert store is not None
    store.write(f"{key[:2]}/{key}.hlo.z", payload)
    run = optimize(module, "cpu", cache_dir=tmp_path)
    assert not run.cached
    assert "ignoring cache file" in capsys.readouterr().err


def test_run_reports_the_cached_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    args = ["run", str(EXAMPLES / "softmax.hlo"), "--inputs", str(EXAMPLES / "softmax.inputs.npz"),
            "--bench", "2", "--format", "json"]
    reports = []
    for _ in range(2):
        assert main(args) == 0
        reports.append(json.loads(capsys.readouterr().out.strip().splitlines()[-1]))
    assert [r["passes_cached"] for r in reports] == [False, True]
    assert all(r["passes_seconds"] > 0 for r in reports)
    assert reports[0]["outputs"] == reports[1]["outputs"]
    assert main(["run", str(EXAMPLES / "softmax.hlo"), "--inputs",
                 str(EXAMPLES / "softmax.inputs.npz"), "--bench", "2"]) == 0
    assert "passes (cached)" in capsys.readouterr().out


def test_a_module_unchanged_since_parsing_is_keyed_by_its_source(tmp_path: Path) -> None:
    source = "hlo\n" + SOFTMAX
    first = optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path, source=source)
    (entry,) = _entries(tmp_path)
    assert not first.cached and entry.name.startswith(pipeline_key(source, "cpu", source=True))
    assert pipeline_key(source, "cpu", source=True) != pipeline_key(source, "cpu")
    second = optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path, source=source)
    assert second.cached
    assert print_module(second.module) == print_module(first.module)
    by_module = optimize(parse_hlo(SOFTMAX), "cpu", cache_dir=tmp_path)
    assert not by_module.cached and len(_entries(tmp_path)) == 2
    assert print_module(by_module.module) == print_module(first.module)


def _sources_keyed(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[str | None]:
    """The `source` each pipeline run of `hlotool run ARGV` was keyed by."""
    import hlotool.pipeline_cache as pipeline_cache

    seen: list[str | None] = []
    real = pipeline_cache.optimize

    def recording(module, pipeline, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs.get("source"))
        return real(module, pipeline, **kwargs)

    monkeypatch.setattr(pipeline_cache, "optimize", recording)
    assert main(["run", *argv, "--format", "json"]) == 0
    return seen


def test_run_keys_by_the_source_only_while_nothing_changed_the_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    softmax = [str(EXAMPLES / "softmax.hlo"), "--inputs", str(EXAMPLES / "softmax.inputs.npz")]
    assert _sources_keyed(monkeypatch, softmax) == ["hlo\n" + SOFTMAX]
    assert _sources_keyed(monkeypatch, [*softmax, "--passes", "dce"]) == [None]
    assert _sources_keyed(monkeypatch, [*softmax, "--pipeline", "default"]) == [None]
    poly = Path(__file__).parent / "data" / "corpus" / "dynamic_shape_poly"
    assert _sources_keyed(monkeypatch, [str(poly / "module.stablehlo.mlir"), "--inputs",
                                        str(poly / "inputs.npz")]) == [None]  # specialized
    mlir = EXAMPLES / "softmax.mlir"
    assert _sources_keyed(monkeypatch, [str(mlir)]) == ["stablehlo\n" + mlir.read_text()]
    capsys.readouterr()
