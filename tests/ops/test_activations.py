"""The larger activation family (LeakyReLU, ELU, SELU, CELU, SiLU, Mish, Softplus, Hardtanh, ReLU6,
LogSigmoid, Hardsigmoid, Hardswish, Softsign, Softmin, Threshold) and the composed losses
(smooth_l1, huber, kl_div), cosine_similarity and pad, against PyTorch: values, grad_fn names
(for the fused activations), gradients, in-place forms, module reprs."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, grads_both, raises_both

RNG = np.random.default_rng(0)
X = (RNG.standard_normal((3, 7)) * 4).astype(np.float32)
X[0, :3] = [0.0, 3.0, -3.0]  # the kinks of hardtanh/hardswish/hardsigmoid/relu6
Y = RNG.standard_normal((3, 7)).astype(np.float32)

ACTIVATIONS = [("leaky_relu", {}), ("leaky_relu", dict(negative_slope=0.2)), ("elu", dict(alpha=0.7)), ("selu", {}),
               ("celu", dict(alpha=0.5)), ("silu", {}), ("mish", {}), ("softplus", {}),
               ("softplus", dict(beta=2.0, threshold=3.0)), ("hardtanh", dict(min_val=-2.0, max_val=0.5)),
               ("relu6", {}), ("logsigmoid", {}), ("hardsigmoid", {}), ("hardswish", {}), ("softsign", {}),
               ("threshold", dict(threshold=0.5, value=-2.0)), ("softmin", dict(dim=1))]


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=[f"{n}{i}" for i, (n, _) in enumerate(ACTIVATIONS)])
def test_activation(torch_oracle: Any, name: str, kw: dict) -> None:
    grads_both(lambda T, x: getattr(T.nn.functional, name)(x, **kw), torch_oracle, X)


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "selu", "hardtanh", "relu6", "silu", "hardswish"])
def test_inplace_activation_keeps_autograd_right(torch_oracle: Any, name: str) -> None:
    """``inplace=True`` on an intermediate result: same values and gradients as PyTorch."""
    grads_both(lambda T, x: getattr(T.nn.functional, name)(x * 1, inplace=True) * 2, torch_oracle, X,
               check_grad_fn=False)


def test_module_reprs(torch_oracle: Any) -> None:
    def build(T: Any) -> str:
        nn = T.nn
        return repr(nn.Sequential(nn.LeakyReLU(), nn.LeakyReLU(0.2, inplace=True), nn.ELU(alpha=0.5), nn.SELU(),
                                  nn.CELU(), nn.SiLU(), nn.Mish(), nn.Softplus(beta=2), nn.Hardtanh(-2, 2),
                                  nn.ReLU6(), nn.LogSigmoid(), nn.Hardsigmoid(), nn.Hardswish(), nn.Softsign(),
                                  nn.Softmin(dim=1), nn.Threshold(0.1, 20.0)))
    assert build(__import__("learntorch")) == build(torch_oracle)


def test_modules_compute_what_the_functions_do(torch_oracle: Any) -> None:
    check_both(lambda T: T.nn.Sequential(T.nn.LeakyReLU(0.1), T.nn.ELU(), T.nn.Softplus(), T.nn.ReLU6(),
                                         T.nn.Softmin(dim=1))(T.tensor(X)), torch_oracle)


@pytest.mark.parametrize("name,kw", [("smooth_l1_loss", {}), ("smooth_l1_loss", dict(beta=0.5)),
                                     ("smooth_l1_loss", dict(reduction="none")), ("huber_loss", dict(delta=2.0)),
                                     ("huber_loss", dict(reduction="sum"))])
def test_regression_losses(torch_oracle: Any, name: str, kw: dict) -> None:
    grads_both(lambda T, x, y: getattr(T.nn.functional, name)(x, y, **kw), torch_oracle, X, Y)


@pytest.mark.parametrize("kw", [dict(reduction="batchmean"), dict(reduction="sum"), dict(reduction="none"),
                                dict(reduction="batchmean", log_target=True)])
def test_kl_div(torch_oracle: Any, kw: dict) -> None:
    log_p = np.log(np.exp(X) / np.exp(X).sum(1, keepdims=True)).astype(np.float32)
    q = (np.exp(Y) / np.exp(Y).sum(1, keepdims=True)).astype(np.float32)
    target = np.log(q) if kw.get("log_target") else q
    grads_both(lambda T, a, b: T.nn.functional.kl_div(a, b, **kw), torch_oracle, log_p, target, check_grad_fn=False)


def test_kl_div_mean_warns(torch_oracle: Any) -> None:
    import learntorch as lt
    for T in (torch_oracle, lt):
        with pytest.warns(UserWarning, match="batchmean"):
            T.nn.functional.kl_div(T.zeros(2, 2), T.full((2, 2), 0.5))


def test_cosine_similarity_and_pad(torch_oracle: Any) -> None:
    grads_both(lambda T, a, b: T.nn.functional.cosine_similarity(a, b), torch_oracle, X, Y, check_grad_fn=False)
    grads_both(lambda T, a, b: T.nn.functional.cosine_similarity(a, b, dim=0), torch_oracle, X, Y,
               check_grad_fn=False)
    grads_both(lambda T, a: T.nn.functional.pad(a, (1, 2)), torch_oracle, X, check_grad_fn=False)
    grads_both(lambda T, a: T.nn.functional.pad(a, (1, 0, -1, 2), value=3.0), torch_oracle, X, check_grad_fn=False)
    raises_both(lambda T: T.nn.functional.pad(T.ones(2), (1, 2, 3)), torch_oracle, match="divisible by 2")


def test_hardtanh_rejects_min_above_max(torch_oracle: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_both(lambda T: T.nn.Hardtanh(2.0, 1.0), torch_oracle, match="must be greater than min_val")
        raises_both(lambda T: T.nn.functional.hardtanh(T.ones(2), 2.0, 1.0), torch_oracle,
                    match="min_val cannot be greater than max_val")


def test_sigmoid_at_the_extremes_as_pytorch(torch_oracle):
    """σ is PyTorch's 1 / (1 + e⁻ˣ): far below -88 (float32) e⁻ˣ overflows and σ is exactly 0,
    as in PyTorch (a 'stable' variant gave a denormal there), with no NumPy warning."""
    values = [-1000.0, -100.0, -88.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, float("inf"), float("-inf")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning would be an error here
        got = lt.sigmoid(lt.tensor(values)).numpy()
        x = lt.tensor(values, requires_grad=True)
        lt.sigmoid(x).sum().backward()
    want = torch_oracle.sigmoid(torch_oracle.tensor(values)).numpy()
    assert got[0] == 0.0 and got[1] == 0.0 and got[5] == 0.5 and got[-2] == 1.0 and got[-1] == 0.0
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-44)
    xt = torch_oracle.tensor(values, requires_grad=True)
    torch_oracle.sigmoid(xt).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-44)


_SPECIALS = [float("nan"), -float("nan"), 0.0, -0.0, 1.5, -1.5, float("inf"), -float("inf"), 1e-45, -1e-45]


def _bits(a: Any) -> np.ndarray:
    """Values as raw bits, so -0 differs from +0 (NaN payloads aside: every NaN maps to one)."""
    a = np.asarray(a, dtype=np.float32).copy()
    a[np.isnan(a)] = np.nan
    return a.view(np.int32)


@pytest.mark.parametrize("inplace", [False, True])
def test_relu_selects_as_pytorch_does(torch_oracle: Any, inplace: bool) -> None:
    """relu is ``x < 0 ? 0 : x`` and its backward ``y <= 0 ? 0 : grad``: both are selects,
    so -0 stays -0, NaN stays NaN (and lets its gradient through), and an inf or NaN
    gradient is dropped, not multiplied by 0, where the output is 0."""
    grads = [1.0, 2.0, 3.0, float("nan"), float("inf"), float("nan"), -0.0, 5.0, -2.0, -3.0]
    out = {}
    for T in (lt, torch_oracle):
        x = T.tensor(_SPECIALS, requires_grad=True)
        y = T.nn.functional.relu(x * 1, inplace=inplace)
        y.backward(T.tensor(grads))
        out[T.__name__] = (y.detach().numpy(), x.grad.numpy())
    for got, want in zip(out["learntorch"], out["torch"]):
        np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int8", "int32", "int64", "uint8"])
def test_relu_of_every_dtype(torch_oracle: Any, dtype: str) -> None:
    check_both(lambda T: T.relu(T.tensor([[-2, 0, 3], [4, -5, -0]]).to(getattr(T, dtype)).t()), torch_oracle)


def test_relu_refuses_bool(torch_oracle: Any) -> None:
    raises_both(lambda T: T.relu(T.tensor([True, False])), torch_oracle, match="Boolean inputs not supported")


@pytest.mark.parametrize("view", ["t", "transpose", "permute", "mT"])
def test_double_backward_of_a_transposed_relu_names_the_view(torch_oracle: Any, view: str) -> None:
    """With ``create_graph`` the backward of ``t()`` is ``grad.t()`` (TBackward0), of
    ``transpose`` a transpose, of ``permute`` a permute: the graph of the gradient says so."""
    def run(T: Any) -> Any:
        x = T.tensor([[-1.0, 2.0], [3.0, -4.0]], requires_grad=True)
        v = {"t": x.t(), "transpose": x.transpose(0, 1), "permute": x.permute(1, 0), "mT": x.mT}[view]
        (g,) = T.autograd.grad((T.relu(v) * v).sum(), x, create_graph=True)
        return g
    check_both(run, torch_oracle)
