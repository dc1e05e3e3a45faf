"""Run a module on real XLA:CPU through jaxlib (the optional `jax` extra), as described
with the jaxlib APIs checked on jax 0.10, 0.11 and 0.12 (private ones: the extra pins them)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from hlotool.diagnostics import HloError

#: The jax versions whose private jaxlib APIs this module was checked with.
SUPPORTED = ("0.10.", "0.11.", "0.12.")
NEEDS = "--reference xla needs jax 0.10 to 0.12 (pip install 'hlotool[jax]')"


def _jax() -> Any:
    try:
        import jax
    except ImportError:
        raise HloError(NEEDS) from None
    if not jax.__version__.startswith(SUPPORTED):
        raise HloError(f"{NEEDS}; found jax {jax.__version__}")
    return jax


def hlo_to_stablehlo_text(hlo_text: str) -> str:
    """XLA's own parser, then XLA's HLO->StableHLO translation, as MLIR text."""
    _jax()
    import jaxlib._hlo as hlo  # type: ignore[import-not-found]
    from jax._src.interpreters import mlir
    from jax._src.lib import _jax as jaxlib_jax  # type: ignore[attr-defined]
    from jax._src.lib.mlir import ir

    proto = hlo.hlo_module_from_text(hlo_text).as_serialized_hlo_module_proto()
    bytecode = jaxlib_jax.mlir.hlo_to_stablehlo(proto)
    with mlir.make_ir_context():
        return str(ir.Module.parse(bytecode))


def compile_xla(text: str, is_stablehlo: bool = False) -> Any:
    """A loaded XLA:CPU executable for HLO or StableHLO text."""
    jax = _jax()
    from jax._src import xla_bridge
    from jax._src.lib import xla_client

    mlir_text = text if is_stablehlo else hlo_to_stablehlo_text(text)
    backend = xla_bridge.get_backend("cpu")
    devices = xla_client.DeviceList(tuple(backend.devices()[:1]))
    del jax
    return backend.compile_and_load(mlir_text, devices, xla_client.CompileOptions())


def run_xla(text: str, args: list[Any], filename: str = "", timeout: float = 600) -> tuple[Any, ...]:
    """Outputs of running the module on XLA:CPU (flattened leaves). XLA runs in a child
    process: some inputs (LAPACK custom calls in HLO text, bad modules) crash it."""
    _jax()
    import tempfile
    from pathlib import Path

    from hlotool.frontend import is_stablehlo_text
    from hlotool.interpreter.core import flatten
    from hlotool.values_io import load_npz, save_npz

    leaves = [a for arg in args for a in flatten(arg)]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        suffix = ".mlir" if is_stablehlo_text(text, filename) else ".hlo"
        (d / f"module{suffix}").write_text(text)
        save_npz(d / "inputs.npz", {f"arg{i}": a for i, a in enumerate(leaves)})
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        proc = subprocess.run([sys.executable, "-m", "hlotool.reference", str(d), suffix],
                              capture_output=True, text=True, timeout=timeout, env=env)
        if proc.returncode != 0:
            lines = (proc.stderr or "").strip().splitlines()
            why = lines[-1] if lines else f"it crashed (exit status {proc.returncode})"
            raise HloError(f"XLA:CPU could not run this module: {why}")
        outs = load_npz(d / "outputs.npz")
    return tuple(outs[f"out{i}"] for i in range(len(outs)))


def _child(folder: str, suffix: str) -> None:
    """The child process of run_xla: compile and run, write outputs.npz."""
    from pathlib import Path

    import numpy as np

    from hlotool.values_io import load_npz, save_npz

    jax = _jax()
    # Keep 64-bit inputs 64-bit, and register the LAPACK kernels that custom calls in
    # HLO text refer to (without this XLA:CPU crashes on them).
    jax.config.update("jax_enable_x64", True)
    from jax._src.lax import linalg

    linalg.initialize_lapack()
    d = Path(folder)
    text = (d / f"module{suffix}").read_text()
    if suffix == ".hlo":
        check_parses(text)
    exe = compile_xla(text, suffix == ".mlir")
    inputs = load_npz(d / "inputs.npz")
    leaves = [inputs[f"arg{i}"] for i in range(len(inputs))]
    outs = exe.execute([jax.device_put(a) for a in leaves])
    save_npz(d / "outputs.npz", {f"out{i}": np.asarray(o) for i, o in enumerate(outs)})


def check_parses(hlo_text: str, timeout: float = 60) -> None:
    """Ask XLA's parser in a child process (it aborts the process on some bad input)."""
    _jax()
    code = "import sys, jaxlib._hlo as h; h.hlo_module_from_text(sys.stdin.read())"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", code], input=hlo_text, text=True,
                          capture_output=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        lines = (proc.stderr or "").strip().splitlines()
        said = [ln.strip() for ln in lines if "error:" in ln] or lines[-1:] or ["crashed"]
        raise HloError("XLA's parser rejects this module: " + said[-1])


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
