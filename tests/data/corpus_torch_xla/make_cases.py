"""Write the PyTorch/XLA 2.9 corpus (tests/data/corpus_torch_xla), run in a torch_xla venv:

    python3 -m venv ~/venv-torch && ~/venv-torch/bin/pip install torch==2.9.1 torch_xla==2.9.0
    ~/venv-torch/bin/python tests/data/corpus_torch_xla/make_cases.py

Two ways users hold PyTorch/XLA modules, one case each:

* lazy (the name has no prefix): the model runs on the XLA device (`torch_xla.device()`);
  module.hlo is `torch_xla._XLAC._get_xla_tensors_hlo(outputs)`, module.stablehlo.mlir
  `xm.get_stablehlo(outputs)` of the same graph, module.opt.hlo the
  `*.cpu_after_optimizations.txt` that `--xla_dump_to` wrote when the graph ran.
  inputs.npz holds the graph's device data (`_get_tensors_xla_device_data_node`) in
  parameter order: weights, inputs and the scalars PyTorch/XLA passes as data.
* export (`export_*`): `torch.export.export` then
  `torch_xla.stablehlo.exported_program_to_stablehlo`; module.stablehlo.mlir is its text,
  module.hlo and module.opt.hlo the dump of XLA compiling it when the bundle runs.

expected.npz holds what PyTorch/XLA's XLA:CPU run returned.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

DUMP = Path(tempfile.mkdtemp(prefix="torch_xla_dump_"))
os.environ["PJRT_DEVICE"] = "CPU"
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ["XLA_FLAGS"] = f"--xla_dump_to={DUMP}"

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch_xla  # noqa: E402
import torch_xla.core.xla_model as xm  # noqa: E402
import torch_xla.debug.metrics as met  # noqa: E402
from torch import nn  # noqa: E402
from torch_xla import stablehlo as tx_stablehlo  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_case import write_case  # noqa: E402

ROOT = Path(__file__).resolve().parent
FLOAT_TOL = (1e-4, 1e-5)
EXACT = (0.0, 0.0)
#: Exact integers, f32 within two ulps: `a.float() / 3` divides by a scalar parameter,
#: which hlotool's `cpu` pipeline, as XLA:CPU since jax 0.10, multiplies by its reciprocal
#: (PyTorch/XLA 2.9's XLA:CPU divides).
INT_EXACT = (2.4e-7, 0.0)
Built = tuple[Callable[..., Any], list[torch.Tensor]]


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape)


def _ints(low: int, high: int, *shape: int) -> torch.Tensor:
    return torch.randint(low, high, shape)


class Seq(nn.Module):
    """A module calling `fn(module, *args)` (so torch.export sees its parameters)."""

    def __init__(self, fn: Callable[..., Any], **children: nn.Module) -> None:
        super().__init__()
        self.fn = fn
        for name, child in children.items():
            self.add_module(name, child)

    def forward(self, *args: Any) -> Any:
        return self.fn(self, *args)


# --- models: name -> builder() -> (module or function, example args) ---

def linear_softmax() -> Built:
    return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 5), nn.Softmax(-1)), \
        [_randn(4, 12)]


def conv_bn_pool() -> Built:
    m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                      nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, stride=2), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(6, 3))
    return m.eval(), [_randn(2, 3, 10, 10)]


def conv_variants() -> Built:
    m = Seq(lambda s, x, y: (s.dw(x), s.up(x), s.c1(y)),
            dw=nn.Conv2d(4, 4, 3, groups=4, padding=1),
            up=nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1),
            c1=nn.Conv1d(3, 5, 3, dilation=2))
    return m, [_randn(1, 4, 6, 6), _randn(2, 3, 12)]


def lstm() -> Built:
    m = Seq(lambda s, x: s.rnn(x)[0][:, -1] @ s.head.weight.T, rnn=nn.LSTM(5, 6, batch_first=True),
            head=nn.Linear(6, 2))
    return m, [_randn(3, 7, 5)]


def gru() -> Built:
    m = Seq(lambda s, x: s.rnn(x)[1], rnn=nn.GRU(4, 3, num_layers=2))
    return m, [_randn(6, 2, 4)]


def layernorm_gelu() -> Built:
    m = Seq(lambda s, x: F.gelu(s.norm(s.lin(x))), lin=nn.Linear(8, 8), norm=nn.LayerNorm(8))
    return m, [_randn(3, 5, 8)]


def embedding() -> Built:
    m = Seq(lambda s, ids: s.emb(ids).mean(1) @ s.out.weight.T + s.out.bias,
            emb=nn.Embedding(30, 6, padding_idx=0), out=nn.Linear(6, 3))
    return m, [_ints(0, 30, 4, 9)]


def multihead_attention() -> Built:
    m = Seq(lambda s, q, kv: s.mha(q, kv, kv, need_weights=True),
            mha=nn.MultiheadAttention(8, 2, batch_first=True))
    return m.eval(), [_randn(2, 5, 8), _randn(2, 6, 8)]


def transformer_block() -> Built:
    m = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True,
                                   norm_first=True)
    mask = nn.Transformer.generate_square_subsequent_mask(6)
    return Seq(lambda s, x: s.layer(x, src_mask=mask, is_causal=True), layer=m).eval(), \
        [_randn(2, 6, 16)]


def indexing_scatter() -> Built:
    def fn(x: torch.Tensor, idx: torch.Tensor, src: torch.Tensor) -> Any:
        y = x.clone()
        y[idx] = 0.5
        z = torch.zeros(4, 5, device=x.device).scatter_add(0, idx[:4].view(4, 1).expand(4, 5) % 4, src[:4])
        return (x[idx], x.index_select(1, idx[:3]), torch.gather(x, 1, idx[:3].view(1, 3).expand(6, 3)),
                y, z, x.masked_fill(x > 0.5, -1.0), x.index_add(0, idx[:2], src[:2]),
                x[1:5:2])
    return fn, [_randn(6, 5), torch.tensor([4, 0, 2, 2, 5, 1]), _randn(6, 5)]


def cumulative() -> Built:
    def fn(x: torch.Tensor) -> Any:
        return (torch.cumsum(x, 1), torch.cumprod(x, 0), torch.cumsum(x.flip(0), 0).flip(0),
                torch.cummax(x, 1).values, torch.cummax(x, 0).values)
    return fn, [_randn(5, 7)]


def sort_topk() -> Built:
    def fn(x: torch.Tensor, i: torch.Tensor) -> Any:
        v, ix = torch.topk(x, 3, dim=1)
        s, si = torch.sort(x, dim=0, descending=True)
        return v, ix, s, si, torch.argsort(i), torch.sort(i, stable=True).values, \
            torch.topk(x, 2, largest=False).values, torch.kthvalue(x, 2, dim=1).values
    return fn, [_randn(4, 9), _ints(-5, 5, 16)]


def int64_ops() -> Built:
    def fn(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> Any:
        bs = torch.where(b == 0, torch.ones_like(b), b)
        return (a // bs, a % bs, torch.div(a, bs, rounding_mode="trunc"), a & b, a | b, a ^ b,
                a << (b.abs() % 5), ~a, a * b + 7, torch.maximum(a, b),
                a.sum(1), a.max(), a.to(torch.float32) / 3, (a.float() * 2.7).long(),
                c.to(torch.int64) * 3, torch.clamp(a, -3, 4), a.abs().pow(2), torch.sign(a))
    return fn, [_ints(-20, 20, 4, 5), _ints(-20, 20, 4, 5), _ints(-9, 9, 4, 5).to(torch.int32)]


def reductions() -> Built:
    def fn(x: torch.Tensor) -> Any:
        return (x.sum(), x.mean(1), x.var(0), x.std(1, unbiased=False), x.amax(1), x.amin(0),
                x.argmax(1), x.argmin(), torch.logsumexp(x, 1), torch.linalg.vector_norm(x, dim=0),
                (x > 0).all(1), (x > 1).any(0), x.prod(1),
                x.max(1).indices)
    return fn, [_randn(6, 7)]


def math_ops() -> Built:
    def fn(x: torch.Tensor, y: torch.Tensor) -> Any:
        p = x.abs() + 0.1
        return (torch.erf(x), torch.erfc(x), torch.erfinv(torch.tanh(x) * 0.9), torch.expm1(x), torch.log1p(p), torch.atan2(x, y),
                torch.pow(p, y), torch.rsqrt(p), torch.sigmoid(x), F.softplus(x), F.hardswish(x),
                F.silu(x), F.mish(x), torch.round(x * 3), torch.fmod(x, 0.7), torch.remainder(x, 0.7),
                torch.asinh(x), torch.acos(torch.tanh(x)), torch.sinh(x), torch.isfinite(torch.log(x)),
                torch.nan_to_num(torch.log(x), nan=0.0, neginf=-9.0), torch.frac(x), torch.trunc(x * 2))
    return fn, [_randn(4, 6), _randn(4, 6)]


def shape_ops() -> Built:
    def fn(x: torch.Tensor, y: torch.Tensor) -> Any:
        return (torch.cat([x, y], 0), torch.stack([x, y], 2), x.permute(1, 0), torch.flip(x, [0, 1]),
                torch.roll(x, 2, 1), F.pad(x[None], (1, 2), mode="reflect")[0], F.pad(x, (0, 1, 2, 0), value=3.0),
                x.repeat(2, 1), x.narrow(1, 1, 2), torch.tril(x), torch.triu(y, 1), x.unsqueeze(0).expand(2, 3, 4),
                torch.chunk(y, 2, 1)[1], x.reshape(-1), torch.diag(x[:, :3]), torch.meshgrid(x[0], y[0], indexing="ij")[1])
    return fn, [_randn(3, 4), _randn(3, 4)]


def pooling_resize() -> Built:
    def fn(x: torch.Tensor) -> Any:
        return (F.avg_pool2d(x, 3, 2, padding=1), F.max_pool2d(x, 2, 1), F.interpolate(x, (5, 9), mode="bilinear", align_corners=False),
                F.interpolate(x, scale_factor=2, mode="nearest"))
    return fn, [_randn(2, 3, 7, 7)]


def einsum_matmul() -> Built:
    def fn(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> Any:
        return (torch.einsum("bij,bjk->bik", a, b), torch.bmm(a, b), torch.baddbmm(c, a, b, beta=0.5, alpha=2.0),
                torch.einsum("bii->b", a[:, :, :4]), a @ b[0], torch.tensordot(a, b, ([1, 2], [2, 1])),
                torch.outer(a[0, 0], b[0, 0]))
    return fn, [_randn(3, 4, 5), _randn(3, 5, 4), _randn(3, 4, 4)]


def losses() -> Built:
    def fn(logits: torch.Tensor, labels: torch.Tensor, target: torch.Tensor) -> Any:
        return (F.cross_entropy(logits, labels), F.nll_loss(F.log_softmax(logits, 1), labels, reduction="none"),
                F.binary_cross_entropy_with_logits(logits, target), F.smooth_l1_loss(logits, target),
                F.kl_div(F.log_softmax(logits, 1), F.softmax(target, 1), reduction="batchmean"),
                F.one_hot(labels, 5), F.cross_entropy(logits, labels, label_smoothing=0.1))
    return fn, [_randn(6, 5), _ints(0, 5, 6), torch.rand(6, 5)]


def half_double() -> Built:
    def fn(a: torch.Tensor, b: torch.Tensor) -> Any:
        h = a.half()
        return h @ b.half(), (F.relu(h) * h).sum(1).float(), a.double() ** 2, a.double().exp().sum()
    return fn, [_randn(4, 8), _randn(8, 3)]


def where_clamp() -> Built:
    def fn(x: torch.Tensor, t: torch.Tensor) -> Any:
        return (torch.where(x > t, x, t * 2), torch.clamp(x, min=-0.5, max=0.7), torch.clamp(x, max=t),
                torch.lerp(x, t, 0.3),
                torch.isclose(x, t, atol=0.5), torch.minimum(x, t), torch.logical_xor(x > 0, t > 0))
    return fn, [_randn(5, 4), _randn(5, 4)]


def _train(model: nn.Module, loss_fn: Callable[..., torch.Tensor],
           make_opt: Callable[[Any], torch.optim.Optimizer]) -> Callable[..., Any]:
    """One training step returning the loss, the updated parameters and optimizer state
    (the optimizer is made at the first step, once the model is on the device)."""
    made: list[torch.optim.Optimizer] = []

    def step(x: torch.Tensor, y: torch.Tensor) -> Any:
        if not made:
            made.append(make_opt(model.parameters()))
        opt = made[0]
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return (loss, *model.parameters(), *[s for st in opt.state.values() for s in st.values()
                                             if isinstance(s, torch.Tensor) and s.dim() > 0])
    step.model = model  # type: ignore[attr-defined]
    return step


def train_sgd() -> Built:
    m = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
    return _train(m, F.mse_loss, lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)), \
        [_randn(8, 4), _randn(8, 2)]


def train_adam_conv() -> Built:
    m = nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 4))
    return _train(m, F.cross_entropy, lambda p: torch.optim.Adam(p, lr=1e-2)), \
        [_randn(5, 1, 6, 6), _ints(0, 4, 5)]


def train_adamw_transformer() -> Built:
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    m = Seq(lambda s, x: s.layer(x).mean(1), layer=layer)
    return _train(m, F.mse_loss, lambda p: torch.optim.AdamW(p, lr=1e-3, eps=1e-3, weight_decay=0.01)), \
        [_randn(2, 4, 8), _randn(2, 8)]


LAZY: dict[str, tuple[str, Callable[[], Built], tuple[float, float]]] = {
    "linear_softmax": ("nn.Sequential Linear, ReLU, Linear, Softmax", linear_softmax, FLOAT_TOL),
    "conv_bn_pool": ("Conv2d, BatchNorm2d (eval), MaxPool2d, strided Conv2d, AdaptiveAvgPool2d",
                     conv_bn_pool, FLOAT_TOL),
    "conv_variants": ("depthwise Conv2d, ConvTranspose2d, dilated Conv1d", conv_variants, FLOAT_TOL),
    "lstm": ("nn.LSTM (batch_first) and a projection", lstm, FLOAT_TOL),
    "gru": ("two-layer nn.GRU, final hidden state", gru, FLOAT_TOL),
    "layernorm_gelu": ("Linear, LayerNorm, GELU", layernorm_gelu, FLOAT_TOL),
    "embedding": ("nn.Embedding with padding_idx, mean, Linear", embedding, FLOAT_TOL),
    "multihead_attention": ("nn.MultiheadAttention with its weights", multihead_attention, FLOAT_TOL),
    "transformer_block": ("pre-norm TransformerEncoderLayer with a causal mask",
                          transformer_block, FLOAT_TOL),
    "indexing_scatter": ("advanced indexing, index_put, scatter_add, gather, masked_fill, index_add",
                         indexing_scatter, FLOAT_TOL),
    "cumulative": ("cumsum, cumprod, reversed cumsum, cummax", cumulative,
                   FLOAT_TOL),
    "sort_topk": ("topk, sort, argsort, stable sort of int64, kthvalue", sort_topk, FLOAT_TOL),
    "int64_ops": ("int64 floor/trunc division, remainder, bitwise, left shift, casts, clamp",
                  int64_ops, INT_EXACT),
    "reductions": ("sum, mean, var, std, amax, argmax, logsumexp, norm, all, any, prod",
                   reductions, FLOAT_TOL),
    "math_ops": ("erf, erfinv, expm1, atan2, pow, hardswish, silu, mish, fmod, nan_to_num...",
                 math_ops, FLOAT_TOL),
    "shape_ops": ("cat, stack, permute, flip, roll, reflect/constant pad, repeat, tril, meshgrid",
                  shape_ops, FLOAT_TOL),
    "pooling_resize": ("avg/max pool, bilinear and nearest interpolate",
                       pooling_resize, FLOAT_TOL),
    "einsum_matmul": ("einsum, bmm, baddbmm, tensordot, outer", einsum_matmul, FLOAT_TOL),
    "losses": ("cross_entropy, nll, BCE with logits, smooth L1, KL, one_hot, label smoothing",
               losses, FLOAT_TOL),
    "half_double": ("float16 matmul and reductions, float64", half_double, (2e-3, 2e-3)),
    "where_clamp": ("where, clamp, lerp, isclose, logical_xor", where_clamp, FLOAT_TOL),
    "train_sgd": ("training step: MLP, MSE, backward, SGD with momentum", train_sgd, FLOAT_TOL),
    "train_adam_conv": ("training step: Conv2d, cross-entropy, backward, Adam", train_adam_conv,
                        FLOAT_TOL),
    "train_adamw_transformer": ("training step: TransformerEncoderLayer, backward, AdamW",
                                train_adamw_transformer, FLOAT_TOL),
}

EXPORT: dict[str, tuple[str, Callable[[], Built], tuple[float, float]]] = {
    "export_linear_softmax": ("exported nn.Sequential MLP", linear_softmax, FLOAT_TOL),
    "export_conv_bn_pool": ("exported CNN with BatchNorm2d (eval)", conv_bn_pool, FLOAT_TOL),
    "export_lstm": ("exported nn.LSTM", lstm, FLOAT_TOL),
    "export_transformer_block": ("exported TransformerEncoderLayer", transformer_block, FLOAT_TOL),
    "export_embedding": ("exported nn.Embedding model (int64 ids)", embedding, FLOAT_TOL),
    "export_sort_topk": ("exported topk and sorts", sort_topk, FLOAT_TOL),
}


def _as_module(fn: Callable[..., Any]) -> nn.Module:
    return fn if isinstance(fn, nn.Module) else Seq(lambda _s, *a: fn(*a))


def _numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def _flat(out: Any) -> list[torch.Tensor]:
    return [out] if isinstance(out, torch.Tensor) else [t for o in out for t in _flat(o)]


def _new_dump(before: set[str], stage: str) -> str:
    """The text of the one module XLA dumped at `stage` since `before` was listed."""
    new = sorted(p for p in os.listdir(DUMP) if p not in before and p.endswith(f".{stage}.txt"))
    if len(new) != 1:
        raise RuntimeError(f"expected one new {stage} dump, found {new}")
    return (DUMP / new[0]).read_text()


def make_lazy(name: str, seed: int) -> None:
    description, build, tol = LAZY[name]
    torch.manual_seed(seed)
    fn, args = build()
    dev = torch_xla.device()
    model = getattr(fn, "model", fn)
    if isinstance(model, nn.Module):
        model.to(dev)
    xargs = [a.to(dev) for a in args]
    torch_xla.sync()
    met.clear_all()
    outs = _flat(fn(*xargs))
    if met.executed_fallback_ops():
        raise RuntimeError(f"{name}: ops ran on the CPU: {met.executed_fallback_ops()}")
    _, data = torch_xla._XLAC._get_tensors_xla_device_data_node(outs)
    inputs = [_numpy(d) for d in data]
    hlo = torch_xla._XLAC._get_xla_tensors_hlo(outs)
    shlo = xm.get_stablehlo(outs)
    before = set(os.listdir(DUMP))
    torch_xla._XLAC._xla_sync_multi(outs, devices=[], wait=True)
    opt = _new_dump(before, "cpu_after_optimizations")
    _check_signature(name, hlo, opt, outs)
    texts = {"module.hlo": hlo, "module.opt.hlo": opt, "module.stablehlo.mlir": shlo}
    write_case(ROOT, name, description, texts, inputs, [_numpy(o) for o in outs], tol,
               _versions(seed, "lazy"))


_NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "s32": "int32", "s64": "int64",
          "pred": "bool", "u8": "uint8", "s8": "int8", "u32": "uint32", "bf16": "bfloat16"}


def _signature(hlo: str) -> str:
    return next(line for line in hlo.splitlines() if line.startswith("ENTRY")).split(" ", 2)[2]


def _check_signature(name: str, hlo: str, opt: str, outs: list[torch.Tensor]) -> None:
    """The compiled module is the graph printed (same parameters and results), and each
    output's PyTorch dtype is the element type XLA computed."""
    if _signature(hlo) != _signature(opt):
        raise RuntimeError(f"{name}: the compiled graph is not the printed one")
    results = re.sub(r"/\*index=\d+\*/", "", _signature(hlo).split("->")[1])
    types = [t for t in results.replace("(", " ").replace(",", " ").split() if "[" in t]
    got = [_NUMPY[t.split("[")[0]] for t in types]
    want = [str(_numpy(o).dtype) for o in outs]
    if got != want:
        raise RuntimeError(f"{name}: PyTorch's dtypes {want} are not XLA's {got}")


def make_export(name: str, seed: int) -> None:
    description, build, tol = EXPORT[name]
    torch.manual_seed(seed)
    fn, args = build()
    ep = torch.export.export(_as_module(fn), tuple(args))
    bundle = tx_stablehlo.exported_program_to_stablehlo(ep)
    func = bundle._bundle.stablehlo_funcs[0]
    call = tx_stablehlo._extract_call_parameters(tuple(args), func.meta, bundle._bundle)
    inputs = [np.asarray(c) if isinstance(c, np.ndarray) else _numpy(c) for c in call]
    before = set(os.listdir(DUMP))
    outs = _flat(bundle(*args))
    texts = {"module.hlo": _new_dump(before, "before_optimizations"),
             "module.opt.hlo": _new_dump(before, "cpu_after_optimizations"),
             "module.stablehlo.mlir": bundle.get_stablehlo_text()}
    write_case(ROOT, name, description, texts, inputs, [_numpy(o) for o in outs], tol,
               _versions(seed, "export"))


def _versions(seed: int, how: str) -> dict[str, Any]:
    return {"torch_version": torch.__version__, "torch_xla_version": torch_xla.__version__,
            "how": how, "seed": seed}


ALL = sorted([*LAZY, *EXPORT])


def make(name: str, seed: int) -> None:
    (make_lazy if name in LAZY else make_export)(name, seed)


CASES = dict.fromkeys(ALL)


def main() -> None:
    for name in sys.argv[1:] or ALL:
        make(name, ALL.index(name))
        print(f"{name}: written")


if __name__ == "__main__":
    main()
