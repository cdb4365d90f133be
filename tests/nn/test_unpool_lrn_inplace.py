"""Un-pooling (``F.max_unpool1d/2d/3d``, ``nn.MaxUnpool*``), LP pooling, local response
normalisation, channel shuffle, the in-place functional activations (``F.relu_`` ...) and the
lazy normalisation layers (``nn.LazyBatchNorm*``, ``nn.LazyInstanceNorm*``), against PyTorch:
outputs, ``grad_fn`` names, gradients, reprs and errors."""
from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import learntorch as lt

from conftest import assert_same, check_both, grads_both, raises_both

RNG = np.random.default_rng(11)
X3 = RNG.standard_normal((2, 4, 9)).astype(np.float32)
X4 = RNG.standard_normal((2, 6, 5, 7)).astype(np.float32)
X5 = RNG.standard_normal((2, 4, 4, 5, 6)).astype(np.float32)
EVEN4, EVEN5 = X4[:, :, :4, :6], X5[:, :, :, :4]  # sizes that pooling by 2 and un-pooling give back


def F(T: Any) -> Any:
    return T.nn.functional


# ---------------------------------------------------------------------------- un-pooling
UNPOOL = [  # (dims, input, pool options, output_size)
    (1, X3, dict(kernel_size=2), None), (1, X3, dict(kernel_size=3, stride=2, padding=1), (9,)),
    (2, EVEN4, dict(kernel_size=2), None), (2, X4, dict(kernel_size=2), (5, 7)),
    (2, X4, dict(kernel_size=3, stride=2, padding=1), [2, 6, 5, 7]),
    (3, EVEN5, dict(kernel_size=2), None), (3, X5, dict(kernel_size=(2, 3, 2), stride=(2, 1, 2)), (4, 5, 6)),
]


def test_max_unpool_of_an_odd_size_needs_output_size(torch_oracle: Any) -> None:
    """5 rows pool by 2 into 2, which un-pool into 4 by default: the winners' indices (into 5 × 7)
    do not fit there, an error in both libraries."""
    def run(T: Any) -> Any:
        pooled, indices = F(T).max_pool2d(T.tensor(X4), 2, return_indices=True)
        return F(T).max_unpool2d(pooled, indices, 2)
    raises_both(run, torch_oracle, match="Found an invalid max index")


@pytest.mark.parametrize("dims, x, kw, size", UNPOOL)
def test_max_unpool(torch_oracle: Any, dims: int, x: np.ndarray, kw: dict, size: Any) -> None:
    def run(T: Any, t: Any) -> Any:
        pooled, indices = getattr(F(T), f"max_pool{dims}d")(t, return_indices=True, **kw)
        return getattr(F(T), f"max_unpool{dims}d")(pooled, indices, output_size=size, **kw)
    grads_both(run, torch_oracle, x)
    grads_both(run, torch_oracle, x[0])  # unbatched

    def layers(T: Any, t: Any) -> Any:
        pool = getattr(T.nn, f"MaxPool{dims}d")(return_indices=True, **kw)
        unpool = getattr(T.nn, f"MaxUnpool{dims}d")(**kw)
        return unpool(*pool(t), output_size=size)
    grads_both(layers, torch_oracle, x)


def test_max_unpool_double_backward_reads_with_gather(torch_oracle: Any) -> None:
    def grad_name(T: Any) -> str:
        pooled, indices = F(T).max_pool2d(T.tensor(EVEN4), 2, return_indices=True)
        p = pooled.detach().requires_grad_()
        y = F(T).max_unpool2d(p, indices, 2)
        (g,) = T.autograd.grad(y, p, T.ones_like(y, requires_grad=True), create_graph=True)
        return g.grad_fn.name()
    assert grad_name(lt) == grad_name(torch_oracle)
    pooled, indices = lt.nn.functional.max_pool3d(lt.tensor(EVEN5[0, :2]).double(), 2, return_indices=True)
    p = pooled.detach().requires_grad_()
    assert lt.autograd.gradgradcheck(lambda t: lt.nn.functional.max_unpool3d(t, indices, 2), (p,))


INDICES = np.array([[[[0, 2], [8, 10]]]], dtype=np.int64)
VALUES = np.ones((1, 1, 2, 2), np.float32)
UNPOOL_ERRORS = [
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES), T.tensor(INDICES * 10), 2), "Found an invalid max index"),
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES), T.tensor(INDICES - 100), 2), "Found an invalid max index"),
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES), T.tensor(INDICES).float(), 2), "should be type int64"),
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES), T.tensor(INDICES[..., :1]), 2), "Expected shape of indices"),
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES), T.tensor(INDICES), 2, output_size=(7, 7)), "must be between"),
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES), T.tensor(INDICES), 2, output_size=(4, 4, 4)), "2 or 4 elements"),
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES[0, 0]), T.tensor(INDICES[0, 0]), 2), "should be a 3d or 4d"),
    (lambda T: F(T).max_unpool1d(T.tensor(VALUES[0]), T.tensor(INDICES[0] * 10), 2), "invalid max index"),
    (lambda T: F(T).max_unpool3d(T.tensor(VALUES), T.tensor(INDICES * 10), 2), "invalid max index"),
    (lambda T: F(T).max_unpool2d(T.tensor(VALUES).long(), T.tensor(INDICES), 2), "not implemented for 'Long'"),
]


@pytest.mark.parametrize("i", range(len(UNPOOL_ERRORS)))
def test_max_unpool_errors(torch_oracle: Any, i: int) -> None:
    call, match = UNPOOL_ERRORS[i]
    raises_both(call, torch_oracle, match=match)


# ---------------------------------------------------------------------------- LP pooling
LP = [("lp_pool1d", X3, 2, 3, None, False), ("lp_pool1d", X3, 3, 2, 1, True), ("lp_pool2d", X4, 2, 2, None, False),
      ("lp_pool2d", X4, 1.5, (2, 3), (1, 2), True), ("lp_pool2d", X4, float("inf"), 2, None, False),
      ("lp_pool3d", X5, 2, 2, None, False), ("lp_pool3d", X5, 4, (1, 2, 3), 1, True),
      ("lp_pool3d", X5, -float("inf"), 2, None, False)]


@pytest.mark.parametrize("name, x, p, k, s, ceil", LP)
def test_lp_pool(torch_oracle: Any, name: str, x: np.ndarray, p: float, k: Any, s: Any, ceil: bool) -> None:
    positive = np.abs(x) + 0.1  # (a fractional power of a negative number is NaN, in both)
    grads_both(lambda T, t: getattr(F(T), name)(t, p, k, s, ceil), torch_oracle, positive, rtol=1e-4, atol=1e-5)
    layer = "LPPool" + name[-2:]
    grads_both(lambda T, t: getattr(T.nn, layer)(p, k, s, ceil)(t), torch_oracle, positive[0], rtol=1e-4, atol=1e-5)


def test_lp_pool_of_zeros_has_zero_gradient(torch_oracle: Any) -> None:
    x = np.zeros((1, 2, 4, 4), np.float32)
    x[0, 0, 0, 0] = -1.5  # odd powers of negative numbers: sign(mean)·relu(|mean|), as in PyTorch
    grads_both(lambda T, t: F(T).lp_pool2d(t, 3, 2), torch_oracle, x)


# ---------------------------------------------------------------------------- local response norm
@pytest.mark.parametrize("x, kw", [(X3, dict(size=3)), (X4, dict(size=2, alpha=0.1, beta=0.5, k=2.0)),
                                   (X4, dict(size=5, alpha=1e-2)), (X5, dict(size=3, alpha=0.3))])
def test_local_response_norm(torch_oracle: Any, x: np.ndarray, kw: dict) -> None:
    # PyTorch pads with ConstantPadNdBackward0, learntorch with cat: only the result's name is compared
    grads_both(lambda T, t: F(T).local_response_norm(t, **kw), torch_oracle, x)
    grads_both(lambda T, t: T.nn.LocalResponseNorm(**kw)(t), torch_oracle, x)


def test_local_response_norm_edges(torch_oracle: Any) -> None:
    check_both(lambda T: F(T).local_response_norm(T.ones(0, 4, 3), 2), torch_oracle)
    raises_both(lambda T: F(T).local_response_norm(T.ones(3, 4), 2), torch_oracle, match="Expected 3D or higher")


# ---------------------------------------------------------------------------- channel shuffle
@pytest.mark.parametrize("x, g", [(X4, 3), (X4, 2), (X5, 4), (X3, 1)])
def test_channel_shuffle(torch_oracle: Any, x: np.ndarray, g: int) -> None:
    grads_both(lambda T, t: F(T).channel_shuffle(t, g), torch_oracle, x)
    grads_both(lambda T, t: T.nn.ChannelShuffle(g)(t), torch_oracle, x)
    t = lt.tensor(x[:1, :, :2].astype(np.float64), requires_grad=True)  # (small: finite differences per element)
    assert lt.autograd.gradgradcheck(lambda u: lt.nn.functional.channel_shuffle(u, g), (t,))


@pytest.mark.parametrize("call", [lambda T: F(T).channel_shuffle(T.ones(6, 2), 2),
                                  lambda T: F(T).channel_shuffle(T.ones(1, 6, 2), 4),
                                  lambda T: F(T).channel_shuffle(T.ones(1, 6, 2), 0)])
def test_channel_shuffle_errors(torch_oracle: Any, call: Any) -> None:
    raises_both(call, torch_oracle)


# ---------------------------------------------------------------------------- in-place activations
INPLACE = [("relu_", ()), ("elu_", (0.7,)), ("selu_", ()), ("celu_", (1.3,)), ("leaky_relu_", (0.2,)),
           ("hardtanh_", (-0.5, 0.8)), ("threshold_", (0.1, -2.0)), ("rrelu_", (0.1, 0.3, False))]


@pytest.mark.parametrize("name, args", INPLACE)
def test_inplace_functional_activations(torch_oracle: Any, name: str, args: tuple) -> None:
    def run(T: Any, t: Any) -> Any:
        hidden = t * 1
        out = getattr(F(T), name)(hidden, *args)
        assert out is hidden  # the very tensor, changed in place
        return out * 2
    grads_both(run, torch_oracle, X3)  # grad_fn: EluBackward1, LeakyReluBackward1 ... as PyTorch names them

    # the same numbers as the ``inplace=True`` form of the function without the underscore
    flagged = getattr(lt.nn.functional, name[:-1])(lt.tensor(X3), *args, inplace=True)
    np.testing.assert_array_equal(getattr(lt.nn.functional, name)(lt.tensor(X3), *args).numpy(), flagged.numpy())


def test_inplace_on_a_leaf_that_requires_grad_fails(torch_oracle: Any) -> None:
    raises_both(lambda T: F(T).elu_(T.ones(3, requires_grad=True)), torch_oracle, match="leaf Variable")


# ---------------------------------------------------------------------------- lazy normalisation
LAZY = [("LazyBatchNorm1d", X3, {}), ("LazyBatchNorm2d", X4, dict(momentum=None)),
        ("LazyBatchNorm3d", X5, dict(affine=False)), ("LazyInstanceNorm1d", X3, {}),
        ("LazyInstanceNorm2d", X4, dict(affine=False, track_running_stats=False)),
        ("LazyInstanceNorm3d", X5, dict(bias=False))]


@pytest.mark.filterwarnings("ignore:input's size at dim=1 does not match")  # (num_features stays 0: both warn)
@pytest.mark.parametrize("name, x, kw", LAZY)
def test_lazy_norms(torch_oracle: Any, name: str, x: np.ndarray, kw: dict) -> None:
    def run(T: Any) -> Any:
        m = getattr(T.nn, name)(**kw)
        before = repr(m), sorted(dict(m.named_parameters())), {k: repr(v) for k, v in m.state_dict().items()}
        t = T.tensor(x, requires_grad=True)
        y = m(t)
        y.sum().backward()
        after = repr(m), type(m).__name__, m.num_features
        tensors = (y, t.grad) + tuple(m.state_dict().values())
        return before, after, tensors
    l_out, t_out = run(lt), run(torch_oracle)
    assert l_out[:2] == t_out[:2]
    assert_same(l_out[2], t_out[2], rtol=1e-4, atol=1e-5)


def test_lazy_norm_corners(torch_oracle: Any) -> None:
    def wrong_rank(T: Any) -> Any:
        m = T.nn.LazyBatchNorm3d()
        try:
            m(T.tensor(X4))
        except ValueError as e:
            return type(m).__name__, m.num_features, str(e)
    assert wrong_rank(lt) == wrong_rank(torch_oracle)  # initialised from dimension 1, then the check fails
    raises_both(lambda T: copy.deepcopy(T.nn.LazyBatchNorm1d()), torch_oracle, match="uninitialized parameter")
    raises_both(lambda T: T.nn.LazyBatchNorm1d()(T.ones(3)), torch_oracle)
    assert repr(lt.nn.UninitializedParameter()) == repr(torch_oracle.nn.UninitializedParameter())
    assert repr(lt.nn.UninitializedBuffer()) == repr(torch_oracle.nn.UninitializedBuffer())
    buffer = lt.nn.UninitializedBuffer()
    buffer.materialize((2, 3))
    assert type(buffer) is lt.Tensor and tuple(buffer.shape) == (2, 3)


def test_lazy_norm_in_a_model_with_seeded_init(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.LazyLinear(6), T.nn.LazyBatchNorm1d(), T.nn.ReLU())
        y = model(T.tensor(X3[:, :, 0]))
        return repr(model), y, model[0].weight, model[1].running_mean
    l_out, t_out = run(lt), run(torch_oracle)
    assert l_out[0] == t_out[0]
    assert_same(l_out[1:], t_out[1:], rtol=1e-4, atol=1e-5)


def test_lazy_layers_keep_placeholders_through_to_and_load_state_dict(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        model = T.nn.Sequential(T.nn.LazyLinear(3), T.nn.LazyBatchNorm1d()).double()  # before the first call
        kinds = [type(t).__name__ for t in [*model.parameters(), *model.buffers()]]
        y = model(T.ones(4, 5, dtype=T.float64))
        loaded = T.nn.Sequential(T.nn.LazyLinear(2), T.nn.LazyBatchNorm2d())
        loaded.load_state_dict(T.nn.Sequential(T.nn.Linear(4, 2), T.nn.BatchNorm2d(2)).state_dict())
        before = repr(loaded)
        loaded[0](T.ones(1, 4))
        return kinds, str(y.dtype), repr(model), before, repr(loaded), tuple(loaded[0].weight.shape)
    assert run(lt) == run(torch_oracle)


def test_reprs(torch_oracle: Any) -> None:
    def build(T: Any) -> str:
        nn = T.nn
        return repr(nn.Sequential(nn.MaxUnpool1d(2), nn.MaxUnpool2d(2), nn.MaxUnpool3d(2, 1, 1), nn.LPPool1d(2, 3),
                                  nn.LPPool2d(1.5, (2, 3), 1, True), nn.LPPool3d(2, 3), nn.LocalResponseNorm(3),
                                  nn.LocalResponseNorm(2, 0.1, 0.5, 2), nn.ChannelShuffle(2)))
    assert build(lt) == build(torch_oracle)
