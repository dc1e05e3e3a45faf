"""Rich tables of run outputs and comparison reports."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table


def _console() -> Console:
    return Console(highlight=False)


def _preview(a: np.ndarray, n: int = 4) -> str:
    flat = a.reshape(-1)
    shown = ", ".join(_fmt(x) for x in flat[:n])
    return f"[{shown}{', ...' if flat.size > n else ''}]"


def _fmt(x: Any) -> str:
    if isinstance(x, (np.floating, float)) or type(x).__module__.startswith("ml_dtypes"):
        return f"{float(x):.6g}"
    if isinstance(x, (np.complexfloating, complex)):
        return f"{complex(x):.4g}"
    return str(x)


def print_outputs(outputs: dict[str, np.ndarray]) -> None:
    """One row per output: shape, dtype, first values, min/max/mean."""
    table = Table(title="outputs", title_justify="left")
    for col in ("output", "shape", "dtype", "values", "min", "max", "mean"):
        table.add_column(col, justify="right" if col in ("min", "max", "mean") else "left")
    for key, a in outputs.items():
        stats = ["", "", ""]
        if a.size and (a.dtype.kind in "biuf" or type(a.dtype).__module__.startswith("ml_dtypes")):
            f = a.astype(np.float64)
            with np.errstate(all="ignore"):
                stats = [_fmt(np.nanmin(f)), _fmt(np.nanmax(f)), _fmt(np.nanmean(f))]
        table.add_row(key, str(list(a.shape)), str(a.dtype), _preview(a), *stats)
    _console().print(table)


def print_comparison(rows: list[dict[str, Any]], against: str) -> None:
    """The mismatch report of --expect / --reference."""
    ok = all(r["ok"] for r in rows)
    table = Table(title=f"compared with {against}: {'match' if ok else 'MISMATCH'}",
                  title_justify="left")
    for col in ("output", "status", "max abs err", "max rel err", "worst index", "got", "expected",
                "NaN got/exp", "Inf got/exp"):
        table.add_column(col)
    for r in rows:
        status = "[green]ok[/]" if r["ok"] else f"[red]{r['reason']}[/]"
        table.add_row(
            r["key"], status, f"{r['max_abs']:.3g}", f"{r['max_rel']:.3g}",
            str(tuple(r["worst_index"])), _fmt(r["got_at_worst"]) if r["got_at_worst"] is not None else "",
            _fmt(r["want_at_worst"]) if r["want_at_worst"] is not None else "",
            f"{r['nan_got']}/{r['nan_want']}", f"{r['inf_got']}/{r['inf_want']}",
        )
    _console().print(table)
