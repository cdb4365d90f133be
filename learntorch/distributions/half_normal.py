"""The half-normal distribution: ``|X|`` for ``X ~ Normal(0, scale)``.

A transformed normal (``AbsTransform``), as in torch.  ``|.|`` folds two points onto
one, so the density is the normal's doubled on ``x >= 0`` (and ``-inf`` below),
written out here rather than through a Jacobian.
"""
from __future__ import annotations

import math
from typing import Any

from ..creation import zeros_like
from ..ops.pointwise import where
from ..tensor import Tensor
from . import constraints
from .normal import Normal
from .transformed import TransformedDistribution
from .transforms import AbsTransform


class HalfNormal(TransformedDistribution):
    """``HalfNormal(scale)``, ``scale > 0``: the size of a centred normal's draws."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.scale)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return where(value >= 0, self.base_dist.log_prob(value) + math.log(2), -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)
