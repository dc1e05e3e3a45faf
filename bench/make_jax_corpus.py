"""Write a corpus of real JAX modules (the layout of tests/data/corpus) with the jax that
runs this script: `.venv312/bin/python bench/make_jax_corpus.py tests/data/corpus_jax012`.

Each case folder gets module.hlo (before XLA's passes), module.opt.hlo (after XLA:CPU's),
module.stablehlo.mlir, inputs.npz, expected.npz (XLA:CPU's outputs) and case.json. The
cases lean on what changed in newer jax: sorts and their comparators (`order=TOTAL`),
`topk` (`is_stable=true`), lgamma's constant tables (elided in the dump), scans.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp

jax.config.update("jax_platforms", "cpu")


def _top_p(logits: Any, p: Any) -> Any:
    probs = jax.nn.softmax(logits, axis=-1)
    order = jnp.argsort(-probs, axis=-1)
    sorted_probs = jnp.take_along_axis(probs, order, axis=-1)
    keep = jnp.cumsum(sorted_probs, axis=-1) - sorted_probs < p
    return jnp.where(keep, sorted_probs, 0.0)


def _mlp(x: Any, w1: Any, w2: Any) -> Any:
    return jnp.tanh(x @ w1) @ w2


def _scan(xs: Any) -> Any:
    def step(c: Any, x: Any) -> tuple[Any, Any]:
        c = 0.9 * c + x
        return c, jnp.sin(c)

    return jax.lax.scan(step, jnp.zeros(xs.shape[1:], xs.dtype), xs)


CASES: dict[str, tuple[str, Callable[..., Any], list[tuple[tuple[int, ...], str]]]] = {
    "argsort": ("stable argsort of floats with ties and NaN, descending argsort of ints",
                lambda x, i: (jnp.argsort(x, axis=-1, stable=True),
                              jnp.argsort(-i, axis=-1, stable=True)),
                [((4, 16), "float32"), ((4, 16), "int32")]),
    "sort_pairs": ("lexicographic sort of two keys", lambda a, b: jax.lax.sort((a, b), num_keys=2),
                   [((64,), "int32"), ((64,), "float32")]),
    "top_k": ("lax.top_k on floats and ints", lambda x, i: (jax.lax.top_k(x, 5), jax.lax.top_k(i, 3)),
              [((3, 20), "float32"), ((3, 20), "int32")]),
    "take_along_axis": ("take_along_axis after argsort",
                        lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=0), axis=0),
                        [((12, 5), "float32")]),
    "top_p": ("top-p (nucleus) filtering: softmax, argsort, cumsum", _top_p,
              [((2, 32), "float32"), ((), "float32")]),
    "lgamma": ("gammaln and digamma (table constants)",
               lambda x: (jax.scipy.special.gammaln(x + 1.5), jax.scipy.special.digamma(x + 1.5)),
               [((4, 8), "float32")]),
    "median": ("median and quantile (sorts)",
               lambda x: (jnp.median(x, axis=1), jnp.quantile(x, 0.3, axis=0)),
               [((6, 9), "float32")]),
    "mlp": ("two-layer tanh MLP", _mlp, [((8, 16), "float32"), ((16, 32), "float32"),
                                         ((32, 4), "float32")]),
    "scan": ("lax.scan with a carry", _scan, [((10, 4), "float32")]),
    "reduce_window": ("max and average pooling",
                      lambda x: (jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 3, 3, 1),
                                                       (1, 2, 2, 1), "SAME"),
                                 jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1),
                                                       (1, 1, 1, 1), "VALID") / 4),
                      [((2, 9, 9, 3), "float32")]),
    "unique_counts": ("searchsorted and cumulative max",
                      lambda s, v: (jnp.searchsorted(jnp.sort(s), v),
                                    jax.lax.cummax(v, axis=0)),
                      [((32,), "float32"), ((16,), "float32")]),
}


def _inputs(specs: list[tuple[tuple[int, ...], str]], rng: np.random.Generator) -> list[Any]:
    out = []
    for shape, dtype in specs:
        if dtype.startswith("int"):
            out.append(rng.integers(-5, 6, shape).astype(dtype))
        else:
            a = rng.standard_normal(shape).astype(dtype)
            if a.size > 4:
                a.reshape(-1)[1] = a.reshape(-1)[0]  # a tie
            out.append(a)
    return out


def write_case(root: Path, name: str, description: str, fn: Callable[..., Any],
               specs: list[tuple[tuple[int, ...], str]], seed: int) -> None:
    args = _inputs(specs, np.random.default_rng(seed))
    lowered = jax.jit(fn).lower(*args)
    compiled = lowered.compile()
    outs = jax.tree_util.tree_leaves(compiled(*args))
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "module.hlo").write_text(lowered.compiler_ir("hlo").as_hlo_text())
    (d / "module.opt.hlo").write_text(compiled.as_text())
    (d / "module.stablehlo.mlir").write_text(lowered.as_text())
    np.savez(d / "inputs.npz", **{f"arg{i}": a for i, a in enumerate(args)})
    np.savez(d / "expected.npz", **{f"out{i}": np.asarray(o) for i, o in enumerate(outs)})
    case = {"name": name, "description": description, "tolerance": {"rtol": 1e-5, "atol": 1e-6},
            "inputs": [[list(a.shape), str(a.dtype)] for a in args],
            "outputs": [[list(np.shape(o)), str(np.asarray(o).dtype)] for o in outs],
            "jax_version": jax.__version__, "backend": "cpu", "seed": seed}
    (d / "case.json").write_text(json.dumps(case, indent=1) + "\n")


def main() -> None:
    root = Path(sys.argv[1])
    for seed, (name, (description, fn, specs)) in enumerate(sorted(CASES.items())):
        write_case(root, name, description, fn, specs, seed)
        print(f"{name}: written")


if __name__ == "__main__":
    main()
