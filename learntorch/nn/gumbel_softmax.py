"""``F.gumbel_softmax``: a differentiable stand-in for drawing one category.

Adding Gumbel noise ``g = -log(E)``, ``E ~ Exp(1)``, to the logits and taking the
argmax draws a category with probability ``softmax(logits)`` (the Gumbel-max trick).
The argmax has no gradient, so the softmax of the noisy logits divided by a
temperature ``tau`` stands in for it: near one-hot for small ``tau``.

``hard=True`` returns the exact one-hot vector in the forward pass but the soft
sample's gradient in the backward pass (the straight-through estimator):
``y_hard - y_soft.detach() + y_soft``.
"""
from __future__ import annotations


from .. import warn_always
from .. import creation
from ..ops.softmax import softmax
from ..tensor import Tensor, contiguous_format

__all__ = ["gumbel_softmax"]


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A (soft or straight-through one-hot) sample from the categorical distribution of ``logits``.

    The noise is drawn as PyTorch draws it (``exponential_()`` on a tensor like ``logits``),
    so the same ``manual_seed`` gives the same sample.  That tensor is row-major whatever the
    layout of ``logits`` (PyTorch asks ``empty_like`` for its legacy contiguous format), so
    the draws go in index order even for transposed logits."""
    if eps != 1e-10:
        warn_always.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -creation.empty_like(logits, memory_format=contiguous_format).exponential_().log()
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
