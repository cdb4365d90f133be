"""The linear algebra behind ``parametrizations.orthogonal``, made of tensor operations.

PyTorch calls dedicated kernels (``torch.matrix_exp``, ``torch.linalg.householder_product``,
``torch.geqrf``).  learntorch has no such operations, so they are written here from
matmuls and elementwise operations: slower, but autograd differentiates them like any
other composition (the weights are small), and the values agree with PyTorch's to
float rounding.

* :func:`matrix_exp`: ``exp(A)`` (one graph node, ``LinalgMatrixExpBackward0``) by scaling
  and squaring: ``exp(A) = exp(A / 2**s)**(2**s)``, with ``s`` chosen so that ``A / 2**s``
  is small enough for a Taylor polynomial.
* :func:`householder_product`: the first ``k`` columns of ``H_1 H_2 ... H_k``, where
  ``H_i = I - tau_i v_i v_iᵀ`` and ``v_i`` is column ``i`` of ``A`` below the diagonal
  with a 1 on it (LAPACK's way of storing an orthogonal matrix, ``orgqr``).
* :func:`geqrf`: the QR factorisation in that same Householder form (LAPACK's ``geqrf``):
  ``R`` on and above the diagonal, the vectors ``v_i`` below it, and the ``tau``.
* :func:`make_orthogonal`: the ``Q`` of ``A = QR`` with ``R``'s diagonal made positive.
"""
from __future__ import annotations

import math
from typing import Any

from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...creation import eye, zeros_like
from ...linalg import qr
from ...ops.shape import cat, stack
from ...tensor import Tensor

__all__ = ["matrix_exp", "householder_product", "geqrf", "make_orthogonal"]

_TAYLOR_DEGREE = 18  # with ||A|| <= 1/2 the first term left out is below 1e-22 of ||A||


def matrix_exp(A: Tensor) -> Tensor:
    """``exp(A)`` of a square matrix (or a batch), as one graph node named as PyTorch's
    (``LinalgMatrixExpBackward0``); see :class:`_MatrixExp`."""
    return _MatrixExp.apply(A)


class _MatrixExp(Function):
    """``exp(A)``, with the gradient of a matrix function: for ``L = f(A)``, the gradient
    with respect to ``A`` is the upper-right block of ``exp([[Aᴴ, G], [0, Aᴴ]])``
    (``G`` the incoming gradient), a classic identity for Fréchet derivatives.  That
    block exponential is computed with the same operations, so it can be
    differentiated again."""

    _backward_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        ctx.save_for_backward(A)
        return _taylor_exp(A)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        A, = ctx.saved_tensors
        n = A.size(-1)
        top = cat([A.mH, grad], dim=-1)
        bottom = cat([zeros_like(A), A.mH], dim=-1)
        return matrix_exp(cat([top, bottom], dim=-2))[..., :n, n:]


def _taylor_exp(A: Tensor) -> Tensor:
    """``exp(A)`` from tensor operations: ``I + A + A²/2! + ...``.

    The series converges fast only for a small ``A``, so ``A`` is first divided by
    ``2**s`` (``s`` from the largest absolute column sum, the 1-norm) and the result
    squared ``s`` times.  The polynomial is evaluated by Horner's rule."""
    n = A.size(-1)
    identity = eye(n, dtype=A.dtype, device=A.device)
    with no_grad():
        norm = float(A.abs().sum(dim=-2).max()) if A.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    scaled = A / (2 ** squarings) if squarings else A
    result = identity
    for k in range(_TAYLOR_DEGREE, 0, -1):
        result = identity + (scaled @ result) / k
    for _ in range(squarings):
        result = result @ result
    return result


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The ``n x k`` matrix ``(H_1 ... H_k)[:, :k]`` for ``A`` of shape ``(..., n, k)`` and
    ``tau`` of shape ``(..., k)``: applied right to left to the first ``k`` columns of ``I``."""
    n, k = A.size(-2), A.size(-1)
    vectors = A.tril(-1) + eye(n, k, dtype=A.dtype, device=A.device)  # unit diagonal, A below it
    Q = eye(n, k, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], n, k)
    for i in range(tau.size(-1) - 1, -1, -1):
        v = vectors[..., :, i:i + 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mT @ Q))
    return Q


def geqrf(A: Tensor) -> tuple[Tensor, Tensor]:
    """LAPACK's QR in Householder form, without gradient: returns ``(a, tau)``.

    Column by column, the reflector ``H = I - tau v vᵀ`` that maps the column (from the
    diagonal down) to ``(beta, 0, ..., 0)`` is found (``beta = -sign(alpha) * norm``,
    LAPACK's ``larfg``; ``tau = 0`` when there is nothing to zero) and applied to the
    columns on its right."""
    with no_grad():
        a = A.clone()
        n, k = a.size(-2), a.size(-1)
        taus = []
        for i in range(min(n, k)):
            alpha = a[..., i, i]
            below = a[..., i + 1:, i]
            below_norm = below.norm(dim=-1) if n - i > 1 else alpha * 0
            nothing = below_norm == 0
            sign = (alpha >= 0).to(a.dtype) * 2 - 1
            beta = -sign * (alpha * alpha + below_norm * below_norm).sqrt()
            beta = beta.where(~nothing, alpha)
            tau = ((beta - alpha) / beta).where(~nothing, alpha * 0)
            scale = (1 / (alpha - beta)).where(~nothing, alpha * 0)
            v = stack([alpha * 0 + 1, *[below[..., j] * scale for j in range(n - i - 1)]], dim=-1)
            # apply H to the columns on the right: a -= tau v (vᵀ a)
            right = a[..., i:, i + 1:]
            right = right - tau[..., None, None] * (v.unsqueeze(-1) @ (v.unsqueeze(-2) @ right))
            column = stack([beta, *[v[..., j] for j in range(1, n - i)]], dim=-1)
            a[..., i:, i + 1:] = right
            a[..., i:, i] = column
            taus.append(tau)
        return a, stack(taus, dim=-1)


def make_orthogonal(A: Tensor) -> Tensor:
    """The orthogonal factor ``Q`` of ``A = QR`` (``A`` is ``n x k``, ``n >= k``), made unique by
    asking for a positive diagonal in ``R``: each column of ``Q`` is multiplied by the sign
    of ``R``'s diagonal entry."""
    Q, R = qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
