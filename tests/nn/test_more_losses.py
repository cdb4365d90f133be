"""The margin, ranking, embedding and likelihood losses against PyTorch: values for each
reduction, the gradients of every differentiable input, the legacy ``size_average`` /
``reduce`` flags, module reprs and the errors on bad input.

(learntorch/nn/losses_margin.py, losses_likelihood.py, nn/modules/loss_margin.py)
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import learntorch as lt
from conftest import check_both, grads_both, raises_both

RNG = np.random.default_rng(7)
N, C = 4, 5


def _randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _signs(*shape: int) -> np.ndarray:
    return np.where(RNG.random(shape) < 0.5, -1.0, 1.0).astype(np.float32)


def _positive(*shape: int, low: float = 0.1, high: float = 3.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


X, Y, Z = _randn(N, C), _randn(N, C), _randn(N, C)
SIGNS, ROW_SIGNS = _signs(N, C), _signs(N)
LABELS = RNG.integers(0, C, N)
MULTI_LABELS = np.array([[1, 3, -1, 0, 0], [0, 4, 4, -1, 2], [4, 0, 1, 2, 3], [-1, 1, 1, 1, 1]])
BITS = (RNG.random((N, C)) < 0.5).astype(np.float32)
COUNTS = _positive(N, C, low=0.2, high=6.0)
WEIGHT = _positive(C)


def _long(T: Any, a: np.ndarray) -> Any:
    return T.tensor(a, dtype=T.int64)


# name -> (fn(T, reduction, *leaves), arrays, compare grad_fn names?)
# The composed losses whose last node is a clamp_min: PyTorch's ClampMinBackward0 is our
# ClampBackward1 (see losses_margin.py), so their 'none' results skip the name check.
CASES: dict[str, tuple[Callable[..., Any], tuple, bool]] = {
    "margin_ranking": (lambda T, r, a, b, y: T.nn.functional.margin_ranking_loss(a, b, y, margin=0.3, reduction=r),
                       (X, Y, SIGNS), False),
    "hinge_embedding": (lambda T, r, x, y: T.nn.functional.hinge_embedding_loss(x, y, margin=0.7, reduction=r),
                        (X, SIGNS), True),
    "cosine_embedding": (lambda T, r, a, b, y: T.nn.functional.cosine_embedding_loss(a, b, y, margin=-0.2,
                                                                                      reduction=r),
                         (X, Y, ROW_SIGNS), True),
    "cosine_embedding_1d": (lambda T, r, a, b: T.nn.functional.cosine_embedding_loss(a, b, T.tensor(-1.0),
                                                                                      reduction=r),
                            (X[0], Y[0]), True),
    "triplet": (lambda T, r, a, p, n: T.nn.functional.triplet_margin_loss(a, p, n, reduction=r), (X, Y, Z), False),
    "triplet_p1_swap": (lambda T, r, a, p, n: T.nn.functional.triplet_margin_loss(a, p, n, margin=2.0, p=1, eps=1e-3,
                                                                                 swap=True, reduction=r),
                        (X, Y, Z), False),
    "triplet_distance": (lambda T, r, a, p, n: T.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, distance_function=lambda u, v: 1 - T.nn.functional.cosine_similarity(u, v), margin=0.5, swap=True,
        reduction=r), (X, Y, Z), False),
    "triplet_distance_default": (lambda T, r, a, p, n: T.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, reduction=r), (X, Y, Z), False),
    "soft_margin": (lambda T, r, x: T.nn.functional.soft_margin_loss(x, T.tensor(SIGNS), reduction=r), (X,), True),
    "soft_margin_broadcast": (lambda T, r, x: T.nn.functional.soft_margin_loss(x, T.tensor(X[0] * 2), reduction=r),
                              (X,), True),
    "multilabel_soft_margin": (lambda T, r, x, y: T.nn.functional.multilabel_soft_margin_loss(x, y, reduction=r),
                               (X, BITS), True),
    "multilabel_soft_margin_weight": (lambda T, r, x, y, w: T.nn.functional.multilabel_soft_margin_loss(
        x, y, weight=w, reduction=r), (X, BITS, _positive(C)), True),
    "multi_margin": (lambda T, r, x: T.nn.functional.multi_margin_loss(x, _long(T, LABELS), reduction=r), (X,), True),
    "multi_margin_p2_weight": (lambda T, r, x: T.nn.functional.multi_margin_loss(
        x, _long(T, LABELS), p=2, margin=0.8, weight=T.tensor(WEIGHT), reduction=r), (X,), True),
    "multi_margin_1d": (lambda T, r, x: T.nn.functional.multi_margin_loss(x, _long(T, np.array(2)), reduction=r),
                        (X[0],), True),
    "multilabel_margin": (lambda T, r, x: T.nn.functional.multilabel_margin_loss(x, _long(T, MULTI_LABELS),
                                                                                reduction=r), (X,), True),
    "multilabel_margin_1d": (lambda T, r, x: T.nn.functional.multilabel_margin_loss(
        x, _long(T, MULTI_LABELS[1]), reduction=r), (X[1],), True),
    "poisson": (lambda T, r, x, t: T.nn.functional.poisson_nll_loss(x, t, reduction=r), (X, COUNTS), True),
    "poisson_rate_full": (lambda T, r, x, t: T.nn.functional.poisson_nll_loss(x, t, log_input=False, full=True,
                                                                             eps=1e-4, reduction=r),
                          (_positive(N, C), COUNTS), True),
    "gaussian": (lambda T, r, x, t, v: T.nn.functional.gaussian_nll_loss(x, t, v, reduction=r),
                 (X, Y, _positive(N, C)), True),
    "gaussian_full_clamped": (lambda T, r, x, t, v: T.nn.functional.gaussian_nll_loss(x, t, v, full=True, eps=0.5,
                                                                                     reduction=r),
                              (X, Y, _positive(N, C)), True),
    "gaussian_var_per_row": (lambda T, r, x, t, v: T.nn.functional.gaussian_nll_loss(x, t, v, reduction=r),
                             (X, Y, _positive(N)), True),
    "gaussian_var_column": (lambda T, r, x, t, v: T.nn.functional.gaussian_nll_loss(x, t, v, reduction=r),
                            (X, Y, _positive(N, 1)), True),
    "gaussian_var_row": (lambda T, r, x, t, v: T.nn.functional.gaussian_nll_loss(x, t, v, reduction=r),
                         (X, Y, _positive(1, C)), True),
    "gaussian_var_float": (lambda T, r, x, t: T.nn.functional.gaussian_nll_loss(x, t, 0.7, reduction=r),
                           (X, Y), True),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients(torch_oracle: Any, name: str, reduction: str) -> None:
    fn, arrays, names_agree = CASES[name]
    grads_both(lambda T, *xs: fn(T, reduction, *xs), torch_oracle, *arrays,
               check_grad_fn=names_agree or reduction != "none")


@pytest.mark.parametrize("legacy", [dict(size_average=False), dict(reduce=False), dict(size_average=True)])
@pytest.mark.parametrize("name", ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
                                  "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
                                  "poisson_nll_loss", "triplet_margin_loss", "cosine_embedding_loss"])
def test_legacy_size_average_and_reduce(torch_oracle: Any, name: str, legacy: dict) -> None:
    args = {"margin_ranking_loss": lambda T: (T.tensor(X), T.tensor(Y), T.tensor(SIGNS)),
            "cosine_embedding_loss": lambda T: (T.tensor(X), T.tensor(Y), T.tensor(ROW_SIGNS)),
            "triplet_margin_loss": lambda T: (T.tensor(X), T.tensor(Y), T.tensor(Z)),
            "multi_margin_loss": lambda T: (T.tensor(X), _long(T, LABELS)),
            "multilabel_margin_loss": lambda T: (T.tensor(X), _long(T, MULTI_LABELS)),
            "multilabel_soft_margin_loss": lambda T: (T.tensor(X), T.tensor(BITS)),
            "poisson_nll_loss": lambda T: (T.tensor(X), T.tensor(COUNTS))}.get(name, lambda T: (T.tensor(X),
                                                                                                T.tensor(SIGNS)))

    def run(T: Any) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = getattr(T.nn.functional, name)(*args(T), **legacy)
        return out, [str(w.message) for w in caught if "deprecated" in str(w.message)]

    check_both(run, torch_oracle)


MODULES = [
    ("MarginRankingLoss", dict(margin=0.5), (X, Y, SIGNS)),
    ("HingeEmbeddingLoss", dict(margin=2.0, reduction="sum"), (X, SIGNS)),
    ("CosineEmbeddingLoss", dict(margin=0.1, reduction="none"), (X, Y, ROW_SIGNS)),
    ("TripletMarginLoss", dict(margin=0.5, p=3.0, swap=True), (X, Y, Z)),
    ("TripletMarginWithDistanceLoss", dict(margin=0.5, swap=True), (X, Y, Z)),
    ("SoftMarginLoss", dict(reduction="sum"), (X, SIGNS)),
    ("MultiLabelSoftMarginLoss", dict(reduction="none"), (X, BITS)),
    ("MultiMarginLoss", dict(p=2, margin=0.5), (X, LABELS)),
    ("MultiLabelMarginLoss", dict(size_average=False), (X, MULTI_LABELS)),
    ("PoissonNLLLoss", dict(log_input=False, full=True, eps=1e-3), (COUNTS, COUNTS[::-1].copy())),
    ("GaussianNLLLoss", dict(full=True, eps=1e-3), (X, Y, _positive(N, C))),
]


@pytest.mark.parametrize("name,kw,arrays", MODULES, ids=[m[0] for m in MODULES])
def test_modules(torch_oracle: Any, name: str, kw: dict, arrays: tuple) -> None:
    def run(T: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = getattr(T.nn, name)(**kw)
        inputs = [T.tensor(a) for a in arrays]
        return repr(module), module.reduction, module(*inputs), sorted(dict(module.state_dict()))

    check_both(run, torch_oracle)


def test_weighted_module_keeps_its_weight_as_a_buffer(torch_oracle: Any) -> None:
    w = _positive(C)
    check_both(lambda T: (repr(T.nn.MultiMarginLoss(weight=T.tensor(w))), list(T.nn.MultiLabelSoftMarginLoss(
        weight=T.tensor(w)).state_dict()), T.nn.MultiMarginLoss(weight=T.tensor(w))(T.tensor(X), _long(T, LABELS))),
        torch_oracle)


def test_reprs_of_distances(torch_oracle: Any) -> None:
    def build(T: Any) -> list[str]:
        return [repr(T.nn.TripletMarginWithDistanceLoss(distance_function=T.nn.PairwiseDistance(p=1.0))),
                repr(T.nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: (a - b).abs().sum(-1))),
                repr(T.nn.TripletMarginLoss(p=1.0)), repr(T.nn.PairwiseDistance(p=3.0, keepdim=True))]

    assert build(lt) == build(torch_oracle)


def test_double_backward_of_the_fused_losses() -> None:
    x = lt.tensor(_randn(3, 4).astype(np.float64), requires_grad=True)
    y = lt.tensor(_signs(3, 4).astype(np.float64))
    labels = lt.tensor(np.array([0, 3, 1]))
    multi = lt.tensor(np.array([[1, 2, -1, 0], [3, -1, 0, 0], [0, 1, 2, 3]]))
    F = lt.nn.functional
    for fn, inputs in [(lambda a: F.soft_margin_loss(a, y, reduction="sum"), (x,)),
                       (lambda a: F.multi_margin_loss(a, labels, p=2, margin=0.9), (x,)),
                       (lambda a: F.multi_margin_loss(a, labels, reduction="none"), (x,)),
                       (lambda a: F.multilabel_margin_loss(a, multi, reduction="none"), (x,))]:
        assert lt.autograd.gradcheck(fn, inputs)
        assert lt.autograd.gradgradcheck(fn, inputs)


ERRORS: list[tuple[str, Callable[[Any], Any], str]] = [
    ("bad reduction", lambda T: T.nn.functional.soft_margin_loss(T.tensor(X), T.tensor(SIGNS), reduction="avg"),
     "not a valid value for reduction"),
    ("soft margin target gradient", lambda T: T.nn.functional.soft_margin_loss(
        T.tensor(X), T.tensor(SIGNS, requires_grad=True)), "not differentiable with respect to argument 'target'"),
    ("ranking dims", lambda T: T.nn.functional.margin_ranking_loss(T.tensor(X), T.tensor(Y), T.tensor(SIGNS[0])),
     "should have same dimension"),
    ("cosine 2-D target", lambda T: T.nn.functional.cosine_embedding_loss(T.tensor(X), T.tensor(Y),
                                                                          T.tensor(SIGNS)), "multi-target"),
    ("cosine 0-D target", lambda T: T.nn.functional.cosine_embedding_loss(T.tensor(X), T.tensor(Y), T.tensor(1.0)),
     "0D target tensor expects 1D input tensors"),
    ("triplet margin", lambda T: T.nn.functional.triplet_margin_loss(T.tensor(X), T.tensor(Y), T.tensor(Z),
                                                                     margin=0), "margin must be greater than 0"),
    ("triplet dims", lambda T: T.nn.functional.triplet_margin_loss(T.tensor(X), T.tensor(Y), T.tensor(Z[0])),
     "same number of dimensions"),
    ("distance triplet dims", lambda T: T.nn.functional.triplet_margin_with_distance_loss(
        T.tensor(X), T.tensor(Y[0]), T.tensor(Z)), "same number of dimensions"),
    ("distance triplet reduction", lambda T: T.nn.functional.triplet_margin_with_distance_loss(
        T.tensor(X), T.tensor(Y), T.tensor(Z), reduction="avg"), "not a valid value"),
    ("TripletMarginLoss margin", lambda T: T.nn.TripletMarginLoss(margin=-1.0), "expected margin"),
    ("TripletMarginWithDistanceLoss margin", lambda T: T.nn.TripletMarginWithDistanceLoss(margin=0.0),
     "expected margin"),
    ("multi margin p", lambda T: T.nn.functional.multi_margin_loss(T.tensor(X), _long(T, LABELS), p=3),
     "only p == 1 and p == 2"),
    ("MultiMarginLoss p", lambda T: T.nn.MultiMarginLoss(p=3), "only p == 1 and p == 2"),
    ("MultiMarginLoss weight", lambda T: T.nn.MultiMarginLoss(weight=T.ones(2, 2)), "weight"),
    ("multi margin weight dims", lambda T: T.nn.functional.multi_margin_loss(T.tensor(X), _long(T, LABELS),
                                                                             weight=T.ones(2, 2)), "one-dimensional"),
    ("multi margin weight size", lambda T: T.nn.functional.multi_margin_loss(T.tensor(X), _long(T, LABELS),
                                                                             weight=T.ones(4)),
     "inconsistent weight size"),
    ("multi margin weight gradient", lambda T: T.nn.functional.multi_margin_loss(
        T.tensor(X), _long(T, LABELS), weight=T.tensor(WEIGHT, requires_grad=True)), "argument 'weight'"),
    ("multi margin target range", lambda T: T.nn.functional.multi_margin_loss(T.tensor(X),
                                                                              _long(T, np.array([0, 1, 2, 5]))),
     "target out of range"),
    ("multi margin target size", lambda T: T.nn.functional.multi_margin_loss(T.tensor(X), _long(T, LABELS[:3])),
     "Expected target size"),
    ("multi margin 3-D", lambda T: T.nn.functional.multi_margin_loss(T.zeros(2, 3, 4), _long(T, np.zeros(2))),
     "non-empty vector or matrix"),
    ("multi margin float target", lambda T: T.nn.functional.multi_margin_loss(T.tensor(X), T.tensor(LABELS * 1.0)),
     "expected scalar type Long"),
    ("multilabel target range", lambda T: T.nn.functional.multilabel_margin_loss(
        T.tensor(X), _long(T, np.where(MULTI_LABELS == 3, 5, MULTI_LABELS))), "out of range"),
    ("multilabel target size", lambda T: T.nn.functional.multilabel_margin_loss(T.tensor(X),
                                                                                _long(T, MULTI_LABELS[:, :4])),
     "inconsistent target size"),
    ("gaussian var size", lambda T: T.nn.functional.gaussian_nll_loss(T.tensor(X), T.tensor(Y), T.ones(3, 5)),
     "var is of incorrect size"),
    ("gaussian var two dims off", lambda T: T.nn.functional.gaussian_nll_loss(T.tensor(X), T.tensor(Y),
                                                                              T.ones(4, 2)), "incorrect size"),
    ("gaussian negative float", lambda T: T.nn.functional.gaussian_nll_loss(T.tensor(X), T.tensor(Y), -1.0),
     "negative entry"),
    ("gaussian negative var", lambda T: T.nn.functional.gaussian_nll_loss(T.tensor(X), T.tensor(Y),
                                                                          -T.ones(N, C)), "negative entry"),
    ("gaussian int var", lambda T: T.nn.functional.gaussian_nll_loss(T.tensor(X), T.tensor(Y), 1), None),
    ("gaussian reduction", lambda T: T.nn.functional.gaussian_nll_loss(T.tensor(X), T.tensor(Y), 1.0,
                                                                       reduction="avg"), "is not valid"),
    ("poisson reduction", lambda T: T.nn.functional.poisson_nll_loss(T.tensor(X), T.tensor(Y), reduction="avg"),
     "not a valid value"),
    ("multilabel soft reduction", lambda T: T.nn.functional.multilabel_soft_margin_loss(
        T.tensor(X), T.tensor(BITS), reduction="avg"), "is not valid"),
]


@pytest.mark.parametrize("name,fn,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(torch_oracle: Any, name: str, fn: Callable[[Any], Any], match: str) -> None:
    raises_both(fn, torch_oracle, match=match)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_smooth_l1_with_beta_zero_is_l1(torch_oracle, reduction):
    """PyTorch computes ``smooth_l1_loss(beta=0)`` as ``l1_loss``: the same numbers and graph."""
    grads_both(lambda T, a, b: T.nn.functional.smooth_l1_loss(a, b, beta=0.0, reduction=reduction), torch_oracle,
               np.array([[0.5, -1.0], [2.0, 0.25]], np.float32), np.array([[0.0, 1.0], [2.0, -1.0]], np.float32))


def test_an_ignored_target_gets_plus_zero_gradients(torch_oracle):
    """The gradient row of a target equal to ``ignore_index`` is +0 (it prints as 0., not -0.)."""
    def run(T):
        x = T.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -2.0]], requires_grad=True)
        w = T.tensor([1.0, 2.0, 0.5])
        T.nn.functional.cross_entropy(x, T.tensor([1, -100]), weight=w).backward()
        return repr(x.grad), (1 / x.grad[1]).tolist()
    check_both(run, torch_oracle)


QUIET = [  # (name, loss of T): results with nan/-inf inside, which PyTorch gives without a warning
    ("poisson full with zero counts", lambda T: T.nn.functional.poisson_nll_loss(
        T.tensor(X), T.tensor(np.array([[0.0, 1.0, 2.0, 0.0, 3.0]] * N, np.float32)), full=True)),
    ("mse of nothing", lambda T: T.nn.functional.mse_loss(T.empty(0), T.empty(0))),
    ("smooth l1 of nothing", lambda T: T.nn.functional.smooth_l1_loss(T.empty(0, 3), T.empty(0, 3))),
    ("bce of nothing", lambda T: T.nn.functional.binary_cross_entropy(T.empty(0), T.empty(0))),
    ("bce logits of nothing", lambda T: T.nn.functional.binary_cross_entropy_with_logits(T.empty(0), T.empty(0))),
    ("triplet, per sample", lambda T: T.nn.functional.triplet_margin_loss(
        T.tensor(X, requires_grad=True), T.tensor(Y), T.tensor(X[::-1].copy()), reduction="none")),
    ("margin ranking, per sample", lambda T: T.nn.functional.margin_ranking_loss(
        T.tensor(X[:, 0], requires_grad=True), T.tensor(Y[:, 0]), T.tensor(np.array([1.0, -1, 1, -1], np.float32)),
        reduction="none")),
]


@pytest.mark.parametrize("name,fn", QUIET, ids=[q[0] for q in QUIET])
def test_values_graph_names_and_no_numpy_warnings(torch_oracle: Any, name: str, fn: Callable[[Any], Any]) -> None:
    """The same printed value and graph node as PyTorch (``ClampMinBackward0`` for the margin
    losses), and no NumPy RuntimeWarning on the way (``0 * log 0``, the mean of nothing)."""
    def run(T: Any) -> tuple[str, Any]:
        out = fn(T)
        return repr(out.detach()), out.grad_fn.name() if out.grad_fn is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_both(run, torch_oracle)
