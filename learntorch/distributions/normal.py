"""The normal (Gaussian) distribution, ``N(loc, scale**2)``.

Its reparameterised sample is the textbook one: draw ``eps ~ N(0, 1)`` and return
``loc + eps * scale``, so the sample is a differentiable function of ``loc`` and
``scale``.  The ``eps`` are drawn exactly as torch draws them -- ``normal_()`` on a
fresh tensor of the sample's shape and the parameters' dtype -- so under the same
``manual_seed`` the samples are the same numbers.
"""
from __future__ import annotations

import math
from typing import Any

from ..autograd.grad_mode import no_grad
from ..creation import empty
from ..random_sampling import normal
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import HALF_LOG_TWO_PI, broadcast_all, is_number


def standard_normal(shape: Size, like: Tensor) -> Tensor:
    """``N(0, 1)`` draws of ``shape`` with ``like``'s dtype and device: one ``normal_``
    over a fresh contiguous tensor, the generator call torch's distributions make."""
    return empty(tuple(shape), dtype=like.dtype, device=like.device).normal_()


class Normal(Distribution):
    """``Normal(loc, scale)``: mean ``loc``, standard deviation ``scale`` (> 0)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = Size() if is_number(loc) and is_number(scale) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        # torch.normal(mean, std) fills with N(0, 1) and scales: the same draws as rsample
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(x - mu)^2 / (2 sigma^2) - log sigma - log sqrt(2 pi)``."""
        if self._validate_args:
            self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - HALF_LOG_TWO_PI

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self) -> Tensor:
        """``1/2 + log(sigma sqrt(2 pi))``: wider normals are more uncertain."""
        return 0.5 + HALF_LOG_TWO_PI + self.scale.log()
