"""The multivariate normal ``N(loc, Sigma)`` over vectors of length ``n``.

Everything runs through the Cholesky factor ``L`` of the covariance
(``Sigma = L L^T``, ``L`` lower-triangular with a positive diagonal):

* ``rsample``: ``loc + L @ eps`` with ``eps ~ N(0, I)`` -- if ``eps`` has identity
  covariance, ``L eps`` has covariance ``L I L^T = Sigma``;
* ``log_prob``: the Mahalanobis term ``(x - mu)^T Sigma^-1 (x - mu)`` is
  ``|L^-1 (x - mu)|^2``, one triangular solve; and ``log det Sigma`` is
  ``2 sum log diag L``;
* the covariance can be given three ways (``covariance_matrix``,
  ``precision_matrix`` = its inverse, or ``scale_tril`` = ``L`` itself); the
  other two are computed only when read.

The ``eps`` are drawn as torch draws them: one ``normal_`` of shape
``sample_shape + batch_shape + (n,)``.
"""
from __future__ import annotations

import math
from typing import Any

from ..creation import eye
from ..linalg import cholesky, inv, solve_triangular
from ..ops.matmul import matmul
from ..size import Size, broadcast_shapes
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .normal import standard_normal
from .utils import lazy_parameter


def mahalanobis_squared(L: Tensor, diff: Tensor) -> Tensor:
    """``diff^T (L L^T)^-1 diff`` for batches of vectors: solve ``L z = diff``, sum ``z^2``."""
    batch = broadcast_shapes(tuple(L.shape[:-2]), tuple(diff.shape[:-1]))
    n = L.shape[-1]
    z = solve_triangular(L.expand(tuple(batch) + (n, n)), diff.expand(tuple(batch) + (n,)).unsqueeze(-1),
                         upper=False)
    return z.squeeze(-1).pow(2).sum(-1)


def half_log_det(L: Tensor) -> Tensor:
    """``log sqrt(det Sigma)`` = sum of the logs of ``L``'s diagonal."""
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def precision_to_scale_tril(P: Tensor) -> Tensor:
    """The Cholesky factor of ``P^-1`` (plainly: invert, then factor)."""
    return cholesky(inv(P))


class MultivariateNormal(Distribution):
    """``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None)``."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {"covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix,
                 "scale_tril": scale_tril}
        given = {k: v for k, v in given.items() if v is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        (name, matrix), = given.items()
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        self.__dict__[name] = matrix.expand(tuple(batch_shape) + (-1, -1))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        # validate first: a matrix that is not positive-definite is a ValueError, not a failed Cholesky
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        # the factor without the batch broadcast: all the formulas broadcast it themselves
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(matrix)

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_parameter
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_parameter
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_parameter
    def precision_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        L_inv = solve_triangular(L, eye(L.shape[-1], dtype=L.dtype, device=L.device), upper=False)
        return matmul(L_inv.mT, L_inv).expand(self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The diagonal of ``L L^T``: row sums of ``L`` squared."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(n log 2 pi + Mahalanobis^2) / 2 - log sqrt det Sigma``."""
        if self._validate_args:
            self._validate_sample(value)
        n = self._event_shape[0]
        L = self._unbroadcasted_scale_tril
        m = mahalanobis_squared(L, value - self.loc)
        return -0.5 * (n * math.log(2 * math.pi) + m) - half_log_det(L)

    def entropy(self) -> Tensor:
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + half_log_det(self._unbroadcasted_scale_tril)
        return h.expand(tuple(self._batch_shape)) if len(self._batch_shape) else h
