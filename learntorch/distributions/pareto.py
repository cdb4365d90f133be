"""The Pareto distribution: power-law sizes above a minimum ``scale`` (incomes, file
sizes), with tail index ``alpha``: ``P(X > x) = (scale / x)^alpha`` for ``x >= scale``.

Built as torch builds it: ``scale * exp(E)`` for ``E ~ Exponential(alpha)``, so it is
reparameterised and its density comes from the transforms' Jacobians.  Heavy tails:
the mean is infinite for ``alpha <= 1``, the variance for ``alpha <= 2``.
"""
from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .exponential import Exponential
from .transformed import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all


class Pareto(TransformedDistribution):
    """``Pareto(scale, alpha)``, both > 0; the support is ``[scale, inf)``."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Pareto":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.scale = self.scale.expand(tuple(batch_shape))
        new.alpha = self.alpha.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)  # a = 1 divides by 0: inf
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
