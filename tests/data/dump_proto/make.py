"""Regenerate tests/data/dump_proto: a real `--xla_dump_to` folder of three jitted jax
functions, dumped as HLO text and as HloProto (`.hlo.pb`), with XLA's HloSnapshots of the
runs (`.snapshot.N.pb`, arguments and result), plus each run's inputs and XLA:CPU's outputs,
and one HloProto again in protobuf text format (`jit_loop.after.hlo.pbtxt`).

    .venv/bin/python tests/data/dump_proto/make.py   # jax/jaxlib 0.10 (the `jax` extra)

The folder keeps only the files hlotool reads (the before/after modules and snapshots).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DUMP = HERE / "dump"


def main() -> int:
    tmp = Path(tempfile.mkdtemp())
    os.environ["XLA_FLAGS"] = (f"--xla_dump_to={tmp} --xla_dump_hlo_as_text "
                               "--xla_dump_hlo_as_proto --xla_dump_hlo_snapshots")
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import jax.numpy as jnp
    import numpy as np

    def mlp(x, w, b):
        return jnp.sum(jnp.tanh(x @ w + b), axis=1), jax.nn.softmax(x @ w, axis=-1)

    def loop(x, n):
        def body(i, c):
            return jax.lax.cond(i % 2 == 0, lambda v: v * 1.5 - 0.25, jnp.sin, c)
        return jax.lax.fori_loop(0, n, body, x)

    def sort_scatter(x, idx):
        order = jnp.argsort(x)
        hist = jnp.zeros(6, jnp.int32).at[idx].add(1)
        return x[order], hist, jnp.cumsum(x)

    rng = np.random.default_rng(0)
    cases = {
        "mlp": (mlp, [rng.standard_normal((4, 8), np.float32),
                      rng.standard_normal((8, 3), np.float32),
                      rng.standard_normal((3,), np.float32)]),
        "loop": (loop, [rng.standard_normal((5,), np.float32), np.int32(7)]),
        "sort_scatter": (sort_scatter, [rng.standard_normal((10,), np.float32),
                                        rng.integers(0, 6, (12,)).astype(np.int32)]),
    }
    shutil.rmtree(DUMP, ignore_errors=True)
    DUMP.mkdir(parents=True)
    for name, (fn, args) in cases.items():
        fn.__name__ = name
        outs = jax.tree.leaves(jax.jit(fn)(*args))
        np.savez(HERE / f"{name}.inputs.npz", **{f"arg{i}": np.asarray(a) for i, a in enumerate(args)})
        np.savez(HERE / f"{name}.expected.npz", **{f"out{i}": np.asarray(o) for i, o in enumerate(outs)})
    for p in sorted(tmp.iterdir()):
        keep = ("before_optimizations.txt", "before_optimizations.hlo.pb",
                "cpu_after_optimizations.txt", "cpu_after_optimizations.hlo.pb")
        if any(f".jit_{n}." in p.name for n in cases) and (
                p.name.endswith(keep) or ".snapshot." in p.name):
            shutil.copy(p, DUMP / p.name)
    shutil.rmtree(tmp)
    _text_format(DUMP / "module_0002.jit_loop.cpu_after_optimizations.hlo.pb",
                 HERE / "jit_loop.after.hlo.pbtxt")
    print("\n".join(sorted(p.name for p in DUMP.iterdir())))
    return 0


def _text_format(pb: Path, out: Path) -> None:
    """The same HloProto in protobuf text format (XLA dumps binary protos only)."""
    sys.path.insert(0, str(HERE.parents[2]))
    from google.protobuf import text_format

    from hlotool.hloproto.schema import message_class

    msg = message_class("HloProto")()
    msg.ParseFromString(pb.read_bytes())
    out.write_text(text_format.MessageToString(msg))


if __name__ == "__main__":
    sys.exit(main())
