"""The Dirichlet distribution: random probability vectors (points of the simplex).

``Dirichlet(alpha)`` has density proportional to ``prod_k x_k^(alpha_k - 1)``; it is
the conjugate prior of a Categorical.  A draw is a vector of independent
``Gamma(alpha_k, 1)`` draws divided by its sum, so ``rsample`` inherits the gamma
draws' implicit-reparameterisation gradient (torch differentiates the normalised
vector with its own formula; the expected gradient is the same).
"""
from __future__ import annotations

from typing import Any

from ..creation import arange
from ..ops.pointwise import where
from ..ops.pointwise_extra import xlogy
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .standard_gamma import standard_gamma


class Dirichlet(Distribution):
    """``Dirichlet(concentration)``: the last dimension of ``concentration`` (all > 0)
    is the event; the dimensions before it are the batch."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        gammas = standard_gamma(self.concentration.expand(tuple(self._extended_shape(sample_shape))))
        return gammas / gammas.sum(-1, True)

    def log_prob(self, value: Tensor) -> Tensor:
        """``sum_k (a_k - 1) log x_k - log B(a)``, with ``B(a) = prod Gamma(a_k) / Gamma(sum a_k)``."""
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return xlogy(a - 1.0, value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        """``(a - 1) / sum(a - 1)`` over the coordinates with ``a > 1``.  When every ``a_k < 1``
        the density piles up at the corners: torch names a corner (a one-hot vector)."""
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        k = shifted.shape[-1]
        corner = (arange(k, device=mode.device) == mode.argmax(-1, keepdim=True)).to(mode.dtype)
        all_below_one = (self.concentration < 1).all(-1, keepdim=True)
        return where(all_below_one, corner, mode)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        a0 = a.sum(-1, True)
        return a * (a0 - a) / (a0.pow(2) * (a0 + 1))

    def entropy(self) -> Tensor:
        a = self.concentration
        k = a.shape[-1]
        a0 = a.sum(-1)
        return (a.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma()
                - ((a - 1.0) * a.digamma()).sum(-1))
