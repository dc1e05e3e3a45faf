"""Write the TensorFlow 2.21 corpus (tests/data/corpus_tf), run in a TensorFlow venv:

    python3 -m venv ~/venv-tf && ~/venv-tf/bin/pip install 'tensorflow-cpu==2.21.*'
    TF_CPP_MIN_LOG_LEVEL=3 ~/venv-tf/bin/python tests/data/corpus_tf/make_cases.py

Each case is a `tf.function(jit_compile=True)`. Its texts are what TensorFlow gives
through `experimental_get_compiler_ir(*args)(stage=...)`: 'hlo' (module.hlo),
'optimized_hlo' (module.opt.hlo, after XLA:CPU's passes) and 'stablehlo'
(module.stablehlo.mlir). The entry's parameters are the call's arguments, then the
variables it captures (in `captured_inputs` order); its results are the function's
results, then the new values of the variables it assigns. expected.npz holds what
TensorFlow's own XLA:CPU run returned.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.compiler.tf2xla.python import xla as tf2xla  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_case import write_case  # noqa: E402

ROOT = Path(__file__).resolve().parent
FLOAT_TOL = (1e-4, 1e-5)
EXACT = (0.0, 0.0)


def _rand(rng: np.random.Generator, shape: tuple[int, ...], dtype: str = "float32") -> Any:
    if dtype.startswith(("int", "uint")):
        return tf.constant(rng.integers(-20 if dtype.startswith("int") else 0, 20, shape)
                           .astype(dtype))
    return tf.constant(rng.standard_normal(shape).astype(dtype))


def _keras(layers: list[Any], input_shape: tuple[int, ...]) -> Any:
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input(input_shape), *layers])


# --- the cases: name -> (description, builder(rng) -> (fn, args), tolerance) ---

def dense_mlp(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(8, activation="gelu"),
                keras.layers.Dense(3, activation="softmax")], (12,))
    return (lambda x: m(x)), [_rand(rng, (5, 12))]


def conv_net(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
                keras.layers.MaxPooling2D(2), keras.layers.Conv2D(6, 3, strides=2),
                keras.layers.Flatten(), keras.layers.Dense(5)], (12, 12, 3))
    return (lambda x: m(x)), [_rand(rng, (2, 12, 12, 3))]


def depthwise_transpose_conv(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.DepthwiseConv2D(3, padding="same"),
                keras.layers.Conv2DTranspose(2, 3, strides=2),
                keras.layers.Activation("tanh")], (8, 8, 3))
    return (lambda x: m(x)), [_rand(rng, (1, 8, 8, 3))]


def lstm(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.LSTM(6, return_sequences=True), keras.layers.LSTM(4)], (7, 5))
    return (lambda x: m(x)), [_rand(rng, (3, 7, 5))]


def gru_bidirectional(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.Bidirectional(keras.layers.GRU(4)), keras.layers.Dense(2)], (6, 3))
    return (lambda x: m(x)), [_rand(rng, (2, 6, 3))]


def batchnorm(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.Dense(6), keras.layers.BatchNormalization()], (4,))
    return (lambda x: (m(x, training=False), m(x, training=True))), [_rand(rng, (8, 4))]


def embedding_pool(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.Embedding(20, 6), keras.layers.GlobalAveragePooling1D(),
                keras.layers.Dense(2)], (9,))
    return (lambda ids: m(ids)), [tf.constant(rng.integers(0, 20, (4, 9)).astype("int32"))]


def attention(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    keras.utils.set_random_seed(0)
    mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    norm = keras.layers.LayerNormalization()
    x = _rand(rng, (2, 5, 8))
    mha(x, x)
    return (lambda q, v: norm(q + mha(q, v, use_causal_mask=True))), [x, _rand(rng, (2, 5, 8))]


def train_step(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.Dense(6, activation="tanh"), keras.layers.Dense(2)], (4,))

    def step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(m(x) - y))
        grads = tape.gradient(loss, m.trainable_variables)
        for v, g in zip(m.trainable_variables, grads):
            v.assign_sub(0.05 * g)
        return loss
    return step, [_rand(rng, (8, 4)), _rand(rng, (8, 2))]


def train_step_xent(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    m = _keras([keras.layers.Conv1D(4, 3, activation="relu"), keras.layers.Flatten(),
                keras.layers.Dense(3)], (6, 2))
    momentum = [tf.Variable(tf.zeros_like(v)) for v in m.trainable_variables]

    def step(x: Any, labels: Any) -> Any:
        with tf.GradientTape() as tape:
            logits = m(x)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        grads = tape.gradient(loss, m.trainable_variables)
        for v, mo, g in zip(m.trainable_variables, momentum, grads):
            mo.assign(0.9 * mo + g)
            v.assign_sub(0.1 * mo)
        return loss, tf.argmax(logits, axis=1)
    return step, [_rand(rng, (5, 6, 2)), tf.constant(rng.integers(0, 3, (5,)).astype("int32"))]


def while_loop(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any, n: Any) -> Any:
        def body(i: Any, acc: Any) -> tuple[Any, Any]:
            return i + 1, tf.tanh(acc @ x) + tf.cast(i, tf.float32)
        return tf.while_loop(lambda i, acc: i < n, body, (tf.constant(0), tf.eye(4)))
    return fn, [_rand(rng, (4, 4)) * 0.5, tf.constant(5)]


def cond_switch(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any, k: Any) -> Any:
        a = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.exp(x), lambda: -x)
        b = tf.switch_case(k, [lambda: x * 2.0, lambda: tf.sin(x), lambda: tf.abs(x)])
        return a, b
    return fn, [_rand(rng, (3, 4)), tf.constant(1)]


def signal_fft(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any) -> Any:
        frames = tf.signal.frame(x, 8, 4)
        win = frames * tf.signal.hann_window(8)
        spec = tf.signal.rfft(win)
        inv = tf.signal.irfft(spec)
        return tf.abs(spec), tf.math.angle(spec), inv, tf.math.real(tf.signal.fft(
            tf.complex(x, x)))
    return fn, [_rand(rng, (2, 32))]


def gather_scatter(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any, idx: Any, pairs: Any) -> Any:
        return (tf.gather(x, idx), tf.gather(x, idx, axis=1), tf.gather_nd(x, pairs),
                tf.tensor_scatter_nd_add(x, pairs, tf.ones([3])),
                tf.tensor_scatter_nd_update(x, pairs, tf.constant([7.0, 8.0, 9.0])),
                tf.math.unsorted_segment_sum(x, tf.constant([0, 2, 0, 1, 2, 1]), 3))
    return fn, [_rand(rng, (6, 5)), tf.constant([4, 0, 2, 2]), tf.constant([[0, 1], [5, 4], [2, 2]])]


def int_ops(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(a: Any, b: Any, c: Any) -> Any:
        bs = tf.where(b == 0, tf.ones_like(b), b)
        return (a // bs, tf.math.floormod(a, bs), tf.truncatediv(a, bs),
                tf.bitwise.bitwise_and(a, b), tf.bitwise.bitwise_xor(a, b),
                tf.bitwise.left_shift(a, tf.abs(b) % 5), tf.bitwise.right_shift(a, tf.abs(b) % 5),
                tf.bitwise.invert(c), tf.maximum(a, b), tf.abs(a) * b, c * 3 + 1,
                tf.cast(a, tf.float32) / 3.0, tf.cast(tf.cast(a, tf.float32) * 2.7, tf.int32),
                tf.math.pow(tf.abs(a) % 4, 3))
    return fn, [_rand(rng, (4, 5), "int32"), _rand(rng, (4, 5), "int32"),
                _rand(rng, (4, 5), "int64")]


def reductions(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any) -> Any:
        return (tf.reduce_mean(x, 1), tf.reduce_max(x, 0), tf.reduce_prod(x[:, :4], 1),
                tf.math.reduce_logsumexp(x, 1), tf.math.reduce_std(x), tf.argmax(x, 1),
                tf.argmin(x, 0, output_type=tf.int32), tf.cumsum(x, 1), tf.math.cumprod(x, 0),
                tf.cumsum(x, 0, exclusive=True, reverse=True), tf.reduce_any(x > 1.0, 1),
                tf.math.count_nonzero(x > 0, 0), tf.norm(x, axis=1))
    return fn, [_rand(rng, (6, 9))]


def sort_topk(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any, i: Any) -> Any:
        v, ix = tf.math.top_k(x, 4)
        return (tf.sort(x, axis=1), tf.sort(i, direction="DESCENDING"), tf.argsort(x, axis=0),
                v, ix, tf.math.top_k(i, 3).indices, tf.math.in_top_k(tf.constant([0, 1, 2]), x, 2))
    return fn, [_rand(rng, (3, 10)), _rand(rng, (12,), "int32")]


def dynamic_slice(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any, i: Any, j: Any) -> Any:
        a = tf.gather(x, i + tf.range(3))
        b = tf2xla.dynamic_slice(x, tf.stack([j, i]), [2, 3])
        upd = tf2xla.dynamic_update_slice(x, tf.fill([2, 2], 5.0), tf.stack([j, i]))
        return a, b, upd, tf.roll(x, shift=3, axis=1), tf.reverse(x, [0])
    return fn, [_rand(rng, (6, 7)), tf.constant(2), tf.constant(4)]


def math_unary(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any, y: Any) -> Any:
        p = tf.abs(x) + 0.1
        return (tf.math.erf(x), tf.math.erfc(x), tf.nn.gelu(x, approximate=False),
                tf.math.expm1(x), tf.math.log1p(p), tf.math.rsqrt(p), tf.math.pow(p, y),
                tf.math.atan2(x, y), tf.math.sigmoid(x), tf.nn.softplus(x), tf.math.lgamma(p),
                tf.math.digamma(p), tf.math.round(x * 3), tf.math.floormod(x, 0.7),
                tf.nn.elu(x), tf.math.is_finite(tf.math.log(x)), tf.clip_by_value(x, -0.5, 0.5),
                tf.math.asinh(x), tf.math.acos(tf.tanh(x)))
    return fn, [_rand(rng, (4, 6)), _rand(rng, (4, 6))]


def pooling(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any) -> Any:
        return (tf.nn.avg_pool2d(x, 3, 2, "SAME"), tf.nn.max_pool2d(x, 2, 1, "VALID"),
                tf.image.resize(x, (5, 7), "bilinear"), tf.image.resize(x, (4, 4), "nearest"))
    return fn, [_rand(rng, (2, 7, 7, 3))]


def einsum_batch(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(a: Any, b: Any) -> Any:
        return (tf.einsum("bij,bjk->bik", a, b), tf.linalg.matmul(a, a, transpose_b=True),
                tf.einsum("bij->bji", a) * 2, tf.linalg.trace(tf.linalg.matmul(a, b)),
                tf.tensordot(a, b, [[1, 2], [2, 1]]))
    return fn, [_rand(rng, (3, 4, 5)), _rand(rng, (3, 5, 4))]


def stateless_random(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(seed: Any, x: Any) -> Any:
        n = tf.random.stateless_normal((4, 5), seed + 1, dtype=tf.float32)
        drop = tf.where(tf.random.stateless_uniform(tf.shape(x), seed) > 0.3, x / 0.7, 0.0)
        return n, drop
    return fn, [tf.constant([3, 14], dtype=tf.int32), _rand(rng, (3, 3))]


def losses_onehot(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(logits: Any, labels: Any) -> Any:
        oh = tf.one_hot(labels, 5)
        return (tf.nn.softmax_cross_entropy_with_logits(oh, logits),
                tf.nn.log_softmax(logits), tf.nn.sigmoid_cross_entropy_with_logits(oh, logits),
                tf.keras.losses.Huber()(oh, logits), tf.where(logits > 0, logits, oh),
                tf.math.confusion_matrix(labels, tf.argmax(logits, 1), 5))
    return fn, [_rand(rng, (6, 5)), tf.constant(rng.integers(0, 5, (6,)).astype("int32"))]


def half_precision(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(a: Any, b: Any) -> Any:
        h = tf.cast(a, tf.float16)
        bf = tf.cast(a, tf.bfloat16)
        return (tf.matmul(h, tf.cast(b, tf.float16)), tf.nn.relu(h) * h,
                tf.cast(tf.reduce_sum(h, 1), tf.float32), tf.cast(a, tf.float64) ** 2,
                tf.cast(bf @ tf.cast(b, tf.bfloat16), tf.float32), bf * 2, tf.cast(a * 50, tf.int8),
                tf.cast(tf.abs(a) * 50, tf.uint8), tf.cast(a, tf.complex64) * 1j)
    return fn, [_rand(rng, (4, 8)), _rand(rng, (8, 3))]


def linalg(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(a: Any, b: Any) -> Any:
        spd = tf.matmul(a, a, transpose_b=True) + 4.0 * tf.eye(4)
        chol = tf.linalg.cholesky(spd)
        return (chol, tf.linalg.triangular_solve(chol, b, lower=True),
                tf.linalg.band_part(a, 1, 0), tf.linalg.diag_part(spd), tf.linalg.l2_normalize(a, 1))
    return fn, [_rand(rng, (4, 4)), _rand(rng, (4, 2))]


def shape_ops(rng: np.random.Generator) -> tuple[Callable[..., Any], list[Any]]:
    def fn(x: Any, y: Any) -> Any:
        return (tf.concat([x, y], 0), tf.stack([x, y], 2), tf.transpose(x), tf.tile(x, [2, 1]),
                tf.pad(x, [[1, 0], [0, 2]], mode="REFLECT"), tf.pad(x, [[1, 1], [2, 0]], constant_values=3.0),
                tf.reshape(x, [-1]), tf.split(y, 2, 1)[1], tf.expand_dims(x, 0),
                tf.linalg.diag(x[0]),
                tf.broadcast_to(x[:1], [3, 4]))
    return fn, [_rand(rng, (3, 4)), _rand(rng, (3, 4))]


CASES: dict[str, tuple[str, Callable[..., Any], tuple[float, float]]] = {
    "dense_mlp": ("Keras Sequential: Dense relu, gelu, softmax", dense_mlp, FLOAT_TOL),
    "conv_net": ("Keras Conv2D, MaxPooling2D, strided Conv2D, Flatten, Dense", conv_net, FLOAT_TOL),
    "depthwise_transpose_conv": ("Keras DepthwiseConv2D and Conv2DTranspose",
                                 depthwise_transpose_conv, FLOAT_TOL),
    "lstm": ("two stacked Keras LSTMs (a while loop over time)", lstm, FLOAT_TOL),
    "gru_bidirectional": ("Keras Bidirectional GRU and Dense", gru_bidirectional, FLOAT_TOL),
    "batchnorm": ("Keras BatchNormalization, inference and training", batchnorm, FLOAT_TOL),
    "embedding_pool": ("Keras Embedding, GlobalAveragePooling1D, Dense", embedding_pool, FLOAT_TOL),
    "attention": ("Keras MultiHeadAttention with a causal mask and LayerNormalization",
                  attention, FLOAT_TOL),
    "train_step": ("GradientTape training step: MSE, SGD by assign_sub", train_step, FLOAT_TOL),
    "train_step_xent": ("GradientTape step: Conv1D, sparse softmax cross-entropy, momentum",
                        train_step_xent, FLOAT_TOL),
    "while_loop": ("tf.while_loop with a tensor trip count", while_loop, FLOAT_TOL),
    "cond_switch": ("tf.cond on a reduction and tf.switch_case", cond_switch, FLOAT_TOL),
    "signal_fft": ("tf.signal frame, hann window, rfft, irfft, complex fft", signal_fft, FLOAT_TOL),
    "gather_scatter": ("gather, gather_nd, tensor_scatter_nd_add/update, unsorted_segment_sum",
                       gather_scatter, FLOAT_TOL),
    "int_ops": ("int32/int64 floordiv, mod, bitwise, shifts, casts, pow", int_ops, EXACT),
    "reductions": ("mean, max, prod, logsumexp, std, argmax, cumsum, cumprod, any, norm",
                   reductions, FLOAT_TOL),
    "sort_topk": ("sort, argsort, top_k, in_top_k", sort_topk, FLOAT_TOL),
    "dynamic_slice": ("xla.dynamic_slice and dynamic_update_slice, gather of a range, roll, reverse",
                      dynamic_slice, FLOAT_TOL),
    "math_unary": ("erf, gelu, expm1, log1p, rsqrt, pow, atan2, lgamma, digamma, round...",
                   math_unary, FLOAT_TOL),
    "pooling": ("avg_pool2d SAME, max_pool2d, bilinear and nearest resize", pooling, FLOAT_TOL),
    "einsum_batch": ("einsum, batched matmul, trace, tensordot", einsum_batch, FLOAT_TOL),
    "stateless_random": ("stateless normal, and dropout from a stateless uniform",
                         stateless_random, FLOAT_TOL),
    "losses_onehot": ("one_hot, softmax and sigmoid cross-entropy, Huber, confusion_matrix",
                      losses_onehot, FLOAT_TOL),
    "half_precision": ("float16 and bfloat16 matmuls, float64, int8/uint8 casts, complex64",
                       half_precision, (1e-2, 1e-2)),
    "linalg": ("cholesky, triangular_solve, band_part, diag_part, l2_normalize", linalg, FLOAT_TOL),
    "shape_ops": ("concat, stack, transpose, tile, reflect/constant pad, split, diag",
                  shape_ops, FLOAT_TOL),
}


def _numpy(t: Any) -> np.ndarray:
    return np.asarray(t.numpy())


def _entry_arity(hlo: str) -> int:
    """How many parameters the ENTRY line of `hlo` declares."""
    entry = next(line for line in hlo.splitlines() if line.startswith("ENTRY"))
    return entry.split(") ->")[0].count(": ")


def make(name: str, seed: int) -> None:
    description, build, tol = CASES[name]
    rng = np.random.default_rng(seed)
    fn, args = build(rng)
    f = tf.function(fn, jit_compile=True)
    concrete = f.get_concrete_function(*args)
    variables = {id(v.handle): v for v in concrete.variables}
    captured = [variables[id(c)] if id(c) in variables else c for c in concrete.captured_inputs]
    before = [_numpy(c.value() if isinstance(c, tf.Variable) else c) for c in captured]
    ir = f.experimental_get_compiler_ir(*args)
    texts = {"module.hlo": ir(stage="hlo"), "module.opt.hlo": ir(stage="optimized_hlo"),
             "module.stablehlo.mlir": ir(stage="stablehlo")}
    results = [_numpy(r) for r in tf.nest.flatten(f(*args))]
    changed = [_numpy(c) for c, b in zip(captured, before)
               if isinstance(c, tf.Variable) and not np.array_equal(_numpy(c), b)]
    inputs = [_numpy(a) for a in args] + before
    if _entry_arity(texts["module.hlo"]) != len(inputs):
        raise RuntimeError(f"{name}: an argument became a compile-time constant")
    write_case(ROOT, name, description, texts, inputs, results + changed, tol,
               {"tensorflow_version": tf.__version__, "keras_version": keras.__version__,
                "seed": seed})


def main() -> None:
    names = sys.argv[1:] or sorted(CASES)
    for name in names:
        make(name, sorted(CASES).index(name))
        print(f"{name}: written")


if __name__ == "__main__":
    main()
