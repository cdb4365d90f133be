"""The geometric distribution: how many failures come before the first success of
Bernoulli(``probs``) trials (so its support starts at 0, unlike ``Tensor.geometric_``,
which counts the trials).

``P(k) = (1 - p)^k p``.  A draw inverts the CDF: ``floor(log u / log(1 - p))`` for a
uniform ``u`` in ``[tiny, 1)`` (the lower end keeps ``log u`` finite), the draw
torch makes, so the samples are torch's under the same seed.
"""
from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..creation import empty, zeros_like
from ..ops.activations import softplus
from ..ops.pointwise import where
from ..size import Size
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, is_number, lazy_parameter, logits_to_probs, probs_to_logits


class Geometric(Distribution):
    """``Geometric(probs=None, logits=None)``: give exactly one; ``probs`` in (0, 1]."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        batch_shape = Size() if is_number(given) else given.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            # the unit interval admits 0, but a coin that never lands heads has no first success
            valid = self.probs > 0
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                                 f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                                 f"invalid values:\n{self.probs.detach()[~valid]}")

    @lazy_parameter
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_parameter
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            u = empty(shape, dtype=self.probs.dtype, device=self.probs.device).uniform_(finfo(self.probs.dtype).tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        """``k log(1 - p) + log p``; a certain success (``p = 1``) at ``k = 0`` scores 0, not NaN."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        """The Bernoulli entropy per trial, ``softplus(l) - l p``, times ``1/p`` trials on average."""
        return (softplus(self.logits) - self.logits * self.probs) / self.probs
