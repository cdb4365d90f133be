"""The Weibull distribution: lifetimes whose failure rate grows (``concentration > 1``)
or shrinks (``< 1``) with age; ``concentration = 1`` is the Exponential.

Built as torch builds it: ``scale * E^(1 / concentration)`` for a standard
exponential ``E``, so it is reparameterised and its density comes from the
transforms' Jacobians.
"""
from __future__ import annotations

from typing import Any

from ..creation import ones_like
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .exponential import Exponential
from .gumbel import EULER_GAMMA
from .transformed import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import as_size, broadcast_all


class Weibull(TransformedDistribution):
    """``Weibull(scale, concentration)``, both > 0: ``P(X > x) = exp(-(x / scale)^concentration)``."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(ones_like(self.scale), validate_args=validate_args)
        super().__init__(base, self._transforms(), validate_args=validate_args)

    def _transforms(self) -> list:
        return [PowerTransform(exponent=self.concentration_reciprocal), AffineTransform(loc=0, scale=self.scale)]

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Weibull":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        shape = tuple(as_size(batch_shape))
        new.scale = self.scale.expand(shape)
        new.concentration = self.concentration.expand(shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        new.base_dist = self.base_dist.expand(shape)
        new.transforms = new._transforms()
        Distribution.__init__(new, new.base_dist.batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Tensor:
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self) -> Tensor:
        r = self.concentration_reciprocal
        return EULER_GAMMA * (1 - r) + (self.scale * r).log() + 1
