"""``kl_divergence(p, q)``: the Kullback-Leibler divergence ``E_p[log p(x) - log q(x)]``.

There is no general formula; each pair of families has its own closed form, so the
pairs live in a table keyed by ``(type(p), type(q))``.  ``@register_kl(P, Q)`` adds
a function to the table.  Lookup follows the class hierarchy: a subclass of
``Normal`` uses the ``(Normal, Normal)`` entry unless it registers its own; among
several matching entries the most specific one (closest in both MROs) wins.

The closed forms (all elementwise over the batch):

* Normal || Normal: ``log(s_q/s_p) + (s_p^2 + (m_p - m_q)^2) / (2 s_q^2) - 1/2``;
* Bernoulli || Bernoulli and Categorical || Categorical: ``sum_k p_k (log p_k - log q_k)``,
  infinite where q gives 0 to an outcome p can produce;
* Uniform || Uniform: ``log(width_q / width_p)``, infinite unless p's interval is inside q's;
* MultivariateNormal || MultivariateNormal:
  ``(tr(S_q^-1 S_p) + Mahalanobis_q(m_p - m_q)^2 - n + log det S_q - log det S_p) / 2``;
* Independent || Independent: the base KLs summed over the reinterpreted dimensions.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from ..ops.activations import softplus
from ..ops.pointwise import where
from ..linalg import solve_triangular
from ..size import broadcast_shapes
from ..tensor import Tensor
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .independent import Independent
from .multivariate_normal import MultivariateNormal, half_log_det, mahalanobis_squared
from .normal import Normal
from .uniform import Uniform
from .utils import sum_rightmost

KL_TABLE: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator: ``@register_kl(Normal, Normal) def kl(p, q): ...`` registers a closed form."""
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn: Callable) -> Callable:
        KL_TABLE[type_p, type_q] = fn
        return fn
    return decorator


def find_kl(type_p: type, type_q: type) -> Callable | None:
    """The registered function for the closest pair of base classes, or None."""
    best, best_rank = None, None
    for (p_cls, q_cls), fn in KL_TABLE.items():
        if issubclass(type_p, p_cls) and issubclass(type_q, q_cls):
            rank = (type_p.__mro__.index(p_cls), type_q.__mro__.index(q_cls))
            if best_rank is None or rank < best_rank:
                best, best_rank = fn, rank
    return best


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, one value per batch element."""
    fn = find_kl(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
                                  f"q type {q.__class__.__name__}")
    return fn(p, q)


INF = math.inf


@register_kl(Normal, Normal)
def kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    # log p - log q for the outcome 1 is softplus(-l_q) - softplus(-l_p), for 0 it is
    # softplus(l_q) - softplus(l_p); an outcome p never produces contributes nothing.
    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    ones = where(p.probs == 0, 0.0, where(q.probs == 0, INF, ones))
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    zeros = where(p.probs == 1, 0.0, where(q.probs == 1, INF, zeros))
    return ones + zeros


@register_kl(Categorical, Categorical)
def kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    terms = p.probs * (p.logits - q.logits)
    terms = where((q.probs == 0).expand_as(terms), INF, terms)
    terms = where((p.probs == 0).expand_as(terms), 0.0, terms)
    return terms.sum(-1)


@register_kl(Uniform, Uniform)
def kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return where((q.low > p.low) | (q.high < p.high), INF, result)


@register_kl(MultivariateNormal, MultivariateNormal)
def kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot "
                         "be computed")
    n = p.event_shape[0]
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    batch = tuple(broadcast_shapes(tuple(Lp.shape[:-2]), tuple(Lq.shape[:-2])))
    # tr(S_q^-1 S_p) = |L_q^-1 L_p|_F^2
    M = solve_triangular(Lq.expand(batch + (n, n)), Lp.expand(batch + (n, n)), upper=False)
    trace = M.pow(2).flatten(-2).sum(-1)
    mahalanobis = mahalanobis_squared(Lq, q.loc - p.loc)
    return half_log_det(Lq) - half_log_det(Lp) + 0.5 * (trace + mahalanobis - n)


@register_kl(Independent, Independent)
def kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
