"""``conv1d`` and the transposed convolutions, on the kernels of ``ops/convolution.py``.

They live in ``nn/`` because they are PyTorch's ``nn.functional`` entry points: argument
checks in PyTorch's words, unbatched inputs; the arithmetic (and ``padding='same'``) is
``ops/convolution.py``'s.

* **conv1d** is conv2d on a one-pixel-high image: ``(N, C, L)`` is computed as
  ``(N, C, 1, L)``.  The same :class:`~learntorch.ops.convolution.Convolution` Function
  takes 3-D tensors and does the reshaping on its arrays, so the result's ``grad_fn``
  is PyTorch's ``ConvolutionBackward0`` and a gradient taken with ``create_graph=True``
  has ``ConvolutionBackwardBackward0`` (a WGAN-GP penalty on a 1-D critic works).

* **conv_transpose** ("deconvolution") runs a convolution backwards: each input
  pixel *spreads* its value through the kernel onto a ``stride``-times larger
  output -- it is exactly the gradient of ``conv`` with respect to its input, and
  that is how :class:`~learntorch.ops.convolution.ConvolutionTranspose` computes it.
  Here we only check the arguments and work out the output size,
  ``(L-1)·stride - 2·padding + dilation·(k-1) + output_padding + 1`` per dimension.

* **conv3d** (videos, medical volumes: ``(N, C, D, H, W)``) and **conv_transpose3d** run on
  the same Functions: their im2col takes one strided slice per kernel offset ``(i, j, l)``
  and works for any number of spatial dimensions.
"""
from __future__ import annotations

import operator
from typing import Optional, Sequence, Union

from .. import autocast_state
from ..ops.autocast import lower_precision
from ..size import Size
from ..tensor import Tensor
from ..ops.convolution import (Convolution, ConvolutionTranspose, check_conv_bias, check_conv_dtypes,
                               check_conv_steps, check_conv_weight, check_kernel_2d, ntuple, padding_from_string,
                               pair)

__all__ = ["conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "single",
           "triple", "conv_transpose_output_padding"]

IntOrSeq = Union[int, Sequence[int]]


def single(value: IntOrSeq) -> int:
    """``3`` or ``(3,)`` → ``3``."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise ValueError(f"expected an int or a 1-tuple, got {value}")
        return operator.index(value[0])
    return operator.index(value)  # (a float is PyTorch's TypeError, which int() would truncate)


def triple(value: IntOrSeq) -> tuple:
    """``3`` → ``(3, 3, 3)``; ``(1, 3, 3)`` stays."""
    return ntuple(value, 3)


def _tuple(value: IntOrSeq, n: int) -> tuple:
    return (single(value),) if n == 1 else pair(value)


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrSeq = 1,
           padding: Union[IntOrSeq, str] = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """1-D convolution of ``input`` ``(N, C, L)`` -- or ``(C, L)`` -- with ``weight`` ``(out, C/groups, k)``."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(conv1d, input, weight, bias, stride, padding, dilation, groups)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
                           f"{list(input.shape)}")
    if input.dim() == 2:
        return conv1d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    if weight.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional weight for 3-dimensional input {list(input.shape)}, but got "
                           f"weight of size {list(weight.shape)} instead")
    stride, dilation = single(stride), single(dilation)
    check_conv_steps((stride,), (dilation,))
    if isinstance(padding, str):
        input, (padding,) = padding_from_string(input, weight, padding, (stride,), (dilation,))
    padding = single(padding)
    check_conv_weight(weight, (padding,), groups)
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    check_conv_bias(weight, bias)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"Input type ({input.dtype}) and weight type ({weight.dtype}) should be the same")
    if input.shape[2] + 2 * padding < dilation * (weight.shape[2] - 1) + 1:
        raise RuntimeError(f"Calculated padded input size per channel: ({input.shape[2] + 2 * padding}). Kernel "
                           f"size: ({dilation * (weight.shape[2] - 1) + 1}). Kernel size can't be greater than "
                           f"actual input size")
    return Convolution.apply(input, weight, bias, stride=(1, stride), padding=(0, padding), dilation=(1, dilation),
                             groups=groups)


def _conv_argument(value: IntOrSeq, name: str) -> tuple:
    """``stride``/``padding``/``dilation`` of a 3-D convolution as 3 ints, or PyTorch's error."""
    if isinstance(value, (tuple, list)) and len(value) not in (1, 3):
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 3 values to match the "
                           f"convolution dimensions, but got {name}={list(value)}")
    return triple(value[0] if isinstance(value, (tuple, list)) and len(value) == 1 else value)


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrSeq = 1,
           padding: Union[IntOrSeq, str] = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """3-D convolution of ``input`` ``(N, C, D, H, W)`` -- or ``(C, D, H, W)`` -- with ``weight``
    ``(out, C/groups, kd, kh, kw)``: a filter that slides through depth (time, slices) as well."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(conv3d, input, weight, bias, stride, padding, dilation, groups)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: "
                           f"{list(input.shape)}")
    if input.dim() == 4:
        return conv3d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    if weight.dim() != 5:
        raise RuntimeError(f"Expected 5-dimensional weight for 5-dimensional input {list(input.shape)}, but got "
                           f"weight of size {list(weight.shape)} instead")
    stride, dilation = _conv_argument(stride, "stride"), _conv_argument(dilation, "dilation")
    check_conv_steps(stride, dilation)
    if isinstance(padding, str):
        input, padding = padding_from_string(input, weight, padding, stride, dilation)
    padding = _conv_argument(padding, "padding")
    check_conv_weight(weight, padding, groups)
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    check_conv_bias(weight, bias)
    check_conv_dtypes(input, weight, bias)
    padded = [size + 2 * p for size, p in zip(input.shape[2:], padding)]
    spans = [d * (k - 1) + 1 for k, d in zip(weight.shape[2:], dilation)]
    if any(size < span for size, span in zip(padded, spans)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than actual "
                           f"input size")
    return Convolution.apply(input, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups)


def _conv_transpose(input: Tensor, weight: Tensor, bias: Optional[Tensor], stride: tuple, padding: tuple,
                    output_padding: tuple, groups: int, dilation: tuple, name: str) -> Tensor:
    n = len(stride)
    check_conv_steps(stride, dilation)
    if input.dim() != n + 2:
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input "
                           f"of size: {list(input.shape)}")
    if weight.dim() != n + 2:
        raise RuntimeError(f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input "
                           f"{list(input.shape)}, but got weight of size {list(weight.shape)} instead")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    c_in = weight.shape[0]
    if input.shape[1] != c_in:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {c_in} channels, but got {input.shape[1]} channels "
                           f"instead")
    if c_in % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size {list(weight.shape)} instead")
    check_conv_bias(weight, bias, transposed=True, groups=groups)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"Input type ({input.dtype}) and weight type ({weight.dtype}) should be the same")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"output_padding={list(output_padding)}, stride={list(stride)}, "
                           f"dilation={list(dilation)}")
    if n == 2:
        check_kernel_2d(weight)
    kernel = tuple(weight.shape[2:])
    spatial = tuple(input.shape[2:])
    out_size = tuple((size - 1) * s - 2 * p + d * (k - 1) + op + 1
                     for size, s, p, d, k, op in zip(spatial, stride, padding, dilation, kernel, output_padding))
    if any(size <= 0 for size in out_size):  # PyTorch computes 1-D as 2-D, and says so: "(1 x L)"
        sizes = (" x ".join(map(str, (1,) * (3 - len(spatial)) + spatial)),
                 " x ".join(map(str, (1,) * (3 - len(spatial)) + out_size)))
        raise RuntimeError(f"Given input size per channel: ({sizes[0]}). Calculated output size per channel: "
                           f"({sizes[1]}). Output size is too small")
    if n == 1:
        stride, padding, dilation = (1,) + stride, (0,) + padding, (1,) + dilation
    return ConvolutionTranspose.apply(input, weight, bias, stride=stride, padding=padding, dilation=dilation,
                                      groups=groups, out_size=out_size)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrSeq = 1,
                     padding: IntOrSeq = 0, output_padding: IntOrSeq = 0, groups: int = 1,
                     dilation: IntOrSeq = 1) -> Tensor:
    """Transposed 1-D convolution of ``(N, C_in, L)`` with ``weight`` ``(C_in, C_out/groups, k)``:
    output length ``(L-1)·stride - 2·padding + dilation·(k-1) + output_padding + 1``."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(conv_transpose1d, input, weight, bias, stride, padding, output_padding, groups,
                               dilation)
    if input.dim() == 2:
        return conv_transpose1d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    return _conv_transpose(input, weight, bias, (single(stride),), (single(padding),), (single(output_padding),),
                           groups, (single(dilation),), "conv_transpose1d")


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrSeq = 1,
                     padding: IntOrSeq = 0, output_padding: IntOrSeq = 0, groups: int = 1,
                     dilation: IntOrSeq = 1) -> Tensor:
    """Transposed 2-D convolution of ``(N, C_in, H, W)`` with ``weight`` ``(C_in, C_out/groups, kh, kw)``."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(conv_transpose2d, input, weight, bias, stride, padding, output_padding, groups,
                               dilation)
    if input.dim() == 3:
        return conv_transpose2d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    return _conv_transpose(input, weight, bias, pair(stride), pair(padding), pair(output_padding), groups,
                           pair(dilation), "conv_transpose2d")


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntOrSeq = 1,
                     padding: IntOrSeq = 0, output_padding: IntOrSeq = 0, groups: int = 1,
                     dilation: IntOrSeq = 1) -> Tensor:
    """Transposed 3-D convolution of ``(N, C_in, D, H, W)`` with ``weight`` ``(C_in, C_out/groups, kd, kh, kw)``:
    the upsampling half of a volumetric U-Net or video decoder."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in its lower precision (ops/autocast.py)
        return lower_precision(conv_transpose3d, input, weight, bias, stride, padding, output_padding, groups,
                               dilation)
    if input.dim() == 4:
        return conv_transpose3d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups,
                                dilation).squeeze(0)
    return _conv_transpose(input, weight, bias, triple(stride), triple(padding), triple(output_padding), groups,
                           triple(dilation), "conv_transpose3d")


def conv_transpose_output_padding(input_size: Sequence[int], output_size: Optional[Sequence[int]],
                                  stride: tuple, padding: tuple, kernel_size: tuple, dilation: tuple,
                                  default: tuple) -> tuple:
    """The ``output_padding`` that makes a transposed convolution produce ``output_size``
    (several output sizes map onto the same input size when ``stride > 1``)."""
    if output_size is None:
        return default
    n = len(stride)
    requested, output_size = output_size, list(output_size)  # (the message shows it as it was given)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"ConvTranspose{n}D: for {len(input_size)}D input, output_size must have {n} or {n + 2} "
                         f"elements (got {len(output_size)})")
    spatial = list(input_size)[-n:]
    smallest = [(spatial[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel_size[i] - 1) + 1
                for i in range(n)]
    largest = [low + s - 1 for low, s in zip(smallest, stride)]
    for i in range(n):
        if not smallest[i] <= output_size[i] <= largest[i]:
            raise ValueError(f"requested an output size of {requested}, but valid sizes range from {smallest} "
                             f"to {largest} (for an input of {Size(spatial)})")
    return tuple(output_size[i] - smallest[i] for i in range(n))
