"""``nn.utils.parametrizations``: weight norm, spectral norm and orthogonal weights, built on
:mod:`.parametrize`.

Weight norm and spectral norm here are the current forms of the two classic weight
reparametrizations; the older
hook-based ones are :func:`learntorch.nn.utils.weight_norm` and
:func:`learntorch.nn.utils.spectral_norm`.  Here the weight is a property computed
on every read (wrap a forward in :func:`parametrize.cached` to compute it once), and
the stored tensors live under ``module.parametrizations.weight``:

* :func:`weight_norm`: ``original0`` is the length ``g``, ``original1`` the direction ``v``;
* :func:`spectral_norm`: ``original`` is the unconstrained weight, and the
  parametrization module ``parametrizations.weight[0]`` keeps the power-iteration
  vectors as buffers ``_u`` and ``_v`` (so the state_dict keys are
  ``parametrizations.weight.0._u`` and ``..._v``);
* :func:`orthogonal`: the weight is kept an orthogonal matrix (``QᵀQ = I``); the
  linear algebra it needs is in :mod:`._orthogonal_maps`.  The stored ``base`` buffer is
  ``parametrizations.weight.0.base``.  (One cosmetic difference from PyTorch: where an
  entry is exactly zero its sign may differ, ``-0.`` against ``0.`` when printed.)
"""
from __future__ import annotations

from enum import Enum, auto
from typing import Optional

from ...autograd.grad_mode import no_grad
from ...creation import eye, randn, zeros_like
from ...ops.shape import cat
from ...linalg import solve
from ...tensor import Tensor
from ...type_info import finfo
from ..functional import normalize
from ..modules.conv_variants import ConvTranspose1d, ConvTranspose2d
from ..modules.module import Module
from . import parametrize
from ._orthogonal_maps import geqrf, householder_product, make_orthogonal, matrix_exp
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------------------- weight norm
class _WeightNorm(Module):
    """``forward(g, v) = g * v / ||v||``; ``right_inverse(w) = (||w||, w)``, so registering
    it leaves the weight's value unchanged."""

    def __init__(self, dim: Optional[int] = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (``dim=None``: one length for the
    whole tensor).  ``g`` and ``v`` are ``module.parametrizations.<name>.original0`` and
    ``original1``.  A checkpoint of the old :func:`learntorch.nn.utils.weight_norm`
    (keys ``<name>_g``, ``<name>_v``) still loads: a load pre hook renames its keys."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def rename_old_keys(module: Module, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                        missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module.register_load_state_dict_pre_hook(rename_old_keys)
    return module


# ---------------------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    """Divide a weight by its largest singular value σ, estimated by power iteration.

    The weight is seen as a matrix ``W`` (``dim`` first, the rest flattened).  Two unit
    vectors ``u`` and ``v`` are kept between calls; one power-iteration step is
    ``v = normalize(Wᵀu)``, ``u = normalize(Wv)``, and then σ ≈ ``uᵀWv``.  Because the
    weight changes only a little per optimizer step, one step per forward (in training
    mode) keeps the estimate good; 15 steps are made at registration to start well.
    The steps run without gradient and update ``u``, ``v`` in place; the division by σ is
    differentiated (through ``W`` only)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:  # a vector's spectral norm is its length: no power iteration needed
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            # drawn in this order (u, then v) so that a seeded program gets PyTorch's numbers
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        """``dim`` to the front, everything else flattened: an (out, in·k·k) matrix for a conv."""
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """``n_power_iterations`` steps, written into the ``_u`` and ``_v`` buffers in place."""
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(weight_mat.H.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies: the next forward changes the buffers in place, which must not alter
        # the values this forward's backward will use
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        """Assigning a weight stores it as it is (σ is recomputed from it at the next read)."""
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> Module:
    """Constrain ``module.<name>`` to spectral norm 1: ``W / σ(W)``, the usual way to keep a
    GAN's discriminator Lipschitz.  ``dim`` is the output dimension (default 0, or 1 for a
    ``ConvTranspose``, whose weight is stored (in, out, ...)).  The unconstrained weight is
    ``module.parametrizations.<name>.original``.  Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module



# ---------------------------------------------------------------------------- orthogonal
def _is_orthogonal(Q: Tensor) -> bool:
    """``QᵀQ == I`` up to a tolerance that grows with the size (rounding in the products)."""
    n, k = Q.size(-2), Q.size(-1)
    identity = eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * finfo(Q.dtype).eps
    return (Q.mH @ Q).allclose(identity, atol=eps)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Map an unconstrained matrix ``X`` to an orthogonal one (orthonormal columns, or rows
    for a wide matrix, which is handled transposed).

    * ``matrix_exp`` / ``cayley``: the lower triangle of ``X`` defines a skew-symmetric
      ``A = X - Xᵀ`` (``Aᵀ = -A``), and both ``exp(A)`` and ``(I - A/2)⁻¹(I + A/2)`` are
      orthogonal for any such ``A``;
    * ``householder``: ``X`` below its diagonal holds Householder vectors whose product
      of reflections is orthogonal.

    With ``use_trivialization`` (the default) the result is multiplied by a stored
    orthogonal matrix ``base``: assigning a weight stores it (orthogonalised) in ``base``
    and resets ``X`` so that the map gives the identity.  The optimizer then moves
    ``X`` near 0, where these maps are well conditioned."""

    base: Tensor

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:  # pad to a square n x n matrix; the first k columns of Q are kept
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                identity = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(identity - 0.5 * A, identity + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = householder_product(A, tau)
            # the diagonal of X (made integer) chooses the sign of each column
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """An ``X`` that this map sends to (the orthogonalised) ``Q``."""
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of "
                                 f"shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                # the Householder vectors of Q's QR, with the diagonal as the signs to give the columns
                A, tau = geqrf(Q)
                diagonal = A.diagonal(dim1=-2, dim2=-1).sign()
                diagonal = diagonal.where(tau != 0.0, -diagonal)
                mask = eye(n, k, dtype=A.dtype, device=A.device)
                A = A * (1 - mask) + mask * diagonal.unsqueeze(-2)
                return A.mT if transpose else A
            if n == k:
                Q = make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
            else:  # complete the k columns to a square orthogonal matrix with random ones
                N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = make_orthogonal(cat([Q, N], dim=-1))
            self.base = Q
            # X = -I: the maps give the identity there (exp(0), Cayley(0), or the product of
            # reflections corrected by the diagonal's signs), so the weight starts at base
            neg_identity = zeros_like(Q_init)
            rows, cols = Q_init.size(-2), Q_init.size(-1)
            return neg_identity - eye(rows, cols, dtype=Q_init.dtype, device=Q_init.device)


def orthogonal(module: Module, name: str = "weight", orthogonal_map: Optional[str] = None, *,
               use_trivialization: bool = True) -> Module:
    """Keep ``module.<name>`` an orthogonal matrix (orthonormal columns if it is tall,
    orthonormal rows if it is wide), e.g. for the recurrent weight of an RNN, whose
    powers then neither explode nor vanish.

    ``orthogonal_map``: ``"matrix_exp"`` (default for square matrices), ``"cayley"`` or
    ``"householder"`` (default otherwise).  The initial weight is the current one made
    orthogonal by a QR factorisation.  Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
