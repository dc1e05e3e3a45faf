"""Run a module on real XLA:CPU through jaxlib (the optional `jax` extra), as described
in ../shared/docs/xla-reference.md. Private jaxlib APIs: pinned to jax 0.10.x."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from hlotool.diagnostics import HloError

NEEDS = "--reference xla needs jax 0.10.x (pip install 'hlotool[jax]')"


def _jax() -> Any:
    try:
        import jax
    except ImportError:
        raise HloError(NEEDS) from None
    if not jax.__version__.startswith("0.10."):
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


def run_xla(text: str, args: list[Any], filename: str = "") -> tuple[Any, ...]:
    """Outputs of running the module on XLA:CPU (flattened leaves)."""
    jax = _jax()
    import numpy as np

    from hlotool.frontend import is_stablehlo_text
    from hlotool.interpreter.core import flatten

    check_parses(text) if not is_stablehlo_text(text, filename) else None
    exe = compile_xla(text, is_stablehlo_text(text, filename))
    leaves = [a for arg in args for a in flatten(arg)]
    outs = exe.execute([jax.device_put(np.asarray(a)) for a in leaves])
    return tuple(np.asarray(o) for o in outs)


def check_parses(hlo_text: str, timeout: float = 60) -> None:
    """Ask XLA's parser in a child process (it aborts the process on some bad input)."""
    _jax()
    code = "import sys, jaxlib._hlo as h; h.hlo_module_from_text(sys.stdin.read())"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", code], input=hlo_text, text=True,
                          capture_output=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        lines = (proc.stderr or "").strip().splitlines()
        raise HloError("XLA's parser rejects this module: " + (lines[-1] if lines else "crashed"))
