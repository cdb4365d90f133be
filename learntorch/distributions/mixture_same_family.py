"""``MixtureSameFamily``: a mixture of ``k`` distributions of one family (a Gaussian
mixture is the common case), weighted by a Categorical.

The components live in one batched distribution whose *rightmost batch dimension* is
the component index ``k``.  Then everything is a reduction over that dimension:

* ``log_prob(x) = logsumexp_k(log w_k + log p_k(x))`` (stable, no ``exp`` of small numbers);
* ``mean = sum_k w_k mean_k``; the variance by the law of total variance,
  ``E[Var(X|k)] + Var(E[X|k])``;
* a draw picks ``k`` from the Categorical, draws every component, and gathers the
  picked one (torch's order of draws, so under the same seed the samples are torch's
  wherever the components' are).  No ``rsample``: the choice of ``k`` is discrete.
"""
from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import as_size


class MixtureSameFamily(Distribution):
    """``MixtureSameFamily(mixture_distribution, component_distribution)``: a Categorical
    over ``k`` and a distribution with batch shape ``(..., k)``."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for m, c in zip(reversed(tuple(mixture_batch)), reversed(tuple(component_batch))):
            if m != 1 and c != 1 and m != c:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible with "
                                 f"`component_distribution.batch_shape`({component_batch})")
        k_mixture = mixture_distribution.logits.shape[-1]
        k_component = component_distribution.batch_shape[-1]
        if k_mixture != k_component:
            raise ValueError(f"`mixture_distribution component` ({k_mixture}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_component})")
        self._num_component = k_mixture
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MixtureSameFamily":
        batch_shape = as_size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new._component_distribution = self._component_distribution.expand(tuple(batch_shape) + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self) -> Any:
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _pad(self, x: Tensor) -> Tensor:
        """Put back the component dimension, just left of the event dimensions."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, probs: Tensor) -> Tensor:
        """The weights, shaped to broadcast against the components' ``(..., k, *event)``."""
        batch_ndims = len(self._batch_shape)
        mixture_ndims = len(self._mixture_distribution.batch_shape)
        pad = 0 if mixture_ndims == 1 else batch_ndims - mixture_ndims
        shape = tuple(probs.shape)
        return probs.reshape(shape[:-1] + (1,) * pad + shape[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_of_variances = (probs * self._component_distribution.variance).sum(dim)
        variance_of_means = (probs * (self._component_distribution.mean - self._pad(self.mean)).pow(2.0)).sum(dim)
        return mean_of_variances + variance_of_means

    def cdf(self, x: Tensor) -> Tensor:
        return (self._component_distribution.cdf(self._pad(x)) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))  # (..., k)
        log_weights = self._mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_weights).logsumexp(-1)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        sample_shape = as_size(sample_shape)
        with no_grad():
            picked = self._mixture_distribution.sample(sample_shape)  # (*S, *B)
            drawn = self._component_distribution.sample(sample_shape)  # (*S, *B, k, *E)
            gather_dim = len(sample_shape) + len(self._batch_shape)
            event = tuple(self._event_shape)
            index = picked.reshape(tuple(picked.shape) + (1,) * (len(event) + 1))
            index = index.repeat((1,) * picked.dim() + (1,) + event)
            return drawn.gather(gather_dim, index).squeeze(gather_dim)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self._mixture_distribution},\n  {self._component_distribution})"
