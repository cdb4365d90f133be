"""``F.lp_pool1d/2d/3d`` and ``F.local_response_norm``: two layers made of average pooling.

Both average a *power* of the input over a window, and both are compositions of smaller
operations in PyTorch too (so the ``grad_fn`` of the result is ``PowBackward0`` or
``DivBackward0``, and the numbers are those of the same steps):

* **LP pooling** is the p-norm of each window, ``(Σ xᵖ)^(1/p)``.  The sum is the window's
  average of ``xᵖ`` times its number of cells.  ``p = 1`` is sum pooling, ``p = ∞`` is max
  pooling (of ``|x|``), ``p = 2`` sits between them.
* **local response normalisation** (AlexNet, 2012) divides each activation by the energy of
  its neighbours *across channels*: ``b_c = a_c / (k + α · mean_{c'} a_{c'}²)^β`` over
  the ``size`` channels around ``c``.  That mean is an average pooling along the channel
  axis, with zeros beyond the first and last channel.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Union

from ..ops import pointwise
from ..ops.padding import pad
from ..ops.pooling import avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d
from ..ops.pooling_nd import pool_args
from ..tensor import Tensor

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d", "local_response_norm"]

Number = Union[int, float]


def _lp_pool(input: Tensor, norm_type: Number, kernel_size: Any, stride: Optional[Any], ceil_mode: bool,
             cells: int, max_pool: Any, avg_pool: Any) -> Tensor:
    """The p-norm of each window: ``(cells · mean(xᵖ))^(1/p)``, or a max pool for ``p = ±∞``."""
    if norm_type == math.inf:
        return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    mean = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    # sign(m)·relu(|m|) is m itself; written this way its gradient is 0 where m is 0 (relu's
    # backward masks), instead of the 1/p-th root's infinite slope at 0 turning into NaN
    return (mean.sign() * pointwise.relu(mean.abs())).mul(cells).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: Number, kernel_size: int, stride: Optional[Any] = None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each window of ``kernel_size`` along the last dimension."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, kernel_size, max_pool1d, avg_pool1d)


def lp_pool2d(input: Tensor, norm_type: Number, kernel_size: Any, stride: Optional[Any] = None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each ``kernel_size`` window of ``(N, C, H, W)`` images."""
    kh, kw = pool_args(kernel_size, 2, "lp_pool2d: kernel_size must be an int or a pair of ints")
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, kh * kw, max_pool2d, avg_pool2d)


def lp_pool3d(input: Tensor, norm_type: Number, kernel_size: Any, stride: Optional[Any] = None,
              ceil_mode: bool = False) -> Tensor:
    """The ``norm_type``-norm of each ``kernel_size`` box of ``(N, C, D, H, W)`` volumes."""
    kd, kh, kw = pool_args(kernel_size, 3, "lp_pool3d: kernel_size must be an int or a tuple of three ints")
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, kd * kh * kw, max_pool3d, avg_pool3d)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Divide each activation of ``(N, C, *)`` by ``(k + α · mean of the squares of the size
    channels around it)^β``: strong channels damp their neighbours (lateral inhibition)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    squares = input.mul(input)
    before, after = size // 2, (size - 1) // 2  # the window of channel c: c - size//2 ... c + (size-1)//2
    if dim == 3:  # (N, C, L): channels as the height of a one-channel image, a (size × 1) window
        padded = pad(squares.unsqueeze(1), (0, 0, before, after))
        mean = avg_pool2d(padded, (size, 1), stride=1).squeeze(1)
    else:  # (N, C, H, W, ...): channels as the depth of a one-channel volume, a (size × 1 × 1) window
        n, c = input.shape[:2]
        volume = squares.view(n, 1, c, input.shape[2], -1)
        padded = pad(volume, (0, 0, 0, 0, before, after))
        mean = avg_pool3d(padded, (size, 1, 1), stride=1).squeeze(1).view(input.shape)
    return input / mean.mul(alpha).add(k).pow(beta)
