"""``torch.special``: the special functions under their SciPy-like names.

All are other names of operations learntorch already has (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``), so the numbers, dtypes and ``grad_fn``
names are those of the one implementation.  Functions PyTorch has here that learntorch does
not (``entr``, ``ndtr``, ``multigammaln``, ``i1``, ``zeta``, the Bessel functions ...) are
absent rather than composed of other ops: a composite would show other ``grad_fn`` names
(PyTorch's ``ndtr`` graph uses the Scalar overloads, ``MulBackward1``, that learntorch lacks).
"""
from __future__ import annotations

from typing import Any

from .ops import pointwise, pointwise_extra, reduction, softmax as _softmax
from .ops.arrange import erf
from .tensor import Tensor

__all__ = ["erf", "erfc", "erfinv", "expit", "logit", "xlogy", "xlog1py", "gammaln", "digamma", "psi", "polygamma", "i0",
           "sinc", "softmax", "log_softmax", "logsumexp", "expm1", "exp2", "log1p", "round"]

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


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``torch.special.softmax``: ``dim`` is required (no implicit-dim warning here)."""
    return _softmax.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _softmax.log_softmax(input, dim, dtype=dtype)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """``torch.round`` through its ``decimals`` overload: the node is ``RoundBackward1``."""
    return pointwise.round_decimals(input, decimals)
