"""``torch.distributions``: probability distributions with sampling, densities and KL.

A core subset of PyTorch's package, written for reading (one family per module):

* :mod:`.distribution` -- the base class, its shapes (``batch_shape``,
  ``event_shape``, ``sample_shape``) and argument validation;
* :mod:`.normal`, :mod:`.uniform`, :mod:`.laplace`, :mod:`.exponential` -- scalar
  continuous families, all reparameterisable (``rsample``);
* :mod:`.bernoulli`, :mod:`.categorical` -- discrete families (``Categorical``,
  ``OneHotCategorical``), sampled with ``torch.bernoulli`` / ``torch.multinomial``;
* :mod:`.multivariate_normal`, :mod:`.independent` -- vector-valued ones;
* :mod:`.transformed` -- ``TransformedDistribution`` and ``LogNormal``;
* :mod:`.kl` -- ``kl_divergence`` and ``register_kl``;
* :mod:`.constraints` -- the sets parameters and samples are checked against.

Every sampler asks the generator for the same numbers, in the same shape and dtype,
as torch's does, so after ``torch.manual_seed(s)`` the samples are torch's.
Not here: Gamma, Beta, Dirichlet and the families built on them (their
rejection samplers are not reproduced), Poisson, Binomial, and the rest.
"""
from __future__ import annotations

from . import constraints, kl  # noqa: F401
from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical
from .distribution import Distribution
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .transformed import AffineTransform, ExpTransform, LogNormal, Transform, TransformedDistribution
from .uniform import Uniform

__all__ = ["AffineTransform", "Bernoulli", "Categorical", "Distribution", "ExpTransform", "Exponential",
           "Independent", "Laplace", "LogNormal", "MultivariateNormal", "Normal", "OneHotCategorical",
           "Transform", "TransformedDistribution", "Uniform", "kl_divergence", "register_kl"]
