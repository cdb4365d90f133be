"""Small helpers shared by the distributions.

* :func:`broadcast_all` turns the parameters a user passes (numbers or tensors)
  into tensors of one common shape, so every formula can be written elementwise;
* :class:`lazy_parameter` computes one parameterisation from the other on first
  use (a Bernoulli given ``probs`` works out its ``logits`` only if asked);
* :func:`sum_rightmost` adds up the last ``n`` dimensions (how an
  ``Independent`` turns per-coordinate log-densities into one per event);
* :func:`probs_to_logits` / :func:`logits_to_probs` and :func:`clamp_probs`
  move between the two ways of giving a discrete distribution.
"""
from __future__ import annotations

import math
from numbers import Number
from typing import Any

from .. import dtypes
from ..creation import tensor
from ..ops.arrange import broadcast_tensors
from ..size import Size
from ..tensor import Tensor
from ..type_info import finfo


def is_number(x: Any) -> bool:
    """A plain Python number (bool excluded only in spirit: torch accepts it too)."""
    return isinstance(x, Number) and not isinstance(x, Tensor)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Numbers become tensors (with the dtype of the first tensor given, else the default
    dtype); then all are broadcast to one shape.  ``Normal(0., torch.ones(3))`` so has
    ``loc`` and ``scale`` both of shape ``(3,)``."""
    if not all(isinstance(v, Tensor) or is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else dtypes.get_default_dtype()
    as_tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    return tuple(broadcast_tensors(*as_tensors))


def as_size(shape: Any) -> Size:
    """``sample_shape`` may come as a Size, a tuple or a list."""
    return shape if isinstance(shape, Size) else Size(tuple(shape))


def sum_rightmost(value: Tensor, n: int) -> Tensor:
    """Sum over the last ``n`` dimensions (``n = 0`` leaves ``value`` as it is)."""
    if n == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - n]) + (-1,)).sum(-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Keep probabilities a hair inside (0, 1) so that their logs stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Binary: the log-odds ``log p - log(1 - p)``; categorical: just ``log p``
    (a categorical's logits are defined only up to an additive constant)."""
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Binary: the sigmoid; categorical: the softmax over the last dimension."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


HALF_LOG_TWO_PI = 0.5 * math.log(2 * math.pi)


class lazy_parameter:
    """A parameter computed from another one the first time it is read, then kept in the
    instance's ``__dict__`` (so it is computed once, and shows in ``repr`` from then on,
    as torch's do).  Validation skips a lazy parameter that was never computed: it was
    not given, and it is valid whenever the one it comes from is."""

    def __init__(self, compute: Any) -> None:
        self.compute = compute
        self.__doc__ = compute.__doc__
        self.name = compute.__name__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.name] = value
        return value


def value_like(value: Any, like: Tensor) -> Tensor:
    """A value to score as a tensor of ``like``'s dtype and device (a number is accepted,
    as torch's ``as_tensor`` accepts it); a tensor passes unchanged."""
    if isinstance(value, Tensor):
        return value if value.dtype == like.dtype else value.to(like.dtype)
    return tensor(value, dtype=like.dtype, device=like.device)


def set_count_and_param(dist: Any, total_count: Any, probs: Any, logits: Any) -> None:
    """A count distribution's parameters (Binomial, NegativeBinomial): ``total_count`` and
    exactly one of ``probs``/``logits``, broadcast together, the count in the parameter's dtype;
    ``dist._param`` is whichever of the two was given (the other is derived lazily)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, given = ("probs", probs) if probs is not None else ("logits", logits)
    count, param = broadcast_all(total_count, given)
    setattr(dist, name, param)
    dist._param = param
    dist.total_count = count.type_as(param)
