"""Pooling layers beyond ``nn.MaxPool2d``: 1-D (``nn.MaxPool1d``, ``nn.AvgPool1d``,
``nn.AdaptiveAvgPool1d``, ``nn.AdaptiveMaxPool1d``), 3-D (``nn.MaxPool3d``, ``nn.AvgPool3d``,
``nn.AdaptiveAvgPool3d``, ``nn.AdaptiveMaxPool3d``), ``nn.AdaptiveMaxPool2d``, un-pooling
(``nn.MaxUnpool1d/2d/3d``) and power-average pooling (``nn.LPPool1d/2d/3d``).

Each layer only stores its options and calls its function (``ops/pooling.py``,
``nn/lp_pool_lrn.py``); the 2-D pooling layers are in ``conv.py``.  The reprs print the
options as PyTorch does: as given (``kernel_size=2``), except where PyTorch's layer turns
them into tuples first (``AvgPool1d``, the ``MaxUnpool`` layers).
"""
from __future__ import annotations

from typing import Any, Optional

from ...tensor import Tensor
from ...ops import pooling
from .. import lp_pool_lrn
from .module import Module
from .conv import _MaxPoolNd

__all__ = ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxPool3d",
           "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "LPPool1d", "LPPool2d", "LPPool3d"]


def _one_tuple(value: Any) -> tuple:
    """``3`` → ``(3,)``, as PyTorch's ``_single`` stores AvgPool1d's options."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _n_tuple(value: Any, n: int) -> tuple:
    """``3`` → ``(3, 3)`` for ``n = 2``: how PyTorch's ``MaxUnpool`` layers store their options."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


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


# ---------------------------------------------------------------------------- 3-D
class MaxPool3d(_MaxPoolNd):
    """The maximum of each ``kernel_size`` box of ``(N, C, D, H, W)`` volumes."""

    def forward(self, input: Tensor) -> Any:
        return pooling.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                  self.ceil_mode, self.return_indices)


class AvgPool3d(Module):
    """The mean of each ``kernel_size`` box of ``(N, C, D, H, W)`` volumes."""

    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Optional[int] = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return pooling.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3d(_AdaptivePool):
    """Average ``(N, C, D, H, W)`` down to an ``output_size`` grid (``1``: global average pooling)."""

    def forward(self, input: Tensor) -> Tensor:
        return pooling.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptivePool):
    """Max-pool ``(N, C, D, H, W)`` down to an ``output_size`` grid (``None`` keeps that side)."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return pooling.adaptive_max_pool3d(input, self.output_size, self.return_indices)


# ---------------------------------------------------------------------------- un-pooling
class _MaxUnpool(Module):
    """Undo a max pooling with its ``indices``: each value back where it was found, zeros
    elsewhere.  Give ``output_size`` to ``forward`` when several input sizes pool to the same size."""

    dims = 2

    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _n_tuple(kernel_size, self.dims)
        self.stride = _n_tuple(stride if stride is not None else kernel_size, self.dims)
        self.padding = _n_tuple(padding, self.dims)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """The partial inverse of ``MaxPool1d(..., return_indices=True)``."""

    dims = 1

    def forward(self, input: Tensor, indices: Tensor, output_size: Optional[Any] = None) -> Tensor:
        return pooling.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpool):
    """The partial inverse of ``MaxPool2d(..., return_indices=True)`` (SegNet's decoder)."""

    def forward(self, input: Tensor, indices: Tensor, output_size: Optional[Any] = None) -> Tensor:
        return pooling.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpool):
    """The partial inverse of ``MaxPool3d(..., return_indices=True)``."""

    dims = 3

    def forward(self, input: Tensor, indices: Tensor, output_size: Optional[Any] = None) -> Tensor:
        return pooling.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


# ---------------------------------------------------------------------------- power-average pooling
class _LPPool(Module):
    """The ``norm_type``-norm of each window, ``(Σ xᵖ)^(1/p)`` (``nn/lp_pool_lrn.py``)."""

    def __init__(self, norm_type: float, kernel_size: Any, stride: Optional[Any] = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """The ``norm_type``-norm of each window of ``kernel_size`` along the last dimension."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool_lrn.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    """The ``norm_type``-norm of each window ``kernel_size`` window of images."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool_lrn.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPool):
    """The ``norm_type``-norm of each window ``kernel_size`` box of volumes."""

    def forward(self, input: Tensor) -> Tensor:
        return lp_pool_lrn.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)
