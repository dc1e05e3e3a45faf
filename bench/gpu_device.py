"""The GPU target on a real device: the corpus, then bench/cpu.py's cases against XLA:GPU.

Run by bench/gpu_device.sh on a machine with an NVIDIA GPU and jax with CUDA. Part 1
runs every runnable corpus module (module.hlo and module.opt.hlo) with
`hlotool.targets.gpu` on the device (no emulation) and compares with XLA's expected
outputs. Part 2 takes each bench case's HLO before XLA's passes (`jax.jit(f).lower(...)
.as_text(dialect="hlo")`), compiles it with hlotool's `gpu` pipeline and kernels, checks
the result against XLA:GPU's and times both (medians; hlotool's time includes copying
every kernel's buffers to and from the device, since it keeps no device arena yet).
Everything stops at `--deadline` seconds (what is left is reported as not run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def corpus_part(corpus: Path, deadline: float, emulate: bool) -> tuple[list[list[str]], dict[str, int]]:
    from hlotool import values_io
    from hlotool.commands.opt import apply_passes
    from hlotool.frontend import parse_hlo
    from hlotool.targets.gpu import compile_module

    rows: list[list[str]] = []
    totals = {"pass": 0, "fail": 0, "error": 0, "not run": 0, "kernels": 0, "fallback": 0}
    cases = sorted(p for p in corpus.iterdir() if (p / "case.json").exists())
    import json

    for case in cases:
        for text in ("module.hlo", "module.opt.hlo"):
            path = case / text
            source = path.read_text()
            if "constant({...})" in source:
                continue
            if time.monotonic() > deadline:
                totals["not run"] += 1
                continue
            t = time.perf_counter()
            try:
                module = parse_hlo(source)
                args = values_io.entry_arguments(module, values_io.load_npz(case / "inputs.npz"))
                apply_passes(module, "gpu", None, verify_each=False)
                ex = compile_module(module, emulate=emulate)
                out = values_io.output_arrays(ex.run(args))
                tol = json.loads((case / "case.json").read_text()).get("tolerance", {})
                diffs = values_io.compare_outputs(out, values_io.load_npz(case / "expected.npz"),
                                                  float(tol.get("rtol", 1e-5)),
                                                  float(tol.get("atol", 1e-6)))
                ok = all(d.ok for d in diffs)
                totals["pass" if ok else "fail"] += 1
                totals["kernels"] += ex.stats.native
                totals["fallback"] += ex.stats.fallback
                why = "" if ok else next(d.as_json()["reason"] or str(d.as_json()["max_abs"])
                                         for d in diffs if not d.ok)
                rows.append([f"{case.name}/{text}", "ok" if ok else "FAIL",
                             f"{ex.stats.native_fraction:.0%}",
                             f"{time.perf_counter() - t:.2f}", why[:60]])
            except Exception as exc:  # noqa: BLE001 - every failure is a table row
                totals["error"] += 1
                rows.append([f"{case.name}/{text}", "ERROR", "", f"{time.perf_counter() - t:.2f}",
                             f"{type(exc).__name__}: {exc}"[:60]])
    return rows, totals


def median_ms(fn: Any, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def bench_part(deadline: float, repeat: int, emulate: bool, only: str) -> list[list[str]]:
    import jax

    from bench.cpu import cases
    from hlotool.commands.opt import apply_passes
    from hlotool.frontend import parse_hlo
    from hlotool.targets.gpu import compile_module

    rows = []
    for case in cases():
        if only and only not in case.name:
            continue
        if time.monotonic() > deadline:
            rows.append([case.name, "", "", "", "", "", "not run (deadline)"])
            continue
        try:
            jitted = jax.jit(case.fn)
            dev_args = [jax.device_put(a) for a in case.args]
            t = time.perf_counter()
            compiled = jitted.lower(*dev_args).compile()
            xla_compile = (time.perf_counter() - t) * 1000
            want = [np.asarray(v) for v in jax.tree_util.tree_leaves(compiled(*dev_args))]
            xla = median_ms(lambda: jax.block_until_ready(compiled(*dev_args)), repeat)
            text = jitted.lower(*case.args).as_text(dialect="hlo")
            t = time.perf_counter()
            module = parse_hlo(text)
            apply_passes(module, "gpu", None, verify_each=False)
            ex = compile_module(module, emulate=emulate)
            ours_compile = (time.perf_counter() - t) * 1000
            got = ex.run(case.args)
            got = [np.asarray(v) for v in (got if isinstance(got, tuple) else (got,))]
            status = "ok"
            try:
                for a, b in zip(got, want, strict=True):
                    scale = float(np.max(np.abs(b))) if b.size and b.dtype.kind == "f" else 1.0
                    np.testing.assert_allclose(a, b, rtol=2e-4, atol=1e-5 * max(scale, 1.0))
            except AssertionError as e:
                status = "MISMATCH " + str(e).strip().splitlines()[-1][:50]
            ours = median_ms(lambda: ex.run(case.args), max(1, repeat // 2))
            rows.append([case.name, f"{ours:.3f}", f"{xla:.3f}", f"{xla / ours:.2f}",
                         f"{ours_compile:.0f}", f"{xla_compile:.0f}",
                         f"{status}; kernels {ex.stats.native_fraction:.0%}"])
        except Exception as exc:  # noqa: BLE001
            rows.append([case.name, "", "", "", "", "", f"ERROR {type(exc).__name__}: {exc}"[:90]])
    return rows


def print_table(title: str, headers: list[str], rows: list[list[str]], md: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for h in headers:
        table.add_column(h)
    for r in rows:
        table.add_row(*r)
    Console(width=160).print(table)
    md += [f"### {title}", "", "| " + " | ".join(headers) + " |",
           "|" + "---|" * len(headers)] + ["| " + " | ".join(r) + " |" for r in rows] + [""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=ROOT / "tests" / "data" / "corpus")
    ap.add_argument("--deadline", type=float, default=420.0, help="seconds for both parts")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--markdown", type=Path, help="also write the tables here")
    ap.add_argument("--emulate", action="store_true",
                    help="dry run without a GPU: the emulator instead of the device")
    ap.add_argument("--only", default="", help="bench cases whose name contains this")
    args = ap.parse_args(argv)
    start = time.monotonic()
    from hlotool.targets.gpu import driver

    status = driver.probe()
    print(f"device: {status.device or '-'} capability {status.capability} driver "
          f"{status.driver} -> {status.arch}; {status.message or 'ok'}", flush=True)
    if not status.ok and not args.emulate:
        print("gpu_device: no usable GPU:", status.message)
        return 77
    md: list[str] = []
    rows, totals = corpus_part(args.corpus, start + args.deadline * 0.45, args.emulate)
    print_table("corpus on the device", ["module", "result", "in kernels", "s", "why"], rows, md)
    n = totals["kernels"] + totals["fallback"]
    summary = (f"corpus: {totals['pass']} passed, {totals['fail']} failed, {totals['error']} "
               f"errors, {totals['not run']} not run; GPU kernels ran "
               f"{totals['kernels']}/{n} = {totals['kernels'] / max(n, 1):.1%} of instruction "
               f"executions")
    print(summary, flush=True)
    md.append(summary + "\n")
    bench = bench_part(start + args.deadline, args.repeat, args.emulate, args.only)
    print_table("bench cases: hlotool gpu vs XLA:GPU (ms, medians)",
                ["case", "hlotool ms", "XLA ms", "XLA/hlo", "hlo compile ms", "XLA compile ms",
                 "status"], bench, md)
    if args.markdown:
        args.markdown.write_text("\n".join(md))
    print(f"gpu_device: {time.monotonic() - start:.0f} s", flush=True)
    return 0 if totals["fail"] == totals["error"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
