"""Modules the benchmarks measure, built with jax (the optional `jax` extra)."""

from __future__ import annotations

from typing import Any


def _jax() -> Any:
    try:
        import jax
    except ImportError:
        raise SystemExit("this benchmark needs jax: pip install 'hlotool[jax]'") from None
    return jax


def deep_mlp(layers: int = 240, width: int = 64, batch: int = 8) -> tuple[str, str]:
    """(pre-optimization HLO, XLA:CPU-compiled HLO) of an MLP with gelu and layernorm
    in every layer: about 16k instructions at 240 layers."""
    jax = _jax()
    import jax.numpy as jnp

    def layernorm(x: Any) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5)

    def mlp(params: Any, x: Any) -> Any:
        for w, b in params:
            x = layernorm(jax.nn.gelu(x @ w + b))
        return x

    params = [(jnp.zeros((width, width)), jnp.zeros((width,))) for _ in range(layers)]
    lowered = jax.jit(mlp).lower(params, jnp.zeros((batch, width)))
    return lowered.compiler_ir("hlo").as_hlo_text(), lowered.compile().as_text()


def mlp(batch: int = 256, sizes: tuple[int, ...] = (512, 1024, 1024, 10)) -> tuple[str, Any]:
    """(pre-optimization HLO, jitted function) of a relu MLP; params are arguments."""
    jax = _jax()
    import jax.numpy as jnp

    def forward(params: Any, x: Any) -> Any:
        for i, (w, b) in enumerate(params):
            x = x @ w + b
            if i < len(params) - 1:
                x = jax.nn.relu(x)
        return x

    params = [(jnp.zeros((a, b), jnp.float32), jnp.zeros((b,), jnp.float32))
              for a, b in zip(sizes, sizes[1:], strict=False)]
    x = jnp.zeros((batch, sizes[0]), jnp.float32)
    jitted = jax.jit(forward)
    return jitted.lower(params, x).compiler_ir("hlo").as_hlo_text(), jitted
