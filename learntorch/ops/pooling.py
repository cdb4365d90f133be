"""The pooling functions beyond ``nn.Conv2d``'s chapter: 1-D pooling (``F.max_pool1d``,
``F.avg_pool1d``, ``F.adaptive_avg_pool1d``, ``F.adaptive_max_pool1d``), 3-D pooling
(``F.max_pool3d``, ``F.avg_pool3d``, ``F.adaptive_avg_pool3d``, ``F.adaptive_max_pool3d``),
``F.adaptive_max_pool2d``, the ``*_with_indices`` forms and un-pooling (``F.max_unpool1d/2d/3d``).

Every pool runs the N-dimensional kernels of ``ops/pooling_nd.py`` (a window of 1, 2 or 3
dimensions is the same loop over its cells); this file reads the arguments (an int or a
tuple per dimension) and picks the kernel.  The 2-D pools of ``nn.Conv2d``'s chapter
(``F.max_pool2d``, ``F.avg_pool2d``, ``F.adaptive_avg_pool2d``) are here too: ``ops/convolution.py``
has an im2col version of them, which these kernels replace (they are faster, and they keep
PyTorch's rules for NaN, for windows that end in the padding, and ``ceil_mode``).

A 1-D pool over ``(N, C, L)`` is a 2-D pool over ``(N, C, 1, L)`` with a ``1 × k``
window, so the 1-D functions add that unit dimension, call the 2-D pool and take it away
again -- exactly what PyTorch does, which is why its 1-D results have the grad_fn
``SqueezeBackward1`` (over ``MaxPool2DWithIndicesBackward0``, ``AvgPool2DBackward0`` ...), as here.

Adaptive max pooling: output cell ``(i, j)`` is the maximum of rows ``floor(i·H/oh)`` to
``ceil((i+1)·H/oh)`` and the matching columns (the same cells as ``adaptive_avg_pool2d``).
Its result remembers where each maximum was (PyTorch's ``indices``), so the backward is
max pooling's: every gradient goes to its winner.  Un-pooling uses those indices the other
way round: each value goes back to where its maximum was found.
"""
from __future__ import annotations

import operator
from typing import Any, Optional, Sequence, Union

from .common import check_kernel_dtype
from .pooling_nd import (adaptive_avg_pool_nd, adaptive_max_pool_nd, avg_pool_nd, max_pool_nd, max_unpool_nd,
                         pool_args, unpool_output_size)
from ..tensor import Tensor

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "single",
           "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
           "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d"]

IntOrOne = Union[int, Sequence[int]]
IntOrPair = Union[int, Sequence[int]]
IntOrTriple = Union[int, Sequence[int]]


def single(value: IntOrOne, name: str = "argument") -> int:
    """``3`` → ``3``; ``(3,)`` → ``3`` (PyTorch's 1-D arguments accept both; a float is a TypeError)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"{name} should contain one int (got {len(value)})")
        return operator.index(value[0])
    return operator.index(value)


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
    # without indices, PyTorch's own 1-D kernel: its checks in its order, then its dtypes (floats only);
    # with them, the 2-D one's checks and dtypes (integers too), in max_pool2d
    if not return_indices:
        if k <= 0:
            raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
        if s <= 0:
            raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
        if p < 0:
            raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
        if p > k // 2:
            raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} "
                               f"and kernel_size={k}")
        if d <= 0:
            raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
        if input.shape[-1] + 2 * p - d * (k - 1) - 1 < 0:
            raise RuntimeError("max_pool1d() Invalid computed output size: "
                               f"{(input.shape[-1] + 2 * p - d * (k - 1) - 1) // s + 1}")
        check_kernel_dtype("max_pool1d_impl", input)
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
    size = single(output_size, "adaptive_avg_pool1d() argument 'output_size'")  # (a float: before the rank)
    _check_1d_input(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size: IntOrOne, return_indices: bool = False) -> Any:
    """The maximum of each of ``output_size`` (possibly overlapping) cells of the last dimension."""
    size = single(output_size, "adaptive_max_pool1d() argument 'output_size'")  # (a float: before the rank)
    _check_1d_input(input, "adaptive_max_pool1d")
    out, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices=True)
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out


# ---------------------------------------------------------------------------- 2-D pooling
def max_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               dilation: IntOrPair = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The maximum over each ``kernel_size`` window of ``(N, C, H, W)`` images (or ``(C, H, W)``);
    ``stride`` defaults to the kernel size, ``indices`` are flat indices into ``H·W``."""
    out, indices = max_pool_nd(input, 2, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def avg_pool2d(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """The mean over each ``kernel_size`` window of ``(N, C, H, W)`` images (zero padding counted
    unless ``count_include_pad=False``; ``divisor_override`` replaces the window's cell count)."""
    return avg_pool_nd(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average into a fixed ``output_size`` grid whatever the input size (``1``: global average
    pooling); ``None`` keeps that side.  Cell ``i`` covers rows ``floor(i·H/out)`` to ``ceil((i+1)·H/out)``."""
    return adaptive_avg_pool_nd(input, 2, output_size)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max-pool ``(N, C, H, W)`` (or ``(C, H, W)``) into a fixed ``output_size`` grid (``None`` keeps that side)."""
    out, indices = adaptive_max_pool_nd(input, 2, output_size)
    return (out, indices) if return_indices else out


# ---------------------------------------------------------------------------- 3-D pooling
def max_pool3d(input: Tensor, kernel_size: IntOrTriple, stride: Optional[IntOrTriple] = None,
               padding: IntOrTriple = 0, dilation: IntOrTriple = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """The maximum over each ``kernel_size`` box of ``(N, C, D, H, W)`` volumes (or ``(C, D, H, W)``);
    ``indices`` are flat indices into ``D·H·W``."""
    out, indices = max_pool_nd(input, 3, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def avg_pool3d(input: Tensor, kernel_size: IntOrTriple, stride: Optional[IntOrTriple] = None,
               padding: IntOrTriple = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """The mean over each ``kernel_size`` box of ``(N, C, D, H, W)`` volumes."""
    return avg_pool_nd(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, D, H, W)`` volumes into a fixed ``output_size`` grid (``None`` keeps that side)."""
    return adaptive_avg_pool_nd(input, 3, output_size)


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max-pool ``(N, C, D, H, W)`` volumes into a fixed ``output_size`` grid."""
    out, indices = adaptive_max_pool_nd(input, 3, output_size)
    return (out, indices) if return_indices else out


# ---------------------------------------------------------------------------- the *_with_indices forms
def max_pool1d_with_indices(input: Tensor, kernel_size: IntOrOne, stride: Optional[IntOrOne] = None,
                            padding: IntOrOne = 0, dilation: IntOrOne = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """``(values, indices)`` whatever ``return_indices`` says (PyTorch keeps the argument, and ignores it)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None,
                            padding: IntOrPair = 0, dilation: IntOrPair = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: IntOrTriple, stride: Optional[IntOrTriple] = None,
                            padding: IntOrTriple = 0, dilation: IntOrTriple = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any, return_indices: bool = False) -> tuple:
    return adaptive_max_pool3d(input, output_size, True)


# ---------------------------------------------------------------------------- un-pooling
def _unpool_options(dims: int, kernel_size: Any, stride: Any, padding: Any) -> tuple:
    kernel = pool_args(kernel_size, dims, f"max_unpool{dims}d: kernel_size must be a single int or a tuple of "
                                          "{words} ints")
    stride_ = kernel if stride is None else pool_args(stride, dims, f"max_unpool{dims}d: stride must be a single "
                                                                    "int or a tuple of {words} ints")
    return kernel, stride_, pool_args(padding, dims, f"max_unpool{dims}d: padding must be a single int or a "
                                                     "tuple of {words} ints")


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: IntOrOne, stride: Optional[IntOrOne] = None,
                 padding: IntOrOne = 0, output_size: Optional[Sequence[int]] = None) -> Tensor:
    """The partial inverse of ``max_pool1d``: each value back at its index, zeros elsewhere.
    As in PyTorch, a 2-D un-pooling of ``(*, L, 1)`` (hence ``SqueezeBackward1``)."""
    kernel, stride_, pad = _unpool_options(1, kernel_size, stride, padding)
    size = unpool_output_size(input, kernel, stride_, pad, output_size)
    return max_unpool_nd(input.unsqueeze(-1), indices.unsqueeze(-1), 2, size + (1,)).squeeze(-1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None,
                 padding: IntOrPair = 0, output_size: Optional[Sequence[int]] = None) -> Tensor:
    """The partial inverse of ``max_pool2d`` (give ``output_size`` when the pooled size was odd)."""
    kernel, stride_, pad = _unpool_options(2, kernel_size, stride, padding)
    return max_unpool_nd(input, indices, 2, unpool_output_size(input, kernel, stride_, pad, output_size))


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: IntOrTriple, stride: Optional[IntOrTriple] = None,
                 padding: IntOrTriple = 0, output_size: Optional[Sequence[int]] = None) -> Tensor:
    """The partial inverse of ``max_pool3d``."""
    kernel, stride_, pad = _unpool_options(3, kernel_size, stride, padding)
    return max_unpool_nd(input, indices, 3, unpool_output_size(input, kernel, stride_, pad, output_size))
