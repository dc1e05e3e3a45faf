"""Regenerate the sharded JAX cases beside this file (run with the `jax` extra):
`python tests/data/sharded/make_cases.py`. Each case folder holds module.hlo (before
XLA's passes), module.opt.hlo (XLA:CPU's per-device program), inputs.npz (global
arrays), expected.npz and case.json. An output whose devices all hold the same value is
expected as that value; otherwise as the devices' shards stacked in partition order
([devices, ...], what `hlotool run` writes when the module records no result sharding)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

HERE = Path(__file__).parent
RNG = np.random.default_rng(7)


def normal(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def expected(out: jax.Array) -> np.ndarray:
    shards = sorted(out.addressable_shards, key=lambda s: s.device.id)
    values = [np.asarray(s.data) for s in shards]
    if all(np.array_equal(values[0], v) for v in values[1:]):
        return values[0]
    return np.stack(values)


def save(name: str, fn, args: list[np.ndarray], in_shardings, devices: int, **jit) -> None:
    case = HERE / name
    case.mkdir(exist_ok=True)
    f = jax.jit(fn, in_shardings=in_shardings, **jit)
    lowered = f.lower(*args)
    (case / "module.hlo").write_text(lowered.as_text(dialect="hlo"))
    (case / "module.opt.hlo").write_text(lowered.compile().as_text())
    (case / "module.stablehlo.mlir").write_text(lowered.as_text())
    outs = jax.tree_util.tree_leaves(f(*args))
    np.savez(case / "inputs.npz", **{f"arg{i}": a for i, a in enumerate(args)})
    np.savez(case / "expected.npz", **{f"out{i}": expected(o) for i, o in enumerate(outs)})
    np.savez(case / "expected_global.npz", **{f"out{i}": np.asarray(o) for i, o in enumerate(outs)})
    (case / "case.json").write_text(json.dumps(
        {"devices": devices, "tolerance": {"rtol": 1e-5, "atol": 1e-5}}, indent=1) + "\n")
    print(name, [o.shape for o in outs], file=sys.stderr)


def main() -> None:
    devs = jax.devices()
    line4 = Mesh(np.array(devs[:4]), ("x",))
    grid = Mesh(np.array(devs[:4]).reshape(2, 2), ("a", "b"))
    grid8 = Mesh(np.array(devs[:8]).reshape(2, 4), ("data", "model"))

    def mlp(x, w1, w2):
        return jnp.tanh(x @ w1) @ w2

    x, w1, w2 = normal(16, 32), normal(32, 64), normal(64, 8)
    rep = NamedSharding(line4, P())
    save("dp_mlp", mlp, [x, w1, w2], (NamedSharding(line4, P("x", None)), rep, rep), 4)
    save("tp_mlp", mlp, [x, w1, w2],
         (rep, NamedSharding(line4, P(None, "x")), NamedSharding(line4, P("x", None))), 4)
    save("mesh2d_matmul", lambda a, b: a @ b, [normal(8, 16), normal(16, 12)],
         (NamedSharding(grid, P("a", "b")), NamedSharding(grid, P("b", None))), 4)
    save("dp_tp_mlp_8", mlp, [normal(16, 32), normal(32, 64), normal(64, 8)],
         (NamedSharding(grid8, P("data", None)), NamedSharding(grid8, P(None, "model")),
          NamedSharding(grid8, P("model", None))), 8)

    def collectives(x):
        i = jax.lax.axis_index("x").astype(jnp.float32)
        return (jax.lax.psum(x, "x"), jax.lax.all_gather(x, "x").reshape(-1, 8),
                jax.lax.psum_scatter(x, "x", tiled=True),
                jax.lax.ppermute(x, "x", [(k, (k + 1) % 4) for k in range(4)]),
                jax.lax.all_to_all(x, "x", 0, 0, tiled=True), jax.lax.pmax(x * i, "x"))

    sm = jax.shard_map(collectives, mesh=line4, in_specs=P("x"), out_specs=P("x"),
                       check_vma=False)
    save("shard_map_collectives", sm, [normal(16, 8)], None, 4)

    def pair(x, w):
        y = jax.lax.psum(jnp.tanh(x @ w), "x")
        return y, jax.lax.ppermute(y * 2, "x", [(0, 1), (1, 0)])

    more_cases(line4, grid)

    line2 = Mesh(np.array(devs[:2]), ("x",))
    sm2 = jax.shard_map(pair, mesh=line2, in_specs=(P("x"), P(None)), out_specs=P("x"),
                        check_vma=False)
    save("shard_map_2", sm2, [normal(8, 16), normal(16, 4)], None, 2)


def more_cases(line4: Mesh, grid: Mesh) -> None:
    """A training step, a convolution, layer norm, attention, a scan, a gather and
    reductions, each sharded the way a JAX user would."""
    def spec(mesh: Mesh, *axes: object) -> NamedSharding:
        return NamedSharding(mesh, P(*axes))

    def train(w1, w2, x, y):
        def loss(w1, w2):
            return jnp.mean((jax.nn.relu(x @ w1) @ w2 - y) ** 2)

        g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2)
        return w1 - 0.1 * g1, w2 - 0.1 * g2

    save("train_step_tp", train, [normal(16, 32), normal(32, 8), normal(16, 16), normal(16, 8)],
         (spec(line4, None, "x"), spec(line4, "x", None), spec(line4), spec(line4)), 4)

    def conv(x, k):
        return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    save("conv_batch", conv, [normal(8, 6, 6, 3), normal(3, 3, 3, 4)],
         (spec(line4, "x"), spec(line4)), 4)

    def layernorm(x):
        m = x.mean(-1, keepdims=True)
        return (x - m) / jnp.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)

    save("layernorm_cols", layernorm, [normal(16, 32)], (spec(line4, None, "x"),), 4)

    def attention(q, k, v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 4.0
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)

    save("attention_heads", attention, [normal(2, 4, 8, 16) for _ in range(3)],
         (spec(line4, None, "x"),) * 3, 4)

    def scan(x):
        return jax.lax.scan(lambda c, xi: (jnp.tanh(c + xi), c.sum()), jnp.zeros(x.shape[1:]), x)

    save("scan_sharded", scan, [normal(6, 8, 4)], (spec(line4, None, "x"),), 4)
    save("embedding", lambda table, ids: table[ids].sum(0),
         [normal(32, 8), np.arange(12, dtype=np.int32) % 32], (spec(line4, "x", None),
                                                               spec(line4)), 4)
    save("reductions", lambda x: (x.max(0), jnp.argmax(x, axis=1), x.sum()), [normal(16, 8)],
         (spec(grid, "a", "b"),), 4)


def parallel_rule_cases() -> None:
    """Convolutions, gathers, scatters, loops, conditionals and sharding constraints the
    partitioner runs in parallel (own random stream: `make_cases.py parallel` remakes
    just these)."""
    rng = np.random.default_rng(11)

    def draw(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    devs = jax.devices()
    line4 = Mesh(np.array(devs[:4]), ("x",))
    line8 = Mesh(np.array(devs[:8]), ("x",))
    grid = Mesh(np.array(devs[:4]).reshape(2, 2), ("a", "b"))
    line2 = Mesh(np.array(devs[:2]), ("x",))

    def spec(mesh: Mesh, *axes: object) -> NamedSharding:
        return NamedSharding(mesh, P(*axes))

    def conv(x, k):
        return jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    save("conv_out_feature", conv, [draw(2, 6, 6, 3), draw(3, 3, 3, 8)],
         (spec(line4), spec(line4, None, None, None, "x")), 4)
    save("conv_in_feature", conv, [draw(2, 6, 6, 8), draw(3, 3, 8, 4)],
         (spec(line4, None, None, None, "x"), spec(line4, None, None, "x", None)), 4)
    save("conv_batch_feature", conv, [draw(4, 5, 5, 3), draw(3, 3, 3, 4)],
         (spec(grid, "a"), spec(grid, None, None, None, "b")), 4)
    ids = (np.arange(16, dtype=np.int32) * 5) % 24
    save("gather_index_parallel", lambda t, i: t[i], [draw(24, 6), ids],
         (spec(line8), spec(line8, "x")), 8)
    save("gather_passthrough", lambda t, i: t[i], [draw(24, 8), ids],
         (spec(line4, None, "x"), spec(line4)), 4)
    save("scatter_passthrough", lambda x, i, u: x.at[i].add(u),
         [draw(10, 8), np.array([1, 3, 3, 7], np.int32), draw(4, 8)],
         (spec(line4, None, "x"), spec(line4), spec(line4, None, "x")), 4)

    def loop(x, w):
        return jax.lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c @ w) + i, x)

    save("while_data_parallel", loop, [draw(16, 8), draw(8, 8)],
         (spec(line8, "x"), spec(line8)), 8)

    def branch(p, x):
        return jax.lax.cond(p > 0, lambda y: jnp.sin(y) * 2, lambda y: jnp.cos(y) - 1, x)

    save("cond_sharded", branch, [np.float32(1.5), draw(8, 6)],
         (spec(line2), spec(line2, "x")), 2)

    def constrained(x, w):
        h = jax.lax.with_sharding_constraint(x @ w, spec(line4, "x", None))
        return jnp.tanh(h).sum(0)

    save("sharding_constraint", constrained, [draw(16, 8), draw(8, 12)],
         (spec(line4), spec(line4)), 4)
    save("out_sharding", lambda x, w: jnp.tanh(x @ w), [draw(16, 8), draw(8, 4)],
         (spec(line4), spec(line4)), 4, out_shardings=spec(line4, "x", None))
    save("scatter_index_parallel", lambda x, i, u: x.at[i].add(u),
         [draw(10, 8), np.array([1, 3, 3, 7, 0, 9, 3, 12], np.int32), draw(8, 8)],
         (spec(line4), spec(line4, "x"), spec(line4, "x", None)), 4)
    save("conv_spatial", conv, [draw(2, 8, 6, 3), draw(5, 3, 3, 4)],
         (spec(line4, None, "x"), spec(line4)), 4)


if __name__ == "__main__":
    if sys.argv[1:] != ["parallel"]:
        main()
    parallel_rule_cases()
