"""``nn.Conv1d``, ``nn.Conv3d`` and the transposed ``nn.ConvTranspose1d``/``2d``/``3d``.

Parameters as in PyTorch: ``weight`` ``(out, in/groups, *k)`` for a convolution,
``(in, out/groups, *k)`` for a transposed one (it runs a convolution backwards,
so the roles swap), and ``bias`` ``(out)``.  Initialisation is PyTorch's
``kaiming_uniform_(a=√5)`` with fan_in = ``weight.size(1)·k`` -- for a transposed
convolution that is ``out/groups·k``, PyTorch's choice -- so the same seed gives
the same weights.  The maths is in ``nn/convolution_variants.py``.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

from ... import creation
from ...tensor import Tensor
from .. import convolution_variants as cv
from ...ops.convolution import ntuple
from .utils import _ntuple
from ..parameter import Parameter
from .conv import Conv2d, check_padding_mode, conv_repr, pad_for_mode
from .module import Module

__all__ = ["Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class _ConvNd(Module):
    """Hyper-parameters, parameters and initialisation shared by these layers."""

    _dims = 1
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 output_padding: Any = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self._tuple(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        check_padding_mode(padding_mode)
        if self.transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.in_channels, self.out_channels = in_channels, out_channels
        # (the steps are kept as given, floats too, and checked by the first call, as in PyTorch)
        steps = _ntuple(self._dims)
        self.kernel_size, self.stride = self._tuple(kernel_size), steps(stride)
        self.padding = padding if isinstance(padding, str) else steps(padding)
        self.dilation, self.output_padding = steps(dilation), steps(output_padding)
        self.groups, self.padding_mode = groups, padding_mode
        shape = ((in_channels, out_channels // groups) if self.transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(creation.empty(*shape, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _tuple(self, value: Any) -> tuple:
        return ntuple(value, self._dims)

    # the same init as Conv2d (PyTorch's _ConvNd): kaiming_uniform_(a=√5), bias U(±1/√fan_in)
    reset_parameters = Conv2d.reset_parameters

    extra_repr = conv_repr


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C, L)`` (or ``(C, L)``) sequences."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Union[int, tuple, str] = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, 0, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            input = pad_for_mode(input, self.padding, self.padding_mode, self.kernel_size, self.dilation)
            return cv.conv1d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return cv.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) volumes: video clips
    (D = time), CT/MRI scans (D = slices).  ``kernel_size=(1, 3, 3)`` is a 2-D filter applied
    to each frame; ``(3, 1, 1)`` mixes neighbouring frames only."""

    _dims = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Union[int, tuple, str] = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, 0, device, dtype)

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            input = pad_for_mode(input, self.padding, self.padding_mode, self.kernel_size, self.dilation)
            return cv.conv3d(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return cv.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} does not support string padding (got {padding!r}): give the "
                             f"amount of padding as numbers")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding, device, dtype)

    def _output_padding(self, input: Tensor, output_size: Optional[Sequence[int]]) -> tuple:
        return cv.conv_transpose_output_padding(tuple(input.shape), output_size, self.stride, self.padding,
                                                self.kernel_size, self.dilation, self.output_padding)

    # F.conv_transpose1d/2d/3d, set by each subclass (a staticmethod: not bound to the layer)
    _function: Callable[..., Tensor]

    def forward(self, input: Tensor, output_size: Optional[Sequence[int]] = None) -> Tensor:
        """``output_size``: which of the sizes a ``stride > 1`` allows (it picks ``output_padding``).
        An input of the wrong rank is left to the function, which raises PyTorch's RuntimeError."""
        op = self._output_padding(input, output_size)
        return self._function(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                              self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution: each input step spreads through the kernel onto a longer output."""

    _dims = 1
    _function = staticmethod(cv.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution: upsampling with a learned kernel (decoders, GAN generators)."""

    _dims = 2
    _function = staticmethod(cv.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution: upsampling volumes or clips (the decoder of a 3-D U-Net)."""

    _dims = 3
    _function = staticmethod(cv.conv_transpose3d)
