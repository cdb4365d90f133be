"""The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``.

Reparameterised through its inverse CDF: torch draws ``u`` uniform on
``(eps - 1, 1)`` (``uniform_`` on a fresh tensor, float epsilon keeping ``u``
off -1) and returns ``loc - scale * sign(u) * log(1 - |u|)``; so do we.
"""
from __future__ import annotations

import math
from typing import Any

from ..creation import empty
from ..size import Size
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, is_number


class Laplace(Distribution):
    """``Laplace(loc, scale)``: a peaked, heavier-tailed cousin of the normal."""

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
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        u = empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * (-z.abs() / self.scale).expm1()

    def icdf(self, value: Tensor) -> Tensor:
        t = value - 0.5
        return self.loc - self.scale * t.sign() * (-2 * t.abs()).log1p()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()
