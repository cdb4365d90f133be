"""Order statistics and NaN-aware reductions: ``median``, ``quantile``, ``kthvalue``,
``nansum``, ``nanmean``, ``nan_to_num``, ``std_mean``, ``var_mean``; plus small element
pickers ``take`` and ``select``; the covariance ``cov`` and correlation ``corrcoef`` matrices.

All are compositions of differentiable pieces: a median is "sort, then pick the middle
element" (the gradient flows back through ``sort`` to the element that was picked),
``nansum`` is "replace NaN by 0, then sum".  Each also becomes a ``Tensor`` method.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .. import dtypes
from ..arrays import to_numpy, transfer
from ..autograd.function import Function
from ..device import CPU
from ..tensor import Tensor, _wrap_dim
from .common import numpy_aliases
from .indexing import scatter_into_zeros
from . import pointwise
from .reduction import _return_type, variance_with_mean
from .shape import stack
from ..type_info import finfo

__all__ = ["median", "kthvalue", "quantile", "nanquantile", "nanmedian", "mode",
           "nansum", "nanmean", "nan_to_num", "std_mean", "var_mean", "take",
           "select", "cov", "corrcoef"]

median_result, kthvalue_result = _return_type("median"), _return_type("kthvalue")
nanmedian_result, mode_result = _return_type("nanmedian"), _return_type("mode")


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
        if input.numel() == 0:  # PyTorch: the median of nothing is nan
            return Tensor._make(input._backend.xp.asarray(float("nan"), dtype=input._data.dtype), input._device)
        flat = input.flatten()
        return _nan_wins(flat, 0, False, *_kth_smallest(flat, (flat.numel() + 1) // 2, 0, False))[0]
    dim = _wrap_dim(dim, input.dim())
    _check_nonempty_dim("median", input, dim)
    return median_result(*_nan_wins(input, dim, keepdim,
                                    *_kth_smallest(input, (input.shape[dim] + 1) // 2, dim, keepdim)))


def _nan_wins(input: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
    """PyTorch's ``median`` propagates NaN: a slice holding one has the median NaN, at the index of
    its first NaN (sorting alone would put the NaNs last and pick a number).  Slices without NaN
    keep ``values``/``indices``; use ``nanmedian`` to skip NaNs instead."""
    if not input.dtype.is_floating_point or input.dim() == 0:
        return values, indices
    nan = input.isnan()
    if not bool(nan.any()):
        return values, indices
    has_nan = nan.any(dim, keepdim=True)
    first_nan = nan.to(dtypes.uint8).argmax(dim, keepdim=True)
    picked = indices if keepdim else indices.unsqueeze(dim)
    picked = picked.where(~has_nan, first_nan)
    chosen = input.gather(dim, picked)
    return (chosen, picked) if keepdim else (chosen.squeeze(dim), picked.squeeze(dim))


def _check_nonempty_dim(name: str, input: Tensor, dim: int) -> None:
    """PyTorch's IndexError for a selection (median, kthvalue) along a dimension of size 0."""
    if input.dim() and input.shape[dim] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")


@numpy_aliases
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest value along ``dim`` and its index."""
    dim = _wrap_dim(dim, max(input.dim(), 1))
    _check_nonempty_dim("kthvalue", input, dim)
    if not 1 <= k <= (input.shape[dim] if input.dim() else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return kthvalue_result(*_kth_smallest(input, k, dim, keepdim))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


@numpy_aliases
def quantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-quantile(s) (``q`` in [0, 1]) along ``dim`` (of all elements when ``dim`` is None).
    A slice holding a NaN has a NaN quantile; :func:`nanquantile` skips NaNs instead."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=False)


@numpy_aliases
def nanquantile(input: Tensor, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """:func:`quantile` of the non-NaN values of each slice (NaN where a slice has none)."""
    return _quantile(input, q, dim, keepdim, interpolation, ignore_nan=True)


def _quantile(input: Tensor, q: Any, dim: Optional[int], keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    """Sort each slice, then read the value at rank ``q·(k-1)`` (``k`` values in the slice),
    interpolating between the two neighbouring ranks.

    The ranks differ from slice to slice when NaNs are skipped, so they are a tensor and the
    values are picked with ``gather``: the gradient flows back through ``gather`` and ``sort``
    to the (one or two) elements that were read."""
    if input.dtype not in (dtypes.float32, dtypes.float64):  # PyTorch's rule (no float16, bfloat16, ints)
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    qs = q.tolist() if isinstance(q, Tensor) else q
    one_q = not isinstance(qs, (list, tuple))
    qs = [qs] if one_q else list(qs)
    for v in qs:
        if not 0 <= v <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {v}")
    x = input.flatten() if dim is None else input
    d = 0 if dim is None else _wrap_dim(dim, input.dim())
    values = x.sort(dim=d)[0].movedim(d, -1) if x.ndim else x.reshape(1)  # NaNs sort last
    n = values.shape[-1]
    nan = values.isnan()
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True)  # the non-NaN values come first in each sorted slice
    else:
        count = pointwise.where(nan.any(-1, keepdim=True), 0, n)  # a NaN: read the last (NaN) value
    q_t = Tensor._make(values._backend.asarray(qs, input.dtype), input.device)
    rank = q_t * (count - 1).to(input.dtype)  # shape (..., Q)
    rank = pointwise.where(count == 0, float(n - 1), rank)
    below, above = rank.floor(), rank.ceil()
    if interpolation == "lower":
        above = below
    elif interpolation == "higher":
        below = above
    elif interpolation == "nearest":
        below = above = rank.round()
    a = values.gather(-1, below.long())
    b = values.gather(-1, above.long())
    if interpolation == "midpoint":
        weight = pointwise.where(below == above, 0.0, 0.5)
    else:
        weight = rank - below
    # torch.lerp's two-sided formula: exact at both ends
    result = pointwise.where(weight < 0.5, a + weight * (b - a), b - (b - a) * (1 - weight))
    if keepdim:
        result = result.reshape((1,) * input.ndim + (len(qs),)) if dim is None else result.unsqueeze(d)
    if one_q:
        return result.squeeze_(-1)
    return result.unsqueeze(0).transpose_(0, -1).squeeze_(-1)  # the q axis first, as in PyTorch


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
def std_mean(input: Tensor, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """``(std, mean)`` in one call."""
    return variance_with_mean("std_mean", input, dim, unbiased, keepdim, correction)


@numpy_aliases
def var_mean(input: Tensor, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple:
    """``(var, mean)`` in one call."""
    return variance_with_mean("var_mean", input, dim, unbiased, keepdim, correction)


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




# ----------------------------------------------------------------------------- nanmedian and mode
# Both pick one element per slice: the forward finds it on the host with NumPy and returns
# (values, indices); the backward sends the gradient back to that index, as max(dim) does.

def _c_order(array: Any) -> np.ndarray:
    """A C-contiguous array (copied only when needed; a 0-d array stays 0-d)."""
    a = np.asarray(array)
    return a if a.flags.c_contiguous else a.copy(order="C")


def _host_rows(x: Tensor, dim: int) -> np.ndarray:
    """``x``'s numbers as rows of a NumPy matrix: ``dim`` last, the other dims flattened."""
    data = to_numpy(x._data).reshape(tuple(x.shape) or (1,))
    moved = np.moveaxis(data, dim, -1)
    return moved.reshape(-1, moved.shape[-1])


def _picked(x: Tensor, dim: int, keepdim: bool, values: np.ndarray, idx: np.ndarray) -> tuple[Tensor, Tensor]:
    """Per-row results as tensors of the reduced shape, on ``x``'s device."""
    shape = list(x.shape)
    if shape:
        shape[dim] = 1
        if not keepdim:
            del shape[dim]
    out = [Tensor._make(transfer(_c_order(a.reshape(shape)), CPU, x._device), x._device)
           for a in (values, idx)]
    return out[0], out[1]


class _PickAlongDim(Function):
    """The gradient of the picked value goes to the index it was picked from."""

    @staticmethod
    def backward(ctx, grad: Tensor, _grad_indices: Any = None) -> tuple:
        (indices,) = ctx.saved_tensors
        shape, dim, keepdim = ctx.args
        if not shape:
            return grad.reshape(()), None, None
        if not keepdim:
            grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
        return scatter_into_zeros(grad, shape, dim, indices), None, None

    @classmethod
    def _finish(cls, ctx: Any, x: Tensor, dim: int, keepdim: bool, values: np.ndarray,
                idx: np.ndarray) -> tuple:
        v, i = _picked(x, dim, keepdim, values, idx)
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        ctx.args = (tuple(x.shape), dim, keepdim)
        return v, i


def _nan_last_order(row: np.ndarray) -> np.ndarray:
    """A stable sorting order with NaNs last (NumPy's sort puts them last too)."""
    return np.argsort(row, kind="stable")


class NanmedianDim(_PickAlongDim):
    _backward_name = "NanmedianBackward1"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, keepdim: bool) -> tuple:
        rows = _host_rows(x, dim)
        values = np.empty(rows.shape[0], dtype=rows.dtype)
        idx = np.zeros(rows.shape[0], dtype=np.int64)
        for r, row in enumerate(rows):
            order = _nan_last_order(row)
            k = int(np.count_nonzero(~np.isnan(row))) if row.dtype.kind == "f" else row.size
            pick = order[(k - 1) // 2] if k else order[0]  # all NaN: the result is NaN
            values[r], idx[r] = row[pick], pick
        return NanmedianDim._finish(ctx, x, dim, keepdim, values, idx)


class NanmedianAll(Function):
    _backward_name = "NanmedianBackward0"

    @staticmethod
    def forward(ctx, x: Tensor) -> Tensor:
        flat = to_numpy(x._data).reshape(-1)
        kept = np.sort(flat[~np.isnan(flat)]) if flat.dtype.kind == "f" else np.sort(flat)
        value = kept[(kept.size - 1) // 2] if kept.size else flat.dtype.type(np.nan)
        out = Tensor._make(transfer(np.asarray(value, dtype=flat.dtype), CPU, x._device), x._device)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple:
        """As for ``median()``, the gradient is shared evenly among the elements equal to the
        result (among the NaNs when the result is NaN)."""
        x, out = ctx.saved_tensors
        hit = (x == out) | (x.isnan() & out.isnan())
        hit = hit.to(grad.dtype)
        return hit * (grad / hit.sum()),


@numpy_aliases
def nanmedian(input: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """:func:`median` of the non-NaN values (the lower middle one for an even count); NaN only
    where a slice is all NaN.  With ``dim``: ``(values, indices)``."""
    if dim is None:
        return NanmedianAll.apply(input)
    d = _wrap_dim(dim, input.dim())
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    return nanmedian_result(*NanmedianDim.apply(input, d, keepdim))


class Mode(_PickAlongDim):
    _backward_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, keepdim: bool) -> tuple:
        rows = _host_rows(x, dim)
        values = np.empty(rows.shape[0], dtype=rows.dtype)
        idx = np.zeros(rows.shape[0], dtype=np.int64)
        for r, row in enumerate(rows):
            values[r], idx[r] = _row_mode(row)
        return Mode._finish(ctx, x, dim, keepdim, values, idx)


def _row_mode(row: np.ndarray) -> tuple[Any, int]:
    """The most frequent value of a row and its *last* position, PyTorch's choices: among
    values equally frequent the smallest wins (NaNs count as equal, and as largest)."""
    order = _nan_last_order(row)
    s = row[order]
    same_as_previous = s[1:] == s[:-1]
    if s.dtype.kind == "f":
        same_as_previous |= np.isnan(s[1:]) & np.isnan(s[:-1])
    starts = np.flatnonzero(np.concatenate([[True], ~same_as_previous]))
    ends = np.append(starts[1:], s.size)
    best = int(np.argmax(ends - starts))  # the first (smallest) of the most frequent
    return s[starts[best]], int(order[starts[best]:ends[best]].max())


@numpy_aliases
def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest one when
    several are as frequent) and the last index where it occurs."""
    d = _wrap_dim(dim, max(input.dim(), 1))
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return mode_result(*Mode.apply(input, d, keepdim))
