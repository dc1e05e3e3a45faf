"""Generate the portable artifacts and jax.export blobs of tests/bytecode (run with jax).

    .venv/bin/python tests/data/artifacts/generate.py                   # jax 0.10 -> here
    PY312/bin/python tests/data/artifacts/generate.py tests/data/artifacts_jax012   # jax 0.12

For each model: NAME.jaxexport (jax.export(...).serialize(), needs the flatbuffers package),
NAME.mlirbc (its module, as jax serialized it), NAME.VERSION.mlirbc (the module serialized
again by jaxlib's StableHLO at older target versions), NAME.in.npz / NAME.out.npz (inputs,
and JAX's outputs for them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import export, lax
from jaxlib.mlir.dialects import stablehlo

HERE = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
#: Older targets each model is also serialized at (bytecode formats 1, 4 and 6), and with a
#: newer jaxlib the newest version hlotool reads.
TARGETS = ("0.10.0", "0.14.0", "1.0.0", "1.9.0") + (
    ("1.20.0",) if tuple(map(int, stablehlo.get_current_version().split("."))) >= (1, 20, 0)
    else ())


def mlp(x, w1, b1, w2):
    return jnp.tanh(jnp.maximum(x @ w1 + b1, 0.0) @ w2)


def conv(x, k):
    return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO",
                                                                            "NHWC"))


def while_loop(x):
    return lax.fori_loop(0, 5, lambda i, c: c * 0.5 + jnp.sin(c) + i, x)


def sort(x, y):
    return lax.sort((x, y), num_keys=1)


def poly(x, w):
    return jax.nn.softmax(x @ w, axis=-1)


def pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def gather_scatter(x, idx):
    return x[idx].sum(0), jnp.zeros_like(x).at[idx].add(1.0)


def cumsum(x):
    return jnp.cumsum(x, axis=1), jnp.argmax(x, axis=0)


def integer(a, b):
    return (a & b) ^ (a >> 2), jnp.where(a > b, a, b), (a % 7).astype(jnp.int8)


def layernorm(x, g):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + 1e-5) * g


def f32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)


def i32(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.int32)


MODELS = {
    "mlp": (mlp, (f32(8, 16), f32(16, 32), f32(32), f32(32, 4))),
    "conv": (conv, (f32(2, 8, 8, 3), f32(3, 3, 3, 4))),
    "while": (while_loop, (f32(6),)),
    "sort": (sort, (f32(10), i32(10))),
    "pool": (pool, (f32(1, 6, 6, 2),)),
    "gather_scatter": (gather_scatter, (f32(5, 3), jax.ShapeDtypeStruct((4,), jnp.int32))),
    "cumsum": (cumsum, (f32(4, 6),)),
    "integer": (integer, (i32(12), i32(12))),
    "layernorm": (layernorm, (f32(3, 8), f32(8))),
}


def _inputs(specs, rng):
    out = []
    for s in specs:
        if s.dtype == jnp.int32:
            out.append(rng.integers(0, 4, s.shape).astype(np.int32))
        else:
            out.append(rng.standard_normal(s.shape).astype(np.float32))
    return out


def _save(name, exp, args):
    (HERE / f"{name}.jaxexport").write_bytes(exp.serialize())
    (HERE / f"{name}.mlirbc").write_bytes(exp.mlir_module_serialized)
    text = exp.mlir_module()
    for target in TARGETS:
        try:
            data = stablehlo.serialize_portable_artifact_str(text, target)
        except Exception:  # the module uses an op newer than this target
            continue
        (HERE / f"{name}.{target}.mlirbc").write_bytes(data)
    outs = jax.tree.leaves(exp.call(*args))
    np.savez(HERE / f"{name}.in.npz", **{f"arg{i}": a for i, a in enumerate(args)})
    np.savez(HERE / f"{name}.out.npz", **{f"out{i}": np.asarray(o) for i, o in enumerate(outs)})


def main() -> None:
    HERE.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for name, (fn, specs) in MODELS.items():
        exp = export.export(jax.jit(fn))(*specs)
        _save(name, exp, _inputs(specs, rng))
    # Shape-polymorphic batch: exported for any b, run at b = 5.
    (b,) = export.symbolic_shape("b")
    exp = export.export(jax.jit(poly))(jax.ShapeDtypeStruct((b, 16), jnp.float32), f32(16, 8))
    _save("poly", exp, _inputs((f32(5, 16), f32(16, 8)), rng))


if __name__ == "__main__":
    main()
