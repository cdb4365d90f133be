"""``Independent``: read some batch dimensions of a distribution as event dimensions.

``Normal(torch.zeros(3), torch.ones(3))`` is three separate scalar normals:
``log_prob`` of a 3-vector returns three numbers.  A diagonal Gaussian over
3-vectors is the *same* three normals seen as one distribution whose
``log_prob`` is their sum: ``Independent(Normal(...), 1)``, batch_shape ``()``,
event_shape ``(3,)``.  VAEs use it for the per-pixel likelihood and the
diagonal posterior.  Nothing is drawn differently: samples are the base's.
"""
from __future__ import annotations

from typing import Any

from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import as_size, sum_rightmost


class Independent(Distribution):
    """``Independent(base_distribution, reinterpreted_batch_ndims)``."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        n_batch = len(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > n_batch:
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             f"actual {reinterpreted_batch_ndims} vs {n_batch}")
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dims = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:len(shape) - event_dims], shape[len(shape) - event_dims:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Independent":
        batch_shape = as_size(batch_shape)
        moved = self._event_shape[:self.reinterpreted_batch_ndims]
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.base_dist = self.base_dist.expand(batch_shape + moved)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> Any:
        base = self.base_dist.support
        return constraints.independent(base, self.reinterpreted_batch_ndims) if self.reinterpreted_batch_ndims \
            else base

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
