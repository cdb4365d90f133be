"""The beta distribution on [0, 1]: a random probability (the two-coordinate Dirichlet).

``Beta(a, b)`` has density proportional to ``x^(a-1) (1-x)^(b-1)``.  As in torch, it
*is* a ``Dirichlet([a, b])`` read through its first coordinate: sampling, the density
and the entropy all come from that Dirichlet, so the two can never disagree.
"""
from __future__ import annotations

from typing import Any

from .. import dtypes
from ..creation import tensor
from ..ops.arrange import stack
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .utils import as_size, broadcast_all, is_number


class Beta(Distribution):
    """``Beta(concentration1, concentration0)``: ``concentration1`` (alpha) pulls the mass
    towards 1, ``concentration0`` (beta) towards 0."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        if is_number(concentration1) and is_number(concentration0):
            pair = tensor([float(concentration1), float(concentration0)], dtype=dtypes.get_default_dtype())
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            pair = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Beta":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, as_size(batch_shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()
