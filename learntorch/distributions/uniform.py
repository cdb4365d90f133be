"""The continuous uniform distribution on ``[low, high)``.

Reparameterised: a draw ``u`` from ``torch.rand`` (uniform on [0, 1), the very
call torch makes) is stretched to ``low + u * (high - low)``.
"""
from __future__ import annotations

from typing import Any

from ..creation import rand
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, is_number


class Uniform(Distribution):
    """``Uniform(low, high)`` with ``low < high`` elementwise."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict:  # type: ignore[override]
        # each bound is constrained by the other one
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        batch_shape = Size() if is_number(low) and is_number(high) else self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return float("nan") * self.high  # every point is a mode: none is singled out

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        u = rand(tuple(self._extended_shape(sample_shape)), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(high - low)`` inside, ``-inf`` outside (``log 0``)."""
        if self._validate_args:
            self._validate_sample(value)
        inside = ((self.low <= value) & (value < self.high)).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
