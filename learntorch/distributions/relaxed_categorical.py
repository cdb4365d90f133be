"""The relaxed one-hot categorical (Gumbel-softmax): a reparameterisable stand-in for a class draw.

Why a relaxation, and how torch builds one, is in ``relaxed_bernoulli.py``: here the
distribution of the relaxed value's logarithm (:class:`ExpRelaxedCategorical`, a point
of the simplex in log space, where the density is simple) is pushed through ``exp`` by
:class:`TransformedDistribution`, with the Gumbel noise made from one ``rand`` of the
sample's shape, as torch makes it.
"""
from __future__ import annotations

from typing import Any

from ..creation import full_like, rand
from ..ops.pointwise_extra import lgamma
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs


class ExpRelaxedCategorical(Distribution):
    """The log of a :class:`RelaxedOneHotCategorical` draw: ``log_softmax((logits + g) / T)``
    with ``g`` standard Gumbel noise."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ExpRelaxedCategorical":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new._categorical = self._categorical.expand(batch_shape)
        new.temperature = self.temperature
        Distribution.__init__(new, Size(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        uniforms = clamp_probs(rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        """The Concrete density (Maddison et al., 2017) of ``exp(value)``, in log space."""
        if self._validate_args:
            self._validate_sample(value)
        k = self._event_shape[0]
        temperature = self.temperature
        if not isinstance(temperature, Tensor):
            temperature = self.logits.new_tensor(temperature)
        log_scale = lgamma(full_like(temperature, float(k))) + (k - 1) * temperature.log()
        logits, value = broadcast_all(self.logits, value)
        score = logits - value * temperature
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """``RelaxedOneHotCategorical(temperature, probs=p)``: points of the simplex (event
    shape ``(K,)``), reparameterisable -- the Gumbel-softmax trick."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "RelaxedOneHotCategorical":
        return super().expand(batch_shape, _instance)

    @property
    def temperature(self) -> Any:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
