"""Rich tables of run outputs and comparison reports."""

from __future__ import annotations

import math

from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
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
            stats = [_fmt(v) for v in _min_max_mean(a)]
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


def _error(x: float | str) -> str:
    """An error for the table: 3 significant digits, "inf" when infinite."""
    return x if isinstance(x, str) else f"{x:.3g}"


def print_comparison(rows: list[dict[str, Any]], against: str) -> None:
    """The mismatch report of --expect / --reference: fits 80 columns (the status wraps),
    mismatches in red."""
    ok = all(r["ok"] for r in rows)
    verdict = "[green]match[/]" if ok else "[bold red]MISMATCH[/]"
    columns = ("output", "max abs", "max rel", "worst at", "got", "want", "status")
    table_rows = []
    for r in rows:
        status = "[green]ok[/]" if r["ok"] else "[bold red]FAIL[/]"
        counts = _nan_inf(r)
        table_rows.append([
            r["key"], _error(r["max_abs"]), _error(r["max_rel"]),
            ",".join(map(str, r["worst_index"])),
            *_pair(r["got_at_worst"], r["want_at_worst"]),
            status + (f" ({counts})" if counts else ""),
        ])
    console = _console()
    console.print(_table(f"compared with {against}: {verdict}", columns, table_rows,
                         flexible="status"))
    for r in rows:
        if not r["ok"]:
            console.print(f"[red]{escape(r['key'])}: {escape(r['reason'])}[/]")
    console.print("[dim]rel = |got-want| / (|want| + atol/rtol), <= rtol passes; worst at: "
                  "the element furthest outside the tolerance[/]")


def _pair(got: Any, want: Any) -> tuple[str, str]:
    """Both values at the worst element, with the digits it takes to tell them apart."""
    if got is None or want is None:
        return ("" if got is None else _fmt(got), "" if want is None else _fmt(want))
    if isinstance(got, (complex, str)) or isinstance(want, (complex, str)):
        return str(got), str(want)
    for digits in range(5, 10):
        g, w = f"{float(got):.{digits}g}", f"{float(want):.{digits}g}"
        if g != w:
            return g, w
    return g, w


def _nan_inf(r: dict[str, Any]) -> str:
    """NaN and Inf counts (got/want) when either is non-zero."""
    parts = []
    for what in ("nan", "inf"):
        got, want = r.get(f"{what}_got", 0), r.get(f"{what}_want", 0)
        if got or want:
            parts.append(f"{what.capitalize() if what == 'inf' else 'NaN'} {got}/{want}")
    return ", ".join(parts)


def _duration(seconds: float) -> str:
    """Seconds in the unit that reads best (s, ms or µs)."""
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.1f} µs"


def print_timing(report: dict[str, Any]) -> None:
    """The `run --bench N` timings: compile once, then N runs after a warm-up."""
    rows = []
    if report.get("pipeline"):
        cached = " (cached)" if report.get("passes_cached") else ""
        rows.append([f"passes{cached}", _duration(report.get("passes_seconds", 0.0))])
    rows.append(["compile", _duration(report["compile_seconds"])])
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
        low, high, mean = _min_max_mean(a)
        out.update(min=low, max=high, mean=mean)
    return out


#: Elements converted to float64 at a time for the statistics (8 MiB).
_STATS_CHUNK = 1 << 20


def _min_max_mean(a: np.ndarray) -> tuple[float, float, float]:
    """NaN-ignoring min, max and mean in float64, a chunk at a time (never a float64
    copy of the whole output); NaN when every element is NaN."""
    flat = a.reshape(-1)
    low, high, total, count = np.inf, -np.inf, 0.0, 0
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _STATS_CHUNK):
            f = flat[start:start + _STATS_CHUNK].astype(np.float64)
            f = f[~np.isnan(f)]
            if f.size:
                low, high = min(low, float(f.min())), max(high, float(f.max()))
                total, count = total + float(f.sum()), count + f.size
    if not count:
        return math.nan, math.nan, math.nan
    return low, high, total / count
