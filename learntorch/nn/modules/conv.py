"""``nn.Conv2d``, ``nn.MaxPool2d`` and ``nn.Flatten``: the layers of a small image network.

``Conv2d`` holds ``weight`` ``(out_channels, in_channels/groups, kh, kw)`` and
``bias`` ``(out_channels)``, initialised exactly as ``nn.Linear`` is (PyTorch's
``kaiming_uniform_(a=√5)``, with fan_in = in_channels/groups · kh · kw), so the
same seed gives the same weights.  The maths is in ``ops/convolution.py`` (the pools: ``ops/pooling.py``).
"""
from __future__ import annotations

import math
from typing import Any, Optional, Union

from ... import creation
from ...tensor import Tensor
from ...ops import convolution
from ...ops import padding as padding_ops
from ...ops import pooling
from .. import init
from ..parameter import Parameter
from .utils import _pair
from .module import Module

__all__ = ["Conv2d", "MaxPool2d", "Flatten", "AvgPool2d", "AdaptiveAvgPool2d", "Unflatten"]


class Conv2d(Module):
    """2-D convolution over ``(N, C, H, W)`` (or ``(C, H, W)``) images."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Union[int, tuple, str] = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
        if padding == "same" and any(s != 1 for s in _pair(stride)):  # (at construction, as Conv1d/Conv3d)
            raise ValueError("padding='same' is not supported for strided convolutions")
        check_padding_mode(padding_mode)
        self.in_channels, self.out_channels = in_channels, out_channels
        # (the steps are kept as given, floats too, as PyTorch's _pair keeps them; the first call checks them)
        self.kernel_size, self.stride = convolution.pair(kernel_size), _pair(stride)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.dilation, self.groups, self.padding_mode = _pair(dilation), groups, padding_mode
        self.output_padding, self.transposed = (0, 0), False
        self.weight = Parameter(creation.empty(out_channels, in_channels // groups, *self.kernel_size,
                                               device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))  # U(-1/√fan_in, 1/√fan_in), as PyTorch
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            input = pad_for_mode(input, self.padding, self.padding_mode, self.kernel_size, self.dilation)
            return convolution.conv2d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return convolution.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                                  self.groups)

    def extra_repr(self) -> str:
        return conv_repr(self)


def check_padding_mode(padding_mode: str) -> None:
    valid_modes = {"zeros", "reflect", "replicate", "circular"}
    if padding_mode not in valid_modes:
        raise ValueError(f"padding_mode must be one of {valid_modes}, but got padding_mode='{padding_mode}'")


def pad_for_mode(input: Tensor, padding: Union[tuple, str], mode: str, kernel_size: tuple, dilation: tuple) -> Tensor:
    """The input padded by ``F.pad(mode=...)`` ('reflect', 'replicate', 'circular'), as PyTorch's
    convolution layers do for ``padding_mode`` other than 'zeros'; the convolution then adds none.
    ``padding='same'`` pads ``dilation·(k-1)`` in all, the extra one on the right."""
    amounts: list[int] = []
    for i in reversed(range(len(kernel_size))):  # F.pad lists the last dimension first
        if padding == "same":
            total = dilation[i] * (kernel_size[i] - 1)
            amounts += [total // 2, total - total // 2]
        elif padding == "valid":
            amounts += [0, 0]
        else:
            amounts += [padding[i], padding[i]]  # type: ignore[index]
    return padding_ops.pad(input, amounts, mode=mode)


def conv_repr(layer: Module) -> str:
    """``extra_repr`` of a convolution layer, as PyTorch prints it: only what is not the default."""
    n = len(layer.kernel_size)
    s = f"{layer.in_channels}, {layer.out_channels}, kernel_size={layer.kernel_size}, stride={layer.stride}"
    if layer.padding != (0,) * n:
        s += f", padding={layer.padding}"  # a string prints without quotes: padding=same
    if layer.dilation != (1,) * n:
        s += f", dilation={layer.dilation}"
    if layer.output_padding != (0,) * n:
        s += f", output_padding={layer.output_padding}"
    if layer.groups != 1:
        s += f", groups={layer.groups}"
    if layer.bias is None:
        s += ", bias=False"
    if layer.padding_mode != "zeros":
        s += f", padding_mode={layer.padding_mode}"
    return s


class _MaxPoolNd(Module):
    """The options every max pooling layer keeps (PyTorch's ``_MaxPoolNd``): ``stride``
    defaults to ``kernel_size``, windows side by side."""

    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """The maximum of each window of ``(N, C, H, W)`` images."""

    def forward(self, input: Tensor) -> Any:
        return pooling.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                  self.ceil_mode, self.return_indices)


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)``: by default keep the batch dimension, flatten the rest."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class AvgPool2d(Module):
    """The mean of each window."""

    def __init__(self, kernel_size: Any, stride: Optional[Any] = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Optional[int] = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return pooling.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average down to a fixed ``output_size`` (``(1, 1)``: global average pooling)."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return pooling.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


def _check_unflattened_size(size: Any) -> None:
    """Reject a bad ``unflattened_size`` when the layer is built, as PyTorch does,
    so the mistake shows where the model is defined rather than at the first forward."""
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(size).__name__}")
    for pos, item in enumerate(size):
        if not isinstance(item, int):
            raise TypeError("unflattened_size must be tuple of ints, "
                            f"but found element of type {type(item).__name__} at pos {pos}")


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (the inverse of ``Flatten``)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        _check_unflattened_size(unflattened_size)
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
