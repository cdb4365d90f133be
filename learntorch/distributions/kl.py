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
* Independent || Independent: the base KLs summed over the reinterpreted dimensions;
* Gamma, Beta, Dirichlet (each with its own kind): differences of ``lgamma`` terms plus
  ``(a_p - a_q) * digamma(a_p)`` terms, since ``E_p[log x] = digamma(a_p) - ...``;
* Poisson, Binomial, Geometric, Exponential, Laplace, Gumbel, Cauchy, HalfNormal, Pareto (with
  their own kind), Exponential || Gamma and Gamma || Exponential: torch's closed forms;
* TransformedDistribution || TransformedDistribution with the same transforms: the
  bases' KL (an invertible map changes both densities by the same Jacobian).
"""
from __future__ import annotations

import math
from typing import Any, Callable

from ..ops.activations import softplus
from ..ops.arrange import erf
from ..ops.pointwise import where
from ..ops.pointwise_extra import lgamma
from ..linalg import solve_triangular
from ..size import broadcast_shapes
from ..tensor import Tensor
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical, OneHotCategorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import EULER_GAMMA, Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, half_log_det, mahalanobis_squared
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .transformed import TransformedDistribution
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
@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)  # both keep the full Cholesky factor
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
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


@register_kl(TransformedDistribution, TransformedDistribution)
def kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Gamma, Gamma)
def kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    p1, p0, q1, q0 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    p_sum, q_sum = p1 + p0, q1 + q0
    t1 = q1.lgamma() + q0.lgamma() + p_sum.lgamma()
    t2 = p1.lgamma() + p0.lgamma() + q_sum.lgamma()
    t3 = (p1 - q1) * p1.digamma() + (p0 - q0) * p0.digamma()
    return t1 - t2 + t3 + (q_sum - p_sum) * p_sum.digamma()


@register_kl(Dirichlet, Dirichlet)
def kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    p_sum, q_sum = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = p_sum.lgamma() - q_sum.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    # E_p[log x_k] = digamma(a_k) - digamma(sum a)
    expected_log = p.concentration.digamma() - p_sum.digamma().unsqueeze(-1)
    return t1 - t2 + ((p.concentration - q.concentration) * expected_log).sum(-1)


@register_kl(Poisson, Poisson)
def kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    # p can reach counts q cannot
    return where(p.total_count > q.total_count, INF, kl)


@register_kl(Geometric, Geometric)
def kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Exponential, Exponential)
def kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Exponential, Gamma)
def kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    return (-q.concentration * ratio.log() + ratio + lgamma(q.concentration)
            + q.concentration * EULER_GAMMA - (1 + EULER_GAMMA))


@register_kl(Gamma, Exponential)
def kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Laplace, Laplace)
def kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * (-loc_abs_diff / p.scale).exp() - 1


@register_kl(Gumbel, Gumbel)
def kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    return t1 + ct1 * EULER_GAMMA + t3 - (1 + EULER_GAMMA)


@register_kl(Cauchy, Cauchy)
def kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - (4 * p.scale * q.scale).log()


@register_kl(HalfNormal, HalfNormal)
def kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    # p puts mass below q's minimum, where q has none
    return where(p.scale < q.scale, INF, result)


@register_kl(OneHotCategorical, OneHotCategorical)
def kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    # the same law as the Categorical it wraps, only the outcomes are spelled differently
    return kl_categorical_categorical(p._categorical, q._categorical)


# ----------------------------------------------------------------------------- mixed pairs
# KL(p || Normal(m, s)) only needs E_p[(x - m)^2] = Var_p + (E_p x - m)^2:
#     KL = -H(p) + log s + log(2 pi) / 2 + E_p[(x - m)^2] / (2 s^2)
def _kl_to_normal(p: Distribution, q: Normal, second_moment: Tensor) -> Tensor:
    return (-p.entropy() + q.scale.log() + 0.5 * math.log(2 * math.pi)
            + second_moment / (2 * q.scale.pow(2)))


@register_kl(Uniform, Normal)
def kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    return _kl_to_normal(p, q, width.pow(2) / 12 + ((p.high + p.low) / 2 - q.loc).pow(2))


@register_kl(Exponential, Normal)
def kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    return _kl_to_normal(p, q, p.rate.pow(-2) + (p.rate.reciprocal() - q.loc).pow(2))


@register_kl(Laplace, Normal)
def kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    return _kl_to_normal(p, q, 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2))


@register_kl(Normal, Laplace)
def kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    # E|x - m| for x ~ Normal(mu, sigma) is the mean of a folded normal
    shift = p.loc - q.loc
    abs_moment = (p.scale * math.sqrt(2 / math.pi) * (-0.5 * (shift / p.scale).pow(2)).exp()
                  + shift * erf(shift / (p.scale * math.sqrt(2))))
    return -p.entropy() + (2 * q.scale).log() + abs_moment / q.scale


@register_kl(Beta, Uniform)
def kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    # infinite unless [low, high] covers all of [0, 1]
    result = -p.entropy() + (q.high - q.low).log()
    return where((q.low > 0) | (q.high < 1), INF, result)


def _infinite_like(p: Distribution, q: Distribution) -> Tensor:
    """p puts mass where q has none (a real-line p against a bounded or positive q); shaped
    like p alone, as torch's is."""
    return p.mean.new_full(tuple(p.batch_shape), INF)


for _p in (Normal, Laplace):
    for _q in (Beta, Exponential, Gamma, Pareto, Uniform):
        register_kl(_p, _q)(_infinite_like)
