"""``F.unfold`` (im2col) and ``F.fold`` (col2im): the first step of a convolution, on its own.

``unfold`` cuts every ``kh × kw`` window out of ``(N, C, H, W)`` and lays each one out
as a column: ``(N, C·kh·kw, L)``, one column per window position (``L`` of them).
A convolution is then one matrix product with the flattened filters -- exactly how
``ops/convolution.py`` computes ``conv2d``, whose window helpers are reused here.

``fold`` goes back: every column is added onto the window it describes, so cells
covered by several windows receive the sum.  The two are each other's adjoint (the
transpose of a linear map), so the backward of one is the other, and both
differentiate twice.  (``fold(unfold(x))`` is ``x`` times how many windows cover each cell.)
"""
from __future__ import annotations

from typing import Any, Sequence, Union

from ..autograd.function import Function
from .. import dtypes
from .common import check_kernel_dtype, new_result
from .convolution import _add_windows, _out_size, _pad, _windows, pair
from ..tensor import Tensor

__all__ = ["unfold", "fold"]

IntOrPair = Union[int, Sequence[int]]


def _blocks(size: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple[int, int]:
    """How many window positions fit along H and along W."""
    return tuple(_out_size(s, k, st, p, d) for s, k, st, p, d in zip(size, kernel, stride, padding, dilation))


class Im2Col(Function):
    """``(N, C, H, W)`` → ``(N, C·kh·kw, L)`` (or the same without ``N``)."""

    _backward_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, kernel: tuple = (1, 1), dilation: tuple = (1, 1), padding: tuple = (0, 0),
                stride: tuple = (1, 1)) -> Tensor:
        xp = x._backend.xp
        data = x._data if x.dim() == 4 else x._data[None]
        n, c, h, w = data.shape
        out_hw = _blocks((h, w), kernel, dilation, padding, stride)
        cols = _windows(xp, _pad(xp, data, padding), kernel, stride, dilation, out_hw)
        cols = xp.ascontiguousarray(cols).reshape(n, c * kernel[0] * kernel[1], out_hw[0] * out_hw[1])
        ctx.args, ctx.size = (kernel, dilation, padding, stride), (h, w)
        return new_result(cols if x.dim() == 4 else cols[0], x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        kernel, dilation, padding, stride = ctx.args
        return Col2Im.apply(grad, output_size=ctx.size, kernel=kernel, dilation=dilation, padding=padding,
                            stride=stride), None, None, None, None


class Col2Im(Function):
    """``(N, C·kh·kw, L)`` → ``(N, C, H, W)``: each column added onto its window."""

    _backward_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols: Tensor, output_size: tuple = (1, 1), kernel: tuple = (1, 1), dilation: tuple = (1, 1),
                padding: tuple = (0, 0), stride: tuple = (1, 1)) -> Tensor:
        xp = cols._backend.xp
        data = cols._data if cols.dim() == 3 else cols._data[None]
        n, ckk = data.shape[:2]
        c = ckk // (kernel[0] * kernel[1])
        out_hw = _blocks(output_size, kernel, dilation, padding, stride)
        (h, w), (ph, pw) = output_size, padding
        windows = data.reshape(n, c, kernel[0], kernel[1], *out_hw)
        full = _add_windows(xp, windows, (n, c, h + 2 * ph, w + 2 * pw), kernel, stride, dilation)
        out = xp.ascontiguousarray(full[:, :, ph:ph + h, pw:pw + w])
        ctx.args = dict(kernel=kernel, dilation=dilation, padding=padding, stride=stride)
        return new_result(out if cols.dim() == 3 else out[0], cols)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return Im2Col.apply(grad, **ctx.args), None, None, None, None, None


def _check_dtype(kernel: str, input: Tensor) -> None:
    """PyTorch's im2col/col2im take floats, complex numbers and bools, not integers."""
    if not input.is_complex() and input.dtype is not dtypes.bool:
        check_kernel_dtype(kernel, input)


def _pair_arg(value: IntOrPair, name: str) -> tuple[int, int]:
    """``3`` → ``(3, 3)``; a pair stays; another length is PyTorch's RuntimeError."""
    if isinstance(value, (tuple, list)) and len(value) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
    return pair(value)


def _window_args(kernel_size: IntOrPair, dilation: IntOrPair, padding: IntOrPair,
                 stride: IntOrPair) -> tuple[tuple, tuple, tuple, tuple]:
    """The four window options as pairs, with PyTorch's checks in its order (a stride of 0 would
    divide by zero here, a negative padding index from the end)."""
    kernel, dilation = _pair_arg(kernel_size, "kernel_size"), _pair_arg(dilation, "dilation")
    padding, stride = _pair_arg(padding, "padding"), _pair_arg(stride, "stride")
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: "
                           f"{padding[1]}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")
    return kernel, dilation, padding, stride


def unfold(input: Tensor, kernel_size: IntOrPair, dilation: IntOrPair = 1, padding: IntOrPair = 0,
           stride: IntOrPair = 1) -> Tensor:
    """Every sliding ``kernel_size`` window of ``(N, C, H, W)`` as a column of ``(N, C·kh·kw, L)``."""
    kernel, dilation, padding, stride = _window_args(kernel_size, dilation, padding, stride)
    if input.dim() < 3:  # PyTorch reads the size of dimension 2 next (after the options)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.dim(), 1)}, "
                         f"{max(input.dim(), 1) - 1}], but got 2)")
    if input.dim() > 4:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    size = tuple(input.shape[-2:])
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size {size}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, calculated shape of the array of sliding blocks as {blocks}, but "
                           "its components must be at least one.")
    _check_dtype("im2col_out_cpu", input)
    return Im2Col.apply(input, kernel=kernel, dilation=dilation, padding=padding, stride=stride)


def fold(input: Tensor, output_size: IntOrPair, kernel_size: IntOrPair, dilation: IntOrPair = 1,
         padding: IntOrPair = 0, stride: IntOrPair = 1) -> Tensor:
    """Add the columns of ``(N, C·kh·kw, L)`` back onto their windows of an ``output_size`` image."""
    if input.dim() not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    size = _pair_arg(output_size, "output_size")
    kernel, dilation, padding, stride = _window_args(kernel_size, dilation, padding, stride)
    ckk, length = input.shape[-2:]
    if ckk % (kernel[0] * kernel[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={ckk} and kernel_size={kernel}.")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                           f"stride={stride}, calculated shape of the array of sliding blocks as {blocks}, but its "
                           "components must be at least one.")
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                           f"stride={stride}, expected size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={length}.")
    _check_dtype("col2im_out_cpu", input)
    return Col2Im.apply(input, output_size=size, kernel=kernel, dilation=dilation, padding=padding, stride=stride)
