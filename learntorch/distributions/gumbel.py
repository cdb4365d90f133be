"""The Gumbel distribution: the law of the maximum of many samples (extreme values),
and the noise of the Gumbel-max trick.

Built as torch builds it, by transforming a uniform ``U`` on ``[tiny, 1 - eps)``:
``-log(-log U)`` is a standard Gumbel, then ``loc + scale *`` it.  Written as the
chain ``log, * -1, log, loc - scale *`` of transforms, each with its Jacobian;
the density is also given in closed form (cheaper, and exact in the tails).
"""
from __future__ import annotations

import math
from typing import Any

from ..creation import full_like, ones_like
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .transformed import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, is_number

EULER_GAMMA = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """``Gumbel(loc, scale)``: density ``exp(-(z + e^-z)) / scale`` at ``z = (x - loc) / scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)
        if is_number(loc) and is_number(scale):
            base = Uniform(info.tiny, 1 - info.eps, validate_args=validate_args)
        else:
            base = Uniform(full_like(self.loc, info.tiny), full_like(self.loc, 1 - info.eps),
                           validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gumbel":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.loc = self.loc.expand(tuple(batch_shape))
        new.scale = self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * EULER_GAMMA

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + EULER_GAMMA)
