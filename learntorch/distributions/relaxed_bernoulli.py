"""The relaxed (Concrete) Bernoulli: a reparameterisable stand-in for a coin flip.

A discrete sample has no gradient with respect to its probabilities, so a VAE with
discrete latents cannot use the reparameterisation trick.  The relaxations replace the
0/1 outcome by a point of the interval (or the simplex) that a ``temperature`` pushes
towards the corners: as the temperature goes to 0 the draws become the discrete ones,
yet for any temperature they are a smooth function of uniform noise, hence ``rsample``.

Each is built the way torch builds it: a distribution on the *logits* of the relaxed
value (:class:`LogitRelaxedBernoulli` here, ``ExpRelaxedCategorical`` in
``relaxed_categorical.py``, where the density is simple), pushed through ``sigmoid`` (or
``exp``) by :class:`TransformedDistribution`.
The noise is asked of the generator as torch asks for it (one ``rand`` of the sample's
shape), so the draws follow torch's under the same seed up to rounding.
"""
from __future__ import annotations

from typing import Any

from ..creation import rand
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .bernoulli import check_one_of
from .distribution import Distribution
from .transformed import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs, is_number, lazy_parameter, logits_to_probs, probs_to_logits


class LogitRelaxedBernoulli(Distribution):
    """The logit of a :class:`RelaxedBernoulli` draw: ``(logit(u) + logits) / temperature``
    with ``u`` uniform -- a logistic variable, scaled."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True
    _expand_names = ("temperature",)

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        check_one_of(probs, logits)
        self.temperature = temperature
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        param = self.__dict__["probs" if probs is not None else "logits"]
        super().__init__(Size() if is_number(given) else param.size(), validate_args=validate_args)

    @lazy_parameter
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_parameter
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self.__dict__.get("probs", self.__dict__.get("logits")).size()

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        """The logistic density of ``value * temperature - logits``, times ``temperature``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return _log(self.temperature, diff) + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """``RelaxedBernoulli(temperature, probs=p)``: values in (0, 1), reparameterisable;
    near 0 or 1 for a low temperature, near ``p``'s coin flip in law."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "RelaxedBernoulli":
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


def _log(temperature: Any, like: Tensor) -> Any:
    """``log(temperature)``, for a tensor or a plain number."""
    if isinstance(temperature, Tensor):
        return temperature.log()
    return like.new_tensor(temperature).log()
