"""The Bernoulli distribution: a coin that shows 1 with probability ``probs``.

Give either ``probs`` or ``logits`` (log-odds, ``log p - log(1 - p)``); the other is
worked out on first use.  Working in logits keeps ``log_prob`` exact for
probabilities near 0 or 1:

    log P(x) = x * logits - softplus(logits)

(for x = 1 that is ``log sigmoid(logits)``, for x = 0 ``log(1 - sigmoid(logits))``),
the negative of binary cross-entropy with logits.

No ``rsample``: a 0/1 outcome is not a differentiable function of ``p``.
``sample`` calls ``torch.bernoulli`` on the probabilities expanded to the sample's
shape, the same draw torch makes.
"""
from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..creation import arange, bernoulli
from ..ops.activations import logsigmoid
from ..ops.pointwise import where
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, is_number, lazy_parameter, logits_to_probs, probs_to_logits


def check_one_of(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _bce_with_logits(logits: Tensor, target: Tensor) -> Tensor:
    """``softplus(l) - target * l`` written as torch's binary-cross-entropy kernel writes it,
    ``(1 - target) * l - logsigmoid(l)``, so the rounding near saturated probabilities
    (``-0.`` rather than ``-1.19e-07``) is torch's."""
    return (1 - target) * logits - logsigmoid(logits)


class Bernoulli(Distribution):
    """``Bernoulli(probs=p)`` or ``Bernoulli(logits=l)``; outcomes are 0. or 1. (floats)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        check_one_of(probs, logits)
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        param = self.__dict__["probs" if probs is not None else "logits"]
        super().__init__(Size() if is_number(given) else param.size(), validate_args=validate_args)

    @lazy_parameter
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_parameter
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self.__dict__.get("probs", self.__dict__.get("logits")).size()

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        """1 where p > 1/2, 0 where p < 1/2, NaN at a fair coin (both are modes)."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return where(self.probs == 0.5, float("nan"), mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            # torch reads ``probs`` inside no_grad too: given logits, the probs it caches here carry
            # no graph, so a later ``entropy()`` does not differentiate through them (kept to match)
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self) -> Tensor:
        """``-(p log p + (1-p) log(1-p))``: the cross-entropy of the probabilities with themselves."""
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = arange(2, dtype=self.probs.dtype if "probs" in self.__dict__ else self.logits.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
