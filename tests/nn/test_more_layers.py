"""The layers added late: GLU, Hardshrink, Softshrink, Tanhshrink, RReLU, Softmax2d, RMSNorm,
Bilinear, LazyLinear, Dropout1d/3d, AlphaDropout, FeatureAlphaDropout, pdist, EmbeddingBag and
gumbel_softmax, against PyTorch: values, gradients (and grad_fn names where learntorch has the
same node), module reprs, error types, and the random draws for the same manual_seed."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import learntorch as lt
from conftest import assert_same, check_both, grads_both, raises_both, to_numpy

RNG = np.random.default_rng(1)
X = (RNG.standard_normal((3, 8)) * 2).astype(np.float32)
X[0, :4] = [0.5, -0.5, 0.0, 0.2]  # on and around the shrink bands' edges
Y = RNG.standard_normal((3, 8)).astype(np.float32)


# ----------------------------------------------------------------------------- activations
@pytest.mark.parametrize("name,kw", [("hardshrink", {}), ("hardshrink", dict(lambd=0.3)), ("softshrink", {}),
                                     ("softshrink", dict(lambd=1.0)), ("tanhshrink", {}), ("glu", {}),
                                     ("glu", dict(dim=0 + 1)), ("rrelu", {}), ("rrelu", dict(lower=0.2, upper=0.4))])
def test_activation_values_and_gradients(torch_oracle: Any, name: str, kw: dict) -> None:
    grads_both(lambda T, x: getattr(T.nn.functional, name)(x, **kw), torch_oracle, X)


def test_glu_along_other_dims_and_double_backward(torch_oracle: Any) -> None:
    x4 = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    grads_both(lambda T, x: T.nn.functional.glu(x, dim=1), torch_oracle, x4)
    x = lt.tensor(X.astype(np.float64), requires_grad=True)
    assert lt.autograd.gradgradcheck(lambda t: lt.nn.functional.glu(t), (x,))


def test_tensor_hardshrink_and_inplace_rrelu(torch_oracle: Any) -> None:
    grads_both(lambda T, x: x.hardshrink(0.4), torch_oracle, X)
    grads_both(lambda T, x: T.nn.functional.rrelu(x * 1, inplace=True) * 2, torch_oracle, X, check_grad_fn=False)


def test_rrelu_training_draws_torchs_slopes(torch_oracle: Any) -> None:
    """Training mode: one slope per non-positive element, from the generator as PyTorch draws them."""
    def run(T: Any) -> Any:
        T.manual_seed(3)
        x = T.tensor(X, requires_grad=True)
        y = T.nn.functional.rrelu(x, 0.1, 0.3, training=True)
        y.sum().backward()
        return y, x.grad, T.rand(2)  # the generator's state after the draw too
    l_out, t_out = run(lt), run(torch_oracle)
    assert_same(l_out[0], t_out[0], check_requires_grad=False)
    assert_same(l_out[1:], t_out[1:])
    slopes = to_numpy(l_out[1])[X <= 0]
    assert slopes.min() >= 0.1 and slopes.max() < 0.3


def test_activation_modules(torch_oracle: Any) -> None:
    def build(T: Any) -> Any:
        nn = T.nn
        return nn.Sequential(nn.GLU(), nn.Hardshrink(0.3), nn.Softshrink(), nn.Tanhshrink(), nn.RReLU(0.1, 0.2),
                             nn.RReLU(inplace=True), nn.Softmax2d())
    assert repr(build(lt)) == repr(build(torch_oracle))
    check_both(lambda T: T.nn.Sequential(T.nn.GLU(), T.nn.Hardshrink(0.3), T.nn.Softshrink(0.1), T.nn.Tanhshrink(),
                                         T.nn.RReLU().eval())(T.tensor(X)), torch_oracle)
    x4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    grads_both(lambda T, x: T.nn.Softmax2d()(x), torch_oracle, x4)
    grads_both(lambda T, x: T.nn.Softmax2d()(x), torch_oracle, x4[0])


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.glu(T.randn(3, 5)),
    lambda T: T.nn.functional.glu(T.tensor(1.0)),
    lambda T: T.nn.functional.softshrink(T.randn(3), -1.0),
    lambda T: T.nn.functional.rrelu(T.randn(3), 0.5, 0.1),
    lambda T: T.nn.Softmax2d()(T.randn(3, 4)),
], ids=["glu-odd", "glu-scalar", "softshrink-negative", "rrelu-bounds", "softmax2d-2d"])
def test_activation_errors(torch_oracle: Any, call: Any) -> None:
    raises_both(call, torch_oracle)


# ----------------------------------------------------------------------------- RMSNorm
@pytest.mark.parametrize("shape,eps,affine", [((8,), None, True), ((3, 8), 1e-5, True), ((8,), 0.1, False)])
def test_rms_norm(torch_oracle: Any, shape: tuple, eps: Any, affine: bool) -> None:
    w = (RNG.standard_normal(shape) + 1).astype(np.float32)
    if affine:
        grads_both(lambda T, x, w: T.nn.functional.rms_norm(x, shape, w, eps), torch_oracle, X, w)
    else:
        grads_both(lambda T, x: T.nn.functional.rms_norm(x, shape, None, eps), torch_oracle, X)


def test_rms_norm_module_and_float64(torch_oracle: Any) -> None:
    def build(T: Any) -> Any:
        return [T.nn.RMSNorm(8), T.nn.RMSNorm([3, 4], eps=1e-5, elementwise_affine=False)]
    assert [repr(m) for m in build(lt)] == [repr(m) for m in build(torch_oracle)]
    check_both(lambda T: dict(T.nn.RMSNorm(8).named_parameters())["weight"], torch_oracle)
    grads_both(lambda T, x: T.nn.RMSNorm(8, dtype=T.float64)(x), torch_oracle, X.astype(np.float64))
    x = lt.tensor(X.astype(np.float64), requires_grad=True)
    assert lt.autograd.gradgradcheck(lambda t: lt.nn.functional.rms_norm(t, (8,)), (x,))


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.rms_norm(T.randn(4, 6), (5,)),
    lambda T: T.nn.functional.rms_norm(T.randn(4, 6), (6,), T.ones(5)),
    lambda T: T.nn.functional.rms_norm(T.arange(6), (6,)),
])
def test_rms_norm_errors(torch_oracle: Any, call: Any) -> None:
    raises_both(call, torch_oracle)


# ----------------------------------------------------------------------------- Bilinear, LazyLinear
def test_bilinear_function(torch_oracle: Any) -> None:
    x1 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    x2 = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    w = RNG.standard_normal((6, 4, 5)).astype(np.float32)
    b = RNG.standard_normal(6).astype(np.float32)
    grads_both(lambda T, x1, x2, w, b: T.nn.functional.bilinear(x1, x2, w, b), torch_oracle, x1, x2, w, b)
    grads_both(lambda T, x1, x2, w: T.nn.functional.bilinear(x1, x2, w), torch_oracle, x1, x2, w)


def test_bilinear_module_same_init(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        T.manual_seed(0)
        m = T.nn.Bilinear(3, 4, 2)
        return repr(m), repr(T.nn.Bilinear(1, 2, 3, bias=False)), m.weight, m.bias
    l_out, t_out = run(lt), run(torch_oracle)
    assert l_out[:2] == t_out[:2]
    assert_same(l_out[2:], t_out[2:], exact=True)


@pytest.mark.parametrize("shapes", [((4, 6), (3, 5), (2, 6, 5), None), ((4, 6), (4, 5), (2, 6, 4), None),
                                    ((4, 6), (4, 5), (2, 5, 5), None), ((4, 6), (4, 5), (2, 6, 5), (3,))])
def test_bilinear_errors(torch_oracle: Any, shapes: tuple) -> None:
    def call(T: Any) -> Any:
        bias = T.randn(*shapes[3]) if shapes[3] else None
        return T.nn.functional.bilinear(T.randn(*shapes[0]), T.randn(*shapes[1]), T.randn(*shapes[2]), bias)
    raises_both(call, torch_oracle, match="bilinear")


def test_lazy_linear(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        T.manual_seed(0)
        m = T.nn.LazyLinear(3)
        before = repr(m), repr(m.weight)
        y = m(T.tensor(X))
        return before, repr(m), type(m).__name__, m.in_features, m.weight, m.bias, y
    l_out, t_out = run(lt), run(torch_oracle)
    assert l_out[:4] == t_out[:4]
    assert_same(l_out[4:], t_out[4:])


# ----------------------------------------------------------------------------- dropout variants
def _seeded(T: Any, fn: Any) -> Any:
    T.manual_seed(5)
    return fn(T)


@pytest.mark.parametrize("name,shape", [("dropout1d", (4, 6, 5)), ("dropout1d", (6, 5)), ("dropout3d", (2, 6, 2, 2, 2)),
                                        ("alpha_dropout", (4, 6)), ("feature_alpha_dropout", (4, 6, 3))])
def test_dropout_variants_match_torch_for_the_same_seed(torch_oracle: Any, name: str, shape: tuple) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    grads_both(lambda T, x: _seeded(T, lambda T: getattr(T.nn.functional, name)(x, 0.4, True)), torch_oracle, x,
               check_grad_fn=False)
    check_both(lambda T: getattr(T.nn.functional, name)(T.tensor(x), 0.4, False), torch_oracle)


def test_alpha_dropout_keeps_mean_and_variance() -> None:
    lt.manual_seed(0)
    x = lt.randn(200_000)
    y = lt.nn.functional.alpha_dropout(x, 0.3, training=True)
    assert abs(y.mean().item()) < 0.01 and abs(y.var().item() - 1) < 0.02
    per_channel = lt.nn.FeatureAlphaDropout(0.3)(lt.randn(2000, 50, 4))
    assert abs(per_channel.mean().item()) < 0.02 and abs(per_channel.var().item() - 1) < 0.03


def test_dropout_modules(torch_oracle: Any) -> None:
    def build(T: Any) -> str:
        nn = T.nn
        return repr(nn.Sequential(nn.Dropout1d(), nn.Dropout3d(0.2), nn.AlphaDropout(), nn.FeatureAlphaDropout(0.1)))
    assert build(lt) == build(torch_oracle)
    x = RNG.standard_normal((2, 3, 4, 1, 1)).astype(np.float32)
    check_both(lambda T: _seeded(T, lambda T: T.nn.Dropout3d(0.5)(T.tensor(x))), torch_oracle)
    check_both(lambda T: T.nn.AlphaDropout(0.5).eval()(T.tensor(x)), torch_oracle)


def test_dropout_variant_errors(torch_oracle: Any) -> None:
    raises_both(lambda T: T.nn.functional.dropout1d(T.randn(2, 3, 4, 5), 0.5), torch_oracle)
    raises_both(lambda T: T.nn.functional.alpha_dropout(T.randn(3), 1.5), torch_oracle)
    raises_both(lambda T: T.nn.Dropout1d(-0.1), torch_oracle)
    with pytest.warns(UserWarning, match="dropout3d"):
        lt.nn.functional.dropout3d(lt.randn(3, 4), 0.5)


# ----------------------------------------------------------------------------- distances
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_pairwise_distance_and_pdist(torch_oracle: Any, p: float) -> None:
    grads_both(lambda T, a, b: T.nn.functional.pairwise_distance(a, b, p), torch_oracle, X, Y, check_grad_fn=False)
    grads_both(lambda T, a: T.nn.functional.pdist(a, p), torch_oracle, X, check_grad_fn=False)


def test_pairwise_distance_module_and_errors(torch_oracle: Any) -> None:
    check_both(lambda T: T.nn.PairwiseDistance(keepdim=True)(T.tensor(X), T.tensor(Y)), torch_oracle)
    assert repr(lt.nn.PairwiseDistance()) == repr(torch_oracle.nn.PairwiseDistance())
    raises_both(lambda T: T.nn.functional.pdist(T.randn(2, 3, 4)), torch_oracle, match="2D")
    raises_both(lambda T: T.nn.functional.pdist(T.randn(2, 3), -1), torch_oracle, match="non-negative")


# ----------------------------------------------------------------------------- EmbeddingBag
W = RNG.standard_normal((10, 4)).astype(np.float32)
IDS = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0], dtype=np.int64)
OFFSETS = np.array([0, 3, 3, 7], dtype=np.int64)  # bag 1 is empty


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("extra", [{}, dict(padding_idx=2), dict(include_last_offset=True)])
def test_embedding_bag_1d_with_offsets(torch_oracle: Any, mode: str, extra: dict) -> None:
    # with include_last_offset the last offset ends the last bag (PyTorch reads garbage if ids are left over)
    offsets = np.append(OFFSETS, IDS.size) if extra.get("include_last_offset") else OFFSETS
    grads_both(lambda T, w: T.nn.functional.embedding_bag(T.tensor(IDS), w, T.tensor(offsets), mode=mode, **extra),
               torch_oracle, W, check_grad_fn=True)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2d(torch_oracle: Any, mode: str) -> None:
    grads_both(lambda T, w: T.nn.functional.embedding_bag(T.tensor(IDS.reshape(3, 3)), w, mode=mode), torch_oracle,
               W, check_grad_fn=True)


def test_embedding_bag_per_sample_weights_and_freq(torch_oracle: Any) -> None:
    psw = RNG.standard_normal(IDS.size).astype(np.float32)
    grads_both(lambda T, w, s: T.nn.functional.embedding_bag(T.tensor(IDS), w, T.tensor(OFFSETS), mode="sum",
                                                             per_sample_weights=s),
               torch_oracle, W, psw, check_grad_fn=True)


def test_embedding_bag_one_node_and_double_backward(torch_oracle: Any) -> None:
    """The bag reduction is one ``EmbeddingBagBackward0`` node whose inputs are ``weight`` and
    ``per_sample_weights`` (its ``ViewBackward0`` for a 2-D input)."""
    def run(T: Any) -> Any:
        w = T.tensor(W, requires_grad=True)
        s = T.tensor(np.linspace(-1, 1, 9, dtype=np.float32).reshape(3, 3), requires_grad=True)
        out = T.nn.functional.embedding_bag(T.tensor(IDS.reshape(3, 3)), w * 2, mode="sum", per_sample_weights=s)
        names = [type(out.grad_fn).__name__] + [type(n).__name__ for n, _ in out.grad_fn.next_functions]
        gw, gs = T.autograd.grad((out ** 2).sum(), (w, s))
        return names, out, gw, gs
    got, want = run(lt), run(torch_oracle)
    assert got[0] == want[0] == ["EmbeddingBagBackward0", "MulBackward0", "ViewBackward0"]
    assert_same(got[1:], want[1:], check_grad_fn=False)



def test_embedding_bag_scale_grad_by_freq(torch_oracle: Any) -> None:
    """Each id's gradient divided by how often it occurs in the batch, as ``F.embedding`` does.
    (PyTorch 2.13's CPU embedding_bag divides by the counts of the wrong ids, so the oracle
    here is ``F.embedding(..., scale_grad_by_freq=True)`` summed per bag.)"""
    def via_embedding(T: Any, w: Any) -> Any:
        rows = T.nn.functional.embedding(T.tensor(IDS), w, scale_grad_by_freq=True)
        bags = np.split(np.arange(IDS.size), OFFSETS[1:])
        return T.stack([rows[T.tensor(b)].sum(0) if b.size else rows[:0].sum(0) for b in bags])
    lts, tts = [lt.tensor(W, requires_grad=True)], [torch_oracle.tensor(W, requires_grad=True)]
    out = lt.nn.functional.embedding_bag(lt.tensor(IDS), lts[0], lt.tensor(OFFSETS), mode="sum",
                                         scale_grad_by_freq=True)
    expected = via_embedding(torch_oracle, tts[0])
    assert_same(out, expected, check_grad_fn=False)
    g = RNG.standard_normal(tuple(expected.shape)).astype(np.float32)
    (out * lt.tensor(g)).sum().backward()
    (expected * torch_oracle.tensor(g)).sum().backward()
    assert_same(lts[0].grad, tts[0].grad)


def test_embedding_bag_module(torch_oracle: Any) -> None:
    def run(T: Any) -> Any:
        T.manual_seed(0)
        m = T.nn.EmbeddingBag(10, 3, mode="max", padding_idx=0, max_norm=1.0, include_last_offset=True)
        y = m(T.tensor(IDS), T.tensor(np.append(OFFSETS, IDS.size)))
        return repr(T.nn.EmbeddingBag(10, 3)), repr(m), y, m.weight
    l_out, t_out = run(lt), run(torch_oracle)
    assert l_out[:2] == t_out[:2]
    assert_same(l_out[2:], t_out[2:], check_grad_fn=True)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(4, 6)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 2]]), T.randn(4, 6), T.tensor([0])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(4, 6), T.tensor([0]), mode="foo"),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(4, 6), T.tensor([0]), mode="max",
                                            per_sample_weights=T.ones(2)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 9]), T.randn(4, 6), T.tensor([0])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1.0, 2.0]), T.randn(4, 6), T.tensor([0])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.randn(4, 6), T.tensor([1])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 2, 3]]), T.randn(4, 6), per_sample_weights=T.ones(2)),
])
def test_embedding_bag_errors(torch_oracle: Any, call: Any) -> None:
    raises_both(call, torch_oracle)


# ----------------------------------------------------------------------------- gumbel_softmax
@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_same_seed(torch_oracle: Any, hard: bool) -> None:
    grads_both(lambda T, x: _seeded(T, lambda T: T.nn.functional.gumbel_softmax(x, tau=0.5, hard=hard)),
               torch_oracle, X, rtol=1e-4, atol=1e-5)


def test_gumbel_softmax_samples_follow_the_probabilities() -> None:
    lt.manual_seed(0)
    logits = lt.tensor([[0.0, 1.0, 2.0]]).expand(20000, 3)
    y = lt.nn.functional.gumbel_softmax(logits, hard=True)
    assert lt.equal(y.sum(1), lt.ones(20000))
    freq = to_numpy(y.mean(0))
    expected = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    np.testing.assert_allclose(freq, expected, atol=0.015)
