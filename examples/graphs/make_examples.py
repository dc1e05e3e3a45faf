"""Rebuild the example drawings in this folder (needs jax: pip install 'hlotool[jax]').

    python examples/graphs/make_examples.py

Writes, next to this file:
- transformer_block.opt.hlo / .svg: one pre-norm transformer block (attention, MLP,
  layernorm) as XLA:CPU compiled it, fusions drawn as clusters; transformer_block.hlo
  is the block before XLA and transformer_block.diff.svg what XLA did to it;
- mlp.hlo / .svg and mlp.opt.hlo / .svg: a 3-layer MLP before and after XLA;
- mlp.diff.svg: the MLP after XLA, coloured by what fusion did to it;
- mlp.opt.collapsed.svg: the same with each fusion as one node.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hlotool.frontend import parse_hlo
from hlotool.graph import GraphOptions, draw, draw_diff, write

HERE = Path(__file__).parent


def transformer_block() -> tuple[str, str]:
    """(before, after XLA:CPU) HLO of one transformer block (batch 2, 16 tokens,
    width 64)."""
    import jax
    import jax.numpy as jnp

    d, heads, ff, seq = 64, 4, 128, 16

    def layernorm(x: Any, g: Any) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g

    def attention(p: dict[str, Any], x: Any) -> Any:
        b, t, _ = x.shape

        def split(y: Any) -> Any:
            return y.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)

        q, k, v = (split(x @ p[w]) for w in ("wq", "wk", "wv"))
        scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(d // heads)
        out = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(scores, axis=-1), v)
        return out.transpose(0, 2, 1, 3).reshape(b, t, d) @ p["wo"]

    def block(p: dict[str, Any], x: Any) -> Any:
        x = x + attention(p, layernorm(x, p["g1"]))
        h = jax.nn.gelu(layernorm(x, p["g2"]) @ p["w1"])
        return x + h @ p["w2"]

    p = {w: jnp.zeros((d, d)) for w in ("wq", "wk", "wv", "wo")}
    p |= {"g1": jnp.ones(d), "g2": jnp.ones(d), "w1": jnp.zeros((d, ff)),
          "w2": jnp.zeros((ff, d))}
    return _texts(jax.jit(block).lower(p, jnp.zeros((2, seq, d))))


def mlp() -> tuple[str, str]:
    """(before, after XLA:CPU) HLO of a 3-layer MLP with gelu."""
    import jax
    import jax.numpy as jnp

    def net(params: Any, x: Any) -> Any:
        for w, b in params:
            x = jax.nn.gelu(x @ w + b)
        return x

    params = [(jnp.zeros((32, 32)), jnp.zeros(32)) for _ in range(3)]
    return _texts(jax.jit(net).lower(params, jnp.zeros((8, 32))))


def _texts(lowered: Any) -> tuple[str, str]:
    """(HLO before XLA's passes, HLO as XLA:CPU compiled it) of a lowered function."""
    before = lowered.compiler_ir("hlo")
    after = lowered.compile().as_text()
    assert before is not None
    assert after is not None
    return before.as_hlo_text(), after


def save(name: str, text: str) -> None:
    (HERE / name).write_text(text)
    print("wrote", HERE / name)


def main() -> None:
    block_before, block_after = transformer_block()
    before, after = mlp()
    save("transformer_block.hlo", block_before)
    save("transformer_block.opt.hlo", block_after)
    save("mlp.hlo", before)
    save("mlp.opt.hlo", after)
    for name in ("transformer_block.opt", "mlp", "mlp.opt"):
        module = parse_hlo((HERE / f"{name}.hlo").read_text())
        write(draw(module), HERE / f"{name}.svg")
    write(draw(parse_hlo(after), GraphOptions(collapse_fusions=True)),
          HERE / "mlp.opt.collapsed.svg")
    write(draw_diff(parse_hlo(before), parse_hlo(after)), HERE / "mlp.diff.svg")
    write(draw_diff(parse_hlo(block_before), parse_hlo(block_after)),
          HERE / "transformer_block.diff.svg")
    print("drew the .svg files")


if __name__ == "__main__":
    main()
