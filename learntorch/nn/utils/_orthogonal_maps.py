"""The linear algebra behind ``parametrizations.orthogonal``.

PyTorch calls dedicated kernels: ``torch.matrix_exp``, ``torch.linalg.householder_product``
and ``torch.geqrf``.  The first two are learntorch operations too (``ops/linalg_products.py``,
one graph node each, named as PyTorch's), imported from there; the others are written here from
tensor operations:

* :func:`geqrf`: the QR factorisation in Householder form (LAPACK's ``geqrf``):
  ``R`` on and above the diagonal, the vectors ``v_i`` below it, and the ``tau``
  (``H_i = I - tau_i v_i v_iᵀ``, ``v_i`` with a 1 on the diagonal), so that
  ``householder_product(a, tau)`` is the ``Q`` of ``A = QR``.
* :func:`make_orthogonal`: the ``Q`` of ``A = QR`` with ``R``'s diagonal made positive.
"""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...linalg import qr
from ...ops.linalg_products import householder_product, matrix_exp
from ...ops.shape import stack
from ...tensor import Tensor

__all__ = ["matrix_exp", "householder_product", "geqrf", "make_orthogonal"]


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
