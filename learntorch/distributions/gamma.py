"""The gamma distribution: waiting time for ``concentration`` events of a process
with ``rate`` events per unit (an Exponential is the case ``concentration = 1``).

Density ``rate^a x^(a-1) e^(-rate x) / Gamma(a)`` on ``x >= 0``.  It cannot be
written as a smooth function of a fixed-distribution draw, yet ``rsample`` still
carries gradients: :func:`~.standard_gamma.standard_gamma` differentiates the draw
implicitly, through its CDF (see that module).  Scaling by ``1 / rate`` is then
ordinary arithmetic.
"""
from __future__ import annotations

from typing import Any

from ..ops.pointwise_extra import xlogy
from ..ops.special_ops import gammainc
from ..size import Size
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .distribution import Distribution
from .standard_gamma import standard_gamma
from .utils import broadcast_all, is_number, value_like


class Gamma(Distribution):
    """``Gamma(concentration, rate)``, both > 0: mean ``a / rate``, variance ``a / rate^2``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _expand_names = ("concentration", "rate")  # (Chi2 constrains df, not these)

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = Size() if is_number(concentration) and is_number(rate) else self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # a tiny concentration can round a draw to 0, where log_prob is -inf: keep it positive
        value.detach().clamp_(min=finfo(value.dtype).tiny)
        return value

    def log_prob(self, value: Any) -> Tensor:
        value = value_like(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        # xlogy: 0 * log 0 is 0, so Gamma(1, rate) at x = 0 is log(rate), as an Exponential's
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - self.concentration.lgamma())

    def cdf(self, value: Tensor) -> Tensor:
        """The regularised lower incomplete gamma function ``P(a, rate x)``."""
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()
