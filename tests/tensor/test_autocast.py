"""``torch.autocast("cpu")`` against PyTorch 2.13: which operations run in bfloat16, which in
float32, which as they are (dtype and grad_fn of the result), the numbers of a mixed-precision
training step with ``GradScaler``, and the cast cache of the weights."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same


def _cases(T):
    F = T.nn.functional
    T.manual_seed(0)
    x = T.randn(4, 8)
    w = T.randn(6, 8, requires_grad=True)
    b = T.randn(6)
    lin = lambda: F.linear(x, w)  # noqa: E731  (a bfloat16 result inside autocast)
    target = T.tensor([1, 2, 3, 0])
    return {
        # lower precision: matrix products, convolutions, LSTM/RNN layers, RNNCell, attention
        "linear": lambda: F.linear(x, w, b), "matmul": lambda: x @ w.t(), "mm": lambda: x.mm(w.t()),
        "matmul_mv": lambda: w @ x[0], "bmm": lambda: T.bmm(x[None], w.t()[None]),
        "addmm": lambda: T.addmm(b, x, w.t()), "einsum": lambda: T.einsum("ij,kj->ik", x, w),
        "baddbmm": lambda: T.baddbmm(T.randn(1, 4, 4), x[None], x[None].transpose(1, 2)),
        "conv1d": lambda: F.conv1d(x[None], T.ones(2, 4, 3)),
        "conv2d_module": lambda: T.nn.Conv2d(1, 2, 3)(x[None, None]),
        "conv_transpose1d": lambda: F.conv_transpose1d(x[None], T.ones(4, 2, 3)),
        "prelu": lambda: F.prelu(x, T.tensor([0.25])),
        "sdpa": lambda: F.scaled_dot_product_attention(x[None], x[None], x[None]),
        "mha": lambda: T.nn.MultiheadAttention(8, 2)(x[:, None], x[:, None], x[:, None])[0],
        "lstm": lambda: T.nn.LSTM(8, 3)(x[:, None])[0], "lstm_c": lambda: T.nn.LSTM(8, 3)(x[:, None])[1][1],
        "rnn": lambda: T.nn.RNN(8, 3)(x[:, None])[0], "rnncell": lambda: T.nn.RNNCell(8, 3)(x),
        "encoder_layer": lambda: T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)(x[:, None]),
        # as they are: GRU and the GRU/LSTM cells, mv, dot, element-wise ops, norms
        "gru": lambda: T.nn.GRU(8, 3)(x[:, None])[0], "grucell": lambda: T.nn.GRUCell(8, 3)(x),
        "lstmcell": lambda: T.nn.LSTMCell(8, 3)(x)[0], "mv": lambda: T.mv(w, x[0]),
        "dot": lambda: T.dot(x[0], x[1]), "relu_of_bf16": lambda: F.relu(lin()),
        "softmax_of_bf16": lambda: F.softmax(lin(), -1), "layer_norm_of_bf16": lambda: T.nn.LayerNorm(6)(lin()),
        "batch_norm_of_bf16": lambda: T.nn.BatchNorm1d(6)(lin()), "add_bf16_fp32": lambda: lin() + T.randn(4, 6),
        "cat": lambda: T.cat([lin(), T.randn(4, 6)]), "double_linear": lambda: F.linear(x.double(), w.double()),
        # float32: losses, prod, cdist, trace
        "cross_entropy": lambda: F.cross_entropy(lin(), target),
        "nll_loss": lambda: F.nll_loss(F.log_softmax(lin(), -1), target),
        "mse_loss": lambda: F.mse_loss(lin(), T.zeros(4, 6)), "l1_loss": lambda: F.l1_loss(lin(), T.zeros(4, 6)),
        "bce_with_logits": lambda: F.binary_cross_entropy_with_logits(lin(), T.zeros(4, 6)),
        "kl_div": lambda: F.kl_div(lin(), T.zeros(4, 6), reduction="batchmean"),
        "cosine_embedding": lambda: F.cosine_embedding_loss(lin(), lin(), T.ones(4)),
        "triplet": lambda: F.triplet_margin_loss(lin(), lin(), lin()),
        "multi_margin": lambda: F.multi_margin_loss(lin(), target),
        "prod": lambda: lin().prod(), "cdist": lambda: T.cdist(lin(), lin()), "trace": lambda: T.trace(lin()),
    }


# PyTorch's answers for the cases its CPU build cannot run everywhere: its bfloat16
# LSTM goes through oneDNN, which on CPUs without the needed instructions raises
# "could not create a primitive descriptor". Recorded from torch 2.13.0 on a CPU
# where it ran, and used only when the oracle raises that error.
_TORCH_WHERE_ONEDNN_CANNOT = {
    "lstm": ("bfloat16", "MkldnnRnnLayerBackward0"),
    "lstm_c": ("bfloat16", "StackBackward0"),
}


@pytest.mark.parametrize("name", list(_cases(lt)))
def test_result_dtype_and_node_like_torch(torch_oracle, name):
    def run(T):
        f = _cases(T)[name]
        with T.autocast("cpu"):
            y = f()
        return str(y.dtype).split(".")[-1], y.grad_fn.name() if y.grad_fn is not None else None
    try:
        expected = run(torch_oracle)
    except RuntimeError as e:
        if name not in _TORCH_WHERE_ONEDNN_CANNOT or "primitive descriptor" not in str(e):
            raise
        expected = _TORCH_WHERE_ONEDNN_CANNOT[name]
    assert run(lt) == expected


def _training(T):
    """Three steps of the documented recipe: forward under autocast, GradScaler around backward."""
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(16, 32), T.nn.ReLU(), T.nn.Linear(32, 4))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    scaler = T.amp.GradScaler("cpu")
    x, y = T.randn(8, 16), T.randint(0, 4, (8,))
    seen = []
    for _ in range(3):
        opt.zero_grad()
        with T.autocast("cpu", dtype=T.bfloat16):
            logits = model(x)
            loss = T.nn.functional.cross_entropy(logits, y)
        scaler.scale(loss).backward()
        seen.append((str(logits.dtype), str(loss.dtype), str(model[0].weight.grad.dtype)))
        scaler.step(opt)
        scaler.update()
    return seen, loss.detach(), [p.detach() for p in model.parameters()]


def test_mixed_precision_training_step_matches_torch(torch_oracle):
    seen_l, loss_l, params_l = _training(lt)
    seen_t, loss_t, params_t = _training(torch_oracle)
    assert [tuple(s.split(".")[-1] for s in row) for row in seen_l] == \
        [tuple(s.split(".")[-1] for s in row) for row in seen_t] == [("bfloat16", "float32", "float32")] * 3
    # bfloat16 keeps 8 bits: a last-bit difference in a float32 sum can flip one rounding
    assert_same(loss_l, loss_t, rtol=1e-2, atol=1e-3)
    for a, b in zip(params_l, params_t):
        assert_same(a, b, rtol=1e-2, atol=1e-3)


def test_a_weight_is_cast_once_per_region_and_the_cast_forgotten_after(torch_oracle):
    def run(T):
        lin = T.nn.Linear(3, 2)
        x = T.ones(1, 3)
        with T.autocast("cpu"):
            a, b = lin(x), lin(x)
            cast_a = a.grad_fn.next_functions[2][0].next_functions[0][0]  # AddmmBackward0 -> TBackward0 -> cast
            cast_b = b.grad_fn.next_functions[2][0].next_functions[0][0]
        with T.autocast("cpu"):
            c = lin(x)
        cast_c = c.grad_fn.next_functions[2][0].next_functions[0][0]
        with T.autocast("cpu"), T.no_grad():  # (a cast made without grad is not kept for later)
            lin(x)
        with T.autocast("cpu"):
            with T.no_grad():
                lin(x)
            d = lin(x)
        return (cast_a.name(), cast_a is cast_b, cast_c is cast_a,
                d.grad_fn.next_functions[2][0].next_functions[0][0].name())
    assert run(lt) == run(torch_oracle) == ("ToCopyBackward0", True, False, "ToCopyBackward0")


def test_nested_disabled_region_decorator_and_float64(torch_oracle):
    def run(T):
        lin = T.nn.Linear(3, 2)
        x = T.ones(1, 3)
        out = []
        with T.autocast("cpu"):
            with T.autocast("cpu", enabled=False):
                out.append(lin(x).dtype)
            out.append(lin(x).dtype)
            out.append(lin.double()(x.double()).dtype)
        out.append(lin.float()(x).dtype)

        @T.autocast("cpu")
        def f(t):
            return t @ t.t()
        out.append(f(x).dtype)
        return [str(d).split(".")[-1] for d in out]
    assert run(lt) == run(torch_oracle) == ["float32", "bfloat16", "float64", "float32", "bfloat16"]


def test_gradients_reach_float32_weights_with_torch_values(torch_oracle):
    def run(T):
        T.manual_seed(0)
        lin = T.nn.Linear(5, 3)
        x = T.randn(4, 5, requires_grad=True)
        with T.autocast("cpu"):
            y = lin(x)
        y.float().pow(2).sum().backward()
        return y.detach().float(), x.grad, lin.weight.grad, lin.bias.grad
    for a, b in zip(run(lt), run(torch_oracle)):
        assert_same(a, b, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("low,weights", [("bfloat16", "float32"), ("bfloat16", "bfloat16"),
                                         ("float16", "float32"), ("float16", "float16")])
def test_layer_norm_in_half_precision_rounds_once_like_torch(torch_oracle, low, weights):
    """A bfloat16 input with float32 weights (a LayerNorm under autocast) or all in half
    precision: PyTorch's kernel computes in float32 and rounds the output and the input's
    gradient once (bit for bit here); the backward of an all-half call uses the statistics
    rounded to the half dtype, as PyTorch saves them."""
    g = np.random.default_rng(5)
    X, G = g.standard_normal((16, 8)).astype(np.float32), g.standard_normal((16, 8)).astype(np.float32)
    W, B = g.standard_normal(8).astype(np.float32), g.standard_normal(8).astype(np.float32)

    def run(T):
        x = T.tensor(X).to(getattr(T, low)).requires_grad_()
        w, b = (T.tensor(a).to(getattr(T, weights)).requires_grad_() for a in (W, B))
        out = T.nn.functional.layer_norm(x, (8,), w, b)
        out.backward(T.tensor(G).to(out.dtype))
        return str(out.dtype), str(x.grad.dtype), str(w.grad.dtype), out.detach().float(), x.grad.float()
    mine, theirs = run(lt), run(torch_oracle)
    assert mine[:3] == theirs[:3]
    assert (mine[3].numpy() == theirs[3].numpy()).all()
    assert (mine[4].numpy() == theirs[4].numpy()).mean() > 0.95  # (a rare near-tie may round apart)


HALF_SUMS = [  # (name, f(T, a, b)): a backward that adds a gradient up over a batch
    ("linear bias under autocast", lambda T, a, b: T.nn.functional.linear(a.float(), T.ones(4, 4), b.float())),
    ("linear bias", lambda T, a, b: T.nn.functional.linear(a, T.ones(4, 4).to(a.dtype), b)),
    ("broadcast add", lambda T, a, b: a + b),
    ("broadcast mul", lambda T, a, b: a * b),
]


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,f", HALF_SUMS, ids=[c[0] for c in HALF_SUMS])
def test_half_precision_gradients_are_summed_in_float32_like_torch(torch_oracle, low, name, f):
    """A bias's gradient adds up 64 rows: PyTorch adds them in float32 and rounds once (adding in
    bfloat16 would lose most bits); the same numbers, bit for bit."""
    g = np.random.default_rng(3)
    A, G, Bv = (g.standard_normal(s).astype(np.float32) for s in ((64, 4), (64, 4), (4,)))

    def run(T):
        dt = getattr(T, low)
        a, b = T.tensor(A).to(dt).requires_grad_(), T.tensor(Bv).to(dt).requires_grad_()
        with T.autocast("cpu", dtype=dt, enabled=name.endswith("autocast")):
            out = f(T, a, b)
        out.backward(T.tensor(G).to(out.dtype))
        return b.grad.float().numpy(), a.grad.float().numpy()
    for mine, theirs in zip(run(lt), run(torch_oracle)):
        assert (mine == theirs).all()


def test_bfloat16_softmax_backward_rounds_once_like_torch(torch_oracle):
    """softmax's backward ``y·(g - Σ g·y)`` in float32, rounded once to bfloat16 (PyTorch's kernel),
    not rounded after each of its operations."""
    g = np.random.default_rng(3)
    A, G = g.standard_normal((16, 10)).astype(np.float32) * 3, g.standard_normal((16, 10)).astype(np.float32)

    def run(T):
        a = T.tensor(A).bfloat16().requires_grad_()
        y = T.softmax(a, 1)
        y.backward(T.tensor(G).bfloat16())
        return y.detach().float().numpy(), a.grad.float().numpy()
    for mine, theirs in zip(run(lt), run(torch_oracle)):
        assert (mine == theirs).all()


def test_an_error_inside_an_operation_leaves_autocast_on():
    with lt.autocast("cpu"):
        with pytest.raises(RuntimeError):
            lt.mm(lt.ones(2, 3), lt.ones(2, 3))
        assert lt.mm(lt.ones(2, 3), lt.ones(3, 2)).dtype == lt.bfloat16
    assert lt.mm(lt.ones(2, 3), lt.ones(3, 2)).dtype == lt.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with lt.autocast("cpu"):  # (no warning of its own any more)
            pass
