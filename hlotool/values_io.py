"""Values in and out of a run: npz files with the dtypes sidecar, random inputs, and
the comparison report of `--expect` (see docs/cli.md, "Values in and out")."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hlotool.diagnostics import HloError
from hlotool.ir.module import Module
from hlotool.ir.types import PrimitiveType, Shape

#: numpy dtype kinds that np.savez stores natively.
_NATIVE_KINDS = "biufc"


def sidecar_path(path: Path) -> Path:
    return path.with_name(path.stem + ".dtypes.json")


def load_npz(path: str | Path) -> dict[str, np.ndarray]:
    """Arrays of an npz file, ml_dtypes arrays restored from the sidecar's names."""
    import zipfile
    import zlib

    path = Path(path)
    try:
        with path.open("rb") as f:
            if f.read(4) not in (b"PK\x03\x04", b"PK\x05\x06"):  # an entry, or empty
                hint = " (a .npy file: save it with np.savez as arg0)" if path.suffix == ".npy" else ""
                raise HloError(f"cannot read {path}: not an npz (zip) archive{hint}")
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError, NotImplementedError,
            RuntimeError, zlib.error) as exc:  # each a damaged archive, as zipfile reports it
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise HloError(f"cannot read {path}: {reason or 'truncated or damaged npz'}") from None
    side = sidecar_path(path)
    if side.exists():
        _apply_sidecar(side, arrays)
    return arrays


def _apply_sidecar(side: Path, arrays: dict[str, np.ndarray]) -> None:
    """Reinterpret the arrays the sidecar names ({"arg0": "bfloat16", ...}) in place."""
    import ml_dtypes  # noqa: F401  (registers the dtypes with numpy)

    try:
        names = json.loads(side.read_bytes())
    except (OSError, ValueError) as exc:
        raise HloError(f"cannot read {side}: {exc}") from None
    if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
        raise HloError(f"{side}: expected a JSON object of array name -> dtype name")
    for key, name in names.items():
        if key not in arrays:
            continue
        try:
            dtype = np.dtype(name)
        except TypeError:
            raise HloError(f"{side}: {key}: unknown dtype {name!r}") from None
        a = arrays[key]
        plain_bits = not a.dtype.hasobject and a.dtype.kind in _NATIVE_KINDS
        if (dtype.itemsize != a.dtype.itemsize or dtype.hasobject or not plain_bits
                or (dtype.kind == "V" and not _is_ml(dtype))):
            raise HloError(f"{side}: {key}: dtype {name} does not match the stored "
                           f"{a.dtype} bits ({a.dtype.itemsize} bytes per element)")
        arrays[key] = a.view(dtype)


def save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Write arrays; types np.savez cannot record go as bit views plus the sidecar."""
    path = Path(path)
    plain: dict[str, np.ndarray] = {}
    names: dict[str, str] = {}
    for key, a in arrays.items():
        a = np.asarray(a)
        if not a.flags.c_contiguous:
            a = a.copy(order="C")
        if a.dtype.kind in _NATIVE_KINDS and a.dtype.name == np.dtype(a.dtype.name).name and not _is_ml(a.dtype):
            plain[key] = a
        else:
            names[key] = a.dtype.name
            plain[key] = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    from hlotool.safe_io import atomic_files

    side = sidecar_path(path)
    if names:
        with atomic_files(side, path) as (side_file, npz_file):
            side_file.write(json.dumps(names).encode())
            np.savez(npz_file, **plain)
        return
    with atomic_files(path) as (npz_file,):
        np.savez(npz_file, **plain)
    side.unlink(missing_ok=True)


def _is_ml(dtype: np.dtype) -> bool:
    return type(dtype).__module__.startswith("ml_dtypes") or dtype.name in _ML_NAMES


_ML_NAMES = {t.numpy_dtype.name for t in PrimitiveType
             if t.is_array_type and t not in (PrimitiveType.PRED,)
             and type(t.numpy_dtype).__module__.startswith("ml_dtypes")}  # fmt: skip


def entry_arguments(module: Module, arrays: dict[str, np.ndarray]) -> list[Any]:
    """Entry parameter values from `arg0, arg1, ...` (tuple parameters take several)."""
    args: list[Any] = []
    k = 0
    for p in module.entry.parameters:
        value, k = _take(p.shape, arrays, k, p.name)
        args.append(value)
    extra = sorted(set(arrays) - {f"arg{i}" for i in range(k)})
    if extra:
        raise HloError(f"inputs file has entries the module does not take: {', '.join(extra)}")
    return args


def _take(shape: Shape, arrays: dict[str, np.ndarray], k: int, pname: str) -> tuple[Any, int]:
    if shape.is_tuple:
        parts = []
        for s in shape.tuple_shapes:
            v, k = _take(s, arrays, k, pname)
            parts.append(v)
        return tuple(parts), k
    if shape.is_token:
        from hlotool.interpreter.core import TOKEN

        return TOKEN, k
    key = f"arg{k}"
    if key not in arrays:
        raise HloError(f"inputs file has no {key} for parameter {pname} ({shape})")
    a = parameter_array(arrays[key], shape.element_type.numpy_dtype)
    if a.dtype != shape.element_type.numpy_dtype:
        raise HloError(f"{key} has dtype {a.dtype}, but parameter {pname} is {shape}")
    if tuple(a.shape) != shape.dimensions and not shape.is_dynamic:
        raise HloError(f"{key} has shape {list(a.shape)}, but parameter {pname} is {shape}")
    return a, k + 1


def parameter_array(a: np.ndarray, want: np.dtype) -> np.ndarray:
    """`a` as a parameter of dtype `want` takes it: an ml_dtypes array that np.savez
    stored without the sidecar comes back as raw bytes (`|V2` for bfloat16), which are
    its bits, so they are read as `want` when the widths agree; anything else as is."""
    if a.dtype != want and a.dtype.kind == "V" and a.dtype.fields is None and \
            a.dtype.itemsize == want.itemsize and _is_ml(want):
        return a.view(want)
    return a


def random_arguments(module: Module, seed: int = 0) -> list[Any]:
    """Seeded inputs: normal floats, small integers, random booleans."""
    rng = np.random.default_rng(seed)
    return [_random(p.shape, rng) for p in module.entry.parameters]


def _random(shape: Shape, rng: np.random.Generator) -> Any:
    if shape.is_tuple:
        return tuple(_random(s, rng) for s in shape.tuple_shapes)
    if shape.is_token:
        from hlotool.interpreter.core import TOKEN

        return TOKEN
    et = shape.element_type
    dims = tuple(max(d, 1) if d < 0 else d for d in shape.dimensions)
    dtype = et.numpy_dtype
    if et is PrimitiveType.PRED:
        return rng.integers(0, 2, size=dims, dtype=np.uint8).view(np.bool_)
    if et.is_integral:
        lo = 0 if et.is_unsigned_int else -4
        small = np.uint8 if et.is_unsigned_int else np.int8
        return rng.integers(lo, 5, size=dims, dtype=small).astype(dtype, copy=False)
    # Generated in float32 (never float64): the input costs its own size, not twice it.
    if et.is_complex:
        part = np.float64 if dtype.itemsize == 16 else np.float32
        out = np.empty(dims, dtype)
        out.real = rng.standard_normal(dims, dtype=part)
        out.imag = rng.standard_normal(dims, dtype=part)
        return out
    values = rng.standard_normal(dims, dtype=np.float32)
    return values if dtype == np.float32 else values.astype(dtype)


def random_value(shape: Shape, rng: np.random.Generator) -> Any:
    """One seeded value of `shape`, drawn as random_arguments draws a parameter."""
    return _random(shape, rng)


def output_arrays(value: Any) -> dict[str, np.ndarray]:
    """`out0, out1, ...` from the flattened leaves of a result (tokens skipped)."""
    from hlotool.interpreter.core import TOKEN, flatten

    leaves = [np.asarray(v) for v in flatten(value) if v is not TOKEN]
    return {f"out{i}": a for i, a in enumerate(leaves)}


@dataclass(frozen=True, slots=True)
class OutputDiff:
    """How one output compares with its expected value."""

    key: str
    ok: bool
    reason: str = ""
    max_abs: float = 0.0
    max_rel: float = 0.0
    worst_index: tuple[int, ...] = ()
    got_at_worst: Any = None
    want_at_worst: Any = None
    mismatched: int = 0
    nan_got: int = 0
    nan_want: int = 0
    inf_got: int = 0
    inf_want: int = 0

    def as_json(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__slots__}  # type: ignore[attr-defined]
        for k in ("got_at_worst", "want_at_worst"):
            v = d[k]
            d[k] = None if v is None else (complex(v).__repr__() if np.iscomplexobj(v) else float(v))
        d["worst_index"] = list(self.worst_index)
        for k in ("max_abs", "max_rel"):
            if isinstance(d[k], float) and not np.isfinite(d[k]):
                d[k] = str(d[k])  # "inf"/"nan": JSON has no infinities
        return d


def relative_error(err: np.ndarray, magnitude: np.ndarray, rtol: float, atol: float
                   ) -> np.ndarray:
    """|got-want| / (|want| + atol/rtol): the error relative to the tolerance's scale, so
    that an element passes exactly when it is <= rtol, and values near zero (where atol
    decides) do not blow it up. With rtol 0, |got-want| / |want| (inf where want is 0
    and got is not)."""
    if rtol > 0:
        return err / (magnitude + atol / rtol)
    with np.errstate(all="ignore"):
        return np.where(err == 0, 0.0, err / magnitude)


#: Tolerances of 32- and 64-bit float outputs when none are given.
RTOL, ATOL = 1e-5, 1e-6


def default_tolerance(dtype: np.dtype) -> tuple[float, float]:
    """(rtol, atol) for an output of `dtype` when none are given: RTOL/ATOL, and 2 * eps
    as both for floats narrower than 32 bits (bf16 0.0156, f16 0.00195: 2 to 4 units in
    the last place, by where a value lies in its binade), whose values round to a
    neighbour when f32 sums added in another order straddle a rounding boundary."""
    import ml_dtypes

    dtype = np.dtype(dtype)
    if dtype.kind not in "fV" or dtype.itemsize >= 4:
        return RTOL, ATOL
    try:
        eps = 2 * float(ml_dtypes.finfo(dtype).eps)
    except ValueError:  # int4/uint4: compared exactly
        return RTOL, ATOL
    return eps, eps


def tolerance_text(rtol: float | None, atol: float | None) -> str:
    """How a report names the tolerances it used."""
    text = f"rtol={RTOL if rtol is None else rtol:g} atol={ATOL if atol is None else atol:g}"
    return text + (" (2*eps for bf16/f16/f8 outputs)" if rtol is None or atol is None else "")


def compare_outputs(got: dict[str, np.ndarray], want: dict[str, np.ndarray],
                    rtol: float | None, atol: float | None) -> list[OutputDiff]:
    """Per output: exact for integers and booleans, allclose for floats (NaNs must match);
    a tolerance given as None is the output type's `default_tolerance`."""
    diffs = []
    for key in sorted(set(got) | set(want), key=lambda k: (len(k), k)):
        if key not in got or key not in want:
            diffs.append(OutputDiff(key, False, "missing from " + ("outputs" if key not in got else "expected")))
            continue
        w = np.asarray(want[key])
        default = default_tolerance(w.dtype)
        diffs.append(_compare_one(key, np.asarray(got[key]), w,
                                  default[0] if rtol is None else rtol,
                                  default[1] if atol is None else atol))
    return diffs


def _compare_one(key: str, g: np.ndarray, w: np.ndarray, rtol: float, atol: float) -> OutputDiff:
    if g.shape != w.shape:
        return OutputDiff(key, False, f"shape {list(g.shape)} != expected {list(w.shape)}")
    if g.dtype != w.dtype:
        return OutputDiff(key, False, f"dtype {g.dtype} != expected {w.dtype}")
    if g.size == 0:
        return OutputDiff(key, True)
    if w.dtype.kind in "biu":
        bad = g != w
        n = int(bad.sum())
        if not n:
            return OutputDiff(key, True)
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        idx = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), g.shape)
        return OutputDiff(key, False, f"{n} elements differ (exact compare)", float(diff.max()), 0.0,
                          tuple(int(i) for i in idx), g[idx], w[idx], n)
    ctype = np.complex128 if w.dtype.kind == "c" else np.float64
    gf, wf = g.astype(ctype), w.astype(ctype)
    gnan, wnan = np.isnan(gf), np.isnan(wf)
    ginf, winf = np.isinf(gf), np.isinf(wf)
    counts = dict(nan_got=int(gnan.sum()), nan_want=int(wnan.sum()),
                  inf_got=int(ginf.sum()), inf_want=int(winf.sum()))
    with np.errstate(all="ignore"):
        err = np.abs(gf - wf)
        err = np.where(gnan | wnan | (ginf & winf & (gf == wf)), 0.0, err)
        rel = relative_error(err, np.abs(wf), rtol, atol)
        bad = (err > atol + rtol * np.abs(wf)) | (gnan != wnan) | (np.isnan(err))
    n = int(bad.sum())
    err = np.nan_to_num(err, nan=np.inf, posinf=np.inf)
    rel = np.nan_to_num(rel, nan=np.inf, posinf=np.inf)
    idx = np.unravel_index(int(np.argmax(rel)), g.shape)  # furthest outside the tolerance
    base = dict(max_abs=float(err.max()), max_rel=float(rel.max()),
                worst_index=tuple(int(i) for i in idx), got_at_worst=g[idx],
                want_at_worst=w[idx], mismatched=n, **counts)
    if n == 0:
        return OutputDiff(key, True, **base)  # type: ignore[arg-type]
    reason = f"{n} of {g.size} elements outside rtol={rtol:g} atol={atol:g}"
    if counts["nan_got"] != counts["nan_want"]:
        reason += f"; NaN count {counts['nan_got']} vs expected {counts['nan_want']}"
    return OutputDiff(key, False, reason, **base)  # type: ignore[arg-type]
