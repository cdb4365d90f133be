"""``Distribution``: what every probability distribution offers.

Shapes are the part that takes getting used to.  A distribution object may hold
*many* distributions at once:

* ``batch_shape``: how many independent distributions (``Normal(torch.zeros(3),
  1.)`` is three normals, batch_shape ``(3,)``);
* ``event_shape``: the shape of *one* outcome (a 2-D Gaussian's outcome is a
  vector, event_shape ``(2,)``; a scalar normal's is ``()``);
* ``sample(sample_shape)`` draws ``sample_shape`` times from every one of them and
  returns ``sample_shape + batch_shape + event_shape``;
* ``log_prob(x)`` returns one number per outcome: ``batch_shape`` (broadcast with
  ``x``'s leading dimensions), the event dimensions summed away.

``rsample`` is the *reparameterised* sample: the randomness is drawn from a fixed
distribution (a standard normal, a uniform) and then pushed through the parameters
by ordinary tensor operations, so gradients flow from the sample back to ``loc``
and ``scale`` -- the trick that trains a VAE.  ``sample`` is the same draw with no
graph.  Distributions that cannot be written that way (Bernoulli, Categorical) have
``has_rsample = False``; their gradients come from ``log_prob`` instead (REINFORCE).

Validation (on by default, like ``assert``): parameters are checked against
``arg_constraints`` when the object is built, and values against ``support`` in
``log_prob``; a failure is a ``ValueError`` with torch's wording.
"""
from __future__ import annotations

from typing import Any

from .. import warn_always
from ..autograd.grad_mode import no_grad
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .utils import as_size, lazy_parameter


class Distribution:
    """The base class.  Subclasses set ``arg_constraints`` and ``support`` and implement
    ``rsample`` (or ``sample``), ``log_prob``, ``mean``, ``variance``, ``entropy``..."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__  # like assert: on, unless Python runs with -O

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution built from now on
        (checking costs time; switch it off once a model works)."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = Size(), event_shape: Any = Size(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = as_size(batch_shape)
        self._event_shape = as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        """Every given parameter must satisfy its constraint.  Skipped: constraints that
        depend on other parameters, and lazy parameters nobody supplied."""
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warn_always.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                             "`arg_constraints = {}` or initialize the distribution with "
                             "`validate_args=False` to turn off validation.", stacklevel=3)
        for name, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_parameter):
                continue
            value = getattr(self, name)
            if not bool(constraint.check(value).all()):
                raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                 f"{constraint!r}, but found invalid values:\n{value}")

    # ------------------------------------------------------------------ shapes
    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = Size()) -> Size:
        """The shape of a sample: ``sample_shape + batch_shape + event_shape``."""
        return Size(tuple(as_size(sample_shape)) + tuple(self._batch_shape) + tuple(self._event_shape))

    @property
    def arg_constraints(self) -> dict:
        raise NotImplementedError

    @property
    def support(self) -> Any:
        raise NotImplementedError

    # ------------------------------------------------------------------ moments
    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    # ------------------------------------------------------------------ sampling
    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """A draw with no autograd graph: by default the reparameterised draw, detached."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warn_always.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    # ------------------------------------------------------------------ densities
    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def _validate_sample(self, value: Any) -> None:
        """Before scoring ``value``: it must be a tensor, its rightmost dimensions must be
        ``event_shape``, it must broadcast against ``batch_shape``, and it must lie in
        the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = value.size()
        start = len(shape) - len(self._event_shape)
        if shape[start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {shape} vs "
                             f"{self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for got, want in zip(reversed(tuple(shape)), reversed(tuple(expected))):
            if got != 1 and want != 1 and got != want:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {shape} vs "
                                 f"{expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warn_always.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                             "initialize the distribution with `validate_args=False` to turn off validation.",
                             stacklevel=3)
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                             f"to be within the support ({support!r}) of the distribution {self!r}, "
                             f"but found invalid values:\n{value}")

    # ------------------------------------------------------------------ expand, repr
    _expand_names: tuple[str, ...] = ()  # the tensors to broadcast in expand (besides arg_constraints')

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Distribution":
        """The same distribution repeated over a larger batch: every parameter tensor is
        ``expand``-ed (a view, no copy), its trailing event dimensions kept.  No
        re-validation: the parameters were checked when ``self`` was built."""
        batch_shape = as_size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        names = set(self._expand_names)
        try:
            names |= set(self.arg_constraints)
        except NotImplementedError:
            pass
        for key, value in self.__dict__.items():
            if key in names and isinstance(value, Tensor):
                trailing = tuple(value.shape[len(self._batch_shape):])
                value = value.expand(tuple(batch_shape) + trailing)
            new.__dict__.setdefault(key, value)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self) -> str:
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        parts = []
        for name in names:
            value = self.__dict__[name]
            parts.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
