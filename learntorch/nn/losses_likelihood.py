"""Negative log-likelihood losses of two distributions: Poisson (counts) and Gaussian (with a
predicted variance).

Minimising ``-log p(target | prediction)`` is maximum-likelihood training: for a Gaussian
of fixed variance it is the MSE loss, for a Poisson it is the right loss for counts (a
prediction of 100 that is off by 10 costs less than a prediction of 1 off by 10).
Both are composed of tensor operations, as in PyTorch, so autograd needs nothing new.
"""
from __future__ import annotations

import math
from typing import Optional, Union

from .. import autocast_state
from ..ops.autocast import float32_precision
from ..autograd import grad_mode
from ..tensor import Tensor
from ._reduction import _get_reduction, _reduce

__all__ = ["poisson_nll_loss", "gaussian_nll_loss"]


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Optional[bool] = None, eps: float = 1e-8, reduce: Optional[bool] = None,
                     reduction: str = "mean") -> Tensor:
    """``-log Poisson(target | λ)`` without the constant ``log(target!)``:

    * ``log_input=True`` (``input`` is ``log λ``): ``exp(input) - target·input``;
    * ``log_input=False`` (``input`` is ``λ``): ``input - target·log(input + eps)``.

    ``full=True`` adds Stirling's approximation of ``log(target!)``,
    ``target·log(target) - target + ½·log(2π·target)``, where ``target > 1`` (for 0 and 1
    ``log(target!)`` is 0)."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(poisson_nll_loss, input, target, log_input, full, size_average, eps, reduce,
                                 reduction)
    if size_average is not None or reduce is not None:
        reduction = _get_reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def _match_var(input: Tensor, var: Tensor) -> Tensor:
    """Shape ``var`` for broadcasting against ``input``, by PyTorch's three rules:

    * same shape: one variance per element (heteroscedastic);
    * one dimension short of ``input`` (the last): one variance per vector, unsqueezed;
    * same number of dimensions, and where the sizes differ those of ``var`` add up to 1
      (PyTorch's test: in effect one size-1 dimension), e.g. ``(N, 1)`` against ``(N, D)``:
      broadcast as it is."""
    in_shape, var_shape = tuple(input.shape), tuple(var.shape)
    if var_shape == in_shape:
        return var
    if in_shape[:-1] == var_shape:
        return var.unsqueeze(-1)
    if input.ndim == var.ndim and sum(v for i, v in zip(in_shape, var_shape) if i != v) == 1:
        return var
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Union[Tensor, float], full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """``-log N(target | input, var)`` without (or with ``full=True``) its constant:

    ``½·(log(max(var, eps)) + (input - target)² / max(var, eps))  [+ ½·log(2π)]``

    The clamp at ``eps`` keeps ``log`` and the division finite; it is applied without
    recording it, so the gradient reaches ``var`` as if there were no clamp (as PyTorch)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.new_ones(input.shape)
    elif not isinstance(var, Tensor):
        raise TypeError(f"any() received an invalid combination of arguments - got ({type(var < 0).__name__}), "
                        "but expected (Tensor input)")
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = _match_var(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
