"""1-D pooling and adaptive max pooling layers: ``nn.MaxPool1d``, ``nn.AvgPool1d``,
``nn.AdaptiveAvgPool1d``, ``nn.AdaptiveMaxPool1d``, ``nn.AdaptiveMaxPool2d``.

Each layer only stores its options and calls the function of ``ops/pooling.py``; the
2-D pooling layers are in ``conv.py``.  The reprs print the options as PyTorch does
(``AvgPool1d`` keeps them as one-element tuples, as PyTorch's does).
"""
from __future__ import annotations

from typing import Any, Optional

from ...tensor import Tensor
from ...ops import pooling
from .module import Module
from .conv import _MaxPoolNd

__all__ = ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"]


def _one_tuple(value: Any) -> tuple:
    """``3`` → ``(3,)``, as PyTorch's ``_single`` stores AvgPool1d's options."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class MaxPool1d(_MaxPoolNd):
    """The maximum of each window along the last dimension of ``(N, C, L)``."""

    def forward(self, input: Tensor) -> Any:
        return pooling.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                  self.ceil_mode, self.return_indices)


class AvgPool1d(Module):
    """The mean of each window along the last dimension of ``(N, C, L)``."""

    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _one_tuple(kernel_size)
        self.stride = _one_tuple(stride if stride is not None else kernel_size)
        self.padding = _one_tuple(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return pooling.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    """The shared part of the adaptive layers: an ``output_size`` and its repr."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """Average the last dimension down to ``output_size`` cells."""

    def forward(self, input: Tensor) -> Tensor:
        return pooling.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    """Max-pool the last dimension down to ``output_size`` cells (``return_indices``: and where
    each maximum was)."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return pooling.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptivePool):
    """Max-pool ``(N, C, H, W)`` down to an ``output_size`` grid (``None`` keeps that side)."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return pooling.adaptive_max_pool2d(input, self.output_size, self.return_indices)
