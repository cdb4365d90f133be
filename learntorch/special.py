"""``torch.special``: the special functions under their SciPy-like names.

Many are other names of operations learntorch already has (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``), so the numbers, dtypes and ``grad_fn``
names are those of the one implementation.  The others (``ndtr``, ``erfcx``, ``zeta``,
``gammainc``, the Bessel functions, the orthogonal polynomials …) are in ops/special_ops.py,
on the kernels of ops/special_gamma.py, ops/special_bessel.py and ops/special_polynomials.py.
"""
from __future__ import annotations

from typing import Any

from .ops import pointwise, pointwise_extra, reduction, softmax as _softmax, special_ops
from .ops.arrange import erf
from .tensor import Tensor

__all__ = ["erf", "erfc", "erfinv", "expit", "logit", "xlogy", "xlog1py", "gammaln", "digamma", "psi", "polygamma",
           "i0", "sinc", "softmax", "log_softmax", "logsumexp", "expm1", "exp2", "log1p", "round",
           "ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "i0e", "i1", "i1e", "zeta", "gammainc", "gammaincc",
           "multigammaln", *special_ops.NONDIFFERENTIABLE]

erfc = pointwise_extra.erfc
erfinv = pointwise_extra.erfinv
expit = pointwise.sigmoid
logit = pointwise_extra.logit
xlogy = pointwise_extra.xlogy
xlog1py = pointwise_extra.xlog1py
gammaln = pointwise_extra.lgamma
digamma = psi = pointwise_extra.digamma
polygamma = pointwise_extra.polygamma
i0 = pointwise_extra.i0
sinc = pointwise_extra.sinc
logsumexp = reduction.logsumexp
expm1 = pointwise.expm1
exp2 = pointwise.exp2
log1p = pointwise.log1p
ndtr = special_ops.ndtr
ndtri = special_ops.ndtri
log_ndtr = special_ops.log_ndtr
erfcx = special_ops.erfcx
entr = special_ops.entr
i0e = special_ops.i0e
i1 = special_ops.i1
i1e = special_ops.i1e
zeta = special_ops.zeta
gammainc = special_ops.gammainc
gammaincc = special_ops.gammaincc
multigammaln = special_ops.multigammaln
globals().update(special_ops.NONDIFFERENTIABLE)  # bessel_j0 … airy_ai, chebyshev_polynomial_t … legendre_...


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``torch.special.softmax``: ``dim`` is required (no implicit-dim warning here)."""
    return _softmax.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _softmax.log_softmax(input, dim, dtype=dtype)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """``torch.round`` through its ``decimals`` overload: the node is ``RoundBackward1``."""
    return pointwise.round_decimals(input, decimals)
