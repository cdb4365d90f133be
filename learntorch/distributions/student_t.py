"""Student's t-distribution: a normal whose precision is itself random, which gives it
heavy tails (``df = 1`` is the Cauchy; ``df -> inf`` the normal).

A draw is ``loc + scale * Z / sqrt(V / df)`` with ``Z ~ N(0, 1)`` and ``V ~ Chi2(df)``:
reparameterised in ``loc`` and ``scale`` directly, and in ``df`` through the
chi-squared draw's implicit gradient.
"""
from __future__ import annotations

import math
from typing import Any

from ..ops.pointwise import where
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .normal import standard_normal
from .utils import broadcast_all


class StudentT(Distribution):
    """``StudentT(df, loc=0., scale=1.)``: ``df > 0`` degrees of freedom, ``scale > 0``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "StudentT":
        new = super().expand(batch_shape, _instance)
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        """``loc`` where ``df > 1``; undefined (NaN) where the tails are too heavy for a mean."""
        return where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``scale^2 df / (df - 2)`` for ``df > 2``; infinite for ``1 < df <= 2``; NaN below."""
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return where(df > 2, finite, where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        z = standard_normal(self._extended_shape(sample_shape), self.df)
        v = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * z * (v / self.df).rsqrt()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                    + (0.5 * self.df).lgamma() - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y.pow(2.0) / self.df).log1p() - log_norm

    def entropy(self) -> Tensor:
        df = self.df
        log_beta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
                + 0.5 * df.log() + log_beta)
