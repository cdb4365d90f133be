"""``nn.InstanceNorm1d`` / ``2d`` / ``3d``: normalise each channel of each sample on its own; and
their lazy twins ``nn.LazyInstanceNorm1d/2d/3d`` (``num_features`` from the first input).

PyTorch's defaults differ from BatchNorm's: ``affine=False`` (no weight or bias)
and ``track_running_stats=False`` (always the input's own statistics).  With
``track_running_stats=True`` the running averages are kept in training and used
in evaluation, exactly as for BatchNorm.  (The lazy layers keep PyTorch's *BatchNorm*
defaults, ``affine=True`` and ``track_running_stats=True``, as PyTorch's do.)
"""
from __future__ import annotations

from typing import Any, Optional

from ... import warn_always
from ...tensor import Tensor
from ..group_instance_norm import instance_norm
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _no_batch_dim = 2  # the rank of an unbatched input

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warn_always.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                             f"warning by not passing in num_features, which is not used because affine=False")
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        return instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                             self.training or not self.track_running_stats,
                             self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of ``(N, C, L)`` (or ``(C, L)``) inputs."""

    _no_batch_dim = 2

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of ``(N, C, H, W)`` (or ``(C, H, W)``) images."""

    _no_batch_dim = 3

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) volumes."""

    _no_batch_dim = 4

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    """``InstanceNorm1d`` with ``num_features`` read from the first input's dimension 1."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    """``InstanceNorm2d`` with ``num_features`` read from the first input's dimension 1."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    """``InstanceNorm3d`` with ``num_features`` read from the first input's dimension 1."""

    cls_to_become = InstanceNorm3d
