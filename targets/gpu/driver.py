"""The CUDA driver through `cuda.bindings.driver` (the `gpu` extra): probe, load, launch.

`probe()` asks a subprocess (timeout `PROBE_TIMEOUT`) whether `cuInit` works and which
device and driver version answer: a missing or hung driver cannot hang or crash this
process (cuda-python's first failed probe can leave later calls hanging). The answer is
cached for the process and in $HLOTOOL_CACHE_DIR (or ~/.cache/hlotool)/gpu-probe.json
for `PROBE_TTL` seconds. `DeviceBackend` builds PTX for the device's compute
capability, assembles it with ptxas when one is found (else the driver JIT-compiles the
PTX), loads it with cuModuleLoadData and launches kernels on device copies of the
buffers, copying the outputs back.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

PROBE_TIMEOUT = 20.0
PROBE_TTL = 600.0

_PROBE = r"""
import json
try:
    from cuda.bindings import driver as d
except Exception as e:
    print(json.dumps({"ok": False, "message": f"cuda-python is not installed ({e.__class__.__name__}); pip install 'hlotool[gpu]'"})); raise SystemExit
try:
    err, = d.cuInit(0)
except Exception as e:
    print(json.dumps({"ok": False, "message": "no CUDA driver: " + str(e).splitlines()[0][:160]})); raise SystemExit
if err != d.CUresult.CUDA_SUCCESS:
    print(json.dumps({"ok": False, "message": f"cuInit failed: {err.name}"})); raise SystemExit
err, n = d.cuDeviceGetCount()
if err != d.CUresult.CUDA_SUCCESS or n == 0:
    print(json.dumps({"ok": False, "message": "the CUDA driver sees no GPU"})); raise SystemExit
err, dev = d.cuDeviceGet(0)
_, name = d.cuDeviceGetName(100, dev)
A = d.CUdevice_attribute
_, major = d.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
_, minor = d.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
_, version = d.cuDriverGetVersion()
print(json.dumps({"ok": True, "message": "", "device": name.split(b"\0")[0].decode(),
                  "capability": [major, minor], "driver": version}))
"""


class DriverError(RuntimeError):
    """A one-line reason the device cannot be used (no driver, bad PTX, a failed launch)."""


@dataclass(frozen=True, slots=True)
class Probe:
    ok: bool
    message: str
    device: str = ""
    capability: tuple[int, int] = (0, 0)
    driver: int = 0

    @property
    def arch(self) -> str:
        """The sm_XY to compile for (sm_90 for 9.x, sm_80 for 8.x and newer-unknown)."""
        major, minor = self.capability
        return "sm_90" if major >= 9 else f"sm_{major}{minor}" if major >= 8 else "sm_80"


def _cache_file() -> Path:
    base = os.environ.get("HLOTOOL_CACHE_DIR") or os.path.join(Path.home(), ".cache", "hlotool")
    return Path(base) / "gpu-probe.json"


@functools.cache
def probe() -> Probe:
    """Whether a CUDA device answers (cached; see the module docstring)."""
    if os.environ.get("HLOTOOL_GPU_EMULATE") == "1":
        return Probe(False, "HLOTOOL_GPU_EMULATE=1")
    path = _cache_file()
    try:
        saved = json.loads(path.read_text())
        if time.time() - saved.pop("time") < PROBE_TTL:
            saved["capability"] = tuple(saved.get("capability", (0, 0)))
            return Probe(**saved)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        r = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                           timeout=PROBE_TIMEOUT)
        line = (r.stdout.strip().splitlines() or [""])[-1]
        data: dict[str, Any] = json.loads(line) if line.startswith("{") else \
            {"ok": False, "message": f"the driver probe exited {r.returncode}"}
    except subprocess.TimeoutExpired:
        data = {"ok": False, "message": f"the CUDA driver did not answer in {PROBE_TIMEOUT:.0f} s"}
    data["capability"] = tuple(data.get("capability", (0, 0)))
    result = Probe(**data)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({**asdict(result), "time": time.time()}))
        tmp.replace(path)
    except OSError:
        pass
    return result


def _check(result: Any, what: str) -> Any:
    """Unpack a cuda-python (CUresult, values...) tuple; raise DriverError on failure."""
    from cuda.bindings import driver as d

    err, *values = result if isinstance(result, tuple) else (result,)
    if err != d.CUresult.CUDA_SUCCESS:
        name = getattr(err, "name", str(err))
        hint = {
            "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": " (the PTX is newer than this driver)",
            "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": " (too many registers or threads per block)",
            "CUDA_ERROR_INVALID_PTX": " (the driver rejected the PTX)",
            "CUDA_ERROR_NO_BINARY_FOR_GPU": " (no code for this GPU's architecture)",
        }.get(name, "")
        raise DriverError(f"{what} failed: {name}{hint}")
    return values[0] if len(values) == 1 else values


class DeviceBackend:
    """Kernels loaded on CUDA device 0 (primary context)."""

    name = "device"

    def __init__(self, plan: Any, module_name: str) -> None:
        from cuda.bindings import driver as d

        from hlotool.targets.gpu import nvptx, ptxas

        self.d = d
        status = probe()
        self.probe = status
        _check(d.cuInit(0), "cuInit")
        self.device = _check(d.cuDeviceGet(0), "cuDeviceGet")
        self.context = _check(d.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        _check(d.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")
        self.kernels = {k.name: k for k in plan.kernels}
        self.functions: dict[str, Any] = {}
        if not self.kernels:
            return
        _, ptx = nvptx.kernels_ptx(list(self.kernels.values()), module_name, status.arch)
        image: bytes
        self.image_kind = "cubin"
        try:
            image, _ = ptxas.assemble(ptx, status.arch)
        except ptxas.PtxasError:
            image, self.image_kind = ptx.encode() + b"\0", "ptx"
        self.module = _check(d.cuModuleLoadData(image), "cuModuleLoadData")
        for name in self.kernels:
            self.functions[name] = _check(d.cuModuleGetFunction(self.module, name.encode()),
                                          f"cuModuleGetFunction({name})")

    def launch(self, name: str, buffers: Sequence[np.ndarray], outputs: int = 0) -> None:
        """Run kernel `name`; the last `outputs` buffers are copied back (all when 0)."""
        d = self.d
        k = self.kernels[name]
        ptrs = []
        try:
            for j, a in enumerate(buffers):
                p = _check(d.cuMemAlloc(max(1, a.nbytes)), "cuMemAlloc")
                ptrs.append(p)
                if a.nbytes and j < len(buffers) - outputs:
                    _check(d.cuMemcpyHtoD(p, a.ctypes.data, a.nbytes), "cuMemcpyHtoD")
            values = [ctypes.c_uint64(int(p)) for p in ptrs]
            params = (ctypes.c_void_p * max(1, len(values)))(
                *[ctypes.addressof(v) for v in values])
            _check(d.cuLaunchKernel(self.functions[name], k.grid_size, 1, 1, k.block_size, 1, 1,
                                    0, 0, ctypes.addressof(params), 0), f"launch of {name}")
            _check(d.cuCtxSynchronize(), f"kernel {name}")
            first = len(buffers) - outputs if outputs else 0
            for a, p in list(zip(buffers, ptrs, strict=True))[first:]:
                if a.nbytes:
                    _check(d.cuMemcpyDtoH(a.ctypes.data, p, a.nbytes), "cuMemcpyDtoH")
        finally:
            for p in ptrs:
                d.cuMemFree(p)
