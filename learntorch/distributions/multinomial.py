"""The multinomial distribution: how many of ``total_count`` independent Categorical draws
land in each class (an outcome is a count vector).

A draw makes the ``total_count`` categorical draws (torch's own calls, so the counts are
torch's under the same seed) and tallies them with ``scatter_add_``.  The density is
``n! / prod_k x_k! * prod_k p_k^x_k``, computed in logs; ``log_prob`` accepts any
``total_count`` (it reads ``n`` off the value), ``sample`` needs the one given.
"""
from __future__ import annotations

from typing import Any

from ..creation import ones_like, tensor, zeros
from ..ops.pointwise import where
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import as_size, broadcast_all


class Multinomial(Distribution):
    """``Multinomial(total_count=1, probs=None, logits=None)``: one shared integer
    ``total_count``; the last dimension of ``probs`` / ``logits`` indexes the classes
    (normalised to sum to 1, like a Categorical's)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Multinomial":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial
        Distribution.__init__(new, as_size(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        sample_shape = as_size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # (total_count, *sample_shape, *batch_shape) -> the draws of one outcome last
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = zeros(tuple(self._extended_shape(sample_shape)), dtype=draws.dtype, device=draws.device)
        counts.scatter_add_(-1, draws, ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self) -> Tensor:
        """``n H(cat) - log n! + sum_k E[log x_k!]``, each count ``x_k`` being Binomial(n, p_k)."""
        n = tensor(self.total_count)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        return n * self._categorical.entropy() - (n + 1).lgamma() + (binomial_probs * weights).sum([0, -1])

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # a class with probability 0 that was never drawn contributes 0 * log 0 = 0
        logits = where((value == 0) & (logits == -float("inf")), 0.0, logits)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
