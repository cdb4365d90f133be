"""Two matrices made of many matrix products: ``matrix_exp`` and ``householder_product``.

* ``matrix_exp(A) = I + A + A²/2! + A³/3! + …``, the solution operator of ``x' = A x``
  (``x(t) = exp(tA) x(0)``); for a skew-symmetric ``A`` it is a rotation, which is how
  ``parametrizations.orthogonal`` keeps a weight orthogonal.  Computed by *scaling and
  squaring*: the series converges fast only for a small matrix, so ``A`` is divided by
  ``2ˢ`` until its 1-norm is at most ½, the series summed there (degree 18, Horner's rule),
  and the result squared ``s`` times, since ``exp(A) = exp(A / 2ˢ)^(2ˢ)``.
* ``householder_product(A, tau)``: the first columns of ``H₁ H₂ ⋯ Hₖ`` with
  ``Hᵢ = I - τᵢ vᵢ vᵢᵀ`` (a reflection when ``τᵢ = 2 / vᵢᵀvᵢ``), where ``vᵢ`` is column ``i``
  of ``A`` below the diagonal with a 1 on it: how LAPACK stores the ``Q`` of a QR
  factorisation (``geqrf`` / ``orgqr``).

PyTorch computes both with dedicated kernels (a Padé-type polynomial for ``matrix_exp``);
the values agree to float rounding.  Each is one graph node named as PyTorch's.
"""
from __future__ import annotations

import math
from typing import Any

from .. import dtypes
from ..autograd.function import Function
from ..tensor import Tensor
from .common import new_result, return_type
from .linalg_decomp import _check_matrix
from .linalg_lu import _check_kernel_dtype
from .shape import cat

__all__ = ["matrix_exp", "householder_product", "geqrf"]

_TAYLOR_DEGREE = 18  # with ||A|| <= 1/2 the first term left out is below 1e-22 of ||A||


def _exp_arrays(xp: Any, a: Any) -> Any:
    """``exp(a)`` by scaling and squaring (see the module docstring); ``a`` is (..., n, n).
    One scaling for the whole batch, from its largest 1-norm (largest absolute column sum)."""
    n = a.shape[-1]
    if a.size == 0:
        return xp.asarray(a, copy=True)
    norm = float(xp.max(xp.sum(xp.abs(a), axis=-2)))
    if not math.isfinite(norm):  # inf or nan anywhere: no meaningful exponential
        return xp.full_like(a, float("nan"))
    squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    scaled = a / (2.0 ** squarings)
    identity = xp.eye(n, dtype=a.dtype)
    result = xp.broadcast_to(identity, a.shape)
    for k in range(_TAYLOR_DEGREE, 0, -1):  # I + A(I + A/2 (I + A/3 (…))) : Horner's rule
        result = identity + (scaled @ result) / k
    for _ in range(squarings):
        result = result @ result
    return result


class MatrixExp(Function):
    """``exp(A)``.  Backward: for a matrix function ``f``, the gradient ``Σ gᵢⱼ ∂f(A)ᵢⱼ/∂A`` is
    the upper-right block of ``f([[Aᵀ, g], [0, Aᵀ]])`` (the block-triangular trick for
    Fréchet derivatives, Mathias 1996).  That block exponential is a ``matrix_exp`` again, so
    the backward can itself be differentiated."""
    _backward_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        ctx.save_for_backward(A)
        return new_result(_exp_arrays(A._backend.xp, A._data), A)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        (A,) = ctx.saved_tensors
        n = A.shape[-1]
        At = A.transpose(-2, -1)
        top = cat([At, grad], dim=-1)
        bottom = cat([Tensor._zeros(tuple(At.shape), At.dtype, At.device), At], dim=-1)
        return matrix_exp(cat([top, bottom], dim=-2))[..., :n, n:],


def matrix_exp(A: Tensor) -> Tensor:
    """``exp(A) = Σ Aᵏ/k!`` of a square matrix (or of each in a batch)."""
    _check_matrix("linalg.matrix_exp", A)
    return MatrixExp.apply(A)


# ----------------------------------------------------------------------------- Householder products
def _householder_arrays(xp: Any, a: Any, tau: Any) -> Any:
    """``(H₁ ⋯ Hₖ)[:, :n]`` for ``a`` (..., m, n): applied right to left to the first ``n``
    columns of ``I``, each ``Hᵢ q = q - τᵢ vᵢ (vᵢᵀ q)`` costing a product, not an m × m matrix."""
    m, n = a.shape[-2:]
    vectors = xp.tril(a, k=-1) + xp.eye(m, n, dtype=a.dtype)
    q = xp.broadcast_to(xp.eye(m, n, dtype=a.dtype), a.shape)
    for i in range(tau.shape[-1] - 1, -1, -1):
        v = vectors[..., :, i:i + 1]
        q = q - tau[..., i, None, None] * (v @ (xp.matrix_transpose(v) @ q))
    return q


class HouseholderProduct(Function):
    """``Q = H₁ ⋯ Hₖ E`` (``E``: the first ``n`` columns of ``I``).

    Backward, one reflection at a time from the left: with ``Qᵢ = Hᵢ Qᵢ₊₁`` and ``Gᵢ`` the
    gradient of ``Qᵢ`` (``G₁ = g``):  ``gτᵢ = -vᵢᵀ Gᵢ Qᵢ₊₁ᵀ vᵢ``,
    ``gvᵢ = -τᵢ (Gᵢ Qᵢ₊₁ᵀ vᵢ + Qᵢ₊₁ Gᵢᵀ vᵢ)`` (only its part below the diagonal belongs to
    ``A``) and ``Gᵢ₊₁ = Hᵢ Gᵢ`` (``Hᵢ`` is symmetric).  Written with tensor operations."""
    _backward_name = "LinalgHouseholderProductBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, tau: Tensor) -> Tensor:
        ctx.save_for_backward(A, tau)
        return new_result(_householder_arrays(A._backend.xp, A._data, tau._data), A)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        A, tau = ctx.saved_tensors
        m, n = A.shape[-2], A.shape[-1]
        k = tau.shape[-1]
        vectors = A.tril(-1) + _eye(m, n, A)
        columns = [vectors[..., :, i:i + 1] for i in range(k)]
        taus = [tau[..., i:i + 1].unsqueeze(-1) for i in range(k)]
        # the partial products Qᵢ₊₁ = Hᵢ₊₁ ⋯ Hₖ E, right to left as in forward
        partial = [_eye(m, n, A).expand(*A.shape[:-2], m, n)]
        for i in range(k - 1, 0, -1):
            q = partial[-1]
            partial.append(q - taus[i] * (columns[i] @ (columns[i].mT @ q)))
        partial.reverse()  # partial[i] = Qᵢ₊₁ (0-based i)
        G = grad
        g_columns, g_taus = [], []
        for i in range(k):
            v, t, q = columns[i], taus[i], partial[i]
            Gv, Qv = G.mT @ v, q.mT @ v  # Gᵢᵀ v, Qᵢ₊₁ᵀ v
            g_taus.append(-(Gv * Qv).sum(dim=(-2, -1)).unsqueeze(-1))
            g_columns.append(-t * (G @ Qv + q @ Gv))
            G = G - t * (v @ (v.mT @ G))
        g_vectors = cat(g_columns, dim=-1)
        if k < n:
            g_vectors = cat([g_vectors, Tensor._zeros((*A.shape[:-2], m, n - k), A.dtype, A.device)], dim=-1)
        g_A = g_vectors.tril(-1) if ctx.needs_input_grad[0] else None
        g_tau = None
        if ctx.needs_input_grad[1]:
            g_tau = cat(g_taus, dim=-1) if k else Tensor._zeros(tuple(tau.shape), tau.dtype, tau.device)
        return g_A, g_tau


def _eye(m: int, n: int, like: Tensor) -> Tensor:
    """The m × n identity (ones on the diagonal), of ``like``'s dtype and device, no history."""
    xp = like._backend.xp
    return Tensor._make(xp.eye(m, n, dtype=like._data.dtype), like._device)


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The m × n matrix with orthonormal columns that LAPACK's QR (``geqrf``) stores as
    Householder vectors (``A`` below the diagonal) and scalings ``tau``: ``torch.orgqr``."""
    name = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {A.ndim}")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    _check_kernel_dtype("orgqr_cpu", A)
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {dtypes.type_name(tau.dtype)} does not match input dtype "
                           f"{dtypes.type_name(A.dtype)}")
    return HouseholderProduct.apply(A, tau)


geqrf_result = return_type("geqrf", "a tau")


class Geqrf(Function):
    """LAPACK's QR in its compact form; PyTorch has no derivative for it (its backward raises)."""
    _backward_name = "GeqrfBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        xp = A._backend.xp
        if A.numel() == 0:
            k = min(A.shape[-2], A.shape[-1])
            return new_result(xp.asarray(A._data, copy=True), A), Tensor._zeros(tuple(A.shape[:-2]) + (k,), A.dtype,
                                                                                 A.device)
        h, tau = xp.linalg.qr(A._data, mode="raw")  # (NumPy hands LAPACK's array back transposed)
        return new_result(xp.ascontiguousarray(xp.matrix_transpose(h)), A), new_result(tau, A)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor) -> Any:
    """``torch.geqrf``: ``(a, tau)``, the QR factorisation as LAPACK stores it: ``R`` on and above
    ``a``'s diagonal, and below it the Householder vectors whose product (with ``tau``) is ``Q``,
    which :func:`householder_product` (``torch.orgqr``) rebuilds.  Prefer ``torch.linalg.qr``."""
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _check_kernel_dtype("geqrf_cpu", input)
    return geqrf_result(*Geqrf.apply(input))
