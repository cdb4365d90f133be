"""Order statistics and NaN-aware reductions: ``median``, ``quantile``, ``kthvalue``,
``nansum``, ``nanmean``, ``nan_to_num``, ``std_mean``, ``var_mean``; plus small element
pickers ``take`` and ``select``; the covariance ``cov`` and correlation ``corrcoef`` matrices.

All are compositions of differentiable pieces: a median is "sort, then pick the middle
element" (the gradient flows back through ``sort`` to the element that was picked),
``nansum`` is "replace NaN by 0, then sum".  Each also becomes a ``Tensor`` method.
"""
from __future__ import annotations

from typing import Any, Optional

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .common import numpy_aliases
from . import pointwise
from .reduction import _return_type
from .shape import stack
from ..type_info import finfo

__all__ = ["median", "kthvalue", "quantile", "nansum", "nanmean", "nan_to_num", "std_mean", "var_mean", "take",
           "select", "cov", "corrcoef"]

median_result, kthvalue_result = _return_type("median"), _return_type("kthvalue")


def _kth_smallest(input: Tensor, k: int, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    """The ``k``-th smallest (1-based) along ``dim`` and where it was (stable sort: the first of equals)."""
    values, indices = input.sort(dim=dim, stable=True)
    v, i = values.narrow(dim, k - 1, 1), indices.narrow(dim, k - 1, 1)
    return (v, i) if keepdim else (v.squeeze(dim), i.squeeze(dim))


@numpy_aliases
def median(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """The middle value; for an even count the *lower* of the two middle values (PyTorch's rule,
    unlike NumPy's average).  With ``dim``: ``(values, indices)``."""
    if dim is None:
        flat = input.flatten()
        return _kth_smallest(flat, (flat.numel() + 1) // 2, 0, False)[0]
    dim = _wrap_dim(dim, input.dim())
    return median_result(*_kth_smallest(input, (input.shape[dim] + 1) // 2, dim, keepdim))


@numpy_aliases
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest value along ``dim`` and its index."""
    dim = _wrap_dim(dim, max(input.dim(), 1))
    if not 1 <= k <= (input.shape[dim] if input.dim() else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return kthvalue_result(*_kth_smallest(input, k, dim, keepdim))


@numpy_aliases
def quantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-quantile(s) (``q`` in [0, 1]), interpolating linearly between neighbours."""
    import math
    if input.dtype not in (dtypes.float32, dtypes.float64):  # PyTorch's rule (no float16, bfloat16, ints)
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation != "linear":
        raise NotImplementedError("learntorch's quantile implements interpolation='linear' only")
    qs = q.tolist() if isinstance(q, Tensor) else q
    scalar = not isinstance(qs, (list, tuple))
    qs = [qs] if scalar else list(qs)
    if any(not 0 <= v <= 1 for v in qs):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    x = input.flatten() if dim is None else input
    d = 0 if dim is None else _wrap_dim(dim, input.dim())
    values = x.sort(dim=d)[0]
    n = values.shape[d]
    out = []
    for v in qs:
        pos = v * (n - 1)
        lo, hi = math.floor(pos), math.ceil(pos)
        a, b = values.narrow(d, lo, 1), values.narrow(d, hi, 1)
        r = a + (b - a) * (pos - lo)
        out.append(r if keepdim and dim is not None else r.squeeze(d))
    if scalar:
        return out[0]
    return stack(out, 0)


@numpy_aliases
def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum, treating NaN as 0."""
    clean = pointwise.where(input.isnan(), 0.0, input)
    return clean.sum(dtype=dtype) if dim is None else clean.sum(dim, keepdim=keepdim, dtype=dtype)


@numpy_aliases
def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the non-NaN values."""
    count = (~input.isnan()).sum() if dim is None else (~input.isnan()).sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    """NaN → ``nan``, +∞ → ``posinf`` (default: the dtype's largest value), -∞ → ``neginf``."""
    if not input.is_floating_point():
        return input.clone()
    info = finfo(input.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = pointwise.where(input.isnan(), nan, input)
    out = pointwise.where(out == float("inf"), posinf, out)
    return pointwise.where(out == float("-inf"), neginf, out)


@numpy_aliases
def std_mean(input: Tensor, dim: Any = None, *, correction: Any = 1, keepdim: bool = False) -> tuple:
    """``(std, mean)`` in one call."""
    if dim is None:
        return input.std(correction=correction), input.mean()
    return input.std(dim, correction=correction, keepdim=keepdim), input.mean(dim, keepdim=keepdim)


@numpy_aliases
def var_mean(input: Tensor, dim: Any = None, *, correction: Any = 1, keepdim: bool = False) -> tuple:
    """``(var, mean)`` in one call."""
    if dim is None:
        return input.var(correction=correction), input.mean()
    return input.var(dim, correction=correction, keepdim=keepdim), input.mean(dim, keepdim=keepdim)


def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of the *flattened* input at ``index`` (the result has ``index``'s shape)."""
    return input.reshape(-1)[index]


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, that dimension removed (``x.select(0, i)`` is ``x[i]``)."""
    dim = _wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {dim}")
    return input.narrow(dim, index % size, 1).squeeze(dim)


def cov(input: Tensor, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Tensor:
    """The covariance matrix of the variables in the *rows* of ``input`` (observations in the
    columns, NumPy's convention): ``(X - mean) (X - mean)ᵀ / (N - correction)``."""
    if input.ndim > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                         f"{input.ndim} dimensions")
    if fweights is not None or aweights is not None:
        raise NotImplementedError("learntorch's cov() has no fweights/aweights; weight the observations "
                                  "yourself (repeat columns, or compute the weighted mean and products)")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if not x.dtype.is_floating_point:
        x = x.float()
    centred = x - x.mean(1, keepdim=True)
    out = (centred @ centred.t()) / max(x.shape[1] - correction, 0)
    return out.squeeze() if input.ndim < 2 else out


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows: ``cov`` scaled by the standard deviations,
    clipped to [-1, 1] against rounding."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


