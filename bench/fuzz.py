"""Mutation fuzzing of everything hlotool reads: both grammars through the CLI, the npz
and dtypes-sidecar readers, the sealed cache reader, the CPU cache entry decoder and the
grammar tables loader.

    .venv/bin/python bench/fuzz.py --mutants 100000 --workers 2 [--seconds 3600] [--run-every 10]

Each mutant of a corpus module (HLO and StableHLO) is run through `hlotool parse` and
`hlotool print` in-process (`hlotool.cli.main`), every `--run-every`-th one that parses
also through `run --target interp`, and every `--cpu-every`-th parsing one through `run
--target cpu --timeout 30` in a child process (compiled code only stops with its process).
A result is fine when the exit status is 0, 1 or 2 (124 for the bounded CPU run) and
nothing says "internal error"; a mutant taking longer than `--hang-seconds` is a hang (its
worker is replaced). Byte mutants of npz files, sidecars and sealed cache files must load
or fail with HloError / None; correctly signed but mutated CPU cache entries must decode
or be refused; correctly signed but mutated grammar tables must load or be rebuilt. The
report counts internal errors, hangs and the largest RSS of any worker and of any child
process, and keeps up to 20 failing inputs in `--keep DIR`. With `--json FILE` the
report is also rewritten every 500 mutants; its `resume_seed` is where to go on
(`--seed`) after the run was stopped.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing as mp
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
_TOKEN = re.compile(r"\s+|[A-Za-z0-9_.%\-]+|\"(?:[^\"\\]|\\.)*\"|.", re.DOTALL)
INTERESTING = ["{", "}", "(", ")", "[", "]", "<", ">", ",", "=", ":", "-1", "-2", "?", "0",
               "999999999999", "4294967296", "f32", "bf16", "s32", "pred", "tuple", "ROOT",
               "%x", "...", '"', "/*", "->", "x", "é", "\u00a0", "\\", "dense<", "tensor<",
               "stablehlo.add", "func.func", "call", "while", "dimensions={0}", "1e400",
               "nan", "inf", "0x7F", "{...}", "sharding={replicated}", "\n", "%0", "#loc"]


def corpus_texts(limit_bytes: int = 20000) -> list[tuple[str, str]]:
    """(name, text) of the corpus modules in both languages, the smaller ones."""
    out = []
    for case in sorted(CORPUS.iterdir()):
        for name in ("module.hlo", "module.opt.hlo", "module.stablehlo.mlir"):
            p = case / name
            if p.exists() and p.stat().st_size <= limit_bytes:
                out.append((f"{case.name}/{name}", p.read_text()))
    return out


def mutate_text(text: str, rng: random.Random) -> str:
    """One to four token- or character-level edits of `text`."""
    toks = _TOKEN.findall(text)
    for _ in range(rng.randint(1, 4)):
        if not toks:
            break
        i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
        kind = rng.choice(["delete", "duplicate", "swap", "replace", "insert", "digit",
                           "char", "truncate", "lines"])
        if kind == "delete":
            del toks[i]
        elif kind == "duplicate":
            toks.insert(i, toks[i])
        elif kind == "swap":
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == "replace":
            toks[i] = rng.choice(INTERESTING)
        elif kind == "insert":
            toks.insert(i, rng.choice(INTERESTING))
        elif kind == "digit" and re.fullmatch(r"-?\d+", toks[i]):
            toks[i] = rng.choice(["-1", "-7", "0", "65536", "2147483648", "99999999999999999999"])
        elif kind == "char" and toks[i]:
            k = rng.randrange(len(toks[i]))
            toks[i] = toks[i][:k] + chr(rng.choice([0x41, 0x7B, 0x7D, 0xE9, 0x2028, 0x1,
                                                    0x22, 0x5C])) + toks[i][k + 1:]
        elif kind == "truncate":
            del toks[i:]
        elif kind == "lines":
            lines = "".join(toks).split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines.insert(a, lines[b])
            toks = _TOKEN.findall("\n".join(lines))
    return "".join(toks)


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Flip, overwrite, drop, duplicate or truncate a few bytes."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not b:
            break
        i = rng.randrange(len(b))
        kind = rng.choice(["flip", "byte", "drop", "dup", "truncate"])
        if kind == "flip":
            b[i] ^= 1 << rng.randrange(8)
        elif kind == "byte":
            b[i] = rng.randrange(256)
        elif kind == "drop":
            del b[i:i + rng.randint(1, 16)]
        elif kind == "dup":
            b[i:i] = b[i:i + rng.randint(1, 16)]
        else:
            del b[i:]
    return bytes(b)


def mutate_sidecar(rng: random.Random) -> str:
    """A dtypes sidecar, well-formed or not."""
    value = rng.choice(['"bfloat16"', '"float8_e4m3fn"', '"float64"', '"nonsense"', "3",
                        "null", '"object"', '"V2"', '["x"]', '"int4"'])
    key = rng.choice(['"arg0"', '"arg1"', '"out0"', "1", '""'])
    text = rng.choice(["{%s: %s}", "[%s, %s]", "{%s: %s", "%s", ""])
    return text % (key, value) if text.count("%s") == 2 else (text % value if text else text)


# -- one worker -----------------------------------------------------------------------------


def _cli(argv: list[str]) -> tuple[int, str]:
    """Exit status and stderr of an in-process CLI call."""
    from hlotool.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, err.getvalue()


def _bad(code: int, err: str) -> bool:
    return code not in (0, 1, 2) or "internal error" in err or "Traceback" in err


def check_text(path: Path, text: str, run: bool, cpu_every: int = 0) -> str | None:
    """None when every command handled the mutant cleanly, else what went wrong."""
    path.write_text(text)
    code, err = _cli(["parse", str(path)])
    if _bad(code, err):
        return f"parse: exit {code}: {err.strip()[-300:]}"
    if code != 0:
        return None
    code, err = _cli(["print", str(path)])
    if _bad(code, err):
        return f"print: exit {code}: {err.strip()[-300:]}"
    if run:
        code, err = _cli(["run", str(path), "--target", "interp", "--max-memory", "256M"])
        if _bad(code, err):
            return f"run: exit {code}: {err.strip()[-300:]}"
    PARSED[0] += 1
    if cpu_every and PARSED[0] % cpu_every == 0:
        return check_cpu(path)
    return None


CPU_RUNS = [0]
PARSED = [0]


def check_cpu(path: Path) -> str | None:
    """`run --target cpu` in a child process, bounded by --timeout (exit 124 is fine)."""
    CPU_RUNS[0] += 1
    env = dict(os.environ, HLOTOOL_CACHE_DIR=str(path.parent / "cpu-cache"))
    argv = [sys.executable, "-m", "hlotool.cli", "run", str(path), "--target", "cpu",
            "--timeout", "30", "--max-memory", "256M"]
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=75,
                              cwd=ROOT)
    except subprocess.TimeoutExpired:
        return "run --target cpu: no exit 45 s after its --timeout"
    if done.returncode not in (0, 1, 2, 124) or "internal error" in done.stderr \
            or "Traceback" in done.stderr:
        return f"run --target cpu: exit {done.returncode}: {done.stderr.strip()[-300:]}"
    return None


def check_npz(folder: Path, data: bytes, sidecar: str | None) -> str | None:
    from hlotool.diagnostics import HloError
    from hlotool.values_io import load_npz

    path = folder / "in.npz"
    path.write_bytes(data)
    side = folder / "in.dtypes.json"
    if sidecar is None:
        side.unlink(missing_ok=True)
    else:
        side.write_text(sidecar)
    try:
        load_npz(path)
    except HloError:
        pass
    except Exception as exc:  # noqa: BLE001 - what the fuzzer looks for
        return f"load_npz: {type(exc).__name__}: {exc}"
    return None


def check_sealed(store: object, name: str, data: bytes) -> str | None:
    (store.root / name).write_bytes(data)  # type: ignore[attr-defined]
    os.chmod(store.root / name, 0o600)  # type: ignore[attr-defined]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            got = store.read(name)  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001
        return f"sealed read: {type(exc).__name__}: {exc}"
    if got is not None and got != ORIGINAL_SEALED:
        return "sealed read accepted modified data"
    return None


ORIGINAL_SEALED = b'{"format": 4, "sizes": [3], "symbols": {}}\nabc'
ORIGINAL_ENTRY = (b'{"format": 5, "sizes": [4, 2], "symbols": {"fusion": "k0", "add.1": "k1"}, '
                  b'"tuning": {"fusion": {"tile": [8, 4]}}, "tuned": true, '
                  b'"kinds": {"fusion": "LoopPlan/FULL", "add.1": "LoopPlan/FULL"}}\n\x7fELFab')
TINY_GRAMMAR = 'start: WORD ("," WORD)*\n%import common.WORD\n%ignore " "\n'


def check_entry(cache: object, data: bytes) -> str | None:
    """A signed but mutated CPU cache entry: an Entry of consistent parts, or None."""
    sealed = cache._sealed()  # type: ignore[attr-defined]
    sealed.write(cache._name("ab" * 32), data)  # type: ignore[attr-defined]
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            entry = cache.load("ab" * 32)  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001
        return f"cpu cache load: {type(exc).__name__}: {exc}"
    if entry is not None and (not all(isinstance(o, bytes) for o in entry.objects)
                              or sum(map(len, entry.objects)) > len(data)):
        return "cpu cache load returned an inconsistent entry"
    return None


def check_grammar(store: object, name: str, data: bytes) -> str | None:
    """Signed but mutated grammar tables load (or are rebuilt) without an exception and
    without running code. Only hlotool itself can sign tables, so signed garbage means a
    bug that wrote it; what such a parser then accepts is not checked (seed 62991 loaded
    tables that reject valid text)."""
    from lark.exceptions import LarkError

    from hlotool.grammar_cache import cached_lark

    store.write(name, data)  # type: ignore[attr-defined]
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parser = cached_lark("fuzz", TINY_GRAMMAR, parser="lalr")
    except Exception as exc:  # noqa: BLE001
        return f"grammar tables: {type(exc).__name__}: {exc}"
    with contextlib.suppress(LarkError, KeyError, IndexError, TypeError, ValueError):
        parser.parse("a, b")  # what garbage tables accept is not checked, only that they load
    return None


def worker(conn: object, run_every: int, cpu_every: int) -> None:
    """Check the mutants whose seeds arrive on `conn`; send back (seed, kind, problem)."""
    import numpy as np

    from hlotool.grammar_cache import cached_lark
    from hlotool.sealed import SealedDir
    from hlotool.values_io import save_npz
    from hlotool.targets.cpu.cache import DiskCache

    os.environ.setdefault("HLOTOOL_MAX_MEMORY", "512M")
    texts = corpus_texts()
    folder = Path(tempfile.mkdtemp(prefix="hlotool-fuzz-"))
    store = SealedDir.open(folder / "cache")
    assert store is not None
    store.write("e", ORIGINAL_SEALED)
    sealed = (store.root / "e").read_bytes()
    cpu_cache = DiskCache(folder / "entries")
    os.environ["HLOTOOL_CACHE_DIR"] = str(folder / "grammar")
    with contextlib.redirect_stderr(io.StringIO()):
        cached_lark("fuzz", TINY_GRAMMAR, parser="lalr")
    grammar_store = SealedDir.open(folder / "grammar")
    assert grammar_store is not None
    tables = grammar_store.read("fuzz.lark.tables")
    assert tables is not None
    save_npz(folder / "good.npz", {"arg0": np.arange(6, dtype=np.float32).reshape(2, 3),
                                   "arg1": np.ones(3, np.uint16)})
    npz = (folder / "good.npz").read_bytes()
    while True:
        seed = conn.recv()  # type: ignore[attr-defined]
        if seed is None:
            break
        rng = random.Random(seed)
        roll = rng.random()
        if roll < 0.9:
            name, text = rng.choice(texts)
            kind = "mlir" if name.endswith(".mlir") else "hlo"
            mutant = mutate_text(text, rng)
            path = folder / f"m.{'mlir' if kind == 'mlir' else 'hlo'}"
            problem = check_text(path, mutant, run=seed % run_every == 0,
                                 cpu_every=cpu_every)
            payload = mutant
        elif roll < 0.95:
            kind = "npz"
            data = mutate_bytes(npz, rng)
            sidecar = mutate_sidecar(rng) if rng.random() < 0.5 else None
            problem = check_npz(folder, data, sidecar)
            payload = repr((data[:2000], sidecar))
        elif roll < 0.97:
            kind = "cache"
            data = mutate_bytes(sealed, rng)
            problem = check_sealed(store, "m", data)
            payload = repr(data[:2000])
        elif roll < 0.995:
            kind = "cpu-entry"
            data = (mutate_text(ORIGINAL_ENTRY.decode("latin-1"), rng).encode("latin-1", "replace")
                    if rng.random() < 0.5 else mutate_bytes(ORIGINAL_ENTRY, rng))
            problem = check_entry(cpu_cache, data)
            payload = repr(data[:2000])
        else:
            kind = "grammar"
            head, _, body = tables.partition(b"\n")
            data = head + b"\n" + mutate_bytes(body, rng)
            problem = check_grammar(grammar_store, "fuzz.lark.tables", data)
            payload = repr(data[:2000])
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        message = (seed, kind, problem, payload if problem else "", rss, child, CPU_RUNS[0])
        conn.send(message)  # type: ignore[attr-defined]


# -- the driver -----------------------------------------------------------------------------


class Slot:
    """One worker process and the mutant it is on."""

    def __init__(self, run_every: int, cpu_every: int) -> None:
        self.conn, child = mp.Pipe()
        self.proc = mp.get_context("fork").Process(target=worker,
                                                   args=(child, run_every, cpu_every),
                                                   daemon=True)
        self.proc.start()
        self.seed: int | None = None
        self.since = 0.0
        self.cpu_runs = 0

    def give(self, seed: int) -> None:
        self.seed, self.since = seed, time.monotonic()
        self.conn.send(seed)

    def stop(self) -> None:
        self.proc.kill()
        self.proc.join()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=None, help="stop after this long")
    ap.add_argument("--seed", type=int, default=0, help="first mutant's seed")
    ap.add_argument("--run-every", type=int, default=10)
    ap.add_argument("--cpu-every", type=int, default=5,
                    help="run every N-th parsing mutant on the CPU target (0: never)")
    ap.add_argument("--hang-seconds", type=float, default=90.0)
    ap.add_argument("--keep", type=Path, default=Path("fuzz-failures"))
    ap.add_argument("--json", type=Path, help="also write the report here")
    args = ap.parse_args()
    from rich.progress import Progress

    started = time.monotonic()
    seeds = iter(range(args.seed, args.seed + args.mutants))
    slots = [Slot(args.run_every, args.cpu_every) for _ in range(args.workers)]
    counts = {"mutants": 0, "internal_errors": 0, "hangs": 0, "max_rss_bytes": 0,
              "max_child_rss_bytes": 0, "first_seed": args.seed}
    by_kind: dict[str, int] = {}
    kept = 0
    cpu_done = 0
    pending = len(slots)
    for slot in slots:
        slot.give(next(seeds))
    with Progress(disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("fuzzing", total=args.mutants)
        while pending:
            for k, slot in enumerate(slots):
                if slot.seed is None:
                    continue
                if slot.conn.poll(0.01):
                    try:
                        message = slot.conn.recv()
                    except EOFError:  # the worker died: report its mutant, start another
                        message = (slot.seed, "worker", "the worker process died", "", 0, 0, 0)
                        cpu_done += slot.cpu_runs
                        slot.stop()
                        slots[k] = slot = Slot(args.run_every, args.cpu_every)
                    seed, kind, problem, payload, rss, child, cpu_runs = message
                    slot.cpu_runs = cpu_runs
                    counts["mutants"] += 1
                    by_kind[kind] = by_kind.get(kind, 0) + 1
                    counts["max_rss_bytes"] = max(counts["max_rss_bytes"], rss)
                    if child > counts["max_child_rss_bytes"]:
                        # The seed whose CPU-target child set the peak, to reproduce it.
                        counts["max_child_rss_bytes"] = child
                        counts["max_child_rss_seed"] = seed
                    counts["last_seed"] = max(counts.get("last_seed", 0), seed)
                    if problem:
                        counts["internal_errors"] += 1
                        kept = _keep(args.keep, kept, seed, kind, problem, payload)
                    progress.advance(task)
                elif time.monotonic() - slot.since > args.hang_seconds:
                    cpu_done += slot.cpu_runs
                    counts["hangs"] += 1
                    counts["mutants"] += 1
                    kept = _keep(args.keep, kept, slot.seed, "hang", "no answer", "")
                    slot.stop()
                    slots[k] = slot = Slot(args.run_every, args.cpu_every)
                    progress.advance(task)
                else:
                    continue
                out_of_time = args.seconds is not None and time.monotonic() - started > args.seconds
                nxt = None if out_of_time else next(seeds, None)
                if nxt is None:
                    slot.seed = None
                    pending -= 1
                else:
                    slot.give(nxt)
                if args.json and counts["mutants"] % 500 == 0:
                    _report(args.json, counts, by_kind, slots, cpu_done, started, final=False)
    for slot in slots:
        slot.conn.send(None)
        slot.proc.join(timeout=5)
    report = _report(args.json, counts, by_kind, slots, cpu_done, started, final=True)
    print(json.dumps(report))
    return 1 if counts["internal_errors"] or counts["hangs"] else 0


def _report(path: Path | None, counts: dict[str, int], by_kind: dict[str, int],
            slots: list[Slot], cpu_done: int, started: float, final: bool) -> dict[str, object]:
    """The counts so far; `resume_seed` is the first seed not known to be checked (pass
    it as --seed to go on after an interrupted run). Written to `path` when given."""
    busy = [slot.seed for slot in slots if slot.seed is not None]
    report: dict[str, object] = dict(counts)
    report["resume_seed"] = min(busy) if busy and not final else \
        counts.get("last_seed", counts["first_seed"] - 1) + 1
    report["cpu_runs"] = cpu_done + sum(slot.cpu_runs for slot in slots)
    report["seconds"] = round(time.monotonic() - started, 1)
    report["by_kind"] = by_kind
    report["finished"] = final
    if path is not None:
        path.write_text(json.dumps(report, indent=1))
    return report


def _keep(folder: Path, kept: int, seed: int | None, kind: str, problem: str,
          payload: str) -> int:
    print(f"seed {seed} ({kind}): {problem}", file=sys.stderr)
    if kept < 20:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{seed}.{kind}.txt").write_text(f"{problem}\n\n{payload}")
    return kept + 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    threading.stack_size(64 << 20)
    sys.exit(main())
