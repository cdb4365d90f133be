"""The multivariate normal with a low-rank-plus-diagonal covariance ``W W^T + diag(D)``.

``W`` (``cov_factor``) is ``n x m`` with ``m`` small: ``m`` shared factors plus independent
noise, as in factor analysis or a variational posterior that should see correlations
without ``n^2`` parameters.  Sampling uses the structure directly: with independent
``e_W ~ N(0, I_m)`` and ``e_D ~ N(0, I_n)``, ``loc + W e_W + sqrt(D) e_D`` has exactly
that covariance (two ``normal_`` draws, in torch's order).

The densities are written for reading, not for large ``n``: the covariance is formed and
Cholesky-factored once, then ``log_prob``, ``entropy`` and the KLs are the
:class:`MultivariateNormal` ones (torch uses the Woodbury identity instead; the values
agree to rounding).
"""
from __future__ import annotations

from typing import Any

from ..linalg import cholesky
from ..ops.arrange import broadcast_tensors
from ..ops.matmul import matmul
from ..ops.reshaping import diag_embed
from ..size import Size
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution
from .multivariate_normal import MultivariateNormal
from .normal import standard_normal
from .utils import lazy_parameter


class LowRankMultivariateNormal(Distribution):
    """``LowRankMultivariateNormal(loc, cov_factor, cov_diag)``: covariance
    ``cov_factor @ cov_factor.mT + diag(cov_diag)``."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:  # broadcast the batch dims of all three (the trailing 1 stands for W's m columns)
            loc_, self.cov_factor, diag_ = broadcast_tensors(loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = diag_[..., 0]
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        # the full covariance's Cholesky factor: what the MultivariateNormal formulas read
        covariance = matmul(cov_factor, cov_factor.mT) + diag_embed(cov_diag)
        self._unbroadcasted_scale_tril = cholesky(covariance)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LowRankMultivariateNormal":
        batch = tuple(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        n = self._event_shape[0]
        new.loc = self.loc.expand(batch + (n,))
        new.cov_factor = self.cov_factor.expand(batch + tuple(self.cov_factor.shape[-2:]))
        new.cov_diag = self.cov_diag.expand(batch + (n,))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        Distribution.__init__(new, Size(batch), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    _matrix_shape = MultivariateNormal._matrix_shape
    scale_tril = MultivariateNormal.scale_tril
    precision_matrix = MultivariateNormal.precision_matrix

    @lazy_parameter
    def covariance_matrix(self) -> Tensor:
        W = self._unbroadcasted_cov_factor
        return (matmul(W, W.mT) + diag_embed(self._unbroadcasted_cov_diag)).expand(self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The diagonal of ``W W^T + D``: row sums of ``W`` squared, plus ``D``."""
        var = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return var.expand(tuple(self._batch_shape + self._event_shape))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps_w = standard_normal(Size(tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])), self.loc)
        eps_d = standard_normal(shape, self.loc)
        factor_part = matmul(self._unbroadcasted_cov_factor, eps_w.unsqueeze(-1)).squeeze(-1)
        return self.loc + factor_part + self._unbroadcasted_cov_diag.sqrt() * eps_d

    log_prob = MultivariateNormal.log_prob
    entropy = MultivariateNormal.entropy
