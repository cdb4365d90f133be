"""Distributions of transformed variables: if ``X ~ base`` then ``Y = f(X)``.

Sampling is easy: sample ``X`` and apply ``f``.  The density needs the change of
variables formula: for an invertible, differentiable ``f``,

    log p_Y(y) = log p_X(f^-1(y)) - log |det df/dx|  at x = f^-1(y)

(stretching space thins out the probability).  Each :class:`~.transforms.Transform` supplies
``f``, ``f^-1`` and ``log |det df/dx|``.  Transforms must keep the shape (no
reshapes or stick-breaking), enough for :class:`LogNormal` (``exp`` of a normal), the
families built the same way (``Gumbel``, ``HalfNormal``) and affine flows.  A transform
may act on whole vectors (``AffineTransform(..., event_dim=1)``): its Jacobian is then
already summed over those dims, and the base's rightmost batch dims become event dims.
"""
from __future__ import annotations

from typing import Any, Sequence

from ..autograd.grad_mode import no_grad
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .normal import Normal
from .transforms import AffineTransform, ExpTransform, Transform
from .utils import sum_rightmost


class TransformedDistribution(Distribution):
    """``TransformedDistribution(base_distribution, transforms)``: ``transforms`` applied
    in order to a sample of the base (elementwise transforms only)."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, transforms: Any,
                 validate_args: bool | None = None) -> None:
        self.transforms = _as_transform_list(transforms)
        self.base_dist = base_distribution
        batch_shape, event_shape = _split_shape(base_distribution, self.transforms)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "TransformedDistribution":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.transforms = self.transforms
        # dims this distribution counts as event but the base as batch go along to the base
        base_event_dims = len(self.base_dist.event_shape)
        shape = tuple(batch_shape) + tuple(self._event_shape)
        new.base_dist = self.base_dist.expand(shape[:len(shape) - base_event_dims])
        Distribution.__init__(new, Size(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @constraints.dependent_property
    def support(self) -> Any:
        return self.transforms[-1].codomain if self.transforms else self.base_dist.support

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        """Walk the transforms backwards, subtracting each log-Jacobian."""
        if self._validate_args:
            self._validate_sample(value)
        event_dims = len(self._event_shape)
        total: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            # the Jacobian is already summed over the transform's own event dims
            total = total - sum_rightmost(t.log_abs_det_jacobian(x, y), event_dims - t.codomain.event_dim)
            y = x
        base_log_prob = self.base_dist.log_prob(y)
        return total + sum_rightmost(base_log_prob, event_dims - len(self.base_dist.event_shape))


    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        """A decreasing chain (overall ``sign`` -1) turns the base CDF ``F`` into ``1 - F``."""
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Tensor) -> Tensor:
        """The base CDF at ``f^-1(value)`` (for monotone transforms)."""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value


def _as_transform_list(transforms: Any) -> list[Transform]:
    """One transform or a list of them (torch's ValueErrors for anything else)."""
    if isinstance(transforms, Transform):
        return [transforms]
    if isinstance(transforms, list):
        if not all(isinstance(t, Transform) for t in transforms):
            raise ValueError("transforms must be a Transform or a list of Transforms")
        return list(transforms)
    raise ValueError(f"transforms must be a Transform or list, but was {transforms}")


def _split_shape(base: Distribution, transforms: Sequence[Transform]) -> tuple[Size, Size]:
    """(batch_shape, event_shape): a vector-valued transform (codomain ``event_dim`` 1) on
    an elementwise base makes the base's last batch dim part of each event."""
    shape = tuple(base.batch_shape) + tuple(base.event_shape)
    event_dim = max([len(base.event_shape)] + [t.codomain.event_dim for t in transforms])
    if event_dim > len(shape):
        raise ValueError(f"base_distribution needs at least {event_dim} dimensions, "
                         f"but got shape {Size(shape)}")
    cut = len(shape) - event_dim
    return Size(shape[:cut]), Size(shape[cut:])


class LogNormal(TransformedDistribution):
    """``LogNormal(loc, scale)``: ``exp(X)`` with ``X ~ Normal(loc, scale)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogNormal":
        return super().expand(batch_shape, _instance)

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc


__all__: Sequence[str] = ["AffineTransform", "ExpTransform", "LogNormal", "Transform", "TransformedDistribution"]
