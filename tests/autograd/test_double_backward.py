"""Second derivatives, as PyTorch computes them (issue 14).

* ``gradgradcheck`` (finite differences of the first backward, with respect to the
  inputs *and* the output gradients) for every differentiable op family;
* a Hessian-vector product of ``Sequential(Linear, Softplus, Linear)`` under
  ``mse_loss`` and a WGAN-GP gradient penalty through ``Conv2d``, against torch;
* ``once_differentiable``: PyTorch's ``<Error>`` node and message.
"""
from __future__ import annotations

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both

F = lt.nn.functional
rng = np.random.default_rng(2026)


def _t(*shape, low=-1.0, high=1.0):
    return lt.tensor(rng.uniform(low, high, shape), dtype=lt.float64, requires_grad=True)


# one or two cases per op family; every function returns a tensor of the inputs
CASES = {
    # pointwise
    "mul-div-pow": (lambda a, b: a * b / (b * b + 1) + a ** 3, lambda: (_t(2, 3), _t(3))),
    "exp-log-sqrt": (lambda a: a.exp() + (a * a + 1).log() + (a * a + 1).sqrt(), lambda: (_t(2, 3),)),
    "tanh-sigmoid-sin": (lambda a: a.tanh() * a.sigmoid() + a.sin() * a.cos(), lambda: (_t(2, 3),)),
    "fmod-hypot-atan2": (lambda a, b: lt.fmod(a, b) * a + lt.hypot(a, b) + lt.atan2(a, b),
                         lambda: (_t(2, 3, low=0.2, high=0.9), _t(2, 3, low=1.1, high=2.0))),
    "where-clamp-max": (lambda a, b: lt.where(a > 0, a * b, b) + a.clamp(-0.5, 0.5) * a + lt.maximum(a, b) ** 2,
                        lambda: (_t(2, 3), _t(2, 3))),
    # reductions
    "sum-mean-prod": (lambda a: a.sum(1) ** 2 + a.mean(0).sum() * a.prod(1), lambda: (_t(2, 3),)),
    "var-std-norm-logsumexp": (lambda a: a.var(1) + a.std(0).sum() + a.norm() + a.logsumexp(1),
                               lambda: (_t(3, 4),)),
    "max-amax-cumsum": (lambda a: a.max(1).values ** 2 + a.amax(0).sum() ** 2 + a.cumsum(1).sum(0).sum() ** 2,
                        lambda: (_t(3, 4),)),
    # shape
    "view-permute-cat": (lambda a, b: lt.cat([a.t(), b.reshape(3, 2)], 1).permute(1, 0).flatten() ** 2,
                         lambda: (_t(2, 3), _t(2, 3))),
    "expand-stack-split": (lambda a: lt.stack(a.expand(2, 3, 4).split(2, dim=2), 0) ** 3, lambda: (_t(3, 4),)),
    # indexing
    "getitem-gather-index": (lambda a: (a[1:, ::2] ** 2).sum() + (a.gather(1, lt.tensor([[0, 2], [1, 0], [2, 2]]))
                                                                  ** 3).sum() + (a.index_select(0, lt.tensor([2, 0])) ** 2).sum(),
                             lambda: (_t(3, 3),)),
    "masked-scatter": (lambda a: a.masked_fill(a > 0.5, 0.0) ** 2 + a.scatter_add(
        1, lt.tensor([[0, 1, 0], [2, 2, 1], [1, 0, 0]]), a * a), lambda: (_t(3, 3),)),
    # matmul
    "matmul-bmm-addmm": (lambda a, b: (a @ b) ** 2 + lt.addmm(a @ b, a, b).tanh(), lambda: (_t(3, 4), _t(4, 3))),
    "bmm-einsum": (lambda a, b: lt.bmm(a, b) ** 2 + lt.einsum("bij,bjk->bik", a, b).sin(),
                   lambda: (_t(2, 2, 3), _t(2, 3, 2))),
    # activations
    "softplus-silu-gelu": (lambda a: F.softplus(a, beta=2.0) + F.silu(a) + F.gelu(a) + F.gelu(a, approximate="tanh"),
                           lambda: (_t(2, 5),)),
    "elu-selu-celu-mish": (lambda a: F.elu(a) + F.selu(a) + F.celu(a, 0.7) + F.mish(a), lambda: (_t(2, 5),)),
    "logsigmoid-leaky-hard": (lambda a: F.logsigmoid(a) + F.leaky_relu(a, 0.2) * a + F.hardtanh(a, -0.5, 0.5) * a
                              + F.hardswish(a * 4) + F.hardsigmoid(a * 4) * a + F.softsign(a),
                              lambda: (_t(2, 5),)),
    "softmax-logsoftmax": (lambda a: F.softmax(a, 1) ** 2 + F.log_softmax(a, 0) ** 2, lambda: (_t(3, 4),)),
    # losses
    "mse-l1-huber": (lambda a, b: F.mse_loss(a * a, b) + F.smooth_l1_loss(a * a, b) + F.huber_loss(a, b * 2),
                     lambda: (_t(3, 4), _t(3, 4))),
    "cross-entropy-nll": (lambda a: F.cross_entropy(a, lt.tensor([0, 2, 1])) + F.nll_loss(a * a,
                                                                                           lt.tensor([1, 1, 0])),
                          lambda: (_t(3, 4),)),
    "bce-kl": (lambda a, b: F.binary_cross_entropy(a, b) + F.binary_cross_entropy_with_logits(a, b)
               + F.kl_div(a.log(), b, reduction="batchmean"),
               lambda: (_t(3, 4, low=0.1, high=0.9), _t(3, 4, low=0.1, high=0.9))),
    # convolution and pooling
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1) ** 2,
               lambda: (_t(1, 2, 5, 5), _t(3, 2, 3, 3), _t(3))),
    "conv2d-groups-dilation": (lambda x, w: F.conv2d(x, w, groups=2, dilation=2, padding=2).tanh(),
                               lambda: (_t(1, 2, 4, 4), _t(4, 1, 2, 2))),
    "max-avg-adaptive-pool": (lambda x: F.max_pool2d(x, 2) ** 2 + F.avg_pool2d(x, 3, stride=2, padding=1) ** 2
                              + F.adaptive_avg_pool2d(x, (1, 1)) ** 2, lambda: (_t(1, 2, 4, 4),)),
    # normalisation
    "batch-layer-norm": (lambda x, w: F.batch_norm(x, None, None, w, None, training=True) ** 3
                         + F.layer_norm(x, (4,), w) ** 3, lambda: (_t(3, 4), _t(4))),
    "normalize-cosine": (lambda a, b: (F.normalize(a) ** 2).sum(1) + F.cosine_similarity(a, b), lambda: (_t(3, 4), _t(3, 4))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradgradcheck_per_op_family(name):
    fn, make = CASES[name]
    assert lt.autograd.gradgradcheck(fn, make(), atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
def test_gradgradcheck_rnn_cells(cell):
    lt.manual_seed(0)
    mod = getattr(lt.nn, cell)(3, 2).double()
    x, h = _t(2, 3), _t(2, 2)
    if cell == "LSTMCell":
        assert lt.autograd.gradgradcheck(lambda x, h: mod(x, (h, h * 0.5))[0], (x, h))
    else:
        assert lt.autograd.gradgradcheck(lambda x, h: mod(x, h), (x, h))


def test_gradgradcheck_catches_a_backward_on_arrays():
    """A backward that returns a constant (as the array kernels used to) must fail."""
    class ArraySquare(lt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return lt.tensor(2 * x.detach().numpy() * g.detach().numpy())
    assert not lt.autograd.gradgradcheck(ArraySquare.apply, (_t(3),), raise_exception=False)


@pytest.mark.torch
def test_hessian_vector_product_of_an_mlp_matches_torch(torch_oracle):
    """Double backward through Linear, Softplus, Linear and mse_loss (issue: up to 3.7 relative error)."""
    def hvp(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Softplus(beta=1.5), T.nn.Linear(8, 3))
        x = T.tensor(np.linspace(-2, 2, 20).reshape(5, 4), dtype=T.float32)
        y = T.tensor(np.cos(np.arange(15.0)).reshape(5, 3), dtype=T.float32)
        params = list(model.parameters())
        loss = T.nn.functional.mse_loss(model(x), y)
        grads = T.autograd.grad(loss, params, create_graph=True)
        v = [T.ones_like(p) * 0.1 for p in params]
        dot = sum((g * vi).sum() for g, vi in zip(grads, v))
        return T.autograd.grad(dot, params)
    check_both(hvp, torch_oracle, rtol=1e-4, atol=1e-6)


@pytest.mark.torch
@pytest.mark.parametrize("activation", ["SiLU", "GELU", "ELU", "LeakyReLU"])
def test_wgan_gp_gradient_penalty_through_conv2d_matches_torch(torch_oracle, activation):
    """The WGAN-GP penalty (‖∂D/∂x̂‖ - 1)² through Conv2d, pooling and an activation, then
    its gradient with respect to the critic's weights (a double backward)."""
    def penalty(T):
        T.manual_seed(0)
        critic = T.nn.Sequential(T.nn.Conv2d(2, 4, 3, padding=1), getattr(T.nn, activation)(),
                                 T.nn.AvgPool2d(2), T.nn.Conv2d(4, 2, 3, stride=2, padding=1),
                                 T.nn.MaxPool2d(2), T.nn.Flatten(), T.nn.Linear(2, 1))
        x_hat = T.tensor(np.sin(np.arange(3 * 2 * 8 * 8.0)).reshape(3, 2, 8, 8), dtype=T.float32,
                         requires_grad=True)
        out = critic(x_hat)
        (g,) = T.autograd.grad(out, x_hat, T.ones_like(out), create_graph=True)
        gp = ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
        gp.backward()
        return gp, critic[0].weight.grad, critic[3].weight.grad, critic[0].bias.grad
    check_both(penalty, torch_oracle, rtol=1e-4, atol=1e-6)


def _once(T):
    class Square(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g
    return Square


@pytest.mark.torch
def test_once_differentiable_raises_as_pytorch_does(torch_oracle):
    for T in (lt, torch_oracle):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        (g,) = T.autograd.grad((_once(T).apply(x) ** 2).sum(), x, create_graph=True)
        assert g.requires_grad and type(g.grad_fn).__name__ == "Error"
        assert g.grad_fn.name() == "torch::autograd::Error"
        with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                               "@once_differentiable"):
            g.sum().backward()


@pytest.mark.torch
def test_once_differentiable_without_a_grad_requiring_grad_output(torch_oracle):
    """A first derivative whose incoming gradient needs no grad is plain, in both libraries."""
    for T in (lt, torch_oracle):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        (g,) = T.autograd.grad(_once(T).apply(x).sum(), x, create_graph=True)
        assert not g.requires_grad and g.grad_fn is None
        assert g.tolist() == [2.0, 4.0]
