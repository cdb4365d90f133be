"""Negative log-likelihood losses: of two distributions, Poisson (counts) and Gaussian (with a
predicted variance), and of a labelling whose alignment is unknown (CTC, ``ops/ctc.py``).

Minimising ``-log p(target | prediction)`` is maximum-likelihood training: for a Gaussian
of fixed variance it is the MSE loss, for a Poisson it is the right loss for counts (a
prediction of 100 that is off by 10 costs less than a prediction of 1 off by 10).
The first two are composed of tensor operations, as in PyTorch, so autograd needs nothing new.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Union

from .. import autocast_state
from ..ops.autocast import float32_precision
from ..ops import pointwise
from ..ops.ctc import CtcLoss
from ..autograd import grad_mode
from ..tensor import Tensor
from ..tensor_arguments import require_tensor
from ._reduction import _get_reduction, _reduce

__all__ = ["poisson_nll_loss", "gaussian_nll_loss", "ctc_loss"]


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
    require_tensor("poisson_nll_loss", "input", input)  # (``target * input`` would take numbers)
    require_tensor("poisson_nll_loss", "target", target, 2)
    if size_average is not None or reduce is not None:
        reduction = _get_reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target.xlogy(target) - target + 0.5 * (2 * math.pi * target).log()  # (xlogy: 0 at 0, no 0·-inf)
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


def _int_list(values: Any) -> list:
    """Lengths as PyTorch accepts them: a tuple/list of ints or an integer tensor (0-d for one sample)."""
    if isinstance(values, Tensor):
        return [int(v) for v in values.reshape(-1).tolist()]
    return [int(v) for v in values]


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """CTC loss of ``log_probs`` (T, N, C), ``log_softmax`` outputs, against ``targets``: padded
    (N, S) or all concatenated (sum of ``target_lengths``,).  ``reduction="mean"`` divides each
    loss by its target length and averages over the batch (PyTorch's definition);
    ``zero_infinity=True`` turns the infinite loss of an impossible alignment (a target longer
    than its input allows) into 0, and its gradient too."""
    if autocast_state.ACTIVE[0]:  # inside torch.autocast: in float32 (ops/autocast.py)
        return float32_precision(ctc_loss, log_probs, targets, input_lengths, target_lengths, blank, reduction,
                                 zero_infinity)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    frames, batch, classes = lp.shape
    in_lens, tg_lens = _int_list(input_lengths), _int_list(target_lengths)
    if len(in_lens) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tg_lens) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    flat = targets.reshape(1, -1) if unbatched else targets
    labels = flat.detach().cpu().numpy().astype("int64")
    if labels.ndim == 1:  # all targets concatenated
        if labels.shape[0] != sum(tg_lens):
            raise RuntimeError(f"Expected tensor to have size {sum(tg_lens)} at dimension 0, but got size "
                               f"{labels.shape[0]} for argument #2 'targets' (while checking arguments for "
                               "ctc_loss_allocate_outputs)")
        starts = [sum(tg_lens[:n]) for n in range(batch)]
        per_sample = [labels[s:s + k] for s, k in zip(starts, tg_lens)]
    else:
        for k in tg_lens:
            if k > labels.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {k} at dimension 1, but got size "
                                   f"{labels.shape[1]} for argument #2 'targets' (while checking arguments for "
                                   "ctc_loss_allocate_outputs)")
        per_sample = [labels[n, :k] for n, k in enumerate(tg_lens)]
    for k in in_lens:
        if k > frames:
            raise RuntimeError(f"Expected input_lengths to have value at most {frames}, but got value {k} (while "
                               "checking arguments for ctc_loss_allocate_outputs)")
    losses = CtcLoss.apply(lp, per_sample, in_lens, tg_lens, blank, zero_infinity)
    if zero_infinity:
        losses = pointwise.where(losses == math.inf, losses.new_zeros(()), losses)
    if reduction == "sum":
        losses = losses.sum()
    elif reduction == "mean":
        lengths = losses.new_tensor(tg_lens).clamp_min(1)
        losses = (losses / lengths).mean()
    return losses.squeeze(0) if unbatched and reduction == "none" else losses
