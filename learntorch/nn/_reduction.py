"""How a loss reduces its per-element values: ``reduction='none' | 'mean' | 'sum'``.

Every loss in ``nn.functional`` (and in its companion files, ``losses_margin.py`` and
``losses_likelihood.py``) first turns its arguments into one of the three strings with
:func:`_get_reduction`, which also accepts the deprecated flags ``size_average`` and
``reduce`` (PyTorch 0.4's API) with PyTorch's deprecation warning.  The helpers live in
their own small file (as PyTorch's ``torch/nn/_reduction.py``) so that every loss file can
import them without importing ``functional`` (which imports the loss files).
"""
from __future__ import annotations

from typing import Any, Optional

from .. import warn_always
from ..tensor import Tensor


def _legacy_get_string(size_average: Optional[bool], reduce: Optional[bool], emit_warning: bool = True) -> str:
    """The old ``size_average`` / ``reduce`` flags as a ``reduction`` string (with PyTorch's warning)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    if emit_warning:
        warn_always.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                         stacklevel=3)
    return ret


def _get_reduction(reduction: str, size_average: Optional[bool] = None, reduce: Optional[bool] = None) -> str:
    """Check ``reduction`` ('none' | 'mean' | 'sum'), translating the deprecated flags."""
    if size_average is not None or reduce is not None:
        return _legacy_get_string(size_average, reduce)
    if reduction == "elementwise_mean":
        warn_always.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                         stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce_array(xp: Any, loss: Any, reduction: str) -> Any:
    if reduction == "none":
        return loss
    total = xp.sum(loss)
    if reduction == "sum":
        return total
    return total / loss.size if loss.size else total * xp.nan  # the mean of nothing: nan, without NumPy's warning


def _scale_grad(grad: Tensor, reduction: str, numel: int) -> Tensor:
    """The upstream gradient as it reaches each element of an un-reduced loss."""
    return grad / numel if reduction == "mean" else grad


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()
