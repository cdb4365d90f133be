"""``F.pixel_shuffle`` and ``F.pixel_unshuffle``: trade channels for resolution;
``F.channel_shuffle``: interleave the channels of groups.

``pixel_shuffle(x, r)`` turns ``(*, C·r², H, W)`` into ``(*, C, H·r, W·r)``: the ``r²``
channels of a group become the ``r × r`` pixels of one block (sub-pixel convolution,
used to upsample in super-resolution networks).  ``pixel_unshuffle`` is the inverse.

Both only move numbers around -- a reshape, a permutation of axes, a reshape -- so each
one's backward is the other one applied to the gradient.  They are Functions (and not
chains of views) so that ``grad_fn`` prints PyTorch's ``PixelShuffleBackward0``.

``channel_shuffle(x, g)`` (ShuffleNet) reads the ``C`` channels as a ``g × C/g`` table and
transposes it: after a grouped convolution, the next one then sees channels from every
group.  Transposing back is the same shuffle with ``C/g`` groups, so that is its backward.
"""
from __future__ import annotations

import operator
from typing import Any

from ..autograd.function import Function
from .common import new_result
from .resampling import contiguous_copy
from ..tensor import Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]


def _shuffle(xp: Any, x: Any, r: int) -> Any:
    """``(*, C·r·r, H, W)`` → ``(*, C, H·r, W·r)``: channel ``c·r² + i·r + j`` becomes pixel ``(i, j)``
    of each ``r × r`` block."""
    *lead, c, h, w = x.shape
    oc = c // (r * r)
    n = len(lead)
    y = xp.reshape(x, (*lead, oc, r, r, h, w))
    y = xp.permute_dims(y, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))  # (*, C, H, r, W, r)
    return contiguous_copy(xp, xp.reshape(y, (*lead, oc, h * r, w * r)))


def _unshuffle(xp: Any, x: Any, r: int) -> Any:
    """The inverse of :func:`_shuffle`: ``(*, C, H·r, W·r)`` → ``(*, C·r·r, H, W)``."""
    *lead, c, h, w = x.shape
    n = len(lead)
    y = xp.reshape(x, (*lead, c, h // r, r, w // r, r))
    y = xp.permute_dims(y, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))  # (*, C, r, r, H, W)
    return contiguous_copy(xp, xp.reshape(y, (*lead, c * r * r, h // r, w // r)))


class PixelShuffle(Function):
    _backward_name = "PixelShuffleBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, r: int = 1) -> Tensor:
        ctx.r = r
        return new_result(_shuffle(x._backend.xp, x._data, r), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return PixelUnshuffle.apply(grad, r=ctx.r), None


class PixelUnshuffle(Function):
    _backward_name = "PixelUnshuffleBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, r: int = 1) -> Tensor:
        ctx.r = r
        return new_result(_unshuffle(x._backend.xp, x._data, r), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return PixelShuffle.apply(grad, r=ctx.r), None


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C·r², H, W)`` → ``(*, C, H·r, W·r)`` with ``r = upscale_factor``."""
    r = operator.index(upscale_factor)  # (a float is PyTorch's TypeError)
    if input.dim() < 3:
        raise RuntimeError("pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.shape[-3] % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    return PixelShuffle.apply(input, r=r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H·r, W·r)`` → ``(*, C·r², H, W)`` with ``r = downscale_factor``."""
    r = operator.index(downscale_factor)  # (a float is PyTorch's TypeError)
    if input.dim() < 3:
        raise RuntimeError("pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    for name, axis in (("height", -2), ("width", -1)):
        if input.shape[axis] % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({axis})={input.shape[axis]} is not divisible by {r}")
    return PixelUnshuffle.apply(input, r=r)


class ChannelShuffle(Function):
    """``(N, C, *)``: channel ``i·(C/g) + j`` moves to ``j·g + i``."""

    _backward_name = "ChannelShuffleBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, groups: int = 1) -> Tensor:
        xp = x._backend.xp
        n, c, *rest = x.shape
        table = xp.reshape(x._data, (n, groups, c // groups, *rest))
        ctx.groups, ctx.channels = groups, c
        swapped = xp.permute_dims(table, (0, 2, 1) + tuple(range(3, table.ndim)))
        return new_result(contiguous_copy(xp, xp.reshape(swapped, tuple(x.shape))), x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        return ChannelShuffle.apply(grad, groups=ctx.channels // ctx.groups), None


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels (dimension 1) of ``groups`` groups: ``[a1 a2 b1 b2]`` → ``[a1 b1 a2 b2]``."""
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.shape[1] % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {input.shape[1]} channels and "
                           f"{groups} groups.")
    return ChannelShuffle.apply(input, groups=int(groups))
