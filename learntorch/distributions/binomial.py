"""The binomial distribution: how many of ``total_count`` independent Bernoulli(``probs``)
trials succeed.

``P(k) = C(n, k) p^k (1 - p)^(n - k)``, computed in logs with ``lgamma`` for the
binomial coefficient and from the logits for the rest (``log p`` and ``log(1 - p)``
are both ``-softplus`` of a logit, stable where ``p`` is near 0 or 1).

A draw runs the trials: one uniform per trial, a success when it falls below ``p``
(trials past an element's own ``total_count`` are masked off).  That is exact but
costs ``max(total_count)`` uniforms per draw; torch's ``torch.binomial`` uses a
rejection sampler for large counts, so the numbers differ from torch's.
"""
from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..creation import arange, rand
from ..ops.activations import softplus
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import lazy_parameter, logits_to_probs, probs_to_logits, set_count_and_param


class Binomial(Distribution):
    """``Binomial(total_count=1, probs=None, logits=None)``: give exactly one of ``probs`` and
    ``logits``; ``total_count`` (a whole number >= 0) broadcasts with it."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        set_count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Binomial":
        new = super().expand(batch_shape, _instance)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @lazy_parameter
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_parameter
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            n = self.total_count.expand(shape)
            trials = int(n.max()) if n.numel() else 0
            u = rand(shape + (trials,), dtype=self._param.dtype, device=self._param.device)
            counted = arange(trials, device=u.device) < n.unsqueeze(-1)
            success = u < self.probs.expand(shape).unsqueeze(-1)
            return (success & counted).sum(-1).to(self._param.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        """``log C(n, k) + k log p + (n - k) log(1 - p)``, with ``log p = l - softplus(l)``
        and ``log(1 - p) = -softplus(l)`` for the logit ``l``."""
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_choose = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        return log_choose + value * self.logits - n * softplus(self.logits)

    def _homogeneous_count(self, what: str) -> int:
        count = int(self.total_count.max())
        if not int(self.total_count.min()) == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self) -> Tensor:
        """``-sum_k P(k) log P(k)`` over the whole support (one ``total_count`` for all)."""
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        count = self._homogeneous_count("enumerate_support")
        values = arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
