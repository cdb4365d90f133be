"""1-D pooling and adaptive max pooling: ``F.max_pool1d``, ``F.avg_pool1d``,
``F.adaptive_avg_pool1d``, ``F.adaptive_max_pool1d``, ``F.adaptive_max_pool2d``.

A 1-D pool over ``(N, C, L)`` is a 2-D pool over ``(N, C, 1, L)`` with a ``1 × k``
window, so the 1-D functions add that unit dimension, call the 2-D kernels of
``ops/convolution.py`` and take it away again -- exactly what PyTorch does, which is
why its 1-D results have the grad_fn ``SqueezeBackward1`` (over
``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0`` ...), as here.

Adaptive max pooling is new: output cell ``(i, j)`` is the maximum of rows
``floor(i·H/oh)`` to ``ceil((i+1)·H/oh)`` and the matching columns (the same cells as
``adaptive_avg_pool2d``).  Its result remembers where each maximum was (PyTorch's
``indices``), so the backward is max pooling's: every gradient goes to its winner.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ..autograd.function import Function
from .common import new_result
from .convolution import (MaxPool2DBackward, _scatter_to_winners, adaptive_avg_pool2d, avg_pool2d,
                          max_pool2d)
from .formula import differentiable_backward
from ..tensor import Tensor

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "single"]

IntOrOne = Union[int, Sequence[int]]


def single(value: IntOrOne, name: str = "argument") -> int:
    """``3`` → ``3``; ``(3,)`` → ``3`` (PyTorch's 1-D arguments accept both)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"{name} should contain one int (got {len(value)})")
        return int(value[0])
    return int(value)


def _check_1d_input(input: Tensor, name: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def max_pool1d(input: Tensor, kernel_size: IntOrOne, stride: Optional[IntOrOne] = None, padding: IntOrOne = 0,
               dilation: IntOrOne = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum over each window of ``kernel_size`` along the last dimension of ``(N, C, L)``
    (or ``(C, L)``); ``stride`` defaults to the kernel size.  ``indices`` index into ``L``."""
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    k = single(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else single(stride)
    p, d = single(padding), single(dilation)
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if input.shape[-1] + 2 * p - d * (k - 1) - 1 < 0:
        raise RuntimeError("max_pool1d() Invalid computed output size: "
                           f"{(input.shape[-1] + 2 * p - d * (k - 1) - 1) // s + 1}")
    out, indices = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, True)
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out


def avg_pool1d(input: Tensor, kernel_size: IntOrOne, stride: Optional[IntOrOne] = None, padding: IntOrOne = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """The mean over each window of ``kernel_size`` along the last dimension of ``(N, C, L)``."""
    _check_1d_input(input, "avg_pool1d")
    k = single(kernel_size, "kernel_size")
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else single(stride)
    p = single(padding)
    if p > k // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} "
                           "and dilation=1")
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrOne) -> Tensor:
    """Average the last dimension down to ``output_size`` cells, whatever its length."""
    _check_1d_input(input, "adaptive_avg_pool1d")
    size = single(output_size, "adaptive_avg_pool1d() argument 'output_size'")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size: IntOrOne, return_indices: bool = False) -> Any:
    """The maximum of each of ``output_size`` (possibly overlapping) cells of the last dimension."""
    _check_1d_input(input, "adaptive_max_pool1d")
    size = single(output_size, "adaptive_max_pool1d() argument 'output_size'")
    out, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices=True)
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out


def _cells(size: int, n: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive cells: cell ``i`` of ``n`` covers ``[floor(i·size/n), ceil((i+1)·size/n))``."""
    return [(i * size // n, -(-(i + 1) * size // n)) for i in range(n)]


class AdaptiveMaxPool2D(Function):
    """The maximum of each adaptive cell, and the flat index (into ``H·W``) of the winner:
    the first maximum on ties, as PyTorch picks."""

    _backward_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, output_size: tuple = (1, 1)) -> tuple:
        xp = x._backend.xp
        data = x._data if x.dim() == 4 else x._data[None]  # an unbatched (C, H, W) input: a batch of one
        n, c, h, w = data.shape
        oh, ow = output_size
        out = xp.empty((n, c, oh, ow), dtype=data.dtype)
        indices = xp.empty((n, c, oh, ow), dtype="int64")
        for i, (r0, r1) in enumerate(_cells(h, oh)):
            for j, (c0, c1) in enumerate(_cells(w, ow)):
                cell = data[:, :, r0:r1, c0:c1].reshape(n, c, -1)
                arg = xp.argmax(cell, axis=2)
                out[:, :, i, j] = xp.take_along_axis(cell, arg[:, :, None], axis=2)[:, :, 0]
                indices[:, :, i, j] = (r0 + arg // (c1 - c0)) * w + c0 + arg % (c1 - c0)
        ctx.indices, ctx.x_shape, ctx.batched = indices, (n, c, h, w), x.dim() == 4
        if not ctx.batched:
            out, indices = out[0], indices[0]
        idx = new_result(indices, x)
        ctx.mark_non_differentiable(idx)
        return new_result(out, x), idx

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> Tensor:
        if differentiable_backward():
            if ctx.batched:
                return MaxPool2DBackward.apply(grad, ctx.indices, ctx.x_shape)
            return MaxPool2DBackward.apply(grad.unsqueeze(0), ctx.indices, ctx.x_shape).squeeze(0)
        gx = _scatter_to_winners(grad._backend, grad._data, ctx.indices, ctx.x_shape)
        return new_result(gx if ctx.batched else gx[0], grad)


def _adaptive_size(output_size: Any, h: int, w: int) -> tuple[int, int]:
    """``3`` → ``(3, 3)``; ``(3, None)`` keeps the input's width."""
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size, output_size)
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    return (h if size[0] is None else int(size[0])), (w if size[1] is None else int(size[1]))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max-pool ``(N, C, H, W)`` (or ``(C, H, W)``) into a fixed ``output_size`` grid."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    out, indices = AdaptiveMaxPool2D.apply(input, output_size=_adaptive_size(output_size, *input.shape[-2:]))
    return (out, indices) if return_indices else out
