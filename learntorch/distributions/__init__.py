"""``torch.distributions``: probability distributions with sampling, densities and KL.

A core subset of PyTorch's package, written for reading (one family per module):

* :mod:`.distribution` -- the base class, its shapes (``batch_shape``,
  ``event_shape``, ``sample_shape``) and argument validation;
* :mod:`.normal`, :mod:`.uniform`, :mod:`.laplace`, :mod:`.exponential` -- scalar
  continuous families, all reparameterisable (``rsample``);
* :mod:`.cauchy`, :mod:`.student_t`, :mod:`.pareto`, :mod:`.weibull` -- heavy-tailed or
  lifetime ones, also reparameterisable;
* :mod:`.gamma`, :mod:`.chi2`, :mod:`.beta`, :mod:`.dirichlet` -- the gamma family,
  reparameterised implicitly through :mod:`.standard_gamma`;
* :mod:`.bernoulli`, :mod:`.categorical` -- discrete families (``Categorical``,
  ``OneHotCategorical``), sampled with ``torch.bernoulli`` / ``torch.multinomial``;
* :mod:`.poisson`, :mod:`.binomial`, :mod:`.negative_binomial`, :mod:`.geometric`,
  :mod:`.multinomial` -- counts;
* :mod:`.multivariate_normal`, :mod:`.lowrank_multivariate_normal`, :mod:`.independent` --
  vector-valued ones;
* :mod:`.mixture_same_family` -- mixtures (a Gaussian mixture) over a Categorical;
* :mod:`.relaxed_bernoulli`, :mod:`.relaxed_categorical` -- ``RelaxedBernoulli`` and
  ``RelaxedOneHotCategorical`` (Gumbel-softmax), reparameterisable stand-ins for the discrete ones;
* :mod:`.transforms` -- invertible maps with their Jacobians (exp, affine, sigmoid...);
* :mod:`.transformed` -- ``TransformedDistribution`` and ``LogNormal``; :mod:`.gumbel`
  and :mod:`.half_normal` are built on it;
* :mod:`.kl` -- ``kl_divergence`` and ``register_kl``;
* :mod:`.constraints` -- the sets parameters and samples are checked against.

Most samplers ask the generator for the same numbers, in the same shape and dtype,
as torch's do, so after ``torch.manual_seed(s)`` the samples are torch's.  Not so
for the gamma family (Gamma, Chi2, Beta, Dirichlet, StudentT, NegativeBinomial) and
Binomial: their samplers are not torch's, so their draws have the right law but
other numbers.
"""
from __future__ import annotations

from . import constraints, kl  # noqa: F401
from . import transforms  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical, OneHotCategorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .student_t import StudentT
from .transformed import LogNormal, TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, PowerTransform,
                         SigmoidTransform, SoftmaxTransform, TanhTransform, Transform)
from .uniform import Uniform
from .weibull import Weibull

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
           "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential", "Gamma", "Geometric",
           "Gumbel", "HalfNormal", "Independent", "Laplace", "LogNormal", "LowRankMultivariateNormal",
           "MixtureSameFamily", "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal",
           "OneHotCategorical", "Pareto", "Poisson", "PowerTransform", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "SigmoidTransform", "SoftmaxTransform", "StudentT", "TanhTransform",
           "Transform", "TransformedDistribution", "Uniform", "Weibull", "kl_divergence", "register_kl"]
