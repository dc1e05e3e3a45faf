"""Re-run the probes of the reliability issue as a user would: each is one `hlotool`
process, timed and measured (peak RSS), and checked for its exit status and for never
saying "internal error".

    .venv/bin/python bench/reliability_probes.py [--json out.json] [--only NAME]

Limits per probe: 5 s and 1 GiB (`--seconds`, `--rss`); `timeout -s INT 5 hlotool run
loop.hlo --target cpu` must exit 130 within 1 s of the signal; a planted pickle must
run nothing; damaged CPU cache entries must be rebuilt with one notice; an `--output`
killed at random moments leaves the old file or the whole new one. Exit 1 if any fails.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HLOTOOL = [sys.executable, "-m", "hlotool.cli"]
LOOP = ROOT / "tests" / "data" / "reliability" / "endless_while.hlo"
SOFTMAX = ROOT / "examples" / "softmax.hlo"


@dataclass
class Result:
    name: str
    status: int
    #: CPU seconds (user + system): the load-independent measure the limit applies to.
    seconds: float
    rss_bytes: int
    stderr: str
    wall: float = 0.0
    ok: bool = True
    why: list[str] = field(default_factory=list)


def hlotool(args: list[str], env: dict[str, str], stdin: str | None = None,
            kill_after: float | None = None,
            sig: int = signal.SIGINT) -> tuple[int, float, int, str, float]:
    """(status, CPU seconds, peak RSS, stderr, wall seconds) of one process.

    It runs under /usr/bin/time, whose fresh small process keeps this script's own peak
    RSS out of the child's (Linux carries the peak across fork and exec)."""
    err = tempfile.TemporaryFile()
    with tempfile.NamedTemporaryFile("r", suffix=".time") as usage:
        started = time.monotonic()
        proc = subprocess.Popen(["/usr/bin/time", "-q", "-f", "%U %S %M", "-o", usage.name,
                                 *HLOTOOL, *args], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=err, stdin=subprocess.PIPE if stdin is not None else None)
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        if kill_after is not None:
            time.sleep(kill_after)
            _signal_child(proc.pid, sig)
        proc.wait()
        wall = time.monotonic() - started
        fields = usage.read().split()
    err.seek(0)
    text = err.read().decode(errors="replace")
    status = proc.returncode
    cpu, rss = (float(fields[-3]) + float(fields[-2]), int(fields[-1]) * 1024) \
        if len(fields) >= 3 else (wall, 0)
    return status, cpu, rss, text, wall


def _signal_child(pid: int, sig: int) -> None:
    """Send `sig` to the hlotool process under /usr/bin/time (its only child)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    kids = children.read_text().split() if children.exists() else []
    os.kill(int(kids[0]) if kids else pid, sig)


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


def splat_mlir(dims: str) -> str:
    t = f"tensor<{dims}xf32>"
    return (f"func.func @main() -> {t} {{\n  %0 = stablehlo.constant dense<0.0> : {t}\n"
            f"  return %0 : {t}\n}}\n")


def write_constant(folder: Path, count: int) -> str:
    """An HLO module whose root is an f32[count] constant of random numbers."""
    path = folder / f"constant-{count}.hlo"
    values = np.random.default_rng(0).standard_normal(count).astype(np.float32)
    with path.open("w") as f:
        f.write(f"HloModule c\nENTRY e {{\n  ROOT c = f32[{count}] constant({{")
        for k in range(0, count, 100_000):
            chunk = values[k:k + 100_000].tolist()
            f.write(("," if k else "") + ",".join(f"{v:.6g}" for v in chunk))
        f.write("})\n}\n")
    return str(path)


def call_chain(n: int) -> str:
    parts = ["HloModule deep", "c0 {\n  p = f32[] parameter(0)\n  ROOT r = f32[] negate(p)\n}"]
    parts += [f"c{i} {{\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c{i - 1}\n}}"
              for i in range(1, n)]
    parts.append(f"ENTRY e {{\n  a = f32[] parameter(0)\n  ROOT r = f32[] call(a), "
                 f"to_apply=c{n - 1}\n}}")
    return "\n".join(parts) + "\n"


def nested_tuple(depth: int) -> str:
    shape = "f32[]"
    for _ in range(depth):
        shape = f"({shape})"
    return f"HloModule t\nENTRY e {{\n  ROOT a = {shape} parameter(0)\n}}\n"


def input_probes(folder: Path) -> list[tuple[str, list[str], set[int]]]:
    """(name, hlotool arguments, accepted statuses) of the malformed and huge inputs."""
    from hlotool.values_io import save_npz

    big = write(folder, "splat-1e10.mlir", splat_mlir("100000x100000"))
    mid = write(folder, "splat-9e8.mlir", splat_mlir("30000x30000"))
    c6, c7 = write_constant(folder, 10**6), write_constant(folder, 10**7)
    calls = write(folder, "calls-3000.hlo", call_chain(3000))
    tup = write(folder, "tuple-400.hlo", nested_tuple(400))
    dims = {
        "concatenate": "a = f32[-1] parameter(0)\n  ROOT c = f32[-1] concatenate(a, a), "
                       "dimensions={0}",
        "reshape": "a = f32[4] parameter(0)\n  ROOT r = f32[-1,2] reshape(a)",
        "broadcast": "a = f32[?] parameter(0)\n  ROOT b = f32[?,3] broadcast(a), dimensions={0}",
    }
    dim_files = {k: write(folder, f"dims-{k}.hlo", f"HloModule d\nENTRY e {{\n  {v}\n}}\n")
                 for k, v in dims.items()}
    ascii_file = write(folder, "name-e-acute.hlo",
                       "HloModule m\nENTRY e {\n  a\u00e9 = f32[] parameter(0)\n}\n")
    npz = folder / "good.npz"
    save_npz(npz, {"arg0": np.ones((2, 3), np.float32)})
    (folder / "empty.npz").write_bytes(b"")
    (folder / "truncated.npz").write_bytes(npz.read_bytes()[:40])
    np.save(folder / "array.npy", np.ones((2, 3), np.float32))
    sidecars = {"not-json": "{", "a-list": '["bfloat16"]', "unknown-dtype": '{"arg0": "nonsense"}',
                "wrong-size": '{"arg0": "bfloat16"}'}
    for name, text in sidecars.items():
        save_npz(folder / f"side-{name}.npz", {"arg0": np.ones((2, 3), np.float32)})
        (folder / f"side-{name}.dtypes.json").write_text(text)
    relu = write(folder, "m.hlo", "HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n"
                 "  ROOT n = f32[2,3] negate(a)\n}\n")
    rand = write(folder, "random-4000.hlo", "HloModule r\nENTRY e {\n  a = f32[4000,4000] "
                 "parameter(0)\n  ROOT n = f32[4000,4000] negate(a)\n}\n")
    probes = [
        ("splat 1e10: parse", ["parse", big], {0}),
        ("splat 1e10: print", ["print", big], {0}),
        ("splat 1e10: print --format hlo", ["print", big, "--format", "hlo"], {2}),
        ("splat 1e10: opt", ["opt", big], {2}),
        ("splat 1e10: run interp", ["run", big, "--target", "interp"], {2}),
        ("splat 1e10: run cpu", ["run", big, "--target", "cpu"], {2}),
        ("splat 9e8: parse", ["parse", mid], {0}),
        ("splat 9e8: print", ["print", mid], {0}),
        ("splat 9e8: run --max-memory 1G", ["run", mid, "--max-memory", "1G"], {2}),
        ("constant 1e6: parse", ["parse", c6], {0}),
        ("constant 1e7: parse", ["parse", c7], {0}),
        ("3000-deep calls: run", ["run", calls, "--target", "interp"], {0}),
        ("400-deep tuple: print", ["print", tup], {0}),
        *((f"-1/? dims: {k}: run", ["run", f, "--target", "interp"], {2})
          for k, f in dim_files.items()),
        ("non-ASCII name: parse", ["parse", ascii_file], {2}),
        ("non-ASCII name: debug", ["debug", ascii_file], {2}),
        ("random f32[4000,4000] input: run", ["run", rand, "--target", "interp"], {0}),
        *((f"--inputs {n}", ["run", relu, "--inputs", str(folder / n)], {2})
          for n in ("empty.npz", "truncated.npz", "array.npy", "missing.npz")),
        *((f"sidecar {n}", ["run", relu, "--inputs", str(folder / f"side-{n}.npz")], {2})
          for n in sidecars),
    ]
    return probes


def check(result: Result, statuses: set[int], seconds: float, rss: int) -> Result:
    if result.status not in statuses:
        result.why.append(f"exit {result.status}, wanted {sorted(statuses)}")
    if "internal error" in result.stderr or "Traceback" in result.stderr:
        result.why.append("internal error")
    if result.seconds > seconds:
        result.why.append(f"{result.seconds:.1f} s")
    if result.rss_bytes > rss:
        result.why.append(f"RSS {result.rss_bytes >> 20} MiB")
    result.ok = not result.why
    return result


def signal_probe(folder: Path, env: dict[str, str]) -> Result:
    """`timeout -s INT 5 hlotool run loop.hlo --target cpu`: 130 within 1 s of SIGINT
    (`--preserve-status` so that timeout passes hlotool's own status on)."""
    started = time.monotonic()
    done = subprocess.run(["timeout", "--preserve-status", "-s", "INT", "5", *HLOTOOL, "run",
                           str(LOOP), "--target", "cpu"], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    result = Result("SIGINT at 5 s: endless native while", done.returncode, 0.0, 0,
                    done.stderr, wall)
    if done.returncode != 130 or not done.stderr.strip().endswith("hlotool: interrupted"):
        result.why.append(f"exit {done.returncode}, wanted 130")
    if wall - 5 > 1:
        result.why.append(f"exited {wall - 5:.2f} s after the signal")
    result.ok = not result.why
    result.stderr = f"exited {wall - 5:.3f} s after the signal"
    return result


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def pickle_probe(folder: Path, env: dict[str, str]) -> Result:
    """Planted pickles under every cache name: parse works and nothing runs."""
    cache = folder / "planted"
    cache.mkdir(mode=0o700)
    marker = folder / "pwned"
    for name in ("hlo-grammar.lark.cache", "hlo-grammar.lark.tables",
                 "stablehlo-grammar.lark.tables"):
        (cache / name).write_bytes(pickle.dumps(_Payload(marker)))
    status, cpu, rss, err, wall = hlotool(["parse", str(SOFTMAX)],
                                          dict(env, HLOTOOL_CACHE_DIR=str(cache)))
    result = Result("planted pickle in the cache", status, cpu, rss, err, wall)
    if marker.exists():
        result.why.append("the pickle ran")
    return check(result, {0}, 30, 1 << 30)


def cache_probe(folder: Path, env: dict[str, str]) -> list[Result]:
    """Damaged CPU cache entries: one notice, the module compiles and runs again."""
    cache = folder / "cpu-cache"
    env = dict(env, HLOTOOL_CACHE_DIR=str(cache))
    hlotool(["run", str(SOFTMAX), "--target", "cpu"], env)
    entries = sorted(cache.rglob("*.entry"))
    results = []
    for damage in ("random", "flip", "swap-sizes", "truncate", "empty"):
        for path in entries:
            raw = bytearray(path.read_bytes())
            if damage == "random":
                raw = bytearray(np.random.default_rng(1).bytes(len(raw)))
            elif damage == "flip":
                raw[len(raw) // 2] ^= 0xFF
            elif damage == "swap-sizes":
                raw = bytearray(bytes(raw).replace(b'"sizes": [', b'"sizes": [1, ', 1))
            elif damage == "truncate":
                raw = raw[: len(raw) // 2]
            else:
                raw = bytearray()
            path.write_bytes(bytes(raw))
        status, cpu, rss, err, wall = hlotool(["run", str(SOFTMAX), "--target", "cpu"], env)
        result = Result(f"cpu cache entry: {damage}", status, cpu, rss, err, wall)
        notices = [line for line in err.splitlines() if "notice:" in line]
        if len(notices) != len(entries) or not all("rebuilding" in n for n in notices):
            result.why.append(f"{len(notices)} notices for {len(entries)} entries")
        again = hlotool(["run", str(SOFTMAX), "--target", "cpu"], env)
        if again[0] != 0 or "notice:" in again[3]:
            result.why.append("not rebuilt")
        results.append(check(result, {0}, 60, 1 << 30))
    return results


def output_probe(folder: Path, env: dict[str, str]) -> Result:
    """`run --output` killed (SIGKILL) at many moments: the file is the old or the new one."""
    from hlotool.values_io import load_npz, save_npz

    module = write(folder, "out.hlo", "HloModule o\nENTRY e {\n  a = f32[3000,3000] "
                   "parameter(0)\n  ROOT n = f32[3000,3000] negate(a)\n}\n")
    out = folder / "result.npz"
    old = {"out0": np.full(4, 7, np.float32)}
    save_npz(out, old)
    outcomes = {"old": 0, "new": 0}
    worst = Result("--output killed mid-run (SIGKILL)", 0, 0.0, 0, "")
    for delay in np.linspace(2.0, 16.0, 12):
        status, cpu, rss, err, wall = hlotool(["run", module, "--output", str(out)], env,
                                              kill_after=float(delay), sig=signal.SIGKILL)
        worst.seconds, worst.rss_bytes = max(worst.seconds, cpu), max(worst.rss_bytes, rss)
        worst.wall = max(worst.wall, wall)
        try:
            got = load_npz(out)
        except Exception as exc:  # noqa: BLE001 - the probe reports any damage
            worst.why.append(f"after {delay:.2f} s: {type(exc).__name__}")
            continue
        if got["out0"].shape == (4,):
            outcomes["old"] += 1
        else:
            outcomes["new"] += 1
            save_npz(out, old)
    worst.stderr = f"old file kept {outcomes['old']} times, whole new file {outcomes['new']} times"
    leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".result")]
    worst.ok = not worst.why
    if leftovers:
        worst.stderr += f"; temporary files left by SIGKILL: {len(leftovers)}"
    return worst


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--only", help="run the probes whose name contains this")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rss", type=int, default=1 << 30)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hlotool-probes-"))
    env = dict(os.environ, HLOTOOL_CACHE_DIR=str(folder / "cache"), PYTHONPATH=str(ROOT))
    hlotool(["parse", str(SOFTMAX)], env)  # grammar tables built once, outside the timings
    results: list[Result] = []
    for name, argv, statuses in input_probes(folder):
        if args.only and args.only not in name:
            continue
        status, cpu, rss, err, wall = hlotool(argv, env, stdin="")
        results.append(check(Result(name, status, cpu, rss, err, wall), statuses,
                             args.seconds, args.rss))
    for name, probe in (("SIGINT", signal_probe), ("pickle", pickle_probe),
                        ("cache", cache_probe), ("output", output_probe)):
        if args.only and args.only not in name:
            continue
        got = probe(folder, env)
        results.extend(got if isinstance(got, list) else [got])
    for r in results:
        last = r.stderr.strip().splitlines()[-1][:110] if r.stderr.strip() else ""
        print(f"{'ok  ' if r.ok else 'FAIL'} {r.name:38} exit {r.status:3} cpu {r.seconds:5.2f} s "
              f"wall {r.wall:5.2f} s {r.rss_bytes / 2**20:5.0f} MiB  {'; '.join(r.why) or last}")
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
