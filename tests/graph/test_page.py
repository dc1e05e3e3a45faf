"""`hlotool view`: the interactive page, driven in a real headless browser (Debian's
chromium; `.ci/run` installs it). The page's own self-test (`?selftest`) expands a fusion
and finds an instruction by name through the page's JS, and leaves its results in the DOM,
which `chromium --dump-dom` prints."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from hlotool.cli import main
from hlotool.frontend import parse_text
from hlotool.graph.page import build_page, page_model

EXAMPLES = Path(__file__).parents[2] / "examples"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def deep_module_text(layers: int) -> str:
    """A module like a deep MLP after XLA's fusion: per layer a dot, a loop fusion of
    eleven instructions (bias, gelu-like tanh, scale), a reduce and a broadcast."""
    lines = ["HloModule deep", "",
             "add {", "  x = f32[] parameter(0)", "  y = f32[] parameter(1)",
             "  ROOT s = f32[] add(x, y)", "}", ""]
    for i in range(layers):
        body = ["p0 = f32[8,64]{1,0} parameter(0)", "p1 = f32[64]{0} parameter(1)",
                "b = f32[8,64]{1,0} broadcast(p1), dimensions={1}",
                "a = f32[8,64]{1,0} add(p0, b)", "m = f32[8,64]{1,0} multiply(a, a)",
                "m3 = f32[8,64]{1,0} multiply(m, a)", "t = f32[8,64]{1,0} tanh(m3)",
                "c = f32[] constant(0.5)", "cb = f32[8,64]{1,0} broadcast(c), dimensions={}",
                "u = f32[8,64]{1,0} add(t, cb)", "v = f32[8,64]{1,0} multiply(u, a)",
                "ROOT g = f32[8,64]{1,0} multiply(v, cb)"]
        # names are unique in the module, as XLA writes them: every name gets .i
        renamed = [re.sub(r"\b(p0|p1|b|a|m|m3|t|c|cb|u|v|g)\b(?![\[.])", rf"\1.{i}", line)
                   for line in body]
        lines += [f"fused_gelu.{i} {{", *(f"  {line}" for line in renamed), "}", ""]
    lines += ["ENTRY main {", "  x.0 = f32[8,64]{1,0} parameter(0)",
              "  w = f32[64,64]{1,0} parameter(1)", "  bias = f32[64]{0} parameter(2)",
              "  zero = f32[] constant(0)"]
    for i in range(layers):
        lines += [f"  dot.{i} = f32[8,64]{{1,0}} dot(x.{i}, w), lhs_contracting_dims={{1}}, "
                  "rhs_contracting_dims={0}",
                  f"  fusion.{i} = f32[8,64]{{1,0}} fusion(dot.{i}, bias), kind=kLoop, "
                  f"calls=fused_gelu.{i}",
                  f"  sum.{i} = f32[8]{{0}} reduce(fusion.{i}, zero), dimensions={{1}}, "
                  "to_apply=add",
                  f"  x.{i + 1} = f32[8,64]{{1,0}} broadcast(sum.{i}), dimensions={{0}}"]
    lines += [f"  ROOT out = f32[8,64]{{1,0}} add(x.{layers}, x.0)", "}", ""]
    return "\n".join(lines)


def run_page(page: Path, query: str, *, screenshot: Path | None = None) -> tuple[dict, float]:
    """Open the page in headless chromium; its self-test results and the wall time."""
    assert CHROMIUM, "chromium is needed (apt-get install chromium; .ci/run installs it)"
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--window-size=1400,900", f"--user-data-dir={page.parent / 'profile'}"]
    args += [f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    started = time.perf_counter()
    out = subprocess.run([*args, f"{page.as_uri()}?{query}"], capture_output=True, text=True,
                         timeout=120)
    wall = time.perf_counter() - started
    if screenshot:
        return {}, wall
    found = re.search(r'<pre id="selftest"[^>]*>([^<]*)</pre>', out.stdout)
    assert found, f"no self-test result in the page (stderr: {out.stderr[-2000:]})"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")), wall


def test_model_lays_out_every_computation() -> None:
    module = parse_text((EXAMPLES / "while_loop.hlo").read_text())
    model = page_model(module)
    assert set(model["computations"]) == {c.name for c in module.computations}
    entry = model["computations"][model["entry"]]["nodes"]
    for node in entry:  # operands sit in earlier layers
        assert all(entry[j]["L"] < node["L"] for j in node["a"])
    loop = next(n for n in entry if n["o"] == "while")
    assert len(loop["c"]) == 2  # condition and body expand in place
    assert sum(1 for n in entry if n.get("root")) == 1


def test_page_is_self_contained() -> None:
    html = build_page(parse_text((EXAMPLES / "mlp_forward.opt.hlo").read_text()))
    assert "<script src" not in html and "http://" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "").replace('"http://www.w3.org/2000/svg"', "")
    assert "https://" not in html


def test_view_command_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "v.html"
    assert main(["view", str(EXAMPLES / "mlp_forward.opt.hlo"), "--diff-from",
                 str(EXAMPLES / "mlp_forward.hlo"), "-o", str(out)]) == 0
    assert f"wrote {out.resolve()}" in capsys.readouterr().out
    model = json.loads(re.search(r'<script id="model" type="application/json">(.*?)</script>',
                                 out.read_text(), re.S).group(1))
    assert model["diff"]["fused into"] > 0 and model["diffFrom"]
    assert main(["graph", str(EXAMPLES / "mlp_forward.opt.hlo"), "-o",
                 str(tmp_path / "g.html")]) == 0
    assert "hlotoolView" in (tmp_path / "g.html").read_text()


def test_16k_instruction_module_in_a_headless_browser(tmp_path: Path) -> None:
    text = deep_module_text(1000)
    module = parse_text(text)
    assert module.instruction_count >= 16000
    page = tmp_path / "deep.html"
    page.write_text(build_page(module))
    target = "t.417"  # an instruction inside a fusion: finding it expands fusion.417
    result, wall = run_page(page, f"selftest&find={target}")
    # the page's JS: parsed the model, laid out and drew the entry within 3 s
    assert result["readyMs"] < 3000, result
    expanded = result["expanded"]
    assert expanded["open"] and expanded["innerBoxes"] == 12 and expanded["innerInDom"] >= 1
    found = result["find"]
    assert found["hits"] >= 1 and found["selected"] == target
    assert found["computation"] == "fused_gelu.417" and found["inDom"]
    assert found["panel"] == target
    print(f"16k module: ready {result['readyMs']:.0f} ms in the page, "
          f"{wall:.1f} s for the whole chromium run")


def test_screenshot_shows_an_expanded_fusion(tmp_path: Path) -> None:
    page = tmp_path / "mlp.html"
    page.write_text(build_page(parse_text((EXAMPLES / "mlp_forward.opt.hlo").read_text())))
    shot = tmp_path / "mlp.png"
    run_page(page, "selftest&find=dot_general.0", screenshot=shot)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
