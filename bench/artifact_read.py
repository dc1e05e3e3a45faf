"""Time reading a ~10 MB StableHLO portable artifact (made here with jax.export: an MLP
whose weights are constants in the module).

    .venv/bin/python bench/artifact_read.py [--mb 10]

Prints the artifact's size and the seconds to decode the bytecode into StableHLO text, and
to parse and lower that text into the IR (best of 3).
"""

from __future__ import annotations

import argparse
import time


def make_artifact(mb: float) -> bytes:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import export

    n = int((mb * 2**20 / 4 / 2) ** 0.5)
    rng = np.random.default_rng(0)
    w1 = jnp.asarray(rng.standard_normal((n, n), np.float32))
    w2 = jnp.asarray(rng.standard_normal((n, n), np.float32))

    def f(x):
        return jnp.tanh(x @ w1) @ w2

    exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct((4, n), jnp.float32))
    return bytes(exp.mlir_module_serialized)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=10.0)
    args = ap.parse_args()
    from hlotool.bytecode import artifact_text
    from hlotool.stablehlo import parse_stablehlo

    data = make_artifact(args.mb)
    decode, parse = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        text = artifact_text(data)
        t1 = time.perf_counter()
        parse_stablehlo(text)
        t2 = time.perf_counter()
        decode.append(t1 - t0)
        parse.append(t2 - t1)
    print(f"artifact: {len(data) / 2**20:.1f} MiB")
    print(f"decode bytecode -> text: {min(decode):.3f} s")
    print(f"parse + lower -> IR:     {min(parse):.3f} s")
    print(f"total:                   {min(decode) + min(parse):.3f} s")


if __name__ == "__main__":
    main()
