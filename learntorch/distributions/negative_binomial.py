"""The negative binomial distribution: how many successes of Bernoulli(``probs``) trials
come before the ``total_count``-th failure (``total_count`` may be any real >= 0).

It is also a Poisson whose rate is Gamma-distributed (an over-dispersed count: the
variance exceeds the mean), and that is how a draw is made, as torch makes it:
``rate ~ Gamma(total_count, exp(-logits))``, then ``poisson(rate)``.  The gamma draw is
not torch's, so neither are the counts.
"""
from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..ops.activations import logsigmoid
from ..ops.pointwise import where
from ..random_sampling import poisson
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_parameter, logits_to_probs, probs_to_logits, set_count_and_param


class NegativeBinomial(Distribution):
    """``NegativeBinomial(total_count, probs=None, logits=None)``: give exactly one of
    ``probs`` (in [0, 1)) and ``logits``."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        set_count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "NegativeBinomial":
        new = super().expand(batch_shape, _instance)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        new.__dict__.pop("_gamma", None)
        return new

    @lazy_parameter
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_parameter
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        """``total_count * p / (1 - p)``, and ``p / (1 - p)`` is ``exp(logits)``."""
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    @lazy_parameter
    def _gamma(self) -> Gamma:
        # not validated: a total_count of 0 is allowed here, though no Gamma has it
        return Gamma(concentration=self.total_count, rate=(-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            return poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """``log C(k + r - 1, k) + r log(1 - p) + k log p``, with ``P(0) = 1`` when ``r = 0``."""
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        unnormalised = r * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        normaliser = -(r + value).lgamma() + (1.0 + value).lgamma() + r.lgamma()
        return unnormalised - where(r + value == 0.0, 0.0, normaliser)
