"""The categorical distribution: one of ``K`` classes, class ``k`` with probability ``probs[k]``.

The parameters hold the classes in the *last* dimension: ``probs`` of shape
``(B, K)`` is ``B`` distributions over ``K`` classes (batch_shape ``(B,)``).
``probs`` need not add up to 1 (they are divided by their sum) and ``logits`` are
unnormalised log-probabilities (``logsumexp`` is subtracted), so a network's raw
scores can be passed directly: ``Categorical(logits=policy(state))``.

``sample`` is ``torch.multinomial`` with replacement on the probabilities as
``(B, K)``, drawing ``prod(sample_shape)`` per row, then transposed so the sample
dimensions come first -- the generator calls torch makes, hence the same classes
under the same seed.

No ``rsample``; a policy-gradient (REINFORCE) loss uses ``log_prob`` instead:
``-(log_prob(action) * reward)``.
"""
from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..creation import arange, full, multinomial
from ..ops.arrange import broadcast_tensors
from ..size import Size
from ..tensor import Tensor
from ..type_info import finfo
from . import constraints
from .bernoulli import check_one_of
from .distribution import Distribution
from .utils import as_size, lazy_parameter, logits_to_probs, probs_to_logits


class Categorical(Distribution):
    """``Categorical(probs=p)`` or ``Categorical(logits=l)``; outcomes are int64 class indices."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        check_one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            param = self.logits
        self._num_events = param.size()[-1]
        batch_shape = param.size()[:-1] if param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    @lazy_parameter
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @lazy_parameter
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @property
    def param_shape(self) -> Size:
        return self.__dict__.get("probs", self.__dict__.get("logits")).size()

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self) -> Tensor:  # a class index has no meaningful mean
        return full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        sample_shape = as_size(sample_shape)
        probs = self.probs  # computed (and cached) *with* its graph, as torch does: entropy() needs it
        with no_grad():
            rows = probs.reshape(-1, self._num_events)  # one row per distribution
            draws = multinomial(rows, sample_shape.numel(), True).T  # (draws, rows)
            return draws.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        """Pick the log-probability of each class index out of ``logits``."""
        if self._validate_args:
            self._validate_sample(value)
        index, log_p = broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_p.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        """``-sum p log p``; a logit of ``-inf`` (p = 0) is clamped so ``0 * log 0`` is 0."""
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = arange(self._num_events)  # int64 class indices
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class OneHotCategorical(Distribution):
    """A categorical whose outcomes are one-hot vectors (event_shape ``(K,)``) instead of
    indices; a thin wrapper around :class:`Categorical`, which does the work."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "OneHotCategorical":
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, as_size(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def _one_hot(self, index: Tensor) -> Tensor:
        classes = arange(self._categorical._num_events, device=index.device)
        return (index.unsqueeze(-1) == classes).to(self.probs.dtype)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        return self._one_hot(self.probs.argmax(-1))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._event_shape[0]
        values = self._one_hot(arange(n)).view((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + tuple(self._batch_shape) + (n,)) if expand else values
