"""Constraints: the set a parameter or a sample must lie in.

A constraint answers one question, ``check(value)``: a boolean tensor saying, for
each point of ``value``, whether it is inside the set.  ``event_dim`` says how many
rightmost dimensions make up one point (a probability vector of a Categorical is
one point of the simplex, so ``simplex.event_dim == 1`` and ``check`` reduces the
last dimension away).

Distributions use them for validation: ``Normal(0., -1.)`` fails because ``scale``
must satisfy ``positive``.  The reprs (``Real()``, ``GreaterThan(lower_bound=0.0)``)
are those torch prints in its error messages.
"""
from __future__ import annotations

from typing import Any

from ..linalg import cholesky_ex
from ..tensor import Tensor


class Constraint:
    """The base: a set of values.  ``is_discrete``: integer-valued (Bernoulli, Categorical);
    ``event_dim``: how many rightmost dimensions form one point."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters (a Categorical's
    support depends on its number of classes): it cannot be checked on its own."""

    def __init__(self, is_discrete: bool = False, event_dim: int = 0) -> None:
        self.is_discrete = is_discrete
        self.event_dim = event_dim

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    return isinstance(constraint, Dependent)


class dependent_property(property):
    """A ``property`` that also reads as a :class:`Dependent` constraint on the class
    (``Categorical.support`` needs the instance's number of classes)."""

    def __init__(self, fn: Any = None, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        super().__init__(fn)
        self.is_discrete = is_discrete
        self.event_dim = event_dim

    def __call__(self, fn: Any) -> "dependent_property":
        """``@dependent_property(is_discrete=True)``: the decorator form, with options."""
        return dependent_property(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)

    def __repr__(self) -> str:
        return "DependentProperty()"


class Real(Constraint):
    """Any real number; NaN is the one value outside (NaN is the only x with x != x)."""

    def check(self, value: Tensor) -> Tensor:
        return value == value


class Boolean(Constraint):
    """0 or 1 (a Bernoulli's outcomes)."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class OneHot(Constraint):
    """Vectors of zeros with a single one (a OneHotCategorical's outcomes)."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        zeros_or_ones = ((value == 0) | (value == 1)).all(-1)
        return zeros_or_ones & (value.sum(-1) == 1)


class GreaterThan(Constraint):
    """``x > lower_bound`` (``positive`` is ``GreaterThan(0.0)``)."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lower_bound={self.lower_bound})"


class GreaterThanEq(GreaterThan):
    """``x >= lower_bound`` (an Exponential's samples may be 0)."""

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound <= value


class LessThan(Constraint):
    """``x < upper_bound`` (a Uniform's ``low`` must be below its ``high``)."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__}(upper_bound={self.upper_bound})"


class Interval(Constraint):
    """``lower_bound <= x <= upper_bound`` (probabilities live in ``[0, 1]``)."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class HalfOpenInterval(Interval):
    """``lower_bound <= x < upper_bound`` (a Uniform's samples never reach ``high``)."""

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value < self.upper_bound)


class IntegerInterval(Interval):
    """Whole numbers from ``lower_bound`` to ``upper_bound`` (a Categorical's class indices)."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & super().check(value)


class IntegerGreaterThan(Constraint):
    """Whole numbers from ``lower_bound`` up (Poisson counts, Geometric failures)."""

    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lower_bound={self.lower_bound})"


class Simplex(Constraint):
    """Probability vectors: no negative entry, and the entries add up to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class MultinomialConstraint(Constraint):
    """Count vectors: no negative entry, at most ``upper_bound`` in all (a Multinomial's outcomes)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)

    def __repr__(self) -> str:
        return "Multinomial()"


class IndependentConstraint(Constraint):
    """A constraint applied to every coordinate of a vector (or a block of the last
    ``reinterpreted_batch_ndims`` dimensions): satisfied when all coordinates are."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        ok = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            ok = ok.all(-1)
        return ok

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """A mixture's support: a value must lie in its components' support (checked against
    each component, the component dimension put back before the check)."""

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        keep = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


class LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal: Cholesky factors."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower = (value.tril() == value).flatten(-2).all(-1)
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return lower & positive_diagonal


class PositiveDefinite(Constraint):
    """Symmetric matrices whose Cholesky factorisation succeeds (covariances, precisions)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        symmetric = (value - value.mT).abs().le(1e-6 + 1e-5 * value.mT.abs()).flatten(-2).all(-1)
        if not bool(symmetric.all()):
            return symmetric
        return cholesky_ex(value).info == 0


# the instances the distributions use, under torch's names
dependent = Dependent()
real = Real()
boolean = Boolean()
one_hot = OneHot()
positive = GreaterThan(0.0)
nonnegative = GreaterThanEq(0.0)
nonnegative_integer = IntegerGreaterThan(0)
positive_integer = IntegerGreaterThan(1)
unit_interval = Interval(0.0, 1.0)
simplex = Simplex()
real_vector = IndependentConstraint(real, 1)
lower_cholesky = LowerCholesky()
positive_definite = PositiveDefinite()
greater_than = GreaterThan
greater_than_eq = GreaterThanEq
less_than = LessThan
interval = Interval
half_open_interval = HalfOpenInterval
integer_interval = IntegerInterval
integer_greater_than = IntegerGreaterThan
independent = IndependentConstraint
multinomial = MultinomialConstraint

__all__ = ["Constraint", "MixtureSameFamilyConstraint", "boolean", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "half_open_interval", "independent", "integer_greater_than",
           "integer_interval", "interval", "is_dependent", "less_than", "lower_cholesky", "multinomial",
           "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer",
           "real", "real_vector", "simplex", "unit_interval"]
