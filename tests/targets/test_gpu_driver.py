"""The device path (targets/gpu/driver.py) without a GPU: the probe's answers, and the
whole DeviceBackend sequence (PTX, ptxas cubin, cuModuleLoadData, cuMemAlloc/HtoD,
cuLaunchKernel with a kernelParams array, DtoH) against a stand-in driver whose
"device" is host memory and whose launches run the emulator's code for the kernel."""

from __future__ import annotations

import ctypes
import enum
import types
from pathlib import Path

import numpy as np
import pytest

from hlotool import values_io
from hlotool.commands.opt import apply_passes
from hlotool.frontend import parse_hlo
from hlotool.interpreter.core import Evaluator
from hlotool.targets.gpu import GpuTarget, driver
from hlotool.targets.gpu.emulator import Emulator

LAYERNORM = Path(__file__).parents[1] / "data" / "corpus" / "layernorm" / "module.hlo"


class _Result(enum.Enum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701


def _fake_driver(fail_launch: bool = False) -> tuple[types.SimpleNamespace, dict[str, object]]:
    """A cuda.bindings.driver stand-in: device memory is host memory; launches run the
    emulator compiled for the kernels of the module loaded."""
    state: dict[str, object] = {"memory": {}, "images": [], "launches": []}
    ok = _Result.CUDA_SUCCESS
    memory: dict[int, np.ndarray] = state["memory"]  # type: ignore[assignment]

    def alloc(n: int) -> tuple[_Result, int]:
        a = np.zeros(n, np.uint8)
        memory[a.ctypes.data] = a
        return ok, a.ctypes.data

    def launch(fn: str, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shm: int,
               stream: int, params: int, extra: int) -> tuple[_Result]:
        if fail_launch:
            return (_Result.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,)
        em: Emulator = state["emulator"]  # type: ignore[assignment]
        k = em.kernels[fn]
        assert (gx, bx, gy, gz, by, bz) == (k.grid_size, k.block_size, 1, 1, 1, 1)
        slots = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        addresses = [ctypes.cast(slots[i], ctypes.POINTER(ctypes.c_uint64))[0]
                     for i in range(k.params)]
        em.launch(fn, [memory[a] for a in addresses])
        state["launches"].append(fn)  # type: ignore[union-attr]
        return (ok,)

    def load(image: bytes) -> tuple[_Result, str]:
        state["images"].append(image)  # type: ignore[union-attr]
        return ok, "module"

    d = types.SimpleNamespace(
        CUresult=_Result,
        cuInit=lambda flags: (ok,),
        cuDeviceGet=lambda i: (ok, 0),
        cuDevicePrimaryCtxRetain=lambda dev: (ok, "ctx"),
        cuCtxSetCurrent=lambda ctx: (ok,),
        cuModuleLoadData=load,
        cuModuleGetFunction=lambda m, name: (ok, name.decode()),
        cuMemAlloc=alloc,
        cuMemcpyHtoD=lambda dst, src, n: (ctypes.memmove(dst, src, n), ok)[1:],
        cuMemcpyDtoH=lambda dst, src, n: (ctypes.memmove(dst, src, n), ok)[1:],
        cuLaunchKernel=launch,
        cuCtxSynchronize=lambda: (ok,),
        cuMemFree=lambda p: (memory.pop(int(p)), ok)[1:],
    )
    return d, state


def _install(monkeypatch: pytest.MonkeyPatch, fake: types.SimpleNamespace) -> None:
    import cuda.bindings

    monkeypatch.setattr(cuda.bindings, "driver", fake, raising=False)
    monkeypatch.setitem(__import__("sys").modules, "cuda.bindings.driver", fake)
    monkeypatch.setattr(driver, "probe", lambda: driver.Probe(True, "", "Fake", (9, 0), 13000))


def _module():  # noqa: ANN202
    m = parse_hlo(LAYERNORM.read_text())
    apply_passes(m, "gpu", None, verify_each=False)
    return m


def test_device_backend_sequence(monkeypatch: pytest.MonkeyPatch) -> None:
    fake, state = _fake_driver()
    _install(monkeypatch, fake)
    module = _module()
    ex = GpuTarget(emulate=False).compile(module)
    assert ex.backend.name == "device" and ex.backend.image_kind == "cubin"
    state["emulator"] = Emulator(ex.plan.kernels, "fake-device")
    args = values_io.random_arguments(module, 0)
    got = ex.run(args)
    with np.errstate(all="ignore"):
        want = Evaluator(_module()).run(args)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert state["images"][0][:4] == b"\x7fELF"  # type: ignore[index]
    assert len(state["launches"]) == ex.stats.native > 0  # type: ignore[arg-type]
    assert not state["memory"], "every device buffer is freed"


def test_failed_launch_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    fake, state = _fake_driver(fail_launch=True)
    _install(monkeypatch, fake)
    ex = GpuTarget(emulate=False).compile(_module())
    with pytest.raises(driver.DriverError, match="CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES "
                                                 r"\(too many registers"):
        ex.run(values_io.random_arguments(_module(), 0))
    assert not state["memory"]


def test_probe_without_a_driver(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The subprocess probe answers (here: no GPU, with a one-line reason), cached on disk."""
    monkeypatch.setenv("HLOTOOL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("HLOTOOL_GPU_EMULATE", raising=False)
    driver.probe.cache_clear()
    try:
        first = driver.probe()
        assert first.device if first.ok else first.message and "\n" not in first.message
        assert (tmp_path / "gpu-probe.json").exists()
        driver.probe.cache_clear()
        assert driver.probe() == first
    finally:
        driver.probe.cache_clear()


def test_emulate_false_without_gpu_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "probe", lambda: driver.Probe(False, "no CUDA driver: test"))
    with pytest.raises(driver.DriverError, match="no CUDA driver"):
        GpuTarget(emulate=False).compile(_module())
