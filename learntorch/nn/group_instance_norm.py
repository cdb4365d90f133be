"""``F.group_norm`` and ``F.instance_norm``: normalisation that does not mix samples.

BatchNorm normalises each channel over the batch, so one sample's output depends
on the others in its batch.  These two normalise within each sample:

* **group norm** splits the ``C`` channels into ``num_groups`` groups and
  normalises each group of each sample over its channels and positions (one
  group: LayerNorm over ``(C, *)``; ``C`` groups: instance norm);
* **instance norm** normalises each channel of each sample over its positions
  (style transfer); it may keep running statistics like BatchNorm.

``group_norm`` is one Function (PyTorch's ``NativeGroupNormBackward0``) whose
backward is written with tensor operations, so it has a second derivative.
``instance_norm`` is batch norm on the input seen as one sample with ``N·C``
channels -- the identity PyTorch uses too, which gives the same numbers,
running-statistics updates and ``grad_fn`` (``ViewBackward0``).
"""
from __future__ import annotations

import math
from typing import Optional

from ..autograd import grad_mode
from ..autograd.function import Function
from ..ops.batch_norm import batch_norm
from ..ops.common import check_kernel_dtype, check_same_device, in_layout_of, new_result
from ..tensor import Tensor

__all__ = ["group_norm", "instance_norm"]


class GroupNorm(Function):
    """``(x - mean_g) / √(var_g + eps) · weight_c + bias_c``, statistics per sample and group."""

    _backward_name = "NativeGroupNormBackward0"
    _none_edges = True  # no weight/bias: still inputs of the node, ``(None, 0)`` as in PyTorch

    @staticmethod
    def forward(ctx, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], num_groups: int = 1,
                eps: float = 1e-5) -> Tensor:
        xp = x._backend.xp
        a = x._data
        n, c = a.shape[:2]
        m = c // num_groups * math.prod(a.shape[2:])  # the elements of one group (not -1: n may be 0)
        grouped = xp.reshape(a, (n, num_groups, m))
        if m == 0:  # groups of no elements (an input with no positions): nothing to average, nothing to scale
            mean = xp.zeros((n, num_groups, 1), dtype=a.dtype)
            centred, invstd = grouped, xp.ones((n, num_groups, 1), dtype=a.dtype)
        else:
            mean = xp.mean(grouped, axis=-1, keepdims=True)
            centred = grouped - mean
            invstd = 1.0 / xp.sqrt(xp.mean(centred * centred, axis=-1, keepdims=True) + eps)
        out = xp.reshape(centred * invstd, a.shape)
        channel = (1, c) + (1,) * (a.ndim - 2)
        if weight is not None:
            out = out * xp.reshape(weight._data, channel)
        if bias is not None:
            out = out + xp.reshape(bias._data, channel)
        ctx.save_for_backward(x, weight)
        ctx.stats, ctx.groups, ctx.eps = (mean, invstd), num_groups, eps
        return in_layout_of(out, x, (4, 5))  # (a channels-last feature map stays so, as in PyTorch)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        n, c = x.shape[:2]
        channel = (1, c) + (1,) * (x.ndim - 2)
        reduce_dims = (0,) + tuple(range(2, x.ndim))
        m = c // ctx.groups * math.prod(x.shape[2:])  # (not -1: n may be 0)
        xg = x.reshape(n, ctx.groups, m)
        if grad_mode.is_grad_enabled():  # create_graph: statistics as operations of x
            mean = xg.mean(-1, keepdim=True)
            invstd = ((xg - mean) ** 2).mean(-1, keepdim=True).add(ctx.eps).rsqrt()
        else:
            mean = new_result(ctx.stats[0], x)
            invstd = new_result(ctx.stats[1], x)
        xhat = (xg - mean) * invstd  # (N, G, M)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            g = grad * weight.reshape(channel) if weight is not None else grad
            gg = g.reshape(n, ctx.groups, m)
            gx = ((gg - gg.mean(-1, keepdim=True) - xhat * (gg * xhat).mean(-1, keepdim=True)) * invstd)
            gx = gx.reshape(x.shape)
        if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1]:
            gw = (grad * xhat.reshape(x.shape)).sum(reduce_dims)
        if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
            gb = grad.sum(reduce_dims)
        return gx, gw, gb


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5) -> Tensor:
    """Group normalisation of an ``(N, C, *)`` input (see :class:`nn.GroupNorm`)."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    check_same_device(*(t for t in (input, weight, bias) if t is not None))
    n, c = input.shape[:2]
    if num_groups == 0:  # (PyTorch's Python code divides by it before any check)
        raise ZeroDivisionError("integer division or modulo by zero")
    if num_groups < 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    check_kernel_dtype("GroupNormKernelImpl", input)
    return GroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None, running_var: Optional[Tensor] = None,
                  weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Instance normalisation of an ``(N, C, *)`` input: each channel of each sample over its positions.

    ``use_input_stats=False`` normalises with ``running_mean``/``running_var`` instead;
    with ``use_input_stats=True`` and running statistics given, they move by
    ``momentum`` towards the batch's average of the per-instance statistics."""
    if input.dim() < 2:
        raise ValueError(f"instance_norm expects an (N, C, *) input, got {input.dim()}D input")
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{list(input.shape)}")
    n, c = input.shape[:2]
    flat = input.reshape(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(flat, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with grad_mode.no_grad():  # the running statistics: the mean over the batch of the updated copies
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return out.view(input.shape)
