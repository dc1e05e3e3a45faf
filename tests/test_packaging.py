"""A non-editable install works: the wheel carries the grammars, hlotool.passes and
hlotool.targets, and its `hlotool` command runs from anywhere."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_wheel_installs_and_runs(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel = next(wheels.glob("hlotool-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("hlotool/grammar/hlo.lark", "hlotool/grammar/common.lark",
                   "hlotool/passes/dce.py", "hlotool/targets/__init__.py",
                   "hlotool/hlo/parser.py", "hlotool/analysis/cost.py",
                   "hlotool/targets/cpu/jit.py"):
        assert needed in names, needed
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    # The dependencies come from this environment (a .pth line adds its site-packages
    # without running its .pth files, so the editable hlotool there stays invisible).
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = venv / "bin" / "pip"
    subprocess.run([str(pip), "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    example = ROOT / "examples" / "softmax.hlo"
    out = subprocess.run([str(venv / "bin" / "hlotool"), "parse", str(example)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("jit_softmax:")
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import hlotool.passes.dce as d; print(d.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True)
    assert str(venv) in where.stdout
