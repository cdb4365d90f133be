"""Batch normalisation: one fused kernel, ``NativeBatchNormBackward0``, as in PyTorch.

The forward normalises each channel with the batch's statistics (training) or
the running ones (evaluation) and updates the running statistics in place.  The
backward is written with tensor operations so that it can be differentiated
again (a gradient penalty through a BatchNorm layer).  ``F.batch_norm``,
``nn.BatchNorm1d/2d`` and ``F.instance_norm`` end here.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from .. import dtypes
from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor import Tensor
from .common import check_same_device, new_result

__all__ = ["BatchNorm", "batch_norm"]


def _verify_batch_size(size: Sequence[int]) -> None:
    size_prods = size[0]
    for s in size[2:]:
        size_prods *= s
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


class BatchNorm(Function):
    """Normalise each channel (dim 1) over the batch (and length) dimensions:
    ``(x - mean) / √(var + eps) · weight + bias``.  In training mode the batch's
    mean and biased variance are used, and the running statistics (if given) move
    towards the batch's mean and *unbiased* variance by ``momentum``."""

    _backward_name = "NativeBatchNormBackward0"
    _none_edges = True  # no weight/bias: still inputs of the node, ``(None, 0)`` as in PyTorch

    @staticmethod
    def forward(ctx, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], running_mean: Any = None,
                running_var: Any = None, training: bool = True, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
        xp = x._backend.xp
        a = x._data
        c = a.shape[1]
        axes = (0,) + tuple(range(2, a.ndim))
        shape = (1, c) + (1,) * (a.ndim - 2)
        if training:
            n = a.size // c
            mean = xp.mean(a, axis=axes)
            centred = a - xp.reshape(mean, shape)
            var = xp.mean(centred * centred, axis=axes)
            if running_mean is not None:
                running_mean._data *= 1 - momentum
                running_mean._data += momentum * xp.astype(mean, running_mean._data.dtype)
                running_mean._version_counter[0] += 1
            if running_var is not None:
                unbiased = var * (n / (n - 1)) if n > 1 else var
                running_var._data *= 1 - momentum
                running_var._data += momentum * xp.astype(unbiased, running_var._data.dtype)
                running_var._version_counter[0] += 1
        else:
            mean = xp.astype(running_mean._data, a.dtype, copy=True)
            var = xp.astype(running_var._data, a.dtype, copy=True)
            centred = a - xp.reshape(mean, shape)
        invstd = 1.0 / xp.sqrt(var + eps)
        out = centred * xp.reshape(invstd, shape)
        if weight is not None:
            out *= xp.reshape(weight._data, shape)
        if bias is not None:
            out += xp.reshape(bias._data, shape)
        ctx.save_for_backward(x, weight)
        ctx.stats = (mean, invstd)
        ctx.training, ctx.eps, ctx.axes, ctx.shape = training, eps, axes, shape
        return new_result(out, x)

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        x, weight = ctx.saved_tensors
        axes, shape = ctx.axes, ctx.shape
        n = x.numel() // x.shape[1]
        if ctx.training and grad_mode.is_grad_enabled():
            # create_graph: the batch statistics as operations of x, so the second derivative sees them
            mean = x.mean(axes, keepdim=True)
            invstd = ((x - mean) ** 2).mean(axes, keepdim=True).add(ctx.eps).rsqrt()
        else:
            mean = new_result(ctx.stats[0], x).view(shape)
            invstd = new_result(ctx.stats[1], x).view(shape)
        xhat = (x - mean) * invstd
        g = grad * weight.view(shape) if weight is not None else grad
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            if ctx.training:
                gx = (g - g.sum(axes, keepdim=True) / n - xhat * (g * xhat).sum(axes, keepdim=True) / n) * invstd
            else:
                gx = g * invstd
        if ctx.needs_input_grad[1]:
            gw = (grad * xhat).sum(axes)
        if ctx.needs_input_grad[2]:
            gb = grad.sum(axes)
        return gx, gw, gb


def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalisation over dim 1 of an (N, C) or (N, C, L …) input (see :class:`nn.BatchNorm1d`).

    ``training=True``: normalise with the batch's statistics and update the running
    ones in place; ``False``: normalise with the running statistics."""
    check_same_device(*(t for t in (input, running_mean, running_var, weight, bias) if t is not None))
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if input.numel() == 0:  # PyTorch returns before any other check: a copy, times weight[0], plus bias[0]
        out = input.clone()
        out = out * weight[0] if weight is not None else out
        return out + bias[0] if bias is not None else out
    if input.ndim < 2:
        raise RuntimeError(f"batch_norm: expected an input with at least 2 dimensions (N, C, ...), "
                           f"got {input.ndim}D")
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{dtypes.type_name(input.dtype)}'")
    return BatchNorm.apply(input, weight, bias, running_mean=running_mean, running_var=running_var,
                           training=training, momentum=0.0 if momentum is None else momentum, eps=eps)
