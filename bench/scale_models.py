"""Training steps of real size for the scale benchmark, lowered by jax (the `jax` extra).

Each family takes a depth; `sized(family, target)` picks the depth whose pre-optimization
HLO has about `target` instructions. The text is cached under `bench/.scale-cache/`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

CACHE = Path(__file__).parent / ".scale-cache"


def _jax() -> Any:
    try:
        import jax
    except ImportError:
        raise SystemExit("this benchmark needs jax: pip install 'hlotool[jax]'") from None
    return jax


def _sgd(loss: Callable[..., Any], params: Any, *batch: Any) -> Any:
    jax = _jax()
    value, grads = jax.value_and_grad(loss)(params, *batch)
    return value, jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, grads)


def mlp_train(depth: int, width: int = 64, batch: int = 8) -> str:
    """A deep MLP (dense, gelu, layernorm per layer) training step with SGD."""
    jax = _jax()
    import jax.numpy as jnp

    def layernorm(x: Any) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5)

    def loss(params: Any, x: Any, y: Any) -> Any:
        for w, b in params:
            x = layernorm(jax.nn.gelu(x @ w + b))
        return ((x - y) ** 2).mean()

    params = [(jnp.zeros((width, width)), jnp.zeros((width,))) for _ in range(depth)]
    x = jnp.zeros((batch, width))
    step = jax.jit(lambda p, x, y: _sgd(loss, p, x, y))
    return str(step.lower(params, x, x).compiler_ir("hlo").as_hlo_text())


def transformer_train(depth: int, d: int = 64, heads: int = 4, seq: int = 16,
                      batch: int = 2) -> str:
    """A pre-norm transformer (causal attention, gelu MLP) training step with SGD."""
    jax = _jax()
    import jax.numpy as jnp

    def norm(x: Any, g: Any) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g

    def attention(x: Any, p: Any) -> Any:
        b, s, _ = x.shape
        q, k, v = (jnp.reshape(x @ p[n], (b, s, heads, d // heads)) for n in ("q", "k", "v"))
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / (d // heads) ** 0.5
        mask = jnp.tril(jnp.ones((s, s), bool))
        logits = jnp.where(mask, logits, -1e9)
        att = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(logits, -1), v)
        return jnp.reshape(att, (b, s, d)) @ p["o"]

    def loss(params: Any, x: Any, y: Any) -> Any:
        for p in params:
            x = x + attention(norm(x, p["g1"]), p)
            x = x + jax.nn.gelu(norm(x, p["g2"]) @ p["w1"]) @ p["w2"]
        return ((x - y) ** 2).mean()

    def layer() -> dict[str, Any]:
        z = jnp.zeros
        return {"q": z((d, d)), "k": z((d, d)), "v": z((d, d)), "o": z((d, d)),
                "g1": z((d,)), "g2": z((d,)), "w1": z((d, 4 * d)), "w2": z((4 * d, d))}

    params = [layer() for _ in range(depth)]
    x = jnp.zeros((batch, seq, d))
    step = jax.jit(lambda p, x, y: _sgd(loss, p, x, y))
    return str(step.lower(params, x, x).compiler_ir("hlo").as_hlo_text())


def scan_train(depth: int, hidden: int = 32, steps: int = 8, batch: int = 4) -> str:
    """Stacked recurrent layers, each a `lax.scan` (a while loop), trained with SGD."""
    jax = _jax()
    import jax.numpy as jnp

    def rnn(p: Any, xs: Any) -> Any:
        def cell(h: Any, x: Any) -> Any:
            h = jnp.tanh(x @ p["wx"] + h @ p["wh"] + p["b"])
            return h, h
        _, ys = jax.lax.scan(cell, jnp.zeros((batch, hidden)), xs)
        return ys

    def loss(params: Any, xs: Any, y: Any) -> Any:
        for p in params:
            xs = rnn(p, xs) + xs
        return ((xs - y) ** 2).mean()

    z = jnp.zeros
    params = [{"wx": z((hidden, hidden)), "wh": z((hidden, hidden)), "b": z((hidden,))}
              for _ in range(depth)]
    xs = z((steps, batch, hidden))
    step = jax.jit(lambda p, x, y: _sgd(loss, p, x, y))
    return str(step.lower(params, xs, xs).compiler_ir("hlo").as_hlo_text())


FAMILIES: dict[str, Callable[[int], str]] = {
    "mlp": mlp_train, "transformer": transformer_train, "scan": scan_train,
}

_INSTRUCTION = re.compile(r"^\s+(ROOT )?[\w.\-]+ = ", re.M)


def count_instructions(text: str) -> int:
    """Instruction lines of HLO text (without parsing it)."""
    return len(_INSTRUCTION.findall(text))


def sized(family: str, target: int) -> Path:
    """The cached HLO of `family` at the depth nearest `target` instructions."""
    path = CACHE / f"{family}-{target}.hlo"
    if path.exists():
        return path
    make = FAMILIES[family]
    per_layer = count_instructions(make(2)) - count_instructions(make(1))
    base = count_instructions(make(1)) - per_layer
    depth = max(1, round((target - base) / per_layer))
    CACHE.mkdir(exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(make(depth))
    tmp.replace(path)
    return path
