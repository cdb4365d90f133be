"""The operations, layers and optimisers on ``cuda`` give the CPU's numbers and gradients.

Each case runs twice, once on the CPU (NumPy) and once on ``cuda``: CuPy on a machine with an
NVIDIA GPU (``make test-gpu``), else learntorch's strict stand-in (one logical device, through the
``any_cuda`` fixture).  The stand-in offers only the array API standard, so the kernels written
with NumPy's and CuPy's shared extras (``as_strided`` windows for convolution and pooling,
``add.at`` scatters, the special functions) cannot run there: those cases say so in their skip,
and run on a real GPU.  tests/tensor/test_backends.py holds the smaller tensor-level cases.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt
from conftest import same_on_cpu_and_cuda

F = lt.nn.functional
rng = np.random.default_rng(7)


def arr(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return rng.uniform(low, high, shape).astype(np.float32)


def ints(high: int, *shape: int) -> np.ndarray:
    return rng.integers(0, high, shape).astype(np.int64)


def layer(make: Callable[[], Any]) -> Callable:
    """A case for a module: made under the test's seed, moved to the input's device."""
    def run(x: lt.Tensor, *rest: lt.Tensor) -> Any:
        out = make().to(x.device)(x, *rest)
        out = out[0] if isinstance(out, tuple) else out
        return out * 1  # (a recurrent layer's last node differs: one whole-layer node on the CPU only)
    return run


# What the strict stand-in lacks, for the cases it cannot run (CuPy has each of these).
METHODS = "NumPy/CuPy array methods (.reshape, .astype) and pad, outside the array API"
DTYPES = "NumPy/CuPy dtype objects and functions outside the array API"
HOST = "NumPy functions called on the array (CuPy answers them through __array_function__)"
SCALARS = "functions of two Python scalars, which the array API refuses"


def case(name: str, fn: Callable, *arrays: np.ndarray, stand_in: str | None = None) -> Any:
    """``stand_in``: why the strict stand-in cannot run this case (None: it can)."""
    return pytest.param(fn, arrays, stand_in, id=name)


IMG = arr(2, 3, 7, 6)
SEQ = arr(2, 3, 9)
VOL = arr(1, 2, 4, 5, 4)

CASES = [
    # ---------------------------------------------------------------- convolution and pooling
    case("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2), SEQ, arr(4, 3, 3), arr(4), stand_in=METHODS),
    case("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding="same"), IMG, arr(4, 3, 3, 3), arr(4), stand_in=METHODS),
    case("conv2d-groups", lambda x, w: F.conv2d(x, w, stride=(2, 1), groups=3), IMG, arr(6, 1, 2, 2), stand_in=METHODS),
    case("conv3d", lambda x, w: F.conv3d(x, w, padding=1), VOL, arr(3, 2, 2, 3, 2), stand_in=METHODS),
    case("conv_transpose1d", lambda x, w: F.conv_transpose1d(x, w, stride=2, output_padding=1), SEQ, arr(3, 2, 3), stand_in=METHODS),
    case("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1), IMG,
         arr(3, 4, 3, 3), arr(4), stand_in=METHODS),
    case("max_pool1d", lambda x: F.max_pool1d(x, 3, stride=2, padding=1), SEQ, stand_in=DTYPES),
    case("max_pool2d-indices", lambda x: F.max_pool2d(x, 2, return_indices=True), IMG, stand_in=DTYPES),
    case("max_pool2d-ceil-dilation", lambda x: F.max_pool2d(x, 3, 2, 1, dilation=1, ceil_mode=True), IMG, stand_in=DTYPES),
    case("max_pool3d", lambda x: F.max_pool3d(x, 2), VOL, stand_in=DTYPES),
    case("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), IMG, stand_in=DTYPES),
    case("avg_pool1d", lambda x: F.avg_pool1d(x, 2), SEQ, stand_in=DTYPES),
    case("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 4)), IMG),
    case("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2), IMG, stand_in=DTYPES),
    case("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), SEQ),
    case("lp_pool2d", lambda x: F.lp_pool2d(x, 2, 2), IMG + 2, stand_in=DTYPES),
    case("unfold-fold", lambda x: F.fold(F.unfold(x, 3, padding=1), (7, 6), 3, padding=1), IMG, stand_in=METHODS),
    case("pixel_shuffle", lambda x: F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), arr(1, 8, 3, 3)),
    # ---------------------------------------------------------------- padding and resampling
    case("pad-constant", lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), IMG, stand_in=DTYPES),
    case("pad-reflect", lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), IMG),
    case("pad-replicate", lambda x: F.pad(x, (2, 1), mode="replicate"), SEQ),
    case("pad-circular", lambda x: F.pad(x, (1, 2, 2, 1), mode="circular"), IMG),
    case("interpolate-nearest", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), IMG),
    case("interpolate-bilinear", lambda x: F.interpolate(x, size=(5, 9), mode="bilinear", align_corners=False),
         IMG),
    case("interpolate-linear", lambda x: F.interpolate(x, scale_factor=1.5, mode="linear"), SEQ),
    case("grid_sample", lambda x, g: F.grid_sample(x, g, align_corners=False), IMG, arr(2, 4, 5, 2)),
    case("affine_grid", lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=False), arr(2, 2, 3)),
    # ---------------------------------------------------------------- layers
    case("linear-relu-dropout", lambda x: F.dropout(layer(lambda: lt.nn.Linear(9, 5))(x).relu(), 0.3), SEQ),
    case("batch_norm2d", layer(lambda: lt.nn.BatchNorm2d(3)), IMG),
    case("group_norm", layer(lambda: lt.nn.GroupNorm(1, 3)), IMG),
    case("instance_norm2d", layer(lambda: lt.nn.InstanceNorm2d(3, affine=True)), IMG),
    case("layer_norm", layer(lambda: lt.nn.LayerNorm([7, 6])), IMG),
    case("rms_norm", layer(lambda: lt.nn.RMSNorm(6)), IMG),
    case("local_response_norm", lambda x: F.local_response_norm(x, 2), IMG, stand_in=METHODS),
    case("embedding", lambda w, i: F.embedding(i, w, padding_idx=1), arr(6, 4), ints(6, 3, 5)),
    case("embedding_bag", lambda w, i: F.embedding_bag(i, w, lt.tensor([0, 2], device=w.device), mode="mean"),
         arr(6, 4), ints(6, 5)),
    case("rnn-tanh", layer(lambda: lt.nn.RNN(9, 4, num_layers=2)), arr(5, 2, 9)),
    case("gru-bidirectional", layer(lambda: lt.nn.GRU(9, 4, bidirectional=True, batch_first=True)), arr(2, 5, 9)),
    case("lstm-2-layers", layer(lambda: lt.nn.LSTM(9, 4, num_layers=2)), arr(5, 2, 9)),
    case("lstm-proj", layer(lambda: lt.nn.LSTM(9, 4, proj_size=2)), arr(5, 2, 9)),
    case("lstm_cell", layer(lambda: lt.nn.LSTMCell(9, 4)), arr(2, 9)),
    case("sdpa-causal", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
         arr(2, 2, 5, 4), arr(2, 2, 5, 4), arr(2, 2, 5, 4)),
    case("transformer-encoder-layer", layer(lambda: lt.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                                                  batch_first=True)),
         arr(2, 5, 8)),
    case("conv-net", layer(lambda: lt.nn.Sequential(lt.nn.Conv2d(3, 4, 3), lt.nn.BatchNorm2d(4), lt.nn.ReLU(),
                                                    lt.nn.MaxPool2d(2), lt.nn.Flatten(), lt.nn.Linear(16, 2))),
         IMG, stand_in=METHODS),
    # ---------------------------------------------------------------- losses
    case("cross_entropy-ignore-smoothing",
         lambda x, t: F.cross_entropy(x, t, ignore_index=2, label_smoothing=0.1), arr(6, 4), ints(4, 6)),
    case("cross_entropy-2d-weight", lambda x, t: F.cross_entropy(x, t, weight=lt.arange(1.0, 5.0, device=x.device)),
         arr(2, 4, 3, 3), ints(4, 2, 3, 3)),
    case("cross_entropy-probabilities", lambda x, p: F.cross_entropy(x, p.softmax(1)), arr(5, 4), arr(5, 4)),
    case("nll-kl-bce", lambda x, y: F.nll_loss(x.log_softmax(1), (y > 0).long().sum(1).clamp(max=2)) +
         F.kl_div(x.log_softmax(1), y.softmax(1), reduction="batchmean") +
         F.binary_cross_entropy(x.sigmoid(), (y > 0).float()), arr(5, 3), arr(5, 3)),
    case("regression-losses", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5) + F.huber_loss(x, y) +
         F.l1_loss(x, y) + F.mse_loss(x, y, reduction="sum"), arr(4, 5), arr(4, 5), stand_in=METHODS),
    case("margin-losses", lambda x, y: F.margin_ranking_loss(x[0], y[0], lt.sign(y[1])) +
         F.cosine_embedding_loss(x, y, lt.tensor([1.0, -1.0, 1.0, -1.0], device=x.device)) +
         F.triplet_margin_loss(x, y, y.flip(0)) + F.multi_margin_loss(x, lt.tensor([0, 2, 4, 1], device=x.device)),
         arr(4, 5), arr(4, 5), stand_in=METHODS),
    case("ctc_loss", lambda x, t: F.ctc_loss(x.log_softmax(2), t, [6, 5], [3, 2]), arr(6, 2, 4),
         np.array([[1, 2, 1], [3, 3, 0]], np.int64)),
    # ---------------------------------------------------------------- tensor operations
    case("cumulative", lambda x: x.cumsum(1) + x.cumprod(1) + x.cummax(1).values + lt.logcumsumexp(x, 1), arr(3, 5),
         stand_in=HOST),
    case("sort-topk-kthvalue-median", lambda x: (x.sort(1).values, x.topk(2, 1).values, x.kthvalue(2, 1).values,
                                                 x.median(1).values, x.argsort(0)), arr(4, 6)),
    case("scatter-index_add", lambda x, s: x.scatter_add(1, lt.tensor([[0, 1, 1], [2, 2, 0]], device=x.device), s)
         + x.index_add(0, lt.tensor([1, 1], device=x.device), s * 2), arr(2, 3), arr(2, 3)),
    case("scatter_reduce", lambda x, s: x.scatter_reduce(0, lt.tensor([[0, 1, 0], [0, 1, 1]], device=x.device), s,
                                                         "amax", include_self=False), arr(2, 3), arr(2, 3)),
    case("index_put-accumulate", lambda x, v: x.index_put((lt.tensor([0, 2, 0], device=x.device),), v,
                                                          accumulate=True), arr(3, 4), arr(3, 4)),
    case("take_along_dim-masked_scatter", lambda x: lt.take_along_dim(x, x.argsort(1), 1) +
         x.masked_scatter(x > 0, lt.ones(12, device=x.device)), arr(3, 4)),
    case("einsum-tensordot", lambda a, b: lt.einsum("bij,bjk->bik", a, b).sum(0) +
         lt.tensordot(a, b, dims=([0, 2], [0, 1])), arr(2, 3, 3), arr(2, 3, 3)),
    case("addmm-baddbmm-addcmul", lambda a, b: lt.addmm(a[0], a[1], b[0], beta=0.5, alpha=2) +
         lt.baddbmm(a, a, b).sum(0) + lt.addcmul(a[0], a[1], b[1], value=0.3), arr(2, 3, 3), arr(2, 3, 3)),
    case("pointwise-binary", lambda x, y: lt.atan2(x, y) + lt.hypot(x, y) + lt.fmod(x, y + 2) + lt.remainder(x, 0.3)
         + lt.logaddexp(x, y) + lt.lerp(x, y, 0.3) + lt.copysign(x, y) + x.clamp(y - 0.5, y + 0.5), arr(3, 4),
         arr(3, 4), stand_in=SCALARS),
    case("integer-division", lambda a, b: (a % (b + 1), a // (b - 3), lt.remainder(-a, b + 1), a.float() % -3.0),
         ints(9, 3, 4) - 4, ints(3, 3, 4)),
    case("pointwise-unary", lambda x: x.erf() + x.erfinv() + (x + 2).lgamma() + (x + 2).digamma() + x.expm1() +
         x.asin() + x.atan() + x.sinh() + x.softmax(0) + F.softplus(x) + F.silu(x) + F.mish(x) + F.gelu(x) +
         F.elu(x) + F.selu(x) + F.leaky_relu(x, 0.2) + F.hardswish(x) + F.logsigmoid(x), arr(3, 4, low=-0.9, high=0.9), stand_in=SCALARS),
    case("special", lambda x: lt.special.i0(x) + lt.special.xlogy(x + 1, x + 2) + lt.special.erfcx(x) +
         lt.special.ndtri(x.sigmoid()) + lt.polygamma(1, x + 2), arr(3, 4), stand_in=DTYPES),
    case("shape-ops", lambda x: lt.cat([x.tril(), x.triu(1), x.roll(1, 0), x.flip(1), lt.diag_embed(x[0])[:3]], 1)
         + lt.kron(x[:1, :2], x[:3, :1]).sum(), arr(3, 4)),
    case("distances", lambda x, y: (lt.cdist(x, y), F.pdist(x), F.cosine_similarity(x, y, dim=1),
                                    F.pairwise_distance(x, y)), arr(4, 3), arr(4, 3)),
    case("counting", lambda x: (lt.histc(x, 5, -1, 1), lt.bincount((x * 2 + 2).long().flatten()),
                                lt.bucketize(x, lt.tensor([-0.5, 0.0, 0.5], device=x.device)),
                                lt.searchsorted(x.sort(1).values, x[:, :2].contiguous()),
                                lt.unique(x.sign(), return_counts=True)[1]), arr(3, 5)),
    case("linalg", lambda a: (lt.linalg.inv(a + 3 * lt.eye(3, device=a.device)), lt.linalg.det(a),
                              lt.linalg.solve(a + 3 * lt.eye(3, device=a.device), a[:, :1]),
                              lt.linalg.norm(a), lt.linalg.vector_norm(a, 3, dim=1)), arr(3, 3)),
    case("linalg-decompositions", lambda a: (lt.linalg.cholesky(a @ a.mT + lt.eye(3, device=a.device)),
                                             lt.linalg.eigvalsh(a + a.mT), lt.linalg.svdvals(a),
                                             lt.linalg.qr(a).R.abs()), arr(3, 3)),
    case("more-activations", lambda x: F.glu(x, 1) + F.hardtanh(x[:, :2], -0.5, 0.5) + F.softmin(x[:, 2:], 1) +
         F.prelu(x[:, :2], lt.tensor([0.2], device=x.device)) + F.relu6(x[:, 2:] * 9) + F.celu(x[:, :2]) +
         F.softsign(x[:, 2:]) + F.tanhshrink(x[:, :2]) + F.hardshrink(x[:, 2:], 0.3), arr(3, 4), stand_in=METHODS),
    case("more-losses", lambda x, y: F.poisson_nll_loss(x, y.abs().detach()) + F.gaussian_nll_loss(x, y.detach(), y.abs() + 0.1) +
         F.soft_margin_loss(x, y.sign().detach()) + F.hinge_embedding_loss(x, y.sign().detach()) +
         F.multilabel_soft_margin_loss(x, (y > 0).float()) +
         F.multilabel_margin_loss(x, lt.tensor([[1, 0, -1, 2, 0]] * 4, device=x.device)), arr(4, 5), arr(4, 5), stand_in=METHODS),
    case("statistics", lambda x: (lt.var_mean(x, 1)[0], lt.std_mean(x, 0)[1], lt.quantile(x, 0.3, dim=1),
                                  lt.nanmedian(x, 1).values, x.mode(1).values, lt.aminmax(x).max), arr(4, 5)),
    case("index-writes", lambda x, v: x.index_fill(1, lt.tensor([0, 2], device=x.device), -1.0) +
         x.index_copy(0, lt.tensor([2, 0, 1], device=x.device), v) + x.put(lt.tensor([1, 5], device=x.device),
                                                                            v[0, :2]) +
         lt.take(x, lt.tensor([[0, 11]], device=x.device)).sum(), arr(3, 4), arr(3, 4)),
    case("view-scatters", lambda x, v: lt.diagonal_scatter(x, v[0, :3]) + lt.select_scatter(x, v[1], 0, 2) +
         lt.slice_scatter(x, v[:, :2], 1, 0, 2) + x.unfold(1, 2, 1).sum(-1).sum(-1, keepdim=True),
         arr(3, 4), arr(3, 4), stand_in="assignment through an index array"),
    case("nonzero-unique-where", lambda x: (lt.nonzero(x > 0), lt.unique(x.round(), sorted=True),
                                            lt.where(x > 0, x, 0.5), lt.argwhere(x < 0)), arr(3, 4)),
    case("one_hot-gumbel", lambda x: F.one_hot(x.argmax(1), 4).float() * x + F.gumbel_softmax(x, tau=0.5), arr(3, 4)),
    case("dropout-family", lambda x: F.dropout2d(x, 0.5) + F.alpha_dropout(x, 0.2) + F.dropout1d(x[0], 0.3),
         arr(2, 3, 4, 5)),
    case("bilinear-prelu-layers", layer(lambda: lt.nn.Sequential(lt.nn.Linear(9, 6), lt.nn.PReLU(3),
                                                                 lt.nn.Unflatten(2, (2, 3)), lt.nn.Flatten(1))),
         SEQ),
    case("mha-weights", lambda q, k: lt.nn.MultiheadAttention(4, 2, batch_first=True).to(q.device)(
        q, k, k, need_weights=True, key_padding_mask=lt.tensor([[False] * 4, [False, False, True, True]],
                                                               device=q.device))[1], arr(2, 3, 4), arr(2, 4, 4)),
    case("transformer-decoder", layer(lambda: lt.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True)),
         arr(4, 2, 8), arr(5, 2, 8)),
    case("conv3d-transpose-upsample", lambda x, w: F.interpolate(F.conv_transpose3d(x, w, stride=2), scale_factor=0.5,
                                                                 mode="trilinear"), VOL, arr(2, 2, 2, 2, 2), stand_in=METHODS),
    case("pool3d-unpool", lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2) +
         F.adaptive_avg_pool3d(x.unsqueeze(0), (1, 3, 3)).sum(), IMG[:1, :, :6, :6], stand_in=DTYPES),
    case("linalg-more", lambda a, b: (lt.linalg.lstsq(a, b).solution, lt.linalg.pinv(a), lt.linalg.matrix_exp(a * 0.3),
                                      lt.linalg.matrix_power(a, 3), lt.linalg.slogdet(a).logabsdet), arr(3, 3),
         arr(3, 2), stand_in=DTYPES),
    case("distributions", lambda mu, s: (lt.distributions.Normal(mu, s.abs() + 0.5).rsample((2,)),
                                         lt.distributions.Normal(mu, s.abs() + 0.5).log_prob(mu * 0.5),
                                         lt.distributions.Categorical(logits=mu).entropy()), arr(3, 4), arr(3, 4)),
    case("float64", lambda x: (x.double().exp() @ x.double().T).log_softmax(0), arr(3, 4)),
    case("float16-matmul", lambda x: (x.half() @ x.half().T).float(), arr(3, 4), stand_in="no float16"),
]


@pytest.mark.parametrize("fn, arrays, stand_in", CASES)
def test_same_as_cpu(any_cuda: str, fn: Callable, arrays: tuple, stand_in: str | None) -> None:
    if any_cuda == "strict" and stand_in is not None:
        pytest.skip(f"the strict stand-in cannot run this ({stand_in}); a real GPU can (make test-gpu)")
    same_on_cpu_and_cuda(fn, *arrays, rtol=1e-4, atol=1e-5)


def test_as_strided_says_it_is_cpu_only(any_cuda: str) -> None:
    """``as_strided`` reads raw memory through NumPy's strides: on cuda it refuses, saying what to do."""
    with pytest.raises(RuntimeError, match=r"CPU \(NumPy\) tensors only: move the tensor with \.cpu\(\) first"):
        lt.ones(3, 4, device="cuda").as_strided((3, 2), (4, 2))


# ---------------------------------------------------------------------------- optimisers
OPTIMIZERS = {
    "SGD-momentum-nesterov": lambda ps: lt.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam-amsgrad": lambda ps: lt.optim.Adam(ps, lr=0.01, amsgrad=True),
    "AdamW": lambda ps: lt.optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    "RMSprop-centered": lambda ps: lt.optim.RMSprop(ps, lr=0.01, centered=True, momentum=0.5),
    "Adagrad": lambda ps: lt.optim.Adagrad(ps, lr=0.1),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_training_steps_same_as_cpu(any_cuda: str, name: str) -> None:
    """Three steps of a small classifier with gradient clipping: the weights end where the CPU's end."""
    x, y = arr(8, 5), ints(3, 8)
    weights = []
    for dev in ("cpu", "cuda"):
        lt.manual_seed(0)
        model = lt.nn.Sequential(lt.nn.Linear(5, 6), lt.nn.Tanh(), lt.nn.Linear(6, 3)).to(dev)
        opt = OPTIMIZERS[name](model.parameters())
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(model(lt.tensor(x, device=dev)), lt.tensor(y, device=dev)).backward()
            lt.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
        assert all(p.device.type == ("cpu" if dev == "cpu" else "cuda") for p in model.parameters())
        weights.append([p.detach().cpu().numpy() for p in model.parameters()])
    for a, b in zip(*weights):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_state_dict_moves_between_cpu_and_cuda(any_cuda: str, tmp_path: Any) -> None:
    """A model trained on cuda, saved, loaded onto the CPU with map_location, gives the same output."""
    lt.manual_seed(0)
    model = lt.nn.Sequential(lt.nn.Conv1d(3, 2, 3), lt.nn.Flatten(), lt.nn.Linear(14, 2)).to("cuda")
    x = lt.tensor(SEQ, device="cuda")
    lt.save(model.state_dict(), tmp_path / "m.pt")
    cpu_model = lt.nn.Sequential(lt.nn.Conv1d(3, 2, 3), lt.nn.Flatten(), lt.nn.Linear(14, 2))
    cpu_model.load_state_dict(lt.load(tmp_path / "m.pt", map_location="cpu"))
    if any_cuda == "strict":
        pytest.skip("the strict stand-in has no convolution kernel (array API only); a real GPU has (make test-gpu)")
    np.testing.assert_allclose(model(x).detach().cpu().numpy(), cpu_model(lt.tensor(SEQ)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_autocast_and_grad_scaler_on_cuda(any_cuda: str) -> None:
    """Under ``autocast("cuda")`` a Linear computes in float16, as PyTorch's does on a GPU, and a
    GradScaler step with finite gradients updates the weights and keeps its scale."""
    if any_cuda == "strict":
        pytest.skip("the strict stand-in has no float16 (array API only); a real GPU has (make test-gpu)")
    lt.manual_seed(0)
    lin = lt.nn.Linear(8, 4).cuda()
    x = lt.randn(5, 8, device="cuda")
    with lt.autocast("cuda"):
        y = lin(x)
    assert y.dtype is lt.float16 and lin.weight.dtype is lt.float32
    np.testing.assert_allclose(y.float().detach().cpu().numpy(), lin(x).detach().cpu().numpy(), rtol=1e-2, atol=1e-2)
    scaler = lt.amp.GradScaler("cuda")
    opt = lt.optim.SGD(lin.parameters(), lr=0.1)
    before = lin.weight.detach().cpu().numpy().copy()
    with lt.autocast("cuda"):
        loss = lin(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 65536.0
    assert not np.allclose(lin.weight.detach().cpu().numpy(), before)
