"""Rich tables of run outputs and comparison reports."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table


def _console() -> Console:
    return Console(highlight=False)


def _preview(a: np.ndarray, n: int = 3) -> str:
    flat = a.reshape(-1)
    shown = ", ".join(_fmt(x) for x in flat[:n])
    return f"[{shown}{', ...' if flat.size > n else ''}]"


def _fmt(x: Any) -> str:
    if isinstance(x, (np.floating, float)) or type(x).__module__.startswith("ml_dtypes"):
        return f"{float(x):.5g}"
    if isinstance(x, (np.complexfloating, complex)):
        return f"{complex(x):.4g}"
    return str(x)


def print_outputs(outputs: dict[str, np.ndarray]) -> None:
    """One row per output: shape, dtype, first values, min/max/mean."""
    rows = []
    for key, a in outputs.items():
        stats = ["", "", ""]
        if a.size and (a.dtype.kind in "biuf" or type(a.dtype).__module__.startswith("ml_dtypes")):
            f = a.astype(np.float64)
            with np.errstate(all="ignore"):
                stats = [_fmt(np.nanmin(f)), _fmt(np.nanmax(f)), _fmt(np.nanmean(f))]
        rows.append([key, str(list(a.shape)), str(a.dtype), *stats, _preview(a)])
    columns = ("output", "shape", "dtype", "min", "max", "mean", "values")
    _console().print(_table("outputs", columns, rows, flexible="values"))


def _table(title: str, columns: tuple[str, ...], rows: list[list[str]], flexible: str) -> Table:
    """A table whose columns keep their content's width except `flexible`, which
    takes (and loses) the remaining space."""
    table = Table(title=title, title_justify="left")
    for i, col in enumerate(columns):
        width = max([len(col)] + [len(r[i]) for r in rows])
        if col == flexible:
            table.add_column(col, ratio=1, overflow="fold", min_width=len(col))
        else:
            table.add_column(col, min_width=width, no_wrap=True,
                             justify="right" if col in ("min", "max", "mean") else "left")
    for r in rows:
        table.add_row(*r)
    return table


def print_comparison(rows: list[dict[str, Any]], against: str) -> None:
    """The mismatch report of --expect / --reference."""
    ok = all(r["ok"] for r in rows)
    title = f"compared with {against}: {'match' if ok else 'MISMATCH'}"
    columns = ("output", "max abs", "max rel", "worst at", "got", "want", "NaN", "Inf", "status")
    table_rows = []
    for r in rows:
        table_rows.append([
            r["key"], f"{r['max_abs']:.3g}", f"{r['max_rel']:.3g}",
            str(tuple(r["worst_index"])),
            _fmt(r["got_at_worst"]) if r["got_at_worst"] is not None else "",
            _fmt(r["want_at_worst"]) if r["want_at_worst"] is not None else "",
            f"{r['nan_got']}/{r['nan_want']}", f"{r['inf_got']}/{r['inf_want']}",
            "ok" if r["ok"] else r["reason"],
        ])
    _console().print(_table(title, columns, table_rows, flexible="status"))


def _duration(seconds: float) -> str:
    """Seconds in the unit that reads best (s, ms or µs)."""
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.1f} µs"


def print_timing(report: dict[str, Any]) -> None:
    """The `run --bench N` timings: compile once, then N runs after a warm-up."""
    rows = [["compile", _duration(report["compile_seconds"])]]
    for key in ("median", "min", "mean", "max"):
        rows.append([f"run {key}", _duration(report[f"run_seconds_{key}"])])
    console = _console()
    console.print(f"timing on {report['target']}: {report['runs']} runs after one warm-up")
    console.print(_table("", ("", "time"), rows, flexible=""))


def array_summary(a: Any) -> dict[str, Any]:
    """Shape, dtype and min/max/mean of an output (JSON-friendly)."""
    a = np.asarray(a)
    out: dict[str, Any] = {"shape": list(a.shape), "dtype": str(a.dtype)}
    numeric = a.dtype.kind in "biuf" or type(a.dtype).__module__.startswith("ml_dtypes")
    if a.size and numeric:
        f = a.astype(np.float64)
        with np.errstate(all="ignore"):
            out.update(min=float(np.nanmin(f)), max=float(np.nanmax(f)), mean=float(np.nanmean(f)))
    return out
