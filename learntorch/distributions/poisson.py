"""The Poisson distribution: how many events a process with ``rate`` events per unit
produces in one unit.

``P(k) = rate^k e^(-rate) / k!`` for ``k = 0, 1, ...``.  Counts are integers, so there
is no ``rsample``; ``sample`` calls ``torch.poisson``, which draws the numbers
torch's does under the same seed.
"""
from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..random_sampling import poisson
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, is_number


class Poisson(Distribution):
    """``Poisson(rate)``, ``rate >= 0``: mean and variance both ``rate``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if is_number(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            return poisson(self.rate.expand(tuple(self._extended_shape(sample_shape))))

    def log_prob(self, value: Tensor) -> Tensor:
        """``k log(rate) - rate - log k!`` (``xlogy``: a zero rate gives ``P(0) = 1``)."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()
